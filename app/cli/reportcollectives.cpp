// SPDX-License-Identifier: GPL-3.0-or-later
// The report's Collectives section: the collectives report (collectives.h) as a table.
#include "reportcollectives.h"

#include "collectivelinks.h"
#include "safetext.h"
#include "timeformat.h"

#include <algorithm>

namespace gml::cli {

QString collectivesHtml(Project &project, RunId run)
{
    const auto esc = [](const QString &s) { return xmlEscaped(s); };
    QString error;
    const auto report = sim::linkedCollectives(project, run, {}, &error);
    if (!report || report->collectives.empty())
        return {};
    QString html = QStringLiteral(
        "<h2>Collectives</h2>\n<table><tr><th>collective</th><th>ranks</th><th>size</th>"
        "<th>count</th><th>time</th><th>skew</th><th>transfer</th><th>busbw</th><th>of the "
        "link's peak</th></tr>\n");
    for (const CollectiveKind &k : collectiveKinds(*report)) {
        const QString bw = k.medianBusbwGBps > 0
                               ? QStringLiteral("%1 GB/s").arg(k.medianBusbwGBps, 0, 'f', 1)
                               : QStringLiteral("–");
        html += QStringLiteral("<tr><td>%1</td><td class=\"num\">%2</td><td class=\"num\">%3</td>"
                               "<td class=\"num\">%4</td><td class=\"num\">%5</td><td "
                               "class=\"num\">%6%</td><td class=\"num\">%7</td><td "
                               "class=\"num\">%8</td><td>%9</td></tr>\n")
                    .arg(esc(k.name))
                    .arg(k.groupSize)
                    .arg(messageSize(k.bytes))
                    .arg(k.count)
                    .arg(formatDuration(k.time))
                    .arg(100 * k.skewShare(), 0, 'f', 0)
                    .arg(formatDuration(k.transfer), bw, esc(k.ofPeak()));
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
