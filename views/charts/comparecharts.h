// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysischarts.h"
#include "runcompare.h"

namespace gml {

// The data of the comparison charts (issue 17), from the runs' headline metrics and a metric's
// series (no drawing here: the chart layer draws it, in the Compare panel and in
// `grademl export --view compare`). Run k has chartColour(k) in every chart; predicted and
// simulated runs are hatched bars and dashed lines.

// The key axis of a metric chart: wall time from the first run's start (runs side by side as
// they ran), time from each run's own start (runs laid over each other), or the MLflow step.
enum class CompareAxis { Time, Relative, Step };
QString compareAxisName(CompareAxis axis); // "time", "relative", "step"
std::optional<CompareAxis> compareAxisFromName(const QString &name);

// The runs' metric overlaid. Series without steps (sampled counters) have no place on a step
// axis: they are left out and *note says so.
TimeChart metricChart(const std::vector<sim::MetricSeries> &series, const QList<CatalogRun> &runs,
                      CompareAxis axis, QString *note = nullptr);

struct SummaryCharts
{
    StackedBars iteration; // mean iteration time per run, whiskers at +- one standard deviation
    StackedBars
        breakdown;      // GPU time: compute, communication, copies, idle (% of the run's GPU time)
    StackedBars energy; // energy per iteration (J), or per run where iterations are unknown
};
SummaryCharts summaryCharts(const QList<CatalogRun> &runs);

// What runs can be placed by in a scatter: the headline metrics some of them have, then the
// last value of each of their MLflow metrics ("loss (last)").
QList<sim::SummaryMetric> scatterMetrics(const QList<CatalogRun> &runs);

// A param against a headline metric, one point per run that has both. Numeric params on a
// numeric axis, others as categories.
ScatterChart paramScatter(const QList<CatalogRun> &runs, const QString &param,
                          const sim::SummaryMetric &metric);

// "name" with what it is when it was not measured: "predicted from 'x' (amp)", "simulated".
QString runOrigin(const CatalogRun &run);

} // namespace gml
