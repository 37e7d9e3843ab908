// SPDX-License-Identifier: GPL-3.0-or-later
// memory: memory-bound kernels, memsets and device copies `factor` times faster.
#include "transformkind.h"

namespace gml::sim::detail {

namespace {

class MemoryTransform final : public KernelRateTransform
{
public:
    QString op() const override { return QStringLiteral("memory"); }
    QString describe(const Transform &t, const QString &sel) const override
    {
        return QStringLiteral("memory-bound kernels and copies %1x faster%2")
            .arg(t.factor)
            .arg(sel);
    }
    quint8 nodeKinds(const Transform &) const override
    {
        return bit(NodeKind::Kernel) | bit(NodeKind::Memset) | bit(NodeKind::Memcpy);
    }

protected:
    KernelFactors factors(double x) const override
    {
        KernelFactors f;
        f.computeFp32 = f.computeFp16 = 1.0;
        f.memory = x;
        return f;
    }
};

} // namespace

const TransformKind &memoryKind()
{
    static const MemoryTransform kind;
    return kind;
}

} // namespace gml::sim::detail
