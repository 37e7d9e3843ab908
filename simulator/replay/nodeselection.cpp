// SPDX-License-Identifier: GPL-3.0-or-later
// NodeSelection: the nodes of a dependency graph that a transform's selector picks (name,
// track, enclosing slice, category, device, kind, rank, time range).
#include "transformsinternal.h"

#include "clockalignment.h"

#include <QRegularExpression>

#include <algorithm>

namespace gml::sim {

using namespace detail;

NodeSelection::NodeSelection(const DependencyGraph &g, const Selector &s, quint8 defaultKinds,
                             QString *error)
{
    const auto &nodes = g.nodes();
    m_on.assign(nodes.size(), 1);
    const quint8 kinds = s.kinds ? s.kinds : defaultKinds;
    auto regex = [&](const QString &p) -> std::optional<QRegularExpression> {
        QRegularExpression re(p);
        if (!re.isValid()) {
            *error = QStringLiteral("'%1': %2 at offset %3")
                         .arg(p, re.errorString())
                         .arg(re.patternErrorOffset());
            return std::nullopt;
        }
        return re;
    };
    std::optional<QRegularExpression> name, track, category, device;
    if (!s.name.isEmpty() && !(name = regex(s.name)))
        return;
    if (!s.track.isEmpty() && !(track = regex(s.track)))
        return;
    if (!s.category.isEmpty() && !(category = regex(s.category)))
        return;
    if (!s.device.isEmpty() && !(device = regex(s.device)))
        return;
    std::vector<char> inside;
    if (!s.within.isEmpty()) {
        const auto within = regex(s.within);
        if (!within)
            return;
        inside.assign(nodes.size(), 0);
        QHash<StringId, bool> memo;
        auto named = [&](StringId id) {
            auto it = memo.find(id);
            if (it == memo.end())
                it = memo.insert(id, within->match(g.name(id)).hasMatch());
            return *it;
        };
        for (const auto &c : g.containers()) {
            if (!named(c.name))
                continue;
            const auto &order = g.resources()[size_t(c.resource)].nodes;
            for (int k = g.position(c.first); k <= g.position(c.last); ++k)
                inside[size_t(order[size_t(k)])] = 1;
        }
        // A range with no ops inside is a node: within itself (a DataLoader range that holds
        // ops in one trace and none in another is selected alike).
        for (size_t i = 0; i < nodes.size(); ++i)
            if (!inside[i] && nodes[i].kind == NodeKind::Cpu && named(nodes[i].name))
                inside[i] = 1;
        for (size_t i = 0; i < nodes.size(); ++i)
            if (!inside[i] && nodes[i].launcher >= 0 && inside[size_t(nodes[i].launcher)])
                inside[i] = 1;
    }
    // Regex results memoised per string id and per resource.
    QHash<StringId, bool> nameMemo, categoryMemo;
    std::vector<signed char> trackMemo(g.resources().size(), -1),
        deviceMemo(g.resources().size(), -1);
    auto byString = [&](QHash<StringId, bool> &memo, const QRegularExpression &re, StringId id) {
        auto it = memo.find(id);
        if (it == memo.end())
            it = memo.insert(id, re.match(g.name(id)).hasMatch());
        return *it;
    };
    auto byResource = [&](std::vector<signed char> &memo, int resource, auto &&test) {
        auto &m = memo[size_t(resource)];
        if (m < 0)
            m = test(g.resources()[size_t(resource)]) ? 1 : 0;
        return m == 1;
    };
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Node &n = nodes[i];
        bool on = kinds & bit(n.kind);
        if (on && name)
            on = byString(nameMemo, *name, n.name);
        if (on && category)
            on = byString(categoryMemo, *category, n.cat);
        if (on && track)
            on = byResource(trackMemo, n.resource,
                            [&](const Resource &r) { return track->match(r.name).hasMatch(); });
        if (on && device)
            on = byResource(deviceMemo, n.resource, [&](const Resource &r) {
                return r.gpu && device->match(r.pid).hasMatch();
            });
        if (on && s.rank >= 0)
            on = g.resources()[size_t(n.resource)].rank == s.rank;
        if (on && !inside.empty())
            on = inside[i];
        if (on && s.from)
            on = n.start - g.origin() >= *s.from;
        if (on && s.to)
            on = n.start - g.origin() < *s.to;
        m_on[i] = on;
    }
    m_valid = true;
}

qint64 NodeSelection::count() const
{
    return std::count(m_on.begin(), m_on.end(), char(1));
}

} // namespace gml::sim
