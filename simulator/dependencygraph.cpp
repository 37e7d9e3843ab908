// SPDX-License-Identifier: GPL-3.0-or-later
#include "dependencygraph.h"

#include "clockalignment.h"
#include "project.h"

#include <QRegularExpression>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace gml::sim {

namespace {

// A blocking call tolerates this much clock noise between its end and the work it waited for.
constexpr TimeNs kSyncToleranceNs = 1'000;

bool oneOf(const QString &s, std::initializer_list<const char *> list)
{
    for (const char *x : list)
        if (s == QLatin1String(x))
            return true;
    return false;
}

struct Row
{
    SliceId id;
    TimeNs start;
    TimeNs end;
    StringId name;
    StringId cat;
    bool leaf = true;
};

enum class SyncScope { None, Device, Launched };

SyncScope syncScope(const QString &name)
{
    if (name.contains(QLatin1String("Synchronize")) || name.contains(QLatin1String("SyncStream")) ||
        name.contains(QLatin1String("cuCtxSynchronize")))
        return SyncScope::Device;
    // Blocking copies and sets: the call returns when the work it launched is done.
    static const QRegularExpression blocking(
        QStringLiteral("^(cuda|hip)Mem(cpy|set)(2D|3D|ToSymbol|FromSymbol)?$|^cuMemcpy[DH]to[DH](_v\\d+)?$"));
    if (blocking.match(name).hasMatch())
        return SyncScope::Launched;
    return SyncScope::None;
}

} // namespace

void DependencyGraph::addEdge(const Edge &e)
{
    m_edges.push_back(e);
    ++m_edgeCounts[size_t(e.kind)];
}

std::optional<DependencyGraph> DependencyGraph::build(Project &project, RunId run, QString *error)
{
    auto &db = project.db();
    DependencyGraph g;
    auto fail = [&](const QString &why) -> std::optional<DependencyGraph> {
        if (error)
            *error = why;
        return std::nullopt;
    };

    // Resources: CPU threads and GPU streams (and GPU rows that hold work directly).
    std::unordered_map<TrackId, int> resourceOf;
    {
        auto st = db.prepare("SELECT id, kind, name, coalesce(rank, -1), pid, source_id FROM track "
                             "WHERE run_id = ? AND kind IN (?, ?, ?) AND slice_count > 0 ORDER BY id");
        st.bind(1, run);
        st.bind(2, qint64(TrackKind::Thread));
        st.bind(3, qint64(TrackKind::Gpu));
        st.bind(4, qint64(TrackKind::Stream));
        while (st.step()) {
            Resource r;
            r.track = st.int64(0);
            r.gpu = TrackKind(st.int64(1)) != TrackKind::Thread;
            r.name = st.text(2);
            r.rank = int(st.int64(3));
            r.pid = st.text(4);
            r.source = st.int64(5);
            resourceOf.emplace(r.track, int(g.m_resources.size()));
            g.m_resources.push_back(std::move(r));
        }
        if (!st.errorString().isEmpty())
            return fail(st.errorString());
    }
    // Names, read once per distinct name.
    auto nameOf = [&](StringId id) -> QString {
        auto it = g.m_names.constFind(id);
        if (it == g.m_names.constEnd())
            it = g.m_names.insert(id, project.string(id));
        return *it;
    };
    // What a category or a name says about a slice, worked out once per distinct string (the
    // rows of a large run share a few hundred of them).
    enum CatClass : uint8_t { CatOther, CatSync, CatTrace, CatMemcpy, CatMemset, CatRuntime };
    std::unordered_map<StringId, CatClass> catClass;
    auto classOfCat = [&](StringId id) {
        auto it = catClass.find(id);
        if (it != catClass.end())
            return it->second;
        const QString cat = id ? nameOf(id) : QString(); // name(cat) serves category selectors
        const CatClass c = cat == QLatin1String("cuda_sync") ? CatSync
                           : cat.compare(QLatin1String("trace"), Qt::CaseInsensitive) == 0 ? CatTrace
                           : oneOf(cat, {"gpu_memcpy", "Memcpy"})                          ? CatMemcpy
                           : oneOf(cat, {"gpu_memset", "Memset"})                          ? CatMemset
                           : oneOf(cat, {"cuda_runtime", "cuda_driver", "Runtime", "Driver",
                                         "privateuse1_runtime", "privateuse1_driver"})
                               ? CatRuntime
                               : CatOther;
        catClass.emplace(id, c);
        return c;
    };
    struct NameClass
    {
        bool profilerSpan = false; // "PyTorch Profiler (0)": the capture window
        bool memcpy = false;
        bool memset = false;
        int collective = -1;
    };
    std::unordered_map<StringId, NameClass> nameClass;
    auto classOfName = [&](StringId id) -> const NameClass & {
        auto it = nameClass.find(id);
        if (it != nameClass.end())
            return it->second;
        const QString name = nameOf(id);
        NameClass c;
        c.profilerSpan = name.startsWith(QLatin1String("PyTorch Profiler ("));
        c.memcpy = name.startsWith(QLatin1String("Memcpy"));
        c.memset = name.startsWith(QLatin1String("Memset"));
        c.collective = collectiveOperation(name);
        return nameClass.emplace(id, c).first->second;
    };
    // Slices per track, nested: leaves become nodes, the others containers.
    std::unordered_map<SliceId, int> nodeOf;
    std::unordered_map<SliceId, int> containerOf;
    std::vector<SliceId> syncMarkers; // Kineto cuda_sync slices on GPU streams
    std::unordered_map<SliceId, int> markerResource;
    {
        auto st = db.prepare(
            "SELECT s.track_id, s.id, s.ts + src.clock_offset_ns + src.align_ns, s.dur, s.name_id, "
            "coalesce(s.cat_id, 0) FROM slice s JOIN track t ON t.id = s.track_id "
            "JOIN source src ON src.id = t.source_id WHERE t.run_id = ? AND t.kind IN (?, ?, ?) "
            "AND s.dur > 0 ORDER BY s.track_id, s.ts, s.dur DESC");
        st.bind(1, run);
        st.bind(2, qint64(TrackKind::Thread));
        st.bind(3, qint64(TrackKind::Gpu));
        st.bind(4, qint64(TrackKind::Stream));
        TrackId current = -1;
        std::vector<Row> rows;
        auto flush = [&] {
            if (rows.empty())
                return;
            const int res = resourceOf.at(current);
            // Nesting: a slice inside the one below it on the stack is its child.
            std::vector<int> stack;
            std::vector<int> parent(rows.size(), -1);
            for (size_t i = 0; i < rows.size(); ++i) {
                while (!stack.empty() && rows[size_t(stack.back())].end <= rows[i].start)
                    stack.pop_back();
                if (!stack.empty()) {
                    parent[i] = stack.back();
                    rows[size_t(stack.back())].leaf = false;
                }
                stack.push_back(int(i));
            }
            Resource &r = g.m_resources[size_t(res)];
            std::vector<int> containerIndex(rows.size(), -1);
            for (size_t i = 0; i < rows.size(); ++i) {
                const Row &row = rows[i];
                const CatClass cat = classOfCat(row.cat);
                if (cat == CatSync) {
                    markerResource.emplace(row.id, res);
                    continue;
                }
                // The profiler's own span ("PyTorch Profiler (0)", category Trace) marks the
                // capture window, not work: as a node it would pin the end of every prediction.
                if (cat == CatTrace || classOfName(row.name).profilerSpan)
                    continue;
                // The innermost container around it (an index into m_containers as it is now;
                // renumbered when containers without nodes are dropped below).
                int enclosing = -1;
                for (int p = parent[i]; p >= 0 && enclosing < 0; p = parent[size_t(p)])
                    enclosing = containerIndex[size_t(p)];
                if (!row.leaf) {
                    Container c;
                    c.parent = enclosing;
                    c.slice = row.id;
                    c.name = row.name;
                    c.cat = row.cat;
                    c.resource = res;
                    c.start = row.start;
                    c.end = row.end;
                    containerIndex[i] = int(g.m_containers.size());
                    containerOf.emplace(row.id, containerIndex[i]);
                    g.m_containers.push_back(c);
                    continue;
                }
                Node n;
                n.slice = row.id;
                n.name = row.name;
                n.cat = row.cat;
                n.resource = res;
                n.container = enclosing;
                n.start = row.start;
                n.end = row.end;
                if (r.gpu) {
                    const NameClass &name = classOfName(row.name);
                    if (cat == CatMemcpy || name.memcpy)
                        n.kind = NodeKind::Memcpy;
                    else if (cat == CatMemset || name.memset)
                        n.kind = NodeKind::Memset;
                    else if ((n.collectiveOp = name.collective) >= 0)
                        n.kind = NodeKind::Collective;
                    else
                        n.kind = NodeKind::Kernel;
                } else {
                    n.kind = cat == CatRuntime ? NodeKind::Runtime : NodeKind::Cpu;
                }
                const int idx = int(g.m_nodes.size());
                nodeOf.emplace(row.id, idx);
                g.m_nodes.push_back(n);
                // Leaves nested inside one another (a partial overlap) keep start order.
                r.nodes.push_back(idx);
                for (int p = parent[i]; p >= 0; p = parent[size_t(p)]) {
                    const int ci = containerIndex[size_t(p)];
                    if (ci < 0)
                        continue;
                    Container &c = g.m_containers[size_t(ci)];
                    if (c.first < 0)
                        c.first = idx;
                    c.last = idx;
                }
            }
            rows.clear();
        };
        while (st.step()) {
            const TrackId track = st.int64(0);
            if (track != current) {
                flush();
                current = track;
            }
            const TimeNs ts = st.int64(2);
            rows.push_back({st.int64(1), ts, ts + st.int64(3), st.int64(4), st.int64(5)});
        }
        flush();
        if (!st.errorString().isEmpty())
            return fail(st.errorString());
    }
    if (g.m_nodes.empty())
        return fail(QStringLiteral("the run has no slices on CPU threads or GPU streams to replay"));
    // Containers whose nodes were all dropped (only cuda_sync inside) are not kept. A kept
    // container's enclosing ones hold its nodes too, so they are kept as well: renumbering
    // parent and container indices never meets a dropped one.
    std::vector<int> renumbered(g.m_containers.size(), -1);
    for (size_t c = 0, kept = 0; c < g.m_containers.size(); ++c)
        if (g.m_containers[c].first >= 0)
            renumbered[c] = int(kept++);
    g.m_containers.erase(std::remove_if(g.m_containers.begin(), g.m_containers.end(),
                                        [](const Container &c) { return c.first < 0; }),
                         g.m_containers.end());
    for (auto &c : g.m_containers)
        c.parent = c.parent >= 0 ? renumbered[size_t(c.parent)] : -1;
    for (auto &n : g.m_nodes)
        n.container = n.container >= 0 ? renumbered[size_t(n.container)] : -1;
    containerOf.clear(); // indices moved
    for (size_t c = 0; c < g.m_containers.size(); ++c)
        containerOf.emplace(g.m_containers[c].slice, int(c));
    for (const auto &n : g.m_nodes)
        nameOf(n.name);
    for (const auto &c : g.m_containers)
        nameOf(c.name);

    // Launch edges, and the launch time of each GPU node (for synchronisation).
    std::vector<TimeNs> launchedAt(g.m_nodes.size());
    std::vector<std::vector<int>> launched(g.m_nodes.size());
    for (size_t i = 0; i < g.m_nodes.size(); ++i)
        launchedAt[i] = g.m_nodes[i].start;
    std::vector<std::pair<SliceId, SliceId>> syncFlows, dataFlows;
    {
        auto st = db.prepare("SELECT f.kind, f.from_slice, f.to_slice FROM flow f "
                             "JOIN source src ON src.id = f.source_id WHERE src.run_id = ? "
                             "AND f.kind IN (?, ?, ?)");
        st.bind(1, run);
        st.bind(2, qint64(FlowKind::Launch));
        st.bind(3, qint64(FlowKind::Sync));
        st.bind(4, qint64(FlowKind::Data));
        while (st.step()) {
            const auto kind = FlowKind(st.int64(0));
            const SliceId from = st.int64(1), to = st.int64(2);
            if (kind == FlowKind::Sync) {
                syncFlows.emplace_back(from, to);
                continue;
            }
            if (kind == FlowKind::Data) {
                dataFlows.emplace_back(from, to);
                continue;
            }
            const auto a = nodeOf.find(from), b = nodeOf.find(to);
            if (a == nodeOf.end() || b == nodeOf.end())
                continue;
            const Node &call = g.m_nodes[size_t(a->second)];
            const Node &work = g.m_nodes[size_t(b->second)];
            if (!g.m_resources[size_t(work.resource)].gpu || g.m_resources[size_t(call.resource)].gpu)
                continue;
            const TimeNs lag = std::clamp<TimeNs>(work.start - call.start, 0, call.end - call.start);
            g.addEdge({a->second, b->second, EdgeKind::Launch, false, false, lag});
            g.m_nodes[size_t(b->second)].launcher = a->second;
            launchedAt[size_t(b->second)] = call.start;
            launched[size_t(a->second)].push_back(b->second);
        }
        if (!st.errorString().isEmpty())
            return fail(st.errorString());
    }

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
        if (auto m = markerResource.find(marker); m != markerResource.end())
            markerFor.emplace(call, m->second);
    QHash<StringId, SyncScope> scopes;
    for (size_t i = 0; i < g.m_nodes.size(); ++i) {
        const Node &n = g.m_nodes[i];
        if (n.kind != NodeKind::Runtime)
            continue;
        auto sc = scopes.constFind(n.name);
        if (sc == scopes.constEnd())
            sc = scopes.insert(n.name, syncScope(g.m_names.value(n.name)));
        const SyncScope scope = *sc;
        if (scope == SyncScope::Launched) {
            for (int w : launched[i])
                if (g.m_nodes[size_t(w)].end <= n.end + kSyncToleranceNs)
                    g.addEdge({w, int(i), EdgeKind::Sync, true, true, 0});
            continue;
        }
        if (scope != SyncScope::Device)
            continue;
        const Resource &thread = g.m_resources[size_t(n.resource)];
        if (auto m = markerFor.find(n.slice); m != markerFor.end() &&
                                              !g.m_resources[size_t(m->second)].nodes.empty()) {
            syncOn(int(i), m->second); // Kineto named the stream
            continue;
        }
        auto gpus = gpusOf.find({thread.source, thread.rank});
        if (gpus == gpusOf.end())
            continue;
        for (int res : gpus->second)
            syncOn(int(i), res);
    }

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
                if (group.size() < 2 || op == QLatin1String("SendRecv") || op == QLatin1String("Send") ||
                    op == QLatin1String("Recv"))
                    continue; // point-to-point: the peer is not known
                for (int a : group)
                    for (int b : group)
                        if (a != b && g.m_nodes[size_t(a)].start <= g.m_nodes[size_t(b)].end)
                            g.addEdge({a, b, EdgeKind::Collective, false, true, 0});
            }
        }
    }

    g.inferStreamWaits();
    g.inferThreadWaits();

    // Data edges of execution traces: producer op -> consumer op, between their leaves.
    for (const auto &[from, to] : dataFlows) {
        auto lastOf = [&](SliceId s) {
            if (auto n = nodeOf.find(s); n != nodeOf.end())
                return n->second;
            if (auto c = containerOf.find(s); c != containerOf.end())
                return g.m_containers[size_t(c->second)].last;
            return -1;
        };
        auto firstOf = [&](SliceId s) {
            if (auto n = nodeOf.find(s); n != nodeOf.end())
                return n->second;
            if (auto c = containerOf.find(s); c != containerOf.end())
                return g.m_containers[size_t(c->second)].first;
            return -1;
        };
        const int a = lastOf(from), b = firstOf(to);
        if (a >= 0 && b >= 0 && a != b && g.m_nodes[size_t(a)].end <= g.m_nodes[size_t(b)].start)
            g.addEdge({a, b, EdgeKind::Data, true, false, 0});
    }
    g.reorder();
    // Bytes: a copy's own "bytes" argument; a collective's message from the record_param_comms
    // op around its launch ("In msg nelems" x the dtype's size). For link models.
    {
        auto st = db.prepare("SELECT s.id, json_extract(s.args, '$.bytes') FROM slice s "
                             "JOIN track t ON t.id = s.track_id WHERE t.run_id = ? AND t.kind IN (?, ?) "
                             "AND s.args LIKE '%\"bytes\"%'");
        st.bind(1, run);
        st.bind(2, qint64(TrackKind::Gpu));
        st.bind(3, qint64(TrackKind::Stream));
        while (st.step())
            if (auto n = nodeOf.find(st.int64(0)); n != nodeOf.end() && !st.isNull(1))
                g.m_nodes[size_t(n->second)].bytes = st.int64(1);
        auto comms = db.prepare(
            "SELECT s.id, json_extract(s.args, '$.\"In msg nelems\"'), json_extract(s.args, '$.dtype') "
            "FROM slice s JOIN track t ON t.id = s.track_id JOIN string n ON n.id = s.name_id "
            "WHERE t.run_id = ? AND t.kind = ? AND n.value = 'record_param_comms' AND s.args IS NOT NULL");
        comms.bind(1, run);
        comms.bind(2, qint64(TrackKind::Thread));
        while (comms.step()) {
            const auto c = containerOf.find(comms.int64(0));
            if (c == containerOf.end() || comms.isNull(1))
                continue;
            const QString dtype = comms.text(2).toLower();
            const qint64 size = dtype.contains(QLatin1String("double")) || dtype == QLatin1String("long") ? 8
                                : dtype.contains(QLatin1String("half")) || dtype.contains(QLatin1String("bfloat")) ? 2
                                : dtype == QLatin1String("byte") || dtype == QLatin1String("char") ||
                                        dtype == QLatin1String("bool")
                                    ? 1
                                    : 4;
            const Container &con = g.m_containers[size_t(c->second)];
            const auto &order = g.m_resources[size_t(con.resource)].nodes;
            for (int k = g.m_position[size_t(con.first)]; k <= g.m_position[size_t(con.last)]; ++k)
                for (int w : launched[size_t(order[size_t(k)])])
                    if (g.m_nodes[size_t(w)].kind == NodeKind::Collective)
                        g.m_nodes[size_t(w)].bytes = comms.int64(1) * size;
        }
    }
    g.measure();
    return g;
}

int DependencyGraph::latestEndBefore(const std::vector<int> &siblings, int self, TimeNs at, TimeNs after,
                                     TimeNs window) const
{
    int best = -1;
    for (int other : siblings) {
        if (other == self)
            continue;
        // The last node of that resource ending at or before `at`.
        const auto &os = m_resources[size_t(other)].nodes;
        auto it = std::upper_bound(os.begin(), os.end(), at,
                                   [&](TimeNs t, int id) { return t < m_nodes[size_t(id)].end; });
        if (it == os.begin())
            continue;
        const int cand = *(it - 1);
        const TimeNs end = m_nodes[size_t(cand)].end;
        if (end > after && at - end <= window && (best < 0 || end > m_nodes[size_t(best)].end))
            best = cand;
    }
    return best;
}

void DependencyGraph::inferThreadWaits()
{
    constexpr TimeNs kWindow = 250'000; // Python waking up a thread takes tens to hundreds of us
    constexpr TimeNs kIdle = 5'000;
    std::map<std::tuple<SourceId, int, QString>, std::vector<int>> processes;
    for (size_t r = 0; r < m_resources.size(); ++r)
        if (!m_resources[r].gpu)
            processes[{m_resources[r].source, m_resources[r].rank, m_resources[r].pid}].push_back(int(r));
    // A node that opens slices (NllLossBackward around its first call) began when the
    // outermost of them did: that is the moment matched against the sibling threads.
    std::unordered_map<int, TimeNs> opened;
    for (const auto &c : m_containers)
        if (auto [it, fresh] = opened.emplace(c.first, c.start); !fresh)
            it->second = std::min(it->second, c.start);
    for (const auto &[key, threads] : processes) {
        if (threads.size() < 2)
            continue;
        for (int res : threads) {
            const auto &ids = m_resources[size_t(res)].nodes;
            for (size_t k = 0; k < ids.size(); ++k) {
                const Node &n = m_nodes[size_t(ids[k])];
                const auto o = opened.find(ids[k]);
                const TimeNs began = o != opened.end() ? o->second : n.start;
                // A thread's first op waits for nothing on its thread: only a sibling explains it.
                const TimeNs ready = k ? m_nodes[size_t(ids[k - 1])].end : std::numeric_limits<TimeNs>::min();
                if (k && n.start - ready <= kIdle)
                    continue;
                const int best = latestEndBefore(threads, res, began, ready, kWindow);
                if (best >= 0)
                    addEdge({best, ids[k], EdgeKind::ThreadWait, true, false, n.start - m_nodes[size_t(best)].end});
            }
        }
    }
}

void DependencyGraph::inferStreamWaits()
{
    constexpr TimeNs kWindow = 10'000;
    // The ready time of each GPU node from its stream and its launch (measured).
    std::vector<TimeNs> launchReady(m_nodes.size(), std::numeric_limits<TimeNs>::min());
    for (const auto &e : m_edges)
        if (e.kind == EdgeKind::Launch)
            launchReady[size_t(e.to)] = std::max(launchReady[size_t(e.to)], m_nodes[size_t(e.from)].start + e.lag);
    std::map<std::pair<SourceId, std::pair<int, QString>>, std::vector<int>> devices;
    for (size_t r = 0; r < m_resources.size(); ++r)
        if (m_resources[r].gpu)
            devices[{m_resources[r].source, {m_resources[r].rank, m_resources[r].pid}}].push_back(int(r));
    for (const auto &[key, streams] : devices) {
        if (streams.size() < 2)
            continue;
        for (int res : streams) {
            const auto &ids = m_resources[size_t(res)].nodes;
            for (size_t k = 0; k < ids.size(); ++k) {
                const Node &n = m_nodes[size_t(ids[k])];
                TimeNs ready = std::max(launchReady[size_t(ids[k])], m_origin);
                if (k > 0)
                    ready = std::max(ready, m_nodes[size_t(ids[k - 1])].end);
                if (n.start - ready <= 1'000)
                    continue; // explained by its stream or launch
                const int best = latestEndBefore(streams, res, n.start, ready, kWindow);
                if (best >= 0)
                    addEdge({best, ids[k], EdgeKind::StreamWait, true, false, n.start - m_nodes[size_t(best)].end});
            }
        }
    }
}

void DependencyGraph::reorder()
{
    m_position.assign(m_nodes.size(), 0);
    for (const auto &r : m_resources)
        for (size_t k = 0; k < r.nodes.size(); ++k)
            m_position[size_t(r.nodes[k])] = int(k);
    const size_t points = 2 * m_nodes.size();
    m_in.assign(points, {});
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    Graph graph(points);
    for (size_t i = 0; i < m_nodes.size(); ++i)
        boost::add_edge(2 * i, 2 * i + 1, graph);
    for (const auto &r : m_resources)
        for (size_t k = 1; k < r.nodes.size(); ++k) {
            const int from = 2 * r.nodes[k - 1] + 1, to = 2 * r.nodes[k];
            boost::add_edge(size_t(from), size_t(to), graph);
            m_in[size_t(to)].push_back({from, 0});
        }
    for (const auto &e : m_edges) {
        const int from = 2 * e.from + (e.fromEnd ? 1 : 0), to = 2 * e.to + (e.toEnd ? 1 : 0);
        boost::add_edge(size_t(from), size_t(to), graph);
        m_in[size_t(to)].push_back({from, e.lag});
    }
    std::vector<size_t> reversed;
    reversed.reserve(points);
    boost::topological_sort(graph, std::back_inserter(reversed));
    m_order.assign(reversed.rbegin(), reversed.rend());
}

int DependencyGraph::addResource(Resource r)
{
    r.nodes.clear();
    m_resources.push_back(std::move(r));
    return int(m_resources.size()) - 1;
}

int DependencyGraph::insertNode(Node n, int after)
{
    const int idx = int(m_nodes.size());
    auto &order = m_resources[size_t(n.resource)].nodes;
    auto at = order.begin();
    if (after >= 0)
        at = std::find(order.begin(), order.end(), after) + 1;
    order.insert(at, idx);
    m_nodes.push_back(n);
    return idx;
}

StringId DependencyGraph::syntheticName(const QString &name)
{
    for (auto it = m_names.cbegin(); it != m_names.cend(); ++it)
        if (it.key() < 0 && it.value() == name)
            return it.key();
    StringId id = -1;
    for (auto it = m_names.cbegin(); it != m_names.cend(); ++it)
        id = std::min(id, it.key() - 1);
    m_names.insert(id, name);
    return id;
}

void DependencyGraph::measure()
{
    m_origin = std::numeric_limits<TimeNs>::max();
    m_end = std::numeric_limits<TimeNs>::min();
    for (const auto &n : m_nodes) {
        m_origin = std::min(m_origin, n.start);
        m_end = std::max(m_end, n.end);
    }
    // Slack and work against the measured times (every edge was checked against them, so only
    // resource order can be contradicted: leaves overlapping on one thread or stream).
    auto measured = [&](int point) {
        const Node &n = m_nodes[size_t(point / 2)];
        return point % 2 ? n.end : n.start;
    };
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        Node &n = m_nodes[i];
        TimeNs ready = m_origin;
        for (const In &in : m_in[2 * i])
            ready = std::max(ready, measured(in.from) + in.lag);
        if (n.start < ready)
            ++m_violations;
        n.slack = std::max<TimeNs>(0, n.start - ready);
        TimeNs begin = n.start;
        for (const In &in : m_in[2 * i + 1])
            begin = std::max(begin, measured(in.from) + in.lag);
        n.work = std::max<TimeNs>(0, n.end - begin);
    }
}

std::vector<int> DependencyGraph::iterations() const
{
    static const QRegularExpression step(QStringLiteral("^ProfilerStep#\\d+$"));
    int lowest = INT_MAX;
    for (const auto &c : m_containers)
        if (step.match(m_names.value(c.name)).hasMatch())
            lowest = std::min(lowest, std::max(m_resources[size_t(c.resource)].rank, 0));
    std::vector<int> out;
    for (size_t i = 0; i < m_containers.size(); ++i) {
        const auto &c = m_containers[i];
        if (std::max(m_resources[size_t(c.resource)].rank, 0) == lowest &&
            step.match(m_names.value(c.name)).hasMatch())
            out.push_back(int(i));
    }
    std::sort(out.begin(), out.end(), [&](int a, int b) {
        return m_containers[size_t(a)].start < m_containers[size_t(b)].start;
    });
    return out;
}

} // namespace gml::sim
