// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinedata.h"

#include "project.h"

#include <limits>

namespace gml {

const TrackSummary *TimelineData::track(TrackId id) const
{
    for (const auto &run : runs)
        for (const auto &t : run.tracks)
            if (t.id == id)
                return &t;
    return nullptr;
}

const RunSummary *TimelineData::runOfTrack(TrackId id) const
{
    for (const auto &run : runs)
        for (const auto &t : run.tracks)
            if (t.id == id)
                return &run;
    return nullptr;
}

QString TimelineData::trackPath(TrackId id) const
{
    QStringList parts;
    for (const TrackSummary *t = track(id); t && parts.size() < 16; t = t->parent ? track(t->parent) : nullptr)
        parts.prepend(trackLabel(*t));
    return parts.join(QStringLiteral(" › "));
}

size_t TimelineData::sliceCount() const
{
    size_t n = 0;
    for (const auto &t : slices)
        n += t->size();
    return n;
}

size_t TimelineData::memoryBytes() const
{
    size_t n = 0;
    for (const auto &t : slices)
        n += t->memoryBytes();
    for (const auto &c : counters)
        n += c->memoryBytes();
    return n;
}

std::shared_ptr<const TimelineData> loadTimelineData(const QString &projectPath, QString *error,
                                                     const std::function<bool(int, int)> &progress)
{
    auto project = Project::open(projectPath, Project::Mode::ReadOnly, error);
    if (!project)
        return nullptr;
    auto data = std::make_shared<TimelineData>();
    data->projectPath = projectPath;
    QString why;
    data->runs = summarizeProject(*project, &why);
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return nullptr;
    }
    {
        auto st = project->db().prepare("SELECT id, value FROM string");
        while (st.step()) {
            const qint64 id = st.int64(0);
            if (id < 0 || id > (qint64(1) << 31))
                continue;
            if (size_t(id) >= data->names.size())
                data->names.resize(size_t(id) + 1);
            data->names[size_t(id)] = st.text(1);
        }
    }
    int total = 0;
    for (const auto &run : data->runs)
        total += int(run.tracks.size());
    int done = 0;
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    for (const auto &run : data->runs) {
        for (const auto &t : run.tracks) {
            if (progress && !progress(done, total)) {
                if (error)
                    error->clear();
                return nullptr;
            }
            ++done;
            if (t.slices > 0) {
                auto s = std::make_shared<const SliceTrack>(SliceTrack::load(*project, t.id, &why));
                if (!why.isEmpty()) {
                    if (error)
                        *error = why;
                    return nullptr;
                }
                if (!s->isEmpty()) {
                    lo = std::min(lo, s->minStart());
                    hi = std::max(hi, s->maxEnd());
                }
                data->slices.insert(t.id, std::move(s));
            }
            if (t.counterSamples > 0) {
                auto c = std::make_shared<const CounterTrack>(CounterTrack::load(*project, t.id, &why));
                if (!why.isEmpty()) {
                    if (error)
                        *error = why;
                    return nullptr;
                }
                if (!c->isEmpty()) {
                    lo = std::min(lo, c->ts(0));
                    hi = std::max(hi, c->ts(c->size() - 1));
                }
                data->counters.insert(t.id, std::move(c));
            }
        }
    }
    if (lo <= hi) {
        data->start = lo;
        data->end = std::max(hi, lo + 1);
    }
    if (progress)
        progress(total, total);
    return data;
}

QString trackLabel(const TrackSummary &track)
{
    QString label = track.name.isEmpty() ? QStringLiteral("%1 %2").arg(trackKindName(track.kind)).arg(track.id)
                                         : track.name;
    // Top-level rows of a multi-rank run say whose they are ("rank 3 · global instant events").
    if (!track.parent && track.rank >= 0 && !label.startsWith(QLatin1String("rank ")))
        label = QStringLiteral("rank %1 · %2").arg(track.rank).arg(label);
    return label;
}

} // namespace gml
