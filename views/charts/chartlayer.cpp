// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartlayer.h"

#include "theme.h"

#include <cmath>
#include <map>

namespace gml {

namespace {

// An axis in powers of two (1, 2, 4, 8 ...): worker counts, batch sizes, speedups.
void setLog2(QCPAxis *axis)
{
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
    ticker->setLogBase(2);
    ticker->setSubTickCount(0);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("g"));
}

} // namespace

Chart::Chart(QWidget *parent) : QCustomPlot(parent)
{
    setMouseTracking(true);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Horizontal);
    axisRect()->setRangeZoom(Qt::Horizontal);
    setMinimumHeight(160);
    plotLayout()->insertRow(0);
    plotLayout()->addElement(
        0, 0, new QCPTextElement(this, QString(), QFont(font().family(), 9, QFont::Bold)));
    // The legend in a row of its own below the plot, never over the bars.
    axisRect()->insetLayout()->take(legend);
    plotLayout()->addElement(2, 0, legend);
    plotLayout()->setRowStretchFactor(2, 0.001);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    legend->setFont(QFont(font().family(), 8));
    legend->setMargins(QMargins(2, 0, 2, 2));
    // A click on a legend entry hides its series, another shows it again.
    connect(this, &QCustomPlot::legendClick, this,
            [this](QCPLegend *, QCPAbstractLegendItem *item, QMouseEvent *) {
                if (auto *pi = qobject_cast<QCPPlottableLegendItem *>(item))
                    toggleSeries(pi->plottable()->name());
            });
}

QString Chart::title() const
{
    return m_title; // as given (the element may show it on two lines)
}

void Chart::applyTheme()
{
    const Theme &t = Theme::current();
    setBackground(t.base);
    axisRect()->setBackground(t.base);
    for (QCPAxis *axis : {xAxis, yAxis, xAxis2, yAxis2}) {
        axis->setBasePen(QPen(t.muted));
        axis->setTickPen(QPen(t.muted));
        axis->setSubTickPen(QPen(t.muted));
        axis->setTickLabelColor(t.text);
        axis->setLabelColor(t.text);
        axis->grid()->setPen(QPen(t.grid, 0, Qt::DotLine));
        axis->grid()->setZeroLinePen(QPen(t.border));
    }
    legend->setBrush(t.base);
    legend->setTextColor(t.text);
    if (auto *title = qobject_cast<QCPTextElement *>(plotLayout()->element(0, 0)))
        title->setTextColor(t.text);
}

void Chart::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange) {
        applyTheme();
        replot();
    }
    QCustomPlot::changeEvent(event);
}

void Chart::reset(const QString &title, const QString &valueLabel, Kind kind)
{
    applyTheme();
    clearPlottables();
    clearItems();
    m_title = title;
    fitTitle();
    yAxis->setLabel(valueLabel);
    xAxis->setLabel(QString());
    xAxis->setScaleType(QCPAxis::stLinear);
    yAxis->setScaleType(QCPAxis::stLinear);
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    xAxis->setNumberFormat(QStringLiteral("gbd"));
    yAxis->setNumberFormat(QStringLiteral("gbd"));
    xAxis->setTickLabelRotation(0);
    xAxis->setSubTicks(true);
    axisRect()->setMinimumMargins(QMargins()); // a bar chart's room for its last label
    legend->setVisible(false);
    m_kind = kind;
    m_bars = {};
    m_time = {};
    m_scatter = {};
    m_roofline = {};
    const Qt::Orientations zoom = kind == Kind::Scatter || kind == Kind::Roofline
                                      ? Qt::Horizontal | Qt::Vertical
                                      : Qt::Horizontal;
    axisRect()->setRangeDrag(zoom);
    axisRect()->setRangeZoom(zoom);
}

void Chart::keepRanges()
{
    m_keyRange = xAxis->range();
    m_valueRange = yAxis->range();
    replot();
}

void Chart::resetZoom()
{
    xAxis->setRange(m_keyRange);
    yAxis->setRange(m_valueRange);
    replot();
}

bool Chart::toggleSeries(const QString &name)
{
    for (int i = 0; i < plottableCount(); ++i) {
        QCPAbstractPlottable *p = plottable(i);
        if (p->name() != name)
            continue;
        p->setVisible(!p->visible());
        if (auto *item = legend->itemWithPlottable(p))
            item->setTextColor(p->visible() ? Theme::current().text : Theme::current().muted);
        replot();
        return true;
    }
    return false;
}

bool Chart::isSeriesVisible(const QString &name) const
{
    auto *self = const_cast<Chart *>(this); // QCustomPlot's plottable() is not const
    for (int i = 0; i < self->plottableCount(); ++i)
        if (self->plottable(i)->name() == name)
            return self->plottable(i)->visible();
    return false;
}

void Chart::labelBars()
{
    const int n = int(m_bars.categories.size());
    if (m_kind != Kind::Bars || n == 0)
        return;
    const QFontMetrics fm(xAxis->tickLabelFont());
    int widest = 0;
    for (const QString &c : m_bars.categories)
        widest = std::max(widest, fm.horizontalAdvance(c));
    // The axis' width: the plot's once laid out, else the widget's less the value axis.
    const int axis = std::max(40, axisRect()->width() > 0 ? axisRect()->width() : width() - 60);
    const double slot = double(axis) / n;
    const bool level = widest + 8 <= slot * 1; // each label fits under its own bar
    const int rotation = level ? 0 : 45;
    // Slanted labels need about a line and a half apart along the axis.
    const double pitch = level ? widest + 8 : fm.height() * 1.5;
    const int every = std::max(1, int(std::ceil(pitch / slot)));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int k = 0; k < n; k += every)
        ticker->addTick(k + 1, m_bars.categories[k]);
    xAxis->setTicker(ticker);
    xAxis->setTickLabelRotation(rotation);
    // A slanted label runs right of its tick, by about 0.71 of its width and height: the last
    // one needs that much room right of the plot, or QCustomPlot drops it as clipped (the
    // 8-rank GPU chart labelled 7 bars).
    const int last = ((n - 1) / every) * every;
    const int reach =
        level ? 0
              : int(std::ceil(0.71 * (fm.horizontalAdvance(m_bars.categories[last]) + fm.height()) -
                              slot * (n - last - 0.5))) +
                    4;
    axisRect()->setMinimumMargins(QMargins(0, 0, std::max(0, reach), 0));
}

void Chart::fitTitle()
{
    // A title wider than the chart breaks before its parenthesis ("GPU time per iteration" over
    // "(rank 0 · GPU 0)") rather than losing both ends.
    auto *t = qobject_cast<QCPTextElement *>(plotLayout()->element(0, 0));
    if (!t)
        return;
    QString text = m_title;
    const QFontMetrics fm(t->font());
    const qsizetype paren = text.indexOf(QStringLiteral(" ("));
    if (paren > 0 && fm.horizontalAdvance(text) > width() - 8)
        text[paren] = QLatin1Char('\n');
    t->setText(text);
}

void Chart::wrapLegend()
{
    // As many entries a row as fit their text (a narrow chart: two rows, not cut names; issue
    // 73: "GPU 0 utilisation (nvidia-sn" at 1366x768).
    QStringList names;
    if (m_kind == Kind::Bars)
        for (const auto &s : m_bars.series)
            names << s.name;
    else if (m_kind == Kind::Time)
        for (const auto &l : m_time.lines)
            names << l.name;
    const QFontMetrics fm(legend->font());
    int widest = 0;
    for (const QString &n : names)
        widest = std::max(widest, fm.horizontalAdvance(n));
    // An item: its icon (32 px), padding (7) and margins around the text.
    const int perRow = std::max(1, (width() - 16) / (widest + 64));
    legend->setWrap(int(names.size()) > perRow ? perRow : 0);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // the entries already added, again
}

void Chart::resizeEvent(QResizeEvent *event)
{
    fitTitle();
    if ((m_kind == Kind::Bars || m_kind == Kind::Time) && legend->visible())
        wrapLegend();
    QCustomPlot::resizeEvent(event);
    if (m_kind == Kind::Bars && !m_bars.categories.isEmpty()) {
        labelBars();
        replot(QCustomPlot::rpQueuedReplot);
    }
}

void Chart::showBars(const StackedBars &bars)
{
    reset(bars.title, bars.valueLabel, Kind::Bars);
    m_bars = bars;
    m_empty = bars.isEmpty();
    const int n = int(bars.categories.size());
    QVector<double> keys(n);
    for (int k = 0; k < n; ++k)
        keys[k] = k + 1;
    labelBars();
    xAxis->setSubTicks(false);
    QCPBars *below = nullptr;
    double top = 0;
    std::vector<double> stack(size_t(n), 0.0);
    for (const auto &s : bars.series) {
        auto *b = new QCPBars(xAxis, yAxis);
        b->setName(s.name);
        b->setPen(s.pattern == Qt::SolidPattern ? QPen(Qt::NoPen) : QPen(s.color.darker(130), 1));
        b->setBrush(QBrush(s.color, s.pattern));
        b->setWidthType(QCPBars::wtPlotCoords);
        b->setWidth(0.75);
        // Only the bars that have a height: an empty one would still draw its outline.
        for (int k = 0; k < n && size_t(k) < s.values.size(); ++k)
            if (s.values[size_t(k)] != 0)
                b->addData(keys[k], s.values[size_t(k)]);
        if (below)
            b->moveAbove(below);
        below = b;
        for (int k = 0; k < n && size_t(k) < s.values.size(); ++k)
            top = std::max(top, stack[size_t(k)] += s.values[size_t(k)]);
    }
    if (!bars.errors.empty()) {
        // Whiskers at each bar's top, on a line graph that draws nothing itself.
        auto *tops = addGraph();
        tops->setName(QString());
        tops->setLineStyle(QCPGraph::lsNone);
        tops->removeFromLegend();
        tops->setData(keys, QVector<double>(stack.begin(), stack.end()), true);
        auto *whiskers = new QCPErrorBars(xAxis, yAxis);
        whiskers->removeFromLegend();
        whiskers->setName(QString());
        whiskers->setDataPlottable(tops);
        whiskers->setPen(QPen(Theme::current().text, 1.2));
        whiskers->setWhiskerWidth(10);
        QVector<double> err(n, 0.0);
        for (int k = 0; k < n && size_t(k) < bars.errors.size(); ++k) {
            err[k] = std::isfinite(bars.errors[size_t(k)]) ? bars.errors[size_t(k)] : 0.0;
            top = std::max(top, stack[size_t(k)] + err[k]);
        }
        whiskers->setData(err);
    }
    legend->setVisible(bars.legend && bars.series.size() > 1 && bars.series.size() <= 8);
    wrapLegend();
    xAxis->setRange(0.4, n + 0.6);
    yAxis->setRange(0, top > 0 ? top * 1.08 : 1);
    keepRanges();
}

void Chart::showTime(const TimeChart &chart)
{
    reset(chart.title, chart.valueLabel, Kind::Time);
    m_time = chart;
    m_empty = chart.isEmpty();
    xAxis->setLabel(chart.keyLabel);
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    double bottom = 0, top = 0;
    for (const auto &l : chart.lines) {
        auto *g = addGraph();
        g->setName(l.name);
        QPen pen(l.color, 1.5);
        if (l.dashed)
            pen.setStyle(Qt::DashLine);
        g->setPen(pen);
        g->setLineStyle(chart.steps ? QCPGraph::lsStepLeft : QCPGraph::lsLine);
        if (chart.markers && l.x.size() <= 400)
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, l.color, 4));
        g->setData(QVector<double>(l.x.begin(), l.x.end()), QVector<double>(l.y.begin(), l.y.end()),
                   true);
        for (size_t k = 0; k < l.x.size(); ++k) {
            lo = std::min(lo, l.x[k]);
            hi = std::max(hi, l.x[k]);
            if (std::isfinite(l.y[k])) {
                top = std::max(top, l.y[k]);
                bottom = std::min(bottom, l.y[k]);
            }
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
    for (const auto &m : chart.marks) {
        auto *line = new QCPItemStraightLine(this);
        line->point1->setCoords(m.x, 0);
        line->point2->setCoords(m.x, 1);
        line->setPen(QPen(m.color, 1, Qt::DashLine));
        auto *text = new QCPItemText(this);
        text->position->setTypeX(QCPItemPosition::ptPlotCoords);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(m.x, 0);
        // Its label on the side with room: left of a mark in the right part of the chart.
        const bool right = hi > lo && m.x > lo + 0.6 * (hi - lo);
        text->setPositionAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        text->setPadding(QMargins(3, 2, 3, 2));
        text->setText(m.label);
        text->setColor(m.color);
        text->setClipToAxisRect(true);
    }
    legend->setVisible(chart.lines.size() > 1 && chart.lines.size() <= 12);
    wrapLegend();
    if (chart.logKey && lo > 0) {
        setLog2(xAxis);
        // A little room either side, so the end points' markers are whole.
        xAxis->setRange(lo / 1.25, (hi > lo ? hi : lo * 2) * 1.25);
    } else if (lo <= hi) {
        const double pad = chart.steps ? 0 : 0.04 * (hi - lo);
        xAxis->setRange(lo - pad, hi > lo ? hi + pad : lo + 1);
        // Whole keys (workers, batch sizes): ticks at whole numbers only.
        bool whole = !chart.steps;
        for (const auto &l : chart.lines)
            for (double x : l.x)
                whole = whole && x == std::floor(x);
        if (whole) {
            auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
            ticker->setTickStep(1);
            ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
            xAxis->setTicker(ticker);
            xAxis->setSubTicks(false);
        }
    }
    if (chart.logValue && bottom >= 0 && top > 0) {
        double least = top;
        for (const auto &l : chart.lines)
            for (double y : l.y)
                if (std::isfinite(y) && y > 0)
                    least = std::min(least, y);
        setLog2(yAxis);
        yAxis->setRange(least / 1.25, top * 1.25);
        keepRanges();
        return;
    }
    // Values that never reach zero (a loss from 2.3 to 2.1) use the room they need.
    const bool positive = bottom >= 0;
    double from = positive ? 0 : bottom * 1.1;
    if (positive && top > 0) {
        double least = top;
        for (const auto &l : chart.lines)
            for (double y : l.y)
                if (std::isfinite(y))
                    least = std::min(least, y);
        if (least > 0.5 * top)
            from = least - 0.1 * (top - least);
    }
    yAxis->setRange(from, top > from ? top + 0.1 * (top - from) : from + 1);
    keepRanges();
}

void Chart::showScatter(const ScatterChart &chart)
{
    reset(chart.title, chart.valueLabel, Kind::Scatter);
    m_scatter = chart;
    m_empty = chart.isEmpty();
    xAxis->setLabel(chart.keyLabel);
    if (!chart.categories.isEmpty()) {
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (int k = 0; k < chart.categories.size(); ++k)
            ticker->addTick(k + 1, chart.categories[k]);
        xAxis->setTicker(ticker);
        xAxis->setSubTicks(false);
        xAxis->setTickLabelRotation(chart.categories.size() > 8 ? 45 : 0);
    }
    // One graph per colour (a few runs: each its legend entry; many: one per colour).
    std::map<QRgb, std::vector<const ScatterChart::Point *>> byColour;
    for (const auto &p : chart.points)
        byColour[p.color.rgba()].push_back(&p);
    const bool named = chart.points.size() <= 12;
    double xlo = std::numeric_limits<double>::max(), xhi = std::numeric_limits<double>::lowest();
    double ylo = xlo, yhi = xhi;
    for (const auto &p : chart.points) {
        xlo = std::min(xlo, p.x);
        xhi = std::max(xhi, p.x);
        ylo = std::min(ylo, p.y);
        yhi = std::max(yhi, p.y);
    }
    auto add = [&](const QString &name, const QColor &c,
                   const std::vector<const ScatterChart::Point *> &pts) {
        auto *g = addGraph();
        g->setName(name);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, named ? 9 : 6));
        QVector<double> x, y;
        for (const auto *p : pts) {
            x << p->x;
            y << p->y;
        }
        g->setData(x, y);
        if (!named)
            g->removeFromLegend();
    };
    if (named)
        for (const auto &p : chart.points)
            add(p.label, p.color, {&p});
    else
        for (const auto &[rgb, pts] : byColour)
            add(QString(), QColor::fromRgba(rgb), pts);
    legend->setVisible(named && chart.points.size() > 1);
    legend->setWrap(chart.points.size() > 4 ? 4 : 0);
    if (!chart.categories.isEmpty())
        xAxis->setRange(0.5, chart.categories.size() + 0.5);
    else if (xlo <= xhi) {
        const double pad = xhi > xlo ? 0.08 * (xhi - xlo) : std::max(1.0, std::abs(xlo) * 0.1);
        xAxis->setRange(xlo - pad, xhi + pad);
    }
    if (ylo <= yhi) {
        const double pad = yhi > ylo ? 0.1 * (yhi - ylo) : std::max(1.0, std::abs(ylo) * 0.1);
        yAxis->setRange(ylo >= 0 && ylo - pad < 0 ? 0 : ylo - pad, yhi + pad);
    }
    keepRanges();
}

} // namespace gml
