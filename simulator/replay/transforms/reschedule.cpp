// SPDX-License-Identifier: GPL-3.0-or-later
// reschedule: the selected nodes get `priority` on their resource; when it is free it runs the
// ready node of the highest priority (the measured order among equals).
#include "transformkind.h"

#include "jsonfields.h"

namespace gml::sim::detail {

namespace {

class RescheduleTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("reschedule"); }
    std::vector<const char *> keys() const override { return {"priority"}; }
    void read(JsonFields &f, Transform &t) const override
    {
        t.priority = int(f.integer("priority", 1, -limits::kMaxPriority, limits::kMaxPriority));
    }
    void write(const Transform &t, QJsonObject &o) const override
    {
        o.insert(QStringLiteral("priority"), t.priority);
    }
    QString describe(const Transform &t, const QString &sel) const override
    {
        return QStringLiteral("priority %1 on its resource for%2").arg(t.priority).arg(sel);
    }
    bool changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                     QString *) const override
    {
        auto &priority = s.out.input.priority;
        if (priority.empty())
            priority.assign(s.nodes.size(), 0);
        for (size_t i = 0; i < s.nodes.size(); ++i)
            if (sel[i])
                priority[i] = t.priority;
        return true;
    }
};

} // namespace

const TransformKind &rescheduleKind()
{
    static const RescheduleTransform kind;
    return kind;
}

} // namespace gml::sim::detail
