// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweepmodel.h"

#include "timeformat.h"

namespace gml {

SweepModel::SweepModel(QObject *parent)
    : RowsModel({tr("Run"), tr("Workers"), tr("Batch"), tr("Iteration"), tr("Samples/s"),
                 tr("Speedup"), tr("Efficiency"), tr("NET"), tr("Usage"), tr("Compute"),
                 tr("Comm."), tr("Memory"), tr("J/iter")},
                parent)
{
    setHeaderToolTip(Net, tr("Normalized execution time: epoch time over one device's"));
    setHeaderToolTip(Usage, tr("The workers' GPUs computing, over the run"));
    setHeaderToolTip(Communication,
                     tr("Per worker and iteration: its gradient and weight transfers in flight"));
    setHeaderToolTip(Memory, tr("Per worker and iteration: input reads and host-to-device copies"));
}

void SweepModel::setPoints(const QList<SweepPoint> &points)
{
    std::vector<Row> rows;
    rows.reserve(size_t(points.size()));
    for (const SweepPoint &p : points) {
        auto value = [&](const char *key) {
            return p.metrics.value(QLatin1String(key)).toDouble();
        };
        auto duration = [&](const char *key) {
            const double ns = value(key);
            return number(formatDuration(TimeNs(ns)), ns);
        };
        auto percent = [&](const char *key) {
            return number(QStringLiteral("%1%").arg(100 * value(key), 0, 'f', 1), value(key));
        };
        Row row;
        row.data = p.run;
        row.cells = {
            Cell{p.run,
                 {},
                 QStringLiteral("%1\n%2 · %3 · %4")
                     .arg(p.run, p.model(), p.strategy(), p.cluster())},
            number(QString::number(p.workers()), p.workers()),
            number(p.globalBatch() ? tr("%1 global").arg(p.batch()) : QString::number(p.batch()),
                   p.batch()),
            duration("iteration_ns"),
            number(QString::number(value("throughput_samples_per_s"), 'f', 1),
                   value("throughput_samples_per_s")),
            number(QStringLiteral("%1×").arg(value("speedup"), 0, 'f', 2), value("speedup")),
            percent("scaling_efficiency"),
            number(QString::number(value("normalized_execution_time"), 'f', 3),
                   value("normalized_execution_time")),
            percent("device_usage"),
            duration("computation_ns"),
            duration("communication_ns"),
            duration("memory_ns"),
            number(QString::number(value("energy_per_iteration_j"), 'f', 1),
                   value("energy_per_iteration_j")),
        };
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
}

} // namespace gml
