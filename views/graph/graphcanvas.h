// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graphpainter.h"

#include <QPointF>
#include <QWidget>

#include <memory>

class QScrollBar;

namespace gml {

class GraphView;

// The drawing surface: pan (drag, the scroll bars, Shift+wheel), zoom (wheel, around the
// cursor), hover tooltips, clicks.
class GraphCanvas : public QWidget
{
public:
    GraphCanvas(GraphView *view);
    QTransform transform() const;
    // The whole picture when its names stay legible at that scale, else its start at the
    // smallest legible scale (GraphPainter::kMinReadableScale), the rest a scroll away.
    void fit();
    void showStart(); // a new picture: as fit()
    // The bars that scroll the picture (the view lays them out; hidden when all of it shows).
    void setScrollBars(QScrollBar *horizontal, QScrollBar *vertical);
    void changed(); // repaint and move the scroll bars (a pan, a zoom, a new picture)
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
    void resizeEvent(QResizeEvent *) override;

private:
    QRectF content() const;  // the picture with its margin, scene coordinates
    QRectF viewport() const; // the device area above the legend
    QScrollBar *m_bars[2] = {nullptr, nullptr};
    bool m_syncing = false;
    // The view is as showStart() left it (no pan, zoom or scroll since): a resize fits it again,
    // so a graph laid out while its tab was small or hidden does not open mid-strip.
    bool m_atStart = false;
    GraphView *m_view;
    double m_scale = 1.0;
    QPointF m_offset;
    QPointF m_press;
    bool m_dragged = false;
};

} // namespace gml
