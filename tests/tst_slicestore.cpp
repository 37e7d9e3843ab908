// SPDX-License-Identifier: GPL-3.0-or-later
// The chunked slice and flow store (schema v3, args records v4): what goes in through
// TraceWriter comes back through SQL over `slice` and `flow` with the same values, in the order
// the virtual tables promise, by every access path; args come back as the same JSON; v2 and v3
// projects migrate with their flows intact; a damaged chunk is an error that names it.
#include "project.h"
#include "schema.h"
#include "slicestore.h"
#include "testutil.h"
#include "tracewriter.h"

#include <QRandomGenerator>
#include <QTest>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

using namespace gml;

namespace {

// What args come back as: the same JSON with the whitespace between members dropped.
QString compact(int i)
{
    return QStringLiteral(R"J({"i":%1,"s":"ü"})J").arg(i);
}

struct Expected
{
    TrackId track;
    TimeNs ts, dur;
    StringId name, cat;
    qint64 corr, ext;
    QString args; // null: none
};

// One row of `SELECT id, track_id, ts, dur, name_id, cat_id, correlation, external_id, args`.
QString rowText(SqliteStatement &st)
{
    QStringList f;
    for (int c = 1; c < 9; ++c)
        f << (st.isNull(c) ? QStringLiteral("NULL") : st.text(c));
    return f.join(QLatin1Char('|'));
}

QString expectedText(const Expected &e)
{
    auto opt = [](qint64 v) { return v == kNoId ? QStringLiteral("NULL") : QString::number(v); };
    return QStringList{QString::number(e.track),
                       QString::number(e.ts),
                       QString::number(e.dur),
                       QString::number(e.name),
                       e.cat ? QString::number(e.cat) : QStringLiteral("NULL"),
                       opt(e.corr),
                       opt(e.ext),
                       e.args.isNull() ? QStringLiteral("NULL") : e.args}
        .join(QLatin1Char('|'));
}

TrackSpec spec(TrackKind kind, const char *name)
{
    TrackSpec s;
    s.kind = kind;
    s.name = QString::fromLatin1(name);
    return s;
}

using Fixture = gmltest::WriterFixture;

} // namespace

class TestSliceStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // 10,000 slices on two interleaved tracks, arriving out of order, with every column null
    // and not null: two chunks for one track, one for the other.
    void roundTripsEveryColumnByEveryPath()
    {
        Fixture f;
        TraceWriter w(*f.p, f.run, f.source);
        const TrackId a = w.addTrack(spec(TrackKind::Thread, "a"));
        const TrackId b = w.addTrack(spec(TrackKind::Stream, "b"));
        std::map<SliceId, Expected> want;
        QRandomGenerator rng(7);
        std::vector<std::string> args; // TraceWriter does not copy args past addSlice
        for (int i = 0; i < 10000; ++i) {
            const TrackId t = i % 3 ? a : b;
            Expected e{t,
                       TimeNs(rng.bounded(1'000'000)) * 1000 - 5'000,
                       TimeNs(rng.bounded(100)) * 7,
                       StringId(1 + i % 17),
                       i % 5 ? StringId(2) : 0,
                       i % 4 ? qint64(i) - 3 : kNoId,
                       i % 6 ? qint64(rng.bounded(1 << 30)) << 20 : kNoId,
                       {}};
            if (i % 7 == 0) {
                args.emplace_back(QStringLiteral(R"J({"i": %1, "s": "ü"})J").arg(i).toStdString());
                e.args = compact(i);
            }
            const SliceId id = w.addSlice(t, e.ts, e.dur, e.name, e.cat, e.corr, e.ext,
                                          e.args.isNull() ? std::string_view{} : args.back());
            QVERIFY(want.emplace(id, e).second); // ids are unique
            QVERIFY(id > 0);
        }
        QString error;
        QVERIFY2(w.finish({}, &error), qPrintable(error));
        QVERIFY(f.p->commit(&error));

        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM slice"), 10000);
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM slice_chunk"),
                 3); // 6,667 + 3,333 rows
        QCOMPARE(gmltest::scalar(*f.p, "SELECT sum(count) FROM slice_chunk"), 10000);

        // By id, for every id handed out.
        auto byId = f.p->db().prepare("SELECT id, track_id, ts, dur, name_id, cat_id, correlation, "
                                      "external_id, args FROM slice WHERE id = ?");
        for (const auto &[id, e] : want) {
            byId.bind(1, id);
            QVERIFY(byId.step());
            QCOMPARE(byId.int64(0), id);
            QCOMPARE(rowText(byId), expectedText(e));
            QVERIFY(!byId.step());
            byId.reset();
        }
        // Ids never handed out, and keys that are not integers, match nothing.
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM slice WHERE id = 0"), 0);
        QCOMPARE(gmltest::scalar(
                     *f.p, "SELECT count(*) FROM slice WHERE id = (SELECT max(id) FROM slice) + 1"),
                 0);
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM slice WHERE id = 'x'"), 0);
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM slice WHERE track_id = NULL"), 0);

        // By track, in (ts, dur descending, id) order without a sort step of SQLite's.
        for (const TrackId t : {a, b}) {
            std::vector<std::pair<SliceId, Expected>> rows;
            for (const auto &kv : want)
                if (kv.second.track == t)
                    rows.push_back(kv);
            std::sort(rows.begin(), rows.end(), [](const auto &x, const auto &y) {
                return std::tuple(x.second.ts, -x.second.dur, x.first) <
                       std::tuple(y.second.ts, -y.second.dur, y.first);
            });
            const std::string sql =
                "SELECT id, track_id, ts, dur, name_id, cat_id, correlation, external_id, "
                "args FROM slice WHERE track_id = ? ORDER BY ts, dur DESC, id";
            QVERIFY(!gmltest::usesTempSort(*f.p, sql));
            auto st = f.p->db().prepare(sql);
            st.bind(1, t);
            size_t k = 0;
            for (; st.step(); ++k) {
                QVERIFY(k < rows.size());
                QCOMPARE(st.int64(0), rows[k].first);
                QCOMPARE(rowText(st), expectedText(rows[k].second));
            }
            QCOMPARE(k, rows.size());
        }
        // A full scan comes in (track, ts) order too.
        QVERIFY(
            !gmltest::usesTempSort(*f.p, "SELECT track_id, ts FROM slice ORDER BY track_id, ts"));
        auto scan = f.p->db().prepare("SELECT track_id, ts, dur FROM slice");
        std::tuple<qint64, qint64, qint64> last{-1, 0, 0};
        int n = 0;
        for (; scan.step(); ++n) {
            const std::tuple<qint64, qint64, qint64> cur{scan.int64(0), scan.int64(1),
                                                         -scan.int64(2)};
            QVERIFY(last <= cur);
            last = cur;
        }
        QCOMPARE(n, 10000);
        // Aggregates and json over the virtual table work like over a table.
        QCOMPARE(gmltest::scalar(*f.p,
                                 "SELECT count(*) FROM slice WHERE json_extract(args, '$.i') = 70"),
                 1);
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM slice WHERE correlation IS NULL"),
                 2500);
        // Deleting the source deletes its chunks.
        QVERIFY(f.p->begin(&error));
        QVERIFY2(f.p->deleteSource(f.source, &error), qPrintable(error));
        QVERIFY(f.p->commit(&error));
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM slice"), 0);
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM slice_chunk"), 0);
    }

    void flowsByEveryPath()
    {
        Fixture f;
        TraceWriter w(*f.p, f.run, f.source);
        const TrackId t = w.addTrack(spec(TrackKind::Thread, "t"));
        std::vector<SliceId> s;
        for (int i = 0; i < 6000; ++i)
            s.push_back(w.addSlice(t, i * 10, 5, 1, 0));
        // 5,000 flows: slice i -> slice i+1000 (kind 1), and slice 0 -> slice 5 (kind 7).
        for (int i = 0; i < 4999; ++i)
            w.addFlow(FlowKind(1), s[size_t(i)], s[size_t(i) + 1000]);
        w.addFlow(FlowKind(7), s[0], s[5]);
        QString error;
        QVERIFY2(w.finish({}, &error), qPrintable(error));
        QVERIFY(f.p->commit(&error));
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM flow"), 5000);
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM flow_chunk"), 2);
        auto from =
            f.p->db().prepare("SELECT kind, to_slice FROM flow WHERE from_slice = ? ORDER BY kind");
        from.bind(1, s[0]);
        QVERIFY(from.step());
        QCOMPARE(from.int64(1), s[1000]);
        QVERIFY(from.step());
        QCOMPARE(from.int64(0), 7);
        QCOMPARE(from.int64(1), s[5]);
        QVERIFY(!from.step());
        auto to = f.p->db().prepare("SELECT from_slice FROM flow WHERE to_slice = ?");
        to.bind(1, s[4500]);
        QVERIFY(to.step());
        QCOMPARE(to.int64(0), s[3500]);
        QVERIFY(!to.step());
        // A join from flows to slices reads each endpoint by id.
        QCOMPARE(gmltest::scalar(*f.p,
                                 "SELECT count(*) FROM flow f JOIN slice a ON a.id = f.from_slice "
                                 "JOIN slice b ON b.id = f.to_slice WHERE b.ts - a.ts = 10000"),
                 4999);
        QCOMPARE(gmltest::scalar(*f.p, "SELECT count(*) FROM flow WHERE source_id = 1"), 5000);
        const qint64 someId = gmltest::scalar(*f.p, "SELECT max(id) FROM flow");
        QCOMPARE(f.p->db().scalar("SELECT count(*) FROM flow WHERE id = " + std::to_string(someId)),
                 1);
    }

    // Args come back as the JSON that went in, whatever its shape; an object is split into
    // members over the chunk's key and value tables (and is much smaller stored), anything
    // else is kept as it was.
    void argsComeBackAsTheSameJson()
    {
        Fixture f;
        TraceWriter w(*f.p, f.run, f.source);
        const TrackId t = w.addTrack(spec(TrackKind::Thread, "t"));
        const QString longText = QString(200, QLatin1Char('x'));
        const std::vector<std::pair<QString, QString>> cases = {
            {QStringLiteral(R"J({})J"), QStringLiteral(R"J({})J")},
            {QStringLiteral(" { \n } "), QStringLiteral("{}")},
            {QStringLiteral(
                 R"J({"a": 1, "b": -2, "c": 0, "d": -0, "e": 007, "f": 123456789012345678901})J"),
             QStringLiteral(R"J({"a":1,"b":-2,"c":0,"d":-0,"e":007,"f":123456789012345678901})J")},
            {QStringLiteral(R"J({"x": 2.5, "y": 1e-3, "z": true, "w": false, "v": null})J"),
             QStringLiteral(R"J({"x":2.5,"y":1e-3,"z":true,"w":false,"v":null})J")},
            {QStringLiteral("{\"grid\": [160, 1, 1], \"o\": {\"k\": [1, {\"q\": \"}\"}]}, "
                            "\"grid\": [160, 1, 1]}"),
             QStringLiteral(
                 "{\"grid\":[160, 1, 1],\"o\":{\"k\": [1, {\"q\": \"}\"}]},\"grid\":[160, 1, 1]}")},
            {QStringLiteral(
                 "{\"esc \\\"key\\\"\": \"a\\\"b\\\\\", \"u\": \"\\u00fc\", \"long\": \"%1\"}")
                 .arg(longText),
             QStringLiteral(
                 "{\"esc \\\"key\\\"\":\"a\\\"b\\\\\",\"u\":\"\\u00fc\",\"long\":\"%1\"}")
                 .arg(longText)},
            {QStringLiteral("[1, 2]"), QStringLiteral("[1, 2]")},
            {QStringLiteral("42"), QStringLiteral("42")},
            {QStringLiteral(R"J({"a": 1} trailing)J"), QStringLiteral(R"J({"a": 1} trailing)J")},
            {QStringLiteral(R"J({"a": 1,)J"), QStringLiteral(R"J({"a": 1,)J")},
            {QStringLiteral(R"J({"a" 1})J"), QStringLiteral(R"J({"a" 1})J")},
        };
        std::vector<std::string> texts;
        for (const auto &c : cases)
            texts.push_back(c.first.toStdString());
        std::vector<SliceId> ids;
        for (size_t i = 0; i < texts.size(); ++i)
            ids.push_back(w.addSlice(t, TimeNs(i), 1, 1, 0, kNoId, kNoId, texts[i]));
        // Kineto-like kernel args, many times: stored far smaller than their text.
        const std::string kernel =
            R"J({"queued": 0, "device": 0, "context": 1, "stream": 7, )J"
            R"J("correlation": %1, "registers per thread": 128, )J"
            R"J("shared memory": 49152, "blocks per SM": 2.5, "warps per SM": 10, )J"
            R"J("grid": [160, 1, 1], "block": [256, 1, 1], )J"
            R"J("est. achieved occupancy %": 50, "External id": %2})J";
        qint64 textBytes = 0;
        const TrackId k = w.addTrack(spec(TrackKind::Stream, "k"));
        for (int i = 0; i < 3000; ++i) {
            const std::string a =
                QString::fromStdString(kernel).arg(1000 + i).arg(5000 + i).toStdString();
            textBytes += qint64(a.size());
            w.addSlice(k, i, 1, 2, 0, kNoId, kNoId, a);
        }
        QString error;
        QVERIFY2(w.finish({}, &error), qPrintable(error));
        QVERIFY(f.p->commit(&error));
        auto st = f.p->db().prepare("SELECT args FROM slice WHERE id = ?");
        for (size_t i = 0; i < cases.size(); ++i) {
            st.bind(1, ids[i]);
            QVERIFY(st.step());
            QCOMPARE(st.text(0), cases[i].second);
            st.reset();
        }
        QCOMPARE(gmltest::text(*f.p, QStringLiteral("SELECT json_extract(args, '$.o.k[1].q') FROM "
                                                    "slice WHERE ts = 4 AND track_id = %1")
                                         .arg(t)),
                 QStringLiteral("}"));
        QCOMPARE(gmltest::scalar(
                     *f.p, "SELECT sum(json_extract(args, '$.correlation') - 1000) FROM slice "
                           "WHERE name_id = 2"),
                 2999 * 3000 / 2);
        QCOMPARE(gmltest::text(
                     *f.p, QStringLiteral("SELECT args FROM slice WHERE name_id = 2 AND ts = 7")),
                 QStringLiteral(
                     R"J({"queued":0,"device":0,"context":1,"stream":7,"correlation":1007,)J"
                     R"J("registers per thread":128,"shared memory":49152,"blocks per SM":2.5,)J"
                     R"J("warps per SM":10,"grid":[160, 1, 1],"block":[256, 1, 1],)J"
                     R"J("est. achieved occupancy %":50,"External id":5007})J"));
        const qint64 stored =
            gmltest::scalar(*f.p, ("SELECT sum(length(args)) FROM slice_chunk WHERE track_id = " +
                                   std::to_string(k))
                                      .c_str());
        QVERIFY2(stored * 6 < textBytes,
                 qPrintable(
                     QStringLiteral("%1 bytes stored for %2 of text").arg(stored).arg(textBytes)));
    }

    // Several args asked at once (TrackReader::args and argNumbers, one pass over a row's
    // record) give what each asked alone gives: integers, text, arrays, objects, repeated
    // keys (the first wins), absent keys, keys no row of the chunk has, args that are not an
    // object, and rows with none.
    void severalArgsAtOnceAsEachAlone()
    {
        Fixture f;
        TraceWriter w(*f.p, f.run, f.source);
        const TrackId t = w.addTrack(spec(TrackKind::Thread, "t"));
        // (plain literals: moc reads raw ones as plain strings and miscounts the braces)
        const std::vector<std::string> texts = {
            "{\"Bytes\": 512, \"Device Type\": 1, \"Device Id\": 0, \"Addr\": 94000000000000, "
            "\"Total Allocated\": 1.5e9, \"Total Reserved\": 2e9}",
            "{\"Bytes\": -512, \"Device Id\": 3, \"Total Allocated\": -1, \"Addr\": \"0x1f\"}",
            "{\"Input Dims\": [[2, 3], []], \"Input type\": [\"float\", \"\"], \"flops\": 12}",
            "{\"Input Dims\": [[4]], \"Concrete Inputs\": [\"\", \"1\"], \"flops\": 1e400}",
            "{\"grid\": [1, 2], \"grid\": [3, 4], \"a\": 1, \"a\": \"two\", \"o\": {\"a\": 5}}",
            "{\"x\": 2.5, \"y\": 1e-3, \"z\": true, \"v\": null, \"s\": \"a \\\"q\\\"\"}",
            "{}",
            "[1, 2]",
            "42",
            "{\"a\": 1,",
        };
        for (size_t i = 0; i < texts.size(); ++i)
            w.addSlice(t, TimeNs(i), 1, 1, 0, kNoId, kNoId, texts[i]);
        w.addSlice(t, TimeNs(texts.size()), 1, 1, 0, kNoId, kNoId, {});
        QString error;
        QVERIFY2(w.finish({}, &error), qPrintable(error));
        QVERIFY(f.p->commit(&error));
        const std::vector<std::string_view> keys = {
            "Bytes", "Device Type", "Device Id", "Total Allocated", "Total Reserved", "Addr",
            "grid",  "a",           "o",         "missing"};
        const std::vector<std::string_view> more = {
            "Input Dims", "Input type", "Concrete Inputs", "flops", "x", "z", "v", "s"};
        // What each row holds, written out here (the reference both reads are checked
        // against): a value's JSON text as written, the first of a repeated key, nothing of a
        // row whose args are not an object or are malformed.
        const std::vector<std::map<std::string, std::string>> holds = {
            {{"Bytes", "512"},
             {"Device Type", "1"},
             {"Device Id", "0"},
             {"Addr", "94000000000000"},
             {"Total Allocated", "1.5e9"},
             {"Total Reserved", "2e9"}},
            {{"Bytes", "-512"},
             {"Device Id", "3"},
             {"Total Allocated", "-1"},
             {"Addr", "\"0x1f\""}},
            {{"Input Dims", "[[2, 3], []]"}, {"Input type", "[\"float\", \"\"]"}, {"flops", "12"}},
            {{"Input Dims", "[[4]]"}, {"Concrete Inputs", "[\"\", \"1\"]"}, {"flops", "1e400"}},
            {{"grid", "[1, 2]"}, {"a", "1"}, {"o", "{\"a\": 5}"}},
            {{"x", "2.5"}, {"z", "true"}, {"v", "null"}, {"s", "\"a \\\"q\\\"\""}},
            {},
            {},
            {},
            {},
            {},
        };
        // argNumber's rule: the text as a finite number.
        auto numberOf = [](const std::string &text) -> std::optional<double> {
            double d = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
            if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(d))
                return std::nullopt;
            return d;
        };
        slicestore::TrackReader reader(f.p->db());
        int rows = 0, found = 0;
        QVERIFY(reader.read(t, true, [&](const slicestore::Row &x) {
            const auto &held = holds.at(size_t(rows));
            ++rows;
            for (const auto &asked : {keys, more, std::vector<std::string_view>{"a", "a", "o"}}) {
                const size_t n = std::min(asked.size(), slicestore::TrackReader::kMaxArgKeys);
                std::vector<std::optional<std::string_view>> many(n);
                std::vector<std::optional<double>> numbers(n);
                reader.argNumbers(x, std::span(asked).first(n), numbers);
                reader.args(x, std::span(asked).first(n), many);
                for (size_t i = 0; i < n; ++i) {
                    const auto it = held.find(std::string(asked[i]));
                    const std::optional<std::string> want =
                        it == held.end() ? std::nullopt : std::optional(it->second);
                    const auto wantNumber = want ? numberOf(*want) : std::nullopt;
                    const auto one = reader.arg(x, asked[i]);
                    const auto show = [&](const std::optional<std::string_view> &v) {
                        return QStringLiteral("row %1, %2: %3")
                            .arg(rows - 1)
                            .arg(QString::fromUtf8(asked[i].data(), qsizetype(asked[i].size())),
                                 v ? QString::fromUtf8(v->data(), qsizetype(v->size()))
                                   : QStringLiteral("none"));
                    };
                    QVERIFY2(one == want, qPrintable(show(one)));
                    QVERIFY2(many[i] == want, qPrintable(show(many[i])));
                    found += one.has_value();
                    QCOMPARE(reader.argNumber(x, asked[i]), wantNumber);
                    QCOMPARE(numbers[i], wantNumber);
                }
            }
        }));
        QCOMPARE(rows, int(texts.size()) + 1);
        QVERIFY2(found > 20, qPrintable(QString::number(found)));
    }

    // Args handed over as the parser split them encode to the same records and tables as
    // their text scanned again: escaped keys and strings, nested containers holding braces
    // and quotes, every kind of number and literal, repeated keys, an empty object.
    void splitArgsEncodeAsTheirText()
    {
        using slicestore::ArgMember;
        const std::vector<std::pair<std::string, std::vector<ArgMember>>> cases = {
            {"{ }", {}},
            {R"J({"a": 1, "b": -2, "c": 0, "d": -0, "e": 007, "f": 123456789012345678901})J",
             {{"a", "1"},
              {"b", "-2"},
              {"c", "0"},
              {"d", "-0"},
              {"e", "007"},
              {"f", "123456789012345678901"}}},
            {R"J({"x": 2.5,"y":1e-3 , "z": true, "w": false, "v": null})J",
             {{"x", "2.5"}, {"y", "1e-3"}, {"z", "true"}, {"w", "false"}, {"v", "null"}}},
            // (plain literals: moc reads raw ones as plain strings and miscounts the braces)
            {"{\"grid\": [160, 1, 1], \"o\": {\"k\": [1, {\"q\": \"}\\\"\"}]}, "
             "\"grid\": [160, 1, 1]}",
             {{"grid", "[160, 1, 1]"},
              {"o", "{\"k\": [1, {\"q\": \"}\\\"\"}]}"},
              {"grid", "[160, 1, 1]"}}},
            {"{\"esc \\\"key\\\"\": \"a\\\"b\\\\\", \"u\": \"\\u00fc\", \"stream\": 7}",
             {{"esc \\\"key\\\"", "\"a\\\"b\\\\\""}, {"u", "\"\\u00fc\""}, {"stream", "7"}}},
        };
        slicestore::ArgsEncoder byText, bySplit;
        std::string textRecords, splitRecords;
        for (int round = 0; round < 2;
             ++round) { // the second round meets every key and value again
            for (const auto &[text, members] : cases) {
                slicestore::Row a, b;
                byText.add(text, textRecords, a);
                bySplit.add(std::span<const ArgMember>(members), splitRecords, b);
                QCOMPARE(b.argsOffset, a.argsOffset);
                QCOMPARE(b.argsSize, a.argsSize);
            }
        }
        QVERIFY(splitRecords == textRecords);
        std::string textTables, splitTables;
        byText.writeTables(textTables);
        bySplit.writeTables(splitTables);
        QVERIFY(splitTables == textTables);
    }

    // A version 3 project (args kept as JSON texts in the chunk) opens as version 4 with the
    // same ids and the same args.
    void migratesVersion3()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v3.grademl"));
        {
            SqliteDb db;
            QString e;
            QVERIFY(db.open(path, false, &e));
            QVERIFY2(slicestore::registerModule(db.handle(), &e), qPrintable(e));
            const QString schemaError = gmltest::writeSchema(db, 3);
            QVERIFY2(schemaError.isEmpty(), qPrintable(schemaError));
            QVERIFY(db.exec(
                "DROP TABLE slice; DROP TABLE flow; CREATE VIRTUAL TABLE slice USING gml_slice;"
                "CREATE VIRTUAL TABLE flow USING gml_flow;"));
            // One chunk in format 1: row 0 (ts 100, dur 20, name 1, args {"a": 1}) and row 1
            // (ts 500, dur 20, name 2, correlation 7, no args).
            QVERIFY(db.exec(
                "INSERT INTO run(id, name) VALUES(1, 'r');"
                "INSERT INTO source(id, run_id, path, format, status) VALUES(1, 1, 'x', 'test', "
                "'imported');"
                "INSERT INTO track(id, run_id, source_id, kind, name) VALUES(1, 1, 1, 0, 't');"
                "INSERT INTO slice_chunk VALUES(1, 1, 2, 100, 520, "
                "x'0100C80128010000000901A0062802000F0000', CAST('{\"a\": 1}' AS BLOB));"));
        }
        QString error;
        {
            // Opened read-only it is not migrated, and reads as it is.
            auto ro = Project::open(path, Project::Mode::ReadOnly, &error);
            QVERIFY2(ro, qPrintable(error));
            QCOMPARE(ro->schemaVersion(), 3);
            QCOMPARE(
                gmltest::text(*ro, QStringLiteral(
                                       "SELECT group_concat(id || ':' || coalesce(args, '-'), ' ') "
                                       "FROM (SELECT * FROM slice ORDER BY ts)")),
                QStringLiteral("4096:{\"a\": 1} 4097:-"));
            // Its args asked several at once come back as asked alone.
            slicestore::TrackReader reader(ro->db());
            std::vector<std::string> seen;
            QVERIFY(reader.read(1, true, [&](const slicestore::Row &x) {
                static constexpr std::string_view kKeys[] = {"b", "a"};
                std::optional<std::string_view> texts[2];
                std::optional<double> numbers[2];
                reader.args(x, kKeys, texts);
                reader.argNumbers(x, kKeys, numbers);
                seen.push_back(std::string(texts[1].value_or("-")) + ' ' +
                               std::to_string(numbers[1].value_or(-1)) + ' ' +
                               std::string(texts[0].value_or("-")));
            }));
            QCOMPARE(seen.size(), size_t(2));
            QCOMPARE(seen[0], std::string("1 1.000000 -"));
            QCOMPARE(seen[1], std::string("- -1.000000 -"));
        }
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->schemaVersion(), schema::currentVersion());
        QCOMPARE(
            gmltest::text(
                *p,
                QStringLiteral(
                    "SELECT group_concat(id || ':' || ts || ':' || dur || ':' || name_id || ':' || "
                    "coalesce(correlation, '-') || ':' || coalesce(args, '-'), ' ') "
                    "FROM (SELECT * FROM slice ORDER BY ts)")),
            QStringLiteral("4096:100:20:1:-:{\"a\":1} 4097:500:20:2:7:-"));
        QCOMPARE(gmltest::scalar(*p, "SELECT hex(substr(data, 1, 1)) FROM slice_chunk"), 2);
    }

    // A version 2 project (one row per slice and per flow) opens as the current version with
    // the same slices and the same flows between them.
    void migratesVersion2()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v2.grademl"));
        {
            SqliteDb db;
            QString e;
            QVERIFY(db.open(path, false, &e));
            const QString schemaError = gmltest::writeSchema(db, 2);
            QVERIFY2(schemaError.isEmpty(), qPrintable(schemaError));
            QVERIFY(db.exec(
                "INSERT INTO run(id, name) VALUES(1, 'r');"
                "INSERT INTO source(id, run_id, path, format, status) VALUES(1, 1, 'x', 'test', "
                "'imported');"
                "INSERT INTO string(id, value) VALUES(1, 'launch'), (2, 'kernel');"
                "INSERT INTO track(id, run_id, source_id, kind, name) VALUES(1, 1, 1, 0, 't'), (2, "
                "1, 1, 0, 'g');"
                "INSERT INTO slice VALUES(10, 1, 500, 20, 1, NULL, 7, NULL, '{\"a\": 1}');"
                "INSERT INTO slice VALUES(11, 2, 900, 30, 2, 2, 7, 3, NULL);"
                "INSERT INTO slice VALUES(12, 1, 100, 20, 1, NULL, 8, NULL, NULL);"
                "INSERT INTO flow(source_id, kind, from_slice, to_slice) VALUES(1, 1, 10, 11);"));
        }
        QString error;
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->schemaVersion(), schema::currentVersion());
        QCOMPARE(gmltest::scalar(
                     *p, "SELECT count(*) FROM sqlite_master WHERE name IN ('slice', 'flow') "
                         "AND sql LIKE 'CREATE VIRTUAL TABLE%'"),
                 2);
        QCOMPARE(gmltest::scalar(
                     *p, "SELECT count(*) FROM sqlite_master WHERE name IN ('slice_track_ts', "
                         "'flow_from', 'flow_to', 'flow_source')"),
                 0); // went with the tables
        QCOMPARE(gmltest::text(
                     *p, QStringLiteral(
                             "SELECT group_concat(ts || ':' || dur || ':' || name_id || ':' || "
                             "coalesce(cat_id, '-') || ':' || correlation || ':' || "
                             "coalesce(external_id, '-') || ':' || coalesce(args, '-'), ' ') "
                             "FROM (SELECT * FROM slice ORDER BY ts)")),
                 QStringLiteral("100:20:1:-:8:-:- 500:20:1:-:7:-:{\"a\":1} 900:30:2:2:7:3:-"));
        QCOMPARE(
            gmltest::text(
                *p,
                QStringLiteral(
                    "SELECT a.ts || '>' || b.ts FROM flow f JOIN slice a ON a.id = f.from_slice "
                    "JOIN slice b ON b.id = f.to_slice")),
            QStringLiteral("500>900"));
        QCOMPARE(gmltest::text(*p, QStringLiteral("SELECT name FROM slice_abs WHERE ts = 900")),
                 QStringLiteral("kernel"));
    }

    void damagedChunkIsAnError()
    {
        Fixture f;
        TraceWriter w(*f.p, f.run, f.source);
        const TrackId t = w.addTrack(spec(TrackKind::Thread, "t"));
        w.addSlice(t, 1, 2, 1, 0, kNoId, kNoId, R"J({"a": 1})J");
        QString error;
        QVERIFY(w.finish({}, &error));
        QVERIFY(f.p->commit(&error));
        // A damaged args blob: its tables, or a record that points past them.
        for (const char *args : {"x'01ff'", "x'0101016100'"}) {
            QVERIFY(f.p->db().exec(std::string("UPDATE slice_chunk SET args = ") + args));
            auto st = f.p->db().prepare("SELECT args FROM slice");
            QVERIFY(!st.step());
            QVERIFY2(st.errorString().contains(QLatin1String("slice chunk 1 is malformed")),
                     qPrintable(st.errorString()));
        }
        QVERIFY(f.p->db().exec("UPDATE slice_chunk SET data = x'02ff'"));
        auto st = f.p->db().prepare("SELECT count(*) FROM slice");
        QVERIFY(!st.step());
        QVERIFY2(st.errorString().contains(QLatin1String("slice chunk 1 is malformed")),
                 qPrintable(st.errorString()));
    }
};

QTEST_GUILESS_MAIN(TestSliceStore)
#include "tst_slicestore.moc"
