// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline's input: wheel zoom and pan, mouse selection, dragging, the overview, keys
// (W/S zoom, A/D pan, as Perfetto's) and the context menu. Painting and layout are in
// timelineview.cpp.
#include "timelineview.h"

#include "timeformat.h"
#include "timelinestate.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace gml {

namespace {
constexpr double kKeyPan = 0.15; // of the window per A/D press
} // namespace

void TimelineView::setZoomStep(int percent)
{
    m_zoomStep = std::clamp(percent, 5, 75);
}

TimeNs TimelineView::anchorTime() const
{
    const auto v = viewport();
    if (m_mousePos.x() >= m_painter.metrics().labelWidth && m_mousePos.x() < v.size.width())
        return m_painter.timeForX(v, m_mousePos.x());
    return v.t0 + (v.t1 - v.t0) / 2;
}

void TimelineView::wheelEvent(QWheelEvent *e)
{
    const QPointF pos = e->position();
    const QPoint delta = e->angleDelta();
    // Ctrl+wheel zooms anywhere, the label column included (Perfetto's gesture); a plain wheel
    // over the rows zooms too, over the labels scrolls.
    const bool ctrl = e->modifiers() & Qt::ControlModifier;
    if (!ctrl &&
        (pos.x() < m_painter.metrics().labelWidth || (e->modifiers() & Qt::ShiftModifier))) {
        m_vbar->setValue(m_vbar->value() - (delta.y() ? delta.y() : delta.x()) / 2);
    } else if (!ctrl && delta.x() != 0 && std::abs(delta.x()) > std::abs(delta.y())) {
        m_state->panBy(
            TimeNs(-double(delta.x()) / 120.0 * kKeyPan * double(m_state->windowDuration())));
    } else if (delta.y() != 0) {
        m_mousePos = pos;
        const double notch = 1.0 - m_zoomStep / 100.0;
        m_state->zoomAround(anchorTime(), std::pow(notch, double(delta.y()) / 120.0));
    }
    e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent *e)
{
    setFocus();
    m_pressPos = m_lastPos = e->position();
    m_moved = false;
    if (e->button() != Qt::LeftButton)
        return;
    if (onLabelEdge(e->position())) {
        m_drag = Drag::LabelEdge;
        return;
    }
    const auto hit = m_painter.hitTest(viewport(), e->position());
    switch (hit.area) {
    case TimelineHit::Area::Overview:
        m_drag = Drag::Overview;
        moveOverviewTo(e->position().x());
        break;
    case TimelineHit::Area::Ruler:
        m_drag = Drag::Range;
        m_rangeAnchor = hit.time;
        m_rangeOnRuler = true;
        break;
    case TimelineHit::Area::Labels:
        if (hit.onToggle && hit.row >= 0) {
            const auto &row = layout().rows()[size_t(hit.row)];
            setCollapsed(row.key(), row.expanded);
        }
        m_drag = Drag::None;
        break;
    case TimelineHit::Area::Rows:
        m_rangeOnRuler = false;
        // Shift-drag selects a range anywhere, as in Perfetto; plain drag pans.
        m_drag = (e->modifiers() & Qt::ShiftModifier) ? Drag::Range : Drag::Pan;
        m_rangeAnchor = hit.time;
        break;
    case TimelineHit::Area::None:
        m_drag = Drag::None;
        break;
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent *e)
{
    m_mousePos = e->position();
    const auto v = viewport();
    const auto hit = m_painter.hitTest(v, e->position());
    if (hit.area == TimelineHit::Area::Rows || hit.area == TimelineHit::Area::Ruler)
        m_state->setCursor(hit.time);
    else
        m_state->clearCursor();
    if ((e->position() - m_pressPos).manhattanLength() > 3)
        m_moved = true;
    switch (m_drag) {
    case Drag::Pan: {
        const double dx = e->position().x() - m_lastPos.x();
        const double nsPerPx =
            double(v.t1 - v.t0) / std::max(1, v.size.width() - m_painter.metrics().labelWidth);
        m_state->panBy(TimeNs(std::llround(-dx * nsPerPx)));
        m_vbar->setValue(m_vbar->value() - int(e->position().y() - m_lastPos.y()));
        break;
    }
    case Drag::Range:
        if (m_moved)
            m_state->setSelection(m_rangeAnchor, m_painter.timeForX(v, e->position().x()));
        break;
    case Drag::Overview:
        moveOverviewTo(e->position().x());
        break;
    case Drag::LabelEdge:
        setLabelWidth(int(e->position().x()));
        break;
    case Drag::None:
        break;
    }
    setCursor(m_drag == Drag::LabelEdge || (m_drag == Drag::None && onLabelEdge(e->position()))
                  ? Qt::SplitHCursor
                  : Qt::ArrowCursor);
    m_lastPos = e->position();
    if (m_drag == Drag::None) {
        QString text;
        if (hit.index >= 0) {
            const auto s = data()->shown(hit.track);
            text = QStringLiteral("%1 · %2").arg(data()->name(s->nameId(size_t(hit.index))),
                                                 formatDuration(s->duration(size_t(hit.index))));
        } else if (hit.area == TimelineHit::Area::Rows && hit.row >= 0) {
            text = m_painter.summaryText(hit.row, e->position().x()); // a summary row's column
        }
        Q_EMIT hoverTextChanged(text);
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent *e)
{
    // A click on the ruler sets the time origin there (the ticks count from it); a drag
    // on it selects a range.
    if (e->button() == Qt::LeftButton && !m_moved && m_drag == Drag::Range && m_rangeOnRuler)
        m_state->setOrigin(m_painter.timeForX(viewport(), e->position().x()));
    else if (e->button() == Qt::LeftButton && !m_moved &&
             (m_drag == Drag::Pan || m_drag == Drag::Range))
        selectAt(e->position());
    m_rangeOnRuler = false;
    m_drag = Drag::None;
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *e)
{
    const auto hit = m_painter.hitTest(viewport(), e->position());
    if (hit.area == TimelineHit::Area::Rows && hit.index >= 0) {
        revealSlice(hit.track, size_t(hit.index), true);
    } else if (hit.area == TimelineHit::Area::Labels && hit.row >= 0) {
        const auto &row = layout().rows()[size_t(hit.row)];
        if (row.foldable())
            setCollapsed(row.key(), row.expanded);
    }
}

void TimelineView::selectAt(QPointF pos)
{
    const auto hit = m_painter.hitTest(viewport(), pos);
    if (hit.area != TimelineHit::Area::Rows)
        return;
    if (hit.index >= 0) {
        const auto s = data()->shown(hit.track);
        const size_t i = size_t(hit.index);
        m_state->setSelectedSlice(hit.track, s->id(i), s->start(i), s->end(i),
                                  layout().shiftOf(hit.track));
    } else {
        m_state->clearSelectedSlice();
    }
}

void TimelineView::moveOverviewTo(double x)
{
    const int left = m_painter.metrics().labelWidth;
    const double width = std::max(1, viewport().size.width() - left);
    const double f = std::clamp((x - left) / width, 0.0, 1.0);
    const TimeNs centre =
        m_state->traceStart() + TimeNs(f * double(m_state->traceEnd() - m_state->traceStart()));
    const TimeNs w = m_state->windowDuration();
    m_state->setWindow(centre - w / 2, centre - w / 2 + w);
}

void TimelineView::keyPressEvent(QKeyEvent *e)
{
    const TimeNs w = m_state->windowDuration();
    // A held W or S speeds up: each auto-repeat zooms a step more, up to four steps a repeat.
    const bool zoomKey = e->key() == Qt::Key_W || e->key() == Qt::Key_S;
    m_keyRepeats = zoomKey && e->isAutoRepeat() ? m_keyRepeats + 1 : 0;
    const double keyZoom =
        std::pow(1.0 - m_zoomStep / 100.0, 1.0 + std::min(m_keyRepeats, 15) / 5.0);
    switch (e->key()) {
    case Qt::Key_W:
        m_state->zoomAround(anchorTime(), keyZoom);
        break;
    case Qt::Key_S:
        m_state->zoomAround(anchorTime(), 1.0 / keyZoom);
        break;
    case Qt::Key_A:
        m_state->panBy(-TimeNs(double(w) * kKeyPan));
        break;
    case Qt::Key_D:
        m_state->panBy(TimeNs(double(w) * kKeyPan));
        break;
    case Qt::Key_F:
        m_state->zoomToSelection();
        break;
    case Qt::Key_0:
        m_state->showAll();
        break;
    case Qt::Key_Escape:
        m_state->clearSelection();
        m_state->clearSelectedSlice();
        break;
    default:
        QWidget::keyPressEvent(e);
        return;
    }
    e->accept();
}

void TimelineView::keyReleaseEvent(QKeyEvent *e)
{
    if (!e->isAutoRepeat())
        m_keyRepeats = 0;
    QWidget::keyReleaseEvent(e);
}

void TimelineView::leaveEvent(QEvent *)
{
    m_state->clearCursor();
    m_mousePos = QPointF(-1, -1);
}

void TimelineView::contextMenuEvent(QContextMenuEvent *e)
{
    const auto hit = m_painter.hitTest(viewport(), e->pos());
    QMenu menu(this);
    if (hit.area == TimelineHit::Area::Ruler) {
        const TimeNs at = hit.time;
        menu.addAction(tr("Set Time Origin Here"), this, [this, at] { m_state->setOrigin(at); });
        menu.addAction(tr("Reset Time Origin to Start"), m_state, &TimelineState::clearOrigin)
            ->setEnabled(m_state->hasOrigin());
        menu.addSeparator();
    }
    if (hit.row >= 0) {
        const auto row = layout().rows()[size_t(hit.row)];
        if (row.type == TimelineRow::Type::Track)
            menu.addAction(row.pinned ? tr("Unpin") : tr("Pin to Top"), this,
                           [this, row] { setPinned(row.track, !row.pinned); });
        if (!row.pinned)
            menu.addAction(tr("Hide \"%1\"").arg(row.label), this,
                           [this, row] { setTrackHidden(row.key(), true); });
        if (row.foldable())
            menu.addAction(row.expanded ? tr("Collapse") : tr("Expand"), this,
                           [this, row] { setCollapsed(row.key(), row.expanded); });
    }
    menu.addAction(tr("Show all hidden tracks"), this, &TimelineView::showAllTracks)
        ->setEnabled(!m_hidden.isEmpty());
    menu.addAction(tr("Unpin all"), this, &TimelineView::unpinAll)
        ->setEnabled(!m_filter.pinned.isEmpty());
    menu.addAction(tr("Collapse all"), this, [this] { collapseAll(true); });
    menu.addAction(tr("Expand all"), this, [this] { collapseAll(false); });
    QAction *ranks = menu.addAction(tr("Ranks as summary rows"), this, &TimelineView::setRankRows);
    ranks->setCheckable(true);
    ranks->setChecked(m_rankRows);
    menu.addAction(tr("Zoom to fit (0)"), m_state, &TimelineState::showAll);
    menu.exec(e->globalPos());
}

} // namespace gml
