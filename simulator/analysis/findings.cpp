// SPDX-License-Identifier: GPL-3.0-or-later
#include "findings.h"

#include "findingsrules.h"

#include "devicecatalog.h"
#include "timeformat.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <map>
#include <numeric>

namespace gml::sim {

namespace {

// The thresholds of the monitoring rules (docs/analysis.md, "Findings"; the trace rules' are in
// findingsrules.cpp).
constexpr double kLowUtilisation = 50; // mean GPU utilisation, %, while active
constexpr double kMemoryFull = 0.90;   // memory used, of the GPU's memory

} // namespace

QString severityName(Severity s)
{
    switch (s) {
    case Severity::High:
        return QStringLiteral("high");
    case Severity::Medium:
        return QStringLiteral("medium");
    case Severity::Low:
        break;
    }
    return QStringLiteral("low");
}

Severity Finding::severity() const
{
    const double v = priced ? gain() : share;
    return v >= 0.20 ? Severity::High : v >= 0.05 ? Severity::Medium : Severity::Low;
}

QJsonObject Finding::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("rule"), rule);
    o.insert(QStringLiteral("title"), title);
    o.insert(QStringLiteral("detail"), detail);
    o.insert(QStringLiteral("severity"), severityName(severity()));
    o.insert(QStringLiteral("share"), share);
    if (!fix.isEmpty())
        o.insert(QStringLiteral("fix"), transformsToJson(fix));
    else
        o.insert(QStringLiteral("no_fix"), noFix);
    if (priced) {
        o.insert(QStringLiteral("gain"), gain());
        o.insert(QStringLiteral("iteration_before_ns"), qint64(before));
        o.insert(QStringLiteral("iteration_after_ns"), qint64(after));
    }
    if (!priceError.isEmpty())
        o.insert(QStringLiteral("price_error"), priceError);
    if (!notes.isEmpty())
        o.insert(QStringLiteral("model"), QJsonArray::fromStringList(notes));
    QJsonArray ev;
    for (const auto &e : evidence) {
        QJsonObject x{{QStringLiteral("what"), e.what},
                      {QStringLiteral("start_ns"), qint64(e.start)},
                      {QStringLiteral("end_ns"), qint64(e.end)}};
        if (e.rank >= 0)
            x.insert(QStringLiteral("rank"), e.rank);
        if (e.slice)
            x.insert(QStringLiteral("slice"), qint64(e.slice));
        ev.append(x);
    }
    o.insert(QStringLiteral("evidence"), ev);
    return o;
}

std::vector<Finding> findFindings(const DependencyGraph *graph, const Analysis *analysis,
                                  const ResourceAttribution &resources,
                                  const WhatIfContext &context)
{
    std::vector<Finding> out;
    const DeviceCatalog &catalog = context.catalog ? *context.catalog : DeviceCatalog::builtin();
    if (graph && analysis && !analysis->gpus.empty()) {
        traceFindings(*graph, *analysis, catalog, context, out);
    }

    // Monitoring: low utilisation (runs without a kernel trace), memory near capacity.
    for (const auto &u : resources.usage) {
        const Phase &phase = resources.phases[size_t(u.phase)];
        if (!graph && phase.kind == QLatin1String("active") && u.has(Metric::GpuUtilisation) &&
            u.max[size_t(Metric::GpuUtilisation)] > 0 &&
            u.mean[size_t(Metric::GpuUtilisation)] < kLowUtilisation) {
            const double util = u.mean[size_t(Metric::GpuUtilisation)];
            Finding f;
            f.rule = QStringLiteral("low-utilisation");
            f.share = 1 - util / 100;
            f.title = QStringLiteral(
                          "Low utilisation: %1 runs kernels %2% of the time while the job runs")
                          .arg(u.device)
                          .arg(util, 0, 'f', 0);
            f.detail =
                QStringLiteral(
                    "The monitoring logs sample whether a kernel ran; over the %1 of GPU activity "
                    "the mean is %2% (peak %3%)%4. Record a kernel trace (PyTorch profiler, "
                    "Nsight Systems) to see whether it waits for data, launches or the host.")
                    .arg(formatDuration(phase.end - phase.start))
                    .arg(util, 0, 'f', 1)
                    .arg(u.max[size_t(Metric::GpuUtilisation)], 0, 'f', 0)
                    .arg(u.has(Metric::SmActive)
                             ? QStringLiteral(", SMs active %1% of the time")
                                   .arg(u.mean[size_t(Metric::SmActive)] * 100, 0, 'f', 1)
                             : QString());
            f.noFix = QStringLiteral("monitoring logs have no dependency graph to replay");
            f.evidence.push_back({QStringLiteral("%1 during %2").arg(u.device, phase.name), -1,
                                  phase.start, phase.end, 0});
            out.push_back(std::move(f));
        }
    }
    {
        // Memory near capacity: the peak over the run against the GPU's memory.
        std::map<QString, std::pair<double, double>> memory; // device -> (peak used, total)
        for (const auto &u : resources.usage) {
            auto &m = memory[u.device];
            if (u.has(Metric::MemoryUsed))
                m.first = std::max(m.first, u.max[size_t(Metric::MemoryUsed)]);
            if (u.has(Metric::MemoryTotal))
                m.second = std::max(m.second, u.max[size_t(Metric::MemoryTotal)]);
        }
        for (const auto &[device, m] : memory)
            if (m.second > 0 && m.first >= kMemoryFull * m.second) {
                Finding f;
                f.rule = QStringLiteral("memory-capacity");
                f.share = m.first / m.second;
                f.title = QStringLiteral("Memory near capacity: %1 peaks at %2 of %3 MiB")
                              .arg(device, pct(m.first / m.second))
                              .arg(m.second, 0, 'f', 0);
                f.detail = QStringLiteral(
                    "A larger batch or model will not fit, and the allocator may be fragmenting "
                    "(cudaMalloc retries). Activation checkpointing, a smaller micro-batch with "
                    "gradient accumulation, or sharding optimizer state (ZeRO, FSDP) make room.");
                f.noFix = QStringLiteral("memory is not time: no what-if transform removes it");
                if (!resources.phases.empty())
                    f.evidence.push_back({QStringLiteral("%1 memory used, peak %2 MiB")
                                              .arg(device)
                                              .arg(m.first, 0, 'f', 0),
                                          -1, resources.phases.front().start,
                                          resources.phases.back().end, 0});
                out.push_back(std::move(f));
            }
    }
    return out;
}

} // namespace gml::sim
