// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractItemModel>
#include <QColor>
#include <QStringList>
#include <QVariant>

#include <vector>

namespace gml {

// The rows a panel shows of the project's data, as a Qt item model: a table, or a tree of one
// level (a source and its files). A subclass turns its data (notes, findings, sources) into rows
// once; any view (a QTableView, a QTreeView, a test through QAbstractItemModelTester) reads
// them. Each cell has its text and what it sorts by (SortRole: a number where the column is
// one), with an optional tooltip, colours and alignment; each row carries a value of the
// panel's own (RowDataRole: a note's id, a finding's index).
class RowsModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Role { SortRole = Qt::UserRole + 40, RowDataRole };
    struct Cell
    {
        QString text;
        QVariant sortKey; // invalid: the text
        QString toolTip;  // empty: none
        QColor foreground;
        QColor background;
        Qt::Alignment alignment = {};
        bool bold = false;
    };
    struct Row
    {
        std::vector<Cell> cells;
        QVariant data;
        std::vector<Row> children; // one level: children have none
    };

    explicit RowsModel(QStringList headers, QObject *parent = nullptr);

    // Replaces every row (a model reset).
    void setRows(std::vector<Row> rows);
    const std::vector<Row> &rows() const { return m_rows; }
    // The row at `index` (of any column); null when none.
    const Row *rowAt(const QModelIndex &index) const;
    // RowDataRole of the row at `index` (invalid when none).
    QVariant rowData(const QModelIndex &index) const;
    // A column's header text (a total in it).
    void setHeader(int section, const QString &text);
    // What a column's header says when hovered.
    void setHeaderToolTip(int section, const QString &text);
    // A cell right-aligned that sorts by `value`.
    static Cell number(const QString &text, double value);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    const Row *row(const QModelIndex &index) const;

    QStringList m_headers;
    QStringList m_headerTips;
    std::vector<Row> m_rows;
};

} // namespace gml
