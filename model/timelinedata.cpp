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

namespace {

// Loads one slice or counter track into `into`; false with *error set on failure.
template <typename Track>
bool loadTrack(SqliteStatement &statement, TrackId id, QHash<TrackId, std::shared_ptr<const Track>> &into, QString *error)
{
    QString why;
    auto track = std::make_shared<const Track>(Track::load(statement, id, &why));
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return false;
    }
    into.insert(id, std::move(track));
    return true;
}

} // namespace

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
    auto sliceRows = SliceTrack::prepareLoad(*project), counterRows = CounterTrack::prepareLoad(*project);
    for (const auto &run : data->runs) {
        for (const auto &t : run.tracks) {
            if (progress && !progress(done, total)) {
                if (error)
                    error->clear();
                return nullptr;
            }
            ++done;
            if (t.slices > 0 && !loadTrack(sliceRows, t.id, data->slices, error))
                return nullptr;
            if (t.counterSamples > 0 && !loadTrack(counterRows, t.id, data->counters, error))
                return nullptr;
        }
    }
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    for (const auto &s : std::as_const(data->slices))
        if (!s->isEmpty()) {
            lo = std::min(lo, s->minStart());
            hi = std::max(hi, s->maxEnd());
        }
    for (const auto &c : std::as_const(data->counters))
        if (!c->isEmpty()) {
            lo = std::min(lo, c->ts(0));
            hi = std::max(hi, c->ts(c->size() - 1));
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
