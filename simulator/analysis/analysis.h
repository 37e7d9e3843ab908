// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dependencygraph.h"
#include "durationsketch.h"
#include "gputime.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <vector>

namespace gml::sim {

// What the analyses look at: a rank (-1: all) and a time range on the project clock (none: the
// whole run).
struct AnalysisScope
{
    int rank = -1;
    std::optional<std::pair<TimeNs, TimeNs>> range;
};

// Where one GPU's time goes over a window: GpuTime (model/core/gputime.h). Idle gaps are split by
// what ended them (the GPU work that started at the gap's end):
//   host: the work was launched during the gap, so the GPU waited for the host; the host was
//         loading data (a DataLoader / __next__ range on the launching thread covered at least
//         half of the wait), else was blocked in a synchronising call when the gap began (device
//         or stream synchronise, a blocking copy: `.item()`, `.cpu()`), else launching
//         (CPU-bound);
//   other stream or rank: it was launched before the gap and waited for another stream (an
//         event) or is a collective waiting for its peers;
//   gpu: launched before the gap, nothing to wait for: GPU-side launch latency;
//   unattributed: no launch is recorded for it (or the window ends idle).
struct IdleSplit
{
    TimeNs launch = 0;      // host: launching (CPU-bound)
    TimeNs dataLoading = 0; // host: data loading
    TimeNs sync = 0;        // host: blocked in a synchronising call
    TimeNs otherStream = 0; // waiting on another stream or rank
    TimeNs gpu = 0;         // GPU-side launch latency
    TimeNs unattributed = 0;
    TimeNs host() const { return launch + dataLoading + sync; }
};

enum class IdleCause : uint8_t { Launch, DataLoading, Sync, OtherStream, Gpu, Unattributed };
QString idleCauseName(IdleCause cause); // "host launching", ...

// One idle gap of a GPU and what ended it (`work`: the node that started at its end, -1: none).
struct IdleGap
{
    TimeNs start = 0;
    TimeNs end = 0;
    IdleCause cause = IdleCause::Unattributed;
    int work = -1;
    TimeNs length() const { return end - start; }
};

// The launch queue of a GPU: GPU work launched (its runtime call started) and not finished.
struct QueueSample
{
    TimeNs start = 0; // a bucket of the window
    TimeNs end = 0;
    int most = 0;    // the deepest the queue was in it
    double mean = 0; // its time-weighted mean depth
};

struct GpuBreakdown
{
    QString device; // "rank 0 · GPU 0"
    int rank = -1;
    TimeNs start = 0; // the window
    TimeNs end = 0;
    GpuTime time;
    IdleSplit idle;
    qint64 idleGaps = 0;
    TimeNs communicationTotal = 0;      // collectives' union, overlapped or not
    TimeNs communicationOverlapped = 0; // of it, the part during compute
    double overlapRatio() const
    {
        return communicationTotal > 0 ? double(communicationOverlapped) / double(communicationTotal)
                                      : 0.0;
    }
    struct Stream
    {
        QString name;
        TimeNs busy = 0; // its own work's union in the window
    };
    std::vector<Stream> streams;      // achieved occupancy: busy / window
    std::vector<IdleGap> longestGaps; // the 20 longest, longest first
    std::vector<QueueSample> queue;   // 100 buckets over the window
};

// One iteration (a ProfilerStep#N of a rank) on one of that rank's GPUs.
struct IterationBreakdown
{
    QString name;
    QString device;
    int rank = -1;
    TimeNs start = 0;
    TimeNs end = 0;
    GpuTime time;
};

// Kernels by family, from their names (docs/analysis.md lists the patterns).
struct KernelFamily
{
    QString family; // familyName() (kerneltaxonomy.h): gemm, convolution, ..., communication, other
    qint64 count = 0;
    TimeNs time = 0;
};

struct KernelStat
{
    QString name;
    QString family;
    NodeKind kind = NodeKind::Kernel;
    qint64 bytes = 0; // copies: bytes moved, added up
    qint64 count = 0;
    TimeNs total = 0;
    TimeNs p50 = 0;
    TimeNs p90 = 0;
    TimeNs max = 0;
    // Its durations, kept to merge with another rank's (a cluster project's shards).
    DurationSketch durations;
};

// CPU launch calls against the GPU work they launched.
struct LaunchStats
{
    qint64 launches = 0; // GPU nodes with a recorded launch
    qint64 calls = 0;    // the runtime calls that launched them
    TimeNs callTime = 0; // those calls' durations added up
    TimeNs gpuTime = 0;  // the launched work's durations added up
    TimeNs delayP50 = 0; // launch-to-start: GPU start - call start
    TimeNs delayP90 = 0;
    TimeNs delayMax = 0;
    qint64 shortKernels = 0; // kernels under 10 us
    TimeNs shortKernelTime = 0;
    DurationSketch delays; // to merge with another rank's
};

// One collective matched across ranks: who arrived (started its kernel) last, and how late.
struct Straggler
{
    int index = 0;     // the run's collectives in order of their first arrival
    QString operation; // AllReduce, ...
    int ranks = 0;
    TimeNs firstArrival = 0;
    TimeNs lastArrival = 0;
    int lastRank = -1;
    TimeNs late() const { return lastArrival - firstArrival; }
    TimeNs lateVsMedian = 0; // last arrival - the median arrival
    QString before;          // what the last rank ran just before arriving
};

// One rank's arrival at a collective: its kernel's start and end, what its stream ran just before
// (that work's end and name) and what its host ran before launching it. Extracted per node
// (collectiveArrival) so that a collective's straggler is found the same way from the whole
// run's graph and from the arrivals shards kept of their ranks (simulator/cluster).
struct CollectiveArrival
{
    int rank = -1;
    int op = -1;       // collectiveOperation()
    QString operation; // its name (the kernel's when op < 0)
    TimeNs start = 0;
    TimeNs end = 0;
    TimeNs prevEnd = std::numeric_limits<TimeNs>::min(); // none
    QString prevName;
    QString hostBefore; // "host: OP", or empty
};
CollectiveArrival collectiveArrival(const DependencyGraph &g, int node);
// The straggler of one collective from its members' arrivals (two or more, any order); its
// index is left to the caller.
Straggler stragglerOf(std::vector<CollectiveArrival> members);

struct RankLoad
{
    int rank = -1;
    TimeNs compute = 0;
    TimeNs communication = 0;
    qint64 lastArrivals = 0; // collectives it arrived at last
};

struct Analysis
{
    AnalysisScope scope;
    std::vector<GpuBreakdown> gpus;
    std::vector<IterationBreakdown> iterations;
    std::vector<KernelFamily> families; // by time, largest first
    std::vector<KernelStat> kernels;    // every name of GPU work, the most time first (15 shown)
    LaunchStats launch;
    std::vector<Straggler> stragglers;
    std::vector<RankLoad> ranks;
    // max / mean over ranks (1: balanced; 0: fewer than two ranks)
    double computeImbalance = 0;
    double communicationImbalance = 0;

    // The kernels no rule of the kernel taxonomy knows (family "other"): how many names, how
    // many kernels and their time, and the first `top` names (the kernels are sorted by time).
    struct Unrecognised
    {
        qint64 names = 0;
        qint64 count = 0;
        TimeNs time = 0;
        std::vector<const KernelStat *> top;
    };
    Unrecognised unrecognised(size_t top) const;

    QJsonObject toJson() const;
    QString toText() const;
};

// Iteration time by rank, as the rank × iteration heat maps draw it (the Ranks view, the HTML
// report): one row per rank, its first GPU's iterations in time order (the host step is the
// rank's), and each column's median length over the ranks that have it.
struct StepGrid
{
    std::vector<int> ranks;                             // rank of each row
    std::vector<std::vector<IterationBreakdown>> cells; // per row, its iterations in order
    std::vector<TimeNs> median;                         // per column
    int columns = 0;
};
StepGrid stepGrid(const std::vector<IterationBreakdown> &iterations);

// Each (rank, source)'s collective arrivals matched across ranks as the execution model and
// clock alignment match them: in start order, fitted to the lowest (rank, source)'s, the k-th
// of the reference and those matched to it one collective. Every operation counts, the
// collectives report's way (model/analysis/collectives.h): all-to-all done as SendRecv too,
// when every rank that ran SendRecv ran as many of them (a pipeline's point-to-point sends,
// uneven across its stages, have no group). Whole-run and cluster analyses share it.
std::vector<std::vector<CollectiveArrival>>
matchArrivals(std::map<std::pair<int, SourceId>, std::vector<CollectiveArrival>> bySource);

// The collectives of the graph matched across ranks (matchArrivals), the straggler of each
// whose first arrival is `inRange`, unordered (stragglers.cpp).
std::vector<Straggler> matchCollectives(const DependencyGraph &g,
                                        const std::function<bool(TimeNs)> &inRange);

// The cross-rank part's end, for a whole-run analysis and a cluster project's reduce alike:
// the stragglers ordered by their first arrival (their index), each rank's last arrivals counted
// into `loads`, out.ranks from them, and the imbalance between ranks (max / mean).
void finishRanks(Analysis &out, std::map<int, RankLoad> loads);

// The analyses of one run's dependency graph (measured times).
Analysis analyze(const DependencyGraph &graph, const AnalysisScope &scope = {});

} // namespace gml::sim
