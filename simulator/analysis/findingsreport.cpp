// SPDX-License-Identifier: GPL-3.0-or-later
// The run summary (step time, GPU busy, MFU, energy) and the report of `grademl analyze`.
#include "findings.h"

#include "devicecatalog.h"
#include "findingsrules.h"
#include "physical.h"
#include "project.h"
#include "safetext.h"
#include "timeformat.h"

#include <QJsonArray>

#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

namespace gml::sim {

namespace {

// The FLOPs of `items` ((start, resource, count)) inside their trace rank's iterations (all of
// them in a run without iterations); sourcesummary.h counts the same way, per source.
double flopsInIterations(const DependencyGraph &graph,
                         const std::vector<std::tuple<TimeNs, int, double>> &items)
{
    const auto &cs = graph.containers();
    const auto &resources = graph.resources();
    auto keyOf = [&](int resource) {
        return std::make_pair(resources[size_t(resource)].source,
                              std::max(resources[size_t(resource)].rank, 0));
    };
    std::map<std::pair<SourceId, int>, std::vector<std::pair<TimeNs, TimeNs>>> windows;
    for (int c : graph.steps())
        windows[keyOf(cs[size_t(c)].resource)].emplace_back(cs[size_t(c)].start, cs[size_t(c)].end);
    for (auto &[key, list] : windows)
        std::sort(list.begin(), list.end());
    double total = 0;
    for (const auto &[start, resource, count] : items) {
        if (!windows.empty()) {
            const auto w = windows.find(keyOf(resource));
            if (w == windows.end())
                continue;
            const auto it =
                std::upper_bound(w->second.begin(), w->second.end(),
                                 std::make_pair(start, std::numeric_limits<TimeNs>::max()));
            if (it == w->second.begin() || start >= std::prev(it)->second)
                continue;
        }
        total += count;
    }
    return total;
}

std::vector<std::tuple<TimeNs, int, double>> recordedItems(const DependencyGraph &graph)
{
    std::vector<std::tuple<TimeNs, int, double>> items;
    for (const auto &f : graph.recordedFlops())
        items.emplace_back(f.start, f.resource, f.count);
    return items;
}

} // namespace

double recordedFlops(const DependencyGraph &graph)
{
    return flopsInIterations(graph, recordedItems(graph));
}

double hardwareFlops(const DependencyGraph &graph)
{
    // recordedFlops() holds the recorded counts and the model FLOPs of costed ops; the other
    // costed ops (known shapes, no recorded count) add theirs.
    auto items = recordedItems(graph);
    for (const CostedOp &o : graph.opCosts())
        if (o.known && !o.recorded && !o.modelFlops && o.flops > 0)
            items.emplace_back(o.start, o.thread, o.flops);
    return flopsInIterations(graph, items);
}

RunSummary summarize(const DependencyGraph *graph, const Analysis *analysis,
                     const ResourceAttribution &resources, const WhatIfContext &context,
                     double flops, TimeNs stepTime, double hardware)
{
    RunSummary s;
    s.device = context.measuredDevice;
    s.flops = flops;
    s.hardwareFlops = std::max(hardware, flops);
    if (graph) {
        const auto its = graph->iterations();
        s.iterations = qint64(its.size());
        s.stepTime = s.stepTimeAll = stepTime;
        const Iterations measured = measuredIterations(*graph);
        s.warmupIterations = measured.warmup();
        if (s.warmupIterations > 0)
            s.stepTime = measured.steadyMean(s.warmupIterations);
        if (flops > 0) {
            const DeviceCatalog &cat =
                context.catalog ? *context.catalog : DeviceCatalog::builtin();
            const Device *dev = s.device.isEmpty() ? nullptr : cat.device(s.device);
            // The peak at the precision most of the compute-bound kernel time ran in.
            TimeNs half = 0, full = 0;
            QHash<StringId, int> precision; // per name: 0 not compute-bound, 1 half, 2 full
            for (const Node &n : graph->nodes()) {
                if (n.kind != NodeKind::Kernel)
                    continue;
                auto it = precision.find(n.name);
                if (it == precision.end()) {
                    const QString name = graph->name(n.name);
                    it = precision.insert(n.name, classifyKernel(name) != Bound::Compute ? 0
                                                  : usesHalfPrecision(name)              ? 1
                                                                                         : 2);
                }
                if (*it)
                    (*it == 1 ? half : full) += n.end - n.start;
            }
            const size_t gpus = graph->gpuDevices().size();
            const TimeNs wall = s.stepTimeAll * std::max<TimeNs>(1, TimeNs(its.size()));
            if (dev && gpus > 0 && wall > 0) {
                // Half precision at the bf16 peak when most of the half-precision FLOPs the
                // shapes cost are bfloat16 by their recorded dtype (the two peaks differ on
                // GPUs without a bf16 unit).
                double fp16 = 0, bf16 = 0;
                for (const CostedOp &o : graph->opCosts())
                    if (o.known && o.half)
                        (o.bf16 ? bf16 : fp16) += o.flops;
                const double halfPeak = bf16 > fp16 ? dev->bf16Tflops : dev->fp16Tflops;
                const double peak =
                    (half > full ? halfPeak : dev->fp32Tflops) * 1e12 * double(gpus);
                const auto mfu = physical::utilisation(flops / (double(wall) * 1e-9 * peak));
                const auto hfu =
                    physical::utilisation(s.hardwareFlops / (double(wall) * 1e-9 * peak));
                if (mfu && hfu) {
                    s.mfu = *mfu;
                    s.hfu = *hfu;
                } else {
                    s.mfuUnknown =
                        QStringLiteral("the FLOPs counted (%1) would be %2% of %3's "
                                       "peak: above 100%, not physical")
                            .arg(s.hardwareFlops, 0, 'g', 3)
                            .arg(100 * s.hardwareFlops / (double(wall) * 1e-9 * peak), 0, 'g', 3)
                            .arg(s.device);
                    s.warnings << QStringLiteral("MFU dropped: ") + s.mfuUnknown;
                }
            } else {
                s.mfuUnknown =
                    s.device.isEmpty() ? QStringLiteral("the GPU is not recorded")
                    : !dev ? QStringLiteral("GPU '%1' is not in the device catalog").arg(s.device)
                           : QStringLiteral("no GPU work in the iterations");
            }
        } else {
            const auto gaps = graph->opCostGaps();
            s.mfuUnknown = gaps.ops > 0 && graph->opCosts().size() == size_t(gaps.ops)
                               ? QStringLiteral("no shapes recorded (profile with "
                                                "record_shapes=True)")
                               : QStringLiteral("no matmul, convolution or attention with "
                                                "recorded shapes or FLOPs");
        }
    }
    if (graph) {
        // Ops dropped for shapes or FLOPs outside physical bounds: counted, the first named.
        qint64 dropped = 0;
        QString example;
        for (const CostedOp &o : graph->opCosts())
            if (o.outOfDomain && !dropped++)
                example = QStringLiteral("%1: %2").arg(graph->name(o.name), o.missing);
        if (dropped)
            s.warnings << QStringLiteral("%1 op(s) not costed, their shapes or FLOPs outside "
                                         "physical bounds (first: %2)")
                              .arg(dropped)
                              .arg(safeText(example, 160));
    }
    if (analysis && !analysis->gpus.empty()) {
        TimeNs busy = 0, window = 0;
        for (const auto &g : analysis->gpus) {
            busy += g.time.busy();
            window += g.time.window;
        }
        s.gpuBusy = window > 0 ? double(busy) / double(window) : -1;
    }
    // Monitoring: the mean utilisation of the GPUs that ran, over the active phase (or the run).
    double utilSum = 0, energySum = 0;
    int utilCount = 0, iterationPhases = 0;
    std::vector<char> energyPhase(resources.phases.size(), 0);
    for (const auto &u : resources.usage) {
        const Phase &p = resources.phases[size_t(u.phase)];
        if ((p.kind == QLatin1String("active") || p.kind == QLatin1String("run")) &&
            u.has(Metric::GpuUtilisation) && u.max[size_t(Metric::GpuUtilisation)] > 0) {
            utilSum += u.mean[size_t(Metric::GpuUtilisation)];
            ++utilCount;
        }
        if (p.kind == QLatin1String("iteration") && !std::isnan(u.energyJ)) {
            energySum += u.energyJ;
            if (!energyPhase[size_t(u.phase)]) {
                energyPhase[size_t(u.phase)] = 1;
                ++iterationPhases;
            }
        }
    }
    if (utilCount)
        s.gpuUtilisation = utilSum / utilCount;
    if (iterationPhases)
        s.energyPerIterationJ = energySum / iterationPhases;
    return s;
}

std::optional<RunReport> analyzeRun(Project &project, RunId run, const QString &runName,
                                    const AnalysisScope &scope, QString *error,
                                    const AnalysisProgress &progress,
                                    std::shared_ptr<const DependencyGraph> *graphOut,
                                    const std::function<void(const RunReport &)> &unpriced)
{
    auto step = [&](const QString &stage, int done, int total) {
        if (progress && !progress(stage, done, total)) {
            if (error)
                *error = QStringLiteral("cancelled");
            return false;
        }
        return true;
    };
    RunReport report;
    report.run = runName;
    if (!step(QStringLiteral("building the dependency graph"), 0, 1))
        return std::nullopt;
    QString why;
    std::shared_ptr<const DependencyGraph> graph;
    if (auto built = DependencyGraph::build(project, run, &why))
        graph = std::make_shared<const DependencyGraph>(std::move(*built));
    if (!step(QStringLiteral("attributing counters to phases"), 0, 1))
        return std::nullopt;
    QString counterError;
    report.resources = attributeResources(project, run, graph.get(), &counterError);
    if (!counterError.isEmpty()) {
        if (error)
            *error = counterError;
        return std::nullopt;
    }
    if (!step(QStringLiteral("reading the memory events"), 0, 1))
        return std::nullopt;
    QString memoryError;
    if (auto memory = memoryReport(project, run, &memoryError)) {
        if (!memory->devices.empty())
            report.memory = std::move(*memory);
    } else {
        if (error)
            *error = memoryError;
        return std::nullopt;
    }
    if (!graph && report.resources.isEmpty()) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    WhatIfContext context;
    double flops = 0, hardware = 0;
    if (graph) {
        context = WhatIfContext::forRun(*graph, project, run);
        AnalysisScope s = scope;
        if (s.range)
            s.range =
                std::make_pair(graph->origin() + s.range->first, graph->origin() + s.range->second);
        if (!step(QStringLiteral("analysing GPU time"), 0, 1))
            return std::nullopt;
        report.analysis = analyze(*graph, s);
        report.roofline = roofline(*graph, context.measuredDevice,
                                   context.catalog ? *context.catalog : DeviceCatalog::builtin());
        report.origin = graph->origin();
        flops = recordedFlops(*graph);
        hardware = hardwareFlops(*graph);
    } else if (!report.resources.phases.empty()) {
        report.origin = report.resources.phases.front().start;
    }
    if (report.memory && graph) {
        // A peak above the GPU's memory is not a measurement (physical.h): dropped, said.
        const DeviceCatalog &cat = context.catalog ? *context.catalog : DeviceCatalog::builtin();
        if (const Device *dev =
                context.measuredDevice.isEmpty() ? nullptr : cat.device(context.measuredDevice))
            report.memory->boundByCapacity(dev->memGB * 1e9, dev->name);
    }
    report.findings = findFindings(graph.get(), report.analysis ? &*report.analysis : nullptr,
                                   report.resources, context);
    if (report.roofline)
        for (Finding &f : rooflineFindings(*report.roofline))
            report.findings.push_back(std::move(f));
    if (report.memory)
        for (Finding &f : memoryFindings(*report.memory))
            report.findings.push_back(std::move(f));
    std::optional<Replay> identity;
    if (graph)
        identity = replay(*graph, ReplayInput::measured(*graph));
    report.summary =
        summarize(graph.get(), report.analysis ? &*report.analysis : nullptr, report.resources,
                  context, flops, identity ? meanIteration(*graph, *identity) : 0, hardware);
    if (report.memory)
        report.summary.warnings += report.memory->warnings;
    if (identity) {
        std::map<int, TimeNs> byRank;
        for (const auto &step : identity->criticalPath)
            byRank[graph->resources()[size_t(graph->nodes()[size_t(step.node)].resource)].rank] +=
                step.time;
        report.criticalByRank.assign(byRank.begin(), byRank.end());
        std::sort(report.criticalByRank.begin(), report.criticalByRank.end(),
                  [](const auto &x, const auto &y) { return x.second > y.second; });
        report.criticalLength = identity->makespan();
    }
    if (unpriced)
        unpriced(report);
    if (graph) {
        bool cancelled = false;
        priceFindings(graph, report.findings, context, &*identity, [&](int done, int total) {
            cancelled = !step(QStringLiteral("pricing the findings"), done, total);
            return !cancelled;
        });
        if (cancelled)
            return std::nullopt;
    } else {
        rankFindings(report.findings);
    }
    if (graphOut)
        *graphOut = graph;
    return report;
}

QString RunSummary::stepText() const
{
    if (iterations <= 0)
        return stepTime > 0 ? QStringLiteral("span %1").arg(formatDuration(stepTime)) : QString();
    QString t = QStringLiteral("step %1").arg(formatDuration(stepTime));
    if (warmupIterations > 0)
        t += QStringLiteral(" (%1 warm-up of %2 iterations left out; %3 with them)")
                 .arg(warmupIterations)
                 .arg(iterations)
                 .arg(formatDuration(stepTimeAll));
    else
        t += QStringLiteral(" (%1 iterations)").arg(iterations);
    return t;
}

QJsonObject RunSummary::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("iterations"), iterations);
    o.insert(QStringLiteral("step_time_ns"), qint64(stepTime));
    if (iterations > 0) {
        o.insert(QStringLiteral("warmup_iterations"), warmupIterations);
        o.insert(QStringLiteral("step_time_all_ns"), qint64(stepTimeAll));
    }
    if (gpuBusy >= 0)
        o.insert(QStringLiteral("gpu_busy"), gpuBusy);
    if (flops > 0)
        o.insert(QStringLiteral("flops"), flops);
    if (hfu >= 0) {
        o.insert(QStringLiteral("hfu"), hfu);
        o.insert(QStringLiteral("hardware_flops"), hardwareFlops);
    }
    if (mfu >= 0) {
        o.insert(QStringLiteral("mfu"), mfu);
    } else {
        o.insert(QStringLiteral("mfu"), QJsonValue::Null);
        if (!mfuUnknown.isEmpty())
            o.insert(QStringLiteral("mfu_unknown"), mfuUnknown);
    }
    if (!device.isEmpty())
        o.insert(QStringLiteral("device"), device);
    if (!warnings.isEmpty())
        o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(warnings));
    if (gpuUtilisation >= 0)
        o.insert(QStringLiteral("gpu_utilisation"), gpuUtilisation);
    if (energyPerIterationJ >= 0)
        o.insert(QStringLiteral("energy_per_iteration_j"), energyPerIterationJ);
    return o;
}

QJsonObject RunReport::toJson() const
{
    QJsonObject o = analysis ? analysis->toJson() : QJsonObject();
    o.insert(QStringLiteral("run"), run);
    o.insert(QStringLiteral("summary"), summary.toJson());
    if (!resources.isEmpty())
        o.insert(QStringLiteral("resources"), resources.toJson());
    QJsonArray fs;
    for (const auto &f : findings)
        fs.append(f.toJson());
    o.insert(QStringLiteral("findings"), fs);
    QJsonArray critical;
    for (const auto &[rank, time] : criticalByRank)
        critical.append(
            QJsonObject{{QStringLiteral("rank"), rank}, {QStringLiteral("time_ns"), qint64(time)}});
    o.insert(QStringLiteral("critical_path_by_rank"), critical);
    if (memory) {
        QJsonArray peaks;
        for (const DeviceMemory &d : memory->devices) {
            QJsonObject p{{QStringLiteral("device"), d.device},
                          {QStringLiteral("peak_allocated_bytes"), d.peakAllocated},
                          {QStringLiteral("peak_at_ns"), d.peakAt},
                          {QStringLiteral("never_freed_bytes"), d.neverFreedBytes}};
            p.insert(QStringLiteral("rank"), d.rank >= 0 ? QJsonValue(d.rank) : QJsonValue());
            p.insert(QStringLiteral("peak_reserved_bytes"),
                     d.peakReserved ? QJsonValue(*d.peakReserved) : QJsonValue());
            peaks.append(p);
        }
        o.insert(QStringLiteral("memory"), peaks);
    }
    return o;
}

QString gainText(const Finding &f)
{
    if (f.priced)
        return QStringLiteral("up to -%1% per iteration (%2 -> %3)")
            .arg(f.gain() * 100, 0, 'f', 1)
            .arg(formatDuration(f.before), formatDuration(f.after));
    if (!f.priceError.isEmpty())
        return QStringLiteral("not priced: %1").arg(f.priceError);
    return QStringLiteral("no what-if: %1").arg(f.noFix);
}

QString RunReport::toText() const
{
    QString t = QStringLiteral("run %1\n").arg(run);
    QStringList head;
    if (const QString step = summary.stepText(); !step.isEmpty())
        head << step;
    if (summary.gpuBusy >= 0)
        head << QStringLiteral("GPU busy %1%").arg(summary.gpuBusy * 100, 0, 'f', 1);
    if (summary.mfu >= 0)
        head << QStringLiteral("MFU %1%").arg(summary.mfu * 100, 0, 'f', 1)
             << QStringLiteral("HFU %1%").arg(summary.hfu * 100, 0, 'f', 1);
    if (summary.gpuUtilisation >= 0)
        head << QStringLiteral("GPU utilisation %1% (monitoring)")
                    .arg(summary.gpuUtilisation, 0, 'f', 1);
    if (summary.energyPerIterationJ >= 0)
        head << QStringLiteral("%1 J per iteration").arg(summary.energyPerIterationJ, 0, 'f', 1);
    if (memory)
        for (const DeviceMemory &d : memory->devices)
            if (d.isGpu())
                head << QStringLiteral("%1 memory peak %2 allocated%3")
                            .arg(d.device, formatBytes(d.peakAllocated),
                                 d.peakReserved ? QStringLiteral(" (%1 reserved)")
                                                      .arg(formatBytes(*d.peakReserved))
                                                : QString());
    if (!head.isEmpty())
        t += QStringLiteral("Summary: %1\n").arg(head.join(QStringLiteral(" · ")));
    for (const QString &w : summary.warnings)
        t += QStringLiteral("warning: %1\n").arg(w);
    t += QStringLiteral("Findings (%1), by what fixing each would gain:\n").arg(findings.size());
    if (findings.empty())
        t += QStringLiteral("  none: no rule passed its threshold\n");
    for (size_t k = 0; k < findings.size(); ++k) {
        const Finding &f = findings[k];
        t += QStringLiteral("  %1. [%2] %3\n     %4\n     %5\n")
                 .arg(k + 1)
                 .arg(severityName(f.severity()), f.title, gainText(f), f.detail);
        if (!f.fix.isEmpty()) {
            QStringList what;
            for (const auto &x : f.fix)
                what << x.describe();
            t += QStringLiteral("     what-if: %1\n").arg(what.join(QStringLiteral("; ")));
        }
        for (const auto &n : f.notes)
            t += QStringLiteral("     model: %1\n").arg(n);
        for (size_t e = 0; e < f.evidence.size() && e < 3; ++e)
            t += QStringLiteral("     evidence: %1 at %2\n")
                     .arg(f.evidence[e].what, formatDuration(f.evidence[e].start - origin));
    }
    if (criticalByRank.size() > 1) {
        QStringList parts;
        for (const auto &[rank, time] : criticalByRank)
            parts << QStringLiteral("rank %1 %2 (%3%)")
                         .arg(rank)
                         .arg(formatDuration(time))
                         .arg(criticalLength > 0 ? 100.0 * double(time) / double(criticalLength)
                                                 : 0,
                              0, 'f', 1);
        t += QStringLiteral("Critical path across ranks (%1): %2\n")
                 .arg(formatDuration(criticalLength), parts.join(QStringLiteral(", ")));
    }
    if (analysis)
        t += analysis->toText();
    t += resources.toText();
    return t;
}

} // namespace gml::sim
