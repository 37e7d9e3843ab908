// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The rows of `track` as the simulator and the analyses read them: one run's tracks with what
// places them (kind, rank, process, source, parent) and how much they hold.

#include "types.h"

#include <QList>
#include <QString>
#include <QStringList>

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
    QString pid, tid;
    TrackId parent = 0; // 0: a top-level track
    qint64 sortKey = 0;
    SourceId source = 0;
    qint64 sliceCount = 0, counterCount = 0;
    QString unit;
    std::optional<TrackKind> parentKind;
    QString parentPid, parentName;
    QString format; // its source's ("" when it has none)
};
// Every track of `run`, by id; *error set on a read error.
std::vector<TrackRow> tracksOfRun(Project &project, RunId run, QString *error = nullptr);
// The distinct ranks of `run`'s tracks, ascending.
std::vector<int> ranksOfRun(Project &project, RunId run);
// The sources of `run` with tracks of `rank`.
QList<SourceId> sourcesOfRank(Project &project, RunId run, int rank);
// Whether a rank of `run` has threads with slices in more than one source (a process whose
// threads were written to several files); *error set on a read error.
bool rankThreadsSpanSources(Project &project, RunId run, QString *error = nullptr);
// The lowest rank of `run`'s tracks; nullopt when none has a rank.
std::optional<int> lowestRank(Project &project, RunId run);
// The samples of counter track `track` on the project clock, by time then step (step -1: none).
struct CounterPoint
{
    TimeNs ts = 0;
    double value = 0;
    qint64 step = -1;
};
std::vector<CounterPoint> counterPoints(Project &project, TrackId track);
// Whether any track of `run` holds a slice.
bool runHasSlices(Project &project, RunId run);
// The id of an interned string, 0 when the project has no such string (nothing is added).
StringId existingString(Project &project, const QString &text);
// The same for many strings through one statement (issue 74: the op-cost scan prepared one per
// costed op name for every file, 110 M instructions on 32 rank files), in `texts`' order.
std::vector<StringId> existingStrings(Project &project, const QStringList &texts);

} // namespace gml
