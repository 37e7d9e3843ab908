// SPDX-License-Identifier: GPL-3.0-or-later
// The ranks of a distributed run folded into one hierarchy: what the graph shows by default,
// since 8 or 1,024 copies of the same iteration side by side say less than one.
#include "executionmodel.h"

#include <QSet>

#include <map>
#include <tuple>

namespace gml::sim {

namespace {

QString withoutRank(const QString &name)
{
    const qsizetype at = name.lastIndexOf(QStringLiteral(" · rank "));
    if (at < 0)
        return name;
    for (qsizetype k = at + 8; k < name.size(); ++k)
        if (!name[k].isDigit())
            return name;
    return name.left(at);
}

} // namespace

int ExecutionModel::rankCount() const
{
    QSet<int> ranks;
    for (const ModelNode &n : m_nodes)
        if (n.rank >= 0)
            ranks.insert(n.rank);
    return int(ranks.size());
}

ExecutionModel ExecutionModel::foldRanks() const
{
    if (m_nodes.empty() || rankCount() < 2)
        return *this;
    ExecutionModel f;
    f.m_resourceTracks = m_resourceTracks;
    f.m_criticalLength = m_criticalLength;
    std::vector<int> to(m_nodes.size(), -1);
    auto start = [&](const ModelNode &n, int parent, const QString &name) {
        ModelNode c;
        c.level = n.level;
        c.parent = parent;
        c.name = name;
        c.rank = n.rank;
        c.ranks = n.rank >= 0 ? 1 : 0;
        c.resource = n.resource;
        c.start = n.start;
        c.end = n.end;
        c.count = n.count;
        c.critical = n.critical;
        c.mix = n.mix;
        f.m_nodes.push_back(std::move(c));
        return int(f.m_nodes.size()) - 1;
    };
    to[0] = start(m_nodes[0], -1, m_nodes[0].name);
    // Node k's children go where the same child of the same parent of another rank went: by
    // (level, name less its rank, how many of that level and name of its rank came before).
    std::map<std::tuple<int, int, QString, int>, int> made; // (folded parent, level, name, k-th)
    std::map<std::tuple<int, QString, int>, int> seen;      // (level, name, rank) -> so far
    for (size_t k = 0; k < m_nodes.size(); ++k) {
        seen.clear();
        for (int c : m_nodes[k].children) {
            const ModelNode &n = m_nodes[size_t(c)];
            QString name = withoutRank(n.name);
            const int kth = seen[{int(n.level), name, n.rank}]++;
            const auto [it, fresh] = made.try_emplace({to[k], int(n.level), name, kth}, -1);
            if (fresh) {
                it->second = start(n, to[k], name);
            } else {
                ModelNode &m = f.m_nodes[size_t(it->second)];
                m.start = std::min(m.start, n.start);
                m.end = std::max(m.end, n.end);
                m.count += n.count;
                m.critical += n.critical;
                m.mix += n.mix;
                if (m.rank != n.rank)
                    m.rank = -1;
                m.ranks += n.rank >= 0 ? 1 : 0; // one node per rank and key: each adds a rank
            }
            to[size_t(c)] = it->second;
        }
    }
    const size_t count = f.m_nodes.size();
    for (size_t k = 1; k < count; ++k)
        f.m_nodes[size_t(f.m_nodes[k].parent)].children.push_back(int(k));
    // Slices, as each folded node's members' in turn.
    f.m_sliceStart.assign(count + 1, 0);
    for (size_t k = 0; k < m_nodes.size(); ++k)
        f.m_sliceStart[size_t(to[k]) + 1] += quint32(slices(int(k)).size());
    for (size_t k = 0; k < count; ++k)
        f.m_sliceStart[k + 1] += f.m_sliceStart[k];
    f.m_sliceIds.resize(f.m_sliceStart.back());
    {
        std::vector<quint32> fill(f.m_sliceStart.begin(), f.m_sliceStart.end() - 1);
        for (size_t k = 0; k < m_nodes.size(); ++k)
            for (SliceId s : slices(int(k)))
                f.m_sliceIds[fill[size_t(to[k])]++] = s;
    }
    f.m_ofGraphNode.reserve(m_ofGraphNode.size());
    for (int k : m_ofGraphNode)
        f.m_ofGraphNode.push_back(k >= 0 ? to[size_t(k)] : -1);
    f.m_leafEdges.reserve(m_leafEdges.size());
    for (const ModelEdge &e : m_leafEdges)
        if (to[size_t(e.from)] != to[size_t(e.to)])
            f.m_leafEdges.push_back({to[size_t(e.from)], to[size_t(e.to)], e.kind, e.count});
    for (int k : m_criticalNodes)
        if (f.m_criticalNodes.empty() || f.m_criticalNodes.back() != to[size_t(k)])
            f.m_criticalNodes.push_back(to[size_t(k)]);
    f.settle();
    return f;
}

} // namespace gml::sim
