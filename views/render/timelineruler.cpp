// SPDX-License-Identifier: GPL-3.0-or-later
// TimelinePainter, part 3: the header above the tracks (the overview strip with its density and
// window, the time ruler with its ticks and labels relative to the origin).
#include "timelinepainter.h"
#include "timelinepaintstyle.h"

#include "theme.h"
#include "timeformat.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace gml {

using painting::kPeakColour;
using painting::T;

void TimelinePainter::paintHeader(QPainter &p, const TimelineViewport &v, const TimelineOverlay &o,
                                  TimeNs step)
{
    const int left = m_metrics.labelWidth;
    const int oh = m_metrics.overviewHeight, nh = m_metrics.noteHeight, rh = m_metrics.rulerHeight;
    const int rt = oh + nh; // the ruler's top: the notes' strip is above it
    p.fillRect(QRect(0, 0, v.size.width(), rt + rh), T().header);
    if (oh > 0)
        paintOverview(p, v, o);
    // Ruler: labels relative to the origin (the trace's start unless the user set one), or to
    // a base near the window at deep zoom.
    const double pxPerNs = double(v.size.width() - left) / double(std::max<TimeNs>(1, v.t1 - v.t0));
    p.save();
    p.setClipRect(QRect(left, oh, v.size.width() - left, nh + rh));
    p.fillRect(QRect(left, oh, v.size.width() - left, nh + rh), T().alternate);
    p.setPen(T().text);
    const TimeNs origin = o.timeOrigin();
    const TimeNs base = labelBase(v, origin, step);
    const QFontMetricsF tfm(m_font);
    m_rulerLabels.clear();
    int ticks = 0;
    for (TimeNs t = nextTick(firstTick(v, origin, step), -step);
         t < nextTick(v.t1, step) && ticks++ < kMaxTicks; t = nextTick(t, step)) {
        const double x = xForTime(v, t);
        p.fillRect(QRectF(x, rt + rh - 8, 1, 8), T().muted);
        for (int k = 1; k < 5; ++k)
            p.fillRect(QRectF(x + k * step * pxPerNs / 5, rt + rh - 3, 1, 3), T().muted);
        const QString text = tickLabel(t, base, origin, step);
        const double tw = tfm.horizontalAdvance(text);
        if (x + 3 + tw > v.size.width())
            continue; // a label the edge would cut is left out, its tick kept
        p.drawText(QRectF(x + 3, rt, tw + 2, rh - 6), Qt::AlignLeft | Qt::AlignVCenter, text);
        if (x + 3 + tw > left && x + 3 < v.size.width())
            m_rulerLabels.push_back({text, x + 3, tw});
    }
    const QString from = o.hasOrigin ? tr("origin") : tr("start");
    m_rulerBase = base == origin
                      ? tr("from %1").arg(from)
                      : QStringLiteral("%1 + %2").arg(from, formatOffset(base - origin, step * 10));
    // The origin the user set: a marker at the top of the ruler over its "0" tick.
    if (o.hasOrigin && origin >= v.t0 && origin < v.t1) {
        const double x = xForTime(v, origin);
        p.fillRect(QRectF(x, oh, 1, nh + rh), T().accent);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(Qt::NoPen);
        p.setBrush(T().accent);
        p.drawPolygon(QPolygonF{{QPointF(x - 5, oh), QPointF(x + 5, oh), QPointF(x, oh + 7)}});
        p.setBrush(Qt::NoBrush);
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    paintNoteFlags(p, v, o);
    // Memory peaks of the counters in view: a triangle at the foot of the ruler.
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(kPeakColour);
    for (const auto &c : m_geometry.counters)
        if (c.peak.x() >= 0) {
            const double x = c.peak.x(), foot = rt + rh;
            p.drawPolygon(
                QPolygonF{{QPointF(x - 4, foot), QPointF(x + 4, foot), QPointF(x, foot - 6)}});
        }
    p.setBrush(Qt::NoBrush);
    p.setRenderHint(QPainter::Antialiasing, false);
    // Range selection and cursor readouts.
    if (o.selectionEnd > o.selectionStart) {
        const double a = xForTime(v, o.selectionStart), b = xForTime(v, o.selectionEnd);
        QColor shade = T().accent;
        shade.setAlpha(60);
        p.fillRect(QRectF(a, oh, b - a, nh + rh), shade);
        const QString text = formatDuration(o.selectionEnd - o.selectionStart);
        const QFontMetricsF fm(m_boldFont);
        const double tw = fm.horizontalAdvance(text) + 10;
        QRectF box((a + b - tw) / 2, rt + 3, tw, rh - 6);
        p.fillRect(box, T().accent);
        p.setFont(m_boldFont);
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, text);
        p.setFont(m_font);
    }
    if (o.hasCursor && o.cursor >= v.t0 && o.cursor < v.t1) {
        const double x = xForTime(v, o.cursor);
        const QString text = base == origin ? formatDuration(o.cursor - origin, 4)
                                            : QLatin1Char('+') + formatDuration(o.cursor - base, 4);
        const QFontMetricsF fm(m_font);
        const double tw = fm.horizontalAdvance(text) + 8;
        QRectF box(std::min(x + 2, v.size.width() - tw), rt + rh - 14, tw, 13);
        p.fillRect(box, QColor(0x33, 0x33, 0x33));
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, text);
    }
    p.restore();
    p.fillRect(QRect(0, rt + rh - 1, v.size.width(), 1), T().border);
    // The label column's ruler cell: what the ticks count from (a figure's axis title too).
    p.setPen(T().muted);
    p.drawText(QRectF(8, rt, left - 12, rh), Qt::AlignLeft | Qt::AlignVCenter,
               tfm.elidedText(m_rulerBase, Qt::ElideRight, left - 12));
    if (m_figure)
        return;
    // Top-left corner: the overview and the visible window's width.
    p.setPen(T().text);
    p.setFont(m_boldFont);
    const QString title = QStringLiteral("Overview");
    p.drawText(QRect(8, 0, left - 12, oh), Qt::AlignLeft | Qt::AlignVCenter, title);
    const double titleWidth = QFontMetricsF(m_boldFont).horizontalAdvance(title);
    p.setFont(m_font);
    const QString window = tr("window %1").arg(formatDuration(v.t1 - v.t0));
    if (titleWidth + tfm.horizontalAdvance(window) + 24 <= left - 12) {
        p.setPen(T().muted);
        p.drawText(QRect(8, 0, left - 12, oh), Qt::AlignRight | Qt::AlignVCenter, window);
    }
}

TimeNs TimelinePainter::tickStep(const TimelineViewport &v, TimeNs origin) const
{
    const double pxPerNs = std::max(double(v.size.width() - m_metrics.labelWidth) /
                                        double(std::max<TimeNs>(1, v.t1 - v.t0)),
                                    1e-15);
    const QFontMetricsF fm(m_font);
    constexpr double kGap = 14; // px between one label's end and the next tick's label
    double minPx = 60;
    TimeNs step = niceStep(minPx / pxPerNs);
    // The widest labels are at the window's ends (the largest magnitudes); a longer step may
    // need other decimals or another unit, so measure again until the step holds its labels.
    for (int round = 0; round < 12; ++round) {
        const TimeNs first = nextTick(firstTick(v, origin, step), -step);
        const TimeNs last = firstTick(TimelineViewport{v.size, v.t1, v.t1 + 1, 0}, origin, step);
        double widest = 0;
        const TimeNs base = labelBase(v, origin, step);
        for (TimeNs t : {first, nextTick(first, step), last})
            widest = std::max(widest, fm.horizontalAdvance(tickLabel(t, base, origin, step)));
        if (double(step) * pxPerNs >= widest + kGap)
            break;
        minPx = std::max(minPx, widest + kGap);
        const TimeNs wider = niceStep(std::max(minPx / pxPerNs, double(step) + 1));
        if (wider <= step)
            break; // the longest step: nothing wider exists
        step = wider;
    }
    return step;
}

TimeNs TimelinePainter::firstTick(const TimelineViewport &v, TimeNs origin, TimeNs step)
{
    TimeNs offset = 0, first = 0;
    if (__builtin_sub_overflow(v.t0, origin, &offset) ||
        __builtin_add_overflow(origin, (offset / step) * step, &first))
        return v.t0;
    return first;
}

TimeNs TimelinePainter::labelBase(const TimelineViewport &v, TimeNs origin, TimeNs step)
{
    // The base is the window's first tick of 10 steps: the labels count from the viewport
    // ("+0 ns", "+10 ns", ...), the label column names the base (it was 1000 steps: "+9900 ns").
    constexpr TimeNs kBaseSteps = 10;
    if (step <= 0 || step > std::numeric_limits<TimeNs>::max() / kBaseSteps)
        return origin;
    TimeNs a = 0, b = 0;
    if (__builtin_sub_overflow(v.t0, origin, &a) || __builtin_sub_overflow(v.t1, origin, &b) ||
        a == std::numeric_limits<TimeNs>::min() || b == std::numeric_limits<TimeNs>::min())
        return origin;
    const QString widest = formatTick(std::max(std::abs(a), std::abs(b)), step);
    if (std::count_if(widest.begin(), widest.end(), [](QChar c) { return c.isDigit(); }) <= 6)
        return origin;
    return firstTick(v, origin, step * kBaseSteps);
}

QString TimelinePainter::tickLabel(TimeNs t, TimeNs base, TimeNs origin, TimeNs step)
{
    if (base == origin)
        return formatTick(t - origin, step);
    const QString offset = formatTick(t - base, step);
    return t >= base ? QLatin1Char('+') + offset : offset;
}

// t + step, saturated at the ends of TimeNs instead of wrapping around.
TimeNs TimelinePainter::nextTick(TimeNs t, TimeNs step)
{
    TimeNs next = 0;
    if (__builtin_add_overflow(t, step, &next))
        return step > 0 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
    return next;
}

const std::vector<float> &TimelinePainter::overviewDensity(int width)
{
    if (width == m_overviewWidth)
        return m_overview;
    m_overviewWidth = width;
    m_overview.assign(size_t(std::max(width, 0)), 0.0f);
    if (!m_data || width <= 0)
        return m_overview;
    // Busy time of the top-level slices per column, summed over the focused runs' tracks,
    // normalised to the peak.
    const TimeNs origin = m_layout.spanStart();
    const double span = double(std::max<TimeNs>(1, m_layout.spanEnd() - origin));
    // Paged tracks count with what is read of them (the windows on screen).
    std::vector<std::pair<std::shared_ptr<const SliceTrack>, TimeNs>> tracks;
    for (const auto &run : m_data->runs) {
        if (!m_layout.showsRun(run.id))
            continue;
        const TimeNs shift = m_layout.shiftOfRun(run.id);
        for (const auto &t : run.tracks) {
            auto s = m_data->slices.value(t.id);
            if (!s && m_data->pager && m_data->pager->has(t.id))
                s = m_data->pager->shown(t.id);
            if (s)
                tracks.emplace_back(std::move(s), shift);
        }
    }
    for (const auto &[t, shift] : tracks) {
        if (t->depthCount() == 0)
            continue;
        for (size_t i = t->depthBegin(0); i < t->depthEnd(0); ++i) {
            const double a = double(t->start(i) - shift - origin) / span * width;
            const double b = double(t->end(i) - shift - origin) / span * width;
            for (int c = std::max(0, int(a)); c < std::min(width, int(b) + 1); ++c)
                m_overview[size_t(c)] += float(std::min<double>(b, c + 1) - std::max<double>(a, c));
        }
    }
    const float peak = *std::max_element(m_overview.begin(), m_overview.end());
    if (peak > 0)
        for (auto &x : m_overview)
            x /= peak;
    return m_overview;
}

void TimelinePainter::paintOverview(QPainter &p, const TimelineViewport &v,
                                    const TimelineOverlay &o)
{
    const int left = m_metrics.labelWidth, oh = m_metrics.overviewHeight;
    const int width = v.size.width() - left;
    const auto &density = overviewDensity(width);
    for (int x = 0; x < int(density.size()); ++x) {
        const double h = density[size_t(x)] * (oh - 6);
        if (h > 0)
            p.fillRect(QRectF(left + x, oh - 2 - h, 1, h), QColor(0x8a, 0x9b, 0xb0));
    }
    const double span = double(std::max<TimeNs>(1, o.traceEnd - o.traceStart));
    const double a = left + double(v.t0 - o.traceStart) / span * width;
    const double b = left + double(v.t1 - o.traceStart) / span * width;
    QColor shade = T().accent;
    shade.setAlpha(45);
    const QRectF window(a, 1, std::max(2.0, b - a), oh - 2);
    p.fillRect(window, shade);
    p.setPen(QPen(T().accent, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(window);
}

} // namespace gml
