// SPDX-License-Identifier: GPL-3.0-or-later
// The Chrome trace / Kineto importer on small traces written by the test itself: each phase,
// each Kineto convention, the tolerant forms, and one test per kind of bad input.
#include "badinputs.h"
#include "contenthash.h"
#include "folderscanner.h"
#include "importjob.h"
#include "project.h"
#include "testutil.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gml;

namespace {

struct Fixture
{
    QTemporaryDir dir;
    std::unique_ptr<Project> project;

    Fixture()
    {
        QString error;
        project = Project::open(dir.filePath(QStringLiteral("p.grademl")), Project::Mode::ReadWrite,
                                &error);
        if (!project)
            qFatal("%s", qPrintable(error));
    }
    QString write(const QString &name, const QByteArray &bytes)
    {
        return gmltest::writeFile(dir, name, bytes);
    }
    SourceReport import(const QString &path, const QString &run = QStringLiteral("run"))
    {
        QStringList errors;
        const auto files = scanInputs({path}, run, &errors);
        if (files.size() != 1)
            qFatal("scan of %s gave %d files", qPrintable(path), int(files.size()));
        ImportJob job(*project);
        return job.run(files).first();
    }
    SourceReport importText(const QByteArray &json, const QString &name = QStringLiteral("t.json"))
    {
        return import(write(name, json));
    }
    qint64 count(const QString &sql) { return project->db().scalar(sql.toStdString(), -1); }
    QString str(const QString &sql) { return gmltest::text(*project, sql); }
    QJsonArray warnings(const QString &path)
    {
        return QJsonDocument::fromJson(
                   str(QStringLiteral("SELECT warnings FROM source WHERE path='%1'").arg(path))
                       .toUtf8())
            .array();
    }
    QString warningText(const QString &path)
    {
        QStringList all;
        for (const auto &w : warnings(path))
            all << w.toObject().value(QStringLiteral("message")).toString();
        return all.join(QLatin1Char('\n'));
    }
};

QByteArray kineto(const QByteArray &events, const QByteArray &extraTop = {})
{
    return "{\"schemaVersion\": 1, " + extraTop + "\"traceEvents\": [" + events + "]}";
}

} // namespace

class TestChromeTraceImporter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void objectAndArrayForms()
    {
        Fixture f;
        const QByteArray ev = R"({"ph":"X","name":"a","pid":1,"tid":2,"ts":10,"dur":5},
                                 {"ph":"X","name":"b","pid":1,"tid":2,"ts":11,"dur":2})";
        auto r1 = f.importText(kineto(ev), QStringLiteral("obj.json"));
        QCOMPARE(r1.status, SourceReport::Status::Imported);
        QCOMPARE(r1.slices, 2);
        auto r2 = f.importText("[" + ev + "]", QStringLiteral("arr.json"));
        QCOMPARE(r2.status, SourceReport::Status::Imported);
        QCOMPARE(r2.slices, 2);
        // Times: microseconds to nanoseconds exactly.
        QCOMPARE(f.count(QStringLiteral("SELECT min(ts) FROM slice")), 10'000);
        QCOMPARE(f.count(QStringLiteral("SELECT max(dur) FROM slice")), 5'000);
    }

    void tolerantForms()
    {
        Fixture f;
        // Missing closing bracket, trailing comma and a trailing empty object.
        const QString a = f.write(QStringLiteral("open.json"),
                                  R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},
            {"ph":"X","name":"b","pid":1,"tid":1,"ts":3,"dur":1},)");
        auto r = f.import(a);
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(r.slices, 2);
        QVERIFY(f.warningText(a).contains(QStringLiteral("no closing ']'")));
        auto r2 = f.importText(
            R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{}]})",
            QStringLiteral("tf.json"));
        QCOMPARE(r2.status, SourceReport::Status::Imported);
        QCOMPARE(r2.slices, 1);
        QCOMPARE(r2.warnings, 0);
    }

    void beginEndPairsAndUnmatched()
    {
        Fixture f;
        const QString path = f.write(QStringLiteral("be.json"), R"([
            {"ph":"B","name":"outer","pid":1,"tid":1,"ts":0,"args":{"k":1}},
            {"ph":"B","name":"inner","pid":1,"tid":1,"ts":1},
            {"ph":"E","pid":1,"tid":1,"ts":2},
            {"ph":"E","pid":1,"tid":1,"ts":10},
            {"ph":"E","pid":1,"tid":1,"ts":11},
            {"ph":"B","name":"open","pid":1,"tid":1,"ts":12},
            {"ph":"X","name":"x","pid":1,"tid":1,"ts":13,"dur":7}
        ])");
        auto r = f.import(path);
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(r.slices, 4); // outer, inner, x, and the unmatched B closed at the track end
        QCOMPARE(f.count(QStringLiteral("SELECT dur FROM slice_abs WHERE name='outer'")), 10'000);
        QCOMPARE(f.str(QStringLiteral("SELECT args FROM slice_abs WHERE name='outer'")),
                 QStringLiteral("{\"k\":1}"));
        QCOMPARE(f.count(QStringLiteral("SELECT ts + dur FROM slice_abs WHERE name='open'")),
                 20'000);
        const QString w = f.warningText(path);
        QVERIFY2(w.contains(QStringLiteral("'B' event at byte")) &&
                     w.contains(QStringLiteral("no matching 'E'")),
                 qPrintable(w));
        QVERIFY2(w.contains(QStringLiteral("'E' event at byte")), qPrintable(w));
    }

    void instantsCountersMetadataAsync()
    {
        Fixture f;
        const QString path = f.write(QStringLiteral("misc.json"), R"([
            {"ph":"M","name":"process_name","pid":7,"args":{"name":"trainer"}},
            {"ph":"M","name":"thread_name","pid":7,"tid":8,"args":{"name":"loader"}},
            {"ph":"M","name":"thread_sort_index","pid":7,"tid":8,"args":{"sort_index":3}},
            {"ph":"i","name":"mark","pid":7,"tid":8,"ts":1,"s":"t"},
            {"ph":"I","name":"pmark","pid":7,"tid":8,"ts":2,"s":"p"},
            {"ph":"i","name":"gmark","pid":7,"tid":8,"ts":3,"s":"g"},
            {"ph":"C","name":"mem","pid":7,"ts":1,"args":{"allocated":10,"reserved":20}},
            {"ph":"C","name":"mem","pid":7,"ts":2,"args":{"allocated":11,"reserved":21}},
            {"ph":"C","name":"util","pid":7,"ts":2,"args":{"value":0.5}},
            {"ph":"b","name":"req","cat":"io","id":"0x1","pid":7,"tid":8,"ts":5},
            {"ph":"n","name":"step","cat":"io","id":"0x1","pid":7,"tid":8,"ts":6},
            {"ph":"e","name":"req","cat":"io","id":"0x1","pid":7,"tid":8,"ts":9}
        ])");
        auto r = f.import(path);
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(r.slices, 5); // 3 instants, 1 async slice, 1 async instant
        QCOMPARE(r.counterSamples, 5);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM track WHERE kind=6")), 3);
        QCOMPARE(
            f.count(QStringLiteral("SELECT counter_count FROM track WHERE name='mem allocated'")),
            2);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM track WHERE name='trainer (pid 7)'")),
                 1);
        QCOMPARE(f.count(QStringLiteral("SELECT sort_key FROM track WHERE name='loader'")), 3);
        // The main thread first, whatever sort index the trace gives it (issue 73).
        const QString main = f.write(QStringLiteral("main.json"), R"([
            {"ph":"M","name":"thread_sort_index","pid":40,"tid":0,"args":{"sort_index":0}},
            {"ph":"M","name":"thread_sort_index","pid":40,"tid":40,"args":{"sort_index":40}},
            {"ph":"X","name":"wait","pid":40,"tid":0,"ts":1,"dur":5},
            {"ph":"X","name":"step","pid":40,"tid":40,"ts":1,"dur":5}
        ])");
        QCOMPARE(f.import(main).status, SourceReport::Status::Imported);
        QVERIFY(
            f.count(QStringLiteral("SELECT sort_key FROM track WHERE name LIKE '%main thread'")) <
            f.count(QStringLiteral("SELECT sort_key FROM track WHERE name='thread 0'")));
        QCOMPARE(f.count(QStringLiteral("SELECT dur FROM slice_abs WHERE name='req'")), 4'000);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM slice s JOIN track t ON "
                                        "t.id=s.track_id WHERE t.name='global instant events'")),
                 1);
    }

    void flowEventsBindToSlices()
    {
        Fixture f;
        auto r = f.importText(R"([
            {"ph":"X","name":"fwd","pid":1,"tid":1,"ts":0,"dur":10},
            {"ph":"X","name":"bwd","pid":1,"tid":2,"ts":20,"dur":10},
            {"ph":"s","cat":"fwdbwd","id":5,"pid":1,"tid":1,"ts":0},
            {"ph":"f","cat":"fwdbwd","id":5,"pid":1,"tid":2,"ts":20,"bp":"e"},
            {"ph":"s","cat":"misc","id":6,"pid":1,"tid":1,"ts":1},
            {"ph":"t","cat":"misc","id":6,"pid":1,"tid":2,"ts":21},
            {"ph":"X","name":"opt","pid":1,"tid":1,"ts":40,"dur":5},
            {"ph":"f","cat":"misc","id":6,"pid":1,"tid":1,"ts":40,"bp":"e"}
        ])");
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(r.flows, 3);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM flow WHERE kind=3")), 1);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM flow WHERE kind=8")), 2);
    }

    // Flow v2: complete events that carry bind_id with flow_out / flow_in are the flow's ends
    // themselves, with numeric and text ids; an end refused by the time limits links nothing.
    void flowV2BindsTheSlicesThemselves()
    {
        Fixture f;
        auto r = f.importText(R"([
            {"ph":"X","name":"a","pid":1,"tid":1,"ts":10,"dur":5,"bind_id":7,"flow_out":true},
            {"ph":"X","name":"b","pid":1,"tid":2,"ts":20,"dur":5,"bind_id":7,"flow_in":true,"flow_out":true},
            {"ph":"X","name":"c","pid":2,"tid":3,"ts":30,"dur":5,"bind_id":7,"flow_in":true},
            {"ph":"X","name":"d","pid":1,"tid":1,"ts":40,"dur":5,"bind_id":"x1","flow_out":true},
            {"ph":"X","name":"e","pid":1,"tid":2,"ts":50,"dur":5,"bind_id":"x1","flow_in":true},
            {"ph":"X","name":"late","pid":1,"tid":2,"ts":1e20,"dur":5,"bind_id":9,"flow_out":true},
            {"ph":"X","name":"g","pid":1,"tid":1,"ts":90,"dur":5,"bind_id":9,"flow_in":true}
        ])");
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(r.flows, 3);
        const auto linked = [&](const char *from, const char *to) {
            return f.count(QStringLiteral("SELECT count(*) FROM flow l JOIN slice a ON a.id = "
                                          "l.from_slice JOIN slice b ON b.id = l.to_slice "
                                          "JOIN string na ON na.id = a.name_id JOIN string nb "
                                          "ON nb.id = b.name_id WHERE na.value = '%1' AND "
                                          "nb.value = '%2'")
                               .arg(QLatin1String(from), QLatin1String(to)));
        };
        QCOMPARE(linked("a", "b"), 1);
        QCOMPARE(linked("b", "c"), 1);
        QCOMPARE(linked("d", "e"), 1);
    }

    void kinetoLinksAndTracks()
    {
        Fixture f;
        // Runtime call -> kernel by correlation with NO flow events; a lone 'f' as Kineto
        // writes for cudaEventRecord; External id from the op; GPU pid/stream tid.
        const QByteArray events = R"(
            {"ph":"M","name":"process_name","pid":100,"tid":0,"args":{"name":"python3"}},
            {"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":"GPU 0"}},
            {"ph":"M","name":"process_labels","pid":3,"tid":0,"args":{"labels":"GPU 3"}},
            {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":0,"dur":50,"args":{"External id":9}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":10,"dur":5,"args":{"correlation":77,"External id":9}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaEventRecord","pid":100,"tid":100,"ts":30,"dur":1,"args":{"correlation":78}},
            {"ph":"f","cat":"ac2g","name":"ac2g","id":78,"pid":100,"tid":100,"ts":30,"bp":"e"},
            {"ph":"X","cat":"kernel","name":"sgemm","pid":0,"tid":7,"ts":20,"dur":100,"args":{"correlation":77,"External id":9,"stream":7}},
            {"ph":"X","cat":"cuda_sync","name":"Event Sync","pid":0,"tid":-1,"ts":130,"dur":2,"args":{"correlation":78}},
            {"ph":"X","cat":"python_function","name":"<built-in>","pid":0,"tid":0,"ts":5,"dur":1}
        )";
        const QString path = f.write(QStringLiteral("k.json"), kineto(events, R"(
            "deviceProperties":[{"id":0,"name":"NVIDIA A100"}],
            "distributedInfo":{"backend":"nccl","rank":2,"world_size":4},)"));
        auto r = f.import(path);
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(r.slices, 6);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM flow WHERE kind=1")), 1); // launch
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM flow WHERE kind=2")), 1); // sync
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM flow WHERE kind=7")), 1); // op -> gpu
        QCOMPARE(f.str(QStringLiteral("SELECT n.value FROM flow JOIN slice s ON s.id=from_slice "
                                      "JOIN string n ON n.id=s.name_id WHERE kind=1")),
                 QStringLiteral("cudaLaunchKernel"));
        QCOMPARE(
            f.count(QStringLiteral(
                "SELECT count(*) FROM track WHERE name='rank 2 · GPU 0 · NVIDIA A100' AND kind=4")),
            1);
        QCOMPARE(
            f.count(QStringLiteral("SELECT count(*) FROM track WHERE name='stream 7' AND kind=5")),
            1);
        QCOMPARE(f.count(QStringLiteral(
                     "SELECT count(*) FROM track WHERE name='device-wide sync events' AND kind=5")),
                 1);
        QCOMPARE(
            f.count(QStringLiteral(
                "SELECT count(*) FROM track WHERE name='rank 2 · python3 (pid 100)' AND kind=2")),
            1);
        // The python_function on pid 0 / tid 0 is a CPU thread, not a GPU stream, and not a main
        // thread: no process has pid 0 (Kineto files a tqdm monitor there).
        QCOMPARE(f.count(QStringLiteral("SELECT kind FROM track WHERE name='thread 0'")), 3);
        QCOMPARE(f.count(QStringLiteral("SELECT count(DISTINCT rank) FROM track WHERE rank=2")), 1);
        const auto params =
            QJsonDocument::fromJson(f.str(QStringLiteral("SELECT params FROM run")).toUtf8())
                .object();
        QCOMPARE(params.value(QStringLiteral("world_size")).toInt(), 4);
        QCOMPARE(params.value(QStringLiteral("ranks")).toArray(), QJsonArray{2});
        QCOMPARE(params.value(QStringLiteral("gpu_models")).toArray(),
                 QJsonArray{QStringLiteral("NVIDIA A100")});
        QVERIFY(f.warningText(path).contains(QStringLiteral("pids 3")));
    }

    void clockRelativeAndAbsolute()
    {
        Fixture f;
        // Relative float ts with baseTimeNanoseconds AFTER the events (as MI250 traces do).
        const QString rel = f.write(
            QStringLiteral("rel.json"),
            R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1500.123,"dur":2.5}],
                "baseTimeNanoseconds": 1700000000000000000})");
        QCOMPARE(f.import(rel, QStringLiteral("r1")).status, SourceReport::Status::Imported);
        QCOMPARE(f.count(QStringLiteral("SELECT ts FROM slice_abs WHERE name='a'")),
                 Q_INT64_C(1700000000001500123));
        QCOMPARE(f.count(QStringLiteral("SELECT dur FROM slice_abs WHERE name='a'")), 2'500);
        // Absolute integer epoch microseconds.
        const QString abs = f.write(
            QStringLiteral("abs.json"),
            R"({"traceEvents":[{"ph":"X","name":"b","pid":1,"tid":1,"ts":1694128201426556,"dur":3}]})");
        QCOMPARE(f.import(abs, QStringLiteral("r2")).status, SourceReport::Status::Imported);
        QCOMPARE(f.count(QStringLiteral("SELECT ts FROM slice_abs WHERE name='b'")),
                 Q_INT64_C(1694128201426556000));
        // A base time no project can hold (2^64 - 1 once became a clock offset of -1 ns) is a
        // warning naming it, and the trace is placed without it (issue 33).
        const QString huge = f.write(QStringLiteral("huge.json"),
                                     R"({"baseTimeNanoseconds": 18446744073709551615,
                "traceEvents":[{"ph":"X","name":"c","pid":1,"tid":1,"ts":1500,"dur":2}]})");
        const auto r3 = f.import(huge, QStringLiteral("r3"));
        QCOMPARE(r3.status, SourceReport::Status::Imported);
        QCOMPARE(r3.warnings, 1);
        QVERIFY2(f.warningText(huge).contains(
                     QLatin1String("baseTimeNanoseconds: expected whole nanoseconds")),
                 qPrintable(f.warningText(huge)));
        QCOMPARE(f.count(QStringLiteral("SELECT ts FROM slice_abs WHERE name='c'")), 1'500'000);
    }

    void format2021AndLegacy()
    {
        Fixture f;
        auto r = f.importText(kineto(R"(
            {"ph":"X","cat":"Operator","name":"aten::conv2d","pid":25738,"tid":"25738","ts":1,"dur":50,"args":{"external id":4}},
            {"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":25738,"tid":"25738","ts":2,"dur":3,"args":{"correlation":11,"external id":4}},
            {"ph":"X","cat":"Kernel","name":"implicit_gemm","pid":0,"tid":"stream 7","ts":6,"dur":9,"args":{"correlation":11,"external id":4}},
            {"ph":"s","cat":"async","name":"launch","id":11,"pid":25738,"tid":"25738","ts":2},
            {"ph":"f","cat":"async","name":"launch","id":11,"pid":0,"tid":"stream 7","ts":6,"bp":"e"},
            {"name":"Record Window End","ph":"i","s":"g","pid":"","tid":"","ts":100}
        )"),
                              QStringLiteral("w2021.json"));
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(r.slices, 4);
        // One launch edge although both the correlation and the flow pair describe it.
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM flow WHERE kind=1")), 1);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM flow WHERE kind=7")), 1);
        QCOMPARE(
            f.count(QStringLiteral("SELECT count(*) FROM track WHERE name='stream 7' AND kind=5")),
            1);
        // Legacy autograd profiler: pid "CPU functions".
        auto legacy = f.importText(
            R"([{"name":"aten::add","ph":"X","ts":1.5,"dur":2,"tid":0,"pid":"CPU functions","args":{}}])",
            QStringLiteral("legacy.json"));
        QCOMPARE(legacy.status, SourceReport::Status::Imported);
        QCOMPARE(legacy.slices, 1);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM track WHERE name='CPU functions'")),
                 1);
    }

    void gzipIsReadTransparently()
    {
        Fixture f;
        const QString path =
            f.write(QStringLiteral("g.trace.json.gz"),
                    gmltest::gzip(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])"));
        auto r = f.import(path);
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(r.slices, 1);
        // Content decides, not the name: gzip data under a plain name is still read.
        const QString odd =
            f.write(QStringLiteral("odd.json"),
                    gmltest::gzip(R"([{"ph":"X","name":"b","pid":1,"tid":1,"ts":1,"dur":1}])"));
        QCOMPARE(f.import(odd).status, SourceReport::Status::Imported);
    }

    // A file is recognised by its content, not its path (issue 73: a renamed folder's run got
    // doubled tracks): moved, its source takes the new path and nothing is read again; copied
    // beside the original, it is not imported twice; changed, it is read as any new file.
    void movedOrCopiedFilesAreRecognisedByContent()
    {
        Fixture f;
        const QByteArray json = R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])";
        const QString first = f.write(QStringLiteral("a/x.json"), json);
        QCOMPARE(f.import(first).status, SourceReport::Status::Imported);
        const QString tracks = QStringLiteral("SELECT count(*) FROM track");
        const qint64 before = f.count(tracks);
        // Moved (the folder renamed).
        QVERIFY(QDir(f.dir.path()).rename(QStringLiteral("a"), QStringLiteral("b")));
        const QString moved = f.dir.filePath(QStringLiteral("b/x.json"));
        auto r = f.import(moved);
        QCOMPARE(r.status, SourceReport::Status::Unchanged);
        QVERIFY2(r.message.contains(QLatin1String("moved here")), qPrintable(r.message));
        QCOMPARE(f.str(QStringLiteral("SELECT path FROM source")), moved);
        QCOMPARE(f.count(tracks), before);
        QCOMPARE(f.import(moved).status, SourceReport::Status::Unchanged); // by path now
        // Copied beside it: not imported twice.
        const QString copy = f.write(QStringLiteral("c/x.json"), json);
        r = f.import(copy);
        QCOMPARE(r.status, SourceReport::Status::Unchanged);
        QVERIFY2(r.message.contains(QLatin1String("not imported twice")), qPrintable(r.message));
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM source")), 1);
        QCOMPARE(f.count(tracks), before);
        // The same size, other content: a new file.
        QByteArray other = json;
        other.replace("\"a\"", "\"b\"");
        QCOMPARE(f.import(f.write(QStringLiteral("d/x.json"), other)).status,
                 SourceReport::Status::Imported);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM source")), 2);
    }

    void unchangedIsSkippedChangedIsReplaced()
    {
        Fixture f;
        const QString path = f.write(QStringLiteral("x.json"),
                                     R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])");
        QCOMPARE(f.import(path).status, SourceReport::Status::Imported);
        QCOMPARE(f.import(path).status, SourceReport::Status::Unchanged);
        QTest::qWait(20); // a different mtime
        f.write(QStringLiteral("x.json"), R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},
                                              {"ph":"X","name":"b","pid":1,"tid":1,"ts":3,"dur":1}])");
        auto r = f.import(path);
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM slice")), 2);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM source")), 1);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM track")), 2);
        // A broken re-import keeps the previous data and records the error.
        f.write(QStringLiteral("x.json"), R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,)");
        auto bad = f.import(path);
        QCOMPARE(bad.status, SourceReport::Status::Failed);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM slice")), 2);
        QVERIFY(f.str(QStringLiteral("SELECT error FROM source"))
                    .contains(QStringLiteral("previous import kept")));
    }

    // XXH64 vectors from xxhsum 0.8.1 (-H1); a stream fed in uneven pieces hashes the same.
    void contentHashIsXxh64()
    {
        auto hashOf = [](const QByteArray &bytes, int piece) {
            ContentHash h;
            for (qsizetype i = 0; i < bytes.size(); i += piece)
                h.add(bytes.constData() + i, size_t(std::min<qsizetype>(piece, bytes.size() - i)));
            return ContentHash::text(h.digest());
        };
        auto pattern = [](int n) {
            QByteArray b;
            for (int i = 0; i < n; ++i)
                b.append(char((i * 7 + 3) % 251));
            return b;
        };
        QCOMPARE(hashOf({}, 1), QStringLiteral("xxh64:ef46db3751d8e999"));
        QCOMPARE(hashOf("abc", 3), QStringLiteral("xxh64:44bc2cf5ad770999"));
        for (int piece : {1, 5, 31, 32, 33, 1000}) {
            QCOMPARE(hashOf(pattern(37), piece), QStringLiteral("xxh64:ef6ab673b99cb960"));
            QCOMPARE(hashOf(pattern(1000), piece), QStringLiteral("xxh64:021f7a7424085ea4"));
        }
    }

    // The hash is taken while the importer reads a plain file (one read, not two), and it is
    // what decides when size and mtime match: a file rewritten with the same size and its old
    // mtime put back is read again.
    void hashIsTakenWhileReadingAndDecides()
    {
        Fixture f;
        const QByteArray one = R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])";
        const QByteArray two = R"([{"ph":"X","name":"b","pid":1,"tid":1,"ts":1,"dur":1}])";
        // Data after the document, longer than the reader's buffer: the reader stops at its
        // start, and the hash still covers it.
        const QByteArray trailing = "\ntrailing " + QByteArray(5 << 20, 'x');
        const QString plain = f.write(QStringLiteral("h.json"), one + trailing);
        const QString packed = f.write(QStringLiteral("h.json.gz"), gmltest::gzip(one));
        QCOMPARE(f.import(plain).status, SourceReport::Status::Imported);
        QCOMPARE(f.import(packed).status, SourceReport::Status::Imported);
        for (const QString &path : {plain, packed})
            QCOMPARE(f.str(QStringLiteral("SELECT hash FROM source WHERE path='%1'").arg(path)),
                     fileHash(path));

        const QDateTime mtime = QFileInfo(plain).lastModified();
        f.write(QStringLiteral("h.json"), two + trailing);
        {
            QFile file(plain);
            QVERIFY(file.open(QIODevice::ReadWrite));
            QVERIFY(file.setFileTime(mtime, QFileDevice::FileModificationTime));
        }
        QCOMPARE(QFileInfo(plain).lastModified(), mtime);
        QCOMPARE(f.import(plain).status, SourceReport::Status::Imported);
        QCOMPARE(f.str(QStringLiteral("SELECT group_concat(n.value) FROM slice s JOIN string n "
                                      "ON n.id = s.name_id JOIN source src ON src.id = "
                                      "(SELECT source_id FROM track WHERE id = s.track_id) "
                                      "WHERE src.path = '%1'")
                           .arg(plain)),
                 QStringLiteral("b"));
        QCOMPARE(f.import(plain).status, SourceReport::Status::Unchanged);
    }

    void cancelKeepsNothingOfTheFile()
    {
        Fixture f;
        const QString path = f.write(QStringLiteral("c.json"),
                                     R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])");
        QStringList errors;
        ImportJob job(*f.project);
        job.setProgressCallback([](const ImportProgress &) { return false; });
        const auto reports = job.run(scanInputs({path}, QStringLiteral("r"), &errors));
        QCOMPARE(reports.first().status, SourceReport::Status::Cancelled);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM slice")), 0);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM source")), 0);
    }

    // --- Bad input: a clear error or warning naming the file and the byte offset, and the
    // project keeps what was imported before. ---

    void badInput_data() { addBadInputRows(); }

    void badInput()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(bool, fails);
        QFETCH(QString, expected);
        QFETCH(qint64, offset);
        Fixture f;
        const QString good =
            f.write(QStringLiteral("good.json"),
                    R"([{"ph":"X","name":"keep","pid":1,"tid":1,"ts":1,"dur":1}])");
        QCOMPARE(f.import(good, QStringLiteral("r")).status, SourceReport::Status::Imported);
        const QString path = f.write(name, bytes);
        const SourceReport r = f.import(path, QStringLiteral("r"));
        if (fails) {
            QCOMPARE(r.status, SourceReport::Status::Failed);
            QVERIFY2(r.message.startsWith(path + QStringLiteral(": at byte ")),
                     qPrintable(r.message));
            QVERIFY2(r.message.contains(expected), qPrintable(r.message));
            if (offset >= 0)
                QVERIFY2(r.message.startsWith(path + QStringLiteral(": at byte %1:").arg(offset)),
                         qPrintable(r.message));
            QCOMPARE(f.str(QStringLiteral("SELECT status FROM source WHERE path='%1'").arg(path)),
                     QStringLiteral("failed"));
            QCOMPARE(f.str(QStringLiteral("SELECT error FROM source WHERE path='%1'").arg(path)),
                     r.message);
            QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM track t JOIN source s ON "
                                            "s.id=t.source_id WHERE s.path='%1'")
                                 .arg(path)),
                     0);
        } else {
            QCOMPARE(r.status, SourceReport::Status::Imported);
            QVERIFY(r.warnings >= 1);
            const QJsonArray ws = f.warnings(path);
            bool found = false;
            for (const auto &w : ws) {
                const auto o = w.toObject();
                if (o.value(QStringLiteral("message")).toString().contains(expected)) {
                    found = true;
                    if (offset >= 0)
                        QCOMPARE(o.value(QStringLiteral("offset")).toInteger(), offset);
                }
            }
            QVERIFY2(found, qPrintable(f.warningText(path)));
        }
        // Everything imported before is still there.
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM slice_abs WHERE name='keep'")), 1);
        QCOMPARE(f.str(QStringLiteral("SELECT status FROM source WHERE path='%1'").arg(good)),
                 QStringLiteral("imported"));
    }

    void invalidUtf8IsRepaired()
    {
        Fixture f;
        auto r = f.importText(
            "[{\"ph\":\"X\",\"name\":\"bad\xff\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]");
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(f.str(QStringLiteral("SELECT name FROM slice_abs")), QStringLiteral("bad\uFFFD"));
    }

    void scannerSkipsUnknownFilesWithAReason()
    {
        Fixture f;
        f.write(QStringLiteral("folder/a.pt.trace.json"),
                R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])");
        f.write(QStringLiteral("folder/notes.txt"), "hello");
        f.write(QStringLiteral("folder/sub/meta.json"), R"({"model":"resnet50","batch":64})");
        f.write(QStringLiteral("folder/.grademl/project.grademl"), "x");
        QStringList errors;
        const auto files =
            scanInputs({f.dir.filePath(QStringLiteral("folder"))}, QString(), &errors);
        QCOMPARE(files.size(), 3);
        QCOMPARE(files[0].runName, QStringLiteral("folder"));
        QVERIFY(files[0].importer);
        QVERIFY(!files[1].importer);
        QCOMPARE(files[1].skipReason, QStringLiteral("unrecognised format"));
        QVERIFY(!files[2].importer);
        QCOMPARE(files[2].runName, QStringLiteral("folder/sub"));
        QVERIFY2(files[2].skipReason.contains(QStringLiteral("JSON without a traceEvents array")),
                 qPrintable(files[2].skipReason));
        ImportJob job(*f.project);
        const auto reports = job.run(files);
        QCOMPARE(reports[1].status, SourceReport::Status::Skipped);
        QCOMPARE(f.count(QStringLiteral("SELECT count(*) FROM source WHERE status='skipped'")), 2);
    }
};

QTEST_GUILESS_MAIN(TestChromeTraceImporter)
#include "tst_chrometraceimporter.moc"
