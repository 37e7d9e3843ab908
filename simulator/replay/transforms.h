// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "replay.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace gml {
class Project;
struct MemoryReport;
} // namespace gml

namespace gml::sim {

class DeviceCatalog;
struct Calibration;
struct Device;
struct Link;

// Which nodes a transform touches. Every set criterion must hold; an empty selector selects
// every node the transform applies to.
struct Selector
{
    QString name;     // regex on the slice name
    QString track;    // regex on the resource (thread or stream) name
    QString within;   // regex on an enclosing slice (an annotation, a layer, ProfilerStep#3); GPU
                      // work is within what encloses the call that launched it; a CPU range that
                      // holds no ops (a node of its own) is within itself
    QString category; // regex on the slice's category (cpu_op, kernel, gpu_memcpy, Operator, ...)
    QString
        device; // regex on the GPU a node runs on (its device index, "0"); CPU nodes never match
    quint8 kinds = 0; // bit (1 << NodeKind); 0: any
    int rank = -1;
    std::optional<TimeNs> from; // measured start, relative to the run's first node
    std::optional<TimeNs> to;

    bool isEmpty() const;
    QJsonObject toJson() const;
    // `where` names the object in messages ("transforms[2].select").
    static std::optional<Selector> fromJson(const QJsonObject &o, QString *error,
                                            const QString &where = QStringLiteral("select"));
    QString describe() const;
};

// The nodes a selector picks, of the node kinds `defaultKinds` (bits 1 << NodeKind) unless
// the selector names its own; invalid (with the reason in `error`) when a regex is.
class NodeSelection
{
public:
    NodeSelection(const DependencyGraph &g, const Selector &s, quint8 defaultKinds, QString *error);
    bool valid() const { return m_valid; }
    bool operator[](size_t i) const { return m_on[i]; }
    qint64 count() const;

private:
    std::vector<char> m_on;
    bool m_valid = false;
};

// One change to a run. Scenarios are lists of these, stored as JSON in the project. `op` names
// its kind: each kind is a class of its own in transforms/ (scale, remove, set, insert, fuse,
// device, amp, compute, memory, input, link, workers, reschedule, host, unsync; the list is
// transforms/registry.cpp), which reads the fields below that it uses, describes the change and
// applies it. docs/whatif.md is the reference of each.
struct Transform
{
    QString op = QStringLiteral("scale");
    bool is(const char *kind) const { return op == QLatin1String(kind); }
    Selector select;
    double factor = 1;   // Scale (x factor), Compute, Memory, Input, Host (factor times faster)
    TimeNs duration = 0; // SetDuration, Insert, Fuse
    QString name;        // Insert: the new slices' name
    double flops = 0;    // Insert: cost model inputs (duration 0): floating-point operations,
    double bytes = 0;    // bytes of memory traffic,
    QString precision = QStringLiteral("fp32"); // fp32 or fp16 (tensor cores)
    QString model = QStringLiteral("sum");      // Fuse: sum or overhead
    TimeNs overhead = -1; // Fuse "overhead": per-kernel fixed cost (< 0: the shortest kernel of
                          // the fused nodes' GPU, an upper bound on it)
    int priority = 1;     // Reschedule
    QString algorithm; // Link, Workers: collective algorithm "ring" or "tree" (empty: as measured)
    QString target;    // Device: catalog id
    double hostFactor = 0; // Device: the new machine's host CPU this many times faster (0: not
                           // known, assumed unchanged, and the report says so)
    QString link = QStringLiteral("network");
    double bandwidthGBps = 0; // Link: 0 keeps the measured link's
    double latencyUs = -1;    // Link: < 0 keeps the measured link's
    int workers = 1;          // Workers: ranks; Input: loader workers
    double gradMB = 0;        // Workers: gradient size (0: estimated from the optimizer)
    double bucketMB = 25;     // Workers: DDP's bucket size

    QJsonObject toJson() const;
    // Every key's type and range is checked; a message names the transform by `where`
    // ("transforms[2]"; empty: its op) and the key ("transforms[2].factor: expected ...").
    static std::optional<Transform> fromJson(const QJsonObject &o, QString *error,
                                             const QString &where = {});
    QString describe() const;

    static Transform scale(QString regex, double factor);
    static Transform amp();
    static Transform fusedAdam();
    static Transform input(double speedup);
    static Transform host(double speedup);
    static Transform unsync();
    static Transform device(QString id);
    static Transform network(double gbps, double latencyUs = -1);
    static Transform dataParallel(int n);
};

QJsonArray transformsToJson(const QList<Transform> &transforms);
// Transforms of a JSON array; a message names the one at fault by its index ("transforms[2]").
std::optional<QList<Transform>> transformsFromJson(const QJsonArray &a, QString *error);

// "REGEX=FACTOR" (the last '=' separates them); nullopt with the reason in `error`.
std::optional<Transform> parseScale(const QString &text, QString *error);
// A transform as typed: a JSON object (Transform::fromJson), else REGEX=FACTOR (parseScale).
std::optional<Transform> parseTransform(const QString &text, QString *error);
// The ops of every transform kind, in the reference's order.
QStringList transformOps();
// The GPU the kernels run on after `transforms`: the last device transform's target; empty:
// the measured one.
QString targetDevice(const QList<Transform> &transforms);

// "REGEX=PRIORITY" (a whole number): a Reschedule of the slices whose name matches.
std::optional<Transform> parseReschedule(const QString &text, QString *error);
// A named preset: amp, fusedadam, input=N (N times faster), input=free, host=N, host=free,
// unsync.
std::optional<Transform> parsePreset(const QString &text, QString *error);
QStringList presetNames();
// What the input transform selects by default: data-loading ranges (DataLoader, __next__, fetch).
const QString &inputPattern();
// The graph's data-loading ranges: the containers and the CPU nodes (a range that holds no ops)
// that inputPattern() names, each with its resource.
void forEachDataLoadingRange(
    const DependencyGraph &g,
    const std::function<void(int resource, TimeNs start, TimeNs end)> &visit);

// What the transforms need to know of the measured run.
struct WhatIfContext
{
    const DeviceCatalog *catalog = nullptr; // builtin() when null
    QString measuredDevice;                 // the run's GPU model as recorded (deviceProperties)
    // When the recorded name is generic and the catalog device was taken from the GPU's
    // compute units and memory: why (DeviceCatalog::identify); the device change notes it.
    QString measuredDeviceGuess;
    // The network (a catalog link id) that collectives wider than a node crossed; empty: the
    // one of the measured GPU's reference server (collectivePath).
    QString measuredNetwork;
    QString measuredAlgorithm = QStringLiteral("ring"); // NCCL's algorithm when measured
    int measuredWorkers = 1;                            // ranks in the run
    // Where in what the model does not know (the prediction band, Prepared::unknowns) to take
    // each unknown: Nominal is the prediction; Low every unknown at its fast end, High at its
    // slow end; Sample each at a draw of its own (sample, below).
    enum class Bound { Nominal, Low, High, Sample };
    Bound bound = Bound::Nominal;
    quint64 sample = 0; // which draw: the same number draws the same values
    // An unknown's value in this preparation: its range [low, high] read as the 5th to 95th
    // percentile around `nominal` (a log-normal on each side of it); Sample draws it from the
    // standard normal deviate of (sample, key), the same for every use of one key.
    double vary(const QString &key, double low, double nominal, double high) const;
    // The standard normal deviate of the 95th percentile: a range's end is this many standard
    // deviations (of the log) from its nominal value.
    static constexpr double kZ95 = 1.6448536269514722;
    // Factors fitted on a measured pair of the same change (calibration.h), applied after the
    // transforms; null: none.
    std::shared_ptr<const Calibration> calibration;
    // The measured run's memory (memoryreport.h): a prediction then says what memory it needs
    // (memoryneed.h); null: not read, or no memory events. The callers that report a
    // prediction read it (readMemory); the replays of findings do not need it.
    std::shared_ptr<const MemoryReport> memory;
    void readMemory(Project &project, RunId run);
    // The GPU model (run params gpu_models) and the ranks of a measured run.
    static WhatIfContext forRun(const DependencyGraph &graph, const QJsonObject &runParams);
    // The measured GPU model alone, from the run's params (empty: not recorded): the recorded
    // name, or the catalog id its compute units and memory identify when the name is generic
    // ("AMD Radeon Graphics"), with why in `guess`.
    static QString deviceOf(const QJsonObject &runParams, QString *guess = nullptr);
    // The network the user named for the run: its tag "network" (Runs › Edit Tags), when it
    // is a catalog link's id; empty otherwise (collectivePath then assumes the GPU's
    // reference server's).
    static QString networkOf(Project &project, RunId run);
    // The same with the run's params read from the project.
    static WhatIfContext forRun(const DependencyGraph &graph, Project &project, RunId run);
};

// What a collective of `ranks` ranks crossed and the bus bandwidth it can reach there (per
// rank, per direction, nccl-tests' busbw): one rule for the collectives report, its finding
// and the network transforms, so a prediction and the Collectives view agree.
// - The link the context names (measuredNetwork), else within a node (at most
//   kRanksPerNode ranks) the measured GPU's peer link (NVLink, Infinity Fabric), across nodes
//   the network of the GPU's reference server (devices.json's network_link; `assumed`).
// - Within a node at the link's rate. Across nodes each node has the reference server's
//   nics_per_node NICs of the network (8 where not known). A ring (all-reduce, all-gather,
//   reduce-scatter, broadcast, reduce) runs a channel per NIC, so its bus bandwidth reaches the
//   node's NICs together (NICs x the link, at most the peer link): nccl-tests measure about 186
//   GB/s all-reduce busbw across nodes of 8 A100s with 8 HDR NICs of 25 GB/s (Azure NDv4).
//   All-to-all leaves each rank through its share of the NICs for the (n - node) of n ranks off its
//   node: link x NICs / kRanksPerNode x (n-1)/(n-kRanksPerNode); point-to-point through its share
//   alone.
// A trace does not record its host, so the node's size is the common 8-GPU server's, a
// judgement.
inline constexpr int kRanksPerNode = 8;
struct CollectivePath
{
    const Link *link = nullptr; // null: not known (the GPU, or the network, is not known)
    double peakGBps = 0;        // 0: not known
    double latencyUs = 0;
    bool network = false; // across nodes
    bool assumed = false; // the network is the reference server's, not one the run named
    // The link's id; without one "peer link" or "network".
    QString label() const;
};
CollectivePath collectivePath(const QString &operation, int ranks, const WhatIfContext &context);
// The same with the link's rate given (a link transform's): `linkGBps` is the peer link's
// within a node, one NIC's across nodes.
double collectivePeakGBps(const QString &operation, int ranks, double linkGBps,
                          const WhatIfContext &context);

// The link host copies (network false) ran over when measured, or collectives of the run's
// width (measuredWorkers; collectivePath); null with the reason in `error` when the GPU is not
// known.
const Link *measuredLink(const WhatIfContext &context, bool network, QString *error);

// The graph and inputs a scenario replays: the measured graph itself, or a copy with the
// nodes that structural transforms added (Insert, Workers on a run without collectives).
struct Prepared
{
    std::shared_ptr<const DependencyGraph> graph;
    ReplayInput input;
    QStringList notes; // what the model assumed ("gradients 97.7 MB in 4 buckets, estimated ...")
    // What the model does not know, each with its range ("host CPU of the new machine: its launch
    // path x0.75 to x1.33"): the prediction band's sources. Empty: the transforms give every
    // factor, and the band is the prediction.
    QStringList unknowns;
    // The unknowns' keys ("kernel efficiency: attention", "launch cost"), each an independent
    // source of error: the band draws each on its own (WhatIfContext::vary, whatif.cpp).
    QStringList bandKeys;
    // The unknown `key`'s value in this preparation (WhatIfContext::vary), `key` recorded among
    // bandKeys: how a transform or a calibration takes a value it does not know.
    double vary(const WhatIfContext &context, const QString &key, double low, double nominal,
                double high)
    {
        if (!bandKeys.contains(key))
            bandKeys << key;
        return context.vary(key, low, nominal, high);
    }
};

// Applies `transforms` in order. `structureCache` (optional) holds the last structural copy,
// reused while the structural transforms are unchanged (a slider that only scales).
struct StructureCache
{
    QByteArray key;
    std::shared_ptr<const DependencyGraph> graph;
    QStringList notes;
};
std::optional<Prepared> prepare(const std::shared_ptr<const DependencyGraph> &graph,
                                const QList<Transform> &transforms, const WhatIfContext &context,
                                QString *error, StructureCache *structureCache = nullptr);

// The cost of a collective of n ranks as NCCL's tuning model has it (src/graph/tuning.cc):
// time = steps x link latency + busFactor x bytes / link bandwidth.
//   ring: all-reduce 2(n-1) steps, the others n-1 (broadcast and reduce pipelined); the
//         factor nccl-tests' bus factor (busFactor, model/analysis/collectives.h): 2(n-1)/n
//         for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for
//         broadcast, reduce and point-to-point (a send's time does not depend on the ranks).
//   tree (all-reduce, broadcast, reduce; NCCL has no tree for the others, which stay ring):
//         all-reduce is a reduce up and a broadcast down a binary tree, 2 ceil(log2 n) steps
//         and factor 2 (NCCL's tree algorithm bandwidth is half its bus bandwidth); broadcast
//         and reduce ceil(log2 n) steps, factor 1.
// One rank (n <= 1) costs nothing. An unknown operation is costed like a broadcast.
struct CollectiveCost
{
    double busFactor = 0;
    int steps = 0;
};
QStringList collectiveAlgorithms(); // ring, tree
CollectiveCost collectiveCost(const QString &operation, int n, const QString &algorithm);
TimeNs collectiveTime(const QString &operation, qint64 bytes, int n, const QString &algorithm,
                      double bwGBps, double latencyUs);

// A run's own launch cost: the median time of the calls that launched its kernels (neither
// synchronising nor inserted), over `calls` of them (0: none, median 0).
struct LaunchCost
{
    TimeNs median = 0;
    qint64 calls = 0;
};
LaunchCost measuredLaunchCost(const DependencyGraph &g);
// Per node, whether it is one of those calls (what measuredLaunchCost counts, and what a
// calibration carries apart from the rest of the host path).
std::vector<char> kernelLaunchCalls(const DependencyGraph &g);

// A kernel's time by the roofline: the longer of its FLOPs at the device's peak rate and its
// bytes at its memory bandwidth, each at kAchieved of the peak.
constexpr double kAchieved = 0.7;
TimeNs rooflineTime(const Device &device, double flops, double bytes, bool halfPrecision);

} // namespace gml::sim
