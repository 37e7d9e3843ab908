// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicetrack.h"

#include <QRandomGenerator>
#include <QTest>

using namespace gml;

class TestSliceTrack : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void computesNestingDepth()
    {
        // step [0,100) > op [10,50) > launch [20,30); op2 [60,90) > kernel-less child [60,70)
        auto t = SliceTrack::build({{60, 10, 6, 1},
                                    {0, 100, 1, 1},
                                    {20, 10, 3, 1},
                                    {10, 40, 2, 1},
                                    {60, 30, 5, 1},
                                    {100, 5, 7, 1}});
        QCOMPARE(t.size(), size_t(6));
        QList<std::pair<SliceId, int>> got;
        for (size_t i = 0; i < t.size(); ++i)
            got.append({t.id(i), t.depth(i)});
        // Grouped by depth, each depth in start order.
        const QList<std::pair<SliceId, int>> want = {{1, 0}, {7, 0}, {2, 1},
                                                     {5, 1}, {3, 2}, {6, 2}};
        QCOMPARE(got, want);
        QCOMPARE(t.maxDepth(), 2);
        QCOMPARE(t.depthCount(), 3);
        QCOMPARE(t.minStart(), TimeNs(0));
        QCOMPARE(t.maxEnd(), TimeNs(105));
        // Hit testing and self time: op [10,50) has the launch [20,30) under it.
        QCOMPARE(t.id(size_t(t.sliceAt(1, 25))), SliceId(2));
        QCOMPARE(t.sliceAt(1, 55), qint64(-1));
        QCOMPARE(t.sliceAt(2, 69), qint64(t.indexOf(6)));
        // By id and start: two slices start at 60, on different depths.
        QCOMPARE(t.find(6, 60), t.indexOf(6));
        QCOMPARE(t.find(5, 60), t.indexOf(5));
        QCOMPARE(t.find(6, 61), qint64(-1));
        QCOMPARE(t.selfTime(size_t(t.indexOf(2))), TimeNs(30));
        QCOMPARE(t.selfTime(size_t(t.indexOf(1))), TimeNs(30)); // 100 - 40 - 30
    }

    void depthsNeverOverlapEvenOnBadNesting()
    {
        // b overlaps a's end; c starts inside b after a ended. Each depth stays disjoint.
        auto t = SliceTrack::build({{0, 10, 1, 0}, {5, 10, 2, 0}, {12, 5, 3, 0}, {16, 1, 4, 0}});
        for (int d = 0; d < t.depthCount(); ++d)
            for (size_t i = t.depthBegin(d) + 1; i < t.depthEnd(d); ++i)
                QVERIFY(t.start(i) >= t.end(i - 1));
    }

    // Issue 73: the profiler's step() frame ends 3 us after the next ProfilerStep begins. It
    // nests clipped to its step's end, so every step stays at depth 0 (each went a level
    // deeper: a staircase); an overshoot past Nesting::kClipNs still takes the next depth.
    void smallOvershootsNestClipped()
    {
        std::vector<SliceTrack::Input> in;
        SliceId id = 1;
        for (TimeNs k = 0; k < 20; ++k) {
            in.push_back({k * 1'000'000, 1'000'000, id++, 0});         // ProfilerStep#k
            in.push_back({k * 1'000'000 + 900'000, 103'000, id++, 0}); // step(): +3 us
            in.push_back({k * 1'000'000 + 950'000, 52'000, id++, 0});  // inside step()
        }
        auto t = SliceTrack::build(in);
        QCOMPARE(t.depthCount(), 3);
        QCOMPARE(t.clippedCount(), qint64(40));
        for (TimeNs k = 0; k < 20; ++k) {
            const size_t step = size_t(t.indexOf(SliceId(3 * k + 1)));
            QVERIFY(step >= t.depthBegin(0) && step < t.depthEnd(0));
            const size_t frame = size_t(t.indexOf(SliceId(3 * k + 2)));
            QCOMPARE(t.end(frame), t.end(step));          // drawn clipped to its parent's end
            QCOMPARE(t.duration(frame), TimeNs(103'000)); // its own duration kept
        }
        for (int d = 0; d < t.depthCount(); ++d)
            for (size_t i = t.depthBegin(d) + 1; i < t.depthEnd(d); ++i)
                QVERIFY(t.start(i) >= t.end(i - 1));
        // 30 us past its parent: bad input, the next depth.
        auto bad = SliceTrack::build(
            {{0, 1'000'000, 1, 0}, {900'000, 130'000, 2, 0}, {1'000'000, 1'000'000, 3, 0}});
        QCOMPARE(bad.clippedCount(), qint64(0));
        QCOMPARE(bad.depthCount(), 3);
    }

    void visibleWindowMatchesBruteForce()
    {
        QRandomGenerator rng(7);
        std::vector<SliceTrack::Input> in;
        // Nested bursts plus one very long slice early on, so prefix maxima matter.
        in.push_back({5, 900'000, 1, 0});
        TimeNs t = 0;
        for (SliceId id = 2; id < 5000; ++id) {
            const TimeNs d = rng.bounded(1, 400);
            in.push_back({t, d, id, 0});
            if (rng.bounded(3) == 0)
                in.push_back({t + 1, std::max<TimeNs>(0, d - 2), ++id, 0});
            t += rng.bounded(0, 300);
        }
        const auto track = SliceTrack::build(in);
        for (int k = 0; k < 500; ++k) {
            const TimeNs a = rng.bounded(-100, int(t) + 1000);
            const TimeNs b = a + rng.bounded(0, 5000);
            QSet<SliceId> fast;
            track.forEachVisible(a, b, [&](size_t i) { fast.insert(track.id(i)); });
            QSet<SliceId> slow;
            for (size_t i = 0; i < track.size(); ++i)
                if (track.start(i) < b && (track.end(i) > a || track.start(i) == a))
                    slow.insert(track.id(i));
            QCOMPARE(fast, slow);
            // firstIndex per depth: everything before it in the depth ends at or before a.
            for (int d = 0; d < track.depthCount(); ++d) {
                const size_t first = track.firstIndex(d, a);
                for (size_t i = track.depthBegin(d); i < first; ++i)
                    QVERIFY(track.end(i) <= a);
                const size_t next = track.nextStartingAt(d, track.depthBegin(d), b);
                QCOMPARE(next, track.lastIndex(d, b));
            }
        }
    }

    void longestInMatchesBruteForce()
    {
        QRandomGenerator rng(11);
        std::vector<SliceTrack::Input> in;
        for (SliceId id = 0; id < 20000; ++id)
            in.push_back({id * 100, TimeNs(rng.bounded(1, 99)), id, 0});
        const auto t = SliceTrack::build(in);
        for (int k = 0; k < 2000; ++k) {
            const size_t i = size_t(rng.bounded(20000)),
                         j = std::min<size_t>(
                             20000, i + 1 +
                                        size_t(rng.bounded(
                                            int(SliceTrack::kBlock * SliceTrack::kLongestBlocks))));
            size_t best = i;
            for (size_t x = i; x < j; ++x)
                if (t.duration(x) > t.duration(best))
                    best = x;
            QCOMPARE(t.duration(t.longestIn(i, j)), t.duration(best));
            QVERIFY(t.longestIn(i, j) >= i && t.longestIn(i, j) < j);
        }
        // Beyond the exact span it still answers inside the range.
        const size_t l = t.longestIn(5, 19000);
        QVERIFY(l >= 5 && l < 19000);
    }

    void emptyTrack()
    {
        SliceTrack t = SliceTrack::build({});
        QCOMPARE(t.depthCount(), 0);
        QCOMPARE(t.sliceAt(0, 5), qint64(-1));
        int n = 0;
        t.forEachVisible(0, 100, [&](size_t) { ++n; });
        QCOMPARE(n, 0);
    }

    void memoryPerSliceIsCompact()
    {
        std::vector<SliceTrack::Input> in;
        for (SliceId i = 0; i < 100000; ++i)
            in.push_back({i * 10, 5, i, StringId(i % 100)});
        const auto t = SliceTrack::build(std::move(in));
        QVERIFY2(t.memoryBytes() / t.size() <= 29,
                 qPrintable(QString::number(t.memoryBytes() / t.size())));
    }
};

QTEST_GUILESS_MAIN(TestSliceTrack)
#include "tst_slicetrack.moc"
