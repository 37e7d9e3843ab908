// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparecharts.h"

#include "theme.h"

#include <QHash>

#include <cmath>
#include <map>
#include <set>

namespace gml {

namespace {

bool isMeasured(const CatalogRun &run)
{
    return run.kind.isEmpty() || run.kind == QLatin1String("measured");
}

Qt::BrushStyle patternOf(const CatalogRun &run)
{
    if (isMeasured(run))
        return Qt::SolidPattern;
    return run.kind == QLatin1String("predicted") ? Qt::BDiagPattern : Qt::DiagCrossPattern;
}

// Bar labels: run names shortened in the middle (the tooltip has the whole name).
QStringList runNames(const QList<CatalogRun> &runs)
{
    constexpr int kMax = 22;
    QStringList out;
    for (const CatalogRun &r : runs)
        out << (r.name.size() <= kMax
                    ? r.name
                    : r.name.left(kMax / 2 - 1) + QStringLiteral("…") + r.name.right(kMax / 2));
    return out;
}

QStringList runNotes(const QList<CatalogRun> &runs)
{
    QStringList out;
    for (const CatalogRun &r : runs) {
        QStringList parts{r.name};
        if (const QString o = runOrigin(r); !o.isEmpty())
            parts << o;
        if (const QString d = r.metrics.value(QStringLiteral("device")).toString(); !d.isEmpty())
            parts << d;
        out << parts.join(QStringLiteral(", "));
    }
    return out;
}

// One series per run, each with a value at its own bar only: a colour (and hatching) per run.
StackedBars perRunBars(const QList<CatalogRun> &runs, const QString &title, const QString &unit,
                       const std::vector<double> &values)
{
    StackedBars b;
    b.title = title;
    b.valueLabel = unit;
    b.categories = runNames(runs);
    b.notes = runNotes(runs);
    b.legend = false;
    b.sharesOfTotal = false;
    bool any = false;
    for (int k = 0; k < runs.size(); ++k) {
        ChartSeries s{runs[k].name, chartColour(k), std::vector<double>(size_t(runs.size()), 0.0),
                      patternOf(runs[k])};
        const double v = values[size_t(k)];
        if (std::isfinite(v)) {
            s.values[size_t(k)] = v;
            any = true;
        }
        b.series.push_back(std::move(s));
    }
    if (!any)
        b.series.clear();
    return b;
}

} // namespace

QString compareAxisName(CompareAxis axis)
{
    switch (axis) {
    case CompareAxis::Time:
        return QStringLiteral("time");
    case CompareAxis::Relative:
        return QStringLiteral("relative");
    case CompareAxis::Step:
        return QStringLiteral("step");
    }
    return {};
}

std::optional<CompareAxis> compareAxisFromName(const QString &name)
{
    for (CompareAxis a : {CompareAxis::Time, CompareAxis::Relative, CompareAxis::Step})
        if (compareAxisName(a) == name)
            return a;
    return std::nullopt;
}

QString runOrigin(const CatalogRun &run)
{
    if (!run.measuredRun.isEmpty())
        return run.scenario.isEmpty()
                   ? QStringLiteral("predicted from '%1'").arg(run.measuredRun)
                   : QStringLiteral("predicted from '%1' (%2)").arg(run.measuredRun, run.scenario);
    return isMeasured(run) ? QString() : run.kind;
}

TimeChart metricChart(const std::vector<sim::MetricSeries> &series, const QList<CatalogRun> &runs,
                      CompareAxis axis, QString *note)
{
    TimeChart c;
    if (note)
        note->clear();
    if (series.empty())
        return c;
    const sim::MetricSeries &first = series.front();
    c.title = first.metric;
    c.valueLabel = first.unit;
    bool withSteps = false;
    TimeNs origin = std::numeric_limits<TimeNs>::max();
    for (const auto &s : series) {
        withSteps = withSteps || s.hasSteps();
        origin = std::min(origin, s.runStart > 0 ? s.runStart : s.points.front().t);
    }
    // A colour per run, as in the bars and the panel's header; a run's devices in shades of it.
    std::map<RunId, int> shadeOfRun;
    c.steps = !withSteps;
    c.markers = withSteps;
    switch (axis) {
    case CompareAxis::Time:
        c.keyLabel = QStringLiteral("s from the first run's start");
        break;
    case CompareAxis::Relative:
        c.keyLabel = QStringLiteral("s from each run's start");
        break;
    case CompareAxis::Step:
        c.keyLabel = QStringLiteral("step");
        break;
    }
    // Two sources of one device (nvidia-smi and dcgmi both sample GPU 0) say which is which.
    QHash<QString, int> labels;
    for (const auto &s : series)
        ++labels[s.label()];
    int left = 0;
    for (size_t i = 0; i < series.size(); ++i) {
        const auto &s = series[i];
        if (axis == CompareAxis::Step && !s.hasSteps()) {
            ++left;
            continue;
        }
        int runIndex = 0;
        const CatalogRun *run = nullptr;
        for (int k = 0; k < runs.size(); ++k)
            if (runs[k].id == s.run) {
                runIndex = k;
                run = &runs[k];
            }
        TimeChart::Line line;
        line.name = labels.value(s.label()) > 1 ? QStringLiteral("%1 (%2)").arg(s.label(), s.source)
                                                : s.label();
        const int shade = shadeOfRun[s.run]++;
        line.color = shade == 0 ? chartColour(runIndex)
                                : chartColour(runIndex)
                                      .lighter(100 + 22 * (shade % 4))
                                      .darker(100 + 15 * (shade / 4 % 3));
        line.dashed = run && !isMeasured(*run);
        const TimeNs zero = axis == CompareAxis::Relative
                                ? (s.runStart > 0 ? s.runStart : s.points.front().t)
                                : origin;
        for (const auto &p : s.points) {
            line.x.push_back(axis == CompareAxis::Step ? double(p.step) : double(p.t - zero) / 1e9);
            line.y.push_back(p.value);
        }
        if (axis == CompareAxis::Step) {
            // Steps logged out of order (a resumed run) are drawn in step order.
            std::vector<size_t> order(line.x.size());
            for (size_t k = 0; k < order.size(); ++k)
                order[k] = k;
            std::stable_sort(order.begin(), order.end(),
                             [&](size_t a, size_t b) { return line.x[a] < line.x[b]; });
            std::vector<double> x, y;
            for (size_t k : order) {
                x.push_back(line.x[k]);
                y.push_back(line.y[k]);
            }
            line.x = std::move(x);
            line.y = std::move(y);
        }
        c.lines.push_back(std::move(line));
    }
    if (note && left > 0)
        *note = c.lines.empty() ? QStringLiteral("'%1' is sampled over time, not logged at steps: "
                                                 "choose the time or relative axis")
                                      .arg(first.metric)
                                : QStringLiteral("%1 series without steps left out").arg(left);
    return c;
}

SummaryCharts summaryCharts(const QList<CatalogRun> &runs)
{
    SummaryCharts out;
    const auto n = size_t(runs.size());
    std::vector<double> mean(n), sd(n), energy(n);
    bool perIteration = true;
    for (size_t k = 0; k < n; ++k) {
        const CatalogRun &r = runs[int(k)];
        const double m = r.metric(QStringLiteral("step_mean_ns"), NAN);
        mean[k] = m / 1e6;
        sd[k] = std::isfinite(m) ? r.metric(QStringLiteral("step_sd_ns"), 0) / 1e6 : 0;
        if (r.metric(QStringLiteral("energy_j"), NAN) >= 0 &&
            !(r.metric(QStringLiteral("energy_per_iteration_j"), NAN) >= 0))
            perIteration = false;
    }
    for (size_t k = 0; k < n; ++k)
        energy[k] = runs[int(k)].metric(perIteration ? QStringLiteral("energy_per_iteration_j")
                                                     : QStringLiteral("energy_j"),
                                        NAN);
    out.iteration = perRunBars(runs, QStringLiteral("Iteration time (mean \u00b1 sd)"),
                               QStringLiteral("ms"), mean);
    out.iteration.errors = sd;
    if (out.iteration.isEmpty())
        out.iteration.title =
            QStringLiteral("Iteration time: no ProfilerStep iterations in these runs");
    out.energy = perRunBars(runs,
                            perIteration ? QStringLiteral("Energy per iteration")
                                         : QStringLiteral("Energy per run"),
                            QStringLiteral("J"), energy);
    if (out.energy.isEmpty())
        out.energy.title += QStringLiteral(": no power readings in these runs");

    StackedBars &b = out.breakdown;
    b.title = QStringLiteral("GPU time");
    b.valueLabel = QStringLiteral("%");
    b.categories = runNames(runs);
    b.notes = runNotes(runs);
    const Theme &theme = Theme::current();
    const struct
    {
        const char16_t *key, *name;
        QColor color;
    } parts[] = {{u"compute", u"compute", theme.resource(ResourceClass::Compute)},
                 {u"communication", u"communication", theme.resource(ResourceClass::Communication)},
                 {u"copies", u"copies", theme.resource(ResourceClass::Copies)},
                 {u"idle", u"idle", theme.resource(ResourceClass::Idle)}};
    bool any = false;
    for (const auto &p : parts) {
        ChartSeries s{QString::fromUtf16(p.name), p.color, {}};
        for (const CatalogRun &r : runs) {
            const double v = r.metric(QString::fromUtf16(p.key), NAN);
            any = any || std::isfinite(v);
            s.values.push_back(std::isfinite(v) ? 100 * v : 0);
        }
        b.series.push_back(std::move(s));
    }
    if (!any) {
        b.series.clear();
        b.title += QStringLiteral(": no GPU trace in these runs");
    }
    return out;
}

QList<sim::SummaryMetric> scatterMetrics(const QList<CatalogRun> &runs)
{
    QList<sim::SummaryMetric> out;
    for (const sim::SummaryMetric &m : sim::summaryMetrics())
        if (std::any_of(runs.begin(), runs.end(), [&](const CatalogRun &r) {
                return std::isfinite(sim::summaryValue(r, m));
            }))
            out << m;
    std::set<QString> logged;
    for (const CatalogRun &r : runs) {
        const QJsonObject last = r.metrics.value(QStringLiteral("last_metrics")).toObject();
        for (auto it = last.begin(); it != last.end(); ++it)
            logged.insert(it.key());
    }
    for (const QString &name : logged)
        out << sim::SummaryMetric{QStringLiteral("last_metrics.") + name,
                                  QStringLiteral("%1 (last)").arg(name), QString(), 1};
    return out;
}

ScatterChart paramScatter(const QList<CatalogRun> &runs, const QString &param,
                          const sim::SummaryMetric &metric)
{
    ScatterChart c;
    c.title = QStringLiteral("%1 by %2").arg(metric.label, param);
    c.keyLabel = param;
    c.valueLabel = metric.unit.isEmpty() ? metric.label
                                         : QStringLiteral("%1 (%2)").arg(metric.label, metric.unit);
    struct Row
    {
        int index;
        QString value;
        double y;
    };
    std::vector<Row> rows;
    bool numeric = true;
    for (int k = 0; k < runs.size(); ++k) {
        const QString v = runs[k].param(param);
        const double y = sim::summaryValue(runs[k], metric);
        if (v.isEmpty() || !std::isfinite(y))
            continue;
        bool ok = false;
        v.toDouble(&ok);
        numeric = numeric && ok;
        rows.push_back({k, v, y});
    }
    std::set<QString> values;
    if (!numeric) {
        for (const Row &r : rows)
            values.insert(r.value);
        for (const QString &v : values)
            c.categories << v;
    }
    // A colour per run while each can have its legend entry; else by kind.
    const bool few = rows.size() <= 12;
    for (const Row &r : rows) {
        const CatalogRun &run = runs[r.index];
        const QColor colour = few                                      ? chartColour(r.index)
                              : isMeasured(run)                        ? chartColour(0)
                              : run.kind == QLatin1String("predicted") ? chartColour(4)
                                                                       : chartColour(2);
        const double x = numeric ? r.value.toDouble() : double(c.categories.indexOf(r.value) + 1);
        c.points.push_back({x, r.y, run.name, colour});
    }
    return c;
}

} // namespace gml
