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

namespace {

// Which names hold `text` (case-insensitive), by StringId; false when none does.
bool namesHolding(const TimelineData &data, const QString &text, std::vector<char> &hit)
{
    hit.assign(data.names.size(), 0);
    bool any = false;
    for (size_t i = 0; i < data.names.size(); ++i) {
        hit[i] = data.names[i].contains(text, Qt::CaseInsensitive) ? 1 : 0;
        any = any || hit[i];
    }
    return any;
}

// Calls f(track, index) for each slice of track `id` whose name is hit (by StringId) until f
// returns false; the whole track, a paged one read from the project.
template <typename F>
void forSlicesNamed(const TimelineData &data, TrackId id, const std::vector<char> &hit,
                    QString *error, F &&f)
{
    const auto track = data.slicesIn(id, std::numeric_limits<TimeNs>::min(),
                                     std::numeric_limits<TimeNs>::max(), error);
    if (!track)
        return;
    for (size_t i = 0; i < track->size(); ++i) {
        const auto name = size_t(track->nameId(i));
        if (name < hit.size() && hit[name] && !f(*track, i))
            return;
    }
}

// "cat:" and "arg:" finds: the slice ids from the project's `slice` table, then their times
// from the tracks as the timeline holds them (on the project clock).
std::vector<SliceRef> findByColumn(const TimelineData &data, const QList<TrackId> &tracks,
                                   bool category, const QString &text, QString *error)
{
    std::vector<SliceRef> out;
    QString why;
    auto project = data.projectPath.isEmpty()
                       ? nullptr
                       : Project::open(data.projectPath, Project::Mode::ReadOnly, &why);
    if (!project) {
        if (error)
            *error = QStringLiteral("cannot search categories and args: %1")
                         .arg(why.isEmpty() ? QStringLiteral("no project file") : why);
        return out;
    }
    for (TrackId id : tracks) {
        QString problem;
        const std::vector<SliceId> ids = slicesHolding(*project, id, category, text, &problem);
        if (!problem.isEmpty()) {
            if (error)
                *error = problem;
            break;
        }
        if (ids.empty())
            continue;
        const auto track = data.slicesIn(id, std::numeric_limits<TimeNs>::min(),
                                         std::numeric_limits<TimeNs>::max(), error);
        if (!track)
            continue;
        for (SliceId sid : ids)
            if (const qint64 i = track->indexOf(sid); i >= 0)
                out.push_back({id, sid, track->start(size_t(i)), track->end(size_t(i))});
    }
    return out;
}

} // namespace

std::vector<SliceRef> findSlices(const TimelineData &data, const QList<TrackId> &tracks,
                                 const QString &pattern, bool regex, QString *error)
{
    std::vector<SliceRef> out;
    if (pattern.isEmpty())
        return out;
    const bool byCategory = pattern.startsWith(QLatin1String("cat:"), Qt::CaseInsensitive);
    const bool byArgs = pattern.startsWith(QLatin1String("arg:"), Qt::CaseInsensitive);
    if (byCategory || byArgs) {
        const QString text = pattern.mid(4).trimmed();
        if (!text.isEmpty())
            out = findByColumn(data, tracks, byCategory, text, error);
    } else {
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
        if (regex) {
            for (size_t i = 0; i < data.names.size(); ++i) {
                hit[i] = re.match(data.names[i]).hasMatch() ? 1 : 0;
                any = any || hit[i];
            }
        } else {
            any = namesHolding(data, pattern, hit);
        }
        if (!any)
            return out;
        for (TrackId id : tracks)
            forSlicesNamed(data, id, hit, error, [&](const SliceTrack &track, size_t i) {
                out.push_back({id, track.id(i), track.start(i), track.end(i)});
                return true;
            });
    }
    // Track order is kept for ties (stable), so "next" walks rows top to bottom at one time.
    std::stable_sort(out.begin(), out.end(),
                     [](const SliceRef &a, const SliceRef &b) { return a.start < b.start; });
    return out;
}

QSet<TrackId> tracksHolding(const TimelineData &data, const QList<TrackId> &tracks,
                            const QString &text, const std::function<bool()> &cancelled,
                            QString *error)
{
    QSet<TrackId> out;
    std::vector<char> hit;
    if (text.trimmed().isEmpty() || !namesHolding(data, text.trimmed(), hit))
        return out;
    for (TrackId id : tracks) {
        if (cancelled && cancelled())
            break;
        if (data.depthCount(id) == 0)
            continue;
        forSlicesNamed(data, id, hit, error, [&](const SliceTrack &, size_t) {
            out.insert(id);
            return false; // one is enough
        });
    }
    return out;
}

} // namespace gml
