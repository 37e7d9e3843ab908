// SPDX-License-Identifier: GPL-3.0-or-later
#include "ranksmodels.h"

#include "timeformat.h"

namespace gml {

StragglersModel::StragglersModel(QObject *parent)
    : RowsModel({tr("#"), tr("Collective"), tr("Ranks"), tr("Last rank"), tr("Late"),
                 tr("vs median"), tr("Ran before")},
                parent)
{
}

void StragglersModel::setStragglers(std::vector<sim::Straggler> stragglers)
{
    m_stragglers = std::move(stragglers);
    std::vector<Row> rows;
    rows.reserve(m_stragglers.size());
    for (size_t i = 0; i < m_stragglers.size(); ++i) {
        const sim::Straggler &s = m_stragglers[i];
        Row row;
        row.data = int(i);
        row.cells = {number(QString::number(s.index + 1), s.index + 1),
                     Cell{s.operation},
                     number(QString::number(s.ranks), s.ranks),
                     number(QString::number(s.lastRank), s.lastRank),
                     number(formatDuration(s.late()), double(s.late())),
                     number(formatDuration(s.lateVsMedian), double(s.lateVsMedian)),
                     Cell{s.before, {}, s.before}};
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
}

const sim::Straggler *StragglersModel::stragglerAt(const QModelIndex &index) const
{
    const QVariant i = rowData(index);
    return i.isValid() && i.toInt() < int(m_stragglers.size()) ? &m_stragglers[size_t(i.toInt())]
                                                               : nullptr;
}

RankLoadModel::RankLoadModel(QObject *parent)
    : RowsModel({tr("Rank"), tr("Compute"), tr("Communication"), tr("Last arrivals")}, parent)
{
}

void RankLoadModel::setRanks(const std::vector<sim::RankLoad> &ranks)
{
    std::vector<Row> rows;
    rows.reserve(ranks.size());
    for (const sim::RankLoad &l : ranks) {
        Row row;
        row.data = l.rank;
        row.cells = {number(tr("rank %1").arg(l.rank), l.rank),
                     number(formatDuration(l.compute), double(l.compute)),
                     number(formatDuration(l.communication), double(l.communication)),
                     number(QString::number(l.lastArrivals), double(l.lastArrivals))};
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
}

} // namespace gml
