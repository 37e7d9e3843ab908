// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clusterproject.h"
#include "slicetrack.h"
#include "types.h"

#include <QString>

#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace gml {

class Project;

// The slices of large tracks, read as the viewport needs them (issue 34): a window at a
// resolution gets the coarsest summary level (slicelod.h) whose buckets are at most a quarter
// of a pixel, or the slices themselves from the chunks that overlap the window once zoomed in past
// the finest level. What was read is kept per track and level, three windows wide so panning
// by a screen reads nothing, and dropped least recently used beyond a byte budget. Reads run
// on one background thread with its own read-only connection; view() never waits for them.
//
// In a cluster project every track is read from its shard, opened when first needed (at most
// kMaxOpenShards at once per reader), which tells its levels; what is read from a shard gets
// the cluster's slice and string ids.
//
// Thread-safe. Times are on the project clock (each track's source offset is applied).
class SlicePager
{
public:
    struct Track
    {
        TrackId id = 0;
        TimeNs offset = 0; // project time = stored time + offset
        int maxDepth = 0;
        std::vector<int> shifts; // stored summary levels, finest first
        // In a cluster project (clusterproject.h): the shard holding the track's slices and
        // levels (0: the project itself), and the track's id there. A shard's track has its
        // levels learnt when the shard is opened (`shifts` stays empty).
        qint64 shard = 0;
        TrackId storedId = 0;
    };

    // `shards`: a cluster project's shards that tracks are read from.
    SlicePager(QString projectPath, std::vector<Track> tracks,
               size_t budgetBytes = size_t(160) << 20, std::vector<cluster::Shard> shards = {});
    ~SlicePager();
    SlicePager(const SlicePager &) = delete;
    SlicePager &operator=(const SlicePager &) = delete;

    bool has(TrackId track) const { return m_tracks.count(track) != 0; }
    int depthCount(TrackId track) const;

    // What to draw of `track` over [t0, t1) at `nsPerPixel`: the wanted level or window when it
    // was read, else the closest one read that covers the window, else whatever of the track
    // was read last (null when nothing was). When the wanted one is not there it is asked for;
    // listener() is called (on the reader's thread) once it is.
    std::shared_ptr<const SliceTrack> view(TrackId track, TimeNs t0, TimeNs t1, double nsPerPixel);
    // True when the last view() of `track` returned what it wanted.
    bool exact(TrackId track) const;
    // The last thing view() returned for `track` (what is on screen), null when none.
    std::shared_ptr<const SliceTrack> shown(TrackId track) const;
    // Calls `listener` (on the reader's thread) after each read, and after the first read that
    // fails (errorString() then says why); one per owner (a view), so
    // several views of the same data each repaint. removeListener() before the owner goes.
    void setListener(const void *owner, std::function<void()> listener);
    void removeListener(const void *owner);
    // Blocks until no read is queued or running (benchmarks, screenshots, tests).
    void waitForIdle();
    // Every slice of `track` overlapping [t0, t1), read now on the caller's thread with a
    // connection of its own (aggregates and searches over paged tracks, off the GUI thread).
    // Null (and *error) on failure.
    std::shared_ptr<const SliceTrack> readSlices(TrackId track, TimeNs t0, TimeNs t1,
                                                 QString *error) const;

    // Bytes held by the windows read (the memory benchmark), and the first read error.
    size_t memoryBytes() const;
    QString errorString() const;

    // The level a resolution reads: the coarsest stored shift whose bucket (2^shift ns) is at
    // most a quarter of a pixel; -1 (the slices themselves) when every stored level is coarser.
    static int levelFor(const std::vector<int> &shifts, double nsPerPixel);

private:
    struct Window
    {
        int shift = -1; // -1: the slices themselves
        TimeNs t0 = 0, t1 = 0;
        std::shared_ptr<const SliceTrack> slices;
        size_t bytes = 0;
    };
    struct Request
    {
        TrackId track = 0;
        int shift = -1;
        TimeNs t0 = 0, t1 = 0;
        double nsPerPixel = 0;
    };
    struct Connections; // one reader's: the project, and the shards it opened
    void run();
    // `exact`: the slices even when a summary would stand for a dense window. A shard's track
    // gets r.shift set to the level r.nsPerPixel reads (its levels may not have been known when
    // `r` was asked).
    std::shared_ptr<const SliceTrack> read(Connections &c, Request &r, bool exact,
                                           QString *error) const;
    // The shard's project (opened now when needed), its levels learnt; null (and *error).
    Project *shardOf(Connections &c, qint64 shard, QString *error) const;
    // The levels of `info` known now (a shard's track: none until its shard was opened); valid
    // while m_mutex is held (it is called with it held: view() paints every row with it).
    const std::vector<int> &levelsOf(const Track &info) const;
    void evict();

    QString m_path;
    std::unordered_map<TrackId, Track> m_tracks;
    std::unordered_map<qint64, cluster::Shard> m_shards;
    size_t m_budget;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake, m_idle;
    std::list<std::pair<TrackId, Window>> m_windows; // most recently used first
    std::unordered_map<TrackId, std::shared_ptr<const SliceTrack>> m_shown;
    std::unordered_map<TrackId, bool> m_exact;
    std::vector<Request> m_queue; // newest last
    bool m_busy = false;
    bool m_stop = false;
    size_t m_bytes = 0;
    QString m_error;
    std::vector<std::pair<const void *, std::function<void()>>> m_listeners;
    // What the shards' projects said, once one was opened (m_mutex): each track's levels
    // there, and each shard's string ids in the cluster's.
    mutable std::unordered_map<TrackId, std::vector<int>> m_shardShifts;
    mutable std::unordered_map<qint64,
                               std::shared_ptr<const std::unordered_map<StringId, StringId>>>
        m_shardNames;
    std::thread m_thread;
};

} // namespace gml
