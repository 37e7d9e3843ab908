// SPDX-License-Identifier: GPL-3.0-or-later
// The roofline rule: matrix work far from the GPU's peak (roofline.h).
#include "findingsrules.h"

#include "timeformat.h"

#include <algorithm>

namespace gml::sim {

namespace {

// What tuned libraries reach on large shapes (cuBLAS, cuDNN, rocBLAS: 60-90% of the dense peak,
// the low end taken): the target a fix is priced at.
constexpr double kReachable = 0.6;
constexpr double kMinShare = 0.05; // of the kernels' time, for the rule to speak

bool isMatrixWork(const RooflineOp &o)
{
    return o.opClass == QLatin1String("matmul") || o.opClass == QLatin1String("convolution") ||
           o.opClass == QLatin1String("attention");
}

double efficiency(const RooflineOp &o)
{
    return o.peakTflops > 0 ? o.achievedTflops() / o.peakTflops : 0;
}

} // namespace

std::vector<Finding> rooflineFindings(const Roofline &r)
{
    std::vector<Finding> out;
    if (!r.problem().isEmpty() || r.kernelTime <= 0)
        return out;
    std::vector<const RooflineOp *> ops;
    TimeNs time = 0;
    double flops = 0, peakTime = 0; // peak x time, for the time-weighted peak
    for (const RooflineOp &o : r.ops)
        if (isMatrixWork(o) && o.time > 0 && o.flops > 0 && o.peakTflops > 0) {
            ops.push_back(&o);
            time += o.time;
            flops += o.flops;
            peakTime += o.peakTflops * double(o.time);
        }
    if (ops.empty() || double(time) < kMinShare * double(r.kernelTime))
        return out;
    const double achieved = flops / double(time) / 1e3; // FLOPs per ns -> TFLOP/s
    const double peak = peakTime / double(time);
    const double eff = achieved / peak;
    if (eff >= 0.5)
        return out;
    Finding f;
    f.rule = QStringLiteral("compute-efficiency");
    f.share = double(time) / double(r.kernelTime);
    f.title = QStringLiteral("Matrix work at %1 of the %2's peak (%3 of %4 TFLOP/s)")
                  .arg(pct(eff), r.catalogId)
                  .arg(achieved, 0, 'f', 1)
                  .arg(peak, 0, 'f', 1);
    QStringList slow, latency;
    for (const RooflineOp *o : ops) {
        if (o->bound == QLatin1String("latency")) {
            latency << QStringLiteral("%1 (%2 calls, %3)")
                           .arg(o->name)
                           .arg(o->calls)
                           .arg(formatDuration(o->time));
            continue;
        }
        if (efficiency(*o) >= kReachable || f.fix.size() >= 6)
            continue;
        slow << QStringLiteral("%1 at %2 (%3-bound, %4)")
                    .arg(o->name, pct(efficiency(*o)), o->bound, formatDuration(o->time));
        Transform t;
        t.op = QStringLiteral("scale");
        t.factor = efficiency(*o) / kReachable;
        t.select.within = regexOfNames({o->name});
        t.select.kinds = kindBit(NodeKind::Kernel);
        f.fix << t;
        f.evidence.push_back({QStringLiteral("longest %1 call: %2 at %3 TFLOP/s")
                                  .arg(o->name, pct(efficiency(*o)))
                                  .arg(o->achievedTflops(), 0, 'g', 3),
                              o->rank, o->sliceStart, o->sliceEnd, o->slice, o->track});
    }
    QString detail = QStringLiteral("The matrix multiplies, convolutions and attention of this "
                                    "run take %1 of the kernels' time and reach %2 of the peak "
                                    "at their precision, from the FLOPs of their recorded "
                                    "shapes. ")
                         .arg(pct(f.share), pct(eff));
    if (!slow.isEmpty())
        detail += QStringLiteral("Furthest from it: %1. Check the shapes (multiples of 8 for "
                                 "tensor cores), the layout (channels-last for convolutions), "
                                 "cudnn.benchmark, and the precision. ")
                      .arg(slow.join(QStringLiteral(", ")));
    if (!latency.isEmpty())
        detail += QStringLiteral("Latency-bound, too little work per call to fill the GPU: %1; "
                                 "batch them (a larger batch, fused or grouped GEMMs, CUDA "
                                 "graphs) rather than tune them.")
                      .arg(latency.join(QStringLiteral(", ")));
    f.detail = detail.trimmed();
    if (f.fix.isEmpty())
        f.noFix = QStringLiteral("the matrix work is latency-bound: no faster kernel fixes it");
    else
        f.notes << QStringLiteral("the kernels launched inside each op named faster, to %1 of "
                                  "the peak (what tuned libraries reach on large shapes)")
                       .arg(pct(kReachable));
    out.push_back(std::move(f));
    return out;
}

} // namespace gml::sim
