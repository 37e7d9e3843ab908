// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysischarts.h"
#include "runcatalog.h"

#include <QJsonObject>
#include <QList>

namespace gml {

namespace sim {
struct SimResult;
}

// The data of the Simulate panel's sweep charts (issue 18): speedup, normalized execution time,
// device usage and energy per iteration of simulated runs against their worker count (or batch
// size when only that varies), a line per configuration that differs in anything else. No
// drawing here: the chart layer draws it, in the panel and in `grademl export --view simulate`.

// One simulated configuration: its SimConfig::toJson() and SimMetrics::toJson(), as a sweep
// returns them or as the run's params keep them.
struct SweepPoint
{
    QString run; // the saved run
    QJsonObject config;
    QJsonObject metrics;

    int workers() const;
    int batch() const; // the global batch when the configuration has one, else per worker
    bool globalBatch() const;
    QString model() const;
    QString strategy() const; // "ps 2 servers async", "multiworker tree", "mirrored", "default"
    QString cluster() const;  // its preset id or name
};
SweepPoint sweepPoint(const sim::SimResult &result, const QString &run);
// The simulated runs among `runs`, in their order (the others are left out).
QList<SweepPoint> sweepPoints(const QList<CatalogRun> &runs);

struct SweepCharts
{
    QString key;       // "workers" or "batch"
    TimeChart speedup; // with the ideal (linear) speedup when the key is workers
    TimeChart net;     // normalized execution time: epoch time over one device's
    TimeChart usage;   // % of the run the workers' GPUs compute
    TimeChart energy;  // J per iteration, all devices
    int lines = 0;     // configurations drawn
    bool isEmpty() const { return lines == 0; }
};
SweepCharts sweepCharts(const QList<SweepPoint> &points);

} // namespace gml
