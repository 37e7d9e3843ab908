// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis.h"
#include "rowsmodel.h"

namespace gml {

// The Ranks page's collectives matched across ranks: the rank that arrived last, how late after
// the first and the median, what it ran before. RowDataRole: the straggler's index in
// stragglers().
class StragglersModel : public RowsModel
{
    Q_OBJECT
public:
    enum Column { Index, Collective, Ranks, LastRank, Late, VsMedian, Before };
    explicit StragglersModel(QObject *parent = nullptr);
    void setStragglers(std::vector<sim::Straggler> stragglers);
    const std::vector<sim::Straggler> &stragglers() const { return m_stragglers; }
    // The straggler of the row at `index`; null when none.
    const sim::Straggler *stragglerAt(const QModelIndex &index) const;

private:
    std::vector<sim::Straggler> m_stragglers;
};

// Each rank's GPU compute and communication time and how many collectives it arrived at last.
// RowDataRole: the rank.
class RankLoadModel : public RowsModel
{
    Q_OBJECT
public:
    enum Column { Rank, Compute, Communication, LastArrivals };
    explicit RankLoadModel(QObject *parent = nullptr);
    void setRanks(const std::vector<sim::RankLoad> &ranks);
};

} // namespace gml
