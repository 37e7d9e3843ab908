// SPDX-License-Identifier: GPL-3.0-or-later
// The What-if panel's result: the prediction against the measured run (its band, what the
// model assumed and did not know, the memory it needs) over the chart of both runs' time by
// class.
#include "whatifpanel.h"

#include "theme.h"

#include "timeformat.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QValueAxis>

#include <cmath>

namespace gml {

void WhatIfPanel::showResult(const sim::WhatIfReport &r, double replayMs)
{
    auto change = [](TimeNs a, TimeNs b) -> QString {
        if (!b)
            return QString();
        const double pct = (double(a) - double(b)) / double(b) * 100;
        return QStringLiteral("%1%2%")
            .arg(pct >= 0 ? QStringLiteral("+") : QString())
            .arg(pct, 0, 'f', 1);
    };
    // "End to end" is the replayed operations' span, first to last: shorter than the Runs
    // pane's duration, which also counts the profiler's spans and monitoring samples.
    QString text = tr("<b>Predicted %1</b> (%2) against measured %3 end to end (first to last "
                      "operation replayed) · identity replay error %4% · %5 nodes · replay %6 ms")
                       .arg(formatDuration(r.predicted), change(r.predicted, r.measured),
                            formatDuration(r.measured))
                       .arg(r.identityError() * 100, 0, 'f', 2)
                       .arg(r.nodes)
                       .arg(replayMs, 0, 'f', 1);
    // The band: what the prediction would be with every unknown at its fast or slow end.
    auto band = [&](TimeNs low, TimeNs high) -> QString {
        return r.hasBand() ? tr("<br>Band (what the model does not know, below): <b>%1 – %2</b> "
                                "(%3 … %4)")
                                 .arg(formatDuration(low), formatDuration(high),
                                      change(low, r.measured ? r.measured : low),
                                      change(high, r.measured ? r.measured : high))
                           : QString();
    };
    text += band(r.low.predicted, r.high.predicted);
    if (!r.iterations.isEmpty()) {
        const qsizetype n = r.iterations.size();
        text += tr("<br>Mean iteration (%1 × %2%6): %3 → <b>%4</b> (%5)")
                    .arg(n)
                    .arg(r.iterations.first().name.section(QLatin1Char('#'), 0, 0))
                    .arg(formatDuration(r.meanMeasured), formatDuration(r.meanPredicted),
                         change(r.meanPredicted, r.meanMeasured),
                         r.warmup > 0 ? tr(", %n warm-up left out", nullptr, r.warmup) : QString());
        if (r.hasBand())
            text +=
                tr(" · band %1 – %2").arg(formatDuration(r.low.mean), formatDuration(r.high.mean));
    }
    // The memory it needs, against the GPU it runs on.
    for (const auto &m : r.memory) {
        const QString verdict = m.verdict();
        const bool bad =
            verdict == QLatin1String("does not fit") || verdict == QLatin1String("may not fit");
        QString line =
            tr("<br><b>Memory</b> %1: %2 → <b>%3</b>")
                .arg(m.device.toHtmlEscaped(), formatBytes(m.measured), formatBytes(m.predicted));
        if (m.high > m.low)
            line += tr(" (%1 – %2)").arg(formatBytes(m.low), formatBytes(m.high));
        if (m.capacity > 0)
            line += tr(" of %1 on %2: %3")
                        .arg(formatBytes(m.capacity), m.target.toHtmlEscaped(),
                             bad ? QStringLiteral("<span style=\"color:#c0392b\"><b>%1</b></span>")
                                       .arg(verdict)
                                 : verdict);
        text += line;
        for (const auto &note : m.notes)
            text +=
                QStringLiteral("<br><small>") + note.toHtmlEscaped() + QStringLiteral("</small>");
    }
    for (const auto &note : r.notes)
        text += QStringLiteral("<br><small>") + note.toHtmlEscaped() + QStringLiteral("</small>");
    for (const auto &u : r.unknowns)
        text += QStringLiteral("<br><small><i>") + tr("unknown: ") + u.toHtmlEscaped() +
                QStringLiteral("</i></small>");
    m_summary->setText(text);

    // Critical path, identity against predicted, in ms.
    m_chart->removeAllSeries();
    for (auto *axis : m_chart->axes()) {
        m_chart->removeAxis(axis); // gives the axis back to us (QChart docs): ours to delete
        delete axis;
    }
    auto *series = new QHorizontalStackedBarSeries();
    struct Part
    {
        const char *name;
        TimeNs sim::Breakdown::*field;
        QColor colour;
    };
    const Theme &theme = Theme::current();
    const Part parts[] = {
        {"compute", &sim::Breakdown::compute, theme.resource(ResourceClass::Compute)},
        {"communication", &sim::Breakdown::communication,
         theme.resource(ResourceClass::Communication)},
        {"memcpy", &sim::Breakdown::memcpy, theme.resource(ResourceClass::Copies)},
        {"CPU", &sim::Breakdown::cpu, theme.resource(ResourceClass::Cpu)},
        {"idle", &sim::Breakdown::idle, theme.resource(ResourceClass::Idle)}};
    for (const auto &p : parts) {
        auto *set = new QBarSet(tr(p.name));
        set->setColor(p.colour);
        set->setBorderColor(p.colour.darker(120));
        *set << double(r.predictedBreakdown.*p.field) / 1e6
             << double(r.identityBreakdown.*p.field) / 1e6;
        series->append(set);
    }
    m_chart->addSeries(series);
    auto *categories = new QBarCategoryAxis();
    categories->append({tr("predicted"), tr("measured")});
    m_chart->addAxis(categories, Qt::AlignLeft);
    series->attachAxis(categories);
    // No axis title (the legend says what the bars are, the labels carry the unit): at
    // 1366x768 the title took the height the tick labels needed and they read "…".
    auto *values = new QValueAxis();
    values->setLabelFormat(QStringLiteral("%.4g ms"));
    values->setTickCount(4);
    values->setMin(0);
    m_chart->addAxis(values, Qt::AlignBottom);
    series->attachAxis(values);
    values->applyNiceNumbers();
    styleChart();
}

void WhatIfPanel::styleChart()
{
    // Background, axes and legend in the current theme (render/theme.h); the bars keep the
    // studio's resource colours.
    const Theme &t = Theme::current();
    m_chart->setBackgroundBrush(t.base);
    m_chart->setPlotAreaBackgroundVisible(false);
    m_chart->legend()->setLabelColor(t.text);
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1));
    m_chart->legend()->setFont(small);
    for (auto *axis : m_chart->axes()) {
        axis->setLabelsFont(small);
        axis->setLabelsColor(t.text);
        axis->setTitleBrush(t.text);
        axis->setLinePenColor(t.muted);
        axis->setGridLineColor(t.grid);
    }
}

} // namespace gml
