// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorymodels.h"

#include "findings.h"
#include "timeformat.h"

namespace gml {

namespace {

QStringList headers(MemoryTableModel::Table t)
{
    switch (t) {
    case MemoryTableModel::Table::Largest:
        return {MemoryTableModel::tr("Bytes"), MemoryTableModel::tr("At"),
                MemoryTableModel::tr("Held"), MemoryTableModel::tr("Operator")};
    case MemoryTableModel::Table::NeverFreed:
        return {MemoryTableModel::tr("Bytes"), MemoryTableModel::tr("Count"),
                MemoryTableModel::tr("Operator")};
    case MemoryTableModel::Table::Live:
        break;
    }
    return {MemoryTableModel::tr("Bytes"), MemoryTableModel::tr("Count"),
            MemoryTableModel::tr("Allocated by")};
}

// A row of `texts` (the first the bytes, right-aligned) that shows `a` when clicked; its last
// column's tooltip the allocation's call path.
RowsModel::Row allocationRow(const QStringList &texts, double bytes, const MemoryAllocation &a,
                             const DeviceMemory &d)
{
    RowsModel::Row row;
    row.cells.push_back(RowsModel::number(texts[0], bytes));
    for (qsizetype c = 1; c < texts.size(); ++c)
        row.cells.push_back(RowsModel::Cell{texts[c]});
    row.cells.back().toolTip = a.path;
    row.data = QVariant::fromValue(
        sim::Evidence{MemoryTableModel::tr("%1 allocated by %2").arg(formatBytes(a.bytes), a.op),
                      d.rank, a.at, a.at, a.slice, a.track});
    return row;
}

RowsModel::Row summaryRow(const QStringList &texts)
{
    RowsModel::Row row;
    for (const QString &t : texts)
        row.cells.push_back(RowsModel::Cell{t});
    return row;
}

} // namespace

MemoryTableModel::MemoryTableModel(Table table, QObject *parent)
    : RowsModel(headers(table), parent), m_table(table)
{
}

void MemoryTableModel::setDevice(const DeviceMemory &d, TimeNs origin, bool byPath)
{
    std::vector<Row> rows;
    switch (m_table) {
    case Table::Live:
        for (const MemoryGroup &g : byPath ? d.liveAtPeakByPath : d.liveAtPeak)
            rows.push_back(allocationRow({formatBytes(g.bytes), QString::number(g.count), g.key},
                                         g.bytes, g.largest, d));
        if (d.allocatedBeforeTrace > 0 && d.totalsRecorded)
            rows.push_back(summaryRow({formatBytes(d.allocatedBeforeTrace), QString(),
                                       tr("allocated before the trace")}));
        break;
    case Table::Largest:
        for (const MemoryAllocation &a : d.largest)
            rows.push_back(allocationRow(
                {formatBytes(a.bytes), formatDuration(a.at - origin),
                 a.freedAt >= 0 ? formatDuration(a.freedAt - a.at) : tr("never freed"), a.op},
                double(a.bytes), a, d));
        break;
    case Table::NeverFreed:
        // Leak suspects first (made in a middle iteration), marked; then the rest by operator.
        for (const MemoryGroup &g : d.leakSuspects) {
            Row row = allocationRow({formatBytes(g.bytes), QString::number(g.count),
                                     tr("%1 — grows every step").arg(g.key)},
                                    g.bytes, g.largest, d);
            row.cells[2].foreground = QColor(0xc0, 0x39, 0x2b);
            rows.push_back(std::move(row));
        }
        for (const MemoryGroup &g : d.neverFreed)
            rows.push_back(allocationRow({formatBytes(g.bytes), QString::number(g.count), g.key},
                                         g.bytes, g.largest, d));
        if (d.neverFreed.empty())
            rows.push_back(
                summaryRow({QString(), QString(), tr("everything allocated was freed")}));
        break;
    }
    setRows(std::move(rows));
}

} // namespace gml
