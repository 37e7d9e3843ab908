// SPDX-License-Identifier: GPL-3.0-or-later
#include "collectivesmodels.h"

#include "timeformat.h"

namespace gml {

namespace {

QString percent(double share)
{
    return QStringLiteral("%1%").arg(100 * share, 0, 'f', 0);
}

// Bus bandwidth and its share of the link's peak as cells; "?" without a recorded size.
std::pair<RowsModel::Cell, RowsModel::Cell> bandwidthCells(double busbw, double peak,
                                                           const QString &link, bool assumed)
{
    if (!(busbw > 0))
        return {RowsModel::Cell{QStringLiteral("?"), -1.0,
                                CollectivesModel::tr("the trace records no message size")},
                RowsModel::Cell{link, -1.0}};
    RowsModel::Cell bw = RowsModel::number(QString::number(busbw, 'f', 1), busbw);
    if (!(peak > 0))
        return {bw, RowsModel::Cell{link, -1.0,
                                    CollectivesModel::tr("the link's peak is not known: tag "
                                                         "the run network=LINK (Runs, Edit "
                                                         "Tags; ib-ndr, ib-hdr, eth100...)")}};
    RowsModel::Cell of = RowsModel::number(
        (assumed ? CollectivesModel::tr("%1 of %2 (assumed)") : CollectivesModel::tr("%1 of %2"))
            .arg(percent(busbw / peak), link),
        busbw / peak);
    of.toolTip = CollectivesModel::tr("busbw %1 GB/s against %2's %3 GB/s per direction")
                     .arg(busbw, 0, 'f', 1)
                     .arg(link)
                     .arg(peak);
    if (assumed)
        of.toolTip += CollectivesModel::tr(
            "\nThe trace does not name the network between nodes: this is the GPU's reference "
            "server's, its NICs together. Tag the run network=LINK (Runs, Edit Tags) to name "
            "the run's.");
    of.bold = busbw / peak < 0.25;
    return {bw, of};
}

} // namespace

CollectivesModel::CollectivesModel(QObject *parent)
    : RowsModel({tr("Collective"), tr("Ranks"), tr("Size"), tr("Count"), tr("Time"), tr("Skew"),
                 tr("Transfer"), tr("busbw GB/s"), tr("of link peak"), tr("Last rank")},
                parent)
{
    setHeaderToolTip(Skew, tr("from the first rank's arrival to the last's: the early ranks "
                              "waiting, not the network"));
    setHeaderToolTip(Transfer, tr("from the last arrival to the end (the median rank): "
                                  "moving the data"));
    setHeaderToolTip(Busbw, tr("bus bandwidth by nccl-tests' conventions: bytes / transfer "
                               "x 2(n-1)/n for all-reduce, (n-1)/n for all-gather, "
                               "reduce-scatter and all-to-all, 1 otherwise"));
}

void CollectivesModel::setReport(std::shared_ptr<const CollectiveReport> report)
{
    m_report = std::move(report);
    std::vector<Row> rows;
    if (!m_report) {
        setRows({});
        return;
    }
    // A kind's row per name, group size and message size (the longest first), its collectives
    // under it.
    const auto &all = m_report->collectives;
    for (const CollectiveKind &k : collectiveKinds(*m_report)) {
        Row kind;
        kind.data = -1;
        for (const int i : k.collectives) {
            const gml::Collective &c = all[size_t(i)];
            Row row;
            row.data = c.index;
            const double share =
                c.duration() > 0 ? double(c.skewStart()) / double(c.duration()) : 0;
            const auto [cbw, cof] =
                bandwidthCells(c.busbwGBps(), c.linkPeakGBps, c.link, c.linkAssumed);
            row.cells = {Cell{tr("#%1 at %2")
                                  .arg(c.index + 1)
                                  .arg(formatDuration(c.firstStart - all.front().firstStart)),
                              c.index},
                         number(QString::number(c.groupSize), c.groupSize),
                         number(messageSize(c.bytes), double(c.bytes)),
                         Cell{},
                         number(formatDuration(c.duration()), double(c.duration())),
                         number(percent(share), share),
                         number(formatDuration(c.transfer), double(c.transfer)),
                         cbw,
                         cof,
                         c.lastRank() >= 0 ? number(QString::number(c.lastRank()), c.lastRank())
                                           : Cell{}};
            kind.children.push_back(std::move(row));
        }
        const auto [kbw, kof] =
            bandwidthCells(k.medianBusbwGBps, k.linkPeakGBps, k.link, k.linkAssumed);
        kind.cells = {Cell{k.name, {}, {}, {}, {}, {}, true},
                      number(QString::number(k.groupSize), k.groupSize),
                      number(messageSize(k.bytes), double(k.bytes)),
                      number(QString::number(k.count), k.count),
                      number(formatDuration(k.time), double(k.time)),
                      number(percent(k.skewShare()), k.skewShare()),
                      number(formatDuration(k.transfer), double(k.transfer)),
                      kbw,
                      kof,
                      Cell{}};
        rows.push_back(std::move(kind));
    }
    setRows(std::move(rows));
}

const gml::Collective *CollectivesModel::collectiveAt(const QModelIndex &index) const
{
    const QVariant i = rowData(index);
    if (!m_report || !i.isValid() || i.toInt() < 0 ||
        i.toInt() >= int(m_report->collectives.size()))
        return nullptr;
    return &m_report->collectives[size_t(i.toInt())];
}

CollectiveRanksModel::CollectiveRanksModel(QObject *parent)
    : RowsModel({tr("Rank"), tr("Collectives"), tr("Waited"), tr("Arrived last"),
                 tr("Arrived first"), tr("Comm time")},
                parent)
{
    setHeaderToolTip(Waited, tr("the last rank's arrival less its own, summed: time it held "
                                "the others' kernels would not"));
}

void CollectiveRanksModel::setRanks(const std::vector<RankCollectives> &ranks)
{
    std::vector<Row> rows;
    for (const RankCollectives &r : ranks) {
        Row row;
        row.data = r.rank;
        row.cells = {number(tr("rank %1").arg(r.rank), r.rank),
                     number(QString::number(r.collectives), r.collectives),
                     number(formatDuration(r.wait), double(r.wait)),
                     number(QString::number(r.lastArrivals), r.lastArrivals),
                     number(QString::number(r.firstArrivals), r.firstArrivals),
                     number(formatDuration(r.comm), double(r.comm))};
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
}

} // namespace gml
