// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dependencygraph.h"
#include "replay.h"

#include <QJsonObject>
#include <QString>

#include <array>
#include <functional>
#include <map>
#include <span>
#include <tuple>
#include <vector>

namespace gml::sim {

struct Workflow;

// The levels of GradeML's execution model, outermost first.
// A phase is the part of an iteration that a reader names: data loading, forward, backward,
// optimizer (phases.cpp says how it is told).
enum class Level : uint8_t { Workflow, Step, Iteration, Phase, Scope, Operator, GpuWork };
constexpr int kLevels = 7;

QString
levelName(Level level); // "workflow", "step", "iteration", "phase", "scope", "operator", "gpu"
std::optional<Level> levelFromName(const QString &name);

// Where a node's time goes: the leaf work under it, by kind, and the part of its span in which
// none of that work runs.
struct ResourceMix
{
    TimeNs cpu = 0;           // CPU ops and runtime calls
    TimeNs gpuCompute = 0;    // kernels
    TimeNs communication = 0; // collective kernels
    TimeNs copies = 0;        // memcpy and memset
    TimeNs idle = 0;          // span minus the union of the leaf work's intervals
    ResourceMix &operator+=(const ResourceMix &o) // nodes taken together (a group, a rank fold)
    {
        cpu += o.cpu;
        gpuCompute += o.gpuCompute;
        communication += o.communication;
        copies += o.copies;
        idle += o.idle;
        return *this;
    }
};

struct ModelNode
{
    Level level = Level::Step;
    int parent = -1;
    QString name;
    int rank = -1; // -1: not one rank's (the workflow, a step of several ranks, a rank fold)
    int ranks =
        1; // ranks folded into it (ExecutionModel::foldRanks), 0: none (the workflow, a step)
    int resource = -1; // the dependency-graph resource of its first slice (-1: none)
    TimeNs start = 0;  // span of its slices and its children's, project clock
    TimeNs end = 0;
    TimeNs self = 0;     // inclusive time not spent in CPU children (see ExecutionModel)
    qint64 count = 1;    // slices merged into it (an operator's nested aten:: calls count once)
    TimeNs critical = 0; // time of the critical path spent under it (setCriticalPath)
    std::vector<int> children; // in start order
    ResourceMix mix;
    TimeNs inclusive() const { return end - start; }
};

// An edge between two nodes of one level, aggregated from the dependency graph's leaf edges
// (launch, sync, collective, data, stream and thread waits) whose ends fall under them, or a
// program-order edge between successive siblings on one resource.
struct ModelEdge
{
    // Workflow: a step's output feeds the next (declared in grademl.json); WorkflowInferred:
    // the same, inferred from the steps' order in time.
    enum class Kind : uint8_t {
        Launch,
        Sync,
        Collective,
        Data,
        StreamWait,
        ThreadWait,
        ProgramOrder,
        Workflow,
        WorkflowInferred
    };
    int from = 0;
    int to = 0;
    Kind kind = Kind::ProgramOrder;
    qint64 count = 0; // leaf edges folded into it
};
QString edgeKindName(ModelEdge::Kind kind);

// The hierarchy of one run (workflow -> step -> iteration -> phase -> scope -> operator -> GPU
// work), built from the dependency graph: containers nest by their slices' nesting on each
// thread; ProfilerStep#N (and NVTX ranges named iteration/step/epoch N) are iterations,
// record_function and nn.Module ranges scopes, aten:: and autograd ops operators (an op nested
// in an op is part of it); GPU work hangs under the operator whose runtime call launched it.
// Work outside any iteration joins the iteration of its rank that it starts in (the autograd
// thread's backward pass), else the step. An iteration whose work tells two or more phases
// apart (data loading, forward, backward, optimizer) holds them as phase nodes, each over the
// run of its children in time. Every node keeps its slice ids.
class ExecutionModel
{
public:
    static ExecutionModel build(const DependencyGraph &graph, const QString &runName);
    // The model of one run of a project with its critical path (identity replay) charged:
    // what `grademl graph` and `grademl export --view graph` show. Nullopt with *error set on
    // a database error or a run with nothing to replay.
    static std::optional<ExecutionModel> forRun(Project &project, RunId run, const QString &runName,
                                                QString *error);
    // The workflow level of a project: its steps (each a box; a run's model is built when the
    // user opens it) and the workflow edges between them; the critical path is the longest
    // chain of steps by duration (workflow.cpp).
    static ExecutionModel forWorkflow(const Workflow &workflow);
    // The model with the ranks of a distributed run folded (rankfold.cpp): the k-th node of a
    // name under a parent, with " · rank N" left out of the name, becomes one node over every
    // rank's; its span is theirs together (the slowest rank's end), its mix and critical time
    // their sum, its slices theirs. Edges between ranks fold into the nodes; nothing is lost.
    // A run of one rank comes back as it is.
    ExecutionModel foldRanks() const;
    int rankCount() const; // distinct ranks of the nodes (0: none)

    const std::vector<ModelNode> &nodes() const { return m_nodes; }
    // The edges between the nodes at `level` (deeper nodes are folded into their ancestor there).
    std::vector<ModelEdge> edges(Level level) const;
    // The node at `level` that holds node `node` (itself when it is no deeper), -1 when it is
    // above that level.
    int ancestorAt(int node, Level level) const;
    // A node's own slices (the containers and leaves merged into it), first taken first.
    std::span<const SliceId> slices(int node) const;
    // The model node each dependency-graph node belongs to.
    int nodeOf(int graphNode) const { return m_ofGraphNode[size_t(graphNode)]; }
    qint64 countAt(Level level) const;
    // The leaf edges: the dependency graph's edges between the model nodes of their ends.
    const std::vector<ModelEdge> &leafEdges() const { return m_leafEdges; }
    // The leaf edges between groups of nodes (`groupOf`: node -> group, -1: none), counted per
    // (from group, to group, kind); edges within a group are dropped. edges() groups by the
    // ancestor at a level, the graph view by the box that shows a node.
    using EdgeCounts = std::map<std::tuple<int, int, int>, qint64>;
    EdgeCounts foldLeafEdges(const std::function<int(int)> &groupOf) const;
    // The first node named `name` (in build order: outermost first), -1 when none is.
    int find(const QString &name) const;

    // Charges each node with the time of the replay's critical path spent under it (the
    // identity replay of the graph the model was built from).
    void setCriticalPath(const Replay &replay);
    TimeNs criticalLength() const { return m_criticalLength; } // 0: not set
    double criticalShare(int node) const
    {
        return m_criticalLength > 0
                   ? double(m_nodes[size_t(node)].critical) / double(m_criticalLength)
                   : 0.0;
    }
    // The model nodes the critical path passes through, first first, each once per visit.
    const std::vector<int> &criticalNodes() const { return m_criticalNodes; }

    // Per node, how a what-if changes its time: the span of the graph nodes under it in
    // `predicted` against their span in `base` (the identity replay), minus one; nullopt for
    // a node with no graph node under it. Nodes a transform appended are ignored.
    std::vector<std::optional<double>> spanChange(const Replay &base,
                                                  const Replay &predicted) const;
    // The timeline track of a dependency-graph resource (ModelNode::resource).
    TrackId trackOf(int resource) const
    {
        return resource >= 0 && size_t(resource) < m_resourceTracks.size()
                   ? m_resourceTracks[size_t(resource)]
                   : 0;
    }

    // Slice id -> the model node that holds it, sorted by slice id (for looking up a timeline
    // selection); built on demand, O(slices log slices).
    std::vector<std::pair<SliceId, int>> sliceIndex() const;
    static int nodeOfSlice(const std::vector<std::pair<SliceId, int>> &index, SliceId slice);

    // Repeated structure: a block of siblings in a row repeated with the same shapes (levels,
    // names less their #N suffix, rank, and their CPU-side children's shapes in order) folds
    // into one group: the 6 ProfilerSteps of a run (with the aten::zeros between them: a block
    // of 2), the same module in 24 layers. Blocks of up to 8 siblings; the longest run wins.
    struct Fold
    {
        int first = 0;            // a child node index
        int count = 1;            // repeats of the block
        int period = 1;           // siblings per block
        TimeNs total = 0;         // their inclusive times added up
        std::vector<int> members; // count x period siblings, in start order
    };
    // Children down to `upTo` (deeper ones are not shown at that level, so they do not break a
    // run of repeats), grouped; children of several ranks rank by rank, each in start order.
    std::vector<Fold> foldedChildren(int node, Level upTo = Level::GpuWork) const;
    quint64 shape(int node) const { return m_shape[size_t(node)]; }

    // Nodes down to `level` and the edges between the nodes at it (`grademl graph`).
    QJsonObject toJson(Level level) const;
    QString toDot(Level level) const;
    QString toText(Level level) const;

private:
    int add(Level level, int parent, const QString &name, int rank, int resource);
    // Puts the children of each iteration under phase nodes where they tell two phases apart
    // and renumbers the nodes so that parents still come first (phases.cpp); `modelOf` (per
    // container) is renumbered with them.
    void addPhases(std::vector<int> &modelOf);
    void finish(const DependencyGraph &graph);
    // Children sorted by start, self times and shapes, from the nodes' spans and children.
    void settle();

    std::vector<ModelNode> m_nodes;
    std::vector<quint32> m_sliceStart; // per node, where its slices begin in m_sliceIds (nodes + 1)
    std::vector<SliceId> m_sliceIds;
    std::vector<int> m_ofGraphNode;
    std::vector<ModelEdge> m_leafEdges; // graph edges as (model node, model node, kind)
    std::vector<quint64> m_shape;       // per node, see foldedChildren()
    std::vector<int> m_criticalNodes;
    std::vector<TrackId> m_resourceTracks;
    TimeNs m_criticalLength = 0;
};

} // namespace gml::sim
