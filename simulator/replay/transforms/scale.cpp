// SPDX-License-Identifier: GPL-3.0-or-later
// scale: the selected nodes' work times `factor` (0 removes the work and the gap before it).
#include "transformkind.h"

namespace gml::sim::detail {

namespace {

class ScaleTransform final : public FactorTransform
{
public:
    QString op() const override { return QStringLiteral("scale"); }
    QString describe(const Transform &t, const QString &sel) const override
    {
        return QStringLiteral("scale%1 x%2").arg(sel).arg(t.factor);
    }
    bool changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                     QString *) const override
    {
        for (size_t i = 0; i < s.nodes.size(); ++i)
            if (sel[i]) {
                s.work[i] = scaled(s.work[i], t.factor);
                if (t.factor == 0)
                    s.slack[i] = 0;
            }
        return true;
    }
};

} // namespace

const TransformKind &scaleKind()
{
    static const ScaleTransform kind;
    return kind;
}

} // namespace gml::sim::detail
