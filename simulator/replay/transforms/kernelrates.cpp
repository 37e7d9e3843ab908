// SPDX-License-Identifier: GPL-3.0-or-later
// What the device, amp, compute and memory transforms share: each selected kernel's work by
// the factor of its bound (compute-bound ones by the fp32 or fp16 factor, the others by the
// memory factor), copies over the host link left to the link.
#include "transformkind.h"

#include "devicecatalog.h"

namespace gml::sim::detail {

FloorShare rescaleKernels(TimingStep &s, const NodeSelection &sel, const KernelFactors &f)
{
    FloorShare share;
    QHash<StringId, double> factorOf;
    for (size_t i = 0; i < s.nodes.size(); ++i) {
        if (!sel[i] || s.nodes[i].slice == 0)
            continue; // inserted nodes keep the duration given or modelled
        const Node &n = s.nodes[i];
        if (n.kind == NodeKind::Memcpy && isHostCopy(s.g.name(n.name)))
            continue; // over the host link, not device memory
        auto it = factorOf.find(n.name);
        if (it == factorOf.end()) {
            const QString name = s.g.name(n.name);
            double x = f.memory;
            if (n.kind == NodeKind::Kernel && classifyKernel(name) == Bound::Compute)
                x = usesHalfPrecision(name) || f.allHalf ? f.computeFp16 : f.computeFp32;
            if (f.sameVendor) {
                const KernelKind::Family family = kernelKind(name).family;
                const QString key = QStringLiteral("kernel efficiency: ") +
                                    Uncertainty::groupName(Uncertainty::group(family));
                x *= s.vary(key, s.cat.uncertainty().kernel(family, *f.sameVendor));
            }
            it = factorOf.insert(n.name, x);
        }
        if (n.kind != NodeKind::Kernel || f.floorTo <= 0 || f.floorFrom <= 0) {
            s.work[i] = scaled(s.work[i], *it);
            continue;
        }
        // The floor does not scale with the rates: the part above it does. A kernel measured
        // under the source's floor (a clock's rounding) keeps its share of the target's.
        const TimeNs measured = s.work[i];
        const TimeNs above = std::max<TimeNs>(0, measured - f.floorFrom);
        const TimeNs floor =
            measured >= f.floorFrom
                ? f.floorTo
                : TimeNs(double(f.floorTo) * double(measured) / double(f.floorFrom));
        const TimeNs rest = scaled(above, *it);
        s.work[i] = floor + rest;
        ++share.kernels;
        share.kernelTime += s.work[i];
        if (floor > rest) {
            ++share.decided;
            share.decidedTime += s.work[i];
        }
    }
    return share;
}

bool KernelRateTransform::changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                                      QString *) const
{
    rescaleKernels(s, sel, factors(t.factor > 0 ? 1.0 / t.factor : 1.0));
    return true;
}

} // namespace gml::sim::detail
