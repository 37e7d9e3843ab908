// SPDX-License-Identifier: GPL-3.0-or-later
// Level-of-detail summaries of slice tracks (schema v7, issue 34): each level holds, per depth
// and bucket, the longest slice starting there (checked against a brute force on a generated
// track); levels shrink and stay a fraction of the track; an import writes them and a window
// reads back only what it overlaps; a v6 project migrates (with progress, cancellable); a
// damaged piece is an error; rows read chunk by chunk sort as a whole sort would.
#include "project.h"
#include "runsort.h"
#include "slicelod.h"
#include "slicetrack.h"
#include "testutil.h"
#include "tracewriter.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace gml;

namespace {

// Nested CPU-op-like slices: parents of 1-60 µs with 0-3 children, gaps of 0-10 µs, and a burst
// of 1 µs kernels every 1,000 parents (dense regions next to sparse ones), in canonical order
// with their depths.
std::vector<lod::Entry> generate(size_t n, quint32 seed)
{
    QRandomGenerator rng(seed);
    std::vector<SliceTrack::Input> in;
    TimeNs t = 1'000'000'000;
    SliceId id = 0;
    while (in.size() < n) {
        const TimeNs dur = rng.bounded(1000, 60000);
        in.push_back({t, dur, ++id, StringId(rng.bounded(50))});
        const int kids = rng.bounded(4);
        for (int j = 0; j < kids; ++j) {
            const TimeNs cd = (dur - 400) / (kids + 1);
            in.push_back({t + 200 + j * (cd + 50), cd, ++id, StringId(rng.bounded(50))});
        }
        t += dur + rng.bounded(0, 10000);
        if (id % 1000 < 4)
            for (int k = 0; k < 500; ++k, t += 1000)
                in.push_back({t, 1000, ++id, StringId(7)});
    }
    const SliceTrack track = SliceTrack::build(in);
    std::vector<lod::Entry> out;
    for (size_t i = 0; i < track.size(); ++i)
        out.push_back({track.start(i), track.duration(i), track.id(i), track.nameId(i),
                       uint16_t(track.depth(i))});
    return out; // grouped by depth, each in start order
}

TrackSpec threadSpec()
{
    TrackSpec s;
    s.kind = TrackKind::Thread;
    s.name = QStringLiteral("thread");
    return s;
}

} // namespace

class TestSliceLod : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Rows that arrive nearly in order (chunks each sorted, a parent after its children, ids
    // handed out as a file is read) are sorted by merging their runs (runsort.h): the result is
    // the sort's for every shape of input, from sorted to reversed and random, duplicates too.
    void runsMergedAsTheSortWould()
    {
        QRandomGenerator rng(11);
        using Pair = std::pair<int, int>;
        for (int shape = 0; shape < 5; ++shape) {
            for (const size_t n : {size_t(0), size_t(1), size_t(2), size_t(100), size_t(20000)}) {
                std::vector<Pair> rows(n);
                for (size_t i = 0; i < n; ++i)
                    rows[i] = {int(i) / 3, int(rng.bounded(4))};
                if (shape == 1) // sorted chunks of 512, each chunk's first row moved back a bit
                    for (size_t c = 512; c < n; c += 512)
                        rows[c].first -= int(rng.bounded(1, 200));
                else if (shape == 2)
                    std::reverse(rows.begin(), rows.end());
                else if (shape == 3)
                    for (Pair &r : rows)
                        r = {int(rng.bounded(1000)), int(rng.bounded(4))};
                else if (shape == 4) // a few rows far out of place
                    for (size_t k = 0; k < n / 100; ++k)
                        std::swap(rows[rng.bounded(quint32(n))], rows[rng.bounded(quint32(n))]);
                std::vector<Pair> expected = rows;
                std::sort(expected.begin(), expected.end());
                sortNearlySorted(rows);
                QVERIFY2(rows == expected,
                         qPrintable(QStringLiteral("shape %1, %2 rows").arg(shape).arg(n)));
            }
        }
    }

    void levelsHoldTheLongestPerBucket()
    {
        const auto slices = generate(60000, 7);
        const auto levels = lod::buildLevels(slices);
        QVERIFY(levels.size() >= 3);
        size_t previous = slices.size();
        for (const auto &level : levels) {
            // Each level is at most a quarter of the slices and smaller than the finer one.
            QVERIFY(level.entries.size() <= slices.size() / 4);
            QVERIFY(level.entries.size() < previous);
            previous = level.entries.size();
            // Brute force: the longest duration per (depth, bucket), and how many slices.
            std::map<std::pair<int, TimeNs>, TimeNs> longest;
            for (const auto &s : slices) {
                auto &l = longest[{s.depth, s.start >> level.shift}];
                l = std::max(l, s.duration + 1); // +1: 0 means none
            }
            QCOMPARE(level.entries.size(), longest.size());
            std::map<SliceId, const lod::Entry *> byId;
            for (const auto &s : slices)
                byId[s.id] = &s;
            for (size_t i = 0; i < level.entries.size(); ++i) {
                const auto &e = level.entries[i];
                // A real slice, as it is in the track, and the longest of its bucket.
                const auto *s = byId.at(e.id);
                QCOMPARE(e.start, s->start);
                QCOMPARE(e.duration, s->duration);
                QCOMPARE(e.depth, s->depth);
                QCOMPARE(e.name, s->name);
                QCOMPARE(e.duration + 1, longest.at({e.depth, e.start >> level.shift}));
                if (i && level.entries[i - 1].depth == e.depth)
                    QVERIFY(level.entries[i - 1].start < e.start);
                if (i)
                    QVERIFY(level.entries[i - 1].depth <= e.depth);
            }
        }
        QVERIFY(levels.back().entries.size() <= lod::kCoarsestEntries);
        // A small track gets none: it is read whole.
        auto small = generate(lod::kMinSlices, 3);
        small.resize(lod::kMinSlices - 1);
        QVERIFY(lod::buildLevels(small).empty());
    }

    void pieceRoundTripAndDamage()
    {
        const auto slices = generate(5000, 11);
        std::string blob;
        lod::encodePiece(slices.data(), slices.data() + 4000, blob);
        std::vector<lod::Entry> back;
        QVERIFY(lod::decodePiece(blob, back));
        QCOMPARE(back.size(), size_t(4000));
        for (size_t i = 0; i < back.size(); ++i) {
            QCOMPARE(back[i].start, slices[i].start);
            QCOMPARE(back[i].duration, slices[i].duration);
            QCOMPARE(back[i].id, slices[i].id);
            QCOMPARE(back[i].depth, slices[i].depth);
        }
        back.clear();
        QVERIFY(!lod::decodePiece(blob.substr(0, blob.size() - 1), back)); // cut in an entry
        std::string other = blob;
        other[0] = '\x02';
        QVERIFY(!lod::decodePiece(other, back)); // unknown version
        QVERIFY(!lod::decodePiece({}, back));
    }

    // An import writes the summaries with the slices; a window reads only what overlaps it;
    // a project of schema v6 (no summaries) gets them when opened for writing, and reads as
    // not summarised when opened read-only.
    void importWritesThemAndOldProjectsMigrate()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("l.grademl"));
        const auto slices = generate(50000, 5);
        TrackId track = 0;
        {
            QString error;
            auto p = Project::open(path, Project::Mode::ReadWrite, &error);
            QVERIFY2(p, qPrintable(error));
            QVERIFY(p->begin(&error));
            const RunId run = p->ensureRun(QStringLiteral("r"), &error);
            QVERIFY(p->db().exec("INSERT INTO source(run_id, path, format, status) VALUES(1, 'x', "
                                 "'test', 'failed')"));
            TraceWriter w(*p, run, p->db().lastInsertRowId());
            track = w.addTrack(threadSpec());
            const TrackId small = w.addTrack(threadSpec());
            // Written in reverse: chunks overlap in time; the summaries are the same.
            for (auto it = slices.rbegin(); it != slices.rend(); ++it)
                w.addSlice(track, it->start, it->duration, it->name, 0);
            w.addSlice(small, 5, 10, 1, 0);
            QVERIFY2(w.finish({}, &error), qPrintable(error));
            QVERIFY(p->commit(&error));
            const lod::Stored s = lod::stored(p->db(), track);
            QVERIFY(s.summarised);
            QCOMPARE(s.maxDepth, 1); // parents and their children
            QVERIFY(s.shifts.size() >= 3);
            const lod::Stored one = lod::stored(p->db(), small);
            QVERIFY(one.summarised);
            QCOMPARE(one.maxDepth, 0);
            QVERIFY(one.shifts.empty());
            // The whole coarsest level, then a window of a finer one: only entries overlapping it.
            std::vector<lod::Entry> all, window;
            QVERIFY(lod::readLevel(p->db(), track, s.shifts.front(), slices.front().start,
                                   TimeNs(1) << 62, all, &error));
            QCOMPARE(all.size(), lod::buildLevels(slices).front().entries.size());
            const TimeNs t0 = slices[20000].start, t1 = slices[21000].start;
            QVERIFY(lod::readLevel(p->db(), track, s.shifts.front(), t0, t1, window, &error));
            QVERIFY(!window.empty() && window.size() < all.size() / 10);
            size_t expected = 0;
            for (const auto &e : all)
                expected += e.start < t1 && e.start + e.duration > t0;
            QCOMPARE(window.size(), expected);
            // A damaged piece is named.
            QVERIFY(p->db().exec(
                "UPDATE slice_lod SET data = x'01ff' WHERE id = (SELECT min(id) FROM slice_lod)"));
            window.clear();
            QVERIFY(!lod::readLevel(p->db(), track, s.shifts.front(), slices.front().start, t1,
                                    window, &error));
            QVERIFY2(error.contains(QLatin1String("malformed")), qPrintable(error));
            // Back to schema v6.
            QVERIFY(p->db().exec(
                "DROP TABLE counter; DROP TABLE counter_chunk; CREATE TABLE counter(track_id "
                "INTEGER NOT NULL, ts INTEGER NOT NULL, value REAL NOT NULL, step INTEGER); "
                "CREATE INDEX counter_track_ts ON counter(track_id, ts); "
                "DROP TABLE shard_identity; DROP TABLE rank_facts; DROP TABLE shard; ALTER TABLE "
                "source DROP COLUMN shard_id; "
                "ALTER TABLE source DROP COLUMN shard_source_id; DROP TABLE note; DROP VIEW "
                "kernel; DROP VIEW cpu_op; DROP VIEW counter_series; DROP VIEW slice_info; "
                "DROP TABLE view_state; DROP TABLE source_summary; DROP TABLE slice_lod; ALTER "
                "TABLE track DROP COLUMN max_depth; "
                "PRAGMA user_version=6;"));
        }
        QString error;
        {
            auto ro = Project::open(path, Project::Mode::ReadOnly, &error);
            QVERIFY2(ro, qPrintable(error));
            QCOMPARE(ro->schemaVersion(), 6);
            QVERIFY(!lod::stored(ro->db(), track).summarised);
        }
        // The upgrade says what it does and how far, and a cancel leaves the file at version 6.
        QStringList told;
        QVERIFY(!Project::open(
            path, Project::Mode::ReadWrite, &error, [&](const QString &what, int done, int total) {
                told << QStringLiteral("%1 %2/%3").arg(what).arg(done).arg(total);
                return total == 0; // stop at the first track
            }));
        QCOMPARE(error, QStringLiteral("%1: cancelled").arg(path));
        QCOMPARE(told,
                 QStringList({QStringLiteral("upgrading the project to format 7: summarising its "
                                             "tracks for the timeline 0/0"),
                              QStringLiteral("upgrading the project to format 7: summarising its "
                                             "tracks for the timeline 0/2")})); // two slice tracks
        {
            auto ro = Project::open(path, Project::Mode::ReadOnly, &error);
            QVERIFY2(ro, qPrintable(error));
            QCOMPARE(ro->schemaVersion(), 6);
        }
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        QVERIFY2(p, qPrintable(error));
        const lod::Stored s = lod::stored(p->db(), track);
        QVERIFY(s.summarised);
        QCOMPARE(s.shifts.size(), lod::buildLevels(slices).size());
    }
};

QTEST_GUILESS_MAIN(TestSliceLod)
#include "tst_slicelod.moc"
