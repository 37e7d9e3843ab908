// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelineview.h"

#include "timelinestate.h"

#include <QCoreApplication>
#include <QPainter>
#include <QPointer>
#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace gml {

TimelineView::TimelineView(TimelineState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_vbar(new QScrollBar(Qt::Vertical, this))
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(400, 200);
    connect(m_vbar, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &TimelineState::windowChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &TimelineState::selectionChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &TimelineState::selectedSliceChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &TimelineState::cursorChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &TimelineState::originChanged, this, qOverload<>(&QWidget::update));
    connect(m_state, &TimelineState::focusChanged, this, [this] {
        relayout();
        researchFilterContents();
    });
}

TimelineView::~TimelineView()
{
    if (const auto &d = m_painter.data(); d && d->pager)
        d->pager->removeListener(this);
}

void TimelineView::setData(std::shared_ptr<const TimelineData> data)
{
    adopt(std::move(data));
    if (const auto &d = this->data()) {
        if (d->projectPath != m_foldedProject) {
            m_foldedProject = d->projectPath;
            m_foldedOnce.clear();
        }
        for (TrackId id : d->waitingThreads)
            if (!m_foldedOnce.contains(id)) {
                m_foldedOnce.insert(id);
                m_collapsed.insert(id);
            }
    }
    m_pagingError.clear();
    m_firstPaintMs = -1;
    m_firstPaintPending = true;
    m_links.clear();
    m_highlighted.clear();
    relayout();
    researchFilterContents();
}

void TimelineView::researchFilterContents()
{
    const QString text = m_filter.text.trimmed();
    if (text.isEmpty())
        return;
    m_filter.holding.clear();
    m_holdingPending = true;
    Q_EMIT trackFilterTextChanged(text);
}

void TimelineView::adopt(std::shared_ptr<const TimelineData> data)
{
    if (const auto &old = m_painter.data();
        old && old->pager && (!data || old->pager != data->pager))
        old->pager->removeListener(this);
    if (data && data->pager) {
        // Reads finish on the pager's thread: repaint on the GUI thread, if still there.
        QPointer<TimelineView> self(this);
        data->pager->setListener(this, [self] {
            QMetaObject::invokeMethod(
                qApp,
                [self] {
                    if (self) {
                        self->m_painter.pagesArrived();
                        self->update();
                        const auto &d = self->m_painter.data();
                        if (const QString e = d && d->pager ? d->pager->errorString() : QString();
                            !e.isEmpty() && e != self->m_pagingError) {
                            self->m_pagingError = e;
                            Q_EMIT self->pagingFailed(e);
                        }
                    }
                },
                Qt::QueuedConnection);
        });
    }
    m_painter.setData(std::move(data));
}

void TimelineView::updateLiveData(std::shared_ptr<const TimelineData> data)
{
    adopt(std::move(data));
    relayout(true);
}

void TimelineView::waitForPages()
{
    // The listener's queued repaints may bring reads of older windows: until it holds.
    for (int round = 0; round < 4; ++round) {
        const bool complete = m_painter.waitForPages(viewport());
        QCoreApplication::processEvents();
        if (complete && m_painter.waitForPages(viewport(), 0))
            break;
    }
}

TimelineViewport TimelineView::viewport() const
{
    TimelineViewport v;
    v.size = QSize(width() - (m_vbar->isVisible() ? m_vbar->width() : 0), height());
    v.t0 = m_state->windowStart();
    v.t1 = m_state->windowEnd();
    v.scrollY = m_vbar->value();
    return v;
}

TimelineOverlay TimelineView::overlay() const
{
    TimelineOverlay o;
    o.traceStart = m_state->traceStart();
    o.traceEnd = m_state->traceEnd();
    o.hasOrigin = m_state->hasOrigin();
    o.origin = m_state->origin();
    o.selectionStart = m_state->selectionStart();
    o.selectionEnd = m_state->selectionEnd();
    o.selectedTrack = m_state->selectedTrack();
    o.selectedSlice = m_state->selectedSlice();
    o.selectedStart = m_state->selectedSliceStart();
    o.links = m_links;
    o.hasCursor = m_state->hasCursor();
    o.cursor = m_state->cursor();
    o.highlighted = m_highlighted;
    o.notes = m_notes;
    return o;
}

void TimelineView::setLinks(const QList<LinkedSlice> &links)
{
    m_links = links;
    update();
}

void TimelineView::setNotes(std::vector<TimelineOverlay::NoteMark> notes)
{
    m_notes = std::move(notes);
    m_painter.setNoteStrip(!m_notes.empty());
    updateScrollBar();
    update();
}

void TimelineView::setHighlighted(std::vector<SliceRef> slices)
{
    m_highlighted = std::move(slices);
    update();
}

void TimelineView::revealSlice(TrackId track, size_t index, bool zoomTo)
{
    const auto s = data() ? data()->shown(track) : nullptr;
    if (s && index < s->size())
        revealSlice(SliceRef{track, s->id(index), s->start(index), s->end(index)}, zoomTo);
}

void TimelineView::revealSlice(const SliceRef &slice, bool zoomTo)
{
    const TrackId track = slice.track;
    if (!data() || !data()->track(track))
        return;
    focusRunOf(track);
    ensureShown(track); // a slice under a collapsed or hidden ancestor: its row first
    const TimeNs shift = layout().shiftOf(track);
    m_state->setSelectedSlice(track, slice.id, slice.start, slice.end, shift);
    const TimeNs a = slice.start - shift, b = slice.end - shift; // in view time
    const TimeNs w = m_state->windowDuration();
    if (zoomTo) {
        m_state->zoomToSelection();
    } else if (b <= m_state->windowStart() || a >= m_state->windowEnd()) {
        m_state->setWindow(a + (b - a) / 2 - w / 2, a + (b - a) / 2 + w / 2);
    }
    const int r = layout().rowOfTrack(track);
    if (r >= 0) {
        const auto &row = layout().rows()[size_t(r)];
        const int rowsHeight = height() - m_painter.rowsTop();
        // Its depth when the window shown holds it (a paged track's may be read only now).
        const auto s = data()->shown(track);
        const qint64 index = s ? s->find(slice.id, slice.start) : -1;
        const int depth = index >= 0 ? s->depth(size_t(index)) : 0;
        const int y =
            row.y + m_painter.metrics().rowPadding + depth * m_painter.metrics().depthHeight;
        if (!row.pinned && (y < m_vbar->value() || y > m_vbar->value() + rowsHeight - 30))
            m_vbar->setValue(std::max(0, y - rowsHeight / 3));
    }
    update();
}

void TimelineView::revealTime(RunId run, TimeNs start, TimeNs end)
{
    if (run && !layout().showsRun(run))
        m_state->setFocus({run}); // relayout() follows: the shift below is the new layout's
    const TimeNs shift = layout().shiftOfRun(run);
    const TimeNs a = start - shift, b = end - shift; // view time
    if (b > a) {
        const TimeNs pad = std::max<TimeNs>(1000, (b - a) / 4);
        m_state->setSelection(a, b);
        m_state->setWindow(a - pad, b + pad);
        return;
    }
    m_state->setCursor(a);
    const TimeNs w = m_state->windowDuration();
    if (a < m_state->windowStart() || a >= m_state->windowEnd())
        m_state->setWindow(a - w / 2, a + w / 2);
}

void TimelineView::focusRunOf(TrackId track)
{
    const auto *run = data() ? data()->runOfTrack(track) : nullptr;
    if (!run || layout().showsRun(run->id))
        return;
    // A live prediction is shown with the run it predicts.
    RunId focus = run->id;
    if (run->id == kLivePredictionRun)
        for (qsizetype i = 1; i < data()->runs.size(); ++i)
            if (data()->runs[i].id == kLivePredictionRun)
                focus = data()->runs[i - 1].id;
    m_state->setFocus({focus}, false); // relayout() follows
}

void TimelineView::ensureShown(TrackId track)
{
    if (layout().rowOfTrack(track) >= 0)
        return;
    const auto *info = data()->track(track);
    if (!info)
        return;
    for (TrackId p = info->parent; p;) {
        m_collapsed.remove(p);
        m_hidden.remove(p);
        const auto *pi = data()->track(p);
        p = pi ? pi->parent : 0;
    }
    m_hidden.remove(track);
    if (const auto *run = data()->runOfTrack(track))
        m_collapsed.remove(-run->id), m_hidden.remove(-run->id);
    relayout();
}

void TimelineView::revealTrack(TrackId track)
{
    if (!data() || !data()->track(track))
        return;
    focusRunOf(track);
    ensureShown(track);
    if (m_collapsed.remove(track))
        relayout();
    if (const int r = layout().rowOfTrack(track); r >= 0 && !layout().rows()[size_t(r)].pinned)
        m_vbar->setValue(std::min(m_vbar->maximum(), layout().rows()[size_t(r)].y));
    update();
}

int TimelineView::scrollY() const
{
    return m_vbar->value();
}

int TimelineView::scrollBarWidth() const
{
    return m_vbar->isVisible() ? m_vbar->width() : 0;
}

void TimelineView::setMember(QSet<qint64> &set, qint64 key, bool member)
{
    if (set.contains(key) == member)
        return;
    if (member)
        set.insert(key);
    else
        set.remove(key);
    relayout();
}

void TimelineView::setTrackHidden(qint64 key, bool hidden)
{
    setMember(m_hidden, key, hidden);
}

void TimelineView::setCollapsed(qint64 key, bool collapsed)
{
    setMember(m_collapsed, key, collapsed);
}

void TimelineView::showAllTracks()
{
    m_hidden.clear();
    relayout();
}

void TimelineView::collapseAll(bool collapsed)
{
    if (!data())
        return;
    const auto keys = TimelineLayout::parentKeys(
        *data(), TimelineFocus{m_state->focusRuns(), m_state->projectClock()});
    for (qint64 key : keys)
        if (collapsed && key >= 0) // runs stay open: collapsing them would leave one row each
            m_collapsed.insert(key);
        else if (!collapsed)
            m_collapsed.remove(key);
    for (TrackId id : data()->waitingThreads) // they fold as parents do
        if (collapsed)
            m_collapsed.insert(id);
        else
            m_collapsed.remove(id);
    relayout();
}

void TimelineView::setRankRows(bool on)
{
    if (on == m_rankRows)
        return;
    m_rankRows = on;
    relayout();
    Q_EMIT rankRowsChanged(on);
}

void TimelineView::setTrackFilter(const QString &text, TimelineTrackFilter::Only only)
{
    if (text == m_filter.text && only == m_filter.only)
        return;
    const bool textChanged = text.trimmed() != m_filter.text.trimmed();
    m_filter.text = text;
    m_filter.only = only;
    if (textChanged) {
        m_filter.holding.clear();
        m_holdingPending = !text.trimmed().isEmpty();
    }
    m_vbar->setValue(0);
    relayout();
    if (textChanged)
        Q_EMIT trackFilterTextChanged(text.trimmed());
}

void TimelineView::setTrackFilterHolding(const QString &text, const QSet<TrackId> &tracks)
{
    if (text != m_filter.text.trimmed())
        return;
    m_holdingPending = false;
    if (tracks == m_filter.holding) {
        update();
        return;
    }
    m_filter.holding = tracks;
    relayout();
}

void TimelineView::setFilterKeepsHolding(bool keep)
{
    if (keep == m_filter.keepHolding)
        return;
    m_filter.keepHolding = keep;
    relayout();
    Q_EMIT filterKeepsHoldingChanged(keep);
}

QList<TrackId> TimelineView::focusedSliceTracks() const
{
    QList<TrackId> out;
    if (!data())
        return out;
    for (const auto &run : data()->runs)
        if (layout().showsRun(run.id))
            for (const auto &t : run.tracks)
                if (t.slices > 0 || data()->depthCount(t.id) > 0)
                    out.append(t.id);
    return out;
}

bool TimelineView::filterMatchesNothing() const
{
    if (!m_filter.active() || !data())
        return false;
    return std::none_of(layout().rows().begin(), layout().rows().end(),
                        [](const auto &r) { return r.type == TimelineRow::Type::Track; });
}

void TimelineView::setPinned(TrackId track, bool pinned)
{
    if (pinned == m_filter.pinned.contains(track))
        return;
    if (pinned)
        m_filter.pinned.append(track);
    else
        m_filter.pinned.removeAll(track);
    relayout();
    Q_EMIT trackFilterChanged();
}

void TimelineView::unpinAll()
{
    m_filter.pinned.clear();
    relayout();
    Q_EMIT trackFilterChanged();
}

void TimelineView::setLabelWidth(int width)
{
    m_painter.setLabelWidth(std::min(width, std::max(120, this->width() / 2)));
    relayout();
}

bool TimelineView::onLabelEdge(QPointF pos) const
{
    return pos.y() >= m_painter.metrics().overviewHeight &&
           std::abs(pos.x() - m_painter.metrics().labelWidth) <= 3;
}

void TimelineView::relayout(bool live)
{
    TimelineLayout l;
    if (data())
        l.build(*data(), m_collapsed, m_hidden, m_painter.metrics(),
                TimelineFocus{m_state->focusRuns(), m_state->projectClock(), m_rankRows}, m_filter);
    m_painter.setLayout(l);
    // The focused runs' span is the trace range (set before any paint asks the pager for rows).
    if (data() && (l.spanStart() != m_state->traceStart() || l.spanEnd() != m_state->traceEnd())) {
        if (live)
            m_state->extendTraceRange(l.spanStart(), l.spanEnd());
        else
            m_state->setTraceRange(l.spanStart(), l.spanEnd());
    }
    updateScrollBar();
    update();
    Q_EMIT layoutChanged();
}

QSet<TrackId> TimelineView::tracksOnScreen() const
{
    QSet<TrackId> out;
    const int top = m_vbar->value(), bottom = top + height() - m_painter.rowsTop();
    for (const TimelineRow &row : layout().rows())
        if (row.track && (row.pinned || (row.y + row.height > top && row.y < bottom)))
            out.insert(row.track);
    return out;
}

TimelineLayout TimelineView::layoutOf(const QSet<TrackId> &chosen) const
{
    TimelineLayout l;
    TimelineTrackFilter filter = m_filter;
    filter.pinned.clear();
    filter.chosen = chosen;
    if (data())
        l.build(*data(), m_collapsed, m_hidden, m_painter.metrics(),
                TimelineFocus{m_state->focusRuns(), m_state->projectClock(), m_rankRows}, filter);
    return l;
}

void TimelineView::setColorByClass(bool byClass)
{
    m_painter.setColorBy(byClass ? TimelinePainter::ColorBy::Class
                                 : TimelinePainter::ColorBy::Name);
    updateScrollBar();
    update();
}

void TimelineView::updateScrollBar()
{
    const int rowsHeight = height() - m_painter.rowsTop() - m_painter.legendHeight();
    const int content = layout().contentHeight();
    m_vbar->setRange(0, std::max(0, content - rowsHeight + 20));
    m_vbar->setPageStep(std::max(1, rowsHeight));
    m_vbar->setSingleStep(m_painter.metrics().depthHeight);
    m_vbar->setVisible(content > rowsHeight);
    m_vbar->setGeometry(width() - m_vbar->sizeHint().width(), m_painter.rowsTop(),
                        m_vbar->sizeHint().width(), std::max(0, rowsHeight));
}

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const auto v = viewport();
    m_painter.paint(p, v, overlay());
    if (m_firstPaintPending && data()) {
        m_firstPaintPending = false;
        m_firstPaintMs = m_painter.lastPaintMs();
    }
    if (filterMatchesNothing()) {
        // Say why the rows are empty rather than showing nothing.
        const QString name = m_filter.text.trimmed();
        QString text;
        if (!m_filter.keepHolding && !m_filter.holding.isEmpty())
            text = tr("No track name matches \u201c%1\u201d; %n track(s) hold slices named so: "
                      "Rows › Keep Tracks Holding Matches shows them",
                      nullptr, int(m_filter.holding.size()))
                       .arg(name);
        else
            text = m_holdingPending
                       ? tr("No track name matches \u201c%1\u201d; searching what the tracks "
                            "hold…")
                             .arg(name)
                       : tr("No track matches \u201c%1\u201d (names, kinds and slice names "
                            "searched)")
                             .arg(name);
        const int top = m_painter.rowsTop();
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(0, top + 12, v.size.width(), 40), Qt::AlignHCenter | Qt::AlignTop, text);
    }
    if (v.size.width() < width()) // the scroll bar's column, above and below the bar
        p.fillRect(QRect(v.size.width(), 0, width() - v.size.width(), height()),
                   palette().window());
}

void TimelineView::resizeEvent(QResizeEvent *)
{
    updateScrollBar();
}

} // namespace gml
