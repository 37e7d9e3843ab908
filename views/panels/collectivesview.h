// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "collectives.h"

#include <QWidget>

#include <memory>

class QLabel;
class QSortFilterProxyModel;
class QTreeView;

namespace gml {

class CollectivesModel;
class CollectiveRanksModel;
class SortedTable;

// The Collectives pane: what the network did, rank by rank (collectives.h). A line that sums
// it up (how much of the collectives' time is skew, the median busbw against the link); the
// collectives by kind (name, ranks, message size) with their time split into skew and transfer
// and their bus bandwidth against the link's peak, each collective under its kind; and the
// ranks: their wait for the last arrival, how often each came last and first. A collective
// clicked is asked for on every rank (collectiveClicked); a rank, for its GPU's row.
class CollectivesView : public QWidget
{
    Q_OBJECT
public:
    explicit CollectivesView(QWidget *parent = nullptr);
    void setReport(const QString &run, std::shared_ptr<const CollectiveReport> report);
    void setMessage(const QString &text); // no report: why (computing, no collectives)
    const CollectiveReport *report() const;
    QString summary() const; // the line above the tables
    CollectivesModel *collectivesModel() const { return m_model; }
    CollectiveRanksModel *ranksModel() const { return m_ranksModel; }
    QTreeView *tree() const { return m_tree; }

Q_SIGNALS:
    void collectiveClicked(int index);
    void rankClicked(int rank);

private:
    QLabel *m_summary;
    QTreeView *m_tree;
    QSortFilterProxyModel *m_sorted;
    CollectivesModel *m_model;
    CollectiveRanksModel *m_ranksModel;
    SortedTable *m_ranks;
};

} // namespace gml
