// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "opcostscan.h"
#include "sliceclass.h"
#include "types.h"

#include <QHash>
#include <QString>

#include <array>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace gml {
class Project;
}

namespace gml::sim {

class SliceMap; // graphbuild.h

// A runtime call that waits for the GPU: a device or stream synchronise, or a blocking copy or
// set (cudaMemcpy, as `.item()` and `.cpu()` issue); the graph gives these sync edges.
bool isSynchronisingCall(const QString &name);

// What a node's time counts as in a breakdown.
enum class NodeKind : uint8_t { Cpu, Runtime, Kernel, Collective, Memcpy, Memset };
enum class EdgeKind : uint8_t { Launch, Sync, Collective, Data, StreamWait, ThreadWait };
constexpr int kEdgeKinds = 6;

// The kernel family of a GPU node's name and kind (kerneltaxonomy.h; collectives are
// "communication", copies and sets "copy"): the analysis's families, validate's, calibration's.
QString kernelFamily(const QString &name, NodeKind kind);

// A resource runs its nodes one at a time in measured order: a CPU thread or a GPU stream.
struct Resource
{
    TrackId track = 0;
    SourceId source = 0;
    QString name;
    bool gpu = false;
    int rank = -1;
    QString pid;            // GPU tracks: the device index
    std::vector<int> nodes; // in measured order
    // Runs its nodes side by side (their order only by edges): the transfers of one worker's
    // network interface, which the links share (flownetwork.h).
    bool concurrent = false;
};

// A slice that occupies its resource: a leaf slice of a CPU thread (an op at the level where it
// runs, a CUDA runtime call, a data-loading annotation) or a GPU kernel, collective, memcpy or
// memset. Times are measured, on the project clock.
struct Node
{
    SliceId slice = 0;
    StringId name = 0;
    StringId cat = 0;
    int resource = 0;
    NodeKind kind = NodeKind::Cpu;
    bool synchronising =
        false; // a runtime call that waits for the GPU (isSynchronisingCall), or
               // an op found blocking on it (DependencyGraph::build, graphwaits.cpp)
    // Its end can bound the run's: false for a Python range that only waits (sleep, wait,
    // select, join, acquire, a queue's get) and for the nodes of a background thread (a CPU
    // thread with no edge to any other resource's work: a progress-bar monitor). Waiting is
    // not work: what such a node measured must not pin a prediction's end.
    bool bounds = true;
    int collectiveOp = -1; // collectiveOperation() of a collective kernel
    int launcher = -1;     // GPU work: the runtime call that launched it
    int container = -1;    // the innermost container enclosing it on its resource, -1: none
    qint64 bytes = 0;      // copies: bytes moved; collectives: message size (0: not recorded)
    TimeNs start = 0;
    TimeNs end = 0;
    // Derived from the measured timeline (DependencyGraph::build):
    TimeNs slack = 0; // time between being ready (resource free, start edges met) and starting
    TimeNs work = 0;  // time from starting (or its end edges being met, if later) to ending
};

// A dependency between two time points: `to`'s start (toEnd false) or end (toEnd true) is no
// earlier than `from`'s start or end plus lag.
//   Launch: start(runtime call) + lag -> start(GPU work); lag = how far into the call the work
//           could start (measured: min(work start - call start, call duration)).
//   Sync: end(GPU work) -> end(synchronising call): device synchronise waits for the last work
//         launched before it on every stream of its device, a Kineto cuda_sync marker names the
//         stream, blocking copies (cudaMemcpy) wait for the copy they launched.
//   Collective: start(rank q's collective) -> end(rank r's): a collective ends when every rank
//         has joined it (AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll,
//         matched across the run's ranks as in clock alignment). A group's pairs are held as
//         one Join (below), not as k(k-1) edges.
//   Data: end(producer op's last leaf) -> start(consumer op's first leaf), from execution traces.
//   StreamWait: end(work on another stream of the device) -> start(GPU work), inferred where a
//         GPU node started later than its stream and launch allowed, within 10 us after work on
//         a sibling stream ended (a stream waiting on an event recorded there: NCCL after the
//         backward pass); lag = that gap.
//   ThreadWait: end(op on another thread of the process) -> start(CPU op), inferred where an
//         op started more than 5 us after its thread was free, within 250 us after an op of a
//         sibling thread ended (the autograd thread picking up the backward pass, the main
//         thread resuming when it is done, a queue handing over a batch); lag = that gap.
// An edge that the measured timeline contradicts (a wait that did not happen) is not added.
struct Edge
{
    int from = 0;
    int to = 0;
    EdgeKind kind = EdgeKind::Launch;
    bool fromEnd = false;
    bool toEnd = false;
    TimeNs lag = 0;
};

// The Collective dependencies of one group held once: the end of each `waiting` node is no
// earlier than the start of every `arriving` node (each pair but a node with itself). It is a
// time point of its own in the evaluation order (the latest arrival), so a group of k ranks
// costs 2k inputs instead of k(k-1): 1,024 ranks would otherwise need a million edges per
// collective. `waiting` is a subset of `arriving`.
struct Join
{
    std::vector<int> arriving;
    std::vector<int> waiting;
};

// A slice that encloses nodes (aten::linear around its runtime calls, ProfilerStep#N): not
// replayed itself, its predicted span follows its first and last enclosed node.
struct Container
{
    SliceId slice = 0;
    StringId name = 0;
    StringId cat = 0;
    int resource = 0;
    int parent = -1; // the innermost container enclosing this one on its resource, -1: none
    TimeNs start = 0;
    TimeNs end = 0;
    int first = -1; // node index
    int last = -1;
};

class DependencyGraph
{
public:
    // The graph of one run of the project. Fails on a database error or a run with no nodes.
    static std::optional<DependencyGraph> build(Project &project, RunId run, QString *error);

    const std::vector<Node> &nodes() const { return m_nodes; }
    const std::vector<Edge> &edges() const { return m_edges; }
    const std::vector<Resource> &resources() const { return m_resources; }
    const std::vector<Container> &containers() const { return m_containers; }
    QString name(StringId id) const { return m_names.value(id); } // names and categories
    TimeNs origin() const { return m_origin; } // the earliest measured node start
    TimeNs measuredEnd() const
    {
        return m_end;
    } // the latest end of a node that bounds (Node::bounds)
    std::array<qint64, kEdgeKinds> edgeCounts() const { return m_edgeCounts; }
    // Nodes that started before the graph says they could (a measured order the model does not
    // explain, e.g. a kernel stamped before its launch); the replay starts them when it can.
    qint64 violations() const { return m_violations; }
    // The outermost ProfilerStep#N containers on CPU threads, of every rank, by start.
    std::vector<int> steps() const;
    // The iterations: steps() on the threads of `rank` (a rank-less trace is rank 0; -1: the
    // lowest rank that has them).
    std::vector<int> iterations(int rank = -1) const;
    // The FLOPs PyTorch's profiler recorded (with_flops=True: the "flops" arg of matmul and
    // convolution ops) on the CPU threads: each op's start, count and resource, in the order read.
    struct Flops
    {
        TimeNs start = 0;
        double count = 0;
        int resource = 0;
    };
    const std::vector<Flops> &recordedFlops() const { return m_flops; }
    // The operators costed from their recorded shapes (opcostscan.h): the outermost costed op
    // of each stack on a CPU thread (CostedOp::thread is its resource). recordedFlops() also
    // holds the model FLOPs of those without a recorded count (CostedOp::modelFlops).
    const std::vector<CostedOp> &opCosts() const { return m_opCosts; }
    // Costed ops whose shapes were missing, by what was missing.
    struct OpCostGaps
    {
        qint64 ops = 0;
        std::map<QString, qint64> why;
    };
    OpCostGaps opCostGaps() const; // from opCosts()

    // The GPU resources by device: the streams of one device index of one rank of one source,
    // in (source, rank, device) order.
    std::vector<std::vector<int>> gpuDevices() const;

    // Where node i sits in its resource's measured order.
    int position(int node) const { return m_position[size_t(node)]; }

    // Structural edits for what-if transforms (insert, data parallelism). Node indices of the
    // measured graph stay valid: new nodes and resources are appended. Call reorder() after.
    int addResource(Resource r);
    // Puts a node on its resource right after `after` (-1: first); its slack and work are the
    // caller's (a new node has no measured times). Returns its index.
    int insertNode(Node n, int after);
    // Puts a node last on its resource: O(1), for graphs built node by node (the strategy
    // simulator).
    int appendNode(const Node &n);
    // A name for synthetic nodes (negative ids, never in the project's string table).
    StringId syntheticName(const QString &name);
    void addEdge(const Edge &e);
    void addJoin(Join j); // counted as its pairs in edgeCounts()
    const std::vector<Join> &joins() const { return m_joins; }
    // Replaces each join by its pairs as Collective edges (same dependencies, k(k-1) edges per
    // group: what the graph held before joins; the tests replay both). Call reorder() after.
    void expandJoins();
    // Each Collective dependency as (from node's start, to node's end): the Collective edges,
    // then each join's pairs.
    template <class Fn> void forEachCollectivePair(Fn &&fn) const
    {
        for (const Edge &e : m_edges)
            if (e.kind == EdgeKind::Collective)
                fn(e.from, e.to);
        for (const Join &j : m_joins)
            for (int b : j.waiting)
                for (int a : j.arriving)
                    if (a != b)
                        fn(a, b);
    }
    void reorder(); // dependencies and evaluation order, keeping slack and work

    // Time points: 2i is node i's start, 2i + 1 its end, 2N + j join j (N nodes): the latest
    // start of its arriving nodes, with no time of its own.
    size_t points() const { return 2 * m_nodes.size() + m_joins.size(); }
    bool isJoin(int point) const { return size_t(point) >= 2 * m_nodes.size(); }
    // Evaluation order of the time points.
    const std::vector<int> &order() const { return m_order; }
    bool hasCycle() const { return m_order.size() < points(); }
    struct In
    {
        int from; // time point
        TimeNs lag;
    };
    // The dependencies into a time point: for a start, the resource predecessor's end (lag 0)
    // and start edges; for an end, end edges and its joins (its own start is implied); for a
    // join, its arriving nodes' starts.
    std::span<const In> inputs(int point) const
    {
        return {m_inData.data() + m_inStart[size_t(point)],
                size_t(m_inStart[size_t(point) + 1] - m_inStart[size_t(point)])};
    }

private:
    // build() in two steps: the nodes and containers from the slices, then the edges.
    struct BuildReading; // graphbuild.h
    struct NodeReading;  // graphread.cpp
    bool readNodes(Project &project, RunId run, BuildReading &reading, QString *error);
    bool addEdges(Project &project, const BuildReading &reading, QString *error);
    // addEdges' steps (dependencygraph.cpp): the flows read (launch edges added, sync and data
    // flows kept), synchronisation edges, collectives joined across ranks, data edges.
    struct Flows
    {
        std::vector<std::pair<SliceId, SliceId>> sync, data;
    };
    struct Launches; // what each runtime call launched
    bool readFlows(Project &project, const BuildReading &reading, std::vector<TimeNs> &launchedAt,
                   Flows &out, QString *error);
    void addSyncEdges(const BuildReading &reading,
                      const std::vector<std::pair<SliceId, SliceId>> &syncFlows,
                      const std::vector<TimeNs> &launchedAt, const Launches &launches);
    void joinCollectives();
    void addDataEdges(const SliceMap &sliceMap,
                      const std::vector<std::pair<SliceId, SliceId>> &dataFlows);
    void inferStreamWaits();
    void inferThreadWaits();
    // graphwaits.cpp: Sync edges into CPU ops that blocked on the GPU without a synchronising
    // call of their own, and Node::bounds.
    void inferBlockingOps();
    void markBounds();
    void keepOpCosts(OpCostScan &scan); // after the slices are read (graphread.cpp)
    void measure();                     // slack and work from the measured times

    std::vector<Node> m_nodes;
    std::vector<Edge> m_edges;
    std::vector<Join> m_joins;
    std::vector<Resource> m_resources;
    std::vector<Container> m_containers;
    std::vector<int> m_inStart; // per point, where its inputs begin in m_inData (points + 1)
    std::vector<In> m_inData;
    std::vector<int> m_order;
    std::vector<int> m_position;
    QHash<StringId, QString> m_names;
    TimeNs m_origin = 0;
    TimeNs m_end = 0;
    std::array<qint64, kEdgeKinds> m_edgeCounts{};
    qint64 m_violations = 0;
    std::vector<Flops> m_flops;
    std::vector<CostedOp> m_opCosts;
};

} // namespace gml::sim
