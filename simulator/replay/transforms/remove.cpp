// SPDX-License-Identifier: GPL-3.0-or-later
// remove: the selected nodes do no work and have no gap before them.
#include "transformkind.h"

namespace gml::sim::detail {

namespace {

class RemoveTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("remove"); }
    QString describe(const Transform &, const QString &sel) const override
    {
        return QStringLiteral("remove%1").arg(sel);
    }
    bool changeTimes(TimingStep &s, const Transform &, const NodeSelection &sel,
                     QString *) const override
    {
        for (size_t i = 0; i < s.nodes.size(); ++i)
            if (sel[i])
                s.work[i] = s.slack[i] = 0;
        return true;
    }
};

} // namespace

const TransformKind &removeKind()
{
    static const RemoveTransform kind;
    return kind;
}

} // namespace gml::sim::detail
