// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "modelzoo.h"
#include "replay.h"
#include "simcluster.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMutex>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace gml::sim {

// How the workers of a data-parallel job share their gradients.
enum class Strategy {
    Default,         // one device
    ParameterServer, // workers push gradients to server shards and pull the weights back
    Mirrored,        // the GPUs of one node, an all-reduce over the intra-node link
    MultiWorker,     // GPUs on many nodes, a ring or tree all-reduce per gradient bucket
};
QString strategyName(Strategy s); // default, ps, mirrored, multiworker
std::optional<Strategy> parseStrategy(const QString &name);

// One simulation: a layer graph, a strategy and a cluster.
struct SimConfig
{
    LayerGraph model;
    Strategy strategy = Strategy::Default;
    int workers = 1;
    int servers = 1;           // parameter server shards
    bool asyncUpdates = false; // parameter server: each worker's update applied on arrival
    int batch = 0;             // per worker (0: the model's default)
    int globalBatch = 0;       // > 0: this many samples per iteration split over the workers
    QString allReduce = QStringLiteral("ring"); // multi-worker: ring or tree
    double bucketMB = 25;           // gradient buckets (multi-worker; PyTorch DDP's default)
    bool criticalPathFirst = false; // else depth-first order, as TensorFlow issues ops
    int iterations = 10;
    // Batches made on the GPU (tf_cnn_benchmarks' default): no reading, decoding or copying.
    bool syntheticData = false;
    SimCluster cluster;
    // Fractions of the catalog's peak that kernels reach: cuDNN and cuBLAS convolutions and
    // GEMMs on large shapes, and element-wise kernels against memory bandwidth.
    double computeEfficiency = 0.6;
    double memoryEfficiency = 0.8;
    TimeNs kernelOverheadNs = 4000; // per kernel: launch and ramp, not hidden by a busy queue

    int batchOf(int worker) const; // the samples worker `worker` takes per iteration
    int samplesPerIteration() const;
    QString describe() const; // "resnet50 ps 8 workers 2 servers batch 32 on 12x4-v100-edr"
    QJsonObject toJson() const;
};

// The metrics of a simulated run (as the thesis defines them, plus the usual ones). Times are
// per iteration and averaged over the steady iterations (the first is left out when there
// are more than two) and over the workers.
struct SimMetrics
{
    TimeNs executionNs = 0; // the whole simulated run
    TimeNs iterationNs = 0; // mean iteration time
    std::vector<TimeNs> iterationTimes;
    TimeNs computationNs = 0; // per worker and iteration: forward, backward and update
    TimeNs communicationNs =
        0;                  // per worker and iteration: its gradient and weight transfers in flight
    TimeNs memoryNs = 0;    // per worker and iteration: input read and host-to-device copy
    double deviceUsage = 0; // the workers' GPUs busy computing, over the run
    double throughput = 0;  // samples/s
    TimeNs epochNs = 0;     // one epoch of the model's dataset at this throughput
    double energyJ = 0;     // the whole run, GPUs and the CPUs serving or loading
    double energyPerIterationJ = 0;
    double speedup = 0;             // epoch time with one worker of this strategy over this one's
    double scalingEfficiency = 0;   // speedup / workers
    double normalizedExecution = 0; // epoch time over that of the default strategy (one device)
    double computeTotalFlops = 0;   // all workers, all iterations (work conservation)
    QJsonObject toJson() const;
};

// A device's power: linear from idle to maximum by utilisation (the busy fraction of each
// sample interval), the catalog's figures. The samples are a step function: power holds from a
// sample's time to the next one's, so integrating them gives the energy exactly.
struct PowerTrack
{
    QString device; // "node0/gpu1 (V100)"
    int node = 0;
    bool gpu = true;
    double idleW = 0, maxW = 0;
    std::vector<std::pair<TimeNs, double>> samples; // (time, W), the last one closes the run
    double energyJ() const;
};

// The simulated job as run: the graph it built, the replay, and what it means.
struct SimResult
{
    SimConfig config;
    std::shared_ptr<DependencyGraph> graph;
    std::shared_ptr<FlowSpec> flows;
    Replay replay;
    SimMetrics metrics;
    std::vector<PowerTrack> power;
    // Per graph resource: what it is (for the metrics and the run's tracks).
    // A worker's roles in the order its rows are shown.
    enum class Role {
        Compute, // a worker's GPU stream of layer passes and updates
        Copy,    // its host-to-device copies
        Network, // its transfers (side by side)
        Reader,  // its storage reads
        Input,   // its decoding
        Server,  // a parameter server's updates
        Barrier, // the collectives' joins
    };
    struct ResourceInfo
    {
        int node = 0;
        int worker = -1; // -1: a server or the barrier
        int server = -1;
        Role role = Role::Compute;
    };
    std::vector<ResourceInfo> resources;
    std::vector<int> iterationOfNode; // -1: not part of an iteration (barriers)
    // Per node: for a worker's share of an all-reduce, the node that marks the whole collective
    // done (a rank's part of a ring lasts until every rank's is through); else -1.
    std::vector<int> collectiveDone;
    std::vector<std::pair<int, int>> serverMemory; // per parameter server: its memory link and node
    std::vector<int> nodeOfLink; // per flow link: the cluster node it is part of, -1: shared
    QList<QString> warnings;
};

// Builds the job's graph and replays it. Fails with a clear error on a configuration that
// cannot run: zero bandwidth, a device missing from the catalog, more workers than GPUs, a
// mirrored job across nodes, a model that does not fit in device memory.
std::optional<SimResult> simulate(const SimConfig &config, QString *error);

// simulate() plus the one-worker runs its speedup and normalized execution time compare
// against (speedup: this strategy with one worker; NET: the default strategy), each simulated
// once per (model, batch) and cached by the caller's `cache` when given.
struct BaselineCache
{
    QMutex mutex;
    QHash<QString, TimeNs> epochNs;
};
std::optional<SimResult> simulateWithBaselines(const SimConfig &config, BaselineCache *cache,
                                               QString *error);

// A sweep: the configurations of `base` with the worker counts and batch sizes given (empty:
// the base's), run in parallel on a thread pool; `progress(done, total)` returning false
// cancels the rest: the configurations that finished are returned, with `cancelled` set.
// Results in the order of the configs.
QList<SimConfig> sweepConfigs(const SimConfig &base, const QList<int> &workers,
                              const QList<int> &batches);
// A sweep's values as the CLI and the Simulate panel take them, "1,2,4,8": whole numbers of at
// least 1, duplicates dropped, in the order given; nullopt on anything else or on none.
std::optional<QList<int>> parseSweepValues(const QString &text);
struct SweepOutcome
{
    QList<SimResult> results;
    QStringList errors; // per configuration that failed: its description and why
    bool cancelled = false;
};
SweepOutcome runSweep(const QList<SimConfig> &configs,
                      const std::function<bool(int, int)> &progress = {});

// Writes a result as run `name` of kind 'simulated' in one transaction: per node a host row,
// per worker its GPU with compute, input and network rows, parameter servers, the storage;
// slices per layer pass, transfer and update, an "iteration k" slice per iteration on each
// worker's compute row; counters of link utilisation and power. An existing simulated run of
// that name is replaced; a measured or predicted one never is. Stores its headline metrics.
// The run starts where the measured run its model came from starts, else at the project's
// first measured or predicted data (0 in a project of simulations only), so the timeline lays
// it beside those runs rather than years before them.
std::optional<RunId> saveSimulatedRun(Project &project, const SimResult &result,
                                      const QString &name, QString *error);

// A name for a result's run: "sim resnet50 ps w8 s2 b32 12x4-v100-edr".
QString simulatedRunName(const SimConfig &config);

} // namespace gml::sim
