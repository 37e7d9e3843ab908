// SPDX-License-Identifier: GPL-3.0-or-later
// Waiting in a trace that is not work: ops that blocked on the GPU without a synchronising call
// of their own, Python ranges that only wait, threads that have nothing to do with the job.
#include "dependencygraph.h"

#include <QRegularExpression>

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>

namespace gml::sim {

// A host op that waits for the GPU inside itself (aten::item / _local_scalar_dense, .cpu() and
// device-to-host copies, nonzero, an op that synchronises internally) measures GPU waiting,
// not CPU work; a faster GPU must shorten it. Told from the trace, not from names: the op is
// long (50 us or more); the GPU work of its rank that ended last before it ended did so within
// 30 us of its end, in its second half; and no GPU work of the rank was still running when it
// ended (the queue was drained, as a synchronisation leaves it; a host running ahead of the GPU
// leaves kernels queued behind its ops); and so do at least 80% of the long runs of an op of
// that name on the run's threads (a chance end just after the GPU ran dry is rare). It gets a Sync
// edge from that work's end to its own end, so the replay ends it when the work ends plus the
// measured lag, and it counts as synchronising (unsync and the host transform treat it as they
// treat cudaDeviceSynchronize).
void DependencyGraph::inferBlockingOps()
{
    constexpr TimeNs kMinOp = 50'000, kReturn = 30'000;
    std::vector<char> hasSync(m_nodes.size(), 0);
    for (const Edge &e : m_edges)
        if (e.kind == EdgeKind::Sync && e.toEnd)
            hasSync[size_t(e.to)] = 1;
    // Per rank: its GPU work by end, and the latest end among the work that started before t.
    struct Work
    {
        std::vector<std::pair<TimeNs, int>> byEnd;      // (end, node)
        std::vector<std::pair<TimeNs, TimeNs>> byStart; // (start, max end of those up to here)
    };
    std::map<int, Work> ranks;
    for (const Resource &r : m_resources)
        if (r.gpu)
            for (int i : r.nodes) {
                ranks[r.rank].byEnd.emplace_back(m_nodes[size_t(i)].end, i);
                ranks[r.rank].byStart.emplace_back(m_nodes[size_t(i)].start,
                                                   m_nodes[size_t(i)].end);
            }
    for (auto &[rank, w] : ranks) {
        std::sort(w.byEnd.begin(), w.byEnd.end());
        std::sort(w.byStart.begin(), w.byStart.end());
        for (size_t k = 1; k < w.byStart.size(); ++k)
            w.byStart[k].second = std::max(w.byStart[k].second, w.byStart[k - 1].second);
    }
    std::vector<Edge> found;
    // Per op name, digits left out (an NVTX range "aten::view, seq = 46195, op_id = 994109" is
    // one op): its long instances and those that blocked.
    std::unordered_map<StringId, QString> keyOf;
    auto key = [&](StringId id) -> const QString & {
        auto [it, fresh] = keyOf.try_emplace(id);
        if (fresh) {
            static const QRegularExpression digits(QStringLiteral("\\d+"));
            it->second = name(id).remove(digits);
        }
        return it->second;
    };
    QHash<QString, std::pair<int, int>> byName;
    for (const Resource &r : m_resources) {
        if (r.gpu)
            continue;
        const auto it = ranks.find(r.rank);
        if (it == ranks.end())
            continue;
        const Work &w = it->second;
        for (int i : r.nodes) {
            const Node &n = m_nodes[size_t(i)];
            if (n.synchronising || hasSync[size_t(i)] || n.end - n.start < kMinOp)
                continue;
            ++byName[key(n.name)].first;
            auto e = std::upper_bound(w.byEnd.begin(), w.byEnd.end(), std::pair(n.end, INT_MAX));
            if (e == w.byEnd.begin())
                continue;
            const auto [workEnd, work] = *std::prev(e);
            if (n.end - workEnd > kReturn || workEnd - n.start < (n.end - n.start) / 2)
                continue;
            // Nothing of the rank's GPU work that had started by the op's end runs past it.
            auto s =
                std::lower_bound(w.byStart.begin(), w.byStart.end(), std::pair(n.end, TimeNs(0)));
            if (s != w.byStart.begin() && std::prev(s)->second > n.end)
                continue;
            found.push_back({work, i, EdgeKind::Sync, true, true, n.end - workEnd});
            ++byName[key(n.name)].second;
        }
    }
    // An op that blocks does so every time it runs long: most of its long instances end on the
    // GPU's drain. A CPU op that only now and then ends just after the GPU ran dry (a copy in
    // the DataLoader while the last step's kernels finish) is not waiting.
    std::erase_if(found, [&](const Edge &e) {
        const auto [instances, blocked] = byName.value(key(m_nodes[size_t(e.to)].name));
        return blocked * 5 < instances * 4;
    });
    for (const Edge &e : found) {
        addEdge(e);
        m_nodes[size_t(e.to)].synchronising = true;
    }
}

namespace {

// A Python range that only waits: the profiler's Python tracer names its frames
// "file.py(line): function" and built-ins "<built-in method acquire of ...>".
bool waitsOnly(const QString &name)
{
    static const QRegularExpression python(
        QStringLiteral(R"(\.py\(\d+\): (sleep|wait|wait_for|select|poll|join|acquire|get)$)"));
    static const QRegularExpression builtin(QStringLiteral(
        R"(^<built-in (method|function) (sleep|acquire|select|poll|wait|join|epoll_wait)\b)"));
    static const QRegularExpression plain(
        QStringLiteral(R"(^(time\.sleep|select\.select|threading\.Event\.wait)$)"));
    return python.match(name).hasMatch() || builtin.match(name).hasMatch() ||
           plain.match(name).hasMatch();
}

} // namespace

void DependencyGraph::markBounds()
{
    // A resource is tied to the job when an edge or a join links one of its nodes to another
    // resource's. Without any tie (a CPU-only trace of independent threads) every thread counts.
    std::vector<char> tied(m_resources.size(), 0);
    auto tie = [&](int a, int b) {
        const int ra = m_nodes[size_t(a)].resource, rb = m_nodes[size_t(b)].resource;
        if (ra != rb)
            tied[size_t(ra)] = tied[size_t(rb)] = 1;
    };
    for (const Edge &e : m_edges)
        tie(e.from, e.to);
    for (const Join &j : m_joins)
        for (size_t k = 1; k < j.arriving.size(); ++k)
            tie(j.arriving[0], j.arriving[k]);
    const bool anyTie = std::find(tied.begin(), tied.end(), 1) != tied.end();
    std::unordered_map<StringId, bool> waits;
    for (Node &n : m_nodes) {
        const Resource &r = m_resources[size_t(n.resource)];
        if (r.gpu)
            continue;
        if (anyTie && !tied[size_t(n.resource)]) {
            n.bounds = false;
            continue;
        }
        if (n.kind != NodeKind::Cpu)
            continue;
        auto [it, fresh] = waits.try_emplace(n.name, false);
        if (fresh)
            it->second = waitsOnly(name(n.name));
        n.bounds = !it->second;
    }
}

} // namespace gml::sim
