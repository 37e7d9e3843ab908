// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinestate.h"

#include <algorithm>
#include <cmath>

namespace gml {

TimelineState::TimelineState(QObject *parent) : QObject(parent) {}

void TimelineState::setFocus(const QList<RunId> &runs, bool projectClock)
{
    if (runs == m_focusRuns && projectClock == m_projectClock)
        return;
    const bool otherClock = runs.value(0) != m_focusRuns.value(0) || projectClock != m_projectClock;
    m_focusRuns = runs;
    m_projectClock = projectClock;
    clearOrigin(); // view times of other runs
    if (otherClock) {
        // The selection's times were on the clock of the run first in focus: on another
        // run's they would select something else (Aggregate and Flame would read it).
        clearSelection();
        clearSelectedSlice();
    }
    Q_EMIT focusChanged();
}

void TimelineState::setOrigin(TimeNs t)
{
    if (m_hasOrigin && t == m_origin)
        return;
    m_hasOrigin = true;
    m_origin = t;
    Q_EMIT originChanged();
}

void TimelineState::clearOrigin()
{
    if (!m_hasOrigin)
        return;
    m_hasOrigin = false;
    Q_EMIT originChanged();
}

void TimelineState::setTraceRange(TimeNs start, TimeNs end)
{
    end = std::max(end, start + 1);
    if (start != m_traceStart || end != m_traceEnd) {
        m_traceStart = start;
        m_traceEnd = end;
        Q_EMIT traceRangeChanged(start, end);
    }
    showAll();
}

bool TimelineState::atTraceEnd() const
{
    return m_windowEnd >= m_traceEnd - std::max<TimeNs>(1, windowDuration() / 100);
}

void TimelineState::showTraceEnd()
{
    const TimeNs width = std::min(windowDuration(), m_traceEnd - m_traceStart);
    setWindow(m_traceEnd - width, m_traceEnd);
}

void TimelineState::extendTraceRange(TimeNs start, TimeNs end)
{
    end = std::max(end, start + 1);
    if (start == m_traceStart && end == m_traceEnd)
        return;
    const bool all = m_windowStart <= m_traceStart && m_windowEnd >= m_traceEnd;
    const bool following = atTraceEnd();
    m_traceStart = start;
    m_traceEnd = end;
    Q_EMIT traceRangeChanged(start, end);
    if (all)
        showAll();
    else if (following)
        showTraceEnd();
    else
        setWindow(m_windowStart, m_windowEnd); // clamped to the new range
}

void TimelineState::setWindow(TimeNs start, TimeNs end)
{
    const TimeNs margin = std::max<TimeNs>(1, (m_traceEnd - m_traceStart) / 20);
    const TimeNs lo = m_traceStart - margin, hi = m_traceEnd + margin;
    TimeNs width = std::clamp<TimeNs>(end - start, kMinWindow, hi - lo);
    if (end - start < kMinWindow) // keep the centre when widening a too-narrow window
        start = start + (end - start) / 2 - width / 2;
    start = std::clamp(start, lo, hi - width);
    end = start + width;
    if (start == m_windowStart && end == m_windowEnd)
        return;
    m_windowStart = start;
    m_windowEnd = end;
    Q_EMIT windowChanged(start, end);
}

void TimelineState::zoomAround(TimeNs anchor, double factor)
{
    const double f = std::clamp(factor, 1e-3, 1e3);
    const double s = double(anchor) - double(anchor - m_windowStart) * f;
    const double e = double(anchor) + double(m_windowEnd - anchor) * f;
    // Keep the anchor in place even when the width clamps: clamp the width first.
    const TimeNs width = std::max<TimeNs>(kMinWindow, TimeNs(std::llround(e - s)));
    const double frac = (m_windowEnd > m_windowStart)
                            ? double(anchor - m_windowStart) / double(m_windowEnd - m_windowStart)
                            : 0.5;
    const TimeNs start = anchor - TimeNs(std::llround(frac * double(width)));
    setWindow(start, start + width);
}

void TimelineState::panBy(TimeNs delta)
{
    setWindow(m_windowStart + delta, m_windowEnd + delta);
}

void TimelineState::showAll()
{
    setWindow(m_traceStart, m_traceEnd);
}

void TimelineState::setSelection(TimeNs start, TimeNs end)
{
    if (end < start)
        std::swap(start, end);
    if (start == m_selectionStart && end == m_selectionEnd)
        return;
    m_selectionStart = start;
    m_selectionEnd = end;
    Q_EMIT selectionChanged(start, end);
}

void TimelineState::clearSelection()
{
    setSelection(0, 0);
}

void TimelineState::zoomToSelection()
{
    TimeNs a = 0, b = 0;
    if (hasSelection()) {
        a = m_selectionStart;
        b = m_selectionEnd;
    } else if (hasSelectedSlice()) {
        a = m_selectedStart - m_selectedShift;
        b = std::max(m_selectedEnd, m_selectedStart + kMinWindow) - m_selectedShift;
    } else {
        return;
    }
    const TimeNs margin = (b - a) / 20;
    setWindow(a - margin, b + margin);
}

void TimelineState::setSelectedSlice(TrackId track, SliceId slice, TimeNs start, TimeNs end,
                                     TimeNs shift)
{
    m_selectedShift = shift;
    if (track == m_selectedTrack && slice == m_selectedSlice)
        return;
    m_selectedTrack = track;
    m_selectedSlice = slice;
    m_selectedStart = start;
    m_selectedEnd = end;
    Q_EMIT selectedSliceChanged(track, slice);
}

void TimelineState::clearSelectedSlice()
{
    setSelectedSlice(0, 0, 0, 0);
}

void TimelineState::setCursor(TimeNs t)
{
    if (m_hasCursor && t == m_cursor)
        return;
    m_cursor = t;
    m_hasCursor = true;
    Q_EMIT cursorChanged();
}

void TimelineState::clearCursor()
{
    if (!m_hasCursor)
        return;
    m_hasCursor = false;
    Q_EMIT cursorChanged();
}

} // namespace gml
