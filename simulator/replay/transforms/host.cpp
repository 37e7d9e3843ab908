// SPDX-License-Identifier: GPL-3.0-or-later
// host: the host's launch path `factor` times faster (0: free, what replaying the iteration as a
// CUDA graph approaches): the work and the gaps before it of the CPU ops and runtime calls of
// threads that launch GPU work; data loading and synchronising calls keep theirs. The launch
// path itself (hostRoles, speedUpHostPath) is shared with the device transform's host factor
// and with calibrations.
#include "transformkind.h"

namespace gml::sim::detail {

std::optional<std::vector<HostRole>> hostRoles(const DependencyGraph &g, QString *error)
{
    const auto &nodes = g.nodes();
    std::vector<char> launches(g.resources().size(), 0);
    for (const auto &n : nodes)
        if (n.launcher >= 0)
            launches[size_t(nodes[size_t(n.launcher)].resource)] = 1;
    Selector loading;
    loading.within = inputPattern();
    const NodeSelection input(g, loading, quint8(bit(NodeKind::Cpu) | bit(NodeKind::Runtime)),
                              error);
    if (!input.valid())
        return std::nullopt;
    std::vector<HostRole> roles(nodes.size(), HostRole::None);
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Node &n = nodes[i];
        if (n.kind != NodeKind::Cpu && n.kind != NodeKind::Runtime)
            continue;
        if (input[i])
            roles[i] = HostRole::Loading;
        else if (launches[size_t(n.resource)] && !n.synchronising)
            roles[i] = HostRole::LaunchPath;
    }
    return roles;
}

std::optional<qint64> speedUpHostPath(TimingStep &s, const NodeSelection &sel, double factor,
                                      QString *error)
{
    const auto roles = hostRoles(s.g, error);
    if (!roles)
        return std::nullopt;
    const double f = factor > 0 ? 1.0 / factor : 0.0;
    qint64 changed = 0;
    for (size_t i = 0; i < s.nodes.size(); ++i) {
        if (!sel[i] || (*roles)[i] != HostRole::LaunchPath)
            continue;
        s.work[i] = scaled(s.work[i], f);
        s.slack[i] = scaled(s.slack[i], f);
        ++changed;
    }
    return changed;
}

namespace {

class HostTransform final : public FactorTransform
{
public:
    QString op() const override { return QStringLiteral("host"); }
    QString describe(const Transform &t, const QString &sel) const override
    {
        return t.factor == 0
                   ? QStringLiteral("host launch path free%1").arg(sel)
                   : QStringLiteral("host launch path %1x faster%2").arg(t.factor).arg(sel);
    }
    quint8 nodeKinds(const Transform &) const override
    {
        return bit(NodeKind::Cpu) | bit(NodeKind::Runtime);
    }
    bool changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                     QString *error) const override
    {
        const auto changed = speedUpHostPath(s, sel, t.factor, error);
        if (!changed)
            return false;
        s.out.notes << QStringLiteral("host: %1 CPU ops and runtime calls on launching threads %2")
                           .arg(*changed)
                           .arg(t.factor > 0 ? QStringLiteral("%1x faster").arg(t.factor)
                                             : QStringLiteral("free"));
        return true;
    }
};

} // namespace

const TransformKind &hostKind()
{
    static const HostTransform kind;
    return kind;
}

} // namespace gml::sim::detail
