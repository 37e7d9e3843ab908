// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slicequery.h"

#include <QAbstractTableModel>

#include <memory>

namespace gml {

struct TimelineData;

// The range selection's aggregate table (Perfetto's area selection): one row per run and slice
// name with count, the time inside the range, and the total, average and maximum of the whole
// slices. Sortable by any column.
class AggregateModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Name, Run, Count, InRange, Total, Average, Max, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;

    void setRows(std::shared_ptr<const TimelineData> data, std::vector<AggregateRow> rows);
    const std::vector<AggregateRow> &rows() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    QString runName(RunId run) const;

    std::shared_ptr<const TimelineData> m_data;
    std::vector<AggregateRow> m_rows;
};

} // namespace gml
