// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis.h"
#include "findings.h"

#include <QWidget>

#include <optional>

class QCheckBox;
class QLabel;

namespace gml {

class RankLoadModel;
class SortedTable;
class StepHeatMap;
class StragglersModel;

// The multi-rank answers of an analysis, in the Analysis view's Ranks tab: a rank × iteration
// heat map of step time (the slow cells stand out against the iteration's median), the
// straggler of each collective (who arrived last, how late, what it ran before) and each rank's
// compute and communication. A click on a cell or a row asks for it in the timeline.
class RanksView : public QWidget
{
    Q_OBJECT
public:
    explicit RanksView(QWidget *parent = nullptr);

    // Empty (a message) for a run of one rank or without a kernel trace.
    void setAnalysis(const std::optional<sim::Analysis> &analysis);
    SortedTable *stragglerTable() const { return m_stragglers; }
    SortedTable *rankTable() const { return m_ranks; }
    StragglersModel *stragglers() const { return m_stragglerModel; }
    RankLoadModel *rankLoads() const { return m_rankModel; }
    StepHeatMap *heatMap() const { return m_heat; }

Q_SIGNALS:
    void revealRequested(const gml::sim::Evidence &evidence);

private:
    QLabel *m_message;
    StepHeatMap *m_heat;
    QLabel *m_heatTitle;
    QCheckBox *m_includeWarmup;
    StragglersModel *m_stragglerModel;
    RankLoadModel *m_rankModel;
    SortedTable *m_stragglers;
    SortedTable *m_ranks;
};

// Rows: ranks; columns: iterations in order. Coloured by who holds the others up, not by who
// waits (issue 73: in a job that synchronises at collectives, the ranks that wait have the long
// steps and read red, "slower"): a rank's time waiting in collectives in that iteration against
// the iteration's median, as a share of its median step: red, it waited less and held the others
// up; blue, it waited for them; the background at the median, ±25% of the step saturating. A
// run without collectives has nobody to hold up: there the colour is the step time against the
// iteration's median (red slower, blue faster). A scale under the grid says which. More ranks
// than pixel rows share a row: it shows their median, with the reddest of them at the cell's
// right edge (issue 57: showing the slowest of six made a 1,024-rank map read all red). Warm-up
// iterations (steadystate.h, of the medians) are left out unless setIncludeWarmup.
class StepHeatMap : public QWidget
{
    Q_OBJECT
public:
    explicit StepHeatMap(QWidget *parent = nullptr);

    void setIterations(const std::vector<sim::IterationBreakdown> &iterations);
    int rankCount() const { return int(m_grid.ranks.size()); }
    int iterationCount() const { return m_grid.columns; }
    // The cell at a widget position: (rank index, iteration index), or (-1, -1).
    std::pair<int, int> cellAt(QPoint pos) const;
    const sim::IterationBreakdown *iteration(int rankIndex, int column) const;
    // How far a cell holds the others up (or is slower), as a share of the step: > 0 red.
    double deviation(int rankIndex, int column) const;
    bool coloursHoldUp() const { return m_holdUp; }
    int warmup() const { return m_warmup; }
    void setIncludeWarmup(bool include);
    int firstColumn() const { return m_includeWarmup ? 0 : m_warmup; }
    QSize sizeHint() const override { return {600, 260}; }
    QSize minimumSizeHint() const override { return {200, 120}; }

Q_SIGNALS:
    void cellActivated(int rankIndex, int column);
    void hoverTextChanged(const QString &text);

protected:
    void paintEvent(QPaintEvent *) override;
    void mouseMoveEvent(QMouseEvent *) override;
    void mousePressEvent(QMouseEvent *) override;

private:
    static constexpr double kSaturation = 0.25; // ±25% is the full colour
    QRect grid() const;

    sim::StepGrid m_grid;             // rows of ranks, columns of iterations, each column's median
    std::vector<TimeNs> m_medianWait; // per column, the ranks' median time in collectives
    bool m_holdUp = false;            // some rank waited in a collective
    int m_warmup = 0;
    bool m_includeWarmup = false;
};

} // namespace gml
