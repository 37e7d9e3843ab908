// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif.h"

#include "timeformat.h"

#include <QJsonArray>

#include <cmath>

namespace gml::sim {

QString Transform::describe() const
{
    return QStringLiteral("scale /%1/ x%2").arg(pattern.pattern()).arg(factor);
}

std::optional<Transform> parseScale(const QString &text, QString *error)
{
    const qsizetype eq = text.lastIndexOf(QLatin1Char('='));
    bool ok = false;
    const double factor = eq > 0 ? text.mid(eq + 1).toDouble(&ok) : 0;
    if (eq <= 0 || !ok || !std::isfinite(factor) || factor < 0) {
        if (error)
            *error = QStringLiteral("'%1' is not REGEX=FACTOR with a factor of 0 or more").arg(text);
        return std::nullopt;
    }
    Transform t;
    t.pattern = QRegularExpression(text.left(eq));
    if (!t.pattern.isValid()) {
        if (error)
            *error = QStringLiteral("'%1': %2 at offset %3")
                         .arg(text.left(eq), t.pattern.errorString())
                         .arg(t.pattern.patternErrorOffset());
        return std::nullopt;
    }
    t.factor = factor;
    return t;
}

ReplayInput applyTransforms(const DependencyGraph &graph, const QList<Transform> &transforms)
{
    ReplayInput in = ReplayInput::measured(graph);
    const auto &nodes = graph.nodes();
    for (const auto &t : transforms) {
        // Matching names once per distinct name, not per node.
        QHash<StringId, bool> matches;
        for (size_t i = 0; i < nodes.size(); ++i) {
            auto it = matches.find(nodes[i].name);
            if (it == matches.end())
                it = matches.insert(nodes[i].name, t.pattern.match(graph.name(nodes[i].name)).hasMatch());
            if (!*it)
                continue;
            in.work[i] = TimeNs(std::llround(double(in.work[i]) * t.factor));
            if (t.factor == 0)
                in.slack[i] = 0;
        }
    }
    return in;
}

static double relError(TimeNs a, TimeNs b)
{
    return b ? std::abs(double(a - b)) / double(b) : 0.0;
}

double WhatIfReport::identityError() const
{
    return relError(identity, measured);
}

double WhatIfReport::worstIterationError() const
{
    double worst = 0;
    for (const auto &it : iterations)
        worst = std::max(worst, relError(it.identity, it.measured));
    return worst;
}

WhatIfReport whatIf(const DependencyGraph &graph, const QList<Transform> &transforms)
{
    WhatIfReport rep;
    rep.nodes = qint64(graph.nodes().size());
    rep.edges = graph.edgeCounts();
    rep.violations = graph.violations();
    rep.measured = graph.measuredEnd() - graph.origin();
    const Replay identity = replay(graph, ReplayInput::measured(graph));
    const Replay predicted = transforms.isEmpty() ? identity : replay(graph, applyTransforms(graph, transforms));
    rep.identity = identity.makespan();
    rep.predicted = predicted.makespan();
    rep.identityBreakdown = identity.critical;
    rep.predictedBreakdown = predicted.critical;
    for (const auto &t : transforms)
        rep.transforms << t.describe();
    for (int c : graph.iterations()) {
        const auto &con = graph.containers()[size_t(c)];
        WhatIfReport::Iteration it;
        it.name = graph.name(con.name);
        it.measured = con.end - con.start;
        const auto [is, ie] = identity.containerSpan(graph, c);
        const auto [ps, pe] = predicted.containerSpan(graph, c);
        it.identity = ie - is;
        it.predicted = pe - ps;
        rep.iterations.append(it);
    }
    return rep;
}

QJsonObject WhatIfReport::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("nodes"), nodes);
    QJsonObject e;
    e.insert(QStringLiteral("launch"), edges[size_t(EdgeKind::Launch)]);
    e.insert(QStringLiteral("sync"), edges[size_t(EdgeKind::Sync)]);
    e.insert(QStringLiteral("collective"), edges[size_t(EdgeKind::Collective)]);
    e.insert(QStringLiteral("data"), edges[size_t(EdgeKind::Data)]);
    e.insert(QStringLiteral("stream_wait"), edges[size_t(EdgeKind::StreamWait)]);
    o.insert(QStringLiteral("edges"), e);
    o.insert(QStringLiteral("order_violations"), violations);
    o.insert(QStringLiteral("measured_ns"), qint64(measured));
    o.insert(QStringLiteral("identity_ns"), qint64(identity));
    o.insert(QStringLiteral("predicted_ns"), qint64(predicted));
    o.insert(QStringLiteral("identity_error"), identityError());
    o.insert(QStringLiteral("worst_iteration_identity_error"), worstIterationError());
    QJsonArray its;
    for (const auto &it : iterations) {
        QJsonObject j;
        j.insert(QStringLiteral("name"), it.name);
        j.insert(QStringLiteral("measured_ns"), qint64(it.measured));
        j.insert(QStringLiteral("identity_ns"), qint64(it.identity));
        j.insert(QStringLiteral("predicted_ns"), qint64(it.predicted));
        its.append(j);
    }
    o.insert(QStringLiteral("iterations"), its);
    QJsonObject b;
    b.insert(QStringLiteral("identity"), identityBreakdown.toJson());
    b.insert(QStringLiteral("predicted"), predictedBreakdown.toJson());
    o.insert(QStringLiteral("breakdown"), b);
    o.insert(QStringLiteral("transforms"), QJsonArray::fromStringList(transforms));
    return o;
}

QString WhatIfReport::toText() const
{
    auto pct = [](double v) -> QString { return QString::number(v * 100, 'f', 2) + QLatin1Char('%'); };
    auto change = [](TimeNs a, TimeNs b) -> QString {
        if (!b)
            return QStringLiteral("n/a");
        const double pct = (double(a) - double(b)) / double(b) * 100;
        return (pct >= 0 ? QStringLiteral("+") : QString()) + QString::number(pct, 'f', 1) + QLatin1Char('%');
    };
    QString s;
    s += QStringLiteral("graph: %1 nodes; edges: %2 launch, %3 sync, %4 stream wait, %5 collective, %6 data; "
                        "%7 order violations\n")
             .arg(nodes)
             .arg(edges[size_t(EdgeKind::Launch)])
             .arg(edges[size_t(EdgeKind::Sync)])
             .arg(edges[size_t(EdgeKind::StreamWait)])
             .arg(edges[size_t(EdgeKind::Collective)])
             .arg(edges[size_t(EdgeKind::Data)])
             .arg(violations);
    for (const auto &t : transforms)
        s += QStringLiteral("transform: ") + t + QLatin1Char('\n');
    s += QStringLiteral("end to end: measured %1, identity replay %2 (error %3), predicted %4 (%5)\n")
             .arg(formatDuration(measured), formatDuration(identity), pct(identityError()),
                  formatDuration(predicted), change(predicted, measured));
    if (!iterations.isEmpty()) {
        s += QStringLiteral("iterations (worst identity error %1):\n").arg(pct(worstIterationError()));
        for (const auto &it : iterations)
            s += QStringLiteral("  %1: measured %2, identity %3, predicted %4 (%5)\n")
                     .arg(it.name, formatDuration(it.measured), formatDuration(it.identity),
                          formatDuration(it.predicted), change(it.predicted, it.measured));
    }
    auto row = [&](const char *what, TimeNs a, TimeNs b) {
        s += QStringLiteral("  %1 %2 -> %3\n")
                 .arg(QString::fromLatin1(what).leftJustified(14), formatDuration(a).rightJustified(12),
                      formatDuration(b));
    };
    s += QStringLiteral("critical path breakdown (identity -> predicted):\n");
    row("compute", identityBreakdown.compute, predictedBreakdown.compute);
    row("communication", identityBreakdown.communication, predictedBreakdown.communication);
    row("memcpy", identityBreakdown.memcpy, predictedBreakdown.memcpy);
    row("cpu", identityBreakdown.cpu, predictedBreakdown.cpu);
    row("idle", identityBreakdown.idle, predictedBreakdown.idle);
    return s;
}

} // namespace gml::sim
