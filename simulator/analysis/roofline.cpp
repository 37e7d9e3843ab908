// SPDX-License-Identifier: GPL-3.0-or-later
#include "roofline.h"

#include "devicecatalog.h"
#include "timeformat.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace gml::sim {

QString RooflineOp::precision() const
{
    return bf16 ? QStringLiteral("bf16") : half ? QStringLiteral("fp16") : QStringLiteral("fp32");
}

double RooflineOp::achievedTflops() const
{
    return time > 0 ? flops / (double(time) * 1e-9) / 1e12 : 0.0;
}

double RooflineOp::achievedGbps() const
{
    return time > 0 ? bytes / (double(time) * 1e-9) / 1e9 : 0.0;
}

double RooflineOp::intensity() const
{
    return bytes > 0 ? flops / bytes : 0.0;
}

namespace {

// The costed op (an index into g.opCosts()) whose span on `resource` holds `t`; -1: none.
class OpFinder
{
public:
    explicit OpFinder(const DependencyGraph &g) : m_ops(g.opCosts())
    {
        for (size_t i = 0; i < m_ops.size(); ++i)
            m_byResource[m_ops[i].thread].push_back(int(i));
        for (auto &[r, v] : m_byResource)
            std::sort(v.begin(), v.end(), [&](int a, int b) {
                return m_ops[size_t(a)].start < m_ops[size_t(b)].start;
            });
    }
    int at(int resource, TimeNs t) const
    {
        const auto it = m_byResource.find(resource);
        if (it == m_byResource.end())
            return -1;
        const auto &v = it->second;
        auto p = std::upper_bound(v.begin(), v.end(), t,
                                  [&](TimeNs x, int i) { return x < m_ops[size_t(i)].start; });
        if (p == v.begin())
            return -1;
        const int i = *std::prev(p);
        return t < m_ops[size_t(i)].end ? i : -1;
    }

private:
    const std::vector<CostedOp> &m_ops;
    std::map<int, std::vector<int>> m_byResource;
};

} // namespace

Roofline roofline(const DependencyGraph &g, const QString &device, const DeviceCatalog &catalog)
{
    Roofline r;
    r.device = device;
    if (const Device *d = device.isEmpty() ? nullptr : catalog.device(device)) {
        r.catalogId = d->id;
        r.peakTflops = d->fp32Tflops;
        r.peakTflopsHalf = d->fp16Tflops;
        r.peakTflopsBf16 = d->bf16Tflops;
        r.peakGbps = d->memBwGBps;
    }
    const auto &ops = g.opCosts();
    const auto gaps = g.opCostGaps();
    r.unknownCalls = gaps.ops;
    r.unknownWhy = gaps.why;
    // Each kernel's GPU time to the costed op that launched it.
    std::vector<TimeNs> time(ops.size(), 0);
    std::vector<qint64> kernels(ops.size(), 0);
    const OpFinder finder(g);
    const auto &nodes = g.nodes();
    for (const Node &n : nodes) {
        if (n.kind != NodeKind::Kernel)
            continue;
        const TimeNs d = std::max<TimeNs>(0, n.end - n.start);
        r.kernelTime += d;
        if (n.launcher < 0)
            continue;
        const Node &call = nodes[size_t(n.launcher)];
        const int op = finder.at(call.resource, call.start);
        if (op < 0)
            continue;
        time[size_t(op)] += d;
        ++kernels[size_t(op)];
        r.attributedTime += d;
    }
    std::map<std::tuple<StringId, bool, bool>, RooflineOp> byName;
    for (size_t i = 0; i < ops.size(); ++i) {
        const auto &o = ops[i];
        if (!o.known)
            continue;
        ++r.costedCalls;
        if (kernels[i] == 0)
            continue; // ran on the CPU (a tensor op of the input pipeline): not on this roofline
        RooflineOp &x = byName[{o.name, o.half, o.bf16}];
        x.name = g.name(o.name);
        x.opClass = opClassName(o.cls);
        x.half = o.half;
        x.bf16 = o.bf16;
        ++x.calls;
        x.kernels += kernels[i];
        x.time += time[i];
        x.flops += o.flops;
        x.bytes += o.bytes;
        if (o.end - o.start > x.sliceEnd - x.sliceStart) {
            const Resource &res = g.resources()[size_t(o.thread)];
            x.slice = o.slice;
            x.track = res.track;
            x.rank = res.rank;
            x.sliceStart = o.start;
            x.sliceEnd = o.end;
        }
    }
    for (auto &[key, x] : byName) {
        x.peakTflops = x.bf16 ? r.peakTflopsBf16 : x.half ? r.peakTflopsHalf : r.peakTflops;
        if (r.peakGbps > 0 && x.peakTflops > 0) {
            const double ideal =
                std::max(x.flops / (x.peakTflops * 1e12), x.bytes / (r.peakGbps * 1e9)) /
                double(x.calls) * 1e9;
            const double ridge = x.peakTflops * 1e12 / (r.peakGbps * 1e9);
            x.bound = ideal < double(kLatencyNs) ? QStringLiteral("latency")
                      : x.intensity() >= ridge   ? QStringLiteral("compute")
                                                 : QStringLiteral("memory");
        }
        r.ops.append(x);
    }
    std::sort(r.ops.begin(), r.ops.end(),
              [](const RooflineOp &a, const RooflineOp &b) { return a.time > b.time; });
    return r;
}

QString Roofline::problem() const
{
    if (costedCalls == 0)
        return unknownCalls > 0 ? QStringLiteral("no operator has its shapes recorded "
                                                 "(profile with record_shapes=True)")
                                : QStringLiteral("the run holds no costed operator (matmul, "
                                                 "convolution, attention, normalization, ...)");
    if (catalogId.isEmpty())
        return device.isEmpty()
                   ? QStringLiteral("the run does not name its GPU (no ceilings to draw)")
                   : QStringLiteral("GPU '%1' is not in the device catalog").arg(device);
    return {};
}

QJsonObject Roofline::toJson() const
{
    QJsonArray list;
    for (const RooflineOp &o : ops)
        list.append(QJsonObject{{QStringLiteral("name"), o.name},
                                {QStringLiteral("class"), o.opClass},
                                {QStringLiteral("calls"), o.calls},
                                {QStringLiteral("kernels"), o.kernels},
                                {QStringLiteral("time_ns"), qint64(o.time)},
                                {QStringLiteral("flops"), o.flops},
                                {QStringLiteral("bytes"), o.bytes},
                                {QStringLiteral("precision"), o.precision()},
                                {QStringLiteral("achieved_tflops"), o.achievedTflops()},
                                {QStringLiteral("achieved_gbps"), o.achievedGbps()},
                                {QStringLiteral("intensity"), o.intensity()},
                                {QStringLiteral("bound"), o.bound}});
    QJsonObject why;
    for (const auto &[k, v] : unknownWhy)
        why.insert(k, v);
    return {{QStringLiteral("device"), device},
            {QStringLiteral("catalog_device"), catalogId},
            {QStringLiteral("peak_tflops"), peakTflops},
            {QStringLiteral("peak_tflops_fp16"), peakTflopsHalf},
            {QStringLiteral("peak_tflops_bf16"), peakTflopsBf16},
            {QStringLiteral("peak_gbps"), peakGbps},
            {QStringLiteral("costed_calls"), costedCalls},
            {QStringLiteral("calls_without_shapes"), unknownCalls},
            {QStringLiteral("without_shapes"), why},
            {QStringLiteral("kernel_time_ns"), qint64(kernelTime)},
            {QStringLiteral("attributed_kernel_time_ns"), qint64(attributedTime)},
            {QStringLiteral("ops"), list}};
}

QString Roofline::toText() const
{
    QString s = QStringLiteral("device: %1%2\n")
                    .arg(device.isEmpty() ? QStringLiteral("not recorded") : device,
                         catalogId.isEmpty()
                             ? QStringLiteral(" (not in the catalog: no ceilings)")
                             : QStringLiteral(" (%1: %2 TFLOP/s fp32, %3 TFLOP/s fp16, %4 GB/s)")
                                   .arg(catalogId)
                                   .arg(peakTflops)
                                   .arg(peakTflopsHalf)
                                   .arg(peakGbps));
    s += QStringLiteral("%1 costed calls; kernels launched inside them: %2 of %3 GPU time\n")
             .arg(costedCalls)
             .arg(formatDuration(attributedTime), formatDuration(kernelTime));
    if (unknownCalls > 0) {
        s += QStringLiteral("%1 calls without the shapes to cost them:\n").arg(unknownCalls);
        for (const auto &[why, n] : unknownWhy)
            s += QStringLiteral("  %1 x %2\n").arg(n).arg(why);
    }
    s += QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8\n")
             .arg(QStringLiteral("operator").leftJustified(40),
                  QStringLiteral("calls").rightJustified(7),
                  QStringLiteral("GPU time").rightJustified(12),
                  QStringLiteral("GFLOP").rightJustified(10),
                  QStringLiteral("TFLOP/s").rightJustified(8),
                  QStringLiteral("GB/s").rightJustified(8),
                  QStringLiteral("FLOP/B").rightJustified(8), QStringLiteral("bound"));
    for (const RooflineOp &o : ops)
        s += QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8\n")
                 .arg(o.name.left(40).leftJustified(40), QString::number(o.calls).rightJustified(7),
                      formatDuration(o.time).rightJustified(12),
                      QString::number(o.flops / 1e9, 'f', 1).rightJustified(10),
                      QString::number(o.achievedTflops(), 'f', 2).rightJustified(8),
                      QString::number(o.achievedGbps(), 'f', 0).rightJustified(8),
                      QString::number(o.intensity(), 'f', 1).rightJustified(8), o.bound);
    return s;
}

} // namespace gml::sim
