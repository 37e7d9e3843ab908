// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "countertrack.h"
#include "projectsummary.h"
#include "slicetrack.h"
#include "types.h"

#include <QHash>
#include <QList>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

namespace gml {

class Project;

// Everything the timeline shows of one project, loaded once (off the GUI thread) and then
// immutable: the run/track tree, each track's slices or counter samples on the project clock,
// and the interned names. Shared read-only by the views, the exporter and the benchmarks.
struct TimelineData
{
    QString projectPath;
    QList<RunSummary> runs;
    QHash<TrackId, std::shared_ptr<const SliceTrack>> slices;
    QHash<TrackId, std::shared_ptr<const CounterTrack>> counters;
    std::vector<QString> names; // by StringId
    TimeNs start = 0;           // earliest slice start or sample of any run
    TimeNs end = 0;

    QString name(StringId id) const
    {
        return (id >= 0 && size_t(id) < names.size()) ? names[size_t(id)] : QString();
    }
    const TrackSummary *track(TrackId id) const;
    const RunSummary *runOfTrack(TrackId id) const;
    // "rank 0 · GPU 0 · NVIDIA A100 › stream 7": the track's label after its ancestors'.
    QString trackPath(TrackId id) const;
    size_t sliceCount() const;
    size_t memoryBytes() const; // slice and counter arrays
};

// Loads the project's timeline. `progress(done, total)` returns false to cancel (then null is
// returned with *error empty). Returns null with *error set on failure.
std::shared_ptr<const TimelineData> loadTimelineData(const QString &projectPath, QString *error,
                                                     const std::function<bool(int, int)> &progress = {});

// A track's readable label for the timeline: the importer's name, which already says what the
// row is ("rank 1 · GPU 1 · NVIDIA A100", "stream 7"), or a fallback from kind and ids.
QString trackLabel(const TrackSummary &track);

} // namespace gml
