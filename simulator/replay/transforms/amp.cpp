// SPDX-License-Identifier: GPL-3.0-or-later
// amp: mixed precision, compute-bound kernels / 3 and memory-bound / 2 (Daydream's model), each
// within the catalog's band of what mixed precision gains.
#include "transformkind.h"

#include "devicecatalog.h"

namespace gml::sim::detail {

namespace {

class AmpTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("amp"); }
    QString describe(const Transform &, const QString &sel) const override
    {
        return QStringLiteral("AMP: compute-bound kernels /3, memory-bound /2%1").arg(sel);
    }
    quint8 nodeKinds(const Transform &) const override { return bit(NodeKind::Kernel); }
    bool changeTimes(TimingStep &s, const Transform &, const NodeSelection &sel,
                     QString *) const override
    {
        KernelFactors f;
        f.allHalf = true;
        const Uncertainty &u = s.cat.uncertainty();
        s.out.unknowns << QStringLiteral("mixed precision: compute-bound kernels %1x to %2x "
                                         "faster, memory-bound %3x to %4x (as modelled: 3x, 2x)")
                              .arg(u.ampCompute.low)
                              .arg(u.ampCompute.high)
                              .arg(u.ampMemory.low)
                              .arg(u.ampMemory.high);
        // Its fast end is the larger speed-up: the draw's sign turned.
        const QString key = QStringLiteral("mixed precision");
        const Range c = u.ampCompute, m = u.ampMemory;
        f.computeFp32 = f.computeFp16 = s.vary(key, 1 / c.high, f.computeFp16, 1 / c.low);
        f.memory = s.vary(key, 1 / m.high, f.memory, 1 / m.low);
        rescaleKernels(s, sel, f);
        return true;
    }
};

} // namespace

const TransformKind &ampKind()
{
    static const AmpTransform kind;
    return kind;
}

} // namespace gml::sim::detail
