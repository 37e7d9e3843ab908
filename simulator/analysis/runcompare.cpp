// SPDX-License-Identifier: GPL-3.0-or-later
#include "runcompare.h"

#include "clusterproject.h"
#include "countertrack.h"
#include "project.h"
#include "projecttime.h"
#include "resourceattribution.h"
#include "timeformat.h"
#include "trackrecords.h"

#include <QJsonArray>

#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace gml::sim {

QString MetricSeries::label() const
{
    return device.isEmpty() ? runName : runName + QStringLiteral(" \u00b7 ") + device;
}

namespace {

struct CounterRow
{
    TrackId id = 0;
    QString metric;
    QString unit;
    QString device;
    QString source;
    bool mlflow = false;
};

// The counter tracks of a run, with the metric each carries.
std::vector<CounterRow> counterRows(Project &project, RunId run)
{
    std::vector<CounterRow> out;
    for (const TrackRow &t : tracksOfRun(project, run)) {
        if (t.kind != TrackKind::Counter)
            continue;
        CounterRow r;
        r.id = t.id;
        const QString &name = t.name;
        r.unit = t.unit;
        r.mlflow = t.format == QLatin1String("mlflow-run");
        if (r.mlflow) {
            r.metric = name;
            r.source = QStringLiteral("mlflow");
        } else {
            const auto m = metricOfTrack(name);
            r.metric = m ? metricName(*m) : name;
            if (m)
                r.unit = metricUnit(*m);
            r.source = name.section(QStringLiteral(" \u00b7 "), 0, 0);
            const bool gpu = t.parentKind == TrackKind::Gpu;
            r.device = gpu                      ? QStringLiteral("GPU %1").arg(t.parentPid)
                       : t.parentName.isEmpty() ? QStringLiteral("host")
                                                : t.parentName;
        }
        out.push_back(r);
    }
    return out;
}

} // namespace

QStringList comparableMetrics(Project &project, const QList<RunId> &runs)
{
    // The first is what Compare opens on: the run's own MLflow metrics (loss, accuracy), then
    // what a person compares GPU runs by (utilisation, then other GPU series), then the rest,
    // each by name. "CPU memory allocated" is not the first thing to show.
    std::set<std::pair<int, QString>> ordered;
    for (RunId run : runs)
        for (const CounterRow &r : counterRows(project, run)) {
            const QString m = r.metric.toLower();
            const bool gpu = m.contains(QLatin1String("gpu")) || m.contains(QLatin1String("sm "));
            const int rank =
                r.mlflow ? 0
                : gpu && (m.contains(QLatin1String("util")) || m.contains(QLatin1String("busy")))
                    ? 1
                : gpu ? 2
                      : 3;
            ordered.insert({rank, r.metric});
        }
    QStringList out;
    for (const auto &[rank, m] : ordered)
        if (!out.contains(m))
            out << m;
    return out;
}

std::vector<MetricSeries> metricSeries(Project &project, const RunCatalog &catalog,
                                       const QList<RunId> &runs, const QString &metric,
                                       QString *error)
{
    std::vector<MetricSeries> out;
    for (RunId run : runs) {
        const CatalogRun *info = catalog.run(run);
        for (const CounterRow &r : counterRows(project, run)) {
            if (r.metric != metric)
                continue;
            MetricSeries s;
            s.run = run;
            s.runName = info ? info->name : QString::number(run);
            s.device = r.device;
            s.source = r.source;
            s.metric = r.metric;
            s.unit = r.unit;
            s.runStart = info ? info->start : 0;
            if (r.mlflow) {
                for (const CounterPoint &k : counterPoints(project, r.id))
                    s.points.push_back({k.ts, k.value, k.step});
            } else {
                const CounterTrack track = CounterTrack::load(project, r.id, error);
                const size_t n = track.size(), every = std::max<size_t>(1, (n + 4999) / 5000);
                for (size_t k = 0; k < n; k += every) {
                    double sum = 0;
                    const size_t e = std::min(n, k + every);
                    for (size_t j = k; j < e; ++j)
                        sum += track.value(j);
                    s.points.push_back({track.ts(k), sum / double(e - k), -1});
                }
            }
            if (!s.points.empty())
                out.push_back(std::move(s));
        }
    }
    return out;
}

const QList<SummaryMetric> &summaryMetrics()
{
    static const QList<SummaryMetric> all = {
        {QStringLiteral("step_mean_ns"), QStringLiteral("Iteration time"), QStringLiteral("ms"),
         1e-6},
        {QStringLiteral("gpu_busy"), QStringLiteral("GPU busy"), QStringLiteral("%"), 100},
        {QStringLiteral("compute"), QStringLiteral("Compute"), QStringLiteral("%"), 100},
        {QStringLiteral("communication"), QStringLiteral("Communication"), QStringLiteral("%"),
         100},
        {QStringLiteral("copies"), QStringLiteral("Copies"), QStringLiteral("%"), 100},
        {QStringLiteral("idle"), QStringLiteral("Idle"), QStringLiteral("%"), 100},
        {QStringLiteral("mfu"), QStringLiteral("MFU"), QStringLiteral("%"), 100},
        {QStringLiteral("hfu"), QStringLiteral("HFU"), QStringLiteral("%"), 100},
        {QStringLiteral("gpu_utilisation"), QStringLiteral("GPU utilisation (monitoring)"),
         QStringLiteral("%"), 1},
        {QStringLiteral("peak_memory_bytes"), QStringLiteral("Peak memory"), QStringLiteral("GiB"),
         1.0 / double(1 << 30)},
        {QStringLiteral("energy_j"), QStringLiteral("Energy"), QStringLiteral("J"), 1},
        {QStringLiteral("energy_per_iteration_j"), QStringLiteral("Energy per iteration"),
         QStringLiteral("J"), 1},
    };
    return all;
}

double summaryValue(const CatalogRun &run, const SummaryMetric &metric)
{
    // "last_metrics.loss": the last value of an MLflow metric.
    const QJsonValue v =
        metric.key.startsWith(QLatin1String("last_metrics."))
            ? run.metrics.value(QStringLiteral("last_metrics")).toObject().value(metric.key.mid(13))
            : run.metrics.value(metric.key);
    if (!v.isDouble())
        return std::numeric_limits<double>::quiet_NaN();
    return v.toDouble() * metric.scale;
}

QString comparisonKind(const RunCatalog &catalog, const QList<CatalogRun> &runs)
{
    std::set<qint64> workloads;
    bool loose = false;
    for (const CatalogRun &r : runs) {
        if (r.workloadId)
            workloads.insert(r.workloadId);
        else
            loose = true;
    }
    if (!loose && workloads.size() == 1) {
        const CatalogWorkload *w = catalog.workload(*workloads.begin());
        return QStringLiteral("intra-workload ('%1')").arg(w ? w->name : QString());
    }
    if (!loose)
        return QStringLiteral("inter-workload (%1 workloads)").arg(workloads.size());
    return workloads.empty() ? QStringLiteral("runs in no workload")
                             : QStringLiteral("mixed (runs of %1 workload%2 and runs in none)")
                                   .arg(workloads.size())
                                   .arg(workloads.size() == 1 ? QString() : QStringLiteral("s"));
}

// A cluster project holds no slice: each side's rank is read from the shard that holds it (the
// graph of that shard's part of the run), and the diff's iterations put on the cluster's clock
// (its ranks aligned across all shards).
static void diffOnShards(Project &project, const std::array<RunId, 2> &ids,
                         const std::array<QString, 2> &runNames, const DiffOptions &diffOptions,
                         Comparison &c)
{
    DiffOptions options = diffOptions;
    std::unique_ptr<Project> shards[2];
    std::optional<DependencyGraph> graphs[2];
    TimeNs toCluster[2] = {0, 0};
    QString why;
    for (int i = 0; i < 2 && why.isEmpty(); ++i) {
        int &rank = i == 0 ? options.rankA : options.rankB;
        if (rank < 0) { // the run's lowest rank, as for a single project
            rank = lowestRank(project, ids[i]).value_or(0);
        }
        QString problem;
        const auto path = cluster::shardOfRank(project, ids[i], rank, &problem);
        if (path)
            shards[i] = Project::open(*path, Project::Mode::ReadOnly, &problem);
        const std::optional<RunId> inShard =
            shards[i] ? shards[i]->findRun(runNames[i]) : std::nullopt;
        if (shards[i] && !inShard)
            problem = QStringLiteral("its shard %1 has no run of that name").arg(*path);
        if (inShard) {
            graphs[i] = DependencyGraph::build(*shards[i], *inShard, &problem);
            if (const auto src = rankSourceOffset(*shards[i], *inShard, rank))
                if (const auto mine = sourceOffsetOfPath(project, src->first))
                    toCluster[i] = *mine - src->second;
        }
        if (!graphs[i])
            why = QStringLiteral("'%1' rank %2: %3").arg(runNames[i]).arg(rank).arg(problem);
    }
    if (!why.isEmpty()) {
        c.diffNote = QStringLiteral("no trace diff: %1").arg(why);
        return;
    }
    c.diff = diffTraces(*graphs[0], runNames[0], *graphs[1], runNames[1], options);
    for (IterationPair &pair : c.diff->pairs) {
        pair.startA += toCluster[0];
        pair.endA += toCluster[0];
        pair.startB += toCluster[1];
        pair.endB += toCluster[1];
    }
}

std::optional<Comparison> compareRuns(Project &project, const RunCatalog &catalog,
                                      const QStringList &runNames, const QString &metric,
                                      const DiffOptions &diffOptions, QString *error)
{
    Comparison c;
    QList<RunId> ids;
    for (const QString &name : runNames) {
        const CatalogRun *r = catalog.run(name);
        if (!r) {
            if (error)
                *error = QStringLiteral("no run named '%1'").arg(name);
            return std::nullopt;
        }
        c.runs.append(*r);
        ids.append(r->id);
    }
    c.place = comparisonKind(catalog, c.runs);
    c.metric = metric;
    if (!metric.isEmpty()) {
        QString why;
        c.series = metricSeries(project, catalog, ids, metric, &why);
        if (!why.isEmpty()) {
            if (error)
                *error = why;
            return std::nullopt;
        }
    }
    if (ids.size() >= 2 && cluster::isClusterProject(project)) {
        diffOnShards(project, {ids[0], ids[1]}, {runNames[0], runNames[1]}, diffOptions, c);
    } else if (ids.size() >= 2) {
        QString whyA, whyB;
        // Two ranks of one run diff one graph against itself.
        auto ga = DependencyGraph::build(project, ids[0], &whyA);
        std::optional<DependencyGraph> gb;
        if (ids[1] != ids[0])
            gb = DependencyGraph::build(project, ids[1], &whyB);
        const DependencyGraph *b = ids[1] == ids[0] ? (ga ? &*ga : nullptr) : (gb ? &*gb : nullptr);
        if (ga && b)
            c.diff = diffTraces(*ga, runNames[0], *b, runNames[1], diffOptions);
        else
            c.diffNote = QStringLiteral("no trace diff: %1")
                             .arg(!ga ? QStringLiteral("'%1': %2").arg(runNames[0], whyA)
                                      : QStringLiteral("'%1': %2").arg(runNames[1], whyB));
    }
    return c;
}

static QString valueText(double v, const QString &unit)
{
    if (std::isnan(v))
        return QStringLiteral("-");
    if (unit == QLatin1String("ms"))
        return formatDuration(TimeNs(std::llround(v * 1e6)));
    const int decimals = std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2;
    return QStringLiteral("%1 %2").arg(v, 0, 'f', decimals).arg(unit);
}

QString comparisonText(const Comparison &c)
{
    QString out = QStringLiteral("comparison of %1 runs: %2\n\n").arg(c.runs.size()).arg(c.place);
    for (int i = 0; i < c.runs.size(); ++i) {
        const CatalogRun &r = c.runs[i];
        out += QStringLiteral("%1  %2 [%3]").arg(QChar(u'A' + std::min(i, 25))).arg(r.name, r.kind);
        if (!r.measuredRun.isEmpty())
            out += QStringLiteral(", predicted from '%1' (%2)").arg(r.measuredRun, r.scenario);
        const QString device = r.metrics.value(QStringLiteral("device")).toString();
        if (!device.isEmpty())
            out += QStringLiteral(", ") + device;
        out += QLatin1Char('\n');
    }
    out += QLatin1Char('\n');
    for (const SummaryMetric &m : summaryMetrics()) {
        QStringList values;
        bool any = false;
        for (const CatalogRun &r : c.runs) {
            const double v = summaryValue(r, m);
            any = any || !std::isnan(v);
            QString text = valueText(v, m.unit);
            if (m.key == QLatin1String("step_mean_ns") && !std::isnan(v))
                if (const double sd = r.metric(QStringLiteral("step_sd_ns"), 0); sd > 0)
                    text += QStringLiteral(" \u00b1 ") + formatDuration(TimeNs(std::llround(sd)));
            values << text;
        }
        if (!any)
            continue;
        out += QStringLiteral("%1  %2").arg(m.label.leftJustified(30),
                                            values.join(QStringLiteral("  |  ")));
        // B against A, for two runs.
        if (c.runs.size() == 2) {
            const double a = summaryValue(c.runs[0], m), b = summaryValue(c.runs[1], m);
            if (!std::isnan(a) && !std::isnan(b) && a != 0)
                out += QStringLiteral("   (B %1%2%)")
                           .arg(b >= a ? QStringLiteral("+") : QString())
                           .arg(100.0 * (b - a) / a, 0, 'f', 1);
        }
        out += QLatin1Char('\n');
    }
    if (!c.metric.isEmpty()) {
        out += QStringLiteral("\nmetric '%1': %2 series\n").arg(c.metric).arg(c.series.size());
        bool steps = !c.series.empty();
        for (const MetricSeries &s : c.series) {
            steps = steps && s.hasSteps();
            double lo = std::numeric_limits<double>::max(),
                   hi = std::numeric_limits<double>::lowest(), sum = 0;
            for (const SeriesPoint &p : s.points) {
                lo = std::min(lo, p.value);
                hi = std::max(hi, p.value);
                sum += p.value;
            }
            out += QStringLiteral("  %1: %2 points over %3, mean %4, min %5, max %6, last %7%8\n")
                       .arg(s.label())
                       .arg(s.points.size())
                       .arg(formatDuration(s.points.back().t - s.points.front().t))
                       .arg(sum / double(s.points.size()), 0, 'g', 5)
                       .arg(lo, 0, 'g', 5)
                       .arg(hi, 0, 'g', 5)
                       .arg(s.points.back().value, 0, 'g', 5)
                       .arg(s.unit.isEmpty() ? QString() : QLatin1Char(' ') + s.unit);
        }
        if (steps && c.series.size() >= 2) {
            // The value at each step every series logged.
            std::map<qint64, std::vector<double>> atStep;
            for (size_t i = 0; i < c.series.size(); ++i)
                for (const SeriesPoint &p : c.series[i].points) {
                    auto &row = atStep[p.step];
                    row.resize(c.series.size(), std::numeric_limits<double>::quiet_NaN());
                    row[i] = p.value;
                }
            out += QStringLiteral("  at common steps:\n");
            for (const auto &[step, values] : atStep) {
                if (std::any_of(values.begin(), values.end(),
                                [](double v) { return std::isnan(v); }))
                    continue;
                QStringList parts;
                for (double v : values)
                    parts << QString::number(v, 'g', 5);
                out += QStringLiteral("    step %1: %2\n")
                           .arg(step)
                           .arg(parts.join(QStringLiteral("  |  ")));
            }
        }
    }
    if (c.diff)
        out += QLatin1Char('\n') + c.diff->toText();
    else if (!c.diffNote.isEmpty())
        out += QLatin1Char('\n') + c.diffNote + QLatin1Char('\n');
    return out;
}

QJsonObject comparisonJson(const Comparison &c)
{
    QJsonArray runs;
    for (const CatalogRun &r : c.runs) {
        QJsonObject o{{QStringLiteral("name"), r.name},
                      {QStringLiteral("kind"), r.kind},
                      {QStringLiteral("metrics"), r.metrics}};
        if (!r.measuredRun.isEmpty()) {
            o.insert(QStringLiteral("measured_run"), r.measuredRun);
            o.insert(QStringLiteral("scenario"), r.scenario);
        }
        runs.append(o);
    }
    QJsonArray series;
    for (const MetricSeries &s : c.series) {
        QJsonArray points;
        for (const SeriesPoint &p : s.points) {
            QJsonArray pt{qint64(p.t - s.runStart), p.value};
            if (p.step >= 0)
                pt.append(p.step);
            points.append(pt);
        }
        series.append(QJsonObject{{QStringLiteral("run"), s.runName},
                                  {QStringLiteral("device"), s.device},
                                  {QStringLiteral("source"), s.source},
                                  {QStringLiteral("unit"), s.unit},
                                  {QStringLiteral("points"), points}});
    }
    QJsonObject o{{QStringLiteral("kind"), c.place}, {QStringLiteral("runs"), runs}};
    if (!c.metric.isEmpty()) {
        o.insert(QStringLiteral("metric"), c.metric);
        o.insert(QStringLiteral("series"),
                 series); // points: [ns after the run's start, value(, step)]
    }
    if (c.diff)
        o.insert(QStringLiteral("diff"), c.diff->toJson());
    else if (!c.diffNote.isEmpty())
        o.insert(QStringLiteral("diff_note"), c.diffNote);
    return o;
}

} // namespace gml::sim
