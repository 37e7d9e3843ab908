// SPDX-License-Identifier: GPL-3.0-or-later
#include "rowsmodel.h"

#include <QFont>

namespace gml {

// An index's internal id is 0 for a top-level row, else its parent's row + 1.

RowsModel::RowsModel(QStringList headers, QObject *parent)
    : QAbstractItemModel(parent), m_headers(std::move(headers))
{
}

void RowsModel::setRows(std::vector<Row> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

const RowsModel::Row *RowsModel::row(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    if (index.internalId() == 0)
        return index.row() < int(m_rows.size()) ? &m_rows[size_t(index.row())] : nullptr;
    const size_t parent = size_t(index.internalId() - 1);
    if (parent >= m_rows.size() || index.row() >= int(m_rows[parent].children.size()))
        return nullptr;
    return &m_rows[parent].children[size_t(index.row())];
}

const RowsModel::Row *RowsModel::rowAt(const QModelIndex &index) const
{
    return row(index);
}

void RowsModel::setHeader(int section, const QString &text)
{
    if (section < 0 || section >= int(m_headers.size()) || m_headers[section] == text)
        return;
    m_headers[section] = text;
    Q_EMIT headerDataChanged(Qt::Horizontal, section, section);
}

void RowsModel::setHeaderToolTip(int section, const QString &text)
{
    while (m_headerTips.size() <= section)
        m_headerTips << QString();
    m_headerTips[section] = text;
    Q_EMIT headerDataChanged(Qt::Horizontal, section, section);
}

QVariant RowsModel::rowData(const QModelIndex &index) const
{
    const Row *r = row(index);
    return r ? r->data : QVariant();
}

RowsModel::Cell RowsModel::number(const QString &text, double value)
{
    Cell c;
    c.text = text;
    c.sortKey = value;
    c.alignment = Qt::AlignRight | Qt::AlignVCenter;
    return c;
}

QModelIndex RowsModel::index(int r, int column, const QModelIndex &parent) const
{
    if (column < 0 || column >= columnCount() || r < 0)
        return {};
    if (!parent.isValid())
        return r < int(m_rows.size()) ? createIndex(r, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0 || parent.row() >= int(m_rows.size()) ||
        r >= int(m_rows[size_t(parent.row())].children.size()))
        return {};
    return createIndex(r, column, quintptr(parent.row() + 1));
}

QModelIndex RowsModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int RowsModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_rows.size());
    if (parent.column() != 0 || parent.internalId() != 0 || parent.row() >= int(m_rows.size()))
        return 0;
    return int(m_rows[size_t(parent.row())].children.size());
}

int RowsModel::columnCount(const QModelIndex &) const
{
    return int(m_headers.size());
}

QVariant RowsModel::data(const QModelIndex &index, int role) const
{
    const Row *r = row(index);
    if (!r)
        return {};
    if (role == RowDataRole)
        return r->data;
    if (index.column() >= int(r->cells.size()))
        return {};
    const Cell &c = r->cells[size_t(index.column())];
    switch (role) {
    case Qt::DisplayRole:
        return c.text;
    case SortRole:
        return c.sortKey.isValid() ? c.sortKey : QVariant(c.text);
    case Qt::ToolTipRole:
        return c.toolTip.isEmpty() ? QVariant() : QVariant(c.toolTip);
    case Qt::ForegroundRole:
        return c.foreground.isValid() ? QVariant(c.foreground) : QVariant();
    case Qt::BackgroundRole:
        return c.background.isValid() ? QVariant(c.background) : QVariant();
    case Qt::TextAlignmentRole:
        return c.alignment ? QVariant(int(c.alignment)) : QVariant();
    case Qt::FontRole:
        if (c.bold) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    default:
        return {};
    }
}

QVariant RowsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= int(m_headers.size()))
        return {};
    if (role == Qt::DisplayRole)
        return m_headers[section];
    if (role == Qt::ToolTipRole && section < int(m_headerTips.size()) &&
        !m_headerTips[section].isEmpty())
        return m_headerTips[section];
    return {};
}

} // namespace gml
