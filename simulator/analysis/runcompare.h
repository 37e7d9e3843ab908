// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runcatalog.h"
#include "tracediff.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace gml {
class Project;
}

namespace gml::sim {

// Comparing runs (DEEM'23: intra-workload, inter-workload, mixed; measured, predicted and
// simulated alike): a metric over time or step overlaid, the headline metrics side by side, and
// a trace diff of two of them.

struct SeriesPoint
{
    TimeNs t = 0; // project clock
    double value = 0;
    qint64 step = -1; // the step an MLflow metric was logged at; -1: a sampled counter
};

struct MetricSeries
{
    RunId run = 0;
    QString runName;
    QString device; // "GPU 0", "host"; empty for an MLflow metric
    QString source; // "mlflow", "nvidia-smi", "dcgmi", "top"
    QString metric; // "loss", "GPU utilisation", "Power", ...
    QString unit;
    TimeNs runStart = 0;             // the run's start: the relative axis counts from it
    std::vector<SeriesPoint> points; // at most 5,000 (bucket means beyond)
    bool hasSteps() const { return !points.empty() && points.front().step >= 0; }
    QString label() const; // "run · GPU 0"
};

// The metrics the runs can be charted by: MLflow metric keys, then the monitoring metrics
// (resourceattribution.h names: "GPU utilisation", "Power", "Memory used", "Host CPU", ...),
// GPU utilisation first, then the other GPU series, then the rest: Compare opens on the first.
QStringList comparableMetrics(Project &project, const QList<RunId> &runs);
// Every series of `metric` in the runs (one per device for monitoring counters).
std::vector<MetricSeries> metricSeries(Project &project, const RunCatalog &catalog,
                                       const QList<RunId> &runs, const QString &metric,
                                       QString *error);

// Summary metrics per run for bar charts: each a label and a headline-metric key.
struct SummaryMetric
{
    QString key;      // run_metrics key
    QString label;    // "Iteration time"
    QString unit;     // "ms", "%", "J"
    double scale = 1; // multiply the stored value by it for the unit
};
const QList<SummaryMetric> &summaryMetrics();
// A headline metric of a run in its display unit (NaN: unknown). A key "last_metrics.NAME" is
// the last value of the run's MLflow metric NAME.
double summaryValue(const CatalogRun &run, const SummaryMetric &metric);

// What `grademl compare` prints: the runs' headline metrics, the metric's series summed up
// (at common steps when they have steps), and the trace diff of the first two runs.
struct Comparison
{
    QList<CatalogRun> runs;
    QString place; // "intra-workload 'x'", "inter-workload", "mixed"
    QString metric;
    std::vector<MetricSeries> series;
    std::optional<TraceDiff> diff;
    QString diffNote; // why there is no diff
};
// The kind of comparison: runs of one workload (intra), of different workloads (inter) or
// runs outside any workload among them (mixed).
QString comparisonKind(const RunCatalog &catalog, const QList<CatalogRun> &runs);
std::optional<Comparison> compareRuns(Project &project, const RunCatalog &catalog,
                                      const QStringList &runNames, const QString &metric,
                                      const DiffOptions &diff, QString *error);
QString comparisonText(const Comparison &c);
QJsonObject comparisonJson(const Comparison &c);

} // namespace gml::sim
