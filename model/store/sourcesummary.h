// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What one source's slices say about its run, summarised once when the source is imported
// (model/analysis/sourcework.h, called by the import job) and stored in `source_summary`, so that a
// run's headline metrics (simulator/analysis/runmetrics.h) merge a few numbers per source instead
// of building the execution model of every slice again. The definitions are the execution model's
// (simulator/graph/dependencygraph.h) and the analysis's (simulator/analysis/analysis.h):
//   - nodes: the leaf slices of CPU threads and GPU streams that are work (not Kineto's cuda_sync
//     markers, not the profiler's own span);
//   - a GPU: the streams of one device index of one rank; its window runs from its first work to
//     its last (GPU slices that hold others included, not annotations), partitioned as
//     partitionGpuTime() says (model/core/gputime.h);
//   - iterations: the outermost ProfilerStep#N ranges (holding work) on a rank's threads, and
//     the latest end of the GPU work launched from inside them;
//   - FLOPs: the "flops" args of a rank's CPU slices, and the model FLOPs of costed ops without
//     one (opcostscan.h), inside that rank's iterations (all of them
//     in a source without iterations); hardware FLOPs add every other costed op's (HFU);
//   - precision: the compute-bound kernels' time, half precision or not (sliceclass.h);
//   - activity: each GPU's busy and communication share over its window in at most
//     kActivityBuckets buckets, for the rank overview's heat strips (rankoverview.h);
//   - collectives: the NCCL/RCCL kernels of its GPU streams, for the clock alignment of the
//     run's ranks (clockalignment.h), so that it reads a few numbers per source instead of
//     every GPU stream again after each import.
// Times are on the source's own clock: its clock offset and alignment are added by the reader.

#include "types.h"

#include <QList>

#include <QByteArray>
#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace gml {

class Project;
class SqliteDb;

// Bumped whenever what a summary holds or how it is computed changes: an older one is computed
// again from the slices.
// 3: model FLOPs from shapes; 4: hardware FLOPs; 5: memory peaks; 6: collectives
inline constexpr int kSourceSummaryVersion = 6;
// Buckets at most in a GPU's activity profile.
inline constexpr int kActivityBuckets = 1024;

// One collective kernel: its operation and extent, on the source's clock.
struct CollectiveEnd
{
    int op = 0; // index into collectiveOperations() (sliceclass.h)
    TimeNs start = 0;
    TimeNs end = 0;
};
// The collectives' encoding in a summary: per kernel its operation, its start's difference from
// the previous start (zigzag) and its duration, as varints. Decoding appends to `out` and is
// false on malformed bytes (an operation past kMaxCollectiveOps, a time out of range).
inline constexpr int kMaxCollectiveOps = 64;
QByteArray encodeCollectives(const std::vector<CollectiveEnd> &ends);
[[nodiscard]] bool decodeCollectives(const QByteArray &data, std::vector<CollectiveEnd> &out);

// (Not projectsummary.h's SourceSummary, the source's row as the studio lists it: one struct
// name per namespace, or the linker silently takes either.)
struct SourceWork
{
    // A GPU's activity at a coarse resolution: bucket k covers [from + k width, from + (k+1)
    // width); `busy` and `communication` hold the share of each bucket (0..255) when any work,
    // and when a collective, ran. `width` is a power of two, `from` a multiple of it.
    struct Activity
    {
        TimeNs from = 0;
        TimeNs width = 0; // 0: no activity
        QByteArray busy;
        QByteArray communication;
    };
    struct Gpu
    {
        int rank = -1;
        QString device;   // the track's pid: the device index
        TimeNs start = 0; // its window
        TimeNs end = 0;
        TimeNs compute = 0;
        TimeNs communication = 0; // not overlapped with compute
        TimeNs copies = 0;
        TimeNs idle = 0;
        TimeNs communicationTotal = 0;
        Activity activity;
    };
    struct Rank
    {
        int rank = 0;                                      // a rank-less trace is rank 0
        std::vector<std::pair<TimeNs, TimeNs>> iterations; // by start
        TimeNs workEnd =
            0; // the latest end of GPU work launched inside them, when after them all (0: none)
        double flops = 0; // recorded inside them
        // Every costed op's FLOPs inside them (normalisation, elementwise, ... too): for HFU.
        double hardwareFlops = 0;
    };
    // A device's memory peaks from the source's [memory] events, as the memory report works
    // them out with MemoryDetail::Peaks (model/analysis/memoryreport.h's DeviceMemory, the
    // same fields): what the run metrics read instead of the threads again.
    struct Memory
    {
        struct Iteration
        {
            TimeNs start = 0, end = 0;
            double atStart = 0, peak = 0, atEnd = 0;
        };
        int rank = -1;
        QString pid;
        QString device; // memoryDeviceLabel()
        qint64 events = 0;
        double peakAllocated = 0;
        TimeNs peakAt = 0;
        std::optional<double> peakReserved;
        bool totalsRecorded = false, byAddress = false;
        qint64 unmatchedFrees = 0;
        double unmatchedFreeBytes = 0;
        std::vector<Iteration> iterations; // its process's steps
    };
    qint64 nodes = 0;
    TimeNs origin = 0; // the first node's start and the last one's end
    TimeNs end = 0;
    double flops = 0;           // every "flops" arg of the source's CPU slices
    double hardwareFlops = 0;   // and every costed op's
    TimeNs halfPrecisionNs = 0; // compute-bound kernels' time, half precision or not
    TimeNs fullPrecisionNs = 0;
    std::vector<Gpu> gpus;      // by (rank, device)
    std::vector<Rank> ranks;    // ranks with iterations, by rank
    std::vector<Memory> memory; // the memory report's devices, in its order (none: no events)
    // The collective kernels of the GPU streams that have a duration, stream by stream in track
    // id order and each stream's in start order (longest first, then by id), as the alignment
    // reads them from the chunks (encodeCollectives).
    QByteArray collectives;

    QByteArray toCbor() const;
    static std::optional<SourceWork> fromCbor(const QByteArray &data);
};

// A summary (sourcework.h makes them) stored (replacing an older one). False (and `error`) on a
// database error.
[[nodiscard]] bool storeSourceSummary(SqliteDb &db, SourceId source, const SourceWork &summary,
                                      QString *error);
// The stored summary of the current version; nullopt when there is none (a project written
// before summaries, or by an older program).
std::optional<SourceWork> loadSourceSummary(const SqliteDb &db, SourceId source);

// What a per-source table of versioned blobs (source_summary, rank_facts) holds for `source`
// at `version`, and its storing (replacing an older one). The table name is the caller's
// constant, never input.
std::optional<QByteArray> loadSourceBlob(const SqliteDb &db, const char *table, SourceId source,
                                         int version);
[[nodiscard]] bool storeSourceBlob(SqliteDb &db, const char *table, SourceId source, int version,
                                   const QByteArray &data, QString *error);
// The sources of `run` whose blob in `table` is of another version than `version`: path and
// the version they hold, by path.
QList<std::pair<QString, int>> staleSourceBlobs(const SqliteDb &db, const char *table, RunId run,
                                                int version);

// A source's summary with the offset that puts its times on the project clock (its clock
// offset and alignment).
struct RunSourceWork
{
    SourceId source = 0;
    SourceWork work;
    TimeNs offset = 0;
};

// The tracks of a source that hold work (threads, GPUs, streams with slices), threads first,
// and the sources of a run that have any with the offset that puts their times on the project
// clock: what a summary is made from (model/analysis/sourcework.h makes it).
struct WorkTrack
{
    TrackId id = 0;
    bool gpu = false; // a GPU or stream track (else a CPU thread)
    int rank = -1;
    QString pid;
    qint64 slices = 0;
    QString processPid; // a thread's: its parent process track's pid, else its own
};
std::vector<WorkTrack> workTracksOfSource(Project &project, SourceId source,
                                          QString *error = nullptr);
std::vector<std::pair<SourceId, TimeNs>> sourcesWithWork(Project &project, RunId run,
                                                         QString *error = nullptr);

} // namespace gml
