// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysischarts.h"

#include "theme.h"
#include "timeformat.h"

#include <map>

namespace gml {

namespace {

// The breakdown's colours: the studio's one palette (render/theme.h).
QColor resource(ResourceClass c)
{
    return Theme::current().resource(c);
}

double ms(TimeNs t)
{
    return double(t) / 1e6;
}

std::vector<ChartSeries> breakdownSeries()
{
    return {{QStringLiteral("compute"), resource(ResourceClass::Compute), {}},
            {QStringLiteral("communication"), resource(ResourceClass::Communication), {}},
            {QStringLiteral("copies"), resource(ResourceClass::Copies), {}},
            {QStringLiteral("idle"), resource(ResourceClass::Idle), {}}};
}

void addBreakdown(std::vector<ChartSeries> &s, const GpuTime &t)
{
    s[0].values.push_back(ms(t.compute));
    s[1].values.push_back(ms(t.communication));
    s[2].values.push_back(ms(t.copies));
    s[3].values.push_back(ms(t.idle));
}

QColor familyColour(const QString &family)
{
    static const std::map<QString, QColor> colours{
        {QStringLiteral("gemm"), QColor(0x4c, 0x78, 0xa8)},
        {QStringLiteral("convolution"), QColor(0x59, 0xa1, 0x4f)},
        {QStringLiteral("attention"), QColor(0xb0, 0x7a, 0xa1)},
        {QStringLiteral("elementwise"), QColor(0xed, 0xc9, 0x48)},
        {QStringLiteral("reduction"), QColor(0x76, 0xb7, 0xb2)},
        {QStringLiteral("normalization"), QColor(0x9d, 0xd8, 0xd3)},
        {QStringLiteral("softmax"), QColor(0x4e, 0x9a, 0x95)},
        {QStringLiteral("indexing"), QColor(0xd4, 0xa6, 0xc8)},
        {QStringLiteral("optimizer"), QColor(0xba, 0xb0, 0xac)},
        {QStringLiteral("communication"), QColor(0xe4, 0x57, 0x56)},
        {QStringLiteral("copy"), QColor(0xf2, 0x8e, 0x2b)},
        {QStringLiteral("other"), QColor(0x9c, 0x75, 0x5f)}};
    const auto it = colours.find(family);
    return it == colours.end() ? QColor(0x9c, 0x75, 0x5f) : it->second;
}

} // namespace

QColor chartColour(int k)
{
    static const QColor c[] = {QColor(0x4c, 0x78, 0xa8), QColor(0xe4, 0x57, 0x56),
                               QColor(0x59, 0xa1, 0x4f), QColor(0xb0, 0x7a, 0xa1),
                               QColor(0xf2, 0x8e, 0x2b), QColor(0x76, 0xb7, 0xb2),
                               QColor(0x9c, 0x75, 0x5f), QColor(0xed, 0xc9, 0x48)};
    return c[size_t(k) % (sizeof c / sizeof c[0])];
}

AnalysisCharts analysisCharts(const sim::RunReport &report)
{
    AnalysisCharts out;
    const TimeNs origin = report.origin;
    if (report.roofline)
        out.roofline = rooflineChart(*report.roofline);
    if (report.analysis) {
        const sim::Analysis &a = *report.analysis;
        // Per iteration: the lowest rank's first GPU, one bar per ProfilerStep.
        out.iterations.title = QStringLiteral("GPU time per iteration");
        out.iterations.valueLabel = QStringLiteral("ms");
        out.iterations.series = breakdownSeries();
        QString device;
        for (const auto &it : a.iterations) {
            if (it.time.window <= 0) // no GPU time known (a cluster project's steps)
                continue;
            if (device.isEmpty())
                device = it.device;
            if (it.device != device)
                continue;
            out.iterations.categories
                << it.name.section(QLatin1Char('#'), -1).prepend(QLatin1Char('#'));
            addBreakdown(out.iterations.series, it.time);
        }
        if (!device.isEmpty())
            out.iterations.title += QStringLiteral(" (%1)").arg(device);
        // Per GPU (a rank's GPUs in rank order).
        out.ranks.title = QStringLiteral("GPU time per GPU");
        out.ranks.valueLabel = QStringLiteral("ms");
        out.ranks.series = breakdownSeries();
        for (const auto &g : a.gpus) {
            out.ranks.categories << g.device;
            addBreakdown(out.ranks.series, g.time);
        }
        if (a.gpus.empty() && a.ranks.size() > 1) {
            // A cluster project's report has each rank's compute and communication only.
            // Many ranks: their numbers alone, which fit under bars a few pixels wide.
            const bool many = a.ranks.size() > 8;
            out.ranks.title = many ? QStringLiteral("GPU time per rank (by rank number)")
                                   : QStringLiteral("GPU time per rank");
            out.ranks.series.resize(2);
            for (const auto &r : a.ranks) {
                out.ranks.categories
                    << (many ? QString::number(r.rank) : QStringLiteral("rank %1").arg(r.rank));
                out.ranks.series[0].values.push_back(ms(r.compute));
                out.ranks.series[1].values.push_back(ms(r.communication));
            }
        }
        // Kernel families: one bar per family.
        out.families.title = QStringLiteral("Kernel time by family");
        // Names no rule of the kernel taxonomy knows are said, not hidden in "other".
        if (const auto unknown = a.unrecognised(1); unknown.names > 0) {
            const QString &largest = unknown.top.front()->name;
            out.families.title +=
                QStringLiteral(" · other: %1 unrecognised name%2, the largest '%3'")
                    .arg(unknown.names)
                    .arg(unknown.names == 1 ? QString() : QStringLiteral("s"))
                    .arg(largest.size() > 48 ? largest.left(47) + QChar(0x2026) : largest);
        }
        out.families.valueLabel = QStringLiteral("ms");
        out.families.legend = false;
        // One series per family, so each bar has its colour (zero at the other families).
        for (size_t k = 0; k < a.families.size(); ++k) {
            const auto &f = a.families[k];
            out.families.categories << f.family;
            ChartSeries bar{f.family, familyColour(f.family),
                            std::vector<double>(a.families.size(), 0.0)};
            bar.values[k] = ms(f.time);
            out.families.series.push_back(std::move(bar));
        }
    }
    // Utilisation over time with the phases shaded; without counters, the launch queue.
    const auto &res = report.resources;
    int k = 0;
    for (const auto &s : res.series) {
        if (s.metric != sim::Metric::GpuUtilisation)
            continue;
        double peak = 0;
        for (const auto &[t, v] : s.samples)
            peak = std::max(peak, v);
        if (peak <= 0)
            continue; // a GPU the job did not use
        TimeChart::Line line{QStringLiteral("%1 utilisation (%2)").arg(s.device, s.source),
                             chartColour(k++),
                             {},
                             {}};
        for (const auto &[t, v] : s.samples) {
            line.x.push_back(double(t - origin) / 1e9);
            line.y.push_back(v);
        }
        out.utilisation.lines.push_back(std::move(line));
    }
    if (!out.utilisation.lines.empty()) {
        out.utilisation.title = QStringLiteral("GPU utilisation (monitoring), phases shaded");
        out.utilisation.valueLabel = QStringLiteral("%");
        for (const auto &p : res.phases) {
            if (p.kind == QLatin1String("run") || p.kind == QLatin1String("active") ||
                p.kind == QLatin1String("busy"))
                continue;
            const QColor c = p.kind == QLatin1String("data loading") ? QColor(0xf2, 0x8e, 0x2b, 60)
                             : p.kind == QLatin1String("iteration")  ? QColor(0x4c, 0x78, 0xa8, 25)
                                                                     : QColor(0x80, 0x80, 0x80, 45);
            const std::vector<std::pair<TimeNs, TimeNs>> whole{{p.start, p.end}};
            for (const auto &[start, end] : p.spans.empty() ? whole : p.spans)
                out.utilisation.bands.push_back(
                    {double(start - origin) / 1e9, double(end - origin) / 1e9, p.name, c});
        }
    } else if (report.analysis) {
        out.utilisation.title = QStringLiteral("Launch queue: GPU work launched and not finished");
        out.utilisation.valueLabel = QStringLiteral("kernels");
        for (const auto &g : report.analysis->gpus) {
            if (g.queue.empty())
                continue;
            TimeChart::Line line{QStringLiteral("%1 mean").arg(g.device), chartColour(k++), {}, {}};
            for (const auto &q : g.queue) {
                line.x.push_back(double((q.start + q.end) / 2 - origin) / 1e9);
                line.y.push_back(q.mean);
            }
            out.utilisation.lines.push_back(std::move(line));
            if (out.utilisation.lines.size() == 8)
                break;
        }
        for (const auto &it : report.analysis->iterations)
            if (it.rank == report.analysis->iterations.front().rank &&
                it.device == report.analysis->iterations.front().device)
                out.utilisation.bands.push_back(
                    {double(it.start - origin) / 1e9, double(it.end - origin) / 1e9, it.name,
                     QColor(0x4c, 0x78, 0xa8, out.utilisation.bands.size() % 2 ? 18 : 36)});
        if (out.utilisation.lines.empty())
            out.utilisation = {}; // no queue recorded (a cluster project's report): no chart
    }
    return out;
}

TimeChart memoryChart(const DeviceMemory &d, TimeNs origin)
{
    TimeChart c;
    const bool gib = d.peakReserved.value_or(d.peakAllocated) >= 2.0 * (1 << 30);
    const double unit = gib ? double(1 << 30) : double(1 << 20);
    c.valueLabel = gib ? QStringLiteral("GiB") : QStringLiteral("MiB");
    c.title = QObject::tr("%1 memory · peak %2 allocated at %3")
                  .arg(d.device, formatBytes(d.peakAllocated), formatDuration(d.peakAt - origin));
    auto line = [&](const QString &name, const QColor &colour,
                    const std::vector<std::pair<TimeNs, double>> &curve) {
        TimeChart::Line l{name, colour, {}, {}};
        for (const auto &[t, v] : curve) {
            l.x.push_back(double(t - origin) / 1e9);
            l.y.push_back(v / unit);
        }
        c.lines.push_back(std::move(l));
    };
    line(QObject::tr("allocated"), chartColour(0), d.curve);
    if (!d.reservedCurve.empty())
        line(QObject::tr("reserved"), QColor(0x9d, 0x9d, 0x9d), d.reservedCurve);
    for (size_t k = 0; k < d.iterations.size(); ++k)
        c.bands.push_back({double(d.iterations[k].start - origin) / 1e9,
                           double(d.iterations[k].end - origin) / 1e9,
                           QObject::tr("iteration %1").arg(k + 1),
                           QColor(0x4c, 0x78, 0xa8, k % 2 ? 18 : 36)});
    c.marks.push_back({double(d.peakAt - origin) / 1e9,
                       QObject::tr("peak %1").arg(formatBytes(d.peakAllocated)),
                       QColor(0xc0, 0x39, 0x2b)});
    return c;
}

} // namespace gml
