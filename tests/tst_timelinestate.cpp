// SPDX-License-Identifier: GPL-3.0-or-later
// The shared zoom/selection state: clamping, anchored zoom, pan, selection, signals.
#include "timelinestate.h"

#include <QSignalSpy>
#include <QTest>

using namespace gml;

class TestTimelineState : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void traceRangeShowsEverything()
    {
        TimelineState s;
        QSignalSpy window(&s, &TimelineState::windowChanged);
        s.setTraceRange(1000, 11000);
        QCOMPARE(s.windowStart(), TimeNs(1000));
        QCOMPARE(s.windowEnd(), TimeNs(11000));
        QCOMPARE(window.count(), 1);
    }

    void zoomKeepsTheAnchorInPlace()
    {
        TimelineState s;
        s.setTraceRange(0, 1'000'000);
        // Anchor at 25% of the window: after zooming it is still at 25%.
        s.zoomAround(250'000, 0.5);
        QCOMPARE(s.windowDuration(), TimeNs(500'000));
        QCOMPARE(s.windowStart(), TimeNs(125'000));
        const double frac = double(250'000 - s.windowStart()) / double(s.windowDuration());
        QCOMPARE(frac, 0.25);
        s.zoomAround(250'000, 2.0);
        QCOMPARE(s.windowStart(), TimeNs(0));
        QCOMPARE(s.windowEnd(), TimeNs(1'000'000));
    }

    void windowIsClamped()
    {
        TimelineState s;
        s.setTraceRange(0, 1'000'000);
        for (int i = 0; i < 200; ++i)
            s.zoomAround(500'000, 0.5);
        QCOMPARE(s.windowDuration(), TimelineState::kMinWindow);
        QVERIFY(s.windowStart() <= 500'000 && s.windowEnd() >= 500'000);
        for (int i = 0; i < 200; ++i)
            s.zoomAround(500'000, 3.0);
        // At most the trace plus 5% each side.
        QCOMPARE(s.windowDuration(), TimeNs(1'100'000));
        s.showAll();
        s.panBy(10'000'000); // cannot leave the trace
        QCOMPARE(s.windowEnd(), TimeNs(1'050'000));
        s.panBy(-10'000'000);
        QCOMPARE(s.windowStart(), TimeNs(-50'000));
    }

    void selectionAndZoomToIt()
    {
        TimelineState s;
        s.setTraceRange(0, 1'000'000);
        QSignalSpy sel(&s, &TimelineState::selectionChanged);
        s.setSelection(600'000, 200'000); // reversed drag
        QVERIFY(s.hasSelection());
        QCOMPARE(s.selectionStart(), TimeNs(200'000));
        QCOMPARE(s.selectionEnd(), TimeNs(600'000));
        s.zoomToSelection();
        QCOMPARE(s.windowStart(), TimeNs(180'000)); // 5% margin
        QCOMPARE(s.windowEnd(), TimeNs(620'000));
        s.clearSelection();
        QVERIFY(!s.hasSelection());
        QCOMPARE(sel.count(), 2);

        // Without a range, F fits the selected slice.
        QSignalSpy slice(&s, &TimelineState::selectedSliceChanged);
        s.setSelectedSlice(3, 42, 10'000, 30'000);
        s.setSelectedSlice(3, 42, 10'000, 30'000); // same: no signal
        QCOMPARE(slice.count(), 1);
        s.zoomToSelection();
        QCOMPARE(s.windowStart(), TimeNs(9'000));
        QCOMPARE(s.windowEnd(), TimeNs(31'000));
    }
};

QTEST_GUILESS_MAIN(TestTimelineState)
#include "tst_timelinestate.moc"
