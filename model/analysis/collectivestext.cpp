// SPDX-License-Identifier: GPL-3.0-or-later
// The collectives report as a table a person reads (grademl collectives).
#include "collectives.h"

#include "timeformat.h"

#include <algorithm>
#include <map>

namespace gml {

namespace {

struct Row
{
    int count = 0;
    TimeNs time = 0, skew = 0, transfer = 0;
    std::vector<double> busbw;
    double peak = 0;
    QString link;
};

} // namespace

QString messageSize(qint64 bytes)
{
    if (bytes < 0)
        return QStringLiteral("?");
    if (bytes >= (qint64(1) << 20))
        return QStringLiteral("%1 MiB").arg(double(bytes) / double(1 << 20), 0, 'f', 1);
    if (bytes >= 1024)
        return QStringLiteral("%1 KiB").arg(double(bytes) / 1024.0, 0, 'f', 1);
    return QStringLiteral("%1 B").arg(bytes);
}

QString CollectiveReport::toText() const
{
    if (collectives.empty())
        return QStringLiteral("no collective kernels (NCCL / RCCL) in this run\n");
    // By name, group size and message size, the longest first.
    std::map<std::tuple<QString, int, qint64>, Row> rows;
    for (const Collective &c : collectives) {
        Row &r = rows[{c.name, c.groupSize, c.bytes}];
        ++r.count;
        r.time += c.duration();
        r.skew += c.skewStart();
        r.transfer += c.transfer;
        if (c.algbwGBps() > 0)
            r.busbw.push_back(c.busbwGBps());
        r.peak = c.linkPeakGBps;
        r.link = c.link;
    }
    std::vector<std::pair<std::tuple<QString, int, qint64>, Row>> sorted(rows.begin(), rows.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto &a, const auto &b) { return a.second.time > b.second.time; });
    QString s =
        QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9\n")
            .arg(QStringLiteral("collective").leftJustified(22),
                 QStringLiteral("ranks").rightJustified(5),
                 QStringLiteral("size").rightJustified(10),
                 QStringLiteral("count").rightJustified(6),
                 QStringLiteral("time").rightJustified(11),
                 QStringLiteral("skew").rightJustified(6),
                 QStringLiteral("transfer").rightJustified(11),
                 QStringLiteral("busbw GB/s").rightJustified(11), QStringLiteral("of link peak"));
    for (auto &[key, r] : sorted) {
        const auto &[name, ranks, bytes] = key;
        QString bw = QStringLiteral("?"), ofPeak;
        if (!r.busbw.empty()) {
            std::nth_element(r.busbw.begin(), r.busbw.begin() + qsizetype(r.busbw.size() / 2),
                             r.busbw.end());
            const double median = r.busbw[r.busbw.size() / 2];
            bw = QString::number(median, 'f', 1);
            if (r.peak > 0)
                ofPeak = QStringLiteral("%1% of %2 (%3 GB/s)")
                             .arg(100 * median / r.peak, 0, 'f', 0)
                             .arg(r.link)
                             .arg(r.peak);
        }
        if (ofPeak.isEmpty())
            ofPeak = r.link.isEmpty() ? QStringLiteral("-") : r.link;
        s +=
            QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9\n")
                .arg(name.left(22).leftJustified(22), QString::number(ranks).rightJustified(5),
                     messageSize(bytes).rightJustified(10),
                     QString::number(r.count).rightJustified(6),
                     formatDuration(r.time).rightJustified(11),
                     QStringLiteral("%1%")
                         .arg(r.time > 0 ? 100.0 * double(r.skew) / double(r.time) : 0.0, 0, 'f', 0)
                         .rightJustified(6),
                     formatDuration(r.transfer).rightJustified(11), bw.rightJustified(11), ofPeak);
    }
    s += QStringLiteral("skew: from the first rank's arrival to the last's; transfer: after the "
                        "last arrival (the median rank); busbw by nccl-tests' conventions\n\n");
    s += QStringLiteral("%1 %2 %3 %4 %5 %6\n")
             .arg(QStringLiteral("rank").rightJustified(5),
                  QStringLiteral("collectives").rightJustified(12),
                  QStringLiteral("waited").rightJustified(11),
                  QStringLiteral("arrived last").rightJustified(13),
                  QStringLiteral("arrived first").rightJustified(14),
                  QStringLiteral("comm time").rightJustified(11));
    for (const RankCollectives &r : ranks)
        s += QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                 .arg(QString::number(r.rank).rightJustified(5),
                      QString::number(r.collectives).rightJustified(12),
                      formatDuration(r.wait).rightJustified(11),
                      QString::number(r.lastArrivals).rightJustified(13),
                      QString::number(r.firstArrivals).rightJustified(14),
                      formatDuration(r.comm).rightJustified(11));
    return s;
}

} // namespace gml
