// SPDX-License-Identifier: GPL-3.0-or-later
#include "validation.h"

#include "analysis.h"
#include "iterations.h"

#include "sliceclass.h"
#include "timeformat.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <map>

namespace gml::sim {

double ValidationRow::error() const
{
    return measured > 0 ? (double(predicted) - double(measured)) / double(measured) : 0.0;
}

namespace {

bool isGpuWork(NodeKind k)
{
    return k == NodeKind::Kernel || k == NodeKind::Collective || k == NodeKind::Memcpy ||
           k == NodeKind::Memset;
}

// GPU time per kernel family; `span(i)`: node i's (start, end).
template <typename Span> std::map<QString, TimeNs> familyTimes(const DependencyGraph &g, Span span)
{
    std::map<QString, TimeNs> out;
    for (size_t i = 0; i < g.nodes().size(); ++i) {
        const Node &n = g.nodes()[i];
        if (!isGpuWork(n.kind))
            continue;
        const auto [a, b] = span(i);
        out[kernelFamily(g.name(n.name), n.kind)] += std::max<TimeNs>(0, b - a);
    }
    return out;
}

bool isOperator(const DependencyGraph &g, const Container &c)
{
    const QString name = g.name(c.name);
    return name.startsWith(QLatin1String("aten::")) || g.name(c.cat) == QLatin1String("cpu_op");
}

// The time of the outermost operators (an op inside an op is part of it), by call path;
// `span(c)`: container c's (start, end).
template <typename Span>
std::map<QString, TimeNs> operatorTimes(const DependencyGraph &g, Span span)
{
    // Iteration ranges are left out of the path: a step's predicted span may end before an op of
    // its backward pass does, and a run saved from a prediction nests by its predicted times.
    std::map<QString, TimeNs> out;
    const auto &cs = g.containers();
    for (size_t c = 0; c < cs.size(); ++c) {
        if (!isOperator(g, cs[c]))
            continue;
        QStringList path{stableName(g.name(cs[c].name))};
        bool nested = false;
        for (int p = cs[c].parent; p >= 0; p = cs[size_t(p)].parent) {
            if (isOperator(g, cs[size_t(p)])) {
                nested = true;
                break;
            }
            const QString name = g.name(cs[size_t(p)].name);
            if (!isIterationName(name))
                path.prepend(stableName(name));
        }
        if (nested)
            continue;
        const auto [a, b] = span(int(c));
        out[path.join(QLatin1Char(';'))] += std::max<TimeNs>(0, b - a);
    }
    return out;
}

} // namespace

namespace {

// `p`: the times of graph `a`'s nodes (a replay, or its measured times).
ValidationReport validateTimes(const DependencyGraph &a, const Replay &p,
                               const DependencyGraph &measured, int topOperators)
{
    ValidationReport r;
    r.endToEnd = {QStringLiteral("end to end"), p.makespan(),
                  measured.measuredEnd() - measured.origin()};

    const Iterations pi = replayedIterations(a, p), mi = measuredIterations(measured);
    r.stepsPredicted = int(pi.starts.size());
    r.stepsMeasured = int(mi.starts.size());
    if (!pi.empty() && !mi.empty()) {
        r.iterations.append({QStringLiteral("mean iteration"), pi.mean(), mi.mean()});
        r.iterations.append(
            {QStringLiteral("median iteration"), pi.quantile(0.5), mi.quantile(0.5)});
        r.iterations.append({QStringLiteral("p90 iteration"), pi.quantile(0.9), mi.quantile(0.9)});
        const auto pt = pi.times(), mt = mi.times();
        const auto names = measured.iterations();
        for (size_t k = 0; k < pt.size() && k < mt.size(); ++k)
            r.steps.append(
                {measured.name(measured.containers()[size_t(names[k])].name), pt[k], mt[k]});
    }

    const auto pf = familyTimes(a, [&](size_t i) { return std::pair(p.start[i], p.end[i]); });
    const auto mf = familyTimes(measured, [&](size_t i) {
        return std::pair(measured.nodes()[i].start, measured.nodes()[i].end);
    });
    std::map<QString, ValidationRow> families;
    for (const auto &[name, t] : mf)
        families[name] = {name, 0, t};
    for (const auto &[name, t] : pf) {
        families[name].what = name;
        families[name].predicted = t;
    }
    for (const auto &[name, row] : families)
        r.families.append(row);
    std::stable_sort(
        r.families.begin(), r.families.end(),
        [](const ValidationRow &x, const ValidationRow &y) { return x.measured > y.measured; });

    const auto po = operatorTimes(a, [&](int c) { return p.containerSpan(a, c); });
    const auto mo = operatorTimes(measured, [&](int c) {
        return std::pair(measured.containers()[size_t(c)].start,
                         measured.containers()[size_t(c)].end);
    });
    for (const auto &[path, t] : mo) {
        const auto it = po.find(path);
        r.operators.append({path, it != po.end() ? it->second : 0, t});
    }
    std::stable_sort(
        r.operators.begin(), r.operators.end(),
        [](const ValidationRow &x, const ValidationRow &y) { return x.measured > y.measured; });
    if (r.operators.size() > topOperators)
        r.operators.resize(topOperators);
    return r;
}

} // namespace

ValidationReport validate(const WhatIfResult &result, const DependencyGraph &measured,
                          int topOperators)
{
    ValidationReport r =
        validateTimes(*result.prepared.graph, result.predicted, measured, topOperators);
    const WhatIfReport &w = result.report;
    r.transforms = w.transforms;
    r.assumptions = w.notes;
    r.unknowns = w.unknowns;
    r.endToEnd.low = w.low.predicted;
    r.endToEnd.high = w.high.predicted;
    if (r.iterations.size() == 3) {
        r.iterations[0].low = w.low.mean;
        r.iterations[0].high = w.high.mean;
        r.iterations[1].low = w.low.spread.median;
        r.iterations[1].high = w.high.spread.median;
        r.iterations[2].low = w.low.spread.p90;
        r.iterations[2].high = w.high.spread.p90;
    }
    return r;
}

ValidationReport validateRuns(const DependencyGraph &predicted, const DependencyGraph &measured,
                              int topOperators)
{
    // The saved run's own times, as a replay that ran them.
    Replay times;
    times.origin = predicted.origin();
    times.finish = predicted.measuredEnd();
    for (const Node &n : predicted.nodes()) {
        times.start.push_back(n.start);
        times.end.push_back(n.end);
    }
    return validateTimes(predicted, times, measured, topOperators);
}

QJsonObject ValidationReport::toJson() const
{
    auto rows = [](const QList<ValidationRow> &list) {
        QJsonArray out;
        for (const ValidationRow &row : list) {
            QJsonObject o{{QStringLiteral("what"), row.what},
                          {QStringLiteral("predicted_ns"), qint64(row.predicted)},
                          {QStringLiteral("measured_ns"), qint64(row.measured)},
                          {QStringLiteral("error"), row.error()}};
            if (row.hasBand()) {
                o.insert(QStringLiteral("predicted_low_ns"), qint64(row.low));
                o.insert(QStringLiteral("predicted_high_ns"), qint64(row.high));
                o.insert(QStringLiteral("inside_band"), row.insideBand());
            }
            out.append(o);
        }
        return out;
    };
    QJsonObject o;
    o.insert(QStringLiteral("predicted_run"), predictedRun);
    o.insert(QStringLiteral("measured_run"), measuredRun);
    o.insert(QStringLiteral("transforms"), QJsonArray::fromStringList(transforms));
    o.insert(QStringLiteral("assumptions"), QJsonArray::fromStringList(assumptions));
    o.insert(QStringLiteral("unknowns"), QJsonArray::fromStringList(unknowns));
    o.insert(QStringLiteral("end_to_end"), rows({endToEnd}).first());
    o.insert(QStringLiteral("iterations"), rows(iterations));
    o.insert(QStringLiteral("steps_predicted"), stepsPredicted);
    o.insert(QStringLiteral("steps_measured"), stepsMeasured);
    o.insert(QStringLiteral("steps"), rows(steps));
    o.insert(QStringLiteral("kernel_families"), rows(families));
    o.insert(QStringLiteral("operators"), rows(operators));
    return o;
}

QString ValidationReport::toText() const
{
    QString s = QStringLiteral("prediction: %1%2, against measured run %3\n")
                    .arg(predictedRun,
                         transforms.isEmpty()
                             ? QStringLiteral(" as measured")
                             : QStringLiteral(" with ") + transforms.join(QStringLiteral("; ")),
                         measuredRun);
    for (const QString &a : assumptions)
        s += QStringLiteral("  assumed: %1\n").arg(a);
    auto line = [&](const ValidationRow &row, int width) {
        double e = row.error() * 100;
        if (std::abs(e) < 0.05)
            e = 0; // no "-0.0%"
        // A long call path keeps its end, the op.
        const QString what =
            row.what.size() > width ? QStringLiteral("…") + row.what.right(width - 1) : row.what;
        s += QStringLiteral("  %1 %2 %3 %4\n")
                 .arg(what.leftJustified(width), formatDuration(row.measured).rightJustified(12),
                      formatDuration(row.predicted).rightJustified(12),
                      row.measured > 0 ? QStringLiteral("%1%2%")
                                             .arg(e >= 0 ? QStringLiteral("+") : QString())
                                             .arg(e, 0, 'f', 1)
                                             .rightJustified(8)
                                       : QStringLiteral("n/a").rightJustified(8));
    };
    auto header = [&](const QString &title, int width) {
        s += QStringLiteral("%1\n  %2 %3 %4 %5\n")
                 .arg(title, QString().leftJustified(width),
                      QStringLiteral("measured").rightJustified(12),
                      QStringLiteral("predicted").rightJustified(12),
                      QStringLiteral("error").rightJustified(8));
    };
    header(QStringLiteral("times"), 18);
    line(endToEnd, 18);
    for (const auto &row : iterations)
        line(row, 18);
    if (endToEnd.hasBand()) {
        s += QStringLiteral("prediction band (%1)\n")
                 .arg(unknowns.isEmpty()
                          ? QStringLiteral("no unknowns: every factor was given")
                          : QStringLiteral("5th to 95th percentile of %1 replays, each "
                                           "unknown below drawn on its own")
                                .arg(kBandDraws));
        for (const auto *row : {&endToEnd, iterations.size() > 1 ? &iterations[1] : nullptr}) {
            if (!row)
                continue;
            s += QStringLiteral("  %1 %2 to %3: measured %4 %5\n")
                     .arg(row->what.leftJustified(18), formatDuration(row->low),
                          formatDuration(row->high), formatDuration(row->measured),
                          row->insideBand() ? QStringLiteral("inside") : QStringLiteral("OUTSIDE"));
        }
        for (const QString &u : unknowns)
            s += QStringLiteral("  unknown: %1\n").arg(u);
    }
    if (stepsPredicted != stepsMeasured)
        s += QStringLiteral("  (%1 steps predicted, %2 measured: aligned in order, the first %3)\n")
                 .arg(stepsPredicted)
                 .arg(stepsMeasured)
                 .arg(std::min(stepsPredicted, stepsMeasured));
    if (!families.isEmpty()) {
        header(QStringLiteral("GPU time by kernel family (all ranks)"), 18);
        for (const auto &row : families)
            line(row, 18);
    }
    if (!operators.isEmpty()) {
        header(QStringLiteral("largest operators by call path"), 48);
        for (const auto &row : operators)
            line(row, 48);
    }
    return s;
}

} // namespace gml::sim
