// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "countertrack.h"
#include "projectsummary.h"
#include "slicepager.h"
#include "slicetrack.h"
#include "types.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

namespace gml {

class Project;

// One slice by what identifies it whatever is loaded: the timeline finds it again in the
// window it shows (SliceTrack::find), whether the track is held whole or paged.
struct SliceRef
{
    TrackId track = 0;
    SliceId id = 0;
    TimeNs start = 0;
    TimeNs end = 0;
};

// Everything the timeline shows of one project, loaded once (off the GUI thread) and then
// immutable: the run/track tree, each track's slices or counter samples on the project clock,
// and the interned names. Shared read-only by the views, the exporter and the benchmarks.
// Tracks with level-of-detail summaries (slicelod.h) are not loaded: `pager` reads what a
// viewport shows of them (issue 34), so opening a project of any size reads its tree only.
struct TimelineData
{
    QString projectPath;
    QList<RunSummary> runs;
    QHash<TrackId, std::shared_ptr<const SliceTrack>> slices; // tracks held whole
    std::shared_ptr<SlicePager> pager;                        // the others (null: none)
    qint64 pagedSlices = 0;                                   // slices of the pager's tracks
    QHash<TrackId, std::shared_ptr<const CounterTrack>> counters;
    std::vector<QString> names; // by StringId
    TimeNs start = 0;           // earliest slice start or sample of any run
    TimeNs end = 0;
    // CPU threads that only wait (waitingthreads.h), listed after their siblings in `runs`:
    // the timeline folds them to one row each.
    QSet<TrackId> waitingThreads;

    QString name(StringId id) const
    {
        return (id >= 0 && size_t(id) < names.size()) ? names[size_t(id)] : QString();
    }
    // A track's slices as the views see them: the whole track when held, else what the pager
    // last gave for the viewport (indices valid until the next view() of that track).
    std::shared_ptr<const SliceTrack> shown(TrackId id) const
    {
        if (auto s = slices.value(id))
            return s;
        return pager ? pager->shown(id) : nullptr;
    }
    // Every slice of a track overlapping [t0, t1): the whole track when held, else read now
    // from the project (a paged track, on the caller's thread). Null when the track has none
    // or cannot be read (then *error is set, unless it already says something).
    std::shared_ptr<const SliceTrack> slicesIn(TrackId id, TimeNs t0, TimeNs t1,
                                               QString *error = nullptr) const;
    // Nesting depths of a track's slices (0: no slices), whether held or paged.
    int depthCount(TrackId id) const;
    const TrackSummary *track(TrackId id) const;
    const RunSummary *runOfTrack(TrackId id) const;
    const RunSummary *run(RunId id) const; // null: none
    const RunSummary *runNamed(const QString &name) const;
    // "rank 0 · GPU 0 · NVIDIA A100 › stream 7": the track's label after its ancestors'.
    QString trackPath(TrackId id) const;
    size_t sliceCount() const;
    size_t memoryBytes() const; // slice and counter arrays, and what the pager holds
};

// Loads the project's timeline: the tree, counters, and the slices of tracks without summaries
// (small ones, or all of a project written before schema v7 and opened read-only); tracks with
// summaries go to the pager. `progress(done, total)` returns false to cancel (then null is
// returned with *error empty). Returns null with *error set on failure.
// `page` false reads every track whole, as before schema v7 (the open benchmark's baseline).
std::shared_ptr<const TimelineData>
loadTimelineData(const QString &projectPath, QString *error,
                 const std::function<bool(int, int)> &progress = {}, bool page = true);
// The same through a project already open on this thread (read-only or not), which stays open:
// a window that opens a project once reads its timeline and its slices' details through it.
std::shared_ptr<const TimelineData>
loadTimelineData(Project &project, QString *error,
                 const std::function<bool(int, int)> &progress = {});

// The same for a project that only grew by samples appended to counter tracks since `previous`
// was loaded from it, with no clock changed (a followed folder's logs read in parts:
// FollowController): a counter track of the size it had is shared with `previous`, one that
// grew reads only its new samples; everything else is loaded as loadTimelineData does.
std::shared_ptr<const TimelineData>
reloadTimelineData(const std::shared_ptr<const TimelineData> &previous, QString *error,
                   const std::function<bool(int, int)> &progress = {});

// A track's readable label for the timeline: the importer's name, which already says what the
// row is ("rank 1 · GPU 1 · NVIDIA A100", "stream 7"), or a fallback from kind and ids.
QString trackLabel(const TrackSummary &track);

} // namespace gml
