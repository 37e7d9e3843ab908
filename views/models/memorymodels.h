// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memoryreport.h"
#include "rowsmodel.h"

namespace gml {

// One of the memory page's tables of a device: what was live at the peak (by operator or call
// path), the largest allocations, or what was never freed within the trace (leak suspects first,
// marked). RowDataRole: the sim::Evidence of the row's allocation (its largest, for a group),
// shown in the timeline when clicked; none for a summary row.
class MemoryTableModel : public RowsModel
{
    Q_OBJECT
public:
    enum class Table { Live, Largest, NeverFreed };
    MemoryTableModel(Table table, QObject *parent = nullptr);
    // `origin`: the run's start (times read from it); `byPath`: live memory by call path.
    void setDevice(const DeviceMemory &d, TimeNs origin, bool byPath = false);

private:
    Table m_table;
};

} // namespace gml
