// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinedata.h"
#include "tracediff.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QTreeView;

namespace gml {

class TimelineState;
class TraceDiffModel;
class TimelineView;

// A trace diff of two runs (issue 17): which iterations were aligned and how, a table of the
// largest differences (time and count per aligned iteration, B against A) at the chosen level
// of the hierarchy, and the two runs' timelines stacked, each showing its side of the chosen
// aligned iteration. A row picked in the table lights up its slices in both timelines. The
// diff comes from the controller (views never build graphs); a change of iteration asks for a
// new one by signal.
class TraceDiffView : public QWidget
{
    Q_OBJECT
public:
    explicit TraceDiffView(QWidget *parent = nullptr);

    // The project's timeline, shared with the main timeline (read-only).
    void setTimelineData(std::shared_ptr<const TimelineData> data);
    // What can be diffed: each compared run, and each rank of a run with several. `a` and `b`
    // are the sides picked (indices into `sides`).
    void setSides(const QList<sim::DiffSide> &sides, int a, int b);
    void setDiff(const sim::TraceDiff &diff);
    void showMessage(const QString &text);
    void clear();

    const std::optional<sim::TraceDiff> &diff() const { return m_diff; }
    QStringList sideLabels() const; // what the A and B pickers offer
    int levelIndex() const;
    void setLevel(int index);
    void selectRow(int row); // of the current level, in table order (largest difference first)
    QTreeView *table() const { return m_table; }
    TraceDiffModel *model() const { return m_model; }
    TimelineView *timelineA() const { return m_viewA; }
    TimelineView *timelineB() const { return m_viewB; }
    // The number of slices lit up in each timeline by the picked row.
    std::pair<size_t, size_t> highlightedCounts() const { return m_lit; }

Q_SIGNALS:
    // The user picked another aligned iteration (-1: all of them, averaged).
    void pairRequested(int pair);
    // The user picked other sides to diff (indices into setSides' list).
    void sidesRequested(int a, int b);

private:
    void showLevel();
    void showSides();
    void highlight(const QString &name);

    std::shared_ptr<const TimelineData> m_data;
    std::optional<sim::TraceDiff> m_diff;
    QLabel *m_head;
    QComboBox *m_pair;
    QComboBox *m_sideA, *m_sideB;
    QComboBox *m_level;
    TraceDiffModel *m_model;
    QTreeView *m_table;
    QLabel *m_labelA, *m_labelB;
    TimelineState *m_stateA, *m_stateB;
    TimelineView *m_viewA, *m_viewB;
    std::pair<size_t, size_t> m_lit{0, 0};
    bool m_filling = false;
};

} // namespace gml
