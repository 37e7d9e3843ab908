// SPDX-License-Identifier: GPL-3.0-or-later
// set: the selected nodes' work becomes `duration_ns`.
#include "transformkind.h"

#include "jsonfields.h"
#include "timeformat.h"
#include "tracewriter.h"

namespace gml::sim::detail {

namespace {

class SetTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("set"); }
    std::vector<const char *> keys() const override { return {"duration_ns"}; }
    void read(JsonFields &f, Transform &t) const override
    {
        t.duration = f.integer("duration_ns", 0, 0, kMaxAbsTimeNs);
    }
    void write(const Transform &t, QJsonObject &o) const override
    {
        o.insert(QStringLiteral("duration_ns"), qint64(t.duration));
    }
    QString describe(const Transform &t, const QString &sel) const override
    {
        return QStringLiteral("set%1 to %2").arg(sel, formatDuration(t.duration));
    }
    bool changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                     QString *) const override
    {
        for (size_t i = 0; i < s.nodes.size(); ++i)
            if (sel[i])
                s.work[i] = t.duration;
        return true;
    }
};

} // namespace

const TransformKind &setKind()
{
    static const SetTransform kind;
    return kind;
}

} // namespace gml::sim::detail
