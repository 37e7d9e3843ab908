// SPDX-License-Identifier: GPL-3.0-or-later
// The graph dock's drawing surface (graphcanvas.h).
#include "graphcanvas.h"

#include "graphview.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

namespace gml {

GraphCanvas::GraphCanvas(GraphView *view) : QWidget(view), m_view(view)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 150);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

QTransform GraphCanvas::transform() const
{
    QTransform t;
    t.translate(m_offset.x(), m_offset.y());
    t.scale(m_scale, m_scale);
    return t;
}

void GraphCanvas::fit()
{
    if (!m_picture)
        return;
    const QTransform t = GraphPainter::fit(*m_picture, QRectF(rect()).adjusted(0, 0, 0, -GraphPainter::kLegendHeight), 1.0);
    m_scale = std::max(0.02, t.m11());
    m_offset = QPointF(t.dx(), t.dy());
    update();
}

void GraphCanvas::showStart()
{
    if (!m_picture)
        return;
    fit();
    if (m_scale >= 0.45)
        return;
    m_scale = 0.6;
    const QRectF b = m_picture->layout.bounds;
    m_offset = QPointF(16, 16) - b.topLeft() * m_scale;
    update();
}

void GraphCanvas::centreOn(QPointF scenePoint)
{
    m_scale = std::max(m_scale, 0.8);
    m_offset = QPointF(width() / 2.0, height() / 2.0) - scenePoint * m_scale;
    update();
}

int GraphCanvas::itemAt(QPoint p) const
{
    return m_picture ? m_picture->itemAt(transform().inverted().map(QPointF(p))) : -1;
}

void GraphCanvas::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    if (!m_picture) {
        p.fillRect(rect(), QColor(0xfb, 0xfb, 0xfc));
        p.setPen(QColor(0x60, 0x60, 0x60));
        p.drawText(rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                   m_message.isEmpty() ? QStringLiteral("No graph yet.") : m_message);
        return;
    }
    GraphPainter::paint(p, *m_picture, transform(), QRectF(rect()), m_overlay);
    if (!m_message.isEmpty()) { // e.g. "Laying out…" over the previous picture
        QFont f = p.font();
        f.setPixelSize(12);
        p.setFont(f);
        const QRectF box(width() - 230, 8, 220, 22);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x33, 0x3a, 0x45, 220));
        p.drawRoundedRect(box, 4, 4);
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, m_message);
    }
}

void GraphCanvas::wheelEvent(QWheelEvent *e)
{
    const double factor = std::pow(1.0015, e->angleDelta().y());
    const QPointF at = e->position();
    const double scale = std::clamp(m_scale * factor, 0.02, 4.0);
    m_offset = at - (at - m_offset) * (scale / m_scale);
    m_scale = scale;
    update();
}

void GraphCanvas::mousePressEvent(QMouseEvent *e)
{
    m_press = e->position();
    m_dragged = false;
}

void GraphCanvas::mouseMoveEvent(QMouseEvent *e)
{
    if (e->buttons() & Qt::LeftButton) {
        const QPointF d = e->position() - m_press;
        if (m_dragged || d.manhattanLength() > 3) {
            m_dragged = true;
            m_offset += d;
            m_press = e->position();
            update();
        }
        return;
    }
    const int item = itemAt(e->position().toPoint());
    if (item != m_overlay.hovered) {
        m_overlay.hovered = item;
        update();
        if (item >= 0)
            QToolTip::showText(e->globalPosition().toPoint(), GraphPainter::tooltip(*m_picture, item), this);
        else
            QToolTip::hideText();
    }
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent *e)
{
    if (e->button() != Qt::LeftButton || m_dragged)
        return;
    const int item = itemAt(e->position().toPoint());
    m_view->selectItem(item);
    if (item >= 0)
        Q_EMIT m_view->nodeActivated(m_picture->scene.items[size_t(item)].node);
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent *e)
{
    const int item = itemAt(e->position().toPoint());
    if (item < 0 || !m_picture)
        return;
    const GraphItem &it = m_picture->scene.items[size_t(item)];
    if (it.isGroup())
        m_view->unfold(item);
    else if (it.openable)
        m_view->setFocusNode(it.node);
    else
        Q_EMIT m_view->leafOpened(it.node);
}

void GraphCanvas::leaveEvent(QEvent *)
{
    if (m_overlay.hovered >= 0) {
        m_overlay.hovered = -1;
        update();
    }
}

void GraphCanvas::keyPressEvent(QKeyEvent *e)
{
    if (e->key() == Qt::Key_F) {
        fit();
    } else if (e->key() == Qt::Key_Backspace && m_picture) {
        const auto crumbs = m_picture->scene.breadcrumb();
        if (crumbs.size() > 1)
            m_view->setFocusNode(crumbs[crumbs.size() - 2]);
    } else if (e->key() == Qt::Key_Plus || e->key() == Qt::Key_Equal) {
        m_scale = std::min(4.0, m_scale * 1.25);
        update();
    } else if (e->key() == Qt::Key_Minus) {
        m_scale = std::max(0.02, m_scale / 1.25);
        update();
    } else {
        QWidget::keyPressEvent(e);
    }
}

void GraphCanvas::contextMenuEvent(QContextMenuEvent *e)
{
    const int item = itemAt(e->pos());
    if (item < 0 || !m_picture)
        return;
    const GraphItem &it = m_picture->scene.items[size_t(item)];
    QMenu menu(this);
    if (it.isGroup())
        menu.addAction(it.range ? QStringLiteral("Show the %1 nodes").arg(it.count)
                                : QStringLiteral("Show the %1 repeats").arg(it.count),
                       [this, item] { m_view->unfold(item); });
    else if (it.openable) {
        menu.addAction(QStringLiteral("Open (focus on it)"), [this, it] { m_view->setFocusNode(it.node); });
        menu.addAction(QStringLiteral("Open in place"), [this, item] { m_view->openInPlace(item); });
    }
    menu.addAction(QStringLiteral("Collapse into its parent"), [this, item] { m_view->collapseItem(item); });
    menu.addAction(QStringLiteral("Show in timeline"), [this, it] { Q_EMIT m_view->nodeActivated(it.node); });
    menu.exec(e->globalPos());
}

} // namespace gml
