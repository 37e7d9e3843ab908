// SPDX-License-Identifier: GPL-3.0-or-later
// compute: compute-bound kernels `factor` times faster (a sustained-FLOP/s slider).
#include "transformkind.h"

namespace gml::sim::detail {

namespace {

class ComputeTransform final : public KernelRateTransform
{
public:
    QString op() const override { return QStringLiteral("compute"); }
    QString describe(const Transform &t, const QString &sel) const override
    {
        return QStringLiteral("compute-bound kernels %1x faster%2").arg(t.factor).arg(sel);
    }
    quint8 nodeKinds(const Transform &) const override { return bit(NodeKind::Kernel); }

protected:
    KernelFactors factors(double x) const override
    {
        KernelFactors f;
        f.computeFp32 = f.computeFp16 = x;
        f.memory = 1.0;
        return f;
    }
};

} // namespace

const TransformKind &computeKind()
{
    static const ComputeTransform kind;
    return kind;
}

} // namespace gml::sim::detail
