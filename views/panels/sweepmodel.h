// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rowsmodel.h"
#include "sweepcharts.h"

namespace gml {

// The Simulate panel's table: each simulated configuration with its workers, batch, iteration
// time, throughput, speedup, scaling efficiency, NET, usage, the time a worker spends computing,
// communicating and moving memory per iteration, and its energy per iteration; numbers sort as
// numbers. RowDataRole: the saved run's name.
class SweepModel : public RowsModel
{
    Q_OBJECT
public:
    enum Column {
        Run,
        Workers,
        Batch,
        Iteration,
        Throughput,
        Speedup,
        Efficiency,
        Net,
        Usage,
        Compute,
        Communication,
        Memory,
        Energy
    };
    explicit SweepModel(QObject *parent = nullptr);
    void setPoints(const QList<SweepPoint> &points);
};

} // namespace gml
