// SPDX-License-Identifier: GPL-3.0-or-later
// The network of the what-if transforms: the collectives' one rescale (NetworkChange, what the
// workers and link transforms gather) and NCCL's cost model of a collective; the measured run's
// context (its GPU, links and ranks) and the roofline.
#include "clockalignment.h"
#include "collectives.h"
#include "devicecatalog.h"
#include "memoryreport.h"
#include "project.h"
#include "runrecords.h"
#include "timeformat.h"
#include "transformkind.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>

namespace gml::sim {

using namespace detail;

namespace detail {

const QString &optimizerPattern()
{
    static const QString p = QStringLiteral("^Optimizer\\.step#");
    return p;
}

NetworkChange::NetworkChange(const DependencyGraph &g, const QList<Transform> &transforms,
                             const std::vector<const TransformKind *> &kinds,
                             const WhatIfContext &ctx, bool hasCollectives)
    : m_graph(g), m_context(ctx)
{
    m_measured.ranks = std::max(2, ctx.measuredWorkers);
    m_measured.algorithm = ctx.measuredAlgorithm;
    m_inserted = m_measured;
    for (qsizetype i = 0; i < transforms.size(); ++i) {
        const Transform &t = transforms[i];
        const TransformKind *kind = kinds[size_t(i)];
        if (!kind->structural(t, hasCollectives))
            continue;
        if (const auto inserted = kind->insertedCollectives(t, m_measured)) {
            m_inserted = *inserted;
            break;
        }
    }
}

void NetworkChange::apply(const NodeSelection &sel, const std::function<void(State &)> &change)
{
    const auto &nodes = m_graph.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (!sel[i] || nodes[i].kind != NodeKind::Collective)
            continue;
        auto it = m_state.find(int(i));
        if (it == m_state.end())
            it = m_state.insert(int(i), initial(i));
        change(*it);
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
        const auto [peakA, latencyA] = path(n.collectiveOp, a);
        const auto [peakB, latencyB] = path(n.collectiveOp, b);
        const TimeNs rest =
            std::max<TimeNs>(0, work[i] - TimeNs(std::llround(ca.steps * latencyA * 1e3)));
        double f = ca.busFactor > 0 ? cb.busFactor / ca.busFactor : 1;
        if (peakA > 0 && peakB > 0)
            f *= peakA / peakB;
        work[i] = TimeNs(std::llround(cb.steps * latencyB * 1e3)) + scaled(rest, f);
    }
}

std::pair<double, double> NetworkChange::path(int op, const State &s) const
{
    const auto key = std::make_tuple(op, s.ranks, s.bwGBps, s.latencyUs);
    if (const auto it = m_paths.find(key); it != m_paths.end())
        return it->second;
    const QString name = op >= 0 ? collectiveOperations()[op] : QString();
    const CollectivePath p = collectivePath(name, s.ranks, m_context);
    const double peak =
        s.bwGBps > 0 ? collectivePeakGBps(name, s.ranks, s.bwGBps, m_context) : p.peakGBps;
    return m_paths[key] = {peak, s.latencyUs >= 0 ? s.latencyUs : p.latencyUs};
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
    // Ring: the bus factor is nccl-tests' (busFactor), the one the collectives report uses.
    return {busFactor(operation, n), allReduce ? 2 * (n - 1) : n - 1};
}

TimeNs collectiveTime(const QString &operation, qint64 bytes, int n, const QString &algorithm,
                      double bwGBps, double latencyUs)
{
    const CollectiveCost c = collectiveCost(operation, n, algorithm);
    return TimeNs(std::llround(c.steps * latencyUs * 1e3 + c.busFactor * double(bytes) / bwGBps));
}

namespace {

const DeviceCatalog &catalogOf(const WhatIfContext &ctx)
{
    return ctx.catalog ? *ctx.catalog : DeviceCatalog::builtin();
}

const Device *deviceIn(const WhatIfContext &ctx)
{
    return ctx.measuredDevice.isEmpty() ? nullptr : catalogOf(ctx).device(ctx.measuredDevice);
}

} // namespace

QString CollectivePath::label() const
{
    return link ? link->id : network ? QStringLiteral("network") : QStringLiteral("peer link");
}

double collectivePeakGBps(const QString &operation, int ranks, double linkGBps,
                          const WhatIfContext &ctx)
{
    if (!(linkGBps > 0))
        return 0;
    if (ranks <= kRanksPerNode)
        return linkGBps;
    const Device *d = deviceIn(ctx);
    const int nics = d && d->nicsPerNode > 0 ? d->nicsPerNode : kRanksPerNode;
    const double perRank = linkGBps * nics / kRanksPerNode;
    const bool pointToPoint = operation == QLatin1String("SendRecv") ||
                              operation == QLatin1String("Send") ||
                              operation == QLatin1String("Recv");
    if (pointToPoint)
        return perRank;
    if (operation == QLatin1String("AllToAll"))
        return perRank * double(ranks - 1) / double(ranks - kRanksPerNode);
    const Link *peer = d ? catalogOf(ctx).link(d->peerLink) : nullptr;
    const double ring = linkGBps * nics;
    return peer && peer->bwGBps > 0 ? std::min(ring, peer->bwGBps) : ring;
}

CollectivePath collectivePath(const QString &operation, int ranks, const WhatIfContext &ctx)
{
    CollectivePath p;
    p.network = ranks > kRanksPerNode;
    const Device *d = deviceIn(ctx);
    QString id = ctx.measuredNetwork; // named: what every collective crossed
    if (id.isEmpty() && d) {
        id = p.network ? d->networkLink : d->peerLink;
        p.assumed = p.network && !id.isEmpty();
    }
    p.link = id.isEmpty() ? nullptr : catalogOf(ctx).link(id);
    if (p.link) {
        p.peakGBps = collectivePeakGBps(operation, ranks, p.link->bwGBps, ctx);
        p.latencyUs = p.link->latencyUs;
    }
    return p;
}

const Link *measuredLink(const WhatIfContext &ctx, bool network, QString *error)
{
    const DeviceCatalog &cat = catalogOf(ctx);
    if (network && !ctx.measuredNetwork.isEmpty()) {
        if (const Link *l = cat.link(ctx.measuredNetwork))
            return l;
        *error = QStringLiteral("no link '%1' in the catalog").arg(ctx.measuredNetwork);
        return nullptr;
    }
    const Device *d = measuredDevice(ctx, cat, error);
    if (!d)
        return nullptr;
    if (!network)
        return cat.link(d->hostLink);
    if (const Link *l = collectivePath(QStringLiteral("AllReduce"), ctx.measuredWorkers, ctx).link)
        return l;
    *error = QStringLiteral("the network of %1's reference server is not in the catalog; name "
                            "the measured one")
                 .arg(d->id);
    return nullptr;
}

QString WhatIfContext::deviceOf(const QJsonObject &runParams, QString *guess)
{
    const auto models = runParams.value(QStringLiteral("gpu_models")).toArray();
    const QString name = models.isEmpty() ? QString() : models.first().toString();
    const DeviceCatalog &cat = DeviceCatalog::builtin();
    if (name.isEmpty() || cat.device(name))
        return name;
    for (const auto &v : runParams.value(QStringLiteral("gpu_properties")).toArray()) {
        const QJsonObject p = v.toObject();
        if (p.value(QStringLiteral("name")).toString() != name)
            continue;
        QString why;
        if (const Device *d = cat.identify(name, p.value(QStringLiteral("cus")).toInt(),
                                           p.value(QStringLiteral("mem_gib")).toDouble(),
                                           p.value(QStringLiteral("warp")).toInt(), &why)) {
            if (guess)
                *guess = why;
            return d->id;
        }
    }
    return name;
}

WhatIfContext WhatIfContext::forRun(const DependencyGraph &graph, const QJsonObject &runParams)
{
    WhatIfContext c;
    c.measuredDevice = deviceOf(runParams, &c.measuredDeviceGuess);
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
    WhatIfContext c = forRun(graph, runParams(project, run));
    c.measuredNetwork = networkOf(project, run);
    return c;
}

QString WhatIfContext::networkOf(Project &project, RunId run)
{
    const QString id = runTags(project, run).value(QStringLiteral("network")).toString().trimmed();
    return DeviceCatalog::builtin().link(id) ? id : QString();
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
