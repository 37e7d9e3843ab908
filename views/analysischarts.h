// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "findings.h"

#include <QColor>
#include <QString>
#include <QStringList>

#include <vector>

namespace gml {

// The data of the analysis charts, taken from a run's report (no drawing here: the chart layer
// draws it, in the panel and in `grademl export --view analysis`).
struct ChartSeries
{
    QString name;
    QColor color;
    std::vector<double> values; // one per category
};

// Bars per category, the series stacked in order (the first at the base).
struct StackedBars
{
    QString title;
    QString valueLabel; // the value axis ("ms", "% of the window")
    QStringList categories;
    std::vector<ChartSeries> series;
    bool legend = true; // false: the categories name the series already
    bool isEmpty() const { return categories.isEmpty() || series.empty(); }
};

// Lines over time (seconds from the run's start) with shaded phases behind them.
struct TimeChart
{
    struct Line
    {
        QString name;
        QColor color;
        std::vector<double> x, y;
    };
    struct Band
    {
        double from = 0, to = 0;
        QString label;
        QColor color;
    };
    QString title;
    QString valueLabel;
    std::vector<Line> lines;
    std::vector<Band> bands;
    bool isEmpty() const { return lines.empty(); }
};

struct AnalysisCharts
{
    StackedBars iterations; // GPU time per iteration: compute, communication, copies, idle
    StackedBars ranks;      // per rank (or GPU): the same over the run
    StackedBars families;   // kernel time by family, one bar
    TimeChart utilisation;  // counters: GPU utilisation per GPU, phases shaded; else the launch queue
};

AnalysisCharts analysisCharts(const sim::RunReport &report);

} // namespace gml
