// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dependencygraph.h"

#include <QJsonObject>
#include <QString>

#include <array>
#include <vector>

namespace gml::sim {

// The levels of GradeML's execution model, outermost first.
enum class Level : uint8_t { Workflow, Step, Iteration, Scope, Operator, GpuWork };
constexpr int kLevels = 6;
QString levelName(Level level);          // "workflow", "step", "iteration", "scope", "operator", "gpu"
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
};

struct ModelNode
{
    Level level = Level::Step;
    int parent = -1;
    QString name;
    int rank = -1;     // -1: not one rank's (the workflow, a step of several ranks)
    int resource = -1; // the dependency-graph resource of its first slice (-1: none)
    TimeNs start = 0;  // span of its slices and its children's, project clock
    TimeNs end = 0;
    TimeNs self = 0;   // inclusive time not spent in CPU children (see ExecutionModel)
    qint64 count = 1;  // slices merged into it (an operator's nested aten:: calls count once)
    std::vector<SliceId> slices; // its own slices (containers and leaves merged into it)
    std::vector<int> children;   // in start order
    ResourceMix mix;
    TimeNs inclusive() const { return end - start; }
};

// An edge between two nodes of one level, aggregated from the dependency graph's leaf edges
// (launch, sync, collective, data, stream and thread waits) whose ends fall under them, or a
// program-order edge between successive siblings on one resource.
struct ModelEdge
{
    enum class Kind : uint8_t { Launch, Sync, Collective, Data, StreamWait, ThreadWait, ProgramOrder };
    int from = 0;
    int to = 0;
    Kind kind = Kind::ProgramOrder;
    qint64 count = 0; // leaf edges folded into it
};
QString edgeKindName(ModelEdge::Kind kind);

// The hierarchy of one run (workflow -> step -> iteration -> scope -> operator -> GPU work),
// built from the dependency graph: containers nest by their slices' nesting on each thread;
// ProfilerStep#N (and NVTX ranges named iteration/step/epoch N) are iterations, record_function
// and nn.Module ranges scopes, aten:: and autograd ops operators (an op nested in an op is part
// of it); GPU work hangs under the operator whose runtime call launched it. Work outside any
// iteration joins the iteration of its rank that it starts in (the autograd thread's backward
// pass), else the step. Every node keeps its slice ids.
class ExecutionModel
{
public:
    static ExecutionModel build(const DependencyGraph &graph, const QString &runName);

    const std::vector<ModelNode> &nodes() const { return m_nodes; }
    // The edges between the nodes at `level` (deeper nodes are folded into their ancestor there).
    std::vector<ModelEdge> edges(Level level) const;
    // The node at `level` that holds node `node` (itself when it is no deeper), -1 when it is
    // above that level.
    int ancestorAt(int node, Level level) const;
    // The model node each dependency-graph node belongs to.
    int nodeOf(int graphNode) const { return m_ofGraphNode[size_t(graphNode)]; }
    qint64 countAt(Level level) const;

    // Repeated structure: siblings in a row whose subtrees have the same shape (levels, names
    // less their #N suffix, rank, and their CPU-side children's shapes in order) fold into one
    // group: the 6 ProfilerSteps of a run, the same module in 24 layers.
    struct Fold
    {
        int first = 0;  // a child node index
        int count = 1;  // siblings in the group, from `first` on in start order
        TimeNs total = 0; // their inclusive times added up
    };
    // Children down to `upTo` (deeper ones are not shown at that level, so they do not break a
    // run of repeats), grouped.
    std::vector<Fold> foldedChildren(int node, Level upTo = Level::GpuWork) const;
    quint64 shape(int node) const { return m_shape[size_t(node)]; }

    // Nodes down to `level` and the edges between the nodes at it (`grademl graph`).
    QJsonObject toJson(Level level) const;
    QString toDot(Level level) const;
    QString toText(Level level) const;

private:
    int add(Level level, int parent, const QString &name, int rank, int resource);
    void finish(const DependencyGraph &graph);

    std::vector<ModelNode> m_nodes;
    std::vector<int> m_ofGraphNode;
    std::vector<ModelEdge> m_leafEdges; // graph edges as (model node, model node, kind)
    std::vector<quint64> m_shape;       // per node, see foldedChildren()
};

} // namespace gml::sim
