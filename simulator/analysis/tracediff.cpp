// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracediff.h"

#include "sliceclass.h"
#include "timeformat.h"

#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

namespace gml::sim {

namespace {

const QString kSep = QStringLiteral(" \u203a ");

int effectiveRank(int rank)
{
    return std::max(rank, 0);
}

// One side's iterations and the call path of each of its containers below its iteration.
struct Side
{
    const DependencyGraph &g;
    int rank = 0;
    bool wholeRun = false;
    std::vector<int> iterations;  // containers, by start
    std::vector<int> iterationOf; // container -> index into iterations (-1: none; -2: not computed)
    std::vector<QString> pathOf;  // container -> path below its iteration ("" for the iteration)
    std::vector<int> depthOf;

    Side(const DependencyGraph &graph, int wanted) : g(graph)
    {
        const auto &res = g.resources();
        if (wanted >= 0) {
            rank = wanted;
        } else {
            rank = INT_MAX;
            for (const Resource &r : res)
                if (!r.nodes.empty())
                    rank = std::min(rank, effectiveRank(r.rank));
            if (rank == INT_MAX)
                rank = 0;
        }
        iterations = g.iterations(rank);
        const auto &cs = g.containers();
        iterationOf.assign(cs.size(), -2);
        pathOf.assign(cs.size(), QString());
        depthOf.assign(cs.size(), 0);
        for (size_t i = 0; i < iterations.size(); ++i)
            iterationOf[size_t(iterations[i])] = int(i);
    }

    bool onRank(int resource) const
    {
        return effectiveRank(g.resources()[size_t(resource)].rank) == rank;
    }

    // The iteration a container is in (-1: none), its path and depth filled on the way. An
    // outermost range of another thread (the autograd thread's backward pass) belongs to the
    // iteration it ran in.
    int resolve(int c)
    {
        if (iterationOf[size_t(c)] != -2)
            return iterationOf[size_t(c)];
        const Container &k = g.containers()[size_t(c)];
        const int parent = k.parent;
        const int it = parent >= 0 ? resolve(parent) : iterationAt(k.start);
        iterationOf[size_t(c)] = it;
        if (it >= 0) {
            const QString name = stableName(g.name(k.name));
            if (parent >= 0 && !pathOf[size_t(parent)].isEmpty()) {
                pathOf[size_t(c)] = pathOf[size_t(parent)] + kSep + name;
                depthOf[size_t(c)] = depthOf[size_t(parent)] + 1;
            } else {
                pathOf[size_t(c)] = name;
                depthOf[size_t(c)] = 1;
            }
        }
        return it;
    }

    // The iteration whose span (to the next one's start; the last one's to its end) holds t;
    // -1: none.
    int iterationAt(TimeNs t) const
    {
        if (wholeRun)
            return 0;
        const auto &cs = g.containers();
        const auto after =
            std::upper_bound(iterations.begin(), iterations.end(), t,
                             [&](TimeNs x, int c) { return x < cs[size_t(c)].start; });
        if (after == iterations.begin())
            return -1;
        const int found = int(after - iterations.begin()) - 1;
        if (after == iterations.end() && t > cs[size_t(iterations.back())].end)
            return -1;
        return found;
    }
    int iterationOfNode(int container, TimeNs start)
    {
        return container >= 0 ? resolve(container) : iterationAt(start);
    }
};

std::optional<qint64> stepNumber(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("ProfilerStep#(\\d+)"));
    const auto m = re.match(name);
    if (!m.hasMatch())
        return std::nullopt;
    return m.captured(1).toLongLong();
}

} // namespace

namespace {

// Aligns the iterations of the two sides (by step number, else in order; as whole runs when
// either has none) into out.pairs; each side's iteration's pair in pairOfA / pairOfB.
void alignIterations(Side &a, Side &b, const QString &runA, const QString &runB, TraceDiff &out,
                     std::vector<int> &pairOfA, std::vector<int> &pairOfB)
{
    const DependencyGraph &ga = a.g, &gb = b.g;
    if (a.iterations.empty() || b.iterations.empty()) {
        out.alignment = a.iterations.empty() && b.iterations.empty()
                            ? QStringLiteral("as whole runs (neither has ProfilerStep ranges)")
                            : QStringLiteral("as whole runs ('%1' has no ProfilerStep ranges)")
                                  .arg(a.iterations.empty() ? runA : runB);
        for (Side *s : {&a, &b}) {
            s->wholeRun = true;
            s->iterations.clear();
            std::fill(s->iterationOf.begin(), s->iterationOf.end(), -2);
        }
        IterationPair p;
        p.nameA = p.nameB = QStringLiteral("whole run");
        p.startA = ga.origin();
        p.endA = ga.measuredEnd();
        p.startB = gb.origin();
        p.endB = gb.measuredEnd();
        out.pairs.push_back(p);
        pairOfA = pairOfB = {0};
    } else {
        const auto &ca = ga.containers();
        const auto &cb = gb.containers();
        std::map<qint64, int> stepsB;
        for (size_t j = 0; j < b.iterations.size(); ++j)
            if (auto n = stepNumber(gb.name(cb[size_t(b.iterations[j])].name)))
                stepsB.emplace(*n, int(j));
        std::vector<std::pair<int, int>> matched;
        for (size_t i = 0; i < a.iterations.size(); ++i)
            if (auto n = stepNumber(ga.name(ca[size_t(a.iterations[i])].name)))
                if (auto it = stepsB.find(*n); it != stepsB.end())
                    matched.emplace_back(int(i), it->second);
        if (!matched.empty()) {
            out.alignment = QStringLiteral("by step number");
        } else {
            out.alignment = QStringLiteral("by order");
            for (size_t i = 0; i < std::min(a.iterations.size(), b.iterations.size()); ++i)
                matched.emplace_back(int(i), int(i));
        }
        pairOfA.assign(a.iterations.size(), -1);
        pairOfB.assign(b.iterations.size(), -1);
        for (const auto &[i, j] : matched) {
            const Container &x = ca[size_t(a.iterations[size_t(i)])];
            const Container &y = cb[size_t(b.iterations[size_t(j)])];
            IterationPair p;
            p.nameA = ga.name(x.name);
            p.nameB = gb.name(y.name);
            p.startA = x.start;
            p.endA = x.end;
            p.startB = y.start;
            p.endB = y.end;
            pairOfA[size_t(i)] = int(out.pairs.size());
            pairOfB[size_t(j)] = int(out.pairs.size());
            out.pairs.push_back(p);
        }
    }
}

// Sums the time of each call path at each depth of both sides, per iteration: operators by
// depth, leaf CPU nodes, and GPU work under the path of the op that launched it (levels[0]).
struct Collector
{
    const TraceDiff &out;
    double perIteration = 1;
    int maxDepth = 1;
    std::vector<QHash<QString, DiffRow>> levels; // [0]: GPU work

    bool counts(int pair) const
    {
        return pair >= 0 && (out.chosenPair < 0 || pair == out.chosenPair);
    }
    void add(bool sideA, int level, const QString &path, TimeNs time)
    {
        DiffRow &row = levels[size_t(level)][path];
        if (row.path.isEmpty()) {
            row.path = path;
            const qsizetype cut = path.lastIndexOf(kSep);
            row.name = cut < 0 ? path : path.mid(cut + kSep.size());
        }
        (sideA ? row.timeA : row.timeB) += double(time) / perIteration;
        (sideA ? row.countA : row.countB) += 1.0 / perIteration;
    }
    void collect(Side &s, const std::vector<int> &pairOf, bool sideA);
};

void Collector::collect(Side &s, const std::vector<int> &pairOf, bool sideA)
{
    const DependencyGraph &g = s.g;
    auto pairOfIteration = [&](int it) {
        return it >= 0 && size_t(it) < pairOf.size() ? pairOf[size_t(it)] : -1;
    };
    const auto &cs = g.containers();
    for (size_t c = 0; c < cs.size(); ++c) {
        if (g.resources()[size_t(cs[c].resource)].gpu || !s.onRank(cs[c].resource))
            continue;
        const int it = s.resolve(int(c));
        if (!counts(pairOfIteration(it)) || s.depthOf[c] == 0 || s.depthOf[c] > maxDepth)
            continue;
        add(sideA, s.depthOf[c], s.pathOf[c], cs[c].end - cs[c].start);
    }
    // Leaf CPU nodes, and GPU work under the path of the op that launched it.
    QHash<std::pair<int, StringId>, QString> gpuPath;
    const auto &nodes = g.nodes();
    for (const Node &n : nodes) {
        if (!s.onRank(n.resource))
            continue;
        const bool gpu = g.resources()[size_t(n.resource)].gpu;
        if (!gpu) {
            const int it = s.iterationOfNode(n.container, n.start);
            const int depth = (n.container >= 0 ? s.depthOf[size_t(n.container)] : 0) + 1;
            if (!counts(pairOfIteration(it)) || depth > maxDepth)
                continue;
            const QString parent = n.container >= 0 ? s.pathOf[size_t(n.container)] : QString();
            add(sideA, depth,
                parent.isEmpty() ? stableName(g.name(n.name))
                                 : parent + kSep + stableName(g.name(n.name)),
                n.end - n.start);
            continue;
        }
        int container = -1, it = -1;
        if (n.launcher >= 0) {
            container = nodes[size_t(n.launcher)].container;
            it = s.iterationOfNode(container, nodes[size_t(n.launcher)].start);
        } else {
            it = s.iterationAt(n.start);
        }
        if (!counts(pairOfIteration(it)))
            continue;
        const auto key = std::make_pair(container, n.name);
        auto p = gpuPath.find(key);
        if (p == gpuPath.end()) {
            const QString parent = container >= 0    ? s.pathOf[size_t(container)]
                                   : n.launcher >= 0 ? QString()
                                                     : QStringLiteral("(no recorded launch)");
            p = gpuPath.insert(key, parent.isEmpty() ? stableName(g.name(n.name))
                                                     : parent + kSep + stableName(g.name(n.name)));
        }
        add(sideA, 0, *p, n.end - n.start);
    }
}

// The iterations level: one row per aligned pair.
DiffLevel iterationsLevel(const Collector &c)
{
    DiffLevel its;
    its.name = QStringLiteral("iterations");
    for (size_t i = 0; i < c.out.pairs.size(); ++i) {
        if (!c.counts(int(i)))
            continue;
        const IterationPair &p = c.out.pairs[i];
        DiffRow row;
        row.name = p.nameA == p.nameB ? p.nameA : p.nameA + QStringLiteral(" \u2194 ") + p.nameB;
        row.path = row.name;
        row.timeA = double(p.lengthA());
        row.timeB = double(p.lengthB());
        row.countA = row.countB = 1;
        its.totalA += row.timeA / c.perIteration;
        its.totalB += row.timeB / c.perIteration;
        its.rows.push_back(row);
    }
    std::sort(its.rows.begin(), its.rows.end(), [](const DiffRow &x, const DiffRow &y) {
        return std::abs(x.delta()) > std::abs(y.delta());
    });
    return its;
}

// A level of the rows summed, its totals, the largest differences first.
void finish(DiffLevel &level, QHash<QString, DiffRow> &rows)
{
    level.rows.reserve(size_t(rows.size()));
    for (auto it = rows.begin(); it != rows.end(); ++it) {
        level.totalA += it->timeA;
        level.totalB += it->timeB;
        level.rows.push_back(std::move(*it));
    }
    std::sort(level.rows.begin(), level.rows.end(), [](const DiffRow &x, const DiffRow &y) {
        const double dx = std::abs(x.delta()), dy = std::abs(y.delta());
        if (dx != dy)
            return dx > dy;
        const double tx = std::max(x.timeA, x.timeB), ty = std::max(y.timeA, y.timeB);
        return tx != ty ? tx > ty : x.path < y.path;
    });
}

} // namespace

TraceDiff diffTraces(const DependencyGraph &ga, const QString &runA, const DependencyGraph &gb,
                     const QString &runB, const DiffOptions &options)
{
    TraceDiff out;
    Side a(ga, options.rankA), b(gb, options.rankB);
    out.a = {runA, a.rank};
    out.b = {runB, b.rank};
    std::vector<int> pairOfA, pairOfB;
    alignIterations(a, b, runA, runB, out, pairOfA, pairOfB);
    if (options.pair >= 0 && options.pair < int(out.pairs.size()))
        out.chosenPair = options.pair;
    Collector c{out};
    c.perIteration = out.chosenPair >= 0 ? 1.0 : double(std::max<size_t>(out.pairs.size(), 1));
    c.maxDepth = std::max(1, options.maxDepth);
    c.levels.resize(size_t(c.maxDepth) + 1);
    c.collect(a, pairOfA, true);
    c.collect(b, pairOfB, false);
    out.levels.push_back(iterationsLevel(c));
    for (int d = 1; d <= c.maxDepth; ++d) {
        if (c.levels[size_t(d)].isEmpty())
            continue;
        DiffLevel level;
        level.name = QStringLiteral("operators, depth %1").arg(d);
        finish(level, c.levels[size_t(d)]);
        out.levels.push_back(std::move(level));
    }
    if (!c.levels[0].isEmpty()) {
        DiffLevel level;
        level.name = QStringLiteral("GPU work");
        finish(level, c.levels[0]);
        out.levels.push_back(std::move(level));
    }
    return out;
}

static QString countText(double c)
{
    return std::abs(c - std::round(c)) < 1e-9 ? QString::number(qint64(std::llround(c)))
                                              : QString::number(c, 'f', 1);
}

QString TraceDiff::toText(int rowsPerLevel) const
{
    QString out;
    auto side = [](const DiffSide &s) {
        return QStringLiteral("'%1' rank %2").arg(s.run).arg(s.rank);
    };
    out += QStringLiteral("trace diff: A = %1, B = %2\n").arg(side(a), side(b));
    out += QStringLiteral("iterations aligned %1: %2 pair%3")
               .arg(alignment)
               .arg(pairs.size())
               .arg(pairs.size() == 1 ? QString() : QStringLiteral("s"));
    if (chosenPair >= 0)
        out += QStringLiteral("; diffing pair %1 (%2 \u2194 %3) alone")
                   .arg(chosenPair)
                   .arg(pairs[size_t(chosenPair)].nameA, pairs[size_t(chosenPair)].nameB);
    else if (pairs.size() > 1)
        out += QStringLiteral("; times and counts per iteration");
    out += QLatin1Char('\n');
    for (const DiffLevel &level : levels) {
        const double d = level.totalB - level.totalA;
        out += QStringLiteral("\n%1: A %2, B %3 (%4%5)\n")
                   .arg(level.name, formatDuration(TimeNs(std::llround(level.totalA))),
                        formatDuration(TimeNs(std::llround(level.totalB))),
                        formatSignedDuration(TimeNs(std::llround(d))),
                        level.totalA > 0 ? QStringLiteral(", %1%2%")
                                               .arg(d >= 0 ? QStringLiteral("+") : QString())
                                               .arg(100.0 * d / level.totalA, 0, 'f', 1)
                                         : QString());
        int shown = 0;
        for (const DiffRow &r : level.rows) {
            if (shown++ >= rowsPerLevel)
                break;
            QString counts = QStringLiteral("\u00d7%1").arg(countText(r.countA));
            if (std::abs(r.countDelta()) > 1e-9)
                counts += QStringLiteral(" \u2192 \u00d7%1").arg(countText(r.countB));
            out +=
                QStringLiteral("  %1  A %2  B %3  %4  %5\n")
                    .arg(formatSignedDuration(TimeNs(std::llround(r.delta()))).rightJustified(11),
                         formatDuration(TimeNs(std::llround(r.timeA))).rightJustified(10),
                         formatDuration(TimeNs(std::llround(r.timeB))).rightJustified(10), counts,
                         r.path);
        }
        if (level.rows.size() > size_t(rowsPerLevel))
            out += QStringLiteral("  ... %1 more\n").arg(level.rows.size() - size_t(rowsPerLevel));
    }
    return out;
}

QJsonObject TraceDiff::toJson(int rowsPerLevel) const
{
    QJsonArray ps, ls;
    for (const IterationPair &p : pairs)
        ps.append(QJsonObject{{QStringLiteral("a"), p.nameA},
                              {QStringLiteral("b"), p.nameB},
                              {QStringLiteral("a_start_ns"), qint64(p.startA)},
                              {QStringLiteral("a_ns"), qint64(p.lengthA())},
                              {QStringLiteral("b_start_ns"), qint64(p.startB)},
                              {QStringLiteral("b_ns"), qint64(p.lengthB())}});
    for (const DiffLevel &level : levels) {
        QJsonArray rows;
        for (size_t i = 0; i < level.rows.size() && int(i) < rowsPerLevel; ++i) {
            const DiffRow &r = level.rows[i];
            rows.append(QJsonObject{{QStringLiteral("path"), r.path},
                                    {QStringLiteral("name"), r.name},
                                    {QStringLiteral("a_ns"), r.timeA},
                                    {QStringLiteral("b_ns"), r.timeB},
                                    {QStringLiteral("delta_ns"), r.delta()},
                                    {QStringLiteral("a_count"), r.countA},
                                    {QStringLiteral("b_count"), r.countB}});
        }
        ls.append(QJsonObject{{QStringLiteral("level"), level.name},
                              {QStringLiteral("a_ns"), level.totalA},
                              {QStringLiteral("b_ns"), level.totalB},
                              {QStringLiteral("rows"), rows},
                              {QStringLiteral("row_count"), qint64(level.rows.size())}});
    }
    return QJsonObject{{QStringLiteral("a"), QJsonObject{{QStringLiteral("run"), a.run},
                                                         {QStringLiteral("rank"), a.rank}}},
                       {QStringLiteral("b"), QJsonObject{{QStringLiteral("run"), b.run},
                                                         {QStringLiteral("rank"), b.rank}}},
                       {QStringLiteral("alignment"), alignment},
                       {QStringLiteral("chosen_pair"), chosenPair},
                       {QStringLiteral("pairs"), ps},
                       {QStringLiteral("levels"), ls}};
}

} // namespace gml::sim
