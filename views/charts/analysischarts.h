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
    std::vector<double> values;                // one per category
    Qt::BrushStyle pattern = Qt::SolidPattern; // predicted and simulated runs: hatched
};

// The studio's colours for lines and runs, in order (the k-th run of a comparison).
QColor chartColour(int k);

// Bars per category, the series stacked in order (the first at the base).
struct StackedBars
{
    QString title;
    QString valueLabel; // the value axis ("ms", "% of the window")
    QStringList categories;
    std::vector<ChartSeries> series;
    bool legend = true; // false: the categories name the series already
    // Whiskers of +- errors[k] at the top of bar k (the spread of a mean); empty: none.
    std::vector<double> errors;
    QStringList notes;         // a line per category for the tooltip ("predicted from 'x' (AMP)")
    bool sharesOfTotal = true; // the tooltip gives each series' share of its bar
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
        bool dashed = false; // a predicted or simulated run
    };
    struct Band
    {
        double from = 0, to = 0;
        QString label;
        QColor color;
    };
    QString title;
    QString valueLabel;
    QString keyLabel = QStringLiteral("s from the run's start");
    bool steps =
        true; // sampled counters hold their value until the next sample; false: joined points
    bool markers = false;  // a dot at each point (MLflow metrics, logged at steps)
    bool logKey = false;   // the key axis in powers of two (worker counts, batch sizes)
    bool logValue = false; // the value axis too (a speedup against workers: log-log)
    // A moment marked with a dashed vertical line and its label at the top (a peak).
    struct Mark
    {
        double x = 0;
        QString label;
        QColor color;
    };
    std::vector<Line> lines;
    std::vector<Band> bands;
    std::vector<Mark> marks;
    bool isEmpty() const { return lines.empty(); }
};

// Points of runs in a plane: a param (numbers, or categories when it is not numeric) against a
// metric, one point per run.
struct ScatterChart
{
    struct Point
    {
        double x = 0, y = 0;
        QString label; // the run
        QColor color;
    };
    QString title;
    QString keyLabel, valueLabel;
    QStringList categories; // non-empty: x is the index (from 1) of the param's value here
    std::vector<Point> points;
    bool isEmpty() const { return points.empty(); }
};

// The roofline (log-log, Nsight Compute's): a point per operator at its FLOPs per byte and
// achieved TFLOP/s, its area by its GPU time, its colour by what bounds it; the GPU's ceilings
// (the memory slope, then each precision's peak).
struct RooflineChart
{
    struct Point
    {
        double x = 0, y = 0; // FLOP/byte, TFLOP/s
        double share = 0;    // of the plotted ops' GPU time
        int op = 0;          // index into Roofline::ops
        QString label;       // the tooltip
        QColor color;
    };
    struct Roof
    {
        QString name; // "fp32 15.7 TFLOP/s"
        double tflops = 0;
    };
    QString title;
    double peakGbps = 0;
    std::vector<Roof> roofs;
    std::vector<Point> points;
    QString why; // empty when there is a roofline to draw
    bool isEmpty() const { return points.empty() || roofs.empty() || peakGbps <= 0; }
};
RooflineChart rooflineChart(const sim::Roofline &roofline);
// The colour of a bound (compute, memory, latency).
QColor boundColour(const QString &bound);

struct AnalysisCharts
{
    StackedBars iterations; // GPU time per iteration: compute, communication, copies, idle
    StackedBars ranks;      // per rank (or GPU): the same over the run
    StackedBars families;   // kernel time by family, one bar
    TimeChart
        utilisation; // counters: GPU utilisation per GPU, phases shaded; else the launch queue
    RooflineChart roofline;
};

AnalysisCharts analysisCharts(const sim::RunReport &report);

// One device's memory over the run (memoryreport.h): allocated and reserved, the iterations
// shaded, the peak marked; seconds from `origin`, MiB or GiB by the peak.
TimeChart memoryChart(const DeviceMemory &device, TimeNs origin);

} // namespace gml
