// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dependencygraph.h"
#include "flownetwork.h"

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
    // Per node (empty: none): a resource with a non-zero priority on any of its nodes runs, when
    // free, the ready node of the highest priority instead of its next in measured order.
    std::vector<int> priority;
    // Per node (empty: none): a synchronising call that no longer waits (its end edges dropped).
    std::vector<char> unsynced;
    bool waitsAtEnd(size_t node) const { return unsynced.empty() || !unsynced[node]; }
    // Nodes whose time is a flow over shared links (flownetwork.h): such a node ends when its
    // bytes are through and its latency has passed, instead of after its work.
    std::shared_ptr<const FlowSpec> flows;
    static ReplayInput measured(const DependencyGraph &graph);
};

// Daydream-style replay: each resource runs its nodes in measured order; a node starts at the
// later of its resource becoming free and its start edges being met, plus its slack, and ends
// its work after the later of its start and its end edges (a synchronising call waits, a
// collective waits for every rank). Evaluated over the time points in topological order, which
// is what an event-driven simulation of these rules computes, in O(nodes + edges).
// With priorities (a reschedule), the resources that have them are scheduled by an
// event-driven simulation instead: each priority level is a queue in measured order, and a
// free resource starts the head of the highest level that is ready (work-conserving: a lower
// level runs while the higher ones wait for their dependencies), in O((nodes + edges) log n).
// All priorities equal reproduce the measured order exactly.
// With flows, the event-driven simulation also moves the bytes of the active flows: at each
// time a flow starts or ends, the rates of all of them are shared again (max-min fair), and
// each flow's end is predicted from its rate until the next change.
struct Replay
{
    std::vector<TimeNs> start; // per node, project clock
    std::vector<TimeNs> end;
    TimeNs origin = 0;
    TimeNs finish = 0;  // the last end
    Breakdown critical; // along the critical path, origin to finish
    // The critical path, first node first: each node on it with the time it holds the path
    // (its wait to start and its work, as charged in `critical`); they add up to makespan().
    struct CriticalStep
    {
        int node = 0;
        TimeNs time = 0;
    };
    std::vector<CriticalStep> criticalPath;
    // A reschedule whose order would wait on itself (an order the measured dependencies cannot
    // allow); the measured order was replayed instead.
    bool rescheduleDeadlocked = false;
    // With flows: each link's load over time (bytes/ns, at every change), per FlowSpec link.
    std::vector<LinkLoad> linkLoads;
    TimeNs makespan() const { return finish - origin; }
    // A container's predicted span: its first and last node's, with the measured lead and tail
    // (clamped to the neighbouring nodes of its resource).
    std::pair<TimeNs, TimeNs> containerSpan(const DependencyGraph &graph, int container) const;
};

Replay replay(const DependencyGraph &graph, const ReplayInput &input);

} // namespace gml::sim
