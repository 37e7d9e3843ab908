// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graphpainter.h"

#include <QPointF>
#include <QWidget>

#include <memory>

namespace gml {

class GraphView;

// The drawing surface: pan (drag), zoom (wheel, around the cursor), hover tooltips, clicks.
class GraphCanvas : public QWidget
{
public:
    GraphCanvas(GraphView *view);
    QTransform transform() const;
    void fit();
    // A new picture: fitted when its labels stay readable, else its start at a readable scale
    // (the rest is a pan away; Fit shows it all).
    void showStart();
    void centreOn(QPointF scenePoint);
    int itemAt(QPoint p) const;

    std::shared_ptr<const GraphPicture> m_picture;
    GraphOverlay m_overlay;
    QString m_message;

protected:
    void paintEvent(QPaintEvent *) override;
    void wheelEvent(QWheelEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;
    void mouseMoveEvent(QMouseEvent *e) override;
    void mouseReleaseEvent(QMouseEvent *e) override;
    void mouseDoubleClickEvent(QMouseEvent *e) override;
    void leaveEvent(QEvent *) override;
    void keyPressEvent(QKeyEvent *e) override;
    void contextMenuEvent(QContextMenuEvent *e) override;

private:
    GraphView *m_view;
    double m_scale = 1.0;
    QPointF m_offset;
    QPointF m_press;
    bool m_dragged = false;
};

} // namespace gml
