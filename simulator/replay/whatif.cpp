// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif.h"

#include "calibration.h"
#include "iterations.h"

#include "timeformat.h"

#include <QJsonArray>

#include <algorithm>
#include <array>
#include <cmath>

namespace gml::sim {

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

static bool replayBand(const std::shared_ptr<const DependencyGraph> &graphPtr,
                       const QList<Transform> &transforms, const WhatIfContext &context,
                       StructureCache *cache, WhatIfReport &rep, QString *error);

std::optional<WhatIfResult> whatIf(const std::shared_ptr<const DependencyGraph> &graphPtr,
                                   const QList<Transform> &transforms, const WhatIfContext &context,
                                   QString *error, StructureCache *cache,
                                   const Replay *identityDone)
{
    if (context.calibration && transforms.isEmpty()) {
        // The factors correct the prediction of a change; with none there is nothing to
        // correct, and "calibrated ... +0.0%" would claim otherwise.
        if (error)
            *error = QStringLiteral("a calibration corrects the prediction of a change, and no "
                                    "transform was given (it was fitted for \"%1\"): give the "
                                    "change's transforms, or leave the calibration out")
                         .arg(context.calibration->transforms.join(QStringLiteral("; ")));
        return std::nullopt;
    }
    auto prepared = prepare(graphPtr, transforms, context, error, cache);
    if (!prepared)
        return std::nullopt;
    const DependencyGraph &graph = *graphPtr;
    WhatIfResult res;
    res.prepared = std::move(*prepared);
    res.identity = identityDone ? *identityDone : replay(graph, ReplayInput::measured(graph));
    res.predicted =
        transforms.isEmpty() ? res.identity : replay(*res.prepared.graph, res.prepared.input);
    WhatIfReport &rep = res.report;
    rep.nodes = qint64(graph.nodes().size());
    rep.edges = graph.edgeCounts();
    rep.violations = graph.violations();
    rep.measured = graph.measuredEnd() - graph.origin();
    rep.identity = res.identity.makespan();
    rep.predicted = res.predicted.makespan();
    rep.identityBreakdown = res.identity.critical;
    rep.predictedBreakdown = res.predicted.critical;
    for (const auto &t : transforms)
        rep.transforms << t.describe();
    rep.notes = res.prepared.notes;
    if (res.predicted.rescheduleDeadlocked)
        rep.notes << QStringLiteral(
            "reschedule: the priorities would make a resource wait for work it has not run "
            "yet (a call waiting for work launched after it); the measured order was kept");
    // Per iteration and on average, by the one definition (iterations.h).
    const Iterations measured = measuredIterations(graph);
    const Iterations identity = replayedIterations(graph, res.identity);
    const Iterations predicted = replayedIterations(*res.prepared.graph, res.predicted);
    const auto mt = measured.times(), it = identity.times(), pt = predicted.times();
    const auto steps = graph.iterations();
    for (size_t k = 0; k < steps.size() && k < it.size() && k < pt.size(); ++k)
        rep.iterations.append(
            {graph.name(graph.containers()[size_t(steps[k])].name), mt[k], it[k], pt[k]});
    rep.warmup = measured.warmup();
    rep.meanMeasured = measured.steadyMean(rep.warmup);
    rep.meanIdentity = identity.steadyMean(rep.warmup);
    rep.meanPredicted = predicted.steadyMean(rep.warmup);
    rep.spreadMeasured = {measured.quantile(0.5), measured.quantile(0.9)};
    rep.spreadIdentity = {identity.quantile(0.5), identity.quantile(0.9)};
    rep.spreadPredicted = {predicted.quantile(0.5), predicted.quantile(0.9)};
    rep.unknowns = res.prepared.unknowns;
    if (context.calibration)
        rep.calibration = context.calibration->source();
    if (context.memory)
        rep.memory = memoryNeed(*context.memory, graph, transforms, context);
    rep.low = rep.high = {rep.predicted, rep.meanPredicted, rep.spreadPredicted};
    if (!res.prepared.bandKeys.isEmpty() &&
        !replayBand(graphPtr, transforms, context, cache, rep, error))
        return std::nullopt;
    return res;
}

// The band: the prediction prepared and replayed again with every unknown (Prepared::bandKeys)
// drawn on its own from its range (WhatIfContext::vary: the range's ends its 5th and 95th
// percentiles), kBandDraws times; the band is the 5th to the 95th percentile of the replays,
// widened to hold the prediction. The unknowns are independent sources of error (a GPU's
// matrix library, its memory system, its runtime's launch cost, another host CPU): taking them
// all to one end at once would assume they all err together, a band far wider than the errors
// seen; adding their effects one by one would miss that a run bound by both its host and its
// GPU is only faster when both are. The draws are numbered, so a band is the same every time.
static bool replayBand(const std::shared_ptr<const DependencyGraph> &graphPtr,
                       const QList<Transform> &transforms, const WhatIfContext &context,
                       StructureCache *cache, WhatIfReport &rep, QString *error)
{
    std::array<std::vector<TimeNs>, 4> drawn;
    for (int k = 0; k < kBandDraws; ++k) {
        WhatIfContext c = context;
        c.bound = WhatIfContext::Bound::Sample;
        c.sample = quint64(k);
        const auto prepared = prepare(graphPtr, transforms, c, error, cache);
        if (!prepared)
            return false;
        const Replay r = replay(*prepared->graph, prepared->input);
        const Iterations its = replayedIterations(*prepared->graph, r);
        const std::array<TimeNs, 4> v{r.makespan(), its.steadyMean(rep.warmup), its.quantile(0.5),
                                      its.quantile(0.9)};
        for (size_t f = 0; f < v.size(); ++f)
            drawn[f].push_back(v[f]);
    }
    const std::array<TimeNs *, 4> low{&rep.low.predicted, &rep.low.mean, &rep.low.spread.median,
                                      &rep.low.spread.p90};
    const std::array<TimeNs *, 4> high{&rep.high.predicted, &rep.high.mean, &rep.high.spread.median,
                                       &rep.high.spread.p90};
    for (size_t f = 0; f < drawn.size(); ++f) {
        std::vector<TimeNs> &v = drawn[f];
        std::sort(v.begin(), v.end());
        auto at = [&](double q) { return v[size_t(std::llround(q * double(v.size() - 1)))]; };
        *low[f] = std::min(*low[f], at(0.05));
        *high[f] = std::max(*high[f], at(0.95));
    }
    return true;
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
    e.insert(QStringLiteral("thread_wait"), edges[size_t(EdgeKind::ThreadWait)]);
    o.insert(QStringLiteral("edges"), e);
    o.insert(QStringLiteral("order_violations"), violations);
    o.insert(QStringLiteral("measured_ns"), qint64(measured));
    o.insert(QStringLiteral("identity_ns"), qint64(identity));
    o.insert(QStringLiteral("predicted_ns"), qint64(predicted));
    o.insert(QStringLiteral("predicted_low_ns"), qint64(low.predicted));
    o.insert(QStringLiteral("predicted_high_ns"), qint64(high.predicted));
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
    if (!iterations.isEmpty()) {
        QJsonObject m;
        m.insert(QStringLiteral("measured_ns"), qint64(meanMeasured));
        m.insert(QStringLiteral("identity_ns"), qint64(meanIdentity));
        m.insert(QStringLiteral("predicted_ns"), qint64(meanPredicted));
        m.insert(QStringLiteral("predicted_low_ns"), qint64(low.mean));
        m.insert(QStringLiteral("predicted_high_ns"), qint64(high.mean));
        m.insert(QStringLiteral("warmup_iterations"), warmup);
        o.insert(QStringLiteral("mean_iteration"), m);
        for (const auto &[key, pick] : {std::pair{"median_iteration", &Spread::median},
                                        std::pair{"p90_iteration", &Spread::p90}}) {
            QJsonObject q;
            q.insert(QStringLiteral("measured_ns"), qint64(spreadMeasured.*pick));
            q.insert(QStringLiteral("identity_ns"), qint64(spreadIdentity.*pick));
            q.insert(QStringLiteral("predicted_ns"), qint64(spreadPredicted.*pick));
            q.insert(QStringLiteral("predicted_low_ns"), qint64(low.spread.*pick));
            q.insert(QStringLiteral("predicted_high_ns"), qint64(high.spread.*pick));
            o.insert(QLatin1String(key), q);
        }
    }
    QJsonObject b;
    b.insert(QStringLiteral("identity"), identityBreakdown.toJson());
    b.insert(QStringLiteral("predicted"), predictedBreakdown.toJson());
    o.insert(QStringLiteral("breakdown"), b);
    o.insert(QStringLiteral("transforms"), QJsonArray::fromStringList(transforms));
    o.insert(QStringLiteral("notes"), QJsonArray::fromStringList(notes));
    o.insert(QStringLiteral("unknowns"), QJsonArray::fromStringList(unknowns));
    if (!calibration.isEmpty())
        o.insert(QStringLiteral("calibrated_from"), calibration);
    if (!memory.empty()) {
        QJsonArray m;
        for (const MemoryNeed &n : memory)
            m.append(n.toJson());
        o.insert(QStringLiteral("memory"), m);
    }
    return o;
}

QString WhatIfReport::toText() const
{
    auto pct = [](double v) -> QString {
        return QString::number(v * 100, 'f', 2) + QLatin1Char('%');
    };
    auto change = [](TimeNs a, TimeNs b) -> QString {
        if (!b)
            return QStringLiteral("n/a");
        const double pct = (double(a) - double(b)) / double(b) * 100;
        return (pct >= 0 ? QStringLiteral("+") : QString()) + QString::number(pct, 'f', 1) +
               QLatin1Char('%');
    };
    QString s;
    s += QStringLiteral("graph: %1 nodes; edges: %2 launch, %3 sync, %4 stream wait, %5 thread "
                        "wait, %6 collective, "
                        "%7 data; %8 order violations\n")
             .arg(nodes)
             .arg(edges[size_t(EdgeKind::Launch)])
             .arg(edges[size_t(EdgeKind::Sync)])
             .arg(edges[size_t(EdgeKind::StreamWait)])
             .arg(edges[size_t(EdgeKind::ThreadWait)])
             .arg(edges[size_t(EdgeKind::Collective)])
             .arg(edges[size_t(EdgeKind::Data)])
             .arg(violations);
    for (const auto &t : transforms)
        s += QStringLiteral("transform: ") + t + QLatin1Char('\n');
    for (const auto &n : notes)
        s += QStringLiteral("  model: ") + n + QLatin1Char('\n');
    for (const auto &u : unknowns)
        s += QStringLiteral("  unknown: ") + u + QLatin1Char('\n');
    for (const MemoryNeed &n : memory) {
        s += n.toText() + QLatin1Char('\n');
        for (const auto &note : n.notes)
            s += QStringLiteral("  memory: ") + note + QLatin1Char('\n');
    }
    auto band = [&](TimeNs lo, TimeNs hi) -> QString {
        return hasBand()
                   ? QStringLiteral(", band %1 to %2").arg(formatDuration(lo), formatDuration(hi))
                   : QString();
    };
    s += QStringLiteral(
             "end to end: measured %1, identity replay %2 (error %3), predicted %4 (%5)%6\n")
             .arg(formatDuration(measured), formatDuration(identity), pct(identityError()),
                  formatDuration(predicted), change(predicted, measured),
                  band(low.predicted, high.predicted));
    if (!iterations.isEmpty()) {
        s += QStringLiteral(
                 "mean iteration%6: measured %1, identity replay %2, predicted %3 (%4)%5\n")
                 .arg(formatDuration(meanMeasured), formatDuration(meanIdentity),
                      formatDuration(meanPredicted), change(meanPredicted, meanMeasured),
                      band(low.mean, high.mean),
                      warmup > 0 ? QStringLiteral(" (%1 warm-up of %2 left out)")
                                       .arg(warmup)
                                       .arg(iterations.size())
                                 : QString());
        s += QStringLiteral("median iteration: measured %1, predicted %2 (%3)%4; p90: measured "
                            "%5, predicted %6 (%7)\n")
                 .arg(formatDuration(spreadMeasured.median), formatDuration(spreadPredicted.median),
                      change(spreadPredicted.median, spreadMeasured.median),
                      band(low.spread.median, high.spread.median),
                      formatDuration(spreadMeasured.p90), formatDuration(spreadPredicted.p90),
                      change(spreadPredicted.p90, spreadMeasured.p90));
        s += QStringLiteral("iterations, step start to step start (worst identity error %1):\n")
                 .arg(pct(worstIterationError()));
        for (const auto &it : iterations)
            s += QStringLiteral("  %1: measured %2, identity %3, predicted %4 (%5)\n")
                     .arg(it.name, formatDuration(it.measured), formatDuration(it.identity),
                          formatDuration(it.predicted), change(it.predicted, it.measured));
    }
    auto row = [&](const char *what, TimeNs a, TimeNs b) {
        s += QStringLiteral("  %1 %2 -> %3\n")
                 .arg(QString::fromLatin1(what).leftJustified(14),
                      formatDuration(a).rightJustified(12), formatDuration(b));
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
