// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis.h"

#include "clockalignment.h"
#include "executionmodel.h"
#include "gputime.h"
#include "timeformat.h"
#include "transforms.h"

#include <QRegularExpression>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <unordered_map>

namespace gml::sim {

namespace {

TimeNs percentile(std::vector<TimeNs> &sorted, double p)
{
    if (sorted.empty())
        return 0;
    const size_t k = std::min(sorted.size() - 1, size_t(p * double(sorted.size() - 1) + 0.5));
    return sorted[k];
}

enum class Work { Compute, Communication, Copy };

Work workOf(NodeKind kind)
{
    switch (kind) {
    case NodeKind::Collective:
        return Work::Communication;
    case NodeKind::Memcpy:
    case NodeKind::Memset:
        return Work::Copy;
    default:
        return Work::Compute;
    }
}

// A GPU: the streams of one device of one process.
struct GpuDevice
{
    QString label;
    int rank = -1;
    SourceId source = 0;
    std::vector<int> resources;
    std::vector<int> nodes;      // its GPU nodes, by start
    std::vector<TimeNs> nodeEnd; // the latest end among nodes[0..k]: where a window's nodes begin
    std::vector<int> containers; // GPU slices that hold others (not annotations), by start
    std::vector<TimeNs> containerEnd;
};

class Analyzer
{
public:
    Analyzer(const DependencyGraph &g, const AnalysisScope &scope) : g(g)
    {
        const auto &nodes = g.nodes();
        const auto &resources = g.resources();
        for (auto &streams : g.gpuDevices()) {
            const Resource &res = resources[size_t(streams.front())];
            if (scope.rank >= 0 && res.rank != scope.rank)
                continue;
            GpuDevice d;
            d.rank = res.rank;
            d.source = res.source;
            d.label =
                (res.rank >= 0 ? QStringLiteral("rank %1 · ").arg(res.rank) : QString()) +
                QStringLiteral("GPU %1").arg(res.pid.isEmpty() ? QStringLiteral("?") : res.pid);
            d.resources = std::move(streams);
            devices.push_back(std::move(d));
        }
        // By rank (rank 2 before rank 10, whatever order the files were imported in), then as read.
        std::stable_sort(devices.begin(), devices.end(),
                         [](const GpuDevice &a, const GpuDevice &b) { return a.rank < b.rank; });
        std::unordered_map<int, size_t> deviceOfResource;
        for (size_t k = 0; k < devices.size(); ++k)
            for (int r : devices[k].resources)
                deviceOfResource.emplace(r, k);
        // GPU slices that hold others and are work themselves; a range the profiler draws on
        // the GPU timeline (gpu_user_annotation) spans the gaps between its kernels, not busy.
        std::unordered_map<StringId, bool> annotation;
        for (size_t c = 0; c < g.containers().size(); ++c) {
            const Container &con = g.containers()[c];
            const auto it = deviceOfResource.find(con.resource);
            if (it == deviceOfResource.end())
                continue;
            auto [a, fresh] = annotation.try_emplace(con.cat, false);
            if (fresh)
                a->second = isGpuAnnotationCategory(g.name(con.cat));
            if (!a->second)
                devices[it->second].containers.push_back(int(c));
        }
        for (auto &d : devices) {
            for (int r : d.resources)
                d.nodes.insert(d.nodes.end(), resources[size_t(r)].nodes.begin(),
                               resources[size_t(r)].nodes.end());
            std::sort(d.nodes.begin(), d.nodes.end(), [&](int a, int b) {
                return nodes[size_t(a)].start < nodes[size_t(b)].start;
            });
            TimeNs latest = std::numeric_limits<TimeNs>::min();
            for (int n : d.nodes)
                d.nodeEnd.push_back(latest = std::max(latest, nodes[size_t(n)].end));
            const auto &cs = g.containers();
            std::sort(d.containers.begin(), d.containers.end(),
                      [&](int a, int b) { return cs[size_t(a)].start < cs[size_t(b)].start; });
            latest = std::numeric_limits<TimeNs>::min();
            for (int c : d.containers)
                d.containerEnd.push_back(latest = std::max(latest, cs[size_t(c)].end));
        }
        streamWaited.assign(nodes.size(), 0);
        for (const Edge &e : g.edges())
            if (e.kind == EdgeKind::StreamWait)
                streamWaited[size_t(e.to)] = 1;
        // Data loading on each process's threads (DataLoader, __next__, fetch ranges).
        std::map<std::tuple<SourceId, int, QString>, Intervals> loading;
        forEachDataLoadingRange(g, [&](int resource, TimeNs start, TimeNs end) {
            const Resource &r = resources[size_t(resource)];
            loading[{r.source, r.rank, r.pid}].emplace_back(start, end);
        });
        for (auto &[key, list] : loading)
            dataLoading.emplace(key, unite(std::move(list)));
    }

    // The breakdown of device d over [a, b); with `details`, the idle split and the streams.
    GpuBreakdown breakdown(const GpuDevice &d, TimeNs a, TimeNs b, bool details)
    {
        const auto &nodes = g.nodes();
        GpuBreakdown out;
        out.device = d.label;
        out.rank = d.rank;
        out.start = a;
        out.end = b;
        out.time.window = std::max<TimeNs>(0, b - a);
        Intervals compute, communication, copies;
        std::vector<Intervals> perStream(d.resources.size());
        std::unordered_map<int, size_t> streamIndex;
        for (size_t k = 0; k < d.resources.size(); ++k)
            streamIndex.emplace(d.resources[k], k);
        auto add = [&](int resource, NodeKind kind, TimeNs s, TimeNs e) {
            s = std::max(s, a);
            e = std::min(e, b);
            if (e <= s)
                return;
            (workOf(kind) == Work::Compute         ? compute
             : workOf(kind) == Work::Communication ? communication
                                                   : copies)
                .emplace_back(s, e);
            if (details)
                perStream[streamIndex.at(resource)].emplace_back(s, e);
        };
        // The nodes that overlap [a, b): from the first whose prefix of ends passes a, to the
        // last that starts before b.
        const size_t from =
            size_t(std::upper_bound(d.nodeEnd.begin(), d.nodeEnd.end(), a) - d.nodeEnd.begin());
        const auto last = std::lower_bound(d.nodes.begin(), d.nodes.end(), b, [&](int n, TimeNs t) {
            return nodes[size_t(n)].start < t;
        });
        for (auto it = d.nodes.begin() + qsizetype(std::min(from, d.nodes.size())); it < last;
             ++it) {
            const Node &n = nodes[size_t(*it)];
            add(n.resource, n.kind, n.start, n.end);
        }
        // A GPU slice nested in another (a container on a stream) is busy time too, counted as
        // the kind of the first node inside it.
        const auto &cs = g.containers();
        for (size_t k = size_t(std::upper_bound(d.containerEnd.begin(), d.containerEnd.end(), a) -
                               d.containerEnd.begin());
             k < d.containers.size() && cs[size_t(d.containers[k])].start < b; ++k) {
            const Container &c = cs[size_t(d.containers[k])];
            if (c.first >= 0)
                add(c.resource, nodes[size_t(c.first)].kind, c.start, c.end);
        }
        GpuPartition part = partitionGpuTime(out.time.window, std::move(compute),
                                             std::move(communication), std::move(copies));
        out.time = part.time;
        out.communicationTotal = part.communicationTotal;
        out.communicationOverlapped = part.communicationOverlapped;
        if (!details)
            return out;
        for (size_t k = 0; k < d.resources.size(); ++k)
            out.streams.push_back({g.resources()[size_t(d.resources[k])].name,
                                   length(unite(std::move(perStream[k])))});
        // Idle gaps, each split by the work that ended it; the longest kept.
        constexpr size_t kKept = 20;
        auto longer = [](const IdleGap &x, const IdleGap &y) { return x.length() > y.length(); };
        auto keep = [&](const IdleGap &gap) {
            auto &kept = out.longestGaps;
            if (kept.size() == kKept && !longer(gap, kept.front()))
                return;
            kept.push_back(gap);
            std::push_heap(kept.begin(), kept.end(), longer);
            if (kept.size() > kKept) {
                std::pop_heap(kept.begin(), kept.end(), longer);
                kept.pop_back();
            }
        };
        TimeNs at = a;
        auto gap = [&](TimeNs g0, TimeNs g1) {
            if (g1 <= g0)
                return;
            ++out.idleGaps;
            IdleGap gap = classify(d, g0, g1);
            keep(gap);
            switch (gap.cause) {
            case IdleCause::Launch:
                out.idle.launch += gap.length();
                break;
            case IdleCause::DataLoading:
                out.idle.dataLoading += gap.length();
                break;
            case IdleCause::Sync:
                out.idle.sync += gap.length();
                break;
            case IdleCause::OtherStream:
                out.idle.otherStream += gap.length();
                break;
            case IdleCause::Gpu:
                out.idle.gpu += gap.length();
                break;
            case IdleCause::Unattributed:
                out.idle.unattributed += gap.length();
                break;
            }
        };
        for (const auto &[s, e] : part.busy) {
            gap(at, s);
            at = e;
        }
        if (at < b) {
            out.idle.unattributed += b - at, ++out.idleGaps;
            keep({at, b, IdleCause::Unattributed, -1});
        }
        std::sort(out.longestGaps.begin(), out.longestGaps.end(), longer);
        out.queue = queue(d, a, b);
        return out;
    }

    // The launch queue over [a, b) in 100 buckets: +1 when a launch call starts, -1 when the
    // work it launched ends.
    std::vector<QueueSample> queue(const GpuDevice &d, TimeNs a, TimeNs b)
    {
        const auto &nodes = g.nodes();
        std::vector<std::pair<TimeNs, int>> steps;
        for (int n : d.nodes) {
            const Node &w = nodes[size_t(n)];
            if (w.launcher < 0 || w.end <= a || nodes[size_t(w.launcher)].start >= b)
                continue;
            steps.emplace_back(nodes[size_t(w.launcher)].start, +1);
            steps.emplace_back(w.end, -1);
        }
        std::sort(steps.begin(), steps.end());
        constexpr int kBuckets = 100;
        std::vector<QueueSample> out(kBuckets);
        const double width = double(b - a) / kBuckets;
        for (int k = 0; k < kBuckets; ++k) {
            out[size_t(k)].start = a + TimeNs(width * k);
            out[size_t(k)].end = k + 1 == kBuckets ? b : a + TimeNs(width * (k + 1));
        }
        int depth = 0;
        TimeNs at = a;
        auto account = [&](TimeNs until) { // depth holds over [at, until)
            until = std::min(until, b);
            while (at < until) {
                const int k = std::min(kBuckets - 1, int(double(at - a) / width));
                QueueSample &q = out[size_t(k)];
                const TimeNs e = std::min(until, q.end);
                q.most = std::max(q.most, depth);
                if (q.end > q.start)
                    q.mean += double(depth) * double(e - at) / double(q.end - q.start);
                at = std::max(e, at + 1);
            }
        };
        for (const auto &[t, delta] : steps) {
            if (t > at)
                account(t);
            depth += delta;
            if (t >= at && t < b) {
                const int k = std::min(kBuckets - 1, int(double(std::max(t, a) - a) / width));
                out[size_t(k)].most = std::max(out[size_t(k)].most, depth);
            }
        }
        account(b);
        return out;
    }

    // What ended the idle gap [g0, g1) of device d.
    IdleGap classify(const GpuDevice &d, TimeNs g0, TimeNs g1)
    {
        const auto &nodes = g.nodes();
        IdleGap gap{g0, g1, IdleCause::Unattributed, -1};
        const auto it = std::lower_bound(d.nodes.begin(), d.nodes.end(), g1, [&](int n, TimeNs t) {
            return nodes[size_t(n)].start < t;
        });
        if (it == d.nodes.end() || nodes[size_t(*it)].start != g1 ||
            nodes[size_t(*it)].launcher < 0)
            return gap;
        gap.work = *it;
        const Node &work = nodes[size_t(*it)];
        const Node &call = nodes[size_t(work.launcher)];
        if (call.start < g0) { // queued before the gap: the GPU waited on something else
            gap.cause = streamWaited[size_t(*it)] || work.kind == NodeKind::Collective
                            ? IdleCause::OtherStream
                            : IdleCause::Gpu;
            return gap;
        }
        const Resource &thread = g.resources()[size_t(call.resource)];
        // Loading data while the GPU waited for the launch (first: a step that synchronises and
        // then loads the next batch waits for the batch).
        if (const auto l = dataLoading.find({thread.source, thread.rank, thread.pid});
            l != dataLoading.end()) {
            const TimeNs w0 = g0, w1 = std::max(g0 + 1, call.start);
            if (2 * overlap(l->second, w0, w1) >= w1 - w0) {
                gap.cause = IdleCause::DataLoading;
                return gap;
            }
        }
        // Blocked in a synchronising call when the GPU ran dry: the last node of the launching
        // thread to start at or before the gap's start.
        const auto &ids = thread.nodes;
        const auto before = std::upper_bound(ids.begin(), ids.end(), g0, [&](TimeNs t, int n) {
            return t < nodes[size_t(n)].start;
        });
        if (before != ids.begin()) {
            const Node &prev = nodes[size_t(*(before - 1))];
            if (prev.synchronising && prev.end >= g0 - 1000) {
                gap.cause = IdleCause::Sync;
                return gap;
            }
        }
        gap.cause = IdleCause::Launch;
        return gap;
    }

    const DependencyGraph &g;
    std::vector<GpuDevice> devices;
    std::vector<char> streamWaited;
    std::map<std::tuple<SourceId, int, QString>, Intervals> dataLoading;
};

// Kernels: families, the top ones, launches.
void kernelStats(const DependencyGraph &g, const AnalysisScope &scope,
                 const std::function<bool(TimeNs)> &inRange, Analysis &out)
{
    const auto &nodes = g.nodes();
    const auto &resources = g.resources();
    std::map<QString, KernelFamily> families;
    std::unordered_map<StringId, std::vector<TimeNs>> durations;
    std::unordered_map<StringId, std::pair<NodeKind, qint64>> kindOf; // and bytes
    std::vector<TimeNs> delays;
    std::vector<char> callSeen(nodes.size(), 0);
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Node &n = nodes[i];
        const Resource &r = resources[size_t(n.resource)];
        if (!r.gpu || (scope.rank >= 0 && r.rank != scope.rank) || !inRange(n.start))
            continue;
        const TimeNs d = n.end - n.start;
        durations[n.name].push_back(d);
        kindOf.try_emplace(n.name, n.kind, 0).first->second.second += n.bytes;
        if (n.kind == NodeKind::Kernel && d < 10'000) {
            ++out.launch.shortKernels;
            out.launch.shortKernelTime += d;
        }
        if (n.launcher >= 0) {
            const Node &call = nodes[size_t(n.launcher)];
            ++out.launch.launches;
            out.launch.gpuTime += d;
            delays.push_back(std::max<TimeNs>(0, n.start - call.start));
            if (!callSeen[size_t(n.launcher)]) {
                callSeen[size_t(n.launcher)] = 1;
                ++out.launch.calls;
                out.launch.callTime += call.end - call.start;
            }
        }
    }
    std::sort(delays.begin(), delays.end());
    out.launch.delayP50 = percentile(delays, 0.5);
    out.launch.delayP90 = percentile(delays, 0.9);
    out.launch.delayMax = delays.empty() ? 0 : delays.back();
    out.launch.delays = DurationSketch::fromSorted(delays);
    for (auto &[name, list] : durations) {
        std::sort(list.begin(), list.end());
        KernelStat k;
        k.name = g.name(name);
        std::tie(k.kind, k.bytes) = kindOf.at(name);
        k.family = kernelFamily(k.name, k.kind);
        k.count = qint64(list.size());
        k.total = std::accumulate(list.begin(), list.end(), TimeNs(0));
        k.p50 = percentile(list, 0.5);
        k.p90 = percentile(list, 0.9);
        k.max = list.back();
        k.durations = DurationSketch::fromSorted(list);
        KernelFamily &f = families[k.family];
        f.family = k.family;
        f.count += k.count;
        f.time += k.total;
        out.kernels.push_back(std::move(k));
    }
    std::sort(out.kernels.begin(), out.kernels.end(), [](const KernelStat &x, const KernelStat &y) {
        return x.total != y.total ? x.total > y.total : x.name < y.name;
    });
    for (auto &[name, f] : families)
        out.families.push_back(f);
    std::sort(out.families.begin(), out.families.end(),
              [](const KernelFamily &x, const KernelFamily &y) {
                  return x.time != y.time ? x.time > y.time : x.family < y.family;
              });
}

} // namespace

Analysis analyze(const DependencyGraph &g, const AnalysisScope &scope)
{
    Analysis out;
    out.scope = scope;
    Analyzer an(g, scope);
    const auto &nodes = g.nodes();
    const auto &resources = g.resources();
    const std::function<bool(TimeNs)> inRange = [&](TimeNs t) {
        return !scope.range || (t >= scope.range->first && t < scope.range->second);
    };

    // Each GPU over its own work's span (clipped to the range).
    std::map<int, RankLoad> loads;
    for (const GpuDevice &d : an.devices) {
        if (d.nodes.empty())
            continue;
        TimeNs a = std::numeric_limits<TimeNs>::max(), b = std::numeric_limits<TimeNs>::min();
        for (int n : d.nodes) {
            a = std::min(a, nodes[size_t(n)].start);
            b = std::max(b, nodes[size_t(n)].end);
        }
        for (int c : d.containers) { // GPU slices that hold others
            a = std::min(a, g.containers()[size_t(c)].start);
            b = std::max(b, g.containers()[size_t(c)].end);
        }
        if (scope.range) {
            a = std::max(a, scope.range->first);
            b = std::min(b, scope.range->second);
        }
        if (b <= a)
            continue;
        out.gpus.push_back(an.breakdown(d, a, b, true));
        RankLoad &load = loads[d.rank];
        load.rank = d.rank;
        load.compute += out.gpus.back().time.compute;
        load.communication += out.gpus.back().communicationTotal;
    }

    // Iterations: the outermost ProfilerStep#N ranges on each rank's threads.
    std::map<int, std::vector<const Container *>> iterationsOf; // steps() by rank, by start
    const auto &containers = g.containers();
    for (int c : g.steps()) {
        const Resource &r = resources[size_t(containers[size_t(c)].resource)];
        if (scope.rank < 0 || r.rank == scope.rank)
            iterationsOf[r.rank].push_back(&containers[size_t(c)]);
    }
    for (auto &[rank, list] : iterationsOf) {
        for (const Container *c : list) {
            TimeNs a = c->start, b = c->end;
            if (scope.range) {
                a = std::max(a, scope.range->first);
                b = std::min(b, scope.range->second);
            }
            if (b <= a)
                continue;
            for (const GpuDevice &d : an.devices)
                if (d.rank == rank) {
                    IterationBreakdown it;
                    it.name = g.name(c->name);
                    it.device = d.label;
                    it.rank = rank;
                    it.start = a;
                    it.end = b;
                    it.time = an.breakdown(d, a, b, false).time;
                    out.iterations.push_back(it);
                }
        }
    }

    kernelStats(g, scope, inRange, out);

    // Collectives matched across ranks (the graph's joins and collective edges tie each group).
    out.stragglers = matchCollectives(g, inRange);
    finishRanks(out, std::move(loads));
    return out;
}

StepGrid stepGrid(const std::vector<IterationBreakdown> &iterations)
{
    std::map<int, std::vector<IterationBreakdown>> byRank;
    std::map<int, QString> device;
    for (const auto &it : iterations) {
        if (!device.count(it.rank))
            device[it.rank] = it.device;
        if (device[it.rank] == it.device)
            byRank[it.rank].push_back(it);
    }
    StepGrid g;
    for (auto &[rank, its] : byRank) {
        std::sort(its.begin(), its.end(),
                  [](const auto &a, const auto &b) { return a.start < b.start; });
        g.ranks.push_back(rank);
        g.columns = std::max(g.columns, int(its.size()));
        g.cells.push_back(std::move(its));
    }
    g.median.assign(size_t(g.columns), 0);
    for (int c = 0; c < g.columns; ++c) {
        std::vector<TimeNs> v;
        for (const auto &row : g.cells)
            if (size_t(c) < row.size())
                v.push_back(row[size_t(c)].end - row[size_t(c)].start);
        std::nth_element(v.begin(), v.begin() + qsizetype(v.size() / 2), v.end());
        g.median[size_t(c)] = v.empty() ? 0 : v[v.size() / 2];
    }
    return g;
}

} // namespace gml::sim
