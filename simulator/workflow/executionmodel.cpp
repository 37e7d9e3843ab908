// SPDX-License-Identifier: GPL-3.0-or-later
#include "executionmodel.h"

#include "sliceclass.h"
#include "timeformat.h"

#include <QJsonArray>

#include <algorithm>
#include <climits>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace gml::sim {

QString levelName(Level level)
{
    static const char *names[kLevels] = {"workflow", "step",     "iteration", "phase",
                                         "scope",    "operator", "gpu"};
    return QLatin1String(names[int(level)]);
}

std::optional<Level> levelFromName(const QString &name)
{
    for (int l = 0; l < kLevels; ++l)
        if (levelName(Level(l)) == name)
            return Level(l);
    if (name == QLatin1String("module"))
        return Level::Scope;
    return std::nullopt;
}

QString edgeKindName(ModelEdge::Kind kind)
{
    static const char *names[] = {"launch",        "sync",        "collective",
                                  "data",          "stream_wait", "thread_wait",
                                  "program_order", "workflow",    "workflow_inferred"};
    return QLatin1String(names[int(kind)]);
}

namespace {

// What a slice that encloses others (or a leaf CPU slice) is in the hierarchy.
Level classify(const QString &name, const QString &cat)
{
    if (isIterationName(name))
        return Level::Iteration;
    // record_function ranges ("Optimizer.step#SGD.step", "## forward ##"), nn.Module and Python
    // ranges, NVTX ranges; Kineto's 2021 layout files them all under "Operator".
    if (cat == QLatin1String("user_annotation") || cat == QLatin1String("python_function") ||
        cat == QLatin1String("nvtx") || name.startsWith(QLatin1String("nn.Module:")) ||
        name.startsWith(QLatin1String("## ")) ||
        (name.contains(QLatin1Char('#')) && !name.startsWith(QLatin1String("aten::"))))
        return Level::Scope;
    return Level::Operator;
}

} // namespace

int ExecutionModel::add(Level level, int parent, const QString &name, int rank, int resource)
{
    ModelNode n;
    n.level = level;
    n.parent = parent;
    n.name = name;
    n.rank = rank;
    n.ranks = rank >= 0 ? 1 : 0;
    n.resource = resource;
    n.start = std::numeric_limits<TimeNs>::max();
    n.end = std::numeric_limits<TimeNs>::min();
    n.count = 0;
    m_nodes.push_back(std::move(n));
    return int(m_nodes.size()) - 1;
}

ExecutionModel ExecutionModel::build(const DependencyGraph &g, const QString &runName)
{
    ExecutionModel m;
    const auto &containers = g.containers();
    const auto &resources = g.resources();
    const auto &nodes = g.nodes();
    m.m_nodes.reserve(2 + containers.size() + nodes.size());
    const int workflow = m.add(Level::Workflow, -1, QStringLiteral("workflow"), -1, -1);
    const int step = m.add(Level::Step, workflow, runName, -1, -1);
    auto take = [&](int node, TimeNs start, TimeNs end) {
        ModelNode &n = m.m_nodes[size_t(node)];
        n.start = std::min(n.start, start);
        n.end = std::max(n.end, end);
        ++n.count;
    };
    // What a slice is, worked out once per (name, category): a run has millions of slices
    // and a few hundred distinct names.
    std::unordered_map<StringId, std::unordered_map<StringId, Level>> classOf;
    auto classOfSlice = [&](StringId name, StringId cat) {
        auto &byCat = classOf[name];
        auto it = byCat.find(cat);
        if (it == byCat.end())
            it = byCat.emplace(cat, classify(g.name(name), g.name(cat))).first;
        return it->second;
    };
    std::vector<Level> levelOf(containers.size());
    for (size_t c = 0; c < containers.size(); ++c)
        levelOf[c] = classOfSlice(containers[c].name, containers[c].cat);

    // Iterations first (outermost iteration ranges), so that work outside them can join the
    // one of its rank that it starts in.
    std::vector<int> modelOf(containers.size(), -1);
    std::map<int, std::vector<std::tuple<TimeNs, TimeNs, int>>> iterationsOfRank;
    for (size_t c = 0; c < containers.size(); ++c) {
        if (levelOf[c] != Level::Iteration)
            continue;
        int outer = containers[c].parent;
        while (outer >= 0 && levelOf[size_t(outer)] != Level::Iteration)
            outer = containers[size_t(outer)].parent;
        const Container &ct = containers[c];
        const int rank = resources[size_t(ct.resource)].rank;
        if (outer >= 0) { // an iteration range inside another: part of it
            modelOf[c] = modelOf[size_t(outer)];
        } else {
            modelOf[c] =
                m.add(Level::Iteration, step,
                      rank >= 0 ? QStringLiteral("%1 · rank %2").arg(g.name(ct.name)).arg(rank)
                                : g.name(ct.name),
                      rank, ct.resource);
            iterationsOfRank[rank].emplace_back(ct.start, ct.end, modelOf[c]);
        }
        take(modelOf[c], ct.start, ct.end);
    }
    for (auto &[rank, list] : iterationsOfRank)
        std::sort(list.begin(), list.end());
    // Work outside any range of its thread: the iteration of its rank it starts in, or the step.
    auto byTime = [&](int resource, TimeNs t) {
        const auto it = iterationsOfRank.find(resources[size_t(resource)].rank);
        if (it != iterationsOfRank.end()) {
            const auto &list = it->second;
            auto after =
                std::upper_bound(list.begin(), list.end(),
                                 std::make_tuple(t, std::numeric_limits<TimeNs>::max(), INT_MAX));
            if (after != list.begin() && t < std::get<1>(*std::prev(after)))
                return std::get<2>(*std::prev(after));
        }
        return step;
    };
    // A child of `parent` at `level`, or `parent` itself when the child would be no deeper than
    // it (an op nested in an op, a scope in an op, are part of it; scopes do nest).
    auto placeUnder = [&](int parent, Level level, StringId name, int resource) {
        const Level pl = m.m_nodes[size_t(parent)].level;
        if (pl >= Level::Iteration && (level < pl || (level == pl && level != Level::Scope)))
            return parent;
        return m.add(level, parent, g.name(name), resources[size_t(resource)].rank, resource);
    };
    // Containers come in start order on each resource, so a parent is placed before its children.
    for (size_t c = 0; c < containers.size(); ++c) {
        if (levelOf[c] == Level::Iteration)
            continue;
        const Container &ct = containers[c];
        const int parent =
            ct.parent >= 0 ? modelOf[size_t(ct.parent)] : byTime(ct.resource, ct.start);
        modelOf[c] = placeUnder(parent, levelOf[c], ct.name, ct.resource);
        take(modelOf[c], ct.start, ct.end);
    }
    // Leaves: CPU work first (GPU work hangs under its launcher's node).
    m.m_ofGraphNode.assign(nodes.size(), -1);
    for (const Resource &r : g.resources())
        m.m_resourceTracks.push_back(r.track);
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < nodes.size(); ++i) {
            const Node &n = nodes[i];
            const bool gpu = resources[size_t(n.resource)].gpu;
            if (gpu != (pass == 1))
                continue;
            int at;
            if (gpu) {
                const int launcher = n.launcher >= 0 ? m.m_ofGraphNode[size_t(n.launcher)] : -1;
                const int parent = launcher >= 0 ? launcher : byTime(n.resource, n.start);
                at = m.add(Level::GpuWork, parent, g.name(n.name),
                           resources[size_t(n.resource)].rank, n.resource);
            } else {
                const int parent =
                    n.container >= 0 ? modelOf[size_t(n.container)] : byTime(n.resource, n.start);
                const Level level =
                    n.kind == NodeKind::Runtime ? Level::Operator : classOfSlice(n.name, n.cat);
                at = placeUnder(parent, level == Level::Iteration ? Level::Scope : level, n.name,
                                n.resource);
            }
            m.m_ofGraphNode[i] = at;
            take(at, n.start, n.end);
        }
    }
    m.addPhases(modelOf);
    // Each node's slices, in the order they were taken: iteration ranges, the other
    // containers, CPU leaves, GPU work.
    m.m_sliceStart.assign(m.m_nodes.size() + 1, 0);
    for (size_t k = 0; k < m.m_nodes.size(); ++k)
        m.m_sliceStart[k + 1] = m.m_sliceStart[k] + quint32(m.m_nodes[k].count);
    m.m_sliceIds.resize(m.m_sliceStart.back());
    {
        std::vector<quint32> fill(m.m_sliceStart.begin(), m.m_sliceStart.end() - 1);
        for (int iterations = 1; iterations >= 0; --iterations)
            for (size_t c = 0; c < containers.size(); ++c)
                if ((levelOf[c] == Level::Iteration) == bool(iterations))
                    m.m_sliceIds[fill[size_t(modelOf[c])]++] = containers[c].slice;
        for (int pass = 0; pass < 2; ++pass)
            for (size_t i = 0; i < nodes.size(); ++i)
                if (resources[size_t(nodes[i].resource)].gpu == (pass == 1))
                    m.m_sliceIds[fill[size_t(m.m_ofGraphNode[i])]++] = nodes[i].slice;
    }
    m.m_leafEdges.reserve(g.edges().size());
    for (const Edge &e : g.edges()) {
        const int a = m.m_ofGraphNode[size_t(e.from)], b = m.m_ofGraphNode[size_t(e.to)];
        if (a != b && e.kind != EdgeKind::Collective)
            m.m_leafEdges.push_back({a, b, ModelEdge::Kind(int(e.kind)), 1});
    }
    g.forEachCollectivePair([&](int from, int to) {
        const int a = m.m_ofGraphNode[size_t(from)], b = m.m_ofGraphNode[size_t(to)];
        if (a != b)
            m.m_leafEdges.push_back({a, b, ModelEdge::Kind::Collective, 1});
    });
    m.finish(g);
    return m;
}

std::span<const SliceId> ExecutionModel::slices(int node) const
{
    if (size_t(node) + 1 >= m_sliceStart.size())
        return {};
    return {m_sliceIds.data() + m_sliceStart[size_t(node)],
            m_sliceStart[size_t(node) + 1] - m_sliceStart[size_t(node)]};
}

void ExecutionModel::finish(const DependencyGraph &g)
{
    const auto &nodes = g.nodes();
    const size_t count = m_nodes.size();
    // The graph nodes each model node holds (as one array with offsets), and its resource mix.
    std::vector<quint32> ownStart(count + 1, 0), own;
    for (size_t i = 0; i < nodes.size(); ++i)
        if (m_ofGraphNode[i] >= 0)
            ++ownStart[size_t(m_ofGraphNode[i]) + 1];
    for (size_t k = 0; k < count; ++k)
        ownStart[k + 1] += ownStart[k];
    own.resize(ownStart.back());
    {
        std::vector<quint32> fill(ownStart.begin(), ownStart.end() - 1);
        for (size_t i = 0; i < nodes.size(); ++i) {
            const int at = m_ofGraphNode[i];
            if (at < 0)
                continue;
            own[fill[size_t(at)]++] = quint32(i);
            const Node &n = nodes[i];
            ResourceMix &mix = m_nodes[size_t(at)].mix;
            const TimeNs d = n.end - n.start;
            switch (n.kind) {
            case NodeKind::Cpu:
            case NodeKind::Runtime:
                mix.cpu += d;
                break;
            case NodeKind::Kernel:
                mix.gpuCompute += d;
                break;
            case NodeKind::Collective:
                mix.communication += d;
                break;
            case NodeKind::Memcpy:
            case NodeKind::Memset:
                mix.copies += d;
                break;
            }
        }
    }
    {
        std::vector<int> children(count, 0);
        for (size_t k = 1; k < count; ++k)
            if (m_nodes[k].parent >= 0)
                ++children[size_t(m_nodes[k].parent)];
        for (size_t k = 0; k < count; ++k)
            m_nodes[k].children.reserve(size_t(children[k]));
    }
    // Children are always added after their parent: one pass from the back sees every child
    // before its parent. Each node's busy time (the union of the leaf work under it) is built
    // from its own graph nodes and its children's unions, kept in one arena.
    using Interval = std::pair<TimeNs, TimeNs>;
    std::vector<Interval> arena, scratch;
    std::vector<size_t> busyAt(count, 0);
    std::vector<quint32> busySize(count, 0);
    for (size_t k = count; k-- > 0;) {
        ModelNode &n = m_nodes[k];
        scratch.clear();
        for (quint32 j = ownStart[k]; j < ownStart[k + 1]; ++j)
            scratch.emplace_back(nodes[own[j]].start, nodes[own[j]].end);
        for (int c : n.children)
            scratch.insert(scratch.end(), arena.begin() + qsizetype(busyAt[size_t(c)]),
                           arena.begin() + qsizetype(busyAt[size_t(c)] + busySize[size_t(c)]));
        if (scratch.size() > 1) {
            std::sort(scratch.begin(), scratch.end());
            size_t w = 0;
            for (size_t r = 1; r < scratch.size(); ++r) {
                if (scratch[r].first <= scratch[w].second)
                    scratch[w].second = std::max(scratch[w].second, scratch[r].second);
                else
                    scratch[++w] = scratch[r];
            }
            scratch.resize(w + 1);
        }
        if (n.start > n.end) // no slice of its own and no child: an empty step
            n.start = n.end = 0;
        TimeNs covered = 0;
        for (const auto &[a, b] : scratch)
            covered += std::max<TimeNs>(0, std::min(b, n.end) - std::max(a, n.start));
        n.mix.idle = std::max<TimeNs>(0, n.inclusive() - covered);
        n.count = std::max<qint64>(n.count, 1);
        if (n.parent < 0)
            continue;
        busyAt[k] = arena.size();
        busySize[k] = quint32(scratch.size());
        arena.insert(arena.end(), scratch.begin(), scratch.end());
        ModelNode &p = m_nodes[size_t(n.parent)];
        p.children.push_back(int(k));
        if (n.end > n.start || m_sliceStart[k + 1] > m_sliceStart[k]) {
            p.start = std::min(p.start, n.start);
            p.end = std::max(p.end, n.end);
        }
        p.mix.cpu += n.mix.cpu;
        p.mix.gpuCompute += n.mix.gpuCompute;
        p.mix.communication += n.mix.communication;
        p.mix.copies += n.mix.copies;
    }
    arena = {};
    scratch = {};
    settle();
}

void ExecutionModel::settle()
{
    const size_t count = m_nodes.size();
    for (ModelNode &n : m_nodes) {
        std::sort(n.children.begin(), n.children.end(), [&](int a, int b) {
            return std::tie(m_nodes[size_t(a)].start, a) < std::tie(m_nodes[size_t(b)].start, b);
        });
        // Self time: the part of its span that no child covers (an operator's CPU time before
        // its kernels, an iteration's gaps between operators). Children are in start order.
        TimeNs inChildren = 0, runStart = 0, runEnd = std::numeric_limits<TimeNs>::min();
        auto close = [&] {
            if (runEnd > runStart)
                inChildren +=
                    std::max<TimeNs>(0, std::min(runEnd, n.end) - std::max(runStart, n.start));
        };
        for (int c : n.children) {
            const ModelNode &child = m_nodes[size_t(c)];
            if (child.start <= runEnd) {
                runEnd = std::max(runEnd, child.end);
                continue;
            }
            close();
            runStart = child.start;
            runEnd = child.end;
        }
        close();
        n.self = std::max<TimeNs>(0, n.inclusive() - inChildren);
    }
    // Shapes bottom-up (children have larger indices than their parent). A name's trailing
    // " · rank N" and "#N" do not count: ProfilerStep#5 and #6 are the same step. Names share
    // their text with the graph's: the hash of a name is worked out once per text.
    auto withoutSuffix = [](QStringView name, QStringView mark) {
        const qsizetype at = name.lastIndexOf(mark);
        if (at < 0 || at + mark.size() == name.size())
            return name;
        for (QChar c : name.sliced(at + mark.size()))
            if (!c.isDigit())
                return name;
        return name.first(at);
    };
    std::unordered_map<const QChar *, size_t> nameHash;
    m_shape.assign(count, 0);
    for (size_t k = count; k-- > 0;) {
        const ModelNode &n = m_nodes[k];
        auto [it, fresh] = nameHash.try_emplace(n.name.constData(), 0);
        if (fresh)
            it->second = qHash(withoutSuffix(withoutSuffix(n.name, u" · rank "), u"#"));
        quint64 h = (quint64(it->second) ^ (quint64(n.level) * 1315423911u + quint64(n.rank + 1))) *
                    1099511628211ull;
        // GPU work does not shape its operator: an op that launches a kernel in one iteration
        // and not in the next (zero_ on a gradient that was None) is still the same op.
        for (int c : n.children)
            if (m_nodes[size_t(c)].level != Level::GpuWork)
                h = (h ^ m_shape[size_t(c)]) * 1099511628211ull; // FNV-style, order-sensitive
        m_shape[k] = h;
    }
}

std::vector<ExecutionModel::Fold> ExecutionModel::foldedChildren(int node, Level upTo) const
{
    constexpr size_t kMaxPeriod = 8;
    std::vector<int> kids;
    for (int c : m_nodes[size_t(node)].children)
        if (m_nodes[size_t(c)].level <= upTo)
            kids.push_back(c);
    // Children of several ranks (a step of a distributed job) are taken rank by rank, so one
    // rank's iterations, one after another, fold; ranks run side by side and never fold into
    // one another.
    if (std::adjacent_find(kids.begin(), kids.end(), [&](int a, int b) {
            return m_nodes[size_t(a)].rank != m_nodes[size_t(b)].rank;
        }) != kids.end())
        std::stable_sort(kids.begin(), kids.end(), [&](int a, int b) {
            return m_nodes[size_t(a)].rank < m_nodes[size_t(b)].rank;
        });
    auto same = [&](size_t a, size_t b, size_t period) {
        for (size_t k = 0; k < period; ++k)
            if (m_shape[size_t(kids[a + k])] != m_shape[size_t(kids[b + k])])
                return false;
        return true;
    };
    std::vector<Fold> out;
    for (size_t i = 0; i < kids.size();) {
        size_t bestPeriod = 1, bestRepeats = 1;
        for (size_t period = 1; period <= kMaxPeriod && i + 2 * period <= kids.size(); ++period) {
            size_t repeats = 1;
            while (i + (repeats + 1) * period <= kids.size() &&
                   same(i, i + repeats * period, period))
                ++repeats;
            if (repeats >= 2 && repeats * period > bestRepeats * bestPeriod) {
                bestPeriod = period;
                bestRepeats = repeats;
            }
        }
        Fold f;
        f.first = kids[i];
        f.count = int(bestRepeats);
        f.period = int(bestPeriod);
        f.members.assign(kids.begin() + qsizetype(i),
                         kids.begin() + qsizetype(i + bestRepeats * bestPeriod));
        for (int m : f.members)
            f.total += m_nodes[size_t(m)].inclusive();
        out.push_back(std::move(f));
        i += bestRepeats * bestPeriod;
    }
    return out;
}

int ExecutionModel::ancestorAt(int node, Level level) const
{
    while (node >= 0 && m_nodes[size_t(node)].level > level)
        node = m_nodes[size_t(node)].parent;
    return node >= 0 && m_nodes[size_t(node)].level == level ? node : -1;
}

qint64 ExecutionModel::countAt(Level level) const
{
    return std::count_if(m_nodes.begin(), m_nodes.end(),
                         [level](const ModelNode &n) { return n.level == level; });
}

std::optional<ExecutionModel> ExecutionModel::forRun(Project &project, RunId run,
                                                     const QString &runName, QString *error)
{
    const auto graph = DependencyGraph::build(project, run, error);
    if (!graph)
        return std::nullopt;
    ExecutionModel model = build(*graph, runName);
    model.setCriticalPath(replay(*graph, ReplayInput::measured(*graph)));
    return model;
}

void ExecutionModel::setCriticalPath(const Replay &replay)
{
    for (ModelNode &n : m_nodes)
        n.critical = 0;
    m_criticalNodes.clear();
    m_criticalLength = 0;
    for (const auto &step : replay.criticalPath) {
        const int at =
            step.node < int(m_ofGraphNode.size()) ? m_ofGraphNode[size_t(step.node)] : -1;
        m_criticalLength += step.time;
        if (at < 0)
            continue;
        for (int p = at; p >= 0; p = m_nodes[size_t(p)].parent)
            m_nodes[size_t(p)].critical += step.time;
        if (m_criticalNodes.empty() || m_criticalNodes.back() != at)
            m_criticalNodes.push_back(at);
    }
}

std::vector<std::optional<double>> ExecutionModel::spanChange(const Replay &base,
                                                              const Replay &predicted) const
{
    constexpr TimeNs kNone = std::numeric_limits<TimeNs>::max();
    std::vector<std::array<TimeNs, 4>> span(m_nodes.size(),
                                            {kNone, -kNone, kNone, -kNone}); // base, predicted
    const size_t n = std::min({m_ofGraphNode.size(), base.start.size(), predicted.start.size()});
    for (size_t i = 0; i < n; ++i) {
        const int at = m_ofGraphNode[i];
        if (at < 0)
            continue;
        auto &s = span[size_t(at)];
        s[0] = std::min(s[0], base.start[i]);
        s[1] = std::max(s[1], base.end[i]);
        s[2] = std::min(s[2], predicted.start[i]);
        s[3] = std::max(s[3], predicted.end[i]);
    }
    // Children come after their parents: fold spans up from the back.
    for (size_t k = m_nodes.size(); k-- > 1;) {
        const int p = m_nodes[k].parent;
        if (p < 0 || span[k][0] == kNone)
            continue;
        auto &s = span[size_t(p)];
        s[0] = std::min(s[0], span[k][0]);
        s[1] = std::max(s[1], span[k][1]);
        s[2] = std::min(s[2], span[k][2]);
        s[3] = std::max(s[3], span[k][3]);
    }
    std::vector<std::optional<double>> out(m_nodes.size());
    for (size_t k = 0; k < m_nodes.size(); ++k)
        if (span[k][0] != kNone && span[k][1] > span[k][0])
            out[k] = double(span[k][3] - span[k][2]) / double(span[k][1] - span[k][0]) - 1.0;
    return out;
}

std::vector<std::pair<SliceId, int>> ExecutionModel::sliceIndex() const
{
    std::vector<std::pair<SliceId, int>> index;
    for (size_t i = 0; i < m_nodes.size(); ++i)
        for (SliceId s : slices(int(i)))
            index.emplace_back(s, int(i));
    std::sort(index.begin(), index.end());
    return index;
}

int ExecutionModel::nodeOfSlice(const std::vector<std::pair<SliceId, int>> &index, SliceId slice)
{
    const auto it =
        std::lower_bound(index.begin(), index.end(), std::pair<SliceId, int>(slice, INT_MIN));
    return it != index.end() && it->first == slice ? it->second : -1;
}

ExecutionModel::EdgeCounts
ExecutionModel::foldLeafEdges(const std::function<int(int)> &groupOf) const
{
    EdgeCounts folded;
    for (const ModelEdge &e : m_leafEdges) {
        const int a = groupOf(e.from), b = groupOf(e.to);
        if (a >= 0 && b >= 0 && a != b)
            ++folded[{a, b, int(e.kind)}];
    }
    return folded;
}

int ExecutionModel::find(const QString &name) const
{
    const auto it = std::find_if(m_nodes.begin(), m_nodes.end(),
                                 [&](const ModelNode &n) { return n.name == name; });
    return it == m_nodes.end() ? -1 : int(it - m_nodes.begin());
}

std::vector<ModelEdge> ExecutionModel::edges(Level level) const
{
    EdgeCounts folded = foldLeafEdges([&](int node) { return ancestorAt(node, level); });
    // Program order: successive nodes on one resource (across their parents: the last operator
    // of an iteration precedes the first of the next), not a scope and a scope nested in it.
    auto encloses = [&](int outer, int inner) {
        for (int p = m_nodes[size_t(inner)].parent; p >= 0; p = m_nodes[size_t(p)].parent)
            if (p == outer)
                return true;
        return false;
    };
    std::map<int, std::vector<int>> lanes;
    for (size_t i = 0; i < m_nodes.size(); ++i)
        if (m_nodes[i].level == level && m_nodes[i].resource >= 0)
            lanes[m_nodes[i].resource].push_back(int(i));
    for (auto &[resource, list] : lanes) {
        std::sort(list.begin(), list.end(), [&](int a, int b) {
            return std::tie(m_nodes[size_t(a)].start, a) < std::tie(m_nodes[size_t(b)].start, b);
        });
        for (size_t k = 1; k < list.size(); ++k)
            if (!encloses(list[k - 1], list[k]))
                ++folded[{list[k - 1], list[k], int(ModelEdge::Kind::ProgramOrder)}];
    }
    std::vector<ModelEdge> out;
    out.reserve(folded.size());
    for (const auto &[key, count] : folded)
        out.push_back(
            {std::get<0>(key), std::get<1>(key), ModelEdge::Kind(std::get<2>(key)), count});
    return out;
}

} // namespace gml::sim
