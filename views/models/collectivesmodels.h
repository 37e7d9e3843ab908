// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "collectives.h"
#include "rowsmodel.h"

#include <memory>

namespace gml {

// The Collectives pane's collectives (collectives.h): a row per kind (name, group size,
// message size) with its count, time, skew share, transfer and median busbw against the
// link's peak, and under it each collective of that kind. RowDataRole: the collective's index
// (a child row), -1 (a kind's row).
class CollectivesModel : public RowsModel
{
    Q_OBJECT
public:
    enum Column { Collective, Ranks, Size, Count, Time, Skew, Transfer, Busbw, OfPeak, LastRank };
    explicit CollectivesModel(QObject *parent = nullptr);
    void setReport(std::shared_ptr<const CollectiveReport> report);
    const CollectiveReport *report() const { return m_report.get(); }
    // The collective of the row at `index`; null for a kind's row or none.
    const gml::Collective *collectiveAt(const QModelIndex &index) const;

private:
    std::shared_ptr<const CollectiveReport> m_report;
};

// Each rank's collectives, wait for the last rank, last and first arrivals and communication
// time. RowDataRole: the rank.
class CollectiveRanksModel : public RowsModel
{
    Q_OBJECT
public:
    enum Column { Rank, Collectives, Waited, Last, First, Comm };
    explicit CollectiveRanksModel(QObject *parent = nullptr);
    void setRanks(const std::vector<RankCollectives> &ranks);
};

} // namespace gml
