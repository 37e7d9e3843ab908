// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rankoverview.h"
#include "rankoverviewpainter.h"

#include <QWidget>

#include <map>
#include <memory>
#include <optional>

class QLabel;
class QToolButton;

namespace gml {

class TimelineState;

// The rank overview above the timeline of a multi-rank run: every GPU of every rank as a thin
// heat strip (busy, communication, idle) over the timeline's window, lined up with its columns,
// with each rank's iteration starts. Hovering says what a lane did there; a click, or Slowest /
// Median / Fastest (the lanes ranked by their own work: the rank the others wait for has the
// most), asks for that rank in the timeline.
class RankOverviewView : public QWidget
{
    Q_OBJECT
public:
    explicit RankOverviewView(TimelineState *state, QWidget *parent = nullptr);

    void setOverview(std::shared_ptr<const RankOverview> overview, const QString &run);
    // Steady state (RankOverview::steadyFrom): the window set to the run's steady iterations,
    // and Slowest / Median / Fastest ranked there (the default once an overview with warm-up
    // loads); with `include`, the whole trace and every iteration.
    void setIncludeWarmup(bool include);
    bool includesWarmup() const { return m_withWarmup; }
    // The run's shift in the timeline (TimelineLayout::shiftOfRun): run time = view time + shift.
    void setShift(TimeNs shift);
    // Each collective's straggler: a red mark on the last rank's lanes at its arrival (run time).
    struct Mark
    {
        int rank = -1;
        TimeNs at = 0;
        TimeNs late = 0; // after the collective's first arrival
    };
    // The stragglers' marks, and the time each rank held the critical path (an analysis of
    // the run; both order Slowest / Median / Fastest: RankOverview::byHoldUp).
    void setMarks(std::vector<Mark> marks, std::map<int, TimeNs> criticalByRank = {});
    // The lanes in the order Slowest / Median / Fastest pick from (first: the slowest).
    const std::vector<int> &holdUpOrder() const { return m_order; }
    size_t markCount() const { return m_marks.size(); }
    void clear();
    const std::shared_ptr<const RankOverview> &overview() const { return m_overview; }
    // The timeline's label column, so the columns line up with its rows.
    void setLabelWidth(int width);
    void setRightMargin(int margin); // the timeline's vertical scroll bar
    void setHighlighted(int lane);
    int highlighted() const { return m_highlight; }
    // The lane at a widget position (-1: none), and the time under x.
    int laneAt(QPoint pos) const;
    TimeNs timeAt(int x) const;
    bool sharesRows() const; // more lanes than pixel rows
    // The height that shows every lane at full height, up to 190 px (a 1,024-rank job shares rows).
    int preferredHeight() const;
    QSize sizeHint() const override { return {1200, preferredHeight()}; }
    QSize minimumSizeHint() const override { return {300, 60}; }

Q_SIGNALS:
    void laneActivated(int lane, qint64 at); // a click (at: the time under it)
    void lanePicked(int lane, qint64 at);    // a ranking button (slowest, median, fastest)
    void laneOpened(int lane, qint64 at);    // a double-click
    void laneMenuRequested(int lane, qint64 at, const QPoint &globalPos); // a right-click
    void stragglersRequested(); // "Stragglers": analyse the run to mark them
    void hoverTextChanged(const QString &text);

protected:
    void paintEvent(QPaintEvent *) override;
    void resizeEvent(QResizeEvent *) override;
    void mouseMoveEvent(QMouseEvent *) override;
    void mousePressEvent(QMouseEvent *) override;
    void mouseDoubleClickEvent(QMouseEvent *) override;
    void contextMenuEvent(QContextMenuEvent *) override;
    void leaveEvent(QEvent *) override;
    void changeEvent(QEvent *) override;

private:
    void pick(int rankInOrder); // 0: slowest, 1: median, 2: fastest
    QRect area() const;

    TimelineState *m_state;
    TimeNs m_shift = 0;
    std::shared_ptr<const RankOverview> m_overview;
    // What a position hits: its row's lanes [first, last), the lane it answers (-1: none) and,
    // for a row of several lanes, what that row shows at its column.
    struct Hit
    {
        size_t first = 0, last = 0;
        int lane = -1;
        std::optional<RankOverviewPainter::RowShares> shares;
    };
    Hit hitAt(QPoint pos) const;
    std::map<int, TimeNs> m_late; // the marks' lateness by rank (RankOverview::standOut)
    std::vector<int> m_order;     // RankOverview::byHoldUp, with the marks' lateness
    QString m_run;
    int m_labelWidth = 280;
    int m_rightMargin = 0;
    int m_highlight = -1;
    QLabel *m_title;
    QLabel *m_legend;
    void updateLegend();
    QToolButton *m_slowest, *m_median, *m_fastest;
    QToolButton *m_stragglers;
    QToolButton *m_warmup;
    bool m_withWarmup = false;
    std::map<int, TimeNs> m_critical; // the analysis' critical time by rank
    void updateTitle();
    void reorder();
    std::vector<Mark> m_marks;
};

} // namespace gml
