// SPDX-License-Identifier: GPL-3.0-or-later
#include "dependencygraph.h"

#include "kerneltaxonomy.h"

#include "clockalignment.h"
#include "graphbuild.h"
#include "project.h"

#include <QRegularExpression>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <unordered_map>

namespace gml::sim {

QString kernelFamily(const QString &name, NodeKind kind)
{
    if (kind == NodeKind::Collective)
        return familyName(KernelKind::Family::Communication);
    if (kind == NodeKind::Memcpy || kind == NodeKind::Memset)
        return familyName(KernelKind::Family::Copy);
    return familyName(kernelKind(name).family);
}

namespace {

// A blocking call tolerates this much clock noise between its end and the work it waited for.
constexpr TimeNs kSyncToleranceNs = 1'000;

enum class SyncScope { None, Device, Launched };

SyncScope syncScope(const QString &name)
{
    if (name.contains(QLatin1String("Synchronize")) || name.contains(QLatin1String("SyncStream")) ||
        name.contains(QLatin1String("cuCtxSynchronize")))
        return SyncScope::Device;
    // Blocking copies and sets: the call returns when the work it launched is done.
    static const QRegularExpression blocking(QStringLiteral(
        "^(cuda|hip)Mem(cpy|set)(2D|3D|ToSymbol|FromSymbol)?$|^cuMemcpy[DH]to[DH](_v\\d+)?$"));
    if (blocking.match(name).hasMatch())
        return SyncScope::Launched;
    return SyncScope::None;
}

} // namespace

bool isSynchronisingCall(const QString &name)
{
    return syncScope(name) != SyncScope::None;
}

void DependencyGraph::addEdge(const Edge &e)
{
    m_edges.push_back(e);
    ++m_edgeCounts[size_t(e.kind)];
}

void DependencyGraph::addJoin(Join j)
{
    m_edgeCounts[size_t(EdgeKind::Collective)] +=
        qint64(j.waiting.size()) * qint64(j.arriving.size() - 1);
    m_joins.push_back(std::move(j));
}

void DependencyGraph::expandJoins()
{
    for (const Join &j : m_joins)
        for (int a : j.arriving)
            for (int b : j.waiting)
                if (a != b)
                    m_edges.push_back({a, b, EdgeKind::Collective, false, true, 0});
    m_joins.clear();
}

std::optional<DependencyGraph> DependencyGraph::build(Project &project, RunId run, QString *error)
{
    DependencyGraph g;
    BuildReading reading;
    if (!g.readNodes(project, run, reading, error) || !g.addEdges(project, reading, error))
        return std::nullopt;
    return g;
}

// What each runtime call launched, as one array with offsets, in launch-edge order.
struct DependencyGraph::Launches
{
    std::vector<int> start, list;

    explicit Launches(const DependencyGraph &g) : start(g.m_nodes.size() + 1, 0)
    {
        for (const auto &e : g.m_edges)
            if (e.kind == EdgeKind::Launch)
                ++start[size_t(e.from) + 1];
        for (size_t i = 0; i < g.m_nodes.size(); ++i)
            start[i + 1] += start[i];
        list.resize(size_t(start.back()));
        std::vector<int> fill(start.begin(), start.end() - 1);
        for (const auto &e : g.m_edges)
            if (e.kind == EdgeKind::Launch)
                list[size_t(fill[size_t(e.from)]++)] = e.to;
    }
    std::span<const int> of(size_t call) const
    {
        return std::span<const int>(list.data() + start[call],
                                    size_t(start[call + 1] - start[call]));
    }
};

// The edges between the nodes read: launches, synchronisation, collectives across ranks, the
// waits inferred on streams and threads, data edges; then bytes for the link models.
bool DependencyGraph::addEdges(Project &project, const BuildReading &reading, QString *error)
{
    DependencyGraph &g = *this;
    // Launch edges, and the launch time of each GPU node (for synchronisation).
    std::vector<TimeNs> launchedAt(g.m_nodes.size());
    for (size_t i = 0; i < g.m_nodes.size(); ++i)
        launchedAt[i] = g.m_nodes[i].start;
    Flows flows;
    if (!readFlows(project, reading, launchedAt, flows, error))
        return false;
    const Launches launches(g);
    addSyncEdges(reading, flows.sync, launchedAt, launches);
    joinCollectives();
    g.inferStreamWaits();
    g.inferThreadWaits();
    g.inferBlockingOps();
    addDataEdges(reading.sliceMap, flows.data);
    g.reorder();
    // Bytes (read with the slices): a copy's own "bytes" argument; a collective's message from
    // the record_param_comms op around its launch. For link models.
    const SliceMap &sliceMap = reading.sliceMap;
    for (const auto &[slice, bytes] : reading.bytesOf)
        if (const int n = sliceMap.node(slice); n >= 0)
            g.m_nodes[size_t(n)].bytes = bytes;
    for (const BuildReading::Comms &c : reading.comms) {
        const int ci = sliceMap.container(c.slice);
        if (ci < 0)
            continue;
        const Container &con = g.m_containers[size_t(ci)];
        const auto &order = g.m_resources[size_t(con.resource)].nodes;
        for (int k = g.m_position[size_t(con.first)]; k <= g.m_position[size_t(con.last)]; ++k)
            for (int w : launches.of(size_t(order[size_t(k)])))
                if (g.m_nodes[size_t(w)].kind == NodeKind::Collective &&
                    g.m_nodes[size_t(w)].bytes <= 0) // the kernel's own message first
                    g.m_nodes[size_t(w)].bytes = c.bytes;
    }
    g.markBounds();
    g.measure();
    return true;
}

bool DependencyGraph::readFlows(Project &project, const BuildReading &reading,
                                std::vector<TimeNs> &launchedAt, Flows &out, QString *error)
{
    DependencyGraph &g = *this;
    const SliceMap &sliceMap = reading.sliceMap;
    std::vector<SourceId> sources;
    for (const auto &[source, offset] : reading.offsetOf)
        sources.push_back(source);
    std::sort(sources.begin(), sources.end());
    std::vector<slicestore::Flow> flows;
    for (const SourceId source : sources) {
        flows.clear();
        if (!slicestore::readFlows(project.db(), source, flows, error))
            return false;
        for (const auto &f : flows) {
            const auto kind = FlowKind(f.kind);
            if (kind == FlowKind::Sync) {
                out.sync.emplace_back(f.from, f.to);
                continue;
            }
            if (kind == FlowKind::Data) {
                out.data.emplace_back(f.from, f.to);
                continue;
            }
            if (kind != FlowKind::Launch)
                continue;
            const int a = sliceMap.node(f.from), b = sliceMap.node(f.to);
            if (a < 0 || b < 0)
                continue;
            const Node &call = g.m_nodes[size_t(a)];
            const Node &work = g.m_nodes[size_t(b)];
            if (!g.m_resources[size_t(work.resource)].gpu ||
                g.m_resources[size_t(call.resource)].gpu)
                continue;
            const TimeNs lag =
                std::clamp<TimeNs>(work.start - call.start, 0, call.end - call.start);
            g.addEdge({a, b, EdgeKind::Launch, false, false, lag});
            g.m_nodes[size_t(b)].launcher = a;
            launchedAt[size_t(b)] = call.start;
        }
    }
    return true;
}

void DependencyGraph::addSyncEdges(const BuildReading &reading,
                                   const std::vector<std::pair<SliceId, SliceId>> &syncFlows,
                                   const std::vector<TimeNs> &launchedAt, const Launches &launches)
{
    DependencyGraph &g = *this;
    // Synchronisation. GPU resources per (source, rank): a thread synchronises the GPUs of its
    // own process (its rank in the same file).
    std::map<std::pair<SourceId, int>, std::vector<int>> gpusOf;
    for (size_t r = 0; r < g.m_resources.size(); ++r)
        if (g.m_resources[r].gpu)
            gpusOf[{g.m_resources[r].source, g.m_resources[r].rank}].push_back(int(r));
    // Per GPU resource, the running maximum of launch times in stream order: the last node
    // launched before T is the last index whose prefix maximum is below T.
    std::vector<std::vector<TimeNs>> launchPrefix(g.m_resources.size());
    for (size_t r = 0; r < g.m_resources.size(); ++r) {
        if (!g.m_resources[r].gpu)
            continue;
        TimeNs m = std::numeric_limits<TimeNs>::min();
        for (int n : g.m_resources[r].nodes) {
            m = std::max(m, launchedAt[size_t(n)]);
            launchPrefix[r].push_back(m);
        }
    }
    auto syncOn = [&](int call, int res) {
        const auto &prefix = launchPrefix[size_t(res)];
        const Node &c = g.m_nodes[size_t(call)];
        const auto it = std::lower_bound(prefix.begin(), prefix.end(), c.start);
        if (it == prefix.begin())
            return;
        const int work = g.m_resources[size_t(res)].nodes[size_t(it - prefix.begin() - 1)];
        if (g.m_nodes[size_t(work)].end <= c.end + kSyncToleranceNs)
            g.addEdge({work, call, EdgeKind::Sync, true, true, 0});
    };
    std::unordered_map<SliceId, int> markerFor; // runtime call slice -> stream resource
    for (const auto &[marker, call] : syncFlows)
        if (auto m = reading.markerResource.find(marker); m != reading.markerResource.end())
            markerFor.emplace(call, m->second);
    QHash<StringId, SyncScope> scopes;
    for (size_t i = 0; i < g.m_nodes.size(); ++i) {
        Node &n = g.m_nodes[i];
        if (n.kind != NodeKind::Runtime)
            continue;
        auto sc = scopes.constFind(n.name);
        if (sc == scopes.constEnd())
            sc = scopes.insert(n.name, syncScope(g.m_names.value(n.name)));
        const SyncScope scope = *sc;
        n.synchronising = scope != SyncScope::None;
        if (scope == SyncScope::Launched) {
            for (int w : launches.of(i))
                if (g.m_nodes[size_t(w)].end <= n.end + kSyncToleranceNs)
                    g.addEdge({w, int(i), EdgeKind::Sync, true, true, 0});
            continue;
        }
        if (scope != SyncScope::Device)
            continue;
        const Resource &thread = g.m_resources[size_t(n.resource)];
        if (auto m = markerFor.find(n.slice);
            m != markerFor.end() && !g.m_resources[size_t(m->second)].nodes.empty()) {
            syncOn(int(i), m->second); // Kineto named the stream
            continue;
        }
        auto gpus = gpusOf.find({thread.source, thread.rank});
        if (gpus == gpusOf.end())
            continue;
        for (int res : gpus->second)
            syncOn(int(i), res);
    }
}

void DependencyGraph::joinCollectives()
{
    DependencyGraph &g = *this;
    // Collectives across ranks: the k-th collective of an operation on one rank is matched to
    // the reference rank's as in clock alignment; a group-wide one ends when all have started.
    {
        std::map<std::pair<int, SourceId>, std::vector<int>> bySource; // (rank, source) -> nodes
        for (size_t i = 0; i < g.m_nodes.size(); ++i)
            if (g.m_nodes[i].kind == NodeKind::Collective) {
                const Resource &r = g.m_resources[size_t(g.m_nodes[i].resource)];
                bySource[{r.rank < 0 ? INT_MAX : r.rank, r.source}].push_back(int(i));
            }
        if (bySource.size() > 1) {
            auto seq = [&](std::vector<int> &ids) {
                std::sort(ids.begin(), ids.end(), [&](int a, int b) {
                    return g.m_nodes[size_t(a)].start < g.m_nodes[size_t(b)].start;
                });
                std::vector<CollectiveEnd> v;
                for (int id : ids)
                    v.push_back({g.m_nodes[size_t(id)].collectiveOp, g.m_nodes[size_t(id)].start,
                                 g.m_nodes[size_t(id)].end});
                return v;
            };
            auto it = bySource.begin();
            std::vector<int> &refIds = it->second;
            const auto ref = seq(refIds);
            std::vector<std::vector<int>> groups(refIds.size());
            for (size_t k = 0; k < refIds.size(); ++k)
                groups[k].push_back(refIds[k]);
            for (++it; it != bySource.end(); ++it) {
                const auto other = seq(it->second);
                const auto fit = fitCollectives(ref, other);
                if (!fit)
                    continue;
                for (size_t k = 0; k < ref.size(); ++k) {
                    const long j = long(k) + fit->shift;
                    if (j >= 0 && j < long(other.size()) && other[size_t(j)].op == ref[k].op)
                        groups[k].push_back(it->second[size_t(j)]);
                }
            }
            const auto &ops = collectiveOperations();
            for (const auto &group : groups) {
                const QString &op = ops[g.m_nodes[size_t(group.front())].collectiveOp];
                if (group.size() < 2 || op == QLatin1String("SendRecv") ||
                    op == QLatin1String("Send") || op == QLatin1String("Recv"))
                    continue; // point-to-point: the peer is not known
                // Every member that ended after the last arrival waits for all of them: one join.
                // One that ended before it (a match the measured times contradict) waits only for
                // those that started before its end, edge by edge.
                TimeNs lastArrival = std::numeric_limits<TimeNs>::min();
                for (int a : group)
                    lastArrival = std::max(lastArrival, g.m_nodes[size_t(a)].start);
                Join join;
                join.arriving = group;
                for (int b : group) {
                    if (g.m_nodes[size_t(b)].end >= lastArrival) {
                        join.waiting.push_back(b);
                        continue;
                    }
                    for (int a : group)
                        if (a != b && g.m_nodes[size_t(a)].start <= g.m_nodes[size_t(b)].end)
                            g.addEdge({a, b, EdgeKind::Collective, false, true, 0});
                }
                if (!join.waiting.empty())
                    g.addJoin(std::move(join));
            }
        }
    }
}

void DependencyGraph::addDataEdges(const SliceMap &sliceMap,
                                   const std::vector<std::pair<SliceId, SliceId>> &dataFlows)
{
    DependencyGraph &g = *this;
    // Data edges of execution traces: producer op -> consumer op, between their leaves.
    for (const auto &[from, to] : dataFlows) {
        auto lastOf = [&](SliceId s) {
            if (const int n = sliceMap.node(s); n >= 0)
                return n;
            if (const int c = sliceMap.container(s); c >= 0)
                return g.m_containers[size_t(c)].last;
            return -1;
        };
        auto firstOf = [&](SliceId s) {
            if (const int n = sliceMap.node(s); n >= 0)
                return n;
            if (const int c = sliceMap.container(s); c >= 0)
                return g.m_containers[size_t(c)].first;
            return -1;
        };
        const int a = lastOf(from), b = firstOf(to);
        if (a >= 0 && b >= 0 && a != b && g.m_nodes[size_t(a)].end <= g.m_nodes[size_t(b)].start)
            g.addEdge({a, b, EdgeKind::Data, true, false, 0});
    }
}

} // namespace gml::sim
