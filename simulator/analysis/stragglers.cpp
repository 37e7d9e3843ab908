// SPDX-License-Identifier: GPL-3.0-or-later
// The cross-rank part of the analysis: each rank's arrival at a collective, the collectives
// matched across ranks by the graph's joins and collective edges, the straggler of each (who
// arrived last, and what it ran before), and the ranks' loads and imbalance. The whole run's
// analysis (analysis.cpp) and a cluster project's reduce over its shards (simulator/cluster)
// share them.
#include "analysis.h"

#include "clockalignment.h"
#include "executionmodel.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <numeric>

namespace gml::sim {

CollectiveArrival collectiveArrival(const DependencyGraph &g, int id)
{
    const auto &nodes = g.nodes();
    const auto &resources = g.resources();
    const auto &containers = g.containers();
    const Node &n = nodes[size_t(id)];
    const Resource &stream = resources[size_t(n.resource)];
    const auto &ops = collectiveOperations();
    CollectiveArrival a;
    a.rank = stream.rank;
    a.op = n.collectiveOp;
    a.operation =
        n.collectiveOp >= 0 && n.collectiveOp < ops.size() ? ops[n.collectiveOp] : g.name(n.name);
    a.start = n.start;
    a.end = n.end;
    if (const int pos = g.position(id); pos > 0) {
        const Node &prev = nodes[size_t(stream.nodes[size_t(pos - 1)])];
        a.prevEnd = prev.end;
        a.prevName = g.name(prev.name);
    }
    if (n.launcher >= 0) {
        // The host op that launched it (its outermost range below the iteration), and the op
        // that ran on that thread before it.
        auto outermost = [&](int node) {
            int c = nodes[size_t(node)].container;
            while (c >= 0 && containers[size_t(c)].parent >= 0 &&
                   !isProfilerStep(g.name(containers[size_t(containers[size_t(c)].parent)].name)))
                c = containers[size_t(c)].parent;
            return c;
        };
        const Node &call = nodes[size_t(n.launcher)];
        const auto &thread = resources[size_t(call.resource)].nodes;
        const int launchingOp = outermost(n.launcher);
        const int firstOfOp = launchingOp >= 0 ? containers[size_t(launchingOp)].first : n.launcher;
        if (const int cp = g.position(firstOfOp); cp > 0) {
            const int prev = thread[size_t(cp - 1)];
            const int prevOp = outermost(prev);
            a.hostBefore =
                QStringLiteral("host: ") +
                g.name(prevOp >= 0 ? containers[size_t(prevOp)].name : nodes[size_t(prev)].name);
        }
    }
    return a;
}

Straggler stragglerOf(std::vector<CollectiveArrival> members)
{
    std::stable_sort(
        members.begin(), members.end(),
        [](const CollectiveArrival &x, const CollectiveArrival &y) { return x.start < y.start; });
    const CollectiveArrival &first = members.front(), &last = members.back();
    Straggler s;
    s.operation = last.operation;
    s.ranks = int(members.size());
    s.firstArrival = first.start;
    s.lastArrival = last.start;
    s.lastRank = last.rank;
    s.lateVsMedian = last.start - members[members.size() / 2].start;
    // What the last rank ran just before: its stream's previous work when that ran past the
    // first arrival, else what its host did before launching late.
    if (last.prevEnd > first.start)
        s.before = QStringLiteral("GPU: ") + last.prevName;
    else
        s.before = last.hostBefore;
    return s;
}

std::vector<std::vector<CollectiveArrival>>
matchArrivals(std::map<std::pair<int, SourceId>, std::vector<CollectiveArrival>> bySource)
{
    using Group = std::vector<CollectiveArrival>;
    std::vector<Group> out;
    if (bySource.size() < 2)
        return out;
    auto ends = [](const Group &v) {
        std::vector<CollectiveEnd> e;
        e.reserve(v.size());
        for (const CollectiveArrival &a : v)
            e.push_back({a.op, a.start, a.end});
        return e;
    };
    std::map<int, std::map<int, int>> countOf; // operation -> rank -> how many
    for (auto &[key, v] : bySource) {
        std::stable_sort(v.begin(), v.end(),
                         [](const CollectiveArrival &x, const CollectiveArrival &y) {
                             return x.start < y.start;
                         });
        for (const CollectiveArrival &a : v)
            ++countOf[a.op][key.first];
    }
    auto even = [&](int op) {
        const auto &ranks = countOf[op];
        return std::all_of(ranks.begin(), ranks.end(),
                           [&](const auto &r) { return r.second == ranks.begin()->second; });
    };
    auto it = bySource.begin();
    const Group &ref = it->second;
    const auto refEnds = ends(ref);
    std::vector<Group> groups(ref.size());
    for (size_t k = 0; k < ref.size(); ++k)
        groups[k].push_back(ref[k]);
    for (++it; it != bySource.end(); ++it) {
        const auto fit = fitCollectives(refEnds, ends(it->second));
        if (!fit)
            continue;
        for (size_t k = 0; k < ref.size(); ++k) {
            const long j = long(k) + fit->shift;
            if (j >= 0 && j < long(it->second.size()) && it->second[size_t(j)].op == ref[k].op)
                groups[k].push_back(it->second[size_t(j)]);
        }
    }
    for (auto &group : groups) {
        const QString &op = group.front().operation;
        const bool pointToPoint = op == QLatin1String("SendRecv") || op == QLatin1String("Send") ||
                                  op == QLatin1String("Recv");
        if (group.size() < 2 || (pointToPoint && !even(group.front().op)))
            continue;
        out.push_back(std::move(group));
    }
    return out;
}

std::vector<Straggler> matchCollectives(const DependencyGraph &g,
                                        const std::function<bool(TimeNs)> &inRange)
{
    std::map<std::pair<int, SourceId>, std::vector<CollectiveArrival>> bySource;
    const auto &nodes = g.nodes();
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].kind == NodeKind::Collective) {
            const Resource &r = g.resources()[size_t(nodes[i].resource)];
            bySource[{r.rank < 0 ? INT_MAX : r.rank, r.source}].push_back(
                collectiveArrival(g, int(i)));
        }
    std::vector<Straggler> stragglers;
    for (auto &group : matchArrivals(std::move(bySource))) {
        Straggler s = stragglerOf(std::move(group));
        if (inRange(s.firstArrival))
            stragglers.push_back(s);
    }
    return stragglers;
}

void finishRanks(Analysis &out, std::map<int, RankLoad> loads)
{
    for (const Straggler &s : out.stragglers)
        if (s.lastRank >= 0)
            ++loads[s.lastRank].lastArrivals;
    std::sort(
        out.stragglers.begin(), out.stragglers.end(),
        [](const Straggler &x, const Straggler &y) { return x.firstArrival < y.firstArrival; });
    for (size_t k = 0; k < out.stragglers.size(); ++k)
        out.stragglers[k].index = int(k);
    out.ranks.clear();
    for (auto &[rank, load] : loads)
        if (rank >= 0) {
            load.rank = rank;
            out.ranks.push_back(load);
        }
    out.computeImbalance = out.communicationImbalance = 0;
    if (out.ranks.size() < 2)
        return;
    auto imbalance = [&](auto get) {
        TimeNs sum = 0, most = 0;
        for (const auto &r : out.ranks) {
            sum += get(r);
            most = std::max(most, get(r));
        }
        return sum > 0 ? double(most) * double(out.ranks.size()) / double(sum) : 0.0;
    };
    out.computeImbalance = imbalance([](const RankLoad &r) { return r.compute; });
    out.communicationImbalance = imbalance([](const RankLoad &r) { return r.communication; });
}

} // namespace gml::sim
