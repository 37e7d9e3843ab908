// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicepager.h"

#include "clusterproject.h"
#include "project.h"
#include "slicelod.h"
#include "slicestore.h"
#include "trackrows.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gml {

namespace {
// Zoomed in past the finest level, a window reads the slices of the chunks it overlaps unless
// they are more than this many (a dense burst): then the finest level stands for them.
constexpr qint64 kMaxDetailSlices = 2'000'000;
constexpr size_t kMaxQueue = 4096;
constexpr size_t kMaxOpenShards = 8;
} // namespace

struct SlicePager::Connections
{
    explicit Connections(QString p) : path(std::move(p)) {}
    QString path;
    std::unique_ptr<Project> project;
    QString openError;
    std::list<std::pair<qint64, std::unique_ptr<Project>>> shards; // most recently used first
    std::unordered_map<qint64, QString> shardErrors;

    Project *main(QString *error)
    {
        if (!project && openError.isEmpty())
            project = Project::open(path, Project::Mode::ReadOnly, &openError);
        if (!project && error)
            *error = openError;
        return project.get();
    }
};

SlicePager::SlicePager(QString projectPath, std::vector<Track> tracks, size_t budgetBytes,
                       std::vector<cluster::Shard> shards)
    : m_path(std::move(projectPath)), m_budget(budgetBytes)
{
    for (auto &t : tracks)
        m_tracks.emplace(t.id, std::move(t));
    for (auto &sh : shards)
        m_shards.emplace(sh.id, std::move(sh));
    m_thread = std::thread([this] { run(); });
}

SlicePager::~SlicePager()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_listeners.clear();
    }
    m_wake.notify_all();
    m_thread.join();
}

int SlicePager::depthCount(TrackId track) const
{
    const auto it = m_tracks.find(track);
    return it == m_tracks.end() ? 0 : it->second.maxDepth + 1;
}

int SlicePager::levelFor(const std::vector<int> &shifts, double nsPerPixel)
{
    // Four buckets or more per pixel: a pixel then holds whole buckets, whose longest slices
    // start inside it. With one bucket a pixel, a pixel could straddle two buckets whose
    // longest slices both lie outside it, and a busy stream would show gaps.
    int best = -1;
    for (int s : shifts)
        if (std::ldexp(4.0, s) <= nsPerPixel)
            best = s;
    return best;
}

std::shared_ptr<const SliceTrack> SlicePager::view(TrackId track, TimeNs t0, TimeNs t1,
                                                   double nsPerPixel)
{
    const auto info = m_tracks.find(track);
    if (info == m_tracks.end())
        return nullptr;
    std::unique_lock lock(m_mutex);
    const int wanted = levelFor(levelsOf(info->second), nsPerPixel);
    auto best = m_windows.end(), latest = m_windows.end();
    for (auto it = m_windows.begin(); it != m_windows.end(); ++it) {
        if (it->first != track)
            continue;
        if (latest == m_windows.end())
            latest = it;
        const Window &w = it->second;
        if (w.t0 > t0 || w.t1 < t1)
            continue;
        if (w.shift == wanted) {
            best = it;
            break;
        }
        // Not the wanted level: the closest covering one stands in meanwhile.
        const auto distance = [wanted](int s) {
            return std::abs((s < 0 ? 0 : s) - (wanted < 0 ? 0 : wanted));
        };
        if (best == m_windows.end() || distance(w.shift) < distance(best->second.shift))
            best = it;
    }
    const bool exact = best != m_windows.end() && best->second.shift == wanted;
    if (!exact) {
        // Three windows wide: panning by a screen either way reads nothing.
        const TimeNs w = std::max<TimeNs>(1, t1 - t0);
        const Request r{track, wanted, t0 > std::numeric_limits<TimeNs>::min() + w ? t0 - w : t0,
                        t1 < std::numeric_limits<TimeNs>::max() - w ? t1 + w : t1, nsPerPixel};
        const auto same = std::find_if(m_queue.begin(), m_queue.end(), [&](const Request &q) {
            return q.track == track && q.shift == wanted;
        });
        if (same != m_queue.end())
            m_queue.erase(same);
        if (m_queue.size() >= kMaxQueue)
            m_queue.erase(m_queue.begin());
        m_queue.push_back(r);
        m_wake.notify_one();
    }
    const auto use = best != m_windows.end() ? best : latest;
    std::shared_ptr<const SliceTrack> out;
    if (use != m_windows.end()) {
        m_windows.splice(m_windows.begin(), m_windows, use);
        out = use->second.slices;
    }
    m_shown[track] = out;
    m_exact[track] = exact;
    return out;
}

bool SlicePager::exact(TrackId track) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_exact.find(track);
    return it != m_exact.end() && it->second;
}

std::shared_ptr<const SliceTrack> SlicePager::shown(TrackId track) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_shown.find(track);
    return it == m_shown.end() ? nullptr : it->second;
}

void SlicePager::setListener(const void *owner, std::function<void()> listener)
{
    std::lock_guard lock(m_mutex);
    for (auto &[o, l] : m_listeners)
        if (o == owner) {
            l = std::move(listener);
            return;
        }
    m_listeners.emplace_back(owner, std::move(listener));
}

void SlicePager::removeListener(const void *owner)
{
    std::lock_guard lock(m_mutex);
    std::erase_if(m_listeners, [owner](const auto &l) { return l.first == owner; });
}

void SlicePager::waitForIdle()
{
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return m_stop || (m_queue.empty() && !m_busy); });
}

size_t SlicePager::memoryBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_bytes;
}

QString SlicePager::errorString() const
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

void SlicePager::evict()
{
    while (m_bytes > m_budget && m_windows.size() > 1) {
        m_bytes -= m_windows.back().second.bytes;
        m_windows.pop_back();
    }
}

const std::vector<int> &SlicePager::levelsOf(const Track &info) const
{
    static const std::vector<int> none;
    if (!info.shard)
        return info.shifts;
    const auto learnt = m_shardShifts.find(info.id);
    return learnt == m_shardShifts.end() ? none : learnt->second;
}

Project *SlicePager::shardOf(Connections &c, qint64 shard, QString *error) const
{
    for (auto it = c.shards.begin(); it != c.shards.end(); ++it)
        if (it->first == shard) {
            c.shards.splice(c.shards.begin(), c.shards, it);
            return c.shards.front().second.get();
        }
    const auto fail = [&](const QString &why) -> Project * {
        c.shardErrors[shard] = why;
        if (error)
            *error = why;
        return nullptr;
    };
    if (const auto e = c.shardErrors.find(shard); e != c.shardErrors.end())
        return fail(e->second);
    const auto info = m_shards.find(shard);
    if (info == m_shards.end())
        return fail(QStringLiteral("the project references no shard %1").arg(shard));
    QString why;
    auto project = Project::open(info->second.path, Project::Mode::ReadOnly, &why);
    if (project)
        why = cluster::shardMismatch(*project, info->second);
    if (!why.isEmpty())
        return fail(QStringLiteral("shard %1: %2").arg(info->second.path, why));
    bool known;
    {
        std::lock_guard lock(m_mutex);
        known = m_shardNames.count(shard) != 0;
    }
    if (!known) {
        // Its names in the cluster's ids, and its tracks' levels.
        Project *cluster = c.main(error);
        if (!cluster)
            return nullptr;
        auto names = cluster::stringMap(project->db(), cluster->db());
        std::unordered_map<TrackId, std::vector<int>> levels;
        for (const auto &[track, shift] : summaryLevels(*project))
            levels[track + info->second.trackBase].push_back(shift);
        std::lock_guard lock(m_mutex);
        m_shardNames[shard] = std::move(names);
        for (auto &[track, shifts] : levels)
            m_shardShifts[track] = std::move(shifts);
    }
    c.shards.emplace_front(shard, std::move(project));
    if (c.shards.size() > kMaxOpenShards)
        c.shards.pop_back();
    return c.shards.front().second.get();
}

void SlicePager::run()
{
    Connections c(m_path);
    for (;;) {
        Request r;
        {
            std::unique_lock lock(m_mutex);
            m_busy = false;
            if (m_queue.empty())
                m_idle.notify_all();
            m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
            if (m_stop) {
                m_idle.notify_all();
                return;
            }
            r = m_queue.back(); // the newest viewport first
            m_queue.pop_back();
            m_busy = true;
        }
        QString error;
        std::shared_ptr<const SliceTrack> slices = read(c, r, false, &error);
        std::vector<std::function<void()>> listeners;
        {
            std::lock_guard lock(m_mutex);
            if (!slices) {
                // The first error is told (errorString()); later ones would repaint in a loop.
                if (!m_error.isEmpty())
                    continue;
                m_error =
                    error.isEmpty() ? QStringLiteral("cannot read track %1").arg(r.track) : error;
                for (const auto &l : m_listeners)
                    listeners.push_back(l.second);
            }
        }
        if (!slices) {
            for (const auto &l : listeners)
                l();
            continue;
        }
        {
            std::lock_guard lock(m_mutex);
            Window w{r.shift, r.t0, r.t1, slices, slices->memoryBytes() + sizeof(Window)};
            // A read replaces the windows of the same level that it covers. One it does not
            // cover stays (the budget drops it when unused): the newest request is read first,
            // so a read landing now may be of an older, other window (a viewport the view had
            // before its range was set), and must not push out the window on screen.
            for (auto it = m_windows.begin(); it != m_windows.end();) {
                if (it->first == r.track && it->second.shift == r.shift && r.t0 <= it->second.t0 &&
                    it->second.t1 <= r.t1) {
                    m_bytes -= it->second.bytes;
                    it = m_windows.erase(it);
                } else {
                    ++it;
                }
            }
            m_bytes += w.bytes;
            m_windows.emplace_front(r.track, std::move(w));
            evict();
            for (const auto &l : m_listeners)
                listeners.push_back(l.second);
        }
        for (const auto &l : listeners)
            l();
    }
}

std::shared_ptr<const SliceTrack> SlicePager::readSlices(TrackId track, TimeNs t0, TimeNs t1,
                                                         QString *error) const
{
    if (!has(track))
        return nullptr;
    Connections c(m_path);
    Request r{track, -1, t0, t1, 0};
    return read(c, r, true, error);
}

std::shared_ptr<const SliceTrack> SlicePager::read(Connections &c, Request &r, bool exact,
                                                   QString *error) const
{
    const Track &info = m_tracks.at(r.track);
    // Where a level (or the slices: -1) is read: the project, or the track's shard.
    Project *project = info.shard ? shardOf(c, info.shard, error) : c.main(error);
    if (!project)
        return nullptr;
    const TrackId stored = info.shard ? info.storedId : r.track;
    if (info.shard && !exact) {
        // The shard's levels are learnt when it is first opened: the level read is the one
        // the resolution asks for among all of them.
        std::lock_guard lock(m_mutex);
        r.shift = levelFor(levelsOf(info), r.nsPerPixel);
    }
    // The window on the stored clock (saturating: a window may reach past the time limits).
    const auto minus = [](TimeNs t, TimeNs offset) {
        TimeNs out;
        return __builtin_sub_overflow(t, offset, &out)
                   ? (offset > 0 ? std::numeric_limits<TimeNs>::min()
                                 : std::numeric_limits<TimeNs>::max())
                   : out;
    };
    const TimeNs t0 = minus(r.t0, info.offset), t1 = minus(r.t1, info.offset);
    int shift = r.shift;
    std::vector<SliceTrack::Input> in;
    if (shift < 0 && !exact) {
        const qint64 count = slicesInWindow(*project, stored, t0, t1);
        int finest = -1;
        {
            std::lock_guard lock(m_mutex);
            if (const auto &levels = levelsOf(info); !levels.empty())
                finest = levels.front();
        }
        if (count > kMaxDetailSlices && finest >= 0)
            shift = finest;
    }
    // What a shard holds gets the cluster's ids.
    const bool inShard = info.shard != 0;
    std::shared_ptr<const std::unordered_map<StringId, StringId>> names;
    if (inShard) {
        std::lock_guard lock(m_mutex);
        names = m_shardNames[info.shard];
    }
    const auto nameOf = [&](qint64 name) -> StringId {
        if (!inShard)
            return StringId(name);
        if (!names)
            return 0;
        const auto it = names->find(StringId(name));
        return it != names->end() ? it->second : 0;
    };
    const auto idOf = [&](SliceId id) { return inShard ? cluster::sliceIdOf(info.shard, id) : id; };
    if (shift < 0) {
        slicestore::TrackReader reader(project->db());
        if (!reader.read(stored, t0, t1, [&](const slicestore::Row &row) {
                if (inWindow(row.ts, row.dur, t0, t1))
                    in.push_back({row.ts + info.offset, row.dur, idOf(row.id), nameOf(row.name)});
            })) {
            if (error)
                *error = reader.errorString();
            return nullptr;
        }
    } else {
        std::vector<lod::Entry> entries;
        if (!lod::readLevel(project->db(), stored, shift, t0, t1, entries, error))
            return nullptr;
        in.reserve(entries.size());
        for (const auto &e : entries)
            in.push_back(
                {e.start + info.offset, e.duration, idOf(e.id), nameOf(e.name), int(e.depth)});
    }
    return std::make_shared<const SliceTrack>(SliceTrack::build(std::move(in)));
}

} // namespace gml
