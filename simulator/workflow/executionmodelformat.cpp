// SPDX-License-Identifier: GPL-3.0-or-later
// The execution model for scripts (grademl graph): JSON, Graphviz dot and text.
#include "executionmodel.h"

#include "timeformat.h"

#include <QJsonArray>

namespace gml::sim {

namespace {

QJsonObject mixJson(const ResourceMix &m)
{
    return {{QStringLiteral("cpu_ns"), m.cpu},
            {QStringLiteral("gpu_compute_ns"), m.gpuCompute},
            {QStringLiteral("communication_ns"), m.communication},
            {QStringLiteral("copies_ns"), m.copies},
            {QStringLiteral("idle_ns"), m.idle}};
}

} // namespace

QJsonObject ExecutionModel::toJson(Level level) const
{
    QJsonArray nodes;
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        const ModelNode &n = m_nodes[i];
        if (n.level > level)
            continue;
        QJsonObject o{{QStringLiteral("id"), qint64(i)},
                      {QStringLiteral("level"), levelName(n.level)},
                      {QStringLiteral("name"), n.name},
                      {QStringLiteral("start_ns"), n.start},
                      {QStringLiteral("end_ns"), n.end},
                      {QStringLiteral("inclusive_ns"), n.inclusive()},
                      {QStringLiteral("self_ns"), n.self},
                      {QStringLiteral("count"), n.count},
                      {QStringLiteral("slices"), qint64(slices(int(i)).size())},
                      {QStringLiteral("children"), qint64(n.children.size())},
                      {QStringLiteral("mix"), mixJson(n.mix)}};
        if (n.parent >= 0)
            o.insert(QStringLiteral("parent"), n.parent);
        if (n.rank >= 0)
            o.insert(QStringLiteral("rank"), n.rank);
        if (const auto ids = slices(int(i)); !ids.empty())
            o.insert(QStringLiteral("first_slice"), ids.front());
        if (m_criticalLength > 0) {
            o.insert(QStringLiteral("critical_ns"), n.critical);
            o.insert(QStringLiteral("critical_share"), criticalShare(int(i)));
        }
        nodes.append(o);
    }
    QJsonArray edges;
    for (const ModelEdge &e : this->edges(level))
        edges.append(QJsonObject{{QStringLiteral("from"), e.from},
                                 {QStringLiteral("to"), e.to},
                                 {QStringLiteral("kind"), edgeKindName(e.kind)},
                                 {QStringLiteral("count"), e.count}});
    return {{QStringLiteral("level"), levelName(level)},
            {QStringLiteral("nodes"), nodes},
            {QStringLiteral("edges"), edges}};
}

QString ExecutionModel::toDot(Level level) const
{
    auto quoted = [](QString s) -> QString { // a QString, not a QStringBuilder over the local
        s.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
        s.replace(QLatin1Char('"'), QLatin1String("\\\""));
        s.replace(QLatin1Char('\n'), QLatin1String("\\n"));
        return QLatin1Char('"') + s + QLatin1Char('"');
    };
    QString out = QStringLiteral(
        "digraph execution {\n  rankdir=LR;\n  node [shape=box, fontname=\"DejaVu Sans\"];\n");
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        const ModelNode &n = m_nodes[i];
        if (n.level != level)
            continue;
        out += QStringLiteral("  n%1 [label=%2];\n")
                   .arg(i)
                   .arg(quoted(
                       n.name + QLatin1Char('\n') + formatDuration(n.inclusive()) +
                       (n.count > 1 ? QStringLiteral(" · %1 slices").arg(n.count) : QString())));
    }
    for (const ModelEdge &e : edges(level)) {
        static const char *styles[] = {"style=dashed",
                                       "style=dotted",
                                       "color=red, penwidth=2",
                                       "color=blue",
                                       "color=gray, style=dashed",
                                       "color=gray, style=dotted",
                                       "color=gray",
                                       "color=darkgreen, penwidth=2",
                                       "color=darkgreen, style=dashed"};
        out += QStringLiteral("  n%1 -> n%2 [%3, label=\"%4%5\"];\n")
                   .arg(e.from)
                   .arg(e.to)
                   .arg(QLatin1String(styles[int(e.kind)]), edgeKindName(e.kind),
                        e.count > 1 ? QStringLiteral(" ×%1").arg(e.count) : QString());
    }
    return out + QStringLiteral("}\n");
}

QString ExecutionModel::toText(Level level) const
{
    QString out;
    std::vector<std::pair<int, int>> stack{{0, 0}}; // node (or -1 - index into folds), depth
    std::vector<Fold> folds;
    while (!stack.empty()) {
        const auto [i, depth] = stack.back();
        stack.pop_back();
        if (i < 0) { // after a folded group's first node: what the group adds up to
            const Fold &f = folds[size_t(-i - 1)];
            out +=
                QString(depth * 2, QLatin1Char(' ')) +
                (f.period > 1
                     ? QStringLiteral("×%1 of these %2 in a row: %3 in all, %4 each on average\n")
                           .arg(f.count)
                           .arg(f.period)
                           .arg(formatDuration(f.total), formatDuration(f.total / f.count))
                     : QStringLiteral("×%1 of the same shape: %2 in all, %3 each on average\n")
                           .arg(f.count)
                           .arg(formatDuration(f.total), formatDuration(f.total / f.count)));
            continue;
        }
        const ModelNode &n = m_nodes[size_t(i)];
        out += QString(depth * 2, QLatin1Char(' ')) + QStringLiteral("%1 %2: %3 (self %4)")
                                                          .arg(levelName(n.level), n.name,
                                                               formatDuration(n.inclusive()),
                                                               formatDuration(n.self));
        if (n.count > 1)
            out += QStringLiteral(", %1 slices").arg(n.count);
        if (m_criticalLength > 0)
            out += QStringLiteral(", %1% of the critical path")
                       .arg(100.0 * criticalShare(i), 0, 'f', 1);
        out += QStringLiteral(", cpu %1, gpu %2, comm %3, copies %4, idle %5\n")
                   .arg(formatDuration(n.mix.cpu), formatDuration(n.mix.gpuCompute),
                        formatDuration(n.mix.communication), formatDuration(n.mix.copies),
                        formatDuration(n.mix.idle));
        if (n.level >= level)
            continue;
        const auto groups = foldedChildren(i, level);
        for (auto g = groups.rbegin(); g != groups.rend(); ++g) {
            if (g->count > 1) { // the group's first block stands for it; the rest is summed up here
                folds.push_back(*g);
                stack.push_back({-int(folds.size()), depth + 1});
            }
            for (int k = g->period; k-- > 0;)
                stack.push_back({g->members[size_t(k)], depth + 1});
        }
    }
    std::map<ModelEdge::Kind, std::pair<qint64, qint64>> kinds; // edges, leaf edges
    for (const ModelEdge &e : edges(level)) {
        kinds[e.kind].first += 1;
        kinds[e.kind].second += e.count;
    }
    out += QStringLiteral("edges at level %1:").arg(levelName(level));
    if (kinds.empty())
        out += QStringLiteral(" none");
    for (const auto &[kind, n] : kinds)
        out +=
            QStringLiteral(" %1 %2 (%3 leaf)").arg(edgeKindName(kind)).arg(n.first).arg(n.second);
    return out + QLatin1Char('\n');
}

} // namespace gml::sim
