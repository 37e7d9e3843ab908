// SPDX-License-Identifier: GPL-3.0-or-later
// A simulated job as a run of the project (strategy.h: saveSimulatedRun).
#include "derivedruns.h"
#include "sourcework.h"
#include "strategyinternal.h"

#include "predictedrun.h"
#include "project.h"
#include "runmetrics.h"
#include "tracewriter.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace gml::sim {

namespace {

// The run's headline metrics (runmetrics.h keys) from the simulator's own.
QJsonObject headline(const SimResult &r)
{
    const SimMetrics &m = r.metrics;
    QJsonObject o;
    o = stepStatistics(m.iterationTimes);
    // The GPUs' time split, as fractions of the iteration (communication and copies overlap
    // computation where the strategy lets them).
    if (m.iterationNs > 0) {
        const double it = double(m.iterationNs);
        const double compute = std::min(1.0, double(m.computationNs) / it);
        o.insert(QStringLiteral("gpu_busy"), compute);
        o.insert(QStringLiteral("compute"), compute);
        o.insert(QStringLiteral("communication"), std::min(1.0, double(m.communicationNs) / it));
        o.insert(QStringLiteral("copies"), std::min(1.0, double(m.memoryNs) / it));
        o.insert(QStringLiteral("idle"), std::max(0.0, 1.0 - compute));
    }
    o.insert(QStringLiteral("energy_j"), m.energyJ);
    o.insert(QStringLiteral("energy_per_iteration_j"), m.energyPerIterationJ);
    o.insert(QStringLiteral("device"), r.config.cluster.gpu.name);
    o.insert(QStringLiteral("ranks"), r.config.workers);
    o.insert(QStringLiteral("gpus"), r.config.workers);
    o.insert(QStringLiteral("version"), kRunMetricsVersion);
    return o;
}

// Writes a simulated job's rows, slices and counters (TraceWriter): per node its host; per
// worker its GPU with compute and copy streams, its input pipeline and network rows; per server
// its process and update row.
class SimulatedRunWriter
{
public:
    SimulatedRunWriter(TraceWriter &w, const SimResult &r, TimeNs origin)
        : w(w), r(r), c(r.config), g(*r.graph), origin(origin),
          gpuOf(static_cast<size_t>(c.workers), 0), trackOf(g.resources().size(), 0)
    {
    }
    void addTracks();
    // Every node at its simulated time.
    void addSlices();
    // Each worker's iterations on its compute stream around its passes (from the iteration's
    // start to the end of its last pass).
    void addIterations();
    // Each link's utilisation and each device's power.
    void addCounters();

private:
    using Role = SimResult::Role;
    TrackId host(int node)
    {
        if (size_t(node) >= hostOf.size())
            hostOf.resize(size_t(node) + 1, 0);
        if (!hostOf[size_t(node)]) {
            TrackSpec s;
            s.kind = TrackKind::Host;
            s.name = QStringLiteral("node%1 (%2x %3, %4x %5)")
                         .arg(node)
                         .arg(c.cluster.gpusPerNode)
                         .arg(c.cluster.gpu.id)
                         .arg(c.cluster.cpusPerNode)
                         .arg(c.cluster.cpu.id);
            s.sortKey = node;
            s.pid = QString::number(node);
            hostOf[size_t(node)] = w.addTrack(s);
        }
        return hostOf[size_t(node)];
    }

    TraceWriter &w;
    const SimResult &r;
    const SimConfig &c;
    const DependencyGraph &g;
    const TimeNs origin;
    std::vector<TrackId> hostOf;
    std::vector<TrackId> gpuOf;
    std::vector<TrackId> trackOf;
};

void SimulatedRunWriter::addTracks()
{
    for (size_t res = 0; res < g.resources().size(); ++res) {
        const auto &info = r.resources[res];
        if (info.role == Role::Barrier)
            continue;
        TrackSpec s;
        s.rank = info.worker;
        s.pid = QString::number(info.node);
        if (info.worker >= 0) {
            TrackId &gpu = gpuOf[size_t(info.worker)];
            if (!gpu) {
                TrackSpec d;
                d.kind = TrackKind::Gpu;
                d.parent = host(info.node);
                d.name = QStringLiteral("GPU %1 (%2) · worker %3")
                             .arg(info.worker % c.cluster.gpusPerNode)
                             .arg(c.cluster.gpu.id)
                             .arg(info.worker);
                d.rank = info.worker;
                d.pid = QString::number(info.worker % c.cluster.gpusPerNode);
                d.sortKey = info.worker;
                gpu = w.addTrack(d);
            }
            s.parent = gpu;
            s.kind = info.role == Role::Compute || info.role == Role::Copy ? TrackKind::Stream
                                                                           : TrackKind::Thread;
            s.sortKey = int(info.role); // compute, copy, network, reads, input
            switch (info.role) {
            case Role::Compute:
                s.name = QStringLiteral("compute stream");
                break;
            case Role::Copy:
                s.name = QStringLiteral("copy stream (host to device)");
                break;
            case Role::Reader:
                s.name = QStringLiteral("storage reads");
                break;
            case Role::Input:
                s.name = QStringLiteral("input pipeline");
                break;
            default:
                s.name = QStringLiteral("network (transfers)");
                break;
            }
        } else {
            TrackSpec p;
            p.kind = TrackKind::Process;
            p.parent = host(info.node);
            p.name =
                QStringLiteral("parameter server %1 (%2)").arg(info.server).arg(c.cluster.cpu.id);
            p.sortKey = 1000 + info.server;
            s.parent = w.addTrack(p);
            s.kind = TrackKind::Thread;
            s.name = QStringLiteral("updates");
        }
        trackOf[res] = w.addTrack(s);
    }
}

void SimulatedRunWriter::addSlices()
{
    const StringId kernelCat = w.intern("kernel");
    const StringId copyCat = w.intern("gpu_memcpy");
    const StringId netCat = w.intern("network");
    const StringId cpuCat = w.intern("cpu_op");
    const StringId updateCat = w.intern("ps_update");
    QHash<StringId, StringId> nameIds;
    for (size_t i = 0; i < g.nodes().size(); ++i) {
        const Node &n = g.nodes()[i];
        const Role role = r.resources[size_t(n.resource)].role;
        if (!trackOf[size_t(n.resource)])
            continue;
        StringId &id = nameIds[n.name];
        if (!id)
            id = w.intern(g.name(n.name).toStdString());
        const StringId cat = role == Role::Compute   ? kernelCat
                             : role == Role::Copy    ? copyCat
                             : role == Role::Network ? netCat
                             : role == Role::Server  ? updateCat
                                                     : cpuCat;
        w.addSlice(trackOf[size_t(n.resource)], origin + r.replay.start[i],
                   r.replay.end[i] - r.replay.start[i], id, cat);
    }
}

void SimulatedRunWriter::addIterations()
{
    const auto spans = detail::iterationSpans(r);
    const StringId stepCat = w.intern("iteration");
    for (size_t res = 0; res < g.resources().size(); ++res) {
        const auto &info = r.resources[res];
        if (info.role != Role::Compute)
            continue;
        const auto &its = spans[size_t(info.worker)];
        std::vector<TimeNs> ends(its.size());
        for (size_t k = 0; k < its.size(); ++k)
            ends[k] = its[k].first;
        for (int i : g.resources()[res].nodes)
            if (const int k = r.iterationOfNode[size_t(i)]; k >= 0)
                ends[size_t(k)] = std::max(ends[size_t(k)], r.replay.end[size_t(i)]);
        for (size_t k = 0; k < its.size(); ++k)
            w.addSlice(trackOf[res], origin + its[k].first, ends[k] - its[k].first,
                       w.intern(QStringLiteral("iteration %1").arg(k).toStdString()), stepCat);
    }
}

void SimulatedRunWriter::addCounters()
{
    for (size_t l = 0; l < r.flows->links.size() && l < r.replay.linkLoads.size(); ++l) {
        const auto &samples = r.replay.linkLoads[l].samples;
        if (samples.empty())
            continue;
        const FlowLink &link = r.flows->links[l];
        TrackSpec s;
        s.kind = TrackKind::Counter;
        s.name = QStringLiteral("link utilisation · %1").arg(link.name);
        s.unit = QStringLiteral("%");
        s.sortKey = 5000 + qint64(l);
        if (const int node = r.nodeOfLink[l]; node >= 0)
            s.parent = host(node);
        const TrackId t = w.addTrack(s);
        for (const auto &[at, load] : samples)
            w.addCounter(t, origin + at, 100.0 * load / link.bytesPerNs);
    }
    for (const PowerTrack &p : r.power) {
        TrackSpec s;
        s.kind = TrackKind::Counter;
        s.name = QStringLiteral("power · %1").arg(p.device);
        s.unit = QStringLiteral("W");
        s.sortKey = 4000;
        s.parent = host(p.node);
        const TrackId t = w.addTrack(s);
        for (const auto &[at, watts] : p.samples)
            w.addCounter(t, origin + at, watts);
    }
}

} // namespace

std::optional<RunId> saveSimulatedRun(Project &project, const SimResult &r, const QString &name,
                                      QString *error)
{
    auto fail = [&](const QString &why) -> std::optional<RunId> {
        if (error)
            *error = why;
        project.rollback();
        return std::nullopt;
    };
    if (!project.begin(error))
        return std::nullopt;
    if (QString why; !dropDerivedRun(project, name, QStringLiteral("simulated"),
                                     QStringLiteral("a simulation"), &why))
        return fail(why);
    // Where the run starts on the project clock: with the measured run it came from, else with
    // the project's first measured or predicted data (0 in a project of simulations only).
    const TimeNs origin = earliestTrackStart(project, r.config.model.measuredRun).value_or(0);
    QString why;
    const RunId run = project.ensureRun(name, &why);
    if (!run)
        return fail(why);
    QJsonObject params = r.config.toJson();
    params.insert(QStringLiteral("scenario"), r.config.describe());
    params.insert(QStringLiteral("simulated"), r.metrics.toJson());
    params.insert(QStringLiteral("headline"), headline(r));
    if (!r.warnings.isEmpty())
        params.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(r.warnings));
    if (!setRunKind(project, run, QStringLiteral("simulated"), params, &why))
        return fail(why);
    const SourceId source = insertDerivedSource(
        project, run, QStringLiteral("simulator:%1").arg(name), QStringLiteral("simulator"), &why);
    if (!source)
        return fail(why);
    TraceWriter w(project, run, source);
    SimulatedRunWriter writer(w, r, origin);
    writer.addTracks();
    writer.addSlices();
    writer.addIterations();
    writer.addCounters();
    if (w.failed() || !finishSource(w, {}, &why))
        return fail(w.failed() ? w.errorString() : why);
    // The headline metrics (runcatalog.h's run_metrics), in the same transaction.
    if (!writeRunMetrics(project, run, headline(r), &why))
        return fail(why);
    if (!project.commit(&why))
        return fail(why);
    return run;
}

} // namespace gml::sim
