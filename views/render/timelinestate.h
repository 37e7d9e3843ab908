// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QList>
#include <QObject>

namespace gml {

// The one zoom/selection state every view listens to (docs/layout.md, "How a view gets its data";
// Qt Creator's TimelineZoomControl): the runs in focus, the trace range, the visible window, a
// selected time range, the selected slice and the cursor. Each part has its own ...Changed signal.
// Ranges are half-open.
//
// Times are view times: the project clock of the first run in focus. With several runs in
// focus and aligned (not on the project clock), each other run is shifted so that it starts
// where the first does (TimelineLayout::shiftOf: track time = view time + shift). The trace
// range is the focused runs' span, and the ruler counts from its start (the axis origin).
class TimelineState : public QObject
{
    Q_OBJECT
public:
    // ns: 1 ns ticks across the window (Perfetto zooms to nanoseconds; a kernel's 2 ns gap
    // between two launches is then a readable 100 px at 1366 px wide). Deeper shows nothing new.
    static constexpr TimeNs kMinWindow = 10;

    explicit TimelineState(QObject *parent = nullptr);

    // The runs shown, in order (empty: every run, on the project clock). `projectClock` false
    // aligns them at their starts; true keeps them where they ran (runs that ran together).
    // Another first run or clock clears the selected range and slice (their times were on the
    // old clock) and the origin.
    const QList<RunId> &focusRuns() const { return m_focusRuns; }
    bool projectClock() const { return m_projectClock; }
    void setFocus(const QList<RunId> &runs, bool projectClock = false);

    TimeNs traceStart() const { return m_traceStart; }
    TimeNs traceEnd() const { return m_traceEnd; }
    void setTraceRange(TimeNs start, TimeNs end); // also shows the whole trace
    // The trace grew while it is followed (a live folder): a window that showed its end moves
    // with it, its width kept (one that showed all of it shows all); any other is left where
    // the user put it. The window showed the end when it reached within 1% of its width of it.
    void extendTraceRange(TimeNs start, TimeNs end);
    // The window's end is at the trace's end (what extendTraceRange follows).
    bool atTraceEnd() const;
    // Moves the window, its width kept, to end at the trace's end (the Follow button).
    void showTraceEnd();

    TimeNs windowStart() const { return m_windowStart; }
    TimeNs windowEnd() const { return m_windowEnd; }
    TimeNs windowDuration() const { return m_windowEnd - m_windowStart; }
    // Clamped: at least kMinWindow wide, at most the trace plus 5% on each side, kept inside.
    void setWindow(TimeNs start, TimeNs end);
    // factor < 1 zooms in; `anchor` stays at the same place on screen.
    void zoomAround(TimeNs anchor, double factor);
    void panBy(TimeNs delta);
    void showAll();

    bool hasSelection() const { return m_selectionEnd > m_selectionStart; }
    TimeNs selectionStart() const { return m_selectionStart; }
    TimeNs selectionEnd() const { return m_selectionEnd; }
    void setSelection(TimeNs start, TimeNs end);
    void clearSelection();
    // The selected range, else the selected slice, fills the window (with a small margin).
    void zoomToSelection();

    TrackId selectedTrack() const { return m_selectedTrack; }
    SliceId selectedSlice() const { return m_selectedSlice; }
    TimeNs selectedSliceStart() const { return m_selectedStart; }
    TimeNs selectedSliceEnd() const { return m_selectedEnd; }
    bool hasSelectedSlice() const { return m_selectedSlice != 0; }
    // start and end on the track's clock; `shift` is its run's (view time = track time - shift).
    void setSelectedSlice(TrackId track, SliceId slice, TimeNs start, TimeNs end, TimeNs shift = 0);
    void clearSelectedSlice();

    // The ruler's zero: a time the user set (a click on the ruler); none, the trace's start.
    // Another focus clears it.
    bool hasOrigin() const { return m_hasOrigin; }
    TimeNs origin() const { return m_hasOrigin ? m_origin : m_traceStart; }
    void setOrigin(TimeNs t);
    void clearOrigin();

    // Cursor time under the mouse (for the readout); -1 when outside.
    TimeNs cursor() const { return m_cursor; }
    bool hasCursor() const { return m_hasCursor; }
    void setCursor(TimeNs t);
    void clearCursor();

Q_SIGNALS:
    void focusChanged();
    void traceRangeChanged(qint64 start, qint64 end);
    void windowChanged(qint64 start, qint64 end);
    void selectionChanged(qint64 start, qint64 end);
    void selectedSliceChanged(qint64 track, qint64 slice);
    void cursorChanged();
    void originChanged();

private:
    QList<RunId> m_focusRuns;
    bool m_projectClock = false;
    TimeNs m_selectedShift = 0;
    TimeNs m_traceStart = 0, m_traceEnd = 1;
    TimeNs m_windowStart = 0, m_windowEnd = 1;
    TimeNs m_selectionStart = 0, m_selectionEnd = 0;
    TrackId m_selectedTrack = 0;
    SliceId m_selectedSlice = 0;
    TimeNs m_selectedStart = 0, m_selectedEnd = 0;
    TimeNs m_cursor = 0;
    bool m_hasCursor = false;
    TimeNs m_origin = 0;
    bool m_hasOrigin = false;
};

} // namespace gml
