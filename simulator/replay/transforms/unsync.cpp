// SPDX-License-Identifier: GPL-3.0-or-later
// unsync: synchronising calls (a device or stream synchronise, a blocking copy) stop waiting for
// the GPU: their sync edges are dropped, their own work stays.
#include "transformkind.h"

namespace gml::sim::detail {

namespace {

class UnsyncTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("unsync"); }
    QString describe(const Transform &, const QString &sel) const override
    {
        return QStringLiteral("synchronising calls do not wait for the GPU%1").arg(sel);
    }
    quint8 nodeKinds(const Transform &) const override { return bit(NodeKind::Runtime); }
    bool changeTimes(TimingStep &s, const Transform &, const NodeSelection &sel,
                     QString *) const override
    {
        auto &unsynced = s.out.input.unsynced;
        qint64 changed = 0;
        for (size_t i = 0; i < s.nodes.size(); ++i)
            if (sel[i] && s.nodes[i].synchronising) {
                if (unsynced.empty())
                    unsynced.assign(s.nodes.size(), 0);
                unsynced[i] = 1;
                ++changed;
            }
        s.out.notes << QStringLiteral("unsync: %1 synchronising calls no longer wait for the GPU")
                           .arg(changed);
        return true;
    }
};

} // namespace

const TransformKind &unsyncKind()
{
    static const UnsyncTransform kind;
    return kind;
}

} // namespace gml::sim::detail
