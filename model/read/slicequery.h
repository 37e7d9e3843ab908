// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slicedetails.h"
#include "timelinedata.h"
#include "types.h"

#include <QJsonObject>
#include <QList>
#include <QRegularExpression>
#include <QSet>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace gml {

class Project;

// Slice `id` of `track` as the timeline reveals it: from the track when held whole, else read
// from the project (a paged track). Nullopt when it is in neither.
std::optional<SliceRef> findSliceRef(const TimelineData &data, TrackId track, SliceId id);

// Per-run, per-name statistics of the slices of `tracks` that overlap [t0, t1) (Perfetto's area
// selection): count; the time they spend inside the range (clipped to it: a profiler span of a
// second shows the 62 ms it covers of a 62 ms range); and total / average / maximum of their
// whole durations. Split by run, so a measured run and its prediction are never summed.
struct AggregateRow
{
    StringId name = 0;
    RunId run = 0;
    qint64 count = 0;
    TimeNs inRange = 0;
    TimeNs total = 0;
    TimeNs max = 0;
    double average() const { return count ? double(total) / double(count) : 0.0; }
};
// A track, its run and its shift in the timeline (TimelineLayout::shiftOf): [t0, t1) is in
// view time.
struct AggregateTrack
{
    TrackId track = 0;
    RunId run = 0;
    TimeNs shift = 0;
};
// Paged tracks are read from the project for the range (run it off the GUI thread); *error is
// set when one cannot be read. Sorted by time in range, largest first.
std::vector<AggregateRow> aggregateSlices(const TimelineData &data,
                                          const std::vector<AggregateTrack> &tracks, TimeNs t0,
                                          TimeNs t1, QString *error = nullptr);
std::vector<AggregateRow> aggregateSlices(const TimelineData &data, const QList<TrackId> &tracks,
                                          TimeNs t0, TimeNs t1, QString *error = nullptr);

// Every slice whose name matches, in time order (ties by track order), over `tracks`, paged
// ones read from the project. Plain text matches as a case-insensitive substring; a regex as
// QRegularExpression. "cat:TEXT" matches the slices whose category holds TEXT and "arg:TEXT"
// those whose args (as JSON text: keys and values) hold it, case-insensitive, read from the
// project with SQL (not in a cluster project, whose slices are in its shards: *error says so).
std::vector<SliceRef> findSlices(const TimelineData &data, const QList<TrackId> &tracks,
                                 const QString &pattern, bool regex, QString *error = nullptr);

// The tracks among `tracks` holding a slice whose name contains `text` (case-insensitive):
// the track filter's match by content ("nccl" keeps the streams that ran NCCL kernels). Paged
// tracks are read from the project (run it off the GUI thread); `cancelled` stops early.
QSet<TrackId> tracksHolding(const TimelineData &data, const QList<TrackId> &tracks,
                            const QString &text, const std::function<bool()> &cancelled = {},
                            QString *error = nullptr);

} // namespace gml
