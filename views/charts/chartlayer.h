// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysischarts.h"

// qcustomplot.h uses Qt's keywords, which this project turns off (QT_NO_KEYWORDS).
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach

#include <vector>

namespace gml {

// The one chart layer of the studio (QCustomPlot): stacked bars (with whiskers), lines over
// time or step with shaded bands, and scatters; zoomed and dragged along their key axis (both
// axes for a scatter), reset by a double-click, with a tooltip of the values under the mouse,
// a click on a legend entry to hide or show its series, and a context menu that exports the
// chart (PNG, SVG, PDF). The analysis and comparison panels and `grademl export` draw through it.
class Chart : public QCustomPlot
{
    Q_OBJECT
public:
    explicit Chart(QWidget *parent = nullptr);

    void showBars(const StackedBars &bars);
    void showTime(const TimeChart &chart);
    void showScatter(const ScatterChart &chart);
    void showRoofline(const RooflineChart &chart); // chartroofline.cpp
    bool isEmpty() const { return m_empty; }
    // What an empty chart says in place of its axes (issue 73: an empty chart drew bare axes
    // from 0 to 5 in a corner of the pane).
    void setEmptyText(const QString &text);
    QString title() const;
    // Hides or shows the series named `name` (what a click on its legend entry does).
    bool toggleSeries(const QString &name);
    bool isSeriesVisible(const QString &name) const;
    void resetZoom();  // the ranges the chart was shown with
    void applyTheme(); // background, axes, grid and legend in the current theme (render/theme.h)
    // This chart alone as a figure of its current size (PNG, SVG or PDF by the extension).
    [[nodiscard]] bool exportTo(const QString &path, QString *error);
    // What the tooltip says at a widget position (empty: nothing there).
    QString tipAt(QPoint pos) const;
    // A chart shrinks to what the dock gives it (QCustomPlot asks for its legend's full width).
    QSize minimumSizeHint() const override { return {220, 150}; }
    QSize sizeHint() const override { return {420, 260}; }

Q_SIGNALS:
    // A roofline point was clicked: its operator's index in Roofline::ops.
    void rooflinePointClicked(int op);

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void changeEvent(QEvent *event) override;       // a new theme: restyled and drawn again
    void paintEvent(QPaintEvent *event) override;   // an empty chart: its title and why
    void resizeEvent(QResizeEvent *event) override; // the bars' labels thinned to the width

private:
    enum class Kind { Bars, Time, Scatter, Roofline };
    void reset(const QString &title, const QString &valueLabel, Kind kind);
    // The bars' category labels: every k-th, k as small as lets them sit apart at this width
    // (45 iterations in a 250 px chart: every 4th), slanted when they would not fit level.
    void labelBars();
    void fitTitle();
    void wrapLegend(); // the legend in rows of what fits the width
    QString m_title;
    void keepRanges();
    QString scatterTipAt(QPoint pos) const;
    QString pointsTipAt(QPoint pos) const;
    const RooflineChart::Point *rooflinePointAt(QPoint pos) const;
    // The point of `points` (with x and y in axis coordinates) nearest `pos` within `radius`
    // pixels; null when none is.
    template <typename Point>
    const Point *nearestPoint(const std::vector<Point> &points, QPoint pos, double radius) const
    {
        const Point *best = nullptr;
        double bestD = radius * radius; // px²
        for (const auto &p : points) {
            const double dx = xAxis->coordToPixel(p.x) - pos.x(),
                         dy = yAxis->coordToPixel(p.y) - pos.y();
            if (dx * dx + dy * dy < bestD) {
                bestD = dx * dx + dy * dy;
                best = &p;
            }
        }
        return best;
    }

    bool m_empty = true;
    QString m_emptyText;
    Kind m_kind = Kind::Time;
    StackedBars m_bars; // what is shown, for the tooltip
    TimeChart m_time;
    ScatterChart m_scatter;
    RooflineChart m_roofline;
    QCPRange m_keyRange, m_valueRange; // as shown, for resetZoom
};

// The charts that have data as one `size` figure through writeFigure (PNG, SVG or PDF by the
// extension): up to `columns` to a row, a title line above. Vector output stays vector.
[[nodiscard]] bool exportCharts(const std::vector<Chart *> &charts, int columns, QSize size,
                                const QString &path, const QString &title, QString *error);

} // namespace gml
