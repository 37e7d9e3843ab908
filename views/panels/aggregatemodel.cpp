// SPDX-License-Identifier: GPL-3.0-or-later
#include "aggregatemodel.h"

#include "timeformat.h"
#include "timelinedata.h"

#include <algorithm>

namespace gml {

void AggregateModel::setRows(std::shared_ptr<const TimelineData> data,
                             std::vector<AggregateRow> rows)
{
    beginResetModel();
    m_data = std::move(data);
    m_rows = std::move(rows);
    endResetModel();
}

QString AggregateModel::runName(RunId run) const
{
    if (m_data)
        for (const auto &r : m_data->runs)
            if (r.id == run)
                return r.name;
    return {};
}

int AggregateModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AggregateModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AggregateModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto &r = m_rows[size_t(index.row())];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return m_data ? m_data->name(r.name) : QString();
        case Run:
            return runName(r.run);
        case Count:
            return r.count;
        case InRange:
            return formatDuration(r.inRange);
        case Total:
            return formatDuration(r.total);
        case Average:
            return formatDuration(TimeNs(r.average()));
        case Max:
            return formatDuration(r.max);
        }
    } else if (role == Qt::UserRole) { // raw values, for sorting and tests
        switch (index.column()) {
        case Name:
            return m_data ? m_data->name(r.name) : QString();
        case Run:
            return runName(r.run);
        case Count:
            return r.count;
        case InRange:
            return r.inRange;
        case Total:
            return r.total;
        case Average:
            return r.average();
        case Max:
            return r.max;
        }
    } else if (role == Qt::TextAlignmentRole && index.column() != Name && index.column() != Run) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant AggregateModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Name");
    case Run:
        return tr("Run");
    case Count:
        return tr("Count");
    case InRange:
        return tr("In range");
    case Total:
        return tr("Whole total");
    case Average:
        return tr("Average");
    case Max:
        return tr("Max");
    }
    return {};
}

void AggregateModel::sort(int column, Qt::SortOrder order)
{
    Q_EMIT layoutAboutToBeChanged();
    const auto key = [&](const AggregateRow &r) -> double {
        switch (column) {
        case Count:
            return double(r.count);
        case InRange:
            return double(r.inRange);
        case Average:
            return r.average();
        case Max:
            return double(r.max);
        default:
            return double(r.total);
        }
    };
    std::stable_sort(
        m_rows.begin(), m_rows.end(), [&](const AggregateRow &a, const AggregateRow &b) {
            if ((column == Name || column == Run) && m_data) {
                const int c =
                    column == Name
                        ? QString::compare(m_data->name(a.name), m_data->name(b.name),
                                           Qt::CaseInsensitive)
                        : QString::compare(runName(a.run), runName(b.run), Qt::CaseInsensitive);
                return order == Qt::AscendingOrder ? c < 0 : c > 0;
            }
            return order == Qt::AscendingOrder ? key(a) < key(b) : key(a) > key(b);
        });
    Q_EMIT layoutChanged();
}

} // namespace gml
