// SPDX-License-Identifier: GPL-3.0-or-later
#include "transformsinternal.h"

#include "clockalignment.h"
#include "devicecatalog.h"
#include "timeformat.h"
#include "tracewriter.h"

#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>

namespace gml::sim {

using namespace detail;

namespace {

// Data loading, as PyTorch's profiler labels it.
const QString kInputPattern = QStringLiteral("(?i)dataloader|data_load|__next__|_next_data|fetch");

} // namespace

namespace detail {

bool isHostCopy(const QString &name)
{
    return name.contains(QLatin1String("HtoD")) || name.contains(QLatin1String("DtoH")) ||
           name.contains(QLatin1String("Host"));
}

TimeNs scaled(TimeNs t, double f)
{
    // Saturated at the project's time limit: a long run scaled a million times must not wrap
    // to a negative time (llround of a double past 2^63 is undefined).
    const double v = double(t) * f;
    if (!(v > -double(kMaxAbsTimeNs)))
        return std::isnan(v) ? 0 : -kMaxAbsTimeNs;
    if (!(v < double(kMaxAbsTimeNs)))
        return kMaxAbsTimeNs;
    return TimeNs(std::llround(v));
}

const Device *measuredDevice(const WhatIfContext &ctx, const DeviceCatalog &cat, QString *error)
{
    const Device *d = ctx.measuredDevice.isEmpty() ? nullptr : cat.device(ctx.measuredDevice);
    if (!d) {
        QStringList ids;
        for (const auto &x : cat.devices())
            ids << x.id;
        *error =
            ctx.measuredDevice.isEmpty()
                ? QStringLiteral(
                      "the run does not record its GPU model (deviceProperties); name it "
                      "(one of %1)")
                      .arg(ids.join(QStringLiteral(", ")))
                : QStringLiteral(
                      "the run's GPU '%1' is not in the device catalog; name the closest of %2")
                      .arg(ctx.measuredDevice, ids.join(QStringLiteral(", ")));
    }
    return d;
}

bool graphHasCollectives(const DependencyGraph &g)
{
    return std::any_of(g.nodes().begin(), g.nodes().end(),
                       [](const Node &n) { return n.kind == NodeKind::Collective; });
}

// `hasCollectives`: of the measured graph (graphHasCollectives), read once per prepare().
bool isStructural(const Transform &t, bool hasCollectives)
{
    return t.op == Transform::Op::Insert ||
           (t.op == Transform::Op::Workers && t.workers > 1 && !hasCollectives) ||
           (t.op == Transform::Op::Input && t.workers > 1);
}

} // namespace detail

const QString &inputPattern()
{
    return kInputPattern;
}

void forEachDataLoadingRange(
    const DependencyGraph &g,
    const std::function<void(int resource, TimeNs start, TimeNs end)> &visit)
{
    const QRegularExpression input(kInputPattern);
    QHash<StringId, bool> memo;
    auto named = [&](StringId id) {
        auto it = memo.find(id);
        if (it == memo.end())
            it = memo.insert(id, input.match(g.name(id)).hasMatch());
        return *it;
    };
    for (const Container &c : g.containers())
        if (!g.resources()[size_t(c.resource)].gpu && named(c.name))
            visit(c.resource, c.start, c.end);
    for (const Node &n : g.nodes())
        if (n.kind == NodeKind::Cpu && named(n.name))
            visit(n.resource, n.start, n.end);
}

namespace {

// The GPU the kernels run on after the transforms: the last Device transform's, else the
// measured one.
const Device *deviceInEffect(const QList<Transform> &transforms, const WhatIfContext &ctx,
                             const DeviceCatalog &cat, QString *error)
{
    for (auto it = transforms.rbegin(); it != transforms.rend(); ++it)
        if (it->op == Transform::Op::Device)
            if (const Device *d = cat.device(it->target))
                return d;
    return measuredDevice(ctx, cat, error);
}

// The host's launch path `factor` times faster (0: free): on the threads that launch GPU work,
// the work and the gap before it of what `sel` picks, less data loading and what waits for the
// GPU. The count changed; nullopt with *error on a bad pattern.
std::optional<qint64> speedUpHostPath(const DependencyGraph &g, const NodeSelection &sel,
                                      double factor, std::vector<TimeNs> &work,
                                      std::vector<TimeNs> &slack, QString *error)
{
    const auto &nodes = g.nodes();
    std::vector<char> launches(g.resources().size(), 0);
    for (const auto &n : nodes)
        if (n.launcher >= 0)
            launches[size_t(nodes[size_t(n.launcher)].resource)] = 1;
    Selector loading;
    loading.within = inputPattern();
    const NodeSelection input(g, loading, quint8(bit(NodeKind::Cpu) | bit(NodeKind::Runtime)),
                              error);
    if (!input.valid())
        return std::nullopt;
    const double f = factor > 0 ? 1.0 / factor : 0.0;
    qint64 changed = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (!sel[i] || input[i] || !launches[size_t(nodes[i].resource)] || nodes[i].synchronising)
            continue;
        work[i] = scaled(work[i], f);
        slack[i] = scaled(slack[i], f);
        ++changed;
    }
    return changed;
}

// The shortest measured work of each node kind on each GPU (all its streams) or CPU thread.
class ShortestWork
{
public:
    explicit ShortestWork(const DependencyGraph &g) : m_group(g.resources().size())
    {
        QHash<QString, int> gpuGroup; // source/device -> group
        int groups = 0;
        for (size_t r = 0; r < g.resources().size(); ++r) {
            const Resource &res = g.resources()[r];
            if (!res.gpu) {
                m_group[r] = groups++;
                continue;
            }
            const QString key = QStringLiteral("%1/%2").arg(res.source).arg(res.pid);
            auto it = gpuGroup.find(key);
            if (it == gpuGroup.end())
                it = gpuGroup.insert(key, groups++);
            m_group[r] = *it;
        }
        m_shortest.assign(size_t(groups) * kKinds, std::numeric_limits<TimeNs>::max());
        for (const auto &n : g.nodes())
            if (n.slice != 0 && n.work > 0)
                slot(n) = std::min(slot(n), n.work);
    }
    // 0 when no measured node of its kind has work there.
    TimeNs of(const Node &n) const
    {
        const TimeNs v = m_shortest[index(n)];
        return v == std::numeric_limits<TimeNs>::max() ? 0 : v;
    }

private:
    static constexpr size_t kKinds = 6;
    size_t index(const Node &n) const
    {
        return size_t(m_group[size_t(n.resource)]) * kKinds + size_t(n.kind);
    }
    TimeNs &slot(const Node &n) { return m_shortest[index(n)]; }

    std::vector<int> m_group;       // per resource
    std::vector<TimeNs> m_shortest; // per group and kind
};

} // namespace

std::optional<Prepared> prepare(const std::shared_ptr<const DependencyGraph> &measured,
                                const QList<Transform> &transforms, const WhatIfContext &context,
                                QString *error, StructureCache *cache)
{
    const DeviceCatalog &cat = context.catalog ? *context.catalog : DeviceCatalog::builtin();
    QString err;
    auto fail = [&](const Transform &t) -> std::optional<Prepared> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(t.describe(), err);
        return std::nullopt;
    };
    Prepared out;
    const bool hasCollectives = graphHasCollectives(*measured);
    // Structural transforms first: a copy of the graph with their nodes.
    QJsonArray structural;
    for (const auto &t : transforms)
        if (isStructural(t, hasCollectives))
            structural.append(t.toJson());
    const QByteArray key = QJsonDocument(structural).toJson(QJsonDocument::Compact);
    if (structural.isEmpty()) {
        out.graph = measured;
    } else if (cache && cache->key == key && cache->graph) {
        out.graph = cache->graph;
        out.notes = cache->notes;
    } else {
        Structural s;
        s.graph = std::make_shared<DependencyGraph>(*measured);
        for (const auto &t : transforms) {
            if (!isStructural(t, hasCollectives))
                continue;
            if (t.op == Transform::Op::Workers) {
                if (!insertDataParallel(s, t, context, cat, &err))
                    return fail(t);
                continue;
            }
            if (t.op == Transform::Op::Input) {
                if (!insertLoaderWorkers(s, t, &err))
                    return fail(t);
                continue;
            }
            const NodeSelection sel(*s.graph, t.select, 0xff, &err);
            if (!sel.valid())
                return fail(t);
            TimeNs duration = t.duration;
            if (duration <= 0 && (t.flops > 0 || t.bytes > 0)) {
                const Device *dev = deviceInEffect(transforms, context, cat, &err);
                if (!dev)
                    return fail(t);
                duration =
                    rooflineTime(*dev, t.flops, t.bytes, t.precision == QLatin1String("fp16"));
                s.notes << QStringLiteral("insert '%1': %2 on %3 (roofline at %4% of peak)")
                               .arg(t.name, formatDuration(duration), dev->id)
                               .arg(kAchieved * 100);
            }
            const StringId name = s.graph->syntheticName(t.name);
            const size_t n = measured->nodes().size();
            for (size_t i = 0; i < n; ++i) {
                if (!sel[i])
                    continue;
                Node node = s.graph->nodes()[i];
                node.slice = 0;
                node.cat = 0;
                node.name = name;
                node.launcher = -1;
                node.collectiveOp = -1;
                node.synchronising = false;
                node.bytes = 0;
                node.kind = s.graph->resources()[size_t(node.resource)].gpu ? NodeKind::Kernel
                                                                            : NodeKind::Cpu;
                node.start = node.end;
                node.slack = 0;
                node.work = duration;
                s.graph->insertNode(node, int(i));
            }
        }
        s.graph->reorder();
        if (s.graph->hasCycle()) { // a structural edit that waits on itself: nothing to replay
            if (error)
                *error =
                    QStringLiteral(
                        "the transforms make the dependency graph wait on itself (%1 of %2 time "
                        "points are on or after a cycle)")
                        .arg(s.graph->points() - s.graph->order().size())
                        .arg(s.graph->points());
            return std::nullopt;
        }
        out.graph = s.graph;
        out.notes = s.notes;
        if (cache) {
            cache->key = key;
            cache->graph = out.graph;
            cache->notes = out.notes;
        }
    }
    const DependencyGraph &g = *out.graph;
    out.input = ReplayInput::measured(g);
    auto &work = out.input.work;
    auto &slack = out.input.slack;
    const auto &nodes = g.nodes();
    // Collectives over the network: the ranks, algorithm and link each one ran with, and what
    // the Workers and Link transforms make of them; rescaled once, at the end (network()).
    NetworkChange net(g, transforms, context, hasCollectives);
    for (const auto &t : transforms) {
        if (isStructural(t, hasCollectives)) {
            // Applied to the graph above; data loading moved to workers leaves its ranges
            // waiting for their batches.
            if (t.op == Transform::Op::Input)
                waitForLoaderWorkers(g, work, slack);
            continue;
        }
        quint8 kinds = 0xff;
        switch (t.op) {
        case Transform::Op::Device:
            kinds = bit(NodeKind::Kernel) | bit(NodeKind::Memset) | bit(NodeKind::Memcpy);
            break;
        case Transform::Op::Amp:
        case Transform::Op::Compute:
            kinds = bit(NodeKind::Kernel);
            break;
        case Transform::Op::Memory:
            kinds = bit(NodeKind::Kernel) | bit(NodeKind::Memset) | bit(NodeKind::Memcpy);
            break;
        case Transform::Op::Input:
        case Transform::Op::Host:
            kinds = bit(NodeKind::Cpu) | bit(NodeKind::Runtime);
            break;
        case Transform::Op::Unsync:
            kinds = bit(NodeKind::Runtime);
            break;
        case Transform::Op::Link:
            kinds =
                t.link == QLatin1String("host") ? bit(NodeKind::Memcpy) : bit(NodeKind::Collective);
            break;
        case Transform::Op::Workers:
            kinds = bit(NodeKind::Collective);
            break;
        case Transform::Op::Fuse:
        case Transform::Op::Reschedule:
        case Transform::Op::Scale:
        case Transform::Op::Remove:
        case Transform::Op::SetDuration:
        case Transform::Op::Insert:
            break;
        }
        Selector select = t.select;
        if (t.op == Transform::Op::Input && select.name.isEmpty() && select.within.isEmpty())
            select.within = kInputPattern;
        const NodeSelection sel(g, select, kinds, &err);
        if (!sel.valid())
            return fail(t);
        switch (t.op) {
        case Transform::Op::Scale:
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i]) {
                    work[i] = scaled(work[i], t.factor);
                    if (t.factor == 0)
                        slack[i] = 0;
                }
            break;
        case Transform::Op::Remove:
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i])
                    work[i] = slack[i] = 0;
            break;
        case Transform::Op::SetDuration:
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i])
                    work[i] = t.duration;
            break;
        case Transform::Op::Fuse: {
            std::vector<int> kept(nodes.size(), 0); // per launcher: launched nodes that remain
            std::vector<char> removed(nodes.size(), 0);
            int fused = 0;
            const bool overheadModel = t.duration <= 0 && t.model == QLatin1String("overhead");
            const std::optional<ShortestWork> shortest =
                overheadModel && t.overhead < 0 ? std::optional<ShortestWork>(std::in_place, g)
                                                : std::nullopt;
            TimeNs saved = 0;
            for (const auto &r : g.resources()) {
                for (size_t k = 0; k < r.nodes.size();) {
                    if (!sel[size_t(r.nodes[k])]) {
                        ++k;
                        continue;
                    }
                    size_t e = k;
                    TimeNs sum = 0, longest = 0;
                    while (e < r.nodes.size() && sel[size_t(r.nodes[e])]) {
                        longest = std::max(longest, work[size_t(r.nodes[e])]);
                        sum += work[size_t(r.nodes[e++])];
                    }
                    if (e - k >= 2) {
                        TimeNs w = t.duration > 0 ? t.duration : sum;
                        if (overheadModel) {
                            // Each kernel pays a fixed cost (launch ramp, tail) whatever its
                            // work; the fused one pays it once.
                            const TimeNs o = t.overhead >= 0
                                                 ? t.overhead
                                                 : shortest->of(nodes[size_t(r.nodes[k])]);
                            w = std::max(longest, sum - TimeNs(e - k - 1) * o);
                            saved += sum - w;
                        }
                        work[size_t(r.nodes[k])] = w;
                        for (size_t j = k + 1; j < e; ++j) {
                            const auto x = size_t(r.nodes[j]);
                            work[x] = slack[x] = 0;
                            removed[x] = 1;
                        }
                        ++fused;
                    }
                    k = e;
                }
            }
            for (size_t i = 0; i < nodes.size(); ++i)
                if (nodes[i].launcher >= 0 && !removed[i])
                    ++kept[size_t(nodes[i].launcher)];
            for (size_t i = 0; i < nodes.size(); ++i)
                if (removed[i] && nodes[i].launcher >= 0 && !kept[size_t(nodes[i].launcher)])
                    work[size_t(nodes[i].launcher)] = slack[size_t(nodes[i].launcher)] = 0;
            out.notes
                << (overheadModel
                        ? QStringLiteral(
                              "fuse: %1 groups of adjacent slices fused, %2 of per-kernel fixed "
                              "cost saved (%3)")
                              .arg(fused)
                              .arg(formatDuration(saved),
                                   t.overhead >= 0
                                       ? QStringLiteral("%1 each").arg(formatDuration(t.overhead))
                                       : QStringLiteral("each the shortest kernel of its GPU"))
                        : QStringLiteral("fuse: %1 groups of adjacent slices fused").arg(fused));
            break;
        }
        case Transform::Op::Device:
        case Transform::Op::Amp:
        case Transform::Op::Compute:
        case Transform::Op::Memory: {
            double computeFp32 = 1.0 / 3, computeFp16 = 1.0 / 3, memory = 0.5;
            if (t.op == Transform::Op::Compute || t.op == Transform::Op::Memory) {
                const double f = t.factor > 0 ? 1.0 / t.factor : 1.0;
                computeFp32 = computeFp16 = t.op == Transform::Op::Compute ? f : 1.0;
                memory = t.op == Transform::Op::Memory ? f : 1.0;
            }
            if (t.op == Transform::Op::Device) {
                const Device *from = measuredDevice(context, cat, &err);
                if (!from)
                    return fail(t);
                const Device *to = cat.device(t.target);
                if (!to) {
                    err = QStringLiteral("no device '%1' in the catalog").arg(t.target);
                    return fail(t);
                }
                computeFp32 = from->fp32Tflops / to->fp32Tflops;
                computeFp16 = from->fp16Tflops / to->fp16Tflops;
                memory = from->memBwGBps / to->memBwGBps;
                out.notes
                    << QStringLiteral(
                           "%1 -> %2: compute-bound kernels x%3 (fp32) / x%4 (fp16), memory-bound "
                           "x%5 (the peak rates' ratios: each kernel assumed as efficient on the "
                           "new "
                           "GPU, its own kernels' algorithms unknown)")
                           .arg(from->id, to->id)
                           .arg(computeFp32, 0, 'f', 3)
                           .arg(computeFp16, 0, 'f', 3)
                           .arg(memory, 0, 'f', 3);
                // Another vendor's runtime launches at another cost: the launch calls of the
                // selected work, by the catalog's ratio.
                if (from->launchUs > 0 && to->launchUs > 0 && from->launchUs != to->launchUs) {
                    const double ratio = to->launchUs / from->launchUs;
                    std::vector<char> done(nodes.size(), 0);
                    qint64 calls = 0;
                    for (size_t i = 0; i < nodes.size(); ++i) {
                        const int l = nodes[i].launcher;
                        if (!sel[i] || l < 0 || done[size_t(l)] ||
                            nodes[size_t(l)].kind != NodeKind::Runtime)
                            continue;
                        done[size_t(l)] = 1;
                        work[size_t(l)] = scaled(work[size_t(l)], ratio);
                        ++calls;
                    }
                    out.notes << QStringLiteral("%1 launch calls x%2 (%3 launches in about %4 us, "
                                                "%5 in about %6 us)")
                                     .arg(calls)
                                     .arg(ratio, 0, 'f', 2)
                                     .arg(from->vendor)
                                     .arg(from->launchUs)
                                     .arg(to->vendor)
                                     .arg(to->launchUs);
                }
                if (t.hostFactor > 0) {
                    Selector all;
                    const NodeSelection host(
                        g, all, quint8(bit(NodeKind::Cpu) | bit(NodeKind::Runtime)), &err);
                    const auto changed = speedUpHostPath(g, host, t.hostFactor, work, slack, &err);
                    if (!changed)
                        return fail(t);
                    out.notes << QStringLiteral("host CPU %1x faster, as given: %2 CPU ops and "
                                                "runtime calls on launching "
                                                "threads")
                                     .arg(t.hostFactor)
                                     .arg(*changed);
                } else {
                    out.notes << QStringLiteral(
                        "host CPU assumed unchanged (give host_factor when the new machine's CPU "
                        "differs: a vendor change often moves the host path too)");
                }
            }
            QHash<StringId, double> factorOf;
            for (size_t i = 0; i < nodes.size(); ++i) {
                if (!sel[i] || nodes[i].slice == 0)
                    continue; // inserted nodes keep the duration given or modelled
                const Node &n = nodes[i];
                if (n.kind == NodeKind::Memcpy && isHostCopy(g.name(n.name)))
                    continue; // over the host link, not device memory
                auto it = factorOf.find(n.name);
                if (it == factorOf.end()) {
                    const QString name = g.name(n.name);
                    double f = memory;
                    if (n.kind == NodeKind::Kernel && classifyKernel(name) == Bound::Compute)
                        f = usesHalfPrecision(name) || t.op == Transform::Op::Amp ? computeFp16
                                                                                  : computeFp32;
                    it = factorOf.insert(n.name, f);
                }
                work[i] = scaled(work[i], *it);
            }
            break;
        }
        case Transform::Op::Input:
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i]) {
                    const double f = t.factor > 0 ? 1.0 / t.factor : 0.0;
                    work[i] = scaled(work[i], f);
                    slack[i] = scaled(slack[i], f);
                }
            break;
        case Transform::Op::Host: {
            const auto changed = speedUpHostPath(g, sel, t.factor, work, slack, &err);
            if (!changed)
                return fail(t);
            out.notes << QStringLiteral(
                             "host: %1 CPU ops and runtime calls on launching threads %2")
                             .arg(*changed)
                             .arg(t.factor > 0 ? QStringLiteral("%1x faster").arg(t.factor)
                                               : QStringLiteral("free"));
            break;
        }
        case Transform::Op::Unsync: {
            qint64 changed = 0;
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i] && nodes[i].synchronising) {
                    if (out.input.unsynced.empty())
                        out.input.unsynced.assign(nodes.size(), 0);
                    out.input.unsynced[i] = 1;
                    ++changed;
                }
            out.notes << QStringLiteral("unsync: %1 synchronising calls no longer wait for the GPU")
                             .arg(changed);
            break;
        }
        case Transform::Op::Link: {
            const bool network = t.link != QLatin1String("host");
            const Link *m = measuredLink(context, network, &err);
            if (!m)
                return fail(t);
            if (network) {
                net.apply(t, sel);
                out.notes << QStringLiteral(
                                 "network link: measured over %1 (%2 GB/s, %3 us, %4 collectives)")
                                 .arg(m->name)
                                 .arg(m->bwGBps)
                                 .arg(m->latencyUs)
                                 .arg(context.measuredAlgorithm);
                break;
            }
            const double bw = t.bandwidthGBps > 0 ? t.bandwidthGBps : m->bwGBps;
            const double lat = t.latencyUs >= 0 ? t.latencyUs : m->latencyUs;
            for (size_t i = 0; i < nodes.size(); ++i) {
                if (!sel[i] || !isHostCopy(g.name(nodes[i].name)))
                    continue;
                // One latency + the bandwidth part of the measured time at the new bandwidth.
                const TimeNs oldLat = TimeNs(m->latencyUs * 1e3);
                const TimeNs rest = std::max<TimeNs>(0, work[i] - oldLat);
                work[i] = TimeNs(lat * 1e3) + scaled(rest, m->bwGBps / bw);
            }
            out.notes << QStringLiteral("host link: measured over %1 (%2 GB/s, %3 us)")
                             .arg(m->name)
                             .arg(m->bwGBps)
                             .arg(m->latencyUs);
            break;
        }
        case Transform::Op::Workers:
            net.apply(t, sel);
            out.notes << QStringLiteral(
                             "workers: measured collectives of %1 ranks (%2) rescaled to %3 (%4)")
                             .arg(net.measuredRanks())
                             .arg(context.measuredAlgorithm)
                             .arg(t.workers)
                             .arg(t.algorithm.isEmpty() ? context.measuredAlgorithm : t.algorithm);
            break;
        case Transform::Op::Reschedule:
            if (out.input.priority.empty())
                out.input.priority.assign(nodes.size(), 0);
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i])
                    out.input.priority[i] = t.priority;
            break;
        case Transform::Op::Insert:
            break;
        }
    }
    net.rescale(work, slack);
    // Every node one after the other is the longest a replay can take: a sum within the
    // project's time limit keeps every time the replay computes in range, so no prediction
    // can overflow into a negative time. Past it, the transforms are refused.
    long double total = 0;
    for (size_t i = 0; i < work.size(); ++i)
        total +=
            (long double)std::max<TimeNs>(work[i], 0) + (long double)std::max<TimeNs>(slack[i], 0);
    if (total > (long double)kMaxAbsTimeNs) {
        if (error)
            *error =
                QStringLiteral(
                    "the transforms would make the run's work add up to %1 days, past the %2 days "
                    "a "
                    "project's times can hold: a factor or duration that large predicts nothing")
                    .arg(double(total / 86'400e9L), 0, 'g', 3)
                    .arg(double(kMaxAbsTimeNs) / 86'400e9, 0, 'f', 0);
        return std::nullopt;
    }
    return out;
}

} // namespace gml::sim
