// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "flamegraph.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QScrollArea;

namespace gml {

class FlameCanvas;

// The Flame Graph pane: an icicle of a selection's call stacks (model/read/flamegraph.h), the root
// at the top, each frame as wide as its time. CPU self time or GPU time by launching stack;
// against nothing, the previous selection or another run (a differential graph: red where the
// time grew, blue where it shrank, as wide as the larger of the two). Hovering says a frame's
// time; a click selects it (the controller highlights its slices in the timeline); a
// double-click zooms into it, Esc or the root zooms out; the context menu also shows it in
// the timeline and copies its stack.
class FlameView : public QWidget
{
    Q_OBJECT
public:
    explicit FlameView(QWidget *parent = nullptr);

    // What the controller computes: the metric, and the baseline of a diff.
    enum class Against { Nothing, PreviousSelection, Run };
    FlameMetric metric() const;
    Against against() const;
    QString againstRun() const;            // Against::Run: its name
    void setRuns(const QStringList &runs); // the runs a diff can be against (the combo's tail)
    // Turns the diff off (its baseline is gone: another run in focus); no requestChanged.
    void clearAgainst();

    void setGraph(std::shared_ptr<const FlameGraph> graph, const QString &title);
    void setMessage(const QString &text); // no graph: why (nothing selected, computing ...)
    const std::shared_ptr<const FlameGraph> &graph() const;
    FlameCanvas *canvas() const { return m_canvas; }

Q_SIGNALS:
    void requestChanged();         // the metric or the baseline changed
    void frameSelected(int frame); // a click (-1: cleared)
    void showInTimelineRequested(int frame);
    void hoverTextChanged(const QString &text);

private:
    QLabel *m_title;
    QComboBox *m_metric;
    QComboBox *m_against;
    QScrollArea *m_scroll;
    FlameCanvas *m_canvas;
};

// The icicle itself (inside FlameView's scroll area).
class FlameCanvas : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kRowHeight = 18;
    explicit FlameCanvas(QWidget *parent = nullptr);

    void setGraph(std::shared_ptr<const FlameGraph> graph);
    const std::shared_ptr<const FlameGraph> &graph() const { return m_graph; }
    void setMessage(const QString &text);
    // The frame drawn across the whole width (0: the root), the frame selected (-1: none).
    void zoomTo(int frame);
    int zoomed() const { return m_zoom; }
    int selected() const { return m_selected; }
    void select(int frame);
    // The frame under a point, and where a frame is drawn (empty: not drawn).
    int frameAt(QPoint pos) const;
    QRect frameRect(int frame) const;
    // A frame's text for the status line: stack leaf, time, share, change.
    QString describe(int frame) const;
    QColor colour(int frame) const;
    QSize sizeHint() const override;

Q_SIGNALS:
    void frameClicked(int frame);
    void frameActivated(int frame); // double-click
    void contextMenuAt(int frame, QPoint global);
    void hoverTextChanged(const QString &text);

protected:
    void paintEvent(QPaintEvent *) override;
    void mousePressEvent(QMouseEvent *) override;
    void mouseDoubleClickEvent(QMouseEvent *) override;
    void mouseMoveEvent(QMouseEvent *) override;
    void leaveEvent(QEvent *) override;
    void keyPressEvent(QKeyEvent *) override;
    void contextMenuEvent(QContextMenuEvent *) override;

private:
    // Each drawn frame's x extent [x0, x1) in pixels and its row, from the zoomed frame down
    // (its ancestors drawn full width above it).
    struct Box
    {
        int frame;
        double x0, x1;
        int row;
    };
    void layoutBoxes();
    TimeNs span(int frame) const; // the larger of after and before in a diff

    std::shared_ptr<const FlameGraph> m_graph;
    QString m_message;
    int m_zoom = 0;
    int m_selected = -1;
    std::vector<Box> m_boxes;
    int m_rows = 0;
    int m_laidOutWidth = -1;
};

} // namespace gml
