// SPDX-License-Identifier: GPL-3.0-or-later
#include "sortedtable.h"

#include "rowsmodel.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>

namespace gml {

SortedTable::SortedTable(RowsModel *model, QWidget *parent)
    : QTableView(parent), m_rows(model), m_sorted(new QSortFilterProxyModel(this))
{
    m_sorted->setSourceModel(model);
    m_sorted->setSortRole(RowsModel::SortRole);
    setModel(m_sorted);
    verticalHeader()->hide();
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setAlternatingRowColors(true);
    horizontalHeader()->setStretchLastSection(true);
    setWordWrap(false);
    setSortingEnabled(true);
    connect(this, &QTableView::clicked, this,
            [this](const QModelIndex &shown) { Q_EMIT rowClicked(sourceIndex(shown)); });
}

QModelIndex SortedTable::sourceIndex(const QModelIndex &shown) const
{
    return m_sorted->mapToSource(shown);
}

QModelIndex SortedTable::sourceRow(int row) const
{
    return sourceIndex(m_sorted->index(row, 0));
}

} // namespace gml
