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

// The one chart layer of the studio (QCustomPlot): stacked bars and lines over time with
// shaded bands, zoomed and dragged along their key axis, with a tooltip of the values under
// the mouse. The analysis panel and `grademl export --view analysis` draw through it.
class Chart : public QCustomPlot
{
    Q_OBJECT
public:
    explicit Chart(QWidget *parent = nullptr);

    void showBars(const StackedBars &bars);
    void showTime(const TimeChart &chart);
    bool isEmpty() const { return m_empty; }
    // What the tooltip says at a widget position (empty: nothing there).
    QString tipAt(QPoint pos) const;
    // A chart shrinks to what the dock gives it (QCustomPlot asks for its legend's full width).
    QSize minimumSizeHint() const override { return {220, 150}; }
    QSize sizeHint() const override { return {420, 260}; }

protected:
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    void reset(const QString &title, const QString &valueLabel);

    bool m_empty = true;
    StackedBars m_bars; // what is shown, for the tooltip
    TimeChart m_time;
    bool m_showsBars = false;
};

// The charts that have data as one `size` figure through writeFigure (PNG, SVG or PDF by the
// extension): up to `columns` to a row, a title line above. Vector output stays vector.
[[nodiscard]] bool exportCharts(const std::vector<Chart *> &charts, int columns, QSize size, const QString &path,
                                const QString &title, QString *error);

} // namespace gml
