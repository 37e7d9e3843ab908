// SPDX-License-Identifier: GPL-3.0-or-later
// The report's Collectives section: the collectives report (collectives.h) as a table.
#include "reportcollectives.h"

#include "collectivelinks.h"
#include "safetext.h"
#include "timeformat.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

namespace gml::cli {

QString collectivesHtml(Project &project, RunId run)
{
    const auto esc = [](const QString &s) { return xmlEscaped(s); };
    QString error;
    const auto report = sim::linkedCollectives(project, run, {}, &error);
    if (!report || report->collectives.empty())
        return {};
    struct Kind
    {
        int count = 0;
        TimeNs time = 0, skew = 0, transfer = 0;
        std::vector<double> busbw;
        double peak = 0;
        QString link;
    };
    std::map<std::tuple<QString, int, qint64>, Kind> kinds;
    for (const Collective &c : report->collectives) {
        Kind &k = kinds[{c.name, c.groupSize, c.bytes}];
        ++k.count;
        k.time += c.duration();
        k.skew += c.skewStart();
        k.transfer += c.transfer;
        if (c.busbwGBps() > 0)
            k.busbw.push_back(c.busbwGBps());
        k.peak = c.linkPeakGBps;
        k.link = c.link;
    }
    std::vector<std::pair<std::tuple<QString, int, qint64>, Kind>> rows(kinds.begin(), kinds.end());
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto &a, const auto &b) { return a.second.time > b.second.time; });
    QString html = QStringLiteral(
        "<h2>Collectives</h2>\n<table><tr><th>collective</th><th>ranks</th><th>size</th>"
        "<th>count</th><th>time</th><th>skew</th><th>transfer</th><th>busbw</th><th>of the "
        "link's peak</th></tr>\n");
    for (auto &[key, k] : rows) {
        const auto &[name, ranks, bytes] = key;
        QString bw = QStringLiteral("–"), ofPeak = esc(k.link);
        if (!k.busbw.empty()) {
            std::nth_element(k.busbw.begin(), k.busbw.begin() + qsizetype(k.busbw.size() / 2),
                             k.busbw.end());
            const double median = k.busbw[k.busbw.size() / 2];
            bw = QStringLiteral("%1 GB/s").arg(median, 0, 'f', 1);
            if (k.peak > 0)
                ofPeak = QStringLiteral("%1% of %2 (%3 GB/s)")
                             .arg(100 * median / k.peak, 0, 'f', 0)
                             .arg(esc(k.link))
                             .arg(k.peak);
        }
        html += QStringLiteral("<tr><td>%1</td><td class=\"num\">%2</td><td class=\"num\">%3</td>"
                               "<td class=\"num\">%4</td><td class=\"num\">%5</td><td "
                               "class=\"num\">%6%</td><td class=\"num\">%7</td><td "
                               "class=\"num\">%8</td><td>%9</td></tr>\n")
                    .arg(esc(name))
                    .arg(ranks)
                    .arg(messageSize(bytes))
                    .arg(k.count)
                    .arg(formatDuration(k.time))
                    .arg(k.time > 0 ? 100.0 * double(k.skew) / double(k.time) : 0.0, 0, 'f', 0)
                    .arg(formatDuration(k.transfer), bw, ofPeak);
    }
    html += QStringLiteral("</table>\n<p class=\"note\">Skew: from the first rank's arrival to "
                           "the last's (the early ranks waiting, not the network); transfer: "
                           "after the last arrival; busbw by nccl-tests' conventions, the median "
                           "of the kind, against the link it crossed.");
    const auto last = std::max_element(report->ranks.begin(), report->ranks.end(),
                                       [](const RankCollectives &a, const RankCollectives &b) {
                                           return a.lastArrivals < b.lastArrivals;
                                       });
    if (last != report->ranks.end() && last->lastArrivals > 0)
        html += QStringLiteral(" Rank %1 arrived last at %2 of %3 collectives.")
                    .arg(last->rank)
                    .arg(last->lastArrivals)
                    .arg(report->collectives.size());
    html += QStringLiteral("</p>\n");
    return html;
}

} // namespace gml::cli
