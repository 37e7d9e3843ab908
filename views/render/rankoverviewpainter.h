// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rankoverview.h"

#include <QColor>
#include <QRect>

#include <vector>

class QPainter;

namespace gml {

// Draws a run's rank overview (model/read/rankoverview.h): one lane per GPU, top to bottom by rank,
// as a heat strip over [t0, t1) lined up with the timeline's columns (the same label width and
// time range), iteration starts as ticks, and rank numbers in the label column. More lanes than
// pixel rows share a row: it shows their median (issue 57: the mean smeared one lane over its
// row, so every row looked a little off), with the row's lane that stands out most as holding
// the others up (RankOverview::standOut, kStandOut or more) marked left of the lanes and drawn in
// its own colour where it differs from the median by kOutlier or more: a straggler among six
// ranks a row still shows, the ordinary jitter of the others does not. A lane gets up to
// kMaxLaneHeight px. Qt Gui only, so a figure can draw it as the widget does.
class RankOverviewPainter
{
public:
    static constexpr int kMaxLaneHeight = 12;
    static constexpr int kHeaderHeight = 22; // title, legend (drawn by the caller's widgets too)

    // The colour of a column: idle grey to compute blue, time waiting in collectives amber, on a
    // square-root scale of the busy share (a lane 10% busy is a third of the way to full
    // colour). Coloured by who holds the others up, not by who waits (issue 73: the victims
    // waiting in communication read red, "slower"): a lane that stands out as holding the
    // others up (`holdsUp`) has its compute in red, the colour of what the others wait for.
    static QColor heat(float busy, float communication, bool holdsUp = false);
    static QColor waitingColour();
    static QColor holdUpColour();

    struct Layout
    {
        QRect lanes;  // where lanes are drawn (right of the label column, below the header)
        int rows = 0; // pixel rows used: one per group of lanes
        double rowHeight = 0;
        size_t laneCount = 0;
        // The first lane and one past the last that pixel row y (widget coordinates) shows;
        // {0, 0} outside the lanes.
        std::pair<size_t, size_t> lanesAt(int y) const;
        int rowTop(size_t lane) const; // the top of the row that shows `lane`
    };
    static Layout layout(const QRect &area, int labelWidth, size_t lanes);

    // What a row of lanes [first, last) shows in `columns` columns over [t0, t1): per column the
    // median of the lanes' busy and communication shares (-1: no lane has activity there);
    // `marked`, the row's lane that stands out most when by kStandOut or more (`standOut`: per
    // lane, as RankOverview::standOut; empty: none), else -1; per column `outlier`, that lane
    // where its |busy| + |communication| differences from the median reach kOutlier, else -1.
    static constexpr float kOutlier = 0.5f;
    static constexpr float kStandOut = 0.5f;
    struct RowShares
    {
        std::vector<float> busy, communication;
        int marked = -1;
        std::vector<int> outlier;
        std::vector<float> outlierBusy, outlierCommunication;
    };
    static RowShares rowShares(const RankOverview &overview, size_t first, size_t last, TimeNs t0,
                               TimeNs t1, int columns, const std::vector<float> &standOut);

    // `highlight`: a lane index drawn with an outline (-1: none). `traceStart`: the time the
    // ruler counts from (the timeline's).
    static void paint(QPainter &p, const QRect &area, int labelWidth, const RankOverview &overview,
                      TimeNs t0, TimeNs t1, int highlight, const std::vector<float> &standOut = {});
};

} // namespace gml
