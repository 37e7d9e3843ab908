// SPDX-License-Identifier: GPL-3.0-or-later
// The collectives of a report by kind, and as a table a person reads (grademl collectives).
#include "collectives.h"

#include "timeformat.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gml {

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

std::vector<CollectiveKind> collectiveKinds(const CollectiveReport &report)
{
    std::map<std::tuple<QString, int, qint64>, CollectiveKind> kinds;
    std::map<std::tuple<QString, int, qint64>, std::vector<double>> busbw;
    for (const Collective &c : report.collectives) {
        const auto key = std::make_tuple(c.name, c.groupSize, c.bytes);
        CollectiveKind &k = kinds[key];
        k.name = c.name;
        k.groupSize = c.groupSize;
        k.bytes = c.bytes;
        ++k.count;
        k.time += c.duration();
        k.skew += c.skewStart();
        k.transfer += c.transfer;
        k.linkPeakGBps = c.linkPeakGBps;
        k.link = c.link;
        k.linkAssumed = c.linkAssumed;
        k.collectives.push_back(c.index);
        if (c.algbwGBps() > 0)
            busbw[key].push_back(c.busbwGBps());
    }
    std::vector<CollectiveKind> out;
    for (auto &[key, k] : kinds) {
        if (auto &v = busbw[key]; !v.empty()) {
            std::nth_element(v.begin(), v.begin() + qsizetype(v.size() / 2), v.end());
            k.medianBusbwGBps = v[v.size() / 2];
        }
        out.push_back(std::move(k));
    }
    std::stable_sort(out.begin(), out.end(), [](const CollectiveKind &a, const CollectiveKind &b) {
        return a.time > b.time;
    });
    return out;
}

QString CollectiveKind::ofPeak() const
{
    if (!(medianBusbwGBps > 0) || !(linkPeakGBps > 0))
        return link;
    return QStringLiteral("%1% of %2 (%3 GB/s%4)")
        .arg(100 * medianBusbwGBps / linkPeakGBps, 0, 'f', 0)
        .arg(link)
        .arg(linkPeakGBps)
        .arg(linkAssumed ? QStringLiteral(", assumed") : QString());
}

QString CollectiveReport::toText() const
{
    if (collectives.empty())
        return QStringLiteral("no collective kernels (NCCL / RCCL) in this run\n");
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
    for (const CollectiveKind &k : collectiveKinds(*this)) {
        const QString bw = k.medianBusbwGBps > 0 ? QString::number(k.medianBusbwGBps, 'f', 1)
                                                 : QStringLiteral("?");
        const QString ofPeak = k.ofPeak().isEmpty() ? QStringLiteral("-") : k.ofPeak();
        s += QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9\n")
                 .arg(k.name.left(22).leftJustified(22),
                      QString::number(k.groupSize).rightJustified(5),
                      messageSize(k.bytes).rightJustified(10),
                      QString::number(k.count).rightJustified(6),
                      formatDuration(k.time).rightJustified(11),
                      QStringLiteral("%1%").arg(100 * k.skewShare(), 0, 'f', 0).rightJustified(6),
                      formatDuration(k.transfer).rightJustified(11), bw.rightJustified(11), ofPeak);
    }
    s += QStringLiteral("skew: from the first rank's arrival to the last's; transfer: after the "
                        "last arrival (the median rank); busbw by nccl-tests' conventions\n");
    for (const Collective &c : collectives)
        if (c.linkAssumed) {
            s += QStringLiteral("across nodes: the peak is the node's NICs together (ring "
                                "collectives) of the GPU's reference server's network, assumed; "
                                "the run's tag network=LINK (grademl runs --tag) or "
                                "--measured-link names the run's\n");
            break;
        }
    s += QLatin1Char('\n');
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
