// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicequery.h"

#include "project.h"
#include "timelinedata.h"

#include <QHash>
#include <QJsonDocument>

#include <algorithm>
#include <limits>

namespace gml {

std::optional<SliceRef> findSliceRef(const TimelineData &data, TrackId track, SliceId id)
{
    if (const auto s = data.slices.value(track)) {
        const qint64 i = s->indexOf(id);
        if (i < 0)
            return std::nullopt;
        return SliceRef{track, id, s->start(size_t(i)), s->end(size_t(i))};
    }
    if (data.projectPath.isEmpty())
        return std::nullopt;
    auto project = Project::open(data.projectPath, Project::Mode::ReadOnly, nullptr);
    const auto d = project ? sliceDetails(*project, id) : std::nullopt;
    if (!d || d->track != track)
        return std::nullopt;
    return SliceRef{track, id, d->start, d->start + d->duration};
}

std::vector<AggregateRow> aggregateSlices(const TimelineData &data,
                                          const std::vector<AggregateTrack> &tracks, TimeNs t0,
                                          TimeNs t1, QString *error)
{
    QHash<std::pair<RunId, StringId>, size_t> index;
    std::vector<AggregateRow> rows;
    for (const AggregateTrack &at : tracks) {
        const TimeNs a = t0 + at.shift, b = t1 + at.shift; // the range on the track's clock
        const auto track = data.slicesIn(at.track, a, b, error);
        if (!track)
            continue;
        const RunId runId = at.run;
        track->forEachVisible(a, b, [&](size_t i) {
            const StringId name = track->nameId(i);
            auto it = index.find({runId, name});
            if (it == index.end()) {
                it = index.insert({runId, name}, rows.size());
                rows.push_back({name, runId, 0, 0, 0, 0});
            }
            auto &r = rows[it.value()];
            const TimeNs d = track->duration(i);
            const TimeNs s = track->start(i);
            ++r.count;
            r.inRange += std::max<TimeNs>(0, std::min(s + d, b) - std::max(s, a));
            r.total += d;
            r.max = std::max(r.max, d);
        });
    }
    std::sort(rows.begin(), rows.end(), [](const AggregateRow &a, const AggregateRow &b) {
        if (a.inRange != b.inRange)
            return a.inRange > b.inRange;
        return a.run != b.run ? a.run < b.run : a.name < b.name;
    });
    return rows;
}

std::vector<AggregateRow> aggregateSlices(const TimelineData &data, const QList<TrackId> &tracks,
                                          TimeNs t0, TimeNs t1, QString *error)
{
    std::vector<AggregateTrack> all;
    for (TrackId t : tracks) {
        const RunSummary *run = data.runOfTrack(t);
        all.push_back({t, run ? run->id : 0, 0});
    }
    return aggregateSlices(data, all, t0, t1, error);
}

std::vector<SliceRef> findSlices(const TimelineData &data, const QList<TrackId> &tracks,
                                 const QString &pattern, bool regex, QString *error)
{
    std::vector<SliceRef> out;
    if (pattern.isEmpty())
        return out;
    QRegularExpression re;
    if (regex) {
        re = QRegularExpression(pattern);
        if (!re.isValid()) {
            if (error)
                *error = QStringLiteral("bad regular expression at %1: %2")
                             .arg(re.patternErrorOffset())
                             .arg(re.errorString());
            return out;
        }
    }
    // Match each distinct name once, then scan the compact name arrays.
    std::vector<char> hit(data.names.size(), 0);
    bool any = false;
    for (size_t i = 0; i < data.names.size(); ++i) {
        const QString &n = data.names[i];
        const bool m = regex ? re.match(n).hasMatch() : n.contains(pattern, Qt::CaseInsensitive);
        hit[i] = m ? 1 : 0;
        any = any || m;
    }
    if (!any)
        return out;
    for (TrackId id : tracks) {
        const auto track = data.slicesIn(id, std::numeric_limits<TimeNs>::min(),
                                         std::numeric_limits<TimeNs>::max(), error);
        if (!track)
            continue;
        for (size_t i = 0; i < track->size(); ++i) {
            const auto name = size_t(track->nameId(i));
            if (name < hit.size() && hit[name])
                out.push_back({id, track->id(i), track->start(i), track->end(i)});
        }
    }
    // Track order is kept for ties (stable), so "next" walks rows top to bottom at one time.
    std::stable_sort(out.begin(), out.end(),
                     [](const SliceRef &a, const SliceRef &b) { return a.start < b.start; });
    return out;
}

} // namespace gml
