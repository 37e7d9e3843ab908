// SPDX-License-Identifier: GPL-3.0-or-later
// The graph dock's drawing surface (graphcanvas.h).
#include "graphcanvas.h"

#include "graphview.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
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

void GraphCanvas::setScrollBars(QScrollBar *horizontal, QScrollBar *vertical)
{
    m_bars[0] = horizontal;
    m_bars[1] = vertical;
    for (int k = 0; k < 2; ++k)
        connect(m_bars[k], &QScrollBar::valueChanged, this, [this, k](int value) {
            if (m_syncing || !m_picture)
                return;
            m_atStart = false;
            const QRectF c = content();
            if (k == 0)
                m_offset.setX(-value - c.left() * m_scale);
            else
                m_offset.setY(-value - c.top() * m_scale);
            update();
        });
}

QRectF GraphCanvas::content() const
{
    return m_picture ? m_picture->layout.bounds.adjusted(-24, -24, 24, 24) : QRectF();
}

QRectF GraphCanvas::viewport() const
{
    return QRectF(rect()).adjusted(
        0, 0, 0, m_picture ? -GraphPainter::legendHeight(*m_picture, width()) : 0);
}

void GraphCanvas::changed()
{
    update();
    if (!m_bars[0] || !m_bars[1])
        return;
    m_syncing = true;
    const QRectF c = content();
    const QRectF v = viewport();
    // Scroll positions: how far the picture's left (top) edge lies beyond the view's.
    const double extent[2] = {c.width() * m_scale - v.width(), c.height() * m_scale - v.height()};
    const double at[2] = {-(m_offset.x() + c.left() * m_scale),
                          -(m_offset.y() + c.top() * m_scale)};
    for (int k = 0; k < 2; ++k) {
        QScrollBar *bar = m_bars[k];
        const bool needed = m_picture && extent[k] > 1;
        if (needed) {
            bar->setRange(std::min(0, int(std::floor(at[k]))),
                          std::max(int(std::ceil(extent[k])), int(std::ceil(at[k]))));
            bar->setPageStep(int(k == 0 ? v.width() : v.height()));
            bar->setSingleStep(40);
            bar->setValue(int(std::lround(at[k])));
        }
        bar->setVisible(needed);
    }
    m_syncing = false;
}

void GraphCanvas::resizeEvent(QResizeEvent *)
{
    if (m_atStart)
        fit(); // still untouched: the start view of the new size
    else
        changed();
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
    const QRectF v = viewport();
    const QTransform t = GraphPainter::fit(*m_picture, v, 1.0);
    if (t.m11() >= GraphPainter::kMinReadableScale) {
        m_scale = t.m11();
        m_offset = QPointF(t.dx(), t.dy());
    } else { // legible, from the start; the rest scrolls (the wheel zooms out further)
        m_scale = GraphPainter::kMinReadableScale;
        const QRectF c = content();
        const double h = c.height() * m_scale;
        m_offset =
            QPointF(-c.left() * m_scale, h < v.height() ? v.center().y() - c.center().y() * m_scale
                                                        : -c.top() * m_scale);
    }
    changed();
}

void GraphCanvas::showStart()
{
    fit();
    m_atStart = true;
}

void GraphCanvas::centreOn(QPointF scenePoint)
{
    m_atStart = false;
    m_scale = std::max(m_scale, 0.8);
    m_offset = QPointF(width() / 2.0, height() / 2.0) - scenePoint * m_scale;
    changed();
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
    // Shift+wheel or a horizontal wheel scrolls sideways (a long chain of operators).
    if (e->modifiers() & Qt::ShiftModifier || e->angleDelta().x() != 0) {
        const int d = e->angleDelta().x() != 0 ? e->angleDelta().x() : e->angleDelta().y();
        m_offset.rx() += d;
        changed();
        return;
    }
    const double factor = std::pow(1.0015, e->angleDelta().y());
    const QPointF at = e->position();
    const double scale = std::clamp(m_scale * factor, 0.02, 4.0);
    m_atStart = false;
    m_offset = at - (at - m_offset) * (scale / m_scale);
    m_scale = scale;
    changed();
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
            m_atStart = false;
            m_press = e->position();
            changed();
        }
        return;
    }
    const int item = itemAt(e->position().toPoint());
    if (item != m_overlay.hovered) {
        m_overlay.hovered = item;
        update();
        if (item >= 0)
            QToolTip::showText(e->globalPosition().toPoint(),
                               GraphPainter::tooltip(*m_picture, item), this);
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
        m_atStart = false;
        m_scale = std::min(4.0, m_scale * 1.25);
        changed();
    } else if (e->key() == Qt::Key_Minus) {
        m_atStart = false;
        m_scale = std::max(0.02, m_scale / 1.25);
        changed();
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
        menu.addAction(QStringLiteral("Open (focus on it)"),
                       [this, it] { m_view->setFocusNode(it.node); });
        menu.addAction(QStringLiteral("Open in place"),
                       [this, item] { m_view->openInPlace(item); });
    }
    menu.addAction(QStringLiteral("Collapse into its parent"),
                   [this, item] { m_view->collapseItem(item); });
    menu.addAction(QStringLiteral("Show in timeline"),
                   [this, it] { Q_EMIT m_view->nodeActivated(it.node); });
    menu.exec(e->globalPos());
}

} // namespace gml
