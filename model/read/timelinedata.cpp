// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinedata.h"

#include "clusterproject.h"
#include "project.h"
#include "trackrows.h"
#include "waitingthreads.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

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

const RunSummary *TimelineData::run(RunId id) const
{
    for (const auto &r : runs)
        if (r.id == id)
            return &r;
    return nullptr;
}

const RunSummary *TimelineData::runNamed(const QString &name) const
{
    for (const auto &r : runs)
        if (r.name == name)
            return &r;
    return nullptr;
}

QString TimelineData::trackPath(TrackId id) const
{
    QStringList parts;
    for (const TrackSummary *t = track(id); t && parts.size() < 16;
         t = t->parent ? track(t->parent) : nullptr)
        parts.prepend(trackLabel(*t));
    return parts.join(QStringLiteral(" › "));
}

std::shared_ptr<const SliceTrack> TimelineData::slicesIn(TrackId id, TimeNs t0, TimeNs t1,
                                                         QString *error) const
{
    if (auto s = slices.value(id))
        return s;
    if (!pager || !pager->has(id))
        return nullptr;
    QString why;
    auto s = pager->readSlices(id, t0, t1, &why);
    if (!s && error && error->isEmpty())
        *error = why;
    return s;
}

int TimelineData::depthCount(TrackId id) const
{
    if (const auto s = slices.value(id))
        return s->depthCount();
    return pager ? pager->depthCount(id) : 0;
}

size_t TimelineData::sliceCount() const
{
    size_t n = size_t(pagedSlices);
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
    if (pager)
        n += pager->memoryBytes();
    return n;
}

namespace {

// Loads one slice or counter track into `into`; false with *error set on failure.
template <typename Track, typename Reader>
bool loadTrack(Reader &reader, TrackId id, QHash<TrackId, std::shared_ptr<const Track>> &into,
               QString *error)
{
    QString why;
    auto track = std::make_shared<const Track>(Track::load(reader, id, &why));
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return false;
    }
    into.insert(id, std::move(track));
    return true;
}

} // namespace

namespace {

std::shared_ptr<const TimelineData> load(Project &project, QString *error,
                                         const std::function<bool(int, int)> &progress, bool page,
                                         const TimelineData *previous);

std::shared_ptr<const TimelineData> load(const QString &projectPath, QString *error,
                                         const std::function<bool(int, int)> &progress, bool page,
                                         const TimelineData *previous)
{
    auto project = Project::open(projectPath, Project::Mode::ReadOnly, error);
    if (!project)
        return nullptr;
    return load(*project, error, progress, page, previous);
}

} // namespace

std::shared_ptr<const TimelineData> loadTimelineData(Project &project, QString *error,
                                                     const std::function<bool(int, int)> &progress)
{
    return load(project, error, progress, true, nullptr);
}

std::shared_ptr<const TimelineData> loadTimelineData(const QString &projectPath, QString *error,
                                                     const std::function<bool(int, int)> &progress,
                                                     bool page)
{
    return load(projectPath, error, progress, page, nullptr);
}

std::shared_ptr<const TimelineData>
reloadTimelineData(const std::shared_ptr<const TimelineData> &previous, QString *error,
                   const std::function<bool(int, int)> &progress)
{
    return load(previous->projectPath, error, progress, true, previous.get());
}

namespace {

std::shared_ptr<const TimelineData> load(Project &projectRef, QString *error,
                                         const std::function<bool(int, int)> &progress, bool page,
                                         const TimelineData *previous)
{
    Project *const project = &projectRef;
    auto data = std::make_shared<TimelineData>();
    data->projectPath = project->path();
    QString why;
    data->runs = summarizeProject(*project, &why);
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return nullptr;
    }
    for (const auto &[id, text] : allStrings(*project)) {
        if (id < 0 || id > (qint64(1) << 31))
            continue;
        if (size_t(id) >= data->names.size())
            data->names.resize(size_t(id) + 1);
        data->names[size_t(id)] = text;
    }
    // Tracks with summaries are paged: their extent, depth and levels are all that is read now.
    struct Paged
    {
        SlicePager::Track track;
        TimeNs start = 0, end = 0;
        qint64 slices = 0;
    };
    // Every summarised track is paged, whatever the project's size: the rows in view are what
    // is read, so 1,280 small tracks cost nothing at open (a size threshold made a job just
    // under it open slower than a larger one above it, issue 57).
    std::unordered_map<TrackId, Paged> paged;
    // A cluster project's slices are all in its shards: every track is paged from there.
    std::vector<cluster::Shard> shards = cluster::shards(*project);
    std::erase_if(shards,
                  [](const cluster::Shard &sh) { return sh.status != QLatin1String("merged"); });
    if (page && project->schemaVersion() >= 7) {
        QString readError, levelsError;
        for (const SummarizedTrack &t : summarizedTracks(*project, &readError)) {
            Paged p;
            p.track.id = t.id;
            p.track.maxDepth = int(std::clamp<qint64>(t.maxDepth, 0, 0xffff));
            p.track.offset = t.offset;
            p.track.shard = t.shard;
            p.track.storedId = t.storedId;
            p.start = t.start + p.track.offset;
            p.end = t.end + p.track.offset;
            p.slices = t.slices;
            paged.emplace(p.track.id, p);
        }
        for (const auto &[track, shift] : summaryLevels(*project, &levelsError))
            if (const auto it = paged.find(track); it != paged.end())
                it->second.track.shifts.push_back(shift);
        if (!readError.isEmpty() || !levelsError.isEmpty()) {
            if (error)
                *error = readError.isEmpty() ? levelsError : readError;
            return nullptr;
        }
    }
    int total = 0;
    for (const auto &run : data->runs)
        total += int(run.tracks.size());
    int done = 0;
    SliceRowReader sliceRows(*project);
    CounterRowReader counterRows(*project);
    std::optional<CounterRowReader> counterRowsAfter;
    if (previous)
        counterRowsAfter.emplace(*project, CounterRowReader::Mode::After);
    // A counter track held by `previous`: shared when it has as many samples, extended by its
    // new ones when it grew; false: load it whole.
    auto reuse = [&](TrackId id, qint64 samples) {
        const auto old = previous ? previous->counters.value(id) : nullptr;
        if (!old || qint64(old->size()) > samples)
            return false;
        if (qint64(old->size()) == samples) {
            data->counters.insert(id, old);
            return true;
        }
        QString why;
        auto grown = CounterTrack::loadAfter(*counterRowsAfter, *old, id, &why);
        if (!grown || qint64(grown->size()) != samples) // not only appended: read it whole
            return false;
        data->counters.insert(id, std::make_shared<const CounterTrack>(std::move(*grown)));
        return true;
    };
    for (const auto &run : data->runs) {
        for (const auto &t : run.tracks) {
            if (progress && !progress(done, total)) {
                if (error)
                    error->clear();
                return nullptr;
            }
            ++done;
            if (t.slices > 0 && !paged.count(t.id) &&
                !loadTrack(sliceRows, t.id, data->slices, error))
                return nullptr;
            if (t.counterSamples > 0 && !reuse(t.id, t.counterSamples) &&
                !loadTrack(counterRows, t.id, data->counters, error))
                return nullptr;
        }
    }
    data->waitingThreads = sortWaitingThreadsLast(
        data->runs, data->names, [&](TrackId id) -> std::shared_ptr<const SliceTrack> {
            if (auto held = data->slices.value(id))
                return held;
            QString why;
            SliceTrack read = SliceTrack::load(sliceRows, id, &why);
            return why.isEmpty() ? std::make_shared<const SliceTrack>(std::move(read)) : nullptr;
        });
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
    if (!paged.empty()) {
        std::vector<SlicePager::Track> tracks;
        for (auto &[id, p] : paged) {
            lo = std::min(lo, p.start);
            hi = std::max(hi, p.end);
            data->pagedSlices += p.slices;
            tracks.push_back(std::move(p.track));
        }
        data->pager = std::make_shared<SlicePager>(data->projectPath, std::move(tracks),
                                                   size_t(160) << 20, std::move(shards));
    }
    if (lo <= hi) {
        data->start = lo;
        data->end = std::max(hi, lo + 1);
    }
    if (progress)
        progress(total, total);
    return data;
}

} // namespace

QString trackLabel(const TrackSummary &track)
{
    QString label = track.name.isEmpty()
                        ? QStringLiteral("%1 %2").arg(trackKindName(track.kind)).arg(track.id)
                        : track.name;
    // Top-level rows of a multi-rank run say whose they are ("rank 3 · global instant events").
    if (!track.parent && track.rank >= 0 && !label.startsWith(QLatin1String("rank ")))
        label = QStringLiteral("rank %1 · %2").arg(track.rank).arg(label);
    return label;
}

} // namespace gml
