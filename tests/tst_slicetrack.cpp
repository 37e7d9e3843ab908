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
        auto t = SliceTrack::build({{60, 10, 6, 1}, {0, 100, 1, 1}, {20, 10, 3, 1},
                                    {10, 40, 2, 1}, {60, 30, 5, 1}, {100, 5, 7, 1}});
        QCOMPARE(t.size(), size_t(6));
        QList<std::pair<SliceId, int>> got;
        for (size_t i = 0; i < t.size(); ++i)
            got.append({t.id(i), t.depth(i)});
        const QList<std::pair<SliceId, int>> want = {{1, 0}, {2, 1}, {3, 2}, {5, 1}, {6, 2}, {7, 0}};
        QCOMPARE(got, want);
        QCOMPARE(t.maxDepth(), 2);
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
                if (track.start(i) < b && track.end(i) > a)
                    slow.insert(track.id(i));
            QCOMPARE(fast, slow);
            // firstIndex: everything before it ends at or before a.
            const size_t first = track.firstIndex(a);
            for (size_t i = 0; i < first; ++i)
                QVERIFY(track.end(i) <= a);
            if (first < track.size())
                QVERIFY(track.end(first) > a);
        }
    }

    void emptyTrack()
    {
        SliceTrack t = SliceTrack::build({});
        QCOMPARE(t.firstIndex(0), size_t(0));
        QCOMPARE(t.lastIndex(100), size_t(0));
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
        QVERIFY2(t.memoryBytes() / t.size() <= 40, qPrintable(QString::number(t.memoryBytes() / t.size())));
    }
};

QTEST_GUILESS_MAIN(TestSliceTrack)
#include "tst_slicetrack.moc"
