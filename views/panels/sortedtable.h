// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTableView>

class QSortFilterProxyModel;

namespace gml {

class RowsModel;

// A read-only table of a RowsModel, sorted by a click on a header (by each cell's sort key:
// numbers as numbers), whole rows selected one at a time.
class SortedTable : public QTableView
{
    Q_OBJECT
public:
    SortedTable(RowsModel *model, QWidget *parent);
    RowsModel *rows() const { return m_rows; }
    // The model's index of a row as shown (the view's, through the sort).
    QModelIndex sourceIndex(const QModelIndex &shown) const;
    // The row shown at `row` (0: the top), as the model's index; invalid when none.
    QModelIndex sourceRow(int row) const;

Q_SIGNALS:
    // A row clicked, as the model's index.
    void rowClicked(const QModelIndex &source);

private:
    RowsModel *m_rows;
    QSortFilterProxyModel *m_sorted;
};

} // namespace gml
