// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The rows of `track` as the simulator and the analyses read them: one run's tracks with what
// places them (kind, rank, process, source, parent) and how much they hold.

#include "types.h"

#include <QString>

#include <optional>
#include <vector>

namespace gml {

class Project;

struct TrackRow
{
    TrackId id = 0;
    TrackKind kind = TrackKind::Thread;
    QString name;
    int rank = -1; // -1: none
    QString pid;
    SourceId source = 0;
    qint64 sliceCount = 0, counterCount = 0;
    std::optional<TrackKind> parentKind;
    QString parentPid;
};
// Every track of `run`, by id; *error set on a read error.
std::vector<TrackRow> tracksOfRun(Project &project, RunId run, QString *error = nullptr);
// Whether any track of `run` holds a slice.
bool runHasSlices(Project &project, RunId run);
// The id of an interned string, 0 when the project has no such string (nothing is added).
StringId existingString(Project &project, const QString &text);

} // namespace gml
