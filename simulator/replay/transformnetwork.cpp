// SPDX-License-Identifier: GPL-3.0-or-later
// The what-if transforms of the network: data parallelism (gradient all-reduces inserted or
// rescaled), link changes, and NCCL's cost model of a collective; the measured run's context
// (its GPU, links and ranks) and the roofline.
#include "clockalignment.h"
#include "devicecatalog.h"
#include "memoryreport.h"
#include "project.h"
#include "runrecords.h"
#include "timeformat.h"
#include "transformsinternal.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>

namespace gml::sim {

using namespace detail;

namespace {

const QString kBackwardPattern = QStringLiteral("(?i)backward|evaluate_function");

double bytesPerParameter(const QString &optimizer)
{
    // Memory traffic of one update per fp32 parameter: Adam reads p, g, m, v and writes p, m, v;
    // SGD with momentum, Adagrad and RMSprop read p, g, one state and write p and it.
    if (optimizer.contains(QLatin1String("adam"), Qt::CaseInsensitive) ||
        optimizer.contains(QLatin1String("lamb"), Qt::CaseInsensitive))
        return 28;
    return 20;
}

Selector withinSelector(const QString &pattern)
{
    Selector s;
    s.within = pattern;
    return s;
}

} // namespace

namespace detail {

const QString &optimizerPattern()
{
    static const QString p = QStringLiteral("^Optimizer\\.step#");
    return p;
}

// Inserts the all-reduce of each gradient bucket after the backward kernel that completes it,
// on a new communication stream per rank; the first kernel after backward waits for the last.
bool insertDataParallel(Structural &s, const Transform &t, const WhatIfContext &ctx,
                        const DeviceCatalog &cat, QString *error)
{
    DependencyGraph &g = *s.graph;
    const int n = t.workers;
    // The all-reduces run over the measured network link; a Link transform rescales them.
    const Link *link = measuredLink(ctx, true, error);
    if (!link) {
        *error =
            QStringLiteral(
                "the link between workers is unknown (%1); name the measured one (--measured-link)")
                .arg(*error);
        return false;
    }
    const double bw = link->bwGBps;
    const double lat = link->latencyUs;
    // Compute stream per (source, rank): the GPU resource with the most kernel work.
    std::map<std::pair<SourceId, int>, std::pair<int, TimeNs>> compute;
    std::vector<TimeNs> busy(g.resources().size(), 0);
    for (const auto &node : g.nodes())
        if (node.kind == NodeKind::Kernel)
            busy[size_t(node.resource)] += node.end - node.start;
    for (size_t r = 0; r < g.resources().size(); ++r) {
        const Resource &res = g.resources()[r];
        if (!res.gpu || !busy[r])
            continue;
        auto &best = compute[{res.source, res.rank}];
        if (busy[r] > best.second)
            best = {int(r), busy[r]};
    }
    if (compute.empty()) {
        *error =
            QStringLiteral("data parallelism needs GPU kernels to hang gradient all-reduces on");
        return false;
    }
    const NodeSelection backward(g, withinSelector(kBackwardPattern), bit(NodeKind::Kernel), error);
    const NodeSelection optimizer(g, withinSelector(optimizerPattern()), bit(NodeKind::Kernel),
                                  error);
    static const QRegularExpression optName(QStringLiteral("^Optimizer\\.step#(\\w+)"));
    const QString algorithm = t.algorithm.isEmpty() ? ctx.measuredAlgorithm : t.algorithm;
    const StringId commName = g.syntheticName(
        QStringLiteral("ncclKernel_AllReduce_%1 (predicted)").arg(algorithm.toUpper()));
    const int allReduce = int(collectiveOperations().indexOf(QStringLiteral("AllReduce")));
    int inserted = 0;
    for (const auto &[key, best] : compute) {
        const int stream = best.first;
        // Iteration windows: this rank's ProfilerStep#N; else from one optimizer step to the
        // next; else the whole run.
        std::vector<std::pair<TimeNs, TimeNs>> windows, optimizerSteps;
        QString optimizerName;
        for (const auto &c : g.containers()) {
            const Resource &r = g.resources()[size_t(c.resource)];
            if (r.source != key.first || r.rank != key.second)
                continue;
            const QString name = g.name(c.name);
            if (isProfilerStep(name))
                windows.emplace_back(c.start, c.end);
            if (const auto m = optName.match(name); m.hasMatch()) {
                optimizerName = m.captured(1);
                optimizerSteps.emplace_back(c.start, c.end);
            }
        }
        std::sort(windows.begin(), windows.end());
        std::sort(optimizerSteps.begin(), optimizerSteps.end());
        if (windows.empty()) {
            TimeNs from = std::numeric_limits<TimeNs>::min();
            for (const auto &o : optimizerSteps) {
                windows.emplace_back(from, o.second);
                from = o.second;
            }
        }
        if (windows.empty())
            windows.emplace_back(std::numeric_limits<TimeNs>::min(),
                                 std::numeric_limits<TimeNs>::max());
        const std::vector<int> order =
            g.resources()[size_t(stream)].nodes; // a copy: resources grow
        auto launchedIn = [&](int node, const std::pair<TimeNs, TimeNs> &w) {
            const Node &x = g.nodes()[size_t(node)];
            const TimeNs at = x.launcher >= 0 ? g.nodes()[size_t(x.launcher)].start : x.start;
            return at >= w.first && at < w.second;
        };
        // Gradient size: given, or from the optimizer's memory traffic at 70% of peak bandwidth.
        double gradBytes = t.gradMB * 1e6;
        if (gradBytes <= 0) {
            TimeNs optTime = 0;
            for (int k : order)
                if (optimizer[size_t(k)])
                    optTime += g.nodes()[size_t(k)].work;
            const int stepsWithOpt = optTime > 0 ? int(optimizerSteps.size()) : 0;
            const Device *dev = measuredDevice(ctx, cat, error);
            if (!stepsWithOpt || !dev) {
                *error =
                    QStringLiteral("cannot estimate the gradient size (%1); give it with --grad-mb")
                        .arg(stepsWithOpt
                                 ? *error
                                 : QStringLiteral("no Optimizer.step kernels in the trace"));
                return false;
            }
            const double perParam = bytesPerParameter(optimizerName);
            gradBytes = double(optTime) / stepsWithOpt * 1e-9 * dev->memBwGBps * 1e9 * kAchieved /
                        perParam * 4;
            s.notes << QStringLiteral("gradients %1 MB per step, estimated from %2 of %3 kernels "
                                      "per step at 70% of "
                                      "%4 GB/s (%5 bytes of traffic per fp32 parameter)")
                           .arg(gradBytes / 1e6, 0, 'f', 1)
                           .arg(formatDuration(optTime / stepsWithOpt),
                                optimizerName.isEmpty() ? QStringLiteral("optimizer")
                                                        : optimizerName)
                           .arg(dev->memBwGBps)
                           .arg(perParam);
        }
        const int buckets = std::max(1, int(std::ceil(gradBytes / (t.bucketMB * 1e6))));
        const qint64 bucketBytes = qint64(gradBytes / buckets);
        const TimeNs commWork =
            collectiveTime(QStringLiteral("AllReduce"), bucketBytes, n, algorithm, bw, lat);
        Resource comm = g.resources()[size_t(stream)];
        comm.track = 0;
        comm.name = QStringLiteral("all-reduce (predicted, %1 workers)").arg(n);
        const int commRes = g.addResource(comm);
        int lastComm = -1;
        for (const auto &w : windows) {
            std::vector<int> back;
            for (int k : order)
                if (backward[size_t(k)] && launchedIn(k, w))
                    back.push_back(k);
            if (back.empty())
                continue;
            TimeNs total = 0;
            for (int k : back)
                total += g.nodes()[size_t(k)].work;
            TimeNs acc = 0;
            size_t at = 0;
            int last = -1;
            for (int b = 0; b < buckets; ++b) {
                const double threshold = double(total) * (b + 1) / buckets;
                while (at + 1 < back.size() &&
                       double(acc + g.nodes()[size_t(back[at])].work) < threshold)
                    acc += g.nodes()[size_t(back[at++])].work;
                const int after = back[at];
                Node node;
                node.name = commName;
                node.resource = commRes;
                node.kind = NodeKind::Collective;
                node.collectiveOp = allReduce;
                node.bytes = bucketBytes;
                node.start = node.end = g.nodes()[size_t(after)].end;
                node.work = commWork;
                last = g.insertNode(node, lastComm);
                lastComm = last;
                g.addEdge({after, last, EdgeKind::StreamWait, true, false, 0});
                ++inserted;
            }
            // The first kernel after backward (the optimizer) waits for the gradients.
            const int pos = g.position(back.back()) + 1;
            if (pos < int(order.size()) && launchedIn(order[size_t(pos)], w))
                g.addEdge({last, order[size_t(pos)], EdgeKind::StreamWait, true, false, 0});
        }
        s.notes << QStringLiteral("rank %1: %2 buckets of %3 MB per step, each all-reduce %4 "
                                  "(%5, %6 workers, %7 GB/s, %8 us latency)")
                       .arg(std::max(key.second, 0))
                       .arg(buckets)
                       .arg(double(bucketBytes) / 1e6, 0, 'f', 1)
                       .arg(formatDuration(commWork), algorithm)
                       .arg(n)
                       .arg(bw)
                       .arg(lat);
    }
    if (!inserted) {
        *error = QStringLiteral(
            "no backward kernels found (launched within 'autograd::engine::evaluate_function' "
            "or '*Backward*' ops) to hang gradient all-reduces on");
        return false;
    }
    return true;
}

NetworkChange::NetworkChange(const DependencyGraph &g, const QList<Transform> &transforms,
                             const WhatIfContext &ctx, bool hasCollectives)
    : m_graph(g)
{
    QString unknown;
    const Link *link = measuredLink(ctx, true, &unknown);
    m_measured = {std::max(2, ctx.measuredWorkers), ctx.measuredAlgorithm, link ? link->bwGBps : 0,
                  link ? link->latencyUs : 0};
    m_inserted = m_measured;
    for (const auto &t : transforms)
        if (isStructural(t, hasCollectives) && t.op == Transform::Op::Workers) {
            m_inserted.ranks = t.workers;
            if (!t.algorithm.isEmpty())
                m_inserted.algorithm = t.algorithm;
            break;
        }
}

void NetworkChange::apply(const Transform &t, const NodeSelection &sel)
{
    const auto &nodes = m_graph.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (!sel[i] || nodes[i].kind != NodeKind::Collective)
            continue;
        auto it = m_state.find(int(i));
        if (it == m_state.end())
            it = m_state.insert(int(i), initial(i));
        State &s = *it;
        if (t.op == Transform::Op::Workers)
            s.ranks = t.workers;
        if (!t.algorithm.isEmpty())
            s.algorithm = t.algorithm;
        if (t.op == Transform::Op::Link && t.bandwidthGBps > 0)
            s.bwGBps = t.bandwidthGBps;
        if (t.op == Transform::Op::Link && t.latencyUs >= 0)
            s.latencyUs = t.latencyUs;
    }
}

void NetworkChange::rescale(std::vector<TimeNs> &work, std::vector<TimeNs> &slack) const
{
    const auto &ops = collectiveOperations();
    for (auto it = m_state.begin(); it != m_state.end(); ++it) {
        const size_t i = size_t(it.key());
        const State a = initial(i);
        const State &b = *it;
        if (a == b)
            continue;
        const Node &n = m_graph.nodes()[i];
        const QString op = n.collectiveOp >= 0 ? ops[n.collectiveOp] : QString();
        const CollectiveCost ca = collectiveCost(op, a.ranks, a.algorithm);
        const CollectiveCost cb = collectiveCost(op, b.ranks, b.algorithm);
        if (cb.steps == 0) {
            work[i] = slack[i] = 0;
            continue;
        }
        const TimeNs rest =
            std::max<TimeNs>(0, work[i] - TimeNs(std::llround(ca.steps * a.latencyUs * 1e3)));
        double f = ca.busFactor > 0 ? cb.busFactor / ca.busFactor : 1;
        if (a.bwGBps > 0 && b.bwGBps > 0)
            f *= a.bwGBps / b.bwGBps;
        work[i] = TimeNs(std::llround(cb.steps * b.latencyUs * 1e3)) + scaled(rest, f);
    }
}

} // namespace detail

QStringList collectiveAlgorithms()
{
    return {QStringLiteral("ring"), QStringLiteral("tree")};
}

CollectiveCost collectiveCost(const QString &operation, int n, const QString &algorithm)
{
    if (n <= 1)
        return {};
    const bool allReduce = operation == QLatin1String("AllReduce");
    const bool rooted =
        operation == QLatin1String("Broadcast") || operation == QLatin1String("Reduce");
    if (algorithm == QLatin1String("tree") && (allReduce || rooted)) {
        const int depth = int(std::ceil(std::log2(double(n))));
        return allReduce ? CollectiveCost{2.0, 2 * depth} : CollectiveCost{1.0, depth};
    }
    if (allReduce)
        return {2.0 * (n - 1) / n, 2 * (n - 1)};
    if (rooted)
        return {1.0, n - 1};
    return {double(n - 1) / n, n - 1};
}

TimeNs collectiveTime(const QString &operation, qint64 bytes, int n, const QString &algorithm,
                      double bwGBps, double latencyUs)
{
    const CollectiveCost c = collectiveCost(operation, n, algorithm);
    return TimeNs(std::llround(c.steps * latencyUs * 1e3 + c.busFactor * double(bytes) / bwGBps));
}

const Link *measuredLink(const WhatIfContext &ctx, bool network, QString *error)
{
    const DeviceCatalog &cat = ctx.catalog ? *ctx.catalog : DeviceCatalog::builtin();
    if (network && !ctx.measuredNetwork.isEmpty()) {
        if (const Link *l = cat.link(ctx.measuredNetwork))
            return l;
        *error = QStringLiteral("no link '%1' in the catalog").arg(ctx.measuredNetwork);
        return nullptr;
    }
    const Device *d = measuredDevice(ctx, cat, error);
    if (!d)
        return nullptr;
    return cat.link(network ? d->peerLink : d->hostLink);
}

QString WhatIfContext::deviceOf(const QJsonObject &runParams)
{
    const auto models = runParams.value(QStringLiteral("gpu_models")).toArray();
    return models.isEmpty() ? QString() : models.first().toString();
}

WhatIfContext WhatIfContext::forRun(const DependencyGraph &graph, const QJsonObject &runParams)
{
    WhatIfContext c;
    c.measuredDevice = deviceOf(runParams);
    QSet<int> ranks;
    for (const auto &r : graph.resources())
        if (r.rank >= 0)
            ranks.insert(r.rank);
    c.measuredWorkers = std::max<int>(1, int(ranks.size()));
    c.measuredWorkers =
        std::max(c.measuredWorkers, runParams.value(QStringLiteral("world_size")).toInt(1));
    return c;
}

WhatIfContext WhatIfContext::forRun(const DependencyGraph &graph, Project &project, RunId run)
{
    return forRun(graph, runParams(project, run));
}

void WhatIfContext::readMemory(Project &project, RunId run)
{
    memory.reset();
    QString error; // a read error leaves the prediction without its memory, not without itself
    if (auto m = memoryReport(project, run, &error); m && !m->devices.empty())
        memory = std::make_shared<const MemoryReport>(std::move(*m));
}

TimeNs rooflineTime(const Device &device, double flops, double bytes, bool halfPrecision)
{
    const double peak = (halfPrecision ? device.fp16Tflops : device.fp32Tflops) * 1e12 * kAchieved;
    const double bw = device.memBwGBps * 1e9 * kAchieved;
    const double seconds = std::max(peak > 0 ? flops / peak : 0.0, bw > 0 ? bytes / bw : 0.0);
    return TimeNs(std::llround(seconds * 1e9));
}

} // namespace gml::sim
