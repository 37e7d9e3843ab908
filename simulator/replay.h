// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dependencygraph.h"

#include <QJsonObject>

namespace gml::sim {

// Where the time of the critical path goes.
struct Breakdown
{
    TimeNs compute = 0;       // GPU kernels
    TimeNs communication = 0; // collective kernels
    TimeNs memcpy = 0;        // GPU copies and sets
    TimeNs cpu = 0;           // CPU ops, runtime calls and the framework time between them
    TimeNs idle = 0;          // a GPU waiting beyond its dependencies (launch latency)
    TimeNs total() const { return compute + communication + memcpy + cpu + idle; }
    QJsonObject toJson() const;
};

// The per-node inputs of a replay: the measured ones, or a transform's.
struct ReplayInput
{
    std::vector<TimeNs> work;
    std::vector<TimeNs> slack;
    static ReplayInput measured(const DependencyGraph &graph);
};

// Daydream-style replay: each resource runs its nodes in measured order; a node starts at the
// later of its resource becoming free and its start edges being met, plus its slack, and ends
// its work after the later of its start and its end edges (a synchronising call waits, a
// collective waits for every rank). Evaluated over the time points in topological order, which
// is what an event-driven simulation of these rules computes, in O(nodes + edges).
struct Replay
{
    std::vector<TimeNs> start; // per node, project clock
    std::vector<TimeNs> end;
    TimeNs origin = 0;
    TimeNs finish = 0; // the last end
    Breakdown critical; // along the critical path, origin to finish
    TimeNs makespan() const { return finish - origin; }
    // A container's predicted span: its first and last node's, with the measured lead and tail
    // (clamped to the neighbouring nodes of its resource).
    std::pair<TimeNs, TimeNs> containerSpan(const DependencyGraph &graph, int container) const;
};

Replay replay(const DependencyGraph &graph, const ReplayInput &input);

} // namespace gml::sim
