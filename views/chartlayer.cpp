// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartlayer.h"

#include "figureexport.h"

#include <QPicture>
#include <QToolTip>

#include <cmath>

namespace gml {

Chart::Chart(QWidget *parent) : QCustomPlot(parent)
{
    setMouseTracking(true);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Horizontal);
    axisRect()->setRangeZoom(Qt::Horizontal);
    setMinimumHeight(160);
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, new QCPTextElement(this, QString(), QFont(font().family(), 9, QFont::Bold)));
    // The legend in a row of its own below the plot, never over the bars.
    axisRect()->insetLayout()->take(legend);
    plotLayout()->addElement(2, 0, legend);
    plotLayout()->setRowStretchFactor(2, 0.001);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    legend->setFont(QFont(font().family(), 8));
    legend->setMargins(QMargins(2, 0, 2, 2));
}

void Chart::reset(const QString &title, const QString &valueLabel)
{
    clearPlottables();
    clearItems();
    if (auto *t = qobject_cast<QCPTextElement *>(plotLayout()->element(0, 0)))
        t->setText(title);
    yAxis->setLabel(valueLabel);
    xAxis->setLabel(QString());
    legend->setVisible(false);
    m_bars = {};
    m_time = {};
}

void Chart::showBars(const StackedBars &bars)
{
    reset(bars.title, bars.valueLabel);
    m_bars = bars;
    m_showsBars = true;
    m_empty = bars.isEmpty();
    const int n = int(bars.categories.size());
    QVector<double> keys(n);
    for (int k = 0; k < n; ++k)
        keys[k] = k + 1;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const int every = std::max(1, n / 24); // at most ~24 labels
    for (int k = 0; k < n; k += every)
        ticker->addTick(k + 1, bars.categories[k]);
    xAxis->setTicker(ticker);
    xAxis->setTickLabelRotation(n > 8 ? 45 : 0);
    xAxis->setSubTicks(false);
    QCPBars *below = nullptr;
    double top = 0;
    std::vector<double> stack(size_t(n), 0.0);
    for (const auto &s : bars.series) {
        auto *b = new QCPBars(xAxis, yAxis);
        b->setName(s.name);
        b->setPen(Qt::NoPen);
        b->setBrush(s.color);
        b->setWidthType(QCPBars::wtPlotCoords);
        b->setWidth(0.75);
        b->setData(keys, QVector<double>(s.values.begin(), s.values.end()), true);
        if (below)
            b->moveAbove(below);
        below = b;
        for (int k = 0; k < n && size_t(k) < s.values.size(); ++k)
            top = std::max(top, stack[size_t(k)] += s.values[size_t(k)]);
    }
    legend->setVisible(bars.legend && bars.series.size() > 1 && bars.series.size() <= 6);
    xAxis->setRange(0.4, n + 0.6);
    yAxis->setRange(0, top > 0 ? top * 1.08 : 1);
    replot();
}

void Chart::showTime(const TimeChart &chart)
{
    reset(chart.title, chart.valueLabel);
    m_time = chart;
    m_showsBars = false;
    m_empty = chart.isEmpty();
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    xAxis->setTickLabelRotation(0);
    xAxis->setSubTicks(true);
    xAxis->setLabel(QStringLiteral("s from the run's start"));
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest(), top = 0;
    for (const auto &l : chart.lines) {
        auto *g = addGraph();
        g->setName(l.name);
        g->setPen(QPen(l.color, 1.5));
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setData(QVector<double>(l.x.begin(), l.x.end()), QVector<double>(l.y.begin(), l.y.end()), true);
        for (size_t k = 0; k < l.x.size(); ++k) {
            lo = std::min(lo, l.x[k]);
            hi = std::max(hi, l.x[k]);
            top = std::max(top, l.y[k]);
        }
    }
    for (const auto &b : chart.bands) {
        auto *r = new QCPItemRect(this);
        r->setLayer(QStringLiteral("background"));
        r->topLeft->setTypeX(QCPItemPosition::ptPlotCoords);
        r->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        r->bottomRight->setTypeX(QCPItemPosition::ptPlotCoords);
        r->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        r->topLeft->setCoords(b.from, 0);
        r->bottomRight->setCoords(b.to, 1);
        r->setPen(Qt::NoPen);
        r->setBrush(b.color);
        r->setClipToAxisRect(true);
    }
    legend->setVisible(chart.lines.size() > 1 && chart.lines.size() <= 8);
    if (lo <= hi)
        xAxis->setRange(lo, hi > lo ? hi : lo + 1);
    yAxis->setRange(0, top > 0 ? top * 1.1 : 1);
    replot();
}

QString Chart::tipAt(QPoint pos) const
{
    if (m_empty || !axisRect()->rect().contains(pos))
        return {};
    const double key = xAxis->pixelToCoord(pos.x());
    if (m_showsBars) {
        const int k = int(std::lround(key)) - 1;
        if (k < 0 || k >= m_bars.categories.size() || std::abs(key - (k + 1)) > 0.4)
            return {};
        QStringList lines{QStringLiteral("<b>%1</b>").arg(m_bars.categories[k].toHtmlEscaped())};
        double total = 0;
        for (const auto &s : m_bars.series)
            if (size_t(k) < s.values.size())
                total += s.values[size_t(k)];
        for (const auto &s : m_bars.series)
            if (size_t(k) < s.values.size() && s.values[size_t(k)] > 0)
                lines << QStringLiteral("%1: %2 %3 (%4%)")
                             .arg(s.name.toHtmlEscaped())
                             .arg(s.values[size_t(k)], 0, 'f', 3)
                             .arg(m_bars.valueLabel)
                             .arg(total > 0 ? 100 * s.values[size_t(k)] / total : 0, 0, 'f', 1);
        return lines.join(QStringLiteral("<br>"));
    }
    QStringList lines{QStringLiteral("<b>%1 s</b>").arg(key, 0, 'f', 3)};
    for (const auto &b : m_time.bands)
        if (key >= b.from && key < b.to)
            lines << b.label.toHtmlEscaped();
    for (const auto &l : m_time.lines) {
        const auto it = std::upper_bound(l.x.begin(), l.x.end(), key);
        if (it == l.x.begin())
            continue;
        const size_t i = size_t(it - l.x.begin()) - 1;
        lines << QStringLiteral("%1: %2 %3").arg(l.name.toHtmlEscaped()).arg(l.y[i], 0, 'f', 1).arg(m_time.valueLabel);
    }
    return lines.join(QStringLiteral("<br>"));
}

void Chart::mouseMoveEvent(QMouseEvent *event)
{
    QCustomPlot::mouseMoveEvent(event);
    const QString tip = tipAt(event->position().toPoint());
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), tip, this);
}

bool exportCharts(const std::vector<Chart *> &charts, int columns, QSize size, const QString &path,
                  const QString &title, QString *error)
{
    std::vector<Chart *> shown;
    for (auto *c : charts)
        if (c && !c->isEmpty())
            shown.push_back(c);
    if (shown.empty()) {
        *error = QStringLiteral("nothing to chart: the run has no GPU trace and no counters");
        return false;
    }
    columns = std::max(1, std::min(columns, int(shown.size())));
    const int rows = (int(shown.size()) + columns - 1) / columns;
    constexpr int kTitle = 28;
    const QSize cell(size.width() / columns, std::max(120, (size.height() - kTitle) / rows));
    // Each chart recorded as vector drawing commands at its cell's size, then placed.
    std::vector<QPicture> pictures(shown.size());
    for (size_t k = 0; k < shown.size(); ++k) {
        QCPPainter p(&pictures[k]);
        shown[k]->toPainter(&p, cell.width(), cell.height());
    }
    return writeFigure(path, size, title, QStringLiteral("GradeML Studio analysis charts"),
                       [&](QPainter &painter) {
                           painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
                           QFont f = painter.font();
                           f.setPointSizeF(11);
                           f.setBold(true);
                           painter.setFont(f);
                           painter.setPen(Qt::black);
                           painter.drawText(QRect(8, 0, size.width() - 16, kTitle), Qt::AlignVCenter | Qt::AlignLeft, title);
                           for (size_t k = 0; k < pictures.size(); ++k)
                               painter.drawPicture(QPoint(int(k % size_t(columns)) * cell.width(),
                                                          kTitle + int(k / size_t(columns)) * cell.height()),
                                                   pictures[k]);
                       },
                       error);
}

} // namespace gml
