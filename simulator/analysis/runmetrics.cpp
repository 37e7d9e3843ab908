// SPDX-License-Identifier: GPL-3.0-or-later
#include "runmetrics.h"

#include "devicecatalog.h"
#include "findings.h"
#include "iterations.h"
#include "memoryreport.h"
#include "physical.h"
#include "project.h"
#include "resourceattribution.h"
#include "runcatalog.h"
#include "runrecords.h"
#include "sourcesummary.h"
#include "sourcework.h"
#include "transforms.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <QSet>

#include <climits>
#include <cmath>
#include <limits>

namespace gml::sim {

// The last value of each MLflow metric of the run (its counter tracks under the run's track).
static QJsonObject lastMlflowMetrics(Project &project, RunId run)
{
    return lastCounterValues(project, run, QStringLiteral("mlflow-run"));
}

QJsonObject stepStatistics(const std::vector<TimeNs> &times)
{
    QJsonObject m;
    if (times.empty())
        return m;
    QJsonArray list;
    double all = 0;
    for (TimeNs t : times) {
        all += double(t);
        if (list.size() < 5000)
            list.append(qint64(t));
    }
    // The step figures are the steady state's (iterations.h: warm-up left out).
    const int warmup = warmupIterations(times);
    const std::vector<TimeNs> steady(times.begin() + warmup, times.end());
    double sum = 0, sq = 0;
    TimeNs lo = steady.front(), hi = steady.front();
    for (TimeNs t : steady) {
        sum += double(t);
        lo = std::min(lo, t);
        hi = std::max(hi, t);
    }
    const double avg = sum / double(steady.size());
    for (TimeNs t : steady)
        sq += (double(t) - avg) * (double(t) - avg);
    m.insert(QStringLiteral("iterations"), qint64(times.size()));
    m.insert(QStringLiteral("warmup_iterations"), warmup);
    m.insert(QStringLiteral("step_mean_all_ns"), qint64(std::llround(all / double(times.size()))));
    m.insert(QStringLiteral("step_mean_ns"), qint64(std::llround(avg)));
    m.insert(QStringLiteral("step_sd_ns"),
             steady.size() > 1 ? qint64(std::llround(std::sqrt(sq / double(steady.size() - 1))))
                               : qint64(0));
    m.insert(QStringLiteral("step_min_ns"), qint64(lo));
    m.insert(QStringLiteral("step_max_ns"), qint64(hi));
    m.insert(QStringLiteral("step_times_ns"), list);
    return m;
}

namespace {

// What a run's MFU needs from its work: the FLOPs recorded or costed inside its iterations (all
// of them when its lowest rank has none), the precision its kernels ran in, its GPUs.
struct WorkFlops
{
    double flops = 0, hardware = 0;
    TimeNs half = 0, full = 0;
    qint64 gpus = 0;
};

WorkFlops workFlops(const std::vector<RunSourceWork> &summaries)
{
    WorkFlops w;
    int lowest = INT_MAX;
    for (const RunSourceWork &x : summaries) {
        if (x.work.nodes == 0)
            continue;
        for (const auto &r : x.work.ranks)
            lowest = std::min(lowest, r.rank);
        w.gpus += qint64(x.work.gpus.size());
        w.half += x.work.halfPrecisionNs;
        w.full += x.work.fullPrecisionNs;
    }
    bool iterations = false;
    for (const RunSourceWork &x : summaries)
        for (const auto &r : x.work.ranks) {
            w.flops += r.flops;
            w.hardware += r.hardwareFlops;
            iterations = iterations || (r.rank == lowest && !r.iterations.empty());
        }
    if (!iterations)
        for (const RunSourceWork &x : summaries) {
            w.flops += x.work.flops;
            w.hardware += x.work.hardwareFlops;
        }
    return w;
}

} // namespace

namespace {

// The device the run names (its GPU model), and the MFU and HFU against its peak at the
// precision most of the compute-bound kernel time ran in, over `wall` (the iterations' time).
// A prediction does the work of its measured run in its own time: that run's FLOPs and
// precision, on the device the prediction names (a device change's target; else the measured
// run's).
void insertUtilisation(QJsonObject &m, Project &project, const QString &kind,
                       const QJsonObject &params, const std::vector<RunSourceWork> &summaries,
                       TimeNs wall)
{
    WorkFlops f = workFlops(summaries);
    QJsonObject deviceParams = params;
    if (f.flops <= 0 && kind == QLatin1String("predicted"))
        if (const auto base =
                project.findRun(params.value(QStringLiteral("measured_run")).toString())) {
            if (const auto baseWork = runSourceWork(project, *base, nullptr))
                f = workFlops(*baseWork);
            if (const auto row = runRow(project, *base);
                row && !params.contains(QStringLiteral("gpu_models")))
                deviceParams = row->params;
        }
    const QString device = WhatIfContext::deviceOf(deviceParams);
    const Device *dev = device.isEmpty() ? nullptr : DeviceCatalog::builtin().device(device);
    if (f.flops > 0 && dev && f.gpus > 0 && wall > 0) {
        const double peak =
            (f.half > f.full ? dev->fp16Tflops : dev->fp32Tflops) * 1e12 * double(f.gpus);
        // Above 100% of the peak is not physical (physical.h): not a metric, so never
        // a gate's, a report's or MLflow's.
        const auto mfu = physical::utilisation(f.flops / (double(wall) * 1e-9 * peak));
        const auto hfu =
            physical::utilisation(std::max(f.hardware, f.flops) / (double(wall) * 1e-9 * peak));
        if (mfu && hfu) {
            m.insert(QStringLiteral("mfu"), *mfu);
            m.insert(QStringLiteral("hfu"), *hfu);
        }
    }
    if (!device.isEmpty())
        m.insert(QStringLiteral("device"), device);
}

// Energy: the GPUs' power integrated over the iterations (or the active span of a run with
// only monitoring logs).
void insertEnergy(QJsonObject &m, const ResourceAttribution &resources)
{
    bool hasIterations = false;
    for (const Phase &p : resources.phases)
        hasIterations = hasIterations || p.kind == QLatin1String("iteration");
    double energy = 0;
    bool energyKnown = false;
    for (const PhaseUsage &u : resources.usage) {
        const Phase &p = resources.phases[size_t(u.phase)];
        const bool counted = hasIterations ? p.kind == QLatin1String("iteration")
                                           : p.kind == QLatin1String("active");
        if (counted && u.device != QLatin1String("host") && !std::isnan(u.energyJ)) {
            energy += u.energyJ;
            energyKnown = true;
        }
    }
    if (energyKnown)
        m.insert(QStringLiteral("energy_j"), energy);
}

// Memory: the GPU that peaked highest, and its peak per iteration; false with `error` when the
// memory events cannot be read.
bool insertMemory(QJsonObject &m, Project &project, RunId run, const QJsonObject &params,
                  const std::vector<RunSourceWork> &summaries, QString *error)
{
    if (auto memory = memoryPeaks(project, run, summaries, error)) {
        const QString device = WhatIfContext::deviceOf(params);
        if (const Device *dev =
                device.isEmpty() ? nullptr : DeviceCatalog::builtin().device(device))
            memory->boundByCapacity(dev->memGB * 1e9, dev->name);
        const DeviceMemory *top = memory->highestGpu();
        if (top) {
            m.insert(QStringLiteral("peak_memory_bytes"), top->peakAllocated);
            QJsonArray peaks;
            for (const MemoryIteration &it : top->iterations)
                peaks.append(it.peak);
            if (!peaks.isEmpty())
                m.insert(QStringLiteral("memory_peaks_bytes"), peaks);
        }
        return true;
    }
    return false;
}

} // namespace

std::optional<QJsonObject> computeRunMetrics(Project &project, RunId run, QString *error)
{
    QJsonObject m;
    QString kind;
    QJsonObject params;
    if (const auto row = runRow(project, run)) {
        kind = row->kind;
        params = row->params;
    }
    // A simulated run carries its metrics, as the simulator measured them.
    if (kind == QLatin1String("simulated") && params.contains(QStringLiteral("headline")))
        return params.value(QStringLiteral("headline")).toObject();
    const auto summaries = runSourceWork(project, run, error);
    if (!summaries)
        return std::nullopt;
    // The run's work, merged from its sources: nodes, span, GPUs, the lowest rank's iterations.
    qint64 nodes = 0;
    TimeNs origin = std::numeric_limits<TimeNs>::max(), end = std::numeric_limits<TimeNs>::min();
    int lowest = INT_MAX;
    GpuTime total;
    size_t gpus = 0;
    QSet<int> ranks;
    for (const RunSourceWork &x : *summaries) {
        const SourceWork &s = x.work;
        if (s.nodes == 0)
            continue;
        nodes += s.nodes;
        origin = std::min(origin, s.origin + x.offset);
        end = std::max(end, s.end + x.offset);
        for (const auto &r : s.ranks)
            lowest = std::min(lowest, r.rank);
        for (const auto &g : s.gpus) {
            ++gpus;
            total.window += g.end - g.start;
            total.compute += g.compute;
            total.communication += g.communication;
            total.copies += g.copies;
            total.idle += g.idle;
            if (g.rank >= 0)
                ranks.insert(g.rank);
        }
    }
    // A run of neither GPU work nor iterations (an MLflow run's own span) has no step time.
    const bool work = nodes > 0 && (lowest != INT_MAX || gpus > 0);
    PhaseFrame frame;
    std::vector<std::pair<TimeNs, TimeNs>> iterations;
    Iterations its; // the one definition of an iteration (iterations.h), from the summaries
    TimeNs mean = 0;
    if (work) {
        // The mean iteration: from the first iteration's start to the end of the last one's
        // work, GPU work launched inside the iterations included; without iterations, the
        // run's span.
        TimeNs to = std::numeric_limits<TimeNs>::min();
        for (const RunSourceWork &x : *summaries)
            for (const auto &r : x.work.ranks) {
                if (r.rank != lowest)
                    continue;
                for (const auto &[a, b] : r.iterations) {
                    iterations.emplace_back(a + x.offset, b + x.offset);
                    to = std::max(to, b + x.offset);
                }
                if (r.workEnd != 0)
                    to = std::max(to, r.workEnd + x.offset);
            }
        std::sort(iterations.begin(), iterations.end());
        if (iterations.empty()) {
            mean = end - origin;
        } else {
            for (const auto &[a, b] : iterations)
                its.starts.push_back(a);
            its.workEnd = to;
            mean = its.mean();
        }
        frame.origin = origin;
        frame.end = end;
        for (size_t k = 0; k < iterations.size(); ++k)
            frame.iterations.push_back({QStringLiteral("iteration %1").arg(k + 1),
                                        QStringLiteral("iteration"),
                                        iterations[k].first,
                                        iterations[k].second,
                                        {}});
    }
    QString counterError;
    const ResourceAttribution resources =
        attributeResources(project, run, work ? &frame : nullptr, &counterError);
    if (!counterError.isEmpty()) {
        if (error)
            *error = counterError;
        return std::nullopt;
    }
    const RunSummary usage = summarize(nullptr, nullptr, resources, {}, 0, 0);
    if (work) {
        const std::vector<TimeNs> times = its.times();
        if (!times.empty()) {
            const QJsonObject stats = stepStatistics(times);
            for (auto it = stats.begin(); it != stats.end(); ++it)
                m.insert(it.key(), it.value());
        } else if (mean > 0) {
            m.insert(QStringLiteral("step_mean_ns"), qint64(mean)); // the whole run, as one step
        }
        if (total.window > 0) {
            const double w = double(total.window);
            m.insert(QStringLiteral("gpu_busy"), double(total.busy()) / w);
            m.insert(QStringLiteral("compute"), double(total.compute) / w);
            m.insert(QStringLiteral("communication"), double(total.communication) / w);
            m.insert(QStringLiteral("copies"), double(total.copies) / w);
            m.insert(QStringLiteral("idle"), double(total.idle) / w);
        }
        // The span of the work (slices, not monitoring samples): what a prediction's replay
        // of the same work is compared with (the gates' end_to_end).
        m.insert(QStringLiteral("work_span_ns"), qint64(end - origin));
        insertUtilisation(m, project, kind, params, *summaries,
                          mean * std::max<TimeNs>(1, TimeNs(iterations.size())));
        m.insert(QStringLiteral("gpus"), qint64(gpus));
        if (!ranks.isEmpty())
            m.insert(QStringLiteral("ranks"), qint64(ranks.size()));
        if (usage.energyPerIterationJ >= 0)
            m.insert(QStringLiteral("energy_per_iteration_j"), usage.energyPerIterationJ);
    }
    if (usage.gpuUtilisation >= 0)
        m.insert(QStringLiteral("gpu_utilisation"), usage.gpuUtilisation);
    insertEnergy(m, resources);
    if (!insertMemory(m, project, run, params, *summaries, error))
        return std::nullopt;
    if (kind == QLatin1String("predicted") && params.contains(QStringLiteral("predicted_ns")))
        m.insert(QStringLiteral("predicted_ns"), params.value(QStringLiteral("predicted_ns")));
    const QJsonObject last = lastMlflowMetrics(project, run);
    if (!last.isEmpty())
        m.insert(QStringLiteral("last_metrics"), last);
    m.insert(QStringLiteral("version"), kRunMetricsVersion);
    return m;
}

bool updateRunMetrics(Project &project, const QList<RunId> &runs, QStringList *errors,
                      const std::function<bool(int, int, const QString &)> &progress)
{
    for (int i = 0; i < runs.size(); ++i) {
        const QString name = runName(project, runs[i]).value_or(QString());
        if (name.isEmpty())
            continue; // gone since
        if (progress && !progress(i, int(runs.size()), name))
            return false;
        QString why;
        const auto metrics = computeRunMetrics(project, runs[i], &why);
        if (!metrics) {
            if (errors)
                errors->append(
                    QStringLiteral("run '%1': headline metrics not computed: %2").arg(name, why));
            continue;
        }
        // Another program writing the project for longer than SQLite's busy timeout (a second
        // import) is not an error: the metrics are computed again by whoever lists the runs.
        if (!storeRunMetrics(project, runs[i], *metrics, &why) && errors &&
            !project.db().lastErrorWasBusy())
            errors->append(
                QStringLiteral("run '%1': headline metrics not stored: %2").arg(name, why));
    }
    if (progress)
        progress(int(runs.size()), int(runs.size()), QString());
    return true;
}

} // namespace gml::sim
