// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicepager.h"

#include "project.h"
#include "slicelod.h"
#include "slicestore.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gml {

namespace {
// Zoomed in past the finest level, a window reads the slices of the chunks it overlaps unless
// they are more than this many (a dense burst): then the finest level stands for them.
constexpr qint64 kMaxDetailSlices = 2'000'000;
constexpr size_t kMaxQueue = 4096;
} // namespace

SlicePager::SlicePager(QString projectPath, std::vector<Track> tracks, size_t budgetBytes)
    : m_path(std::move(projectPath)), m_budget(budgetBytes)
{
    for (auto &t : tracks)
        m_tracks.emplace(t.id, std::move(t));
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

std::shared_ptr<const SliceTrack> SlicePager::view(TrackId track, TimeNs t0, TimeNs t1, double nsPerPixel)
{
    const auto info = m_tracks.find(track);
    if (info == m_tracks.end())
        return nullptr;
    const int wanted = levelFor(info->second.shifts, nsPerPixel);
    std::unique_lock lock(m_mutex);
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
        const auto distance = [wanted](int s) { return std::abs((s < 0 ? 0 : s) - (wanted < 0 ? 0 : wanted)); };
        if (best == m_windows.end() || distance(w.shift) < distance(best->second.shift))
            best = it;
    }
    const bool exact = best != m_windows.end() && best->second.shift == wanted;
    if (!exact) {
        // Three windows wide: panning by a screen either way reads nothing.
        const TimeNs w = std::max<TimeNs>(1, t1 - t0);
        const Request r{track, wanted, t0 > std::numeric_limits<TimeNs>::min() + w ? t0 - w : t0,
                        t1 < std::numeric_limits<TimeNs>::max() - w ? t1 + w : t1};
        const auto same = std::find_if(m_queue.begin(), m_queue.end(),
                                       [&](const Request &q) { return q.track == track && q.shift == wanted; });
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

void SlicePager::run()
{
    std::unique_ptr<Project> project;
    QString openError;
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
        if (!project && openError.isEmpty())
            project = Project::open(m_path, Project::Mode::ReadOnly, &openError);
        QString error = openError;
        std::shared_ptr<const SliceTrack> slices = project ? read(*project, r, false, &error) : nullptr;
        std::vector<std::function<void()>> listeners;
        {
            std::lock_guard lock(m_mutex);
            if (!slices) {
                if (m_error.isEmpty())
                    m_error = error;
                continue;
            }
            Window w{r.shift, r.t0, r.t1, slices, slices->memoryBytes() + sizeof(Window)};
            // A read replaces the windows of the same level that it covers. One it does not
            // cover stays (the budget drops it when unused): the newest request is read first,
            // so a read landing now may be of an older, other window (a viewport the view had
            // before its range was set), and must not push out the window on screen.
            for (auto it = m_windows.begin(); it != m_windows.end();) {
                if (it->first == r.track && it->second.shift == r.shift && r.t0 <= it->second.t0 && it->second.t1 <= r.t1) {
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

std::shared_ptr<const SliceTrack> SlicePager::readSlices(TrackId track, TimeNs t0, TimeNs t1, QString *error) const
{
    if (!has(track))
        return nullptr;
    auto project = Project::open(m_path, Project::Mode::ReadOnly, error);
    return project ? read(*project, Request{track, -1, t0, t1}, true, error) : nullptr;
}

std::shared_ptr<const SliceTrack> SlicePager::read(Project &project, const Request &r, bool exact, QString *error) const
{
    const Track &info = m_tracks.at(r.track);
    // The window on the stored clock (saturating: a window may reach past the time limits).
    const auto minus = [](TimeNs t, TimeNs offset) {
        TimeNs out;
        return __builtin_sub_overflow(t, offset, &out) ? (offset > 0 ? std::numeric_limits<TimeNs>::min()
                                                                     : std::numeric_limits<TimeNs>::max())
                                                       : out;
    };
    const TimeNs t0 = minus(r.t0, info.offset), t1 = minus(r.t1, info.offset);
    int shift = r.shift;
    std::vector<SliceTrack::Input> in;
    if (shift < 0 && !exact) {
        auto count = project.db().prepare(
            "SELECT coalesce(sum(count), 0) FROM slice_chunk WHERE track_id = ?1 AND min_ts < ?2 AND max_end >= ?3");
        count.bind(1, r.track);
        count.bind(2, t1);
        count.bind(3, t0);
        if (count.step() && count.int64(0) > kMaxDetailSlices && !info.shifts.empty())
            shift = info.shifts.front();
    }
    if (shift < 0) {
        slicestore::TrackReader reader(project.db());
        if (!reader.read(r.track, t0, t1, [&](const slicestore::Row &row) {
                if (inWindow(row.ts, row.dur, t0, t1))
                    in.push_back({row.ts + info.offset, row.dur, row.id, StringId(row.name)});
            })) {
            if (error)
                *error = reader.errorString();
            return nullptr;
        }
    } else {
        std::vector<lod::Entry> entries;
        if (!lod::readLevel(project.db(), r.track, shift, t0, t1, entries, error))
            return nullptr;
        in.reserve(entries.size());
        for (const auto &e : entries)
            in.push_back({e.start + info.offset, e.duration, e.id, e.name, int(e.depth)});
    }
    return std::make_shared<const SliceTrack>(SliceTrack::build(std::move(in)));
}

} // namespace gml
