// SPDX-License-Identifier: GPL-3.0-or-later
#include "collectivesview.h"

#include "collectivesmodels.h"
#include "sortedtable.h"
#include "timeformat.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace gml {

CollectivesView::CollectivesView(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_tree(new QTreeView(this)),
      m_sorted(new QSortFilterProxyModel(this)), m_model(new CollectivesModel(this)),
      m_ranksModel(new CollectiveRanksModel(this)), m_ranks(new SortedTable(m_ranksModel, this))
{
    setObjectName(QStringLiteral("collectivesView"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(RowsModel::SortRole);
    m_tree->setModel(m_sorted);
    m_tree->setObjectName(QStringLiteral("collectivesTree"));
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(CollectivesModel::Time, Qt::DescendingOrder);
    m_tree->setAlternatingRowColors(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->header()->setStretchLastSection(false);
    m_ranks->setObjectName(QStringLiteral("collectiveRanks"));
    m_ranks->sortByColumn(CollectiveRanksModel::Rank, Qt::AscendingOrder);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_tree);
    split->addWidget(m_ranks);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
    connect(m_tree, &QTreeView::clicked, this, [this](const QModelIndex &shown) {
        const QVariant i = m_model->rowData(m_sorted->mapToSource(shown));
        if (i.isValid() && i.toInt() >= 0)
            Q_EMIT collectiveClicked(i.toInt());
    });
    connect(m_ranks, &SortedTable::rowClicked, this, [this](const QModelIndex &source) {
        const QVariant rank = m_ranksModel->rowData(source);
        if (rank.isValid())
            Q_EMIT rankClicked(rank.toInt());
    });
    setMessage(tr("Open a project with a distributed run: its collectives show here."));
}

void CollectivesView::setMessage(const QString &text)
{
    m_model->setReport(nullptr);
    m_ranksModel->setRanks({});
    m_summary->setText(text);
}

const CollectiveReport *CollectivesView::report() const
{
    return m_model->report();
}

QString CollectivesView::summary() const
{
    return m_summary->text();
}

void CollectivesView::setReport(const QString &run, std::shared_ptr<const CollectiveReport> report)
{
    if (!report || report->collectives.empty()) {
        setMessage(tr("Run %1 has no collective kernels (NCCL, RCCL): nothing went over the "
                      "network.")
                       .arg(run));
        return;
    }
    TimeNs time = 0, skew = 0;
    std::vector<double> share;
    for (const Collective &c : report->collectives) {
        time += c.duration();
        skew += c.skewStart();
        if (c.busbwGBps() > 0 && c.linkPeakGBps > 0)
            share.push_back(c.busbwGBps() / c.linkPeakGBps);
    }
    QString bandwidth = tr("no message sizes recorded: no bandwidth");
    if (!share.empty()) {
        std::nth_element(share.begin(), share.begin() + qsizetype(share.size() / 2), share.end());
        bandwidth =
            tr("median busbw %1% of the link's peak").arg(100 * share[share.size() / 2], 0, 'f', 0);
    }
    int lastRank = -1, lastCount = 0;
    for (const RankCollectives &r : report->ranks)
        if (r.lastArrivals > lastCount) {
            lastCount = r.lastArrivals;
            lastRank = r.rank;
        }
    QString last;
    if (lastRank >= 0)
        last = tr("; rank %1 arrived last at %2 of %3")
                   .arg(lastRank)
                   .arg(lastCount)
                   .arg(report->collectives.size());
    m_summary->setText(tr("Run %1: %2 collectives on %3 ranks, %4 in all; skew (waiting for "
                          "the last rank) %5% of it, %6%7. A collective clicked is selected on "
                          "every rank in the timeline.")
                           .arg(run)
                           .arg(report->collectives.size())
                           .arg(report->ranks.size())
                           .arg(formatDuration(time))
                           .arg(time > 0 ? 100.0 * double(skew) / double(time) : 0.0, 0, 'f', 0)
                           .arg(bandwidth, last));
    m_model->setReport(report);
    m_ranksModel->setRanks(report->ranks);
    m_tree->expandToDepth(-1);
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_tree->resizeColumnToContents(c);
    m_tree->setColumnWidth(CollectivesModel::Collective,
                           std::min(m_tree->columnWidth(CollectivesModel::Collective), 200));
    m_ranks->resizeColumnsToContents();
}

} // namespace gml
