// SPDX-License-Identifier: GPL-3.0-or-later
// TimelinePainter, part 2: painting the cached geometry, the labels and the overlays, hit
// testing (part 3, the header: timelineruler.cpp).
#include "timelinepainter.h"
#include "timelinepaintstyle.h"

#include "theme.h"

#include "sliceclass.h"
#include "timeformat.h"

#include <QElapsedTimer>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gml {

namespace painting {

// The theme of the paint in progress (TimelinePainter::paint sets it: the painter's own, else
// the current one).
thread_local const Theme *t_theme = nullptr;
const Theme &T()
{
    return t_theme ? *t_theme : Theme::current();
}

} // namespace painting

using painting::kPeakColour;
using painting::T;

void TimelinePainter::paint(QPainter &p, const TimelineViewport &v, const TimelineOverlay &overlay)
{
    struct ThemeScope
    {
        explicit ThemeScope(const Theme *t) { painting::t_theme = t; }
        ~ThemeScope() { painting::t_theme = nullptr; }
    } scope(m_theme);
    if (m_paintedDark != int(T().dark)) { // cached pictures were drawn in the other theme
        m_paintedDark = int(T().dark);
        m_overviewWidth = -1;
    }
    TimelineOverlay o = overlay;
    if (o.traceEnd <= o.traceStart && m_data) {
        o.traceStart = m_layout.spanStart();
        o.traceEnd = m_layout.spanEnd();
    }
    QElapsedTimer timer;
    timer.start();
    if (const int legend = legendHeight(); legend > 0 && v.size.height() > legend + 40) {
        // The rows above the legend, the legend below them.
        TimelineViewport rows = v;
        rows.size.setHeight(v.size.height() - legend);
        paintFrame(p, rows, o);
        p.save();
        paintLegend(p, v);
        p.restore();
    } else {
        m_legend.clear();
        paintFrame(p, v, o);
    }
    m_lastPaintMs = double(timer.nsecsElapsed()) / 1e6;
}

void TimelinePainter::paintFrame(QPainter &p, const TimelineViewport &v, const TimelineOverlay &o)
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    p.fillRect(QRect(QPoint(0, 0), v.size), T().base);
    p.setFont(m_font);
    // One ruler step for the frame: the grid lines of both bands and the ruler share it.
    const TimeNs step = tickStep(v, o.timeOrigin());
    m_drawnLabels.clear();
    paintRows(p, v, o, step, false);
    if (m_layout.pinnedHeight() > 0)
        paintRows(p, v, o, step, true);
    paintOverlay(p, v, o);
    paintLabels(p, v, false);
    if (m_layout.pinnedHeight() > 0)
        paintLabels(p, v, true);
    paintHeader(p, v, o, step);
    p.restore();
}

void TimelinePainter::paintRows(QPainter &p, const TimelineViewport &v, const TimelineOverlay &o,
                                TimeNs step, bool pinned)
{
    const int header = pinned ? m_metrics.headerHeight() : rowsTop();
    const int bottom = pinned ? rowsTop() : v.size.height();
    const int left = m_metrics.labelWidth;
    p.save();
    p.setClipRect(QRect(left, header, v.size.width() - left, bottom - header));
    if (pinned) {
        p.fillRect(QRect(left, header, v.size.width() - left, bottom - header), T().base);
        p.fillRect(QRect(left, bottom - 2, v.size.width() - left, 2), T().border);
    }
    // Row backgrounds: alternate per top-level group so a process and its threads read as one.
    int group = 0;
    const auto &rows = m_layout.rows();
    for (size_t r = pinned ? 0 : m_layout.pinnedCount();
         r < (pinned ? m_layout.pinnedCount() : rows.size()); ++r) {
        const TimelineRow &row = rows[r];
        if (row.indent <= 1 || pinned)
            ++group;
        const int top = rowTop(row, v);
        if (top > bottom || top + row.height < header)
            continue;
        if (group % 2 == 0)
            p.fillRect(QRect(left, top, v.size.width() - left, row.height), T().alternate);
        p.fillRect(QRect(left, top + row.height - 1, v.size.width() - left, 1), T().grid);
    }
    // Grid lines at the ruler's ticks.
    // At most a few hundred ticks fit; the count bounds the loop even on absurd ranges (a
    // project written before import limits), where t + step could overflow.
    int ticks = 0;
    for (TimeNs t = firstTick(v, o.timeOrigin(), step); t < v.t1 && ticks++ < kMaxTicks;
         t = nextTick(t, step)) {
        const double x = xForTime(v, t);
        if (x >= left)
            p.fillRect(QRectF(x, header, 1, bottom - header), T().grid);
    }
    const TimelineGeometry &g = geometry(v);
    p.setPen(Qt::NoPen);
    for (int c = 0; c < SlicePalette::kSize; ++c) {
        const auto &boxes = g.boxes[size_t(c)];
        const size_t a = pinned ? 0 : g.pinnedBoxes[size_t(c)],
                     b = pinned ? g.pinnedBoxes[size_t(c)] : boxes.size();
        if (b <= a)
            continue;
        p.setBrush(SlicePalette::color(c));
        p.drawRects(boxes.data() + a, int(b - a));
    }
    p.setBrush(Qt::NoBrush);
    p.setPen(T().sliceText);
    for (size_t i = pinned ? 0 : g.pinnedLabels; i < (pinned ? g.pinnedLabels : g.labels.size());
         ++i)
        p.drawText(g.labels[i].rect, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine,
                   g.labels[i].text);
    for (size_t i = pinned ? 0 : g.pinnedCounters;
         i < (pinned ? g.pinnedCounters : g.counters.size()); ++i) {
        const auto &c = g.counters[i];
        QColor fill = SlicePalette::color(c.colorIndex);
        fill.setAlpha(150);
        p.setPen(Qt::NoPen);
        p.setBrush(fill);
        p.drawPolygon(c.area);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(SlicePalette::darker(c.colorIndex), 1));
        p.drawPolyline(c.line);
        p.setPen(T().muted);
        p.drawText(c.rect.adjusted(4, 1, -4, 0), Qt::AlignLeft | Qt::AlignTop, c.maxText);
        if (c.peak.x() >= 0) {
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(QPen(kPeakColour, 1.5));
            p.setBrush(Qt::NoBrush);
            p.drawEllipse(c.peak, 3, 3);
            p.setRenderHint(QPainter::Antialiasing, false);
        }
    }
    p.restore();
}

QRectF TimelinePainter::sliceRect(const TimelineViewport &v, TrackId track, size_t index) const
{
    const int r = m_layout.rowOfTrack(track);
    const auto s = m_data ? m_data->shown(track) : nullptr;
    if (r < 0 || !s || index >= s->size())
        return {};
    const auto &row = m_layout.rows()[size_t(r)];
    const double top =
        rowTop(row, v) + m_metrics.rowPadding + s->depth(index) * m_metrics.depthHeight;
    if (!row.pinned && top < rowsTop())
        return {}; // scrolled under the pinned band
    const double a = xForTime(v, s->start(index) - row.shift),
                 b = xForTime(v, s->end(index) - row.shift);
    return QRectF(a, top, std::max(1.0, b - a), m_metrics.depthHeight - 1);
}

void TimelinePainter::paintOverlay(QPainter &p, const TimelineViewport &v, const TimelineOverlay &o)
{
    const int header = m_metrics.headerHeight();
    const int left = m_metrics.labelWidth;
    p.save();
    p.setClipRect(QRect(left, header, v.size.width() - left, v.size.height() - header));
    if (o.selectionEnd > o.selectionStart) {
        const double a = xForTime(v, o.selectionStart), b = xForTime(v, o.selectionEnd);
        QColor shade = T().accent;
        shade.setAlpha(40);
        p.fillRect(QRectF(a, header, b - a, v.size.height() - header), shade);
        p.fillRect(QRectF(a, header, 1, v.size.height() - header), T().accent);
        p.fillRect(QRectF(b, header, 1, v.size.height() - header), T().accent);
    }
    // Notes: ranges shaded amber, times as dashed lines (their flags are on the ruler).
    for (const auto &n : o.notes) {
        if (n.end < v.t0 || n.start > v.t1)
            continue;
        const double a = xForTime(v, n.start), b = xForTime(v, n.end);
        if (n.end > n.start)
            p.fillRect(QRectF(a, header, std::max(1.0, b - a), v.size.height() - header),
                       QColor(T().note.red(), T().note.green(), T().note.blue(), 28));
        p.setPen(QPen(T().note, 1, Qt::DashLine));
        p.drawLine(QPointF(a, header), QPointF(a, v.size.height()));
        if (n.end > n.start)
            p.drawLine(QPointF(b, header), QPointF(b, v.size.height()));
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const SliceRef &h : o.highlighted) {
        const auto s = m_data ? m_data->shown(h.track) : nullptr;
        const qint64 index = s ? s->find(h.id, h.start) : -1;
        const QRectF r = index >= 0 ? sliceRect(v, h.track, size_t(index)) : QRectF();
        if (r.isEmpty())
            continue;
        p.setPen(QPen(T().highlight, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r);
    }
    QRectF selected;
    if (o.selectedSlice) {
        if (const auto s = m_data ? m_data->shown(o.selectedTrack) : nullptr) {
            const qint64 idx = s->find(o.selectedSlice, o.selectedStart);
            if (idx >= 0)
                selected = sliceRect(v, o.selectedTrack, size_t(idx));
        }
        if (!selected.isEmpty()) {
            p.setPen(QPen(T().text, 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(selected.adjusted(-1, -1, 1, 1));
        }
    }
    // Links of the selected slice: curved arrows between the two slices' starts.
    for (const auto &l : o.links) {
        const auto s = m_data ? m_data->shown(l.track) : nullptr;
        if (!s || selected.isEmpty())
            continue;
        const qint64 idx = s->find(l.id, l.start);
        if (idx < 0)
            continue;
        const QRectF other = sliceRect(v, l.track, size_t(idx));
        if (other.isEmpty())
            continue;
        QPointF from(selected.left(), selected.center().y());
        QPointF to(other.left(), other.center().y());
        if (!l.outgoing)
            std::swap(from, to);
        QPainterPath path(from);
        const double dy = (to.y() - from.y()) / 2;
        path.cubicTo(from + QPointF(0, dy), to - QPointF(0, dy), to);
        const QColor c =
            l.kind == FlowKind::Launch ? QColor(0xd1, 0x3b, 0x3b) : QColor(0x5b, 0x3f, 0xc4);
        p.setPen(QPen(c, 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        // Arrow head pointing along the curve's end tangent (vertical).
        const double dir = to.y() >= from.y() ? -1 : 1;
        QPolygonF head;
        head << to << to + QPointF(-4, dir * 7) << to + QPointF(4, dir * 7);
        p.setBrush(c);
        p.drawPolygon(head);
    }
    if (o.hasCursor && o.cursor >= v.t0 && o.cursor < v.t1) {
        const double x = xForTime(v, o.cursor);
        p.setRenderHint(QPainter::Antialiasing, false);
        p.fillRect(QRectF(x, header, 1, v.size.height() - header),
                   QColor(T().muted.red(), T().muted.green(), T().muted.blue(), 160));
    }
    p.restore();
}

void TimelinePainter::paintNoteFlags(QPainter &p, const TimelineViewport &v,
                                     const TimelineOverlay &o)
{
    // A flag at the top of the ruler per note in view: its bookmark number, or a dot; a range
    // gets a band under the flag as long as the range.
    const int oh = m_metrics.overviewHeight;
    const QFontMetricsF fm(m_boldFont);
    p.setFont(m_boldFont);
    for (const auto &n : o.notes) {
        if (n.end < v.t0 || n.start > v.t1)
            continue;
        const double a = xForTime(v, n.start), b = xForTime(v, n.end);
        if (n.end > n.start)
            p.fillRect(QRectF(a, oh + std::max(0, m_metrics.noteHeight - 3), b - a, 3), T().note);
        const QString mark = n.bookmark ? QString::number(n.bookmark) : QStringLiteral("•");
        const QRectF flag(a, oh, fm.horizontalAdvance(mark) + 6, 12);
        p.fillRect(flag, T().note);
        p.setPen(Qt::white);
        p.drawText(flag, Qt::AlignCenter, mark);
    }
    p.setFont(m_font);
}

void TimelinePainter::paintLabels(QPainter &p, const TimelineViewport &v, bool pinned)
{
    const int header = pinned ? m_metrics.headerHeight() : rowsTop();
    const int bottom = pinned ? rowsTop() : v.size.height();
    const int width = m_metrics.labelWidth;
    p.save();
    p.setClipRect(QRect(0, header, width, bottom - header));
    p.fillRect(QRect(0, header, width, bottom - header), T().header);
    const QFontMetricsF fm(m_font);
    const auto &rows = m_layout.rows();
    for (size_t r = pinned ? 0 : m_layout.pinnedCount();
         r < (pinned ? m_layout.pinnedCount() : rows.size()); ++r) {
        const TimelineRow &row = rows[r];
        const int rowTopY = rowTop(row, v);
        if (rowTopY > bottom || rowTopY + row.height < header)
            continue;
        const int lineH = std::min(row.height, m_metrics.groupHeight);
        // Sticky: a tall row scrolled half out keeps its label at the top of what is left.
        const int top = std::max(rowTopY, std::min(header, rowTopY + row.height - lineH));
        // A figure indents less: its label column is narrow, and has no triangles.
        int x = m_figure ? 4 + row.indent * 6 : 16 + row.indent * m_metrics.indent;
        if (row.foldable() && !m_figure) {
            // The expand/collapse triangle.
            QPolygonF tri;
            const double cx = x - 8, cy = top + lineH / 2.0;
            if (row.expanded)
                tri << QPointF(cx - 4, cy - 2) << QPointF(cx + 4, cy - 2) << QPointF(cx, cy + 3);
            else
                tri << QPointF(cx - 2, cy - 4) << QPointF(cx + 3, cy) << QPointF(cx - 2, cy + 4);
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(Qt::NoPen);
            p.setBrush(T().muted);
            p.drawPolygon(tri);
            p.setRenderHint(QPainter::Antialiasing, false);
        }
        if (row.type == TimelineRow::Type::Track) {
            p.fillRect(QRect(x, top + 5, 3, lineH - 10), T().trackKind(row.kind));
            x += m_figure ? 6 : 7;
        }
        // A figure's run row holds no slices: its name runs across the plot, never cut.
        const bool across = m_figure && row.type == TimelineRow::Type::Run;
        if (across) {
            p.setClipRect(QRect(0, header, v.size.width(), bottom - header));
            p.setFont(m_boldFont);
            p.setPen(T().text);
            p.drawText(QRectF(x, top, v.size.width() - x - 4, lineH),
                       Qt::AlignLeft | Qt::AlignVCenter, row.label);
            m_drawnLabels.push_back({row.label, QStringLiteral("run"), rowTopY, row.height});
            p.setClipRect(QRect(0, header, width, bottom - header));
            p.fillRect(QRect(0, rowTopY + row.height - 1, width, 1), T().grid);
            continue;
        }
        p.setFont(row.type == TimelineRow::Type::Run ? m_boldFont : m_font);
        p.setPen(T().text);
        // The studio keeps both ends of a long label, its middle parts left out whole; a figure
        // shows its short label, cut at the end if it must be.
        const QString text = m_figure
                                 ? fm.elidedText(figureLabel(row), Qt::ElideRight, width - x - 6)
                                 : elideParts(fm, row.label, width - x - 6);
        p.drawText(QRectF(x, top, width - x - 4, lineH), Qt::AlignLeft | Qt::AlignVCenter, text);
        m_drawnLabels.push_back(
            {text,
             row.type == TimelineRow::Type::Run ? QStringLiteral("run") : trackKindName(row.kind),
             rowTopY, row.height});
        if (row.isCounter && !row.unit.isEmpty()) {
            p.setPen(T().muted);
            p.drawText(QRectF(x, top + lineH - 2, width - x - 4, lineH),
                       Qt::AlignLeft | Qt::AlignTop, row.unit);
        }
        p.fillRect(QRect(0, rowTopY + row.height - 1, width, 1), T().grid);
    }
    if (pinned)
        p.fillRect(QRect(0, bottom - 2, width, 2), T().border);
    // The column's edge (a figure's run rows, whose names run across it, leave it open).
    for (const auto &row : rows) {
        if (m_figure && row.type == TimelineRow::Type::Run && row.pinned == pinned) {
            const int y = rowTop(row, v);
            p.fillRect(QRect(width - 1, header, 1, std::max(0, y - header)), T().border);
            p.fillRect(QRect(width - 1, y + row.height, 1, std::max(0, bottom - y - row.height)),
                       T().border);
            p.restore();
            return;
        }
    }
    p.fillRect(QRect(width - 1, header, 1, bottom - header), T().border);
    p.restore();
}

int TimelinePainter::figureLabelWidth(int maxWidth) const
{
    const QFontMetricsF fm(m_font), bold(m_boldFont);
    double widest = 0;
    for (const auto &row : m_layout.rows()) {
        if (row.type == TimelineRow::Type::Run)
            continue; // drawn across the plot (paintLabels)
        const double x = 4 + row.indent * 6 + (row.type == TimelineRow::Type::Track ? 6 : 0);
        const auto &f = row.type == TimelineRow::Type::Run ? bold : fm;
        widest = std::max(widest, x + f.horizontalAdvance(figureLabel(row)) + 8);
    }
    return std::min(maxWidth, int(std::ceil(widest)));
}

void TimelinePainter::paintLegend(QPainter &p, const TimelineViewport &v)
{
    // The classes drawn in the figure, each a swatch and its name, left to right.
    const int h = legendHeight(), top = v.size.height() - h;
    p.fillRect(QRect(0, top, v.size.width(), h), T().base);
    p.fillRect(QRect(0, top, v.size.width(), 1), T().border);
    m_legend.clear();
    const QFontMetricsF fm(m_font);
    double x = 8;
    p.setFont(m_font);
    for (int role = 0; role < kSliceRoles; ++role) {
        const int c = SlicePalette::classIndex(role);
        if (m_geometry.boxes[size_t(c)].empty())
            continue;
        const QString name = sliceRoleName(SliceRole(role));
        const double w = 12 + 4 + fm.horizontalAdvance(name) + 12;
        if (x + w - 12 > v.size.width())
            break;
        p.fillRect(QRectF(x, top + (h - 10) / 2.0, 12, 10), SlicePalette::color(c));
        p.setPen(T().text);
        p.drawText(QRectF(x + 16, top, w - 16, h), Qt::AlignLeft | Qt::AlignVCenter, name);
        m_legend << name;
        x += w;
    }
}

void TimelinePainter::setNoteStrip(bool on)
{
    const int h = on ? 14 : 0;
    if (h == m_metrics.noteHeight)
        return;
    m_metrics.noteHeight = h;
    m_geometryValid = false;
}

void TimelinePainter::setFigureMode(bool figure)
{
    m_figure = figure;
    m_metrics.overviewHeight = figure ? 0 : TimelineMetrics().overviewHeight;
    m_geometryValid = false;
    m_overviewWidth = -1;
}

void TimelinePainter::setLabelWidth(int width)
{
    m_metrics.labelWidth = std::max(m_figure ? 40 : 120, width);
    m_geometryValid = false;
    m_overviewWidth = -1;
}

void TimelinePainter::setLayout(const TimelineLayout &layout)
{
    // Another set of runs: the overview strip counts other tracks on another span.
    if (layout.shownRuns() != m_layout.shownRuns() || layout.spanStart() != m_layout.spanStart() ||
        layout.spanEnd() != m_layout.spanEnd())
        m_overviewWidth = -1;
    m_layout = layout;
    m_geometryValid = false;
}

TimelineHit TimelinePainter::hitTest(const TimelineViewport &v, QPointF pt) const
{
    TimelineHit hit;
    const int header = m_metrics.headerHeight();
    const int left = m_metrics.labelWidth;
    if (pt.y() < m_metrics.overviewHeight) {
        hit.area = pt.x() >= left ? TimelineHit::Area::Overview : TimelineHit::Area::None;
        return hit;
    }
    if (pt.y() < header) {
        hit.area = pt.x() >= left ? TimelineHit::Area::Ruler : TimelineHit::Area::None;
        hit.time = timeForX(v, pt.x());
        return hit;
    }
    // y in the coordinates of the row's band: the pinned band, or the scrolled content.
    const bool inBand = pt.y() < rowsTop();
    const int y = inBand ? int(pt.y()) - header : int(pt.y()) - rowsTop() + v.scrollY;
    hit.row = inBand ? m_layout.pinnedRowAt(y) : m_layout.rowAt(y);
    if (hit.row < 0)
        return hit;
    const auto &row = m_layout.rows()[size_t(hit.row)];
    hit.track = row.type == TimelineRow::Type::Track ? row.track : 0;
    if (pt.x() < left) {
        hit.area = TimelineHit::Area::Labels;
        const int x = 16 + row.indent * m_metrics.indent;
        hit.onToggle = row.foldable() && pt.x() >= x - 16 && pt.x() < x + 2 &&
                       y - row.y < std::min(row.height, m_metrics.groupHeight);
        return hit;
    }
    hit.area = TimelineHit::Area::Rows;
    hit.time = timeForX(v, pt.x());
    const auto s = (m_data && row.depthCount > 0) ? m_data->shown(row.track) : nullptr;
    if (!s)
        return hit;
    const int d = (y - row.y - m_metrics.rowPadding) / m_metrics.depthHeight;
    if (y - row.y < m_metrics.rowPadding || d >= s->depthCount())
        return hit;
    const TimeNs t = hit.time + row.shift; // on the track's clock
    hit.index = s->sliceAt(d, t);
    if (hit.index < 0) {
        // Tiny slices: accept the nearest one within 3 px.
        const TimeNs tol = timeForX(v, pt.x() + 3) - hit.time;
        const size_t first = s->firstIndex(d, t - tol), last = s->lastIndex(d, t + tol + 1);
        TimeNs best = tol + 1;
        for (size_t i = first; i < last && i < first + 64; ++i) {
            const TimeNs dist = t < s->start(i)  ? s->start(i) - t
                                : t >= s->end(i) ? t - s->end(i)
                                                 : 0;
            if (dist < best) {
                best = dist;
                hit.index = qint64(i);
            }
        }
    }
    return hit;
}

} // namespace gml
