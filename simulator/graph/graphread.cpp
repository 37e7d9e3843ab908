// SPDX-License-Identifier: GPL-3.0-or-later
// DependencyGraph::readNodes: a run's slices read from their chunks into nodes and containers.
#include "graphbuild.h"
#include "physical.h"
#include "projecttime.h"
#include "trackrecords.h"

#include "clockalignment.h"
#include "clusterproject.h"
#include "collectives.h"
#include "project.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace gml::sim {

namespace {

// The integer a JSON value's text spells ("123", "\"123\"", "1.5e3"), nullopt otherwise.
std::optional<qint64> jsonInteger(std::string_view text)
{
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
        text = text.substr(1, text.size() - 2);
    qint64 v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size())
        return v;
    double d = 0;
    const auto [dend, dec] = std::from_chars(text.data(), text.data() + text.size(), d);
    if (dec == std::errc() && dend == text.data() + text.size() && std::isfinite(d) &&
        std::abs(d) < 9e18)
        return qint64(d);
    return std::nullopt;
}

} // namespace

namespace {

// A collective's message as its args record it (a record_param_comms op's, or since 2024 the
// NCCL kernel's own), by the collectives report's conventions (collectiveMessageBytes).
std::optional<qint64> messageBytes(slicestore::TrackReader &reader, const slicestore::Row &x,
                                   bool allGather)
{
    auto count = [&](const char *key) -> std::optional<qint64> {
        const auto v = reader.arg(x, key);
        return v ? jsonInteger(*v) : std::nullopt;
    };
    auto text = [&](const char *key) {
        const auto v = reader.arg(x, key);
        QString t = v ? QString::fromUtf8(v->data(), qsizetype(v->size())) : QString();
        if (t.size() >= 2 && t.startsWith(QLatin1Char('"')))
            t = t.mid(1, t.size() - 2);
        return t;
    };
    if (!allGather) { // a record_param_comms op names its collective
        const QString name = text("Collective name").toLower();
        allGather =
            name.contains(QLatin1String("allgather")) || name.contains(QLatin1String("all_gather"));
    }
    return collectiveMessageBytes(allGather, count("In msg nelems"), count("Out msg nelems"),
                                  text("dtype"));
}

} // namespace

// readNodes' work on the graph: names and what they say about a slice, read once per distinct
// string; a slice's args; a resource's rows nested into nodes and containers.
struct DependencyGraph::NodeReading
{
    NodeReading(DependencyGraph &g, Project &project, BuildReading &reading, StringId commsName)
        : g(g), project(project), reading(reading), commsName(commsName)
    {
    }

    DependencyGraph &g;
    Project &project;
    BuildReading &reading;
    StringId commsName = 0; // record_param_comms (0: not in the project)
    // What a category or a name says about a slice (sliceclass.h), worked out once per distinct
    // string (the rows of a large run share a few hundred of them).
    std::unordered_map<StringId, CategoryClass> catClass;
    std::unordered_map<StringId, NameClass> nameClasses;

    QString nameOf(StringId id)
    {
        auto it = g.m_names.constFind(id);
        if (it == g.m_names.constEnd())
            it = g.m_names.insert(id, project.string(id));
        return *it;
    }
    CategoryClass classOfCat(StringId id)
    {
        auto it = catClass.find(id);
        if (it == catClass.end())
            it = catClass.emplace(id, categoryClass(id ? nameOf(id) : QString()))
                     .first; // name(cat) serves category selectors
        return it->second;
    }
    const NameClass &classOfName(StringId id)
    {
        auto it = nameClasses.find(id);
        if (it == nameClasses.end())
            it = nameClasses.emplace(id, nameClass(nameOf(id))).first;
        return it->second;
    }
    // The args the graph reads: a copy's "bytes"; a record_param_comms op's message ("In msg
    // nelems" x the dtype's size), applied to the collectives it launched once launches are
    // known; an op's "flops".
    void readArgs(slicestore::TrackReader &reader, const slicestore::Row &x, TimeNs start, int res,
                  bool gpu);
    // The rows of resource `res`: its cuda_sync markers set aside, the rest nested (leaves
    // become nodes, the others containers).
    void nest(int res, std::vector<NestRow> &rows);
    // Containers whose nodes were all dropped (only cuda_sync inside) are not kept.
    void dropEmptyContainers();
};

void DependencyGraph::NodeReading::readArgs(slicestore::TrackReader &reader,
                                            const slicestore::Row &x, TimeNs start, int res,
                                            bool gpu)
{
    if (gpu) {
        if (const auto v = reader.arg(x, "bytes"))
            if (const auto b = jsonInteger(*v))
                reading.bytesOf.emplace(x.id, *b);
        // A collective kernel's own message (Kineto records it on NCCL kernels since 2024):
        // what its record_param_comms op says, when the op is not in the trace.
        if (const int op = classOfName(x.name).collective; op >= 0)
            if (const auto bytes = messageBytes(
                    reader, x, collectiveOperations()[op] == QLatin1String("AllGather")))
                reading.bytesOf.emplace(x.id, *bytes);
    } else if (const auto f = reader.arg(x, "flops")) {
        // A count outside physical bounds is dropped here; OpCostScan marks its op
        // (outOfDomain) and the analysis warns.
        if (const auto v = physical::recordedFlops(*f))
            g.m_flops.push_back({start, *v, res});
    } else if (x.name == commsName) {
        if (const auto bytes = messageBytes(reader, x, false))
            reading.comms.push_back({x.id, *bytes});
    }
}

void DependencyGraph::NodeReading::nest(int res, std::vector<NestRow> &rows)
{
    // Kineto's cuda_sync markers are not work: kept aside before nesting, so a copy that a
    // marker overlaps stays a leaf (as an enclosing "container" of nothing but a marker it was
    // dropped, and with it 55 ms of copies of the AlexNet trace).
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [&](const NestRow &row) {
                                  if (classOfCat(row.cat) != CategoryClass::Sync)
                                      return false;
                                  reading.markerResource.emplace(row.id, res);
                                  return true;
                              }),
               rows.end());
    Resource &r = g.m_resources[size_t(res)];
    std::vector<int> parent;
    nestRows(rows, parent);
    std::vector<int> containerIndex(rows.size(), -1);
    for (size_t i = 0; i < rows.size(); ++i) {
        const NestRow &row = rows[i];
        const CategoryClass cat = classOfCat(row.cat);
        // The profiler's own span ("PyTorch Profiler (0)", category Trace) marks the capture
        // window, not work: as a node it would pin the end of every prediction.
        if (cat == CategoryClass::Trace || classOfName(row.name).profilerSpan)
            continue;
        // The innermost container around it (an index into m_containers as it is now;
        // renumbered when containers without nodes are dropped).
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
            switch (gpuWork(cat, classOfName(row.name))) {
            case GpuWork::Memcpy:
                n.kind = NodeKind::Memcpy;
                break;
            case GpuWork::Memset:
                n.kind = NodeKind::Memset;
                break;
            case GpuWork::Collective:
                n.kind = NodeKind::Collective;
                n.collectiveOp = classOfName(row.name).collective;
                break;
            case GpuWork::Kernel:
                n.kind = NodeKind::Kernel;
                break;
            }
        } else {
            n.kind = cat == CategoryClass::Runtime ? NodeKind::Runtime : NodeKind::Cpu;
        }
        const int idx = int(g.m_nodes.size());
        reading.sliceMap.set(row.id, idx);
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
}

void DependencyGraph::NodeReading::dropEmptyContainers()
{
    // A kept container's enclosing ones hold its nodes too, so they are kept as well:
    // renumbering parent and container indices never meets a dropped one.
    std::vector<int> renumbered(g.m_containers.size(), -1);
    for (size_t c = 0, kept = 0; c < g.m_containers.size(); ++c) {
        if (g.m_containers[c].first >= 0)
            renumbered[c] = int(kept++);
        reading.sliceMap.set(g.m_containers[c].slice,
                             renumbered[c] >= 0 ? -2 - renumbered[c] : SliceMap::kNone);
    }
    g.m_containers.erase(std::remove_if(g.m_containers.begin(), g.m_containers.end(),
                                        [](const Container &c) { return c.first < 0; }),
                         g.m_containers.end());
    for (auto &c : g.m_containers)
        c.parent = c.parent >= 0 ? renumbered[size_t(c.parent)] : -1;
    for (auto &n : g.m_nodes)
        n.container = n.container >= 0 ? renumbered[size_t(n.container)] : -1;
}

// The nodes and containers of a run: its CPU threads' and GPU streams' slices nested per
// track (leaves are nodes, the others containers), with what the edges need kept in `reading`.
bool DependencyGraph::readNodes(Project &project, RunId run, BuildReading &reading, QString *error)
{
    DependencyGraph &g = *this;
    auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    // Resources: CPU threads and GPU streams (and GPU rows that hold work directly).
    std::unordered_map<TrackId, int> resourceOf;
    QString readError;
    const std::vector<TrackRow> tracks = tracksOfRun(project, run, &readError);
    if (!readError.isEmpty())
        return fail(readError);
    for (const TrackRow &t : tracks) {
        if ((t.kind != TrackKind::Thread && t.kind != TrackKind::Gpu &&
             t.kind != TrackKind::Stream) ||
            t.sliceCount <= 0)
            continue;
        Resource r;
        r.track = t.id;
        r.gpu = t.kind != TrackKind::Thread;
        r.name = t.name;
        r.rank = t.rank;
        r.pid = t.pid;
        r.source = t.source;
        resourceOf.emplace(r.track, int(g.m_resources.size()));
        g.m_resources.push_back(std::move(r));
    }
    for (const auto &[source, offset] : sourceOffsets(project, run, &readError))
        reading.offsetOf.emplace(source, offset);
    if (!readError.isEmpty())
        return fail(readError);
    NodeReading nodes(g, project, reading,
                      existingString(project, QStringLiteral("record_param_comms")));
    OpCostScan opCosts(project);
    {
        // Slices per track, nested. Chunks are read directly (slicestore::TrackReader): through
        // the `slice` table a row costs more than all the work below.
        slicestore::TrackReader reader(project.db());
        std::vector<NestRow> rows;
        // Slices per resource (an upper bound of its nodes and containers): reserved once, so the
        // arrays are not copied as they grow.
        {
            qint64 total = 0, largest = 0;
            for (const TrackRow &t : tracks)
                if (resourceOf.count(t.id)) {
                    total += t.sliceCount;
                    largest = std::max(largest, t.sliceCount);
                }
            g.m_nodes.reserve(size_t(total));
            g.m_containers.reserve(size_t(total) / 2);
            rows.reserve(size_t(largest));
        }
        std::vector<StringId> unnamed;
        std::vector<char> requested; // by string id: asked for already (ids are small and dense)
        for (size_t res = 0; res < g.m_resources.size(); ++res) {
            const Resource &r = g.m_resources[res];
            const TimeNs offset =
                reading.offsetOf.count(r.source) ? reading.offsetOf.at(r.source) : 0;
            const bool gpu = r.gpu;
            const bool ok =
                readNestRows(reader, r.track, true, offset, rows,
                             [&](const slicestore::Row &x, const NestRow &row) {
                                 if (!gpu)
                                     opCosts.visit(reader, x, row.start, row.end, int(res));
                                 nodes.readArgs(reader, x, row.start, int(res), gpu);
                             });
            if (!ok)
                return fail(reader.errorString());
            if (rows.empty())
                continue;
            // Names read in one query per resource rather than one per name.
            unnamed.clear();
            unseenStrings(rows, requested, unnamed);
            project.strings(unnamed, g.m_names);
            for (const StringId id : unnamed)
                if (!g.m_names.contains(id))
                    g.m_names.insert(id, QString());
            nodes.nest(int(res), rows);
        }
    }
    if (g.m_nodes.empty())
        return fail(
            cluster::isClusterProject(project)
                ? QStringLiteral("a cluster project holds no slice: a run's graph and replays are "
                                 "built on the shard "
                                 "of one of its ranks (grademl analyze PROJECT --rank N names it; "
                                 "open that shard), "
                                 "its cross-rank analyses by grademl analyze PROJECT")
                : QStringLiteral("the run has no slices on CPU threads or GPU streams to replay"));
    nodes.dropEmptyContainers();
    for (const auto &n : g.m_nodes)
        nodes.nameOf(n.name);
    for (const auto &c : g.m_containers)
        nodes.nameOf(c.name);
    g.keepOpCosts(opCosts);
    return true;
}

void DependencyGraph::keepOpCosts(OpCostScan &scan)
{
    std::map<int, std::vector<TimeNs>> recordedAt;
    for (const auto &f : m_flops)
        recordedAt[f.resource].push_back(f.start);
    for (auto &[r, v] : recordedAt)
        std::sort(v.begin(), v.end());
    m_opCosts = scan.finish(recordedAt);
    for (const CostedOp &c : m_opCosts)
        if (c.modelFlops)
            m_flops.push_back({c.start, c.flops, c.thread});
}

DependencyGraph::OpCostGaps DependencyGraph::opCostGaps() const
{
    OpCostGaps gaps;
    for (const CostedOp &c : m_opCosts)
        if (!c.known) {
            ++gaps.ops;
            ++gaps.why[QStringLiteral("%1: %2").arg(name(c.name), c.missing)];
        }
    return gaps;
}

} // namespace gml::sim
