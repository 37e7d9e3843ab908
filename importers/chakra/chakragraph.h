// SPDX-License-Identifier: GPL-3.0-or-later
// A Chakra trace's nodes as the importer reads them, and what it makes of them as a graph:
// cycles, the dependency edges between operators, and the census kept in the source's
// metadata. Shared by chakraimporter.cpp (reading) and chakragraph.cpp; not a public interface.
#pragma once

#include "tracewriter.h"

#include <QJsonObject>
#include <QString>

#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gml::chakragraph {

// Chakra's NodeType and CollectiveCommType, by value.
inline const char *const kNodeTypes[] = {"invalid", "metadata", "memory load", "memory store",
                                         "compute", "send",     "receive",     "collective"};
inline const char *const kCollectives[] = {
    "all_reduce", "reduce",         "all_gather",           "gather", "scatter", "broadcast",
    "all_to_all", "reduce_scatter", "reduce_scatter_block", "barrier"};

struct Node
{
    quint64 id = 0;
    QString name;
    int type = 0;
    bool cpu = true; // is_cpu_op (the converter's default when absent)
    qint64 rfId = -1, tid = -1, scope = -1;
    qint64 commType = -1, commSize = -1;
    quint64 duration = 0;
    std::vector<quint64> ctrl, data;
    qint64 at = 0; // byte offset of the node's message
};

// A CPU operator (a record-function range), not an annotation or a GPU node.
inline bool isOperator(const Node &n)
{
    return n.cpu && !n.name.isEmpty() && n.scope != 7 && !n.name.startsWith(QLatin1String("##")) &&
           !n.name.startsWith(QLatin1Char('['));
}

// A Chakra trace is a graph without cycles. Nodes on a cycle, or waiting for one, are
// found by Kahn's algorithm: over the data dependencies alone, then with the control
// dependencies too (some converter versions write control cycles and self-loops; the real
// chakra.0.et has 383). The edges among such nodes are not stored.
// True for each node on a cycle or waiting for one (with `control`: over both kinds of
// dependency, else over data dependencies alone).
std::vector<char> nodesOnCycles(const std::vector<Node> &nodes,
                                const std::unordered_map<quint64, size_t> &byId, bool control);

// The dependencies between operators: a data dependency goes to the operator each end stands
// for (a GPU node's: the operator it depends on), a control dependency between two operators.
// The edges among nodes on a cycle are left out, with a warning naming the first such node.
struct Dependencies
{
    std::set<std::pair<const Node *, const Node *>> data, ctrl;
    qint64 dataDeps = 0, ctrlDeps = 0;
    qint64 missingDeps = 0;            // data dependencies on an id not in the file
    qint64 selfData = 0, selfCtrl = 0; // dependencies on the node itself
};
Dependencies dependencies(const std::vector<Node> &nodes,
                          const std::unordered_map<quint64, size_t> &byId, WarningLog &warnings);

// What the nodes are, counted into the source's metadata: how many of each type, on the GPU,
// operators, the time on CPU, GPU and in communication, the collectives by type (count, bytes)
// and the CPU calls that launched them.
void insertCensus(QJsonObject &meta, const std::vector<Node> &nodes, qint64 operators);

} // namespace gml::chakragraph
