// SPDX-License-Identifier: GPL-3.0-or-later
// Counter samples in chunks (schema v16, model/store/counterstore.h): what goes in through
// TraceWriter comes back through SQL over `counter` with the same values, each track's rows in
// (time, order added) order as the old (track_id, ts) index gave them, by every access path; a
// time range reads what a filter over all rows keeps; a version 15 project migrates with its
// samples in the same order; a damaged chunk is an error that names it.
#include "counterstore.h"
#include "project.h"
#include "schema.h"
#include "testutil.h"
#include "tracewriter.h"

#include <QRandomGenerator>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

using namespace gml;

// Named, not anonymous: the test class's lambdas capture these types (-Wsubobject-linkage).
namespace countertest {

struct Want
{
    TrackId track;
    TimeNs ts;
    double value;
    std::optional<qint64> step;
};

bool sameBits(double a, double b)
{
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Each track's samples in the order the table promises: by track, then time, then as added.
std::vector<Want> inTableOrder(std::vector<Want> added)
{
    std::stable_sort(added.begin(), added.end(), [](const Want &a, const Want &b) {
        return a.track != b.track ? a.track < b.track : a.ts < b.ts;
    });
    return added;
}

// The rows `sql` gives against `want`, value bits and null steps included.
void compareRows(Project &p, const std::string &sql, const std::vector<Want> &want)
{
    auto st = p.db().prepare(sql);
    size_t i = 0;
    for (; st.step(); ++i) {
        QVERIFY2(i < want.size(), sql.c_str());
        const Want &w = want[i];
        QCOMPARE(st.int64(0), w.track);
        QCOMPARE(st.int64(1), w.ts);
        QVERIFY2(sameBits(st.real(2), w.value), qPrintable(QStringLiteral("row %1: %2, expected %3")
                                                               .arg(i)
                                                               .arg(st.real(2), 0, 'g', 17)
                                                               .arg(w.value, 0, 'g', 17)));
        QCOMPARE(st.isNull(3), !w.step);
        if (w.step)
            QCOMPARE(st.int64(3), *w.step);
    }
    QVERIFY2(st.errorString().isEmpty(), qPrintable(st.errorString()));
    QCOMPARE(i, want.size());
}

TrackSpec counterTrack(const char *name)
{
    TrackSpec s;
    s.kind = TrackKind::Counter;
    s.name = QString::fromLatin1(name);
    return s;
}

using Fixture = gmltest::WriterFixture;

// Values the codec must keep bit for bit: integers (small, negative, the largest exact one),
// fractions, -0, the extremes and a subnormal.
double valueOf(int i)
{
    static const double special[] = {-0.0,
                                     0.0,
                                     9007199254740991.0,
                                     9007199254740992.0,
                                     -9007199254740994.0,
                                     1e300,
                                     -1e-310,
                                     std::numeric_limits<double>::max(),
                                     0.1};
    if (i % 11 == 0)
        return special[size_t(i / 11) % std::size(special)];
    return i % 3 ? double(i % 97 - 40) : i * 0.37 - 3;
}

// Three tracks: `a` in time order with ties (three chunks, read one at a time), `b` in no order
// (its chunks overlap in time: read whole and sorted), `c` with steps; two samples refused.
struct Written
{
    Fixture f;
    TrackId a = 0, b = 0, c = 0;
    std::vector<Want> added;

    Written()
    {
        TraceWriter w(*f.p, f.run, f.source);
        a = w.addTrack(counterTrack("a"));
        b = w.addTrack(counterTrack("b"));
        c = w.addTrack(counterTrack("c"));
        auto add = [&](const Want &s) {
            w.addCounter(s.track, s.ts, s.value, s.step);
            added.push_back(s);
        };
        QRandomGenerator random(74);
        for (int i = 0; i < 10'000; ++i) {
            add({a, TimeNs(i / 3) * 7 + 1'000'000, valueOf(i), std::nullopt});
            if (i < 6'000)
                add({b, TimeNs(random.bounded(2'000)) * 5, valueOf(i + 1), std::nullopt});
            if (i == 70) { // refused: not finite, beyond the time limit
                w.addCounter(c, 5, std::nan(""));
                w.addCounter(c, kMaxAbsTimeNs + 1, 1.0);
            }
        }
        for (int i = 0; i < 40; ++i)
            add({c, TimeNs(40 - i / 2), valueOf(i),
                 i % 4 ? std::nullopt
                       : std::optional<qint64>(i == 8 ? std::numeric_limits<qint64>::max()
                                                      : qint64(i) - 20)});
        QCOMPARE(w.counterCount(), qint64(added.size()));
        QString error;
        QVERIFY2(w.finish({}, &error), qPrintable(error));
        QVERIFY(f.p->commit(&error));
    }

    std::vector<Want> of(TrackId track) const
    {
        std::vector<Want> out;
        for (const Want &s : inTableOrder(added))
            if (s.track == track)
                out.push_back(s);
        return out;
    }
};

} // namespace countertest

using namespace countertest;

class TestCounterStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void samplesComeBackInTimeThenAddedOrder()
    {
        Written w;
        Project &p = *w.f.p;
        const std::string columns = "SELECT track_id, ts, value, step FROM counter";
        compareRows(p, columns, inTableOrder(w.added));
        compareRows(p, columns + " ORDER BY track_id, ts", inTableOrder(w.added));
        QVERIFY(!gmltest::usesTempSort(p, columns + " ORDER BY track_id, ts, rowid"));
        for (TrackId t : {w.a, w.b, w.c}) {
            const std::string one = columns + " WHERE track_id = " + std::to_string(t);
            compareRows(p, one, w.of(t));
            compareRows(p, one + " ORDER BY ts", w.of(t));
            QVERIFY(!gmltest::usesTempSort(p, one + " ORDER BY ts"));
        }
        compareRows(p,
                    columns + " WHERE track_id IN (" + std::to_string(w.c) + ", " +
                        std::to_string(w.a) + ")",
                    [&] {
                        std::vector<Want> both = w.of(w.a);
                        for (const Want &s : w.of(w.c))
                            both.push_back(s);
                        return both;
                    }());
        // Chunks of at most 4,096 samples; the counts and extents of each track are its own.
        QCOMPARE(gmltest::scalar(p, "SELECT count(*) FROM counter_chunk"), 3 + 2 + 1);
        QCOMPARE(gmltest::scalar(p, "SELECT max(count) FROM counter_chunk"),
                 counterstore::kChunkRows);
        const std::string ofB = " FROM track WHERE id = " + std::to_string(w.b);
        QCOMPARE(gmltest::scalar(p, ("SELECT counter_count" + ofB).c_str()), 6'000);
        QCOMPARE(gmltest::scalar(p, ("SELECT start_ns" + ofB).c_str()), w.of(w.b).front().ts);
        QCOMPARE(gmltest::scalar(p, ("SELECT end_ns" + ofB).c_str()), w.of(w.b).back().ts);
        // Rowids are unique and, within a track, follow the order.
        QCOMPARE(gmltest::scalar(p, "SELECT count(DISTINCT rowid) FROM counter"),
                 qint64(w.added.size()));
        // The views read the table as they did.
        QCOMPARE(gmltest::scalar(p, "SELECT count(*) FROM counter_series WHERE series = 'c'"), 40);
        // Nothing writes to the table but the writer.
        QVERIFY(!p.db().exec("INSERT INTO counter(track_id, ts, value) VALUES(1, 1, 1)"));
    }

    // A time range reads exactly the rows a filter over all of them keeps, whatever the bound
    // (an integer, a fraction, text, NULL) and whichever side.
    void timeRangesReadWhatAFilterKeeps()
    {
        Written w;
        Project &p = *w.f.p;
        const std::vector<std::string> ranges = {"ts > 1000",
                                                 "ts >= 1000",
                                                 "ts < 1000",
                                                 "ts <= 1000",
                                                 "ts = 1000",
                                                 "ts BETWEEN 2000 AND 3000",
                                                 "ts > 1000.5",
                                                 "ts < 999.5",
                                                 "ts >= 1010000 AND ts < 1010007",
                                                 "ts > 'text'",
                                                 "ts < 'text'",
                                                 "ts > NULL",
                                                 "ts = 1000.0",
                                                 "ts > 9e18",
                                                 "ts < -9e18",
                                                 "ts > 1023000",
                                                 "ts >= 1000000 AND ts <= 1000000",
                                                 "ts < 37 AND ts >= 35"};
        for (TrackId t : {w.a, w.b, w.c}) {
            for (const std::string &range : ranges) {
                const std::string track = "track_id = " + std::to_string(t);
                // The whole track read, then filtered by SQLite, against the range read by the
                // table (its rows in the same order: compared as one text).
                const std::string all = "WITH t AS MATERIALIZED (SELECT ts, value, rowid AS r "
                                        "FROM counter WHERE " +
                                        track +
                                        ") SELECT group_concat(ts || ':' || value, ',') FROM "
                                        "(SELECT * FROM t WHERE " +
                                        range + " ORDER BY ts, r)";
                const std::string ranged = "SELECT group_concat(ts || ':' || value, ',') FROM "
                                           "(SELECT ts, value FROM counter WHERE " +
                                           track + " AND " + range + ")";
                auto expected = p.db().prepare(all), got = p.db().prepare(ranged);
                QVERIFY(expected.step() && got.step());
                QVERIFY2(expected.text(0) == got.text(0) && expected.isNull(0) == got.isNull(0),
                         (range + " on track " + std::to_string(t)).c_str());
            }
        }
    }

    // Version 16: a version 15 project's samples, in its table, come back from the chunks in
    // the order the index gave them (ties in the order inserted), steps and values alike.
    void migratesVersion15()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v15.grademl"));
        std::vector<Want> want;
        {
            SqliteDb db;
            QString e;
            QVERIFY(db.open(path, false, &e));
            const QString schemaError = gmltest::writeSchema(db, 15);
            QVERIFY2(schemaError.isEmpty(), qPrintable(schemaError));
            QVERIFY(db.exec("INSERT INTO run(id, name) VALUES(1, 'r');"
                            "INSERT INTO source(id, run_id, path, format, status) VALUES(1, 1, "
                            "'x', 'test', 'imported');"
                            "INSERT INTO track(id, run_id, source_id, kind, name) VALUES(1, 1, 1, "
                            "4, 'a'), (2, 1, 1, 4, 'b');"));
            auto insert = db.prepare("INSERT INTO counter(track_id, ts, value, step) "
                                     "VALUES(?,?,?,?)");
            QRandomGenerator random(15);
            std::vector<Want> added;
            QVERIFY(db.exec("BEGIN"));
            for (int i = 0; i < 9'000; ++i) {
                const Want s{TrackId(1 + i % 2), TimeNs(random.bounded(3'000)), valueOf(i),
                             i % 5 ? std::nullopt : std::optional<qint64>(i)};
                insert.bind(1, s.track);
                insert.bind(2, s.ts);
                insert.bind(3, s.value);
                if (s.step)
                    insert.bind(4, *s.step);
                else
                    insert.bindNull(4);
                QVERIFY(insert.exec());
                insert.reset();
                added.push_back(s);
            }
            QVERIFY(db.exec("COMMIT"));
            // -0 is stored by SQLite as 0 (a REAL column's integer form): expect what it gives.
            for (Want &s : added)
                if (s.value == 0)
                    s.value = 0.0;
            want = inTableOrder(added);
            // The index's order is the one promised.
            auto st = db.prepare("SELECT track_id, ts, value, step FROM counter INDEXED BY "
                                 "counter_track_ts WHERE track_id > 0 ORDER BY track_id, ts");
            for (const Want &s : want) {
                QVERIFY(st.step());
                QCOMPARE(st.int64(0), s.track);
                QCOMPARE(st.int64(1), s.ts);
            }
        }
        QString error;
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->schemaVersion(), schema::currentVersion());
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM sqlite_master WHERE name = 'counter' "
                                     "AND sql LIKE 'CREATE VIRTUAL TABLE%'"),
                 1);
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM counter_chunk"), 4);
        compareRows(*p, "SELECT track_id, ts, value, step FROM counter", want);
    }

    // A followed log is written a poll at a time (TraceWriter::resume): each poll's samples go
    // into the track's last chunk while it has room and they come after it, so the project does
    // not grow a chunk a poll; samples from before it get a chunk of their own, read in order.
    void pollsFillTheLastChunk()
    {
        Fixture f;
        std::vector<Want> added;
        QString error;
        auto poll = [&](std::initializer_list<TimeNs> times) {
            if (!f.p->db().inTransaction())
                QVERIFY(f.p->begin(&error));
            TraceWriter w(*f.p, f.run, f.source);
            if (!added.empty())
                QVERIFY2(w.resume(&error), qPrintable(error));
            const TrackId t = w.addTrack(counterTrack("gpu"));
            for (TimeNs ts : times) {
                w.addCounter(t, ts, double(ts) / 4);
                added.push_back({t, ts, double(ts) / 4, std::nullopt});
            }
            QVERIFY2(w.finish({}, &error), qPrintable(error));
            QVERIFY(f.p->commit(&error));
        };
        poll({10, 20, 30});
        poll({30, 40});
        poll({50, 45});
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM counter_chunk"), 1);
        QCOMPARE(gmltest::scalar(*f.p, "SELECT max_ts FROM counter_chunk"), 50);
        poll({5, 60}); // starts before the chunk ends
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM counter_chunk"), 2);
        compareRows(*f.p, "SELECT track_id, ts, value, step FROM counter", inTableOrder(added));
        QCOMPARE(gmltest::scalar(*f.p, "SELECT counter_count FROM track"), 9);
    }

    // A damaged chunk is an error naming it, never rows made up; every cut of a good blob and
    // a byte too many are refused by the codec.
    void damagedChunkIsAnError()
    {
        std::vector<counterstore::Sample> samples;
        for (int i = 0; i < 50; ++i)
            samples.push_back(
                {TimeNs(i) * 1000 - 7, valueOf(i), i % 7 ? counterstore::kNoStep : i});
        std::string blob;
        counterstore::encode(samples, blob);
        std::vector<counterstore::Sample> back;
        QVERIFY(counterstore::decode(blob, back));
        QCOMPARE(back.size(), samples.size());
        for (size_t n = 0; n < blob.size(); ++n) {
            std::vector<counterstore::Sample> none;
            QVERIFY2(!counterstore::decode(std::string_view(blob).substr(0, n), none),
                     qPrintable(QStringLiteral("a blob cut at %1 bytes").arg(n)));
            QVERIFY(none.empty());
        }
        QVERIFY(!counterstore::decode(blob + '\0', back));
        QCOMPARE(back.size(), samples.size()); // left as it was

        Fixture f;
        TraceWriter w(*f.p, f.run, f.source);
        const TrackId t = w.addTrack(counterTrack("t"));
        w.addCounter(t, 1, 2.5);
        QString error;
        QVERIFY(w.finish({}, &error));
        QVERIFY(f.p->commit(&error));
        QVERIFY(f.p->db().exec("UPDATE counter_chunk SET data = x'0100ff'"));
        auto st = f.p->db().prepare("SELECT count(*) FROM counter");
        QVERIFY(!st.step());
        QVERIFY2(st.errorString().contains(QLatin1String("counter chunk 1 is malformed")),
                 qPrintable(st.errorString()));
    }
};

QTEST_GUILESS_MAIN(TestCounterStore)
#include "tst_counterstore.moc"
