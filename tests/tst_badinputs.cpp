// SPDX-License-Identifier: GPL-3.0-or-later
// The bad-input campaign of issue 20, made at test time and run through the CLI as a user
// would: each class of bad input gets its exit status and a message naming the file, the cause
// and (where there is one) the position; the run imported before stays intact (counts and sums,
// PRAGMA integrity_check); nothing crashes; every command finishes within its time bound.
#include "nsysfixture.h"
#include "sqlitedb.h"
#include "testutil.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <QTimeZone>

#include <sys/resource.h>
#include <unistd.h>

// ASan's shadow memory and quarantine need more of an address-space limit.
constexpr long kSanitizerMemoryScale = gmltest::kUnderSanitizer ? 4 : 1;

class TestBadInputs : public QObject
{
    Q_OBJECT

    struct Result
    {
        int code = -1;
        QString out, err;
    };
    // Runs the CLI; a command that does not finish within `seconds` is a hang and fails the test.
    static Result run(const QStringList &args, int seconds = 60)
    {
        const auto c = gmltest::runProgram(QStringLiteral(GRADEML_CLI), args, seconds);
        if (!c.finished) {
            qWarning("grademl %s did not finish in %d s", qPrintable(args.join(QLatin1Char(' '))),
                     seconds);
            return {};
        }
        if (c.crashed)
            qWarning("grademl crashed: %s", c.err.constData());
        Result r;
        r.code = c.crashed ? -2 : c.code;
        r.out = QString::fromUtf8(c.out);
        r.err = QString::fromUtf8(c.err);
        return r;
    }
    Result importAs(const QString &input, const QString &runName)
    {
        return run({QStringLiteral("import"), input, QStringLiteral("--project"), m_project,
                    QStringLiteral("--run"), runName});
    }
    QString path(const QString &rel) const { return m_dir.filePath(rel); }
    QString write(const QString &rel, const QByteArray &bytes)
    {
        return gmltest::writeFile(m_dir, rel, bytes);
    }

    // The warnings and error stored for a source, as one text.
    QString sourceText(const QString &pathPart)
    {
        QString error;
        auto p = gml::Project::open(m_project, gml::Project::Mode::ReadOnly, &error);
        if (!p)
            return error;
        auto st =
            p->db().prepare("SELECT coalesce(status,'') || ' ' || coalesce(error,'') || ' ' || "
                            "coalesce(warnings,'') FROM source WHERE path LIKE ?");
        st.bind(1, QStringLiteral("%") + pathPart + QStringLiteral("%"));
        return st.step() ? st.text(0) : QStringLiteral("(no source row)");
    }
    qint64 runScalar(const QString &runName, const char *what)
    {
        QString error;
        auto p = gml::Project::open(m_project, gml::Project::Mode::ReadOnly, &error);
        if (!p)
            return -1;
        auto st = p->db().prepare(std::string("SELECT ") + what +
                                  " FROM slice s JOIN track t ON t.id = s.track_id JOIN run r ON "
                                  "r.id = t.run_id WHERE r.name = ?");
        st.bind(1, runName);
        return st.step() ? st.int64(0) : -1;
    }
    qint64 counterCount(const QString &runName)
    {
        QString error;
        auto p = gml::Project::open(m_project, gml::Project::Mode::ReadOnly, &error);
        auto st =
            p->db().prepare("SELECT count(*) FROM counter c JOIN track t ON t.id = c.track_id "
                            "JOIN run r ON r.id = t.run_id WHERE r.name = ?");
        st.bind(1, runName);
        return st.step() ? st.int64(0) : -1;
    }

    QTemporaryDir m_dir;
    QString m_project;
    qint64 m_baseSlices = 0, m_baseDurations = 0;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_project = path(QStringLiteral("campaign.grademl"));
        QByteArray events;
        for (int i = 0; i < 200; ++i)
            events +=
                QStringLiteral(R"({"ph":"X","name":"op%1","pid":1,"tid":1,"ts":%2,"dur":%3},)")
                    .arg(i % 7)
                    .arg(1000 + i * 10)
                    .arg(5 + i % 3)
                    .toUtf8();
        write(QStringLiteral("base/base.json"), "{\"traceEvents\":[" + events + "{}]}");
        const Result r = importAs(path(QStringLiteral("base")), QStringLiteral("base"));
        QCOMPARE(r.code, 0);
        m_baseSlices = runScalar(QStringLiteral("base"), "count(*)");
        m_baseDurations = runScalar(QStringLiteral("base"), "sum(s.dur)");
        QCOMPARE(m_baseSlices, 200);
    }

    // After every case: the earlier run is intact and the file is sound.
    void cleanup()
    {
        QCOMPARE(runScalar(QStringLiteral("base"), "count(*)"), m_baseSlices);
        QCOMPARE(runScalar(QStringLiteral("base"), "sum(s.dur)"), m_baseDurations);
        const Result r =
            run({QStringLiteral("query"), m_project, QStringLiteral("PRAGMA integrity_check")});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("ok")), qPrintable(r.out));
    }

    void idsBeyond64Bits()
    {
        write(
            QStringLiteral("pid/a.json"),
            R"({"traceEvents":[{"ph":"X","name":"a","pid":9223372036854775808,"tid":1,"ts":1,"dur":1},
                 {"ph":"X","name":"b","pid":"9223372036854775808","tid":"99999999999999999999","ts":2,"dur":1},
                 {"ph":"X","name":"k","cat":"kernel","pid":18446744073709551616,"tid":7,"ts":3,"dur":1}]})");
        write(QStringLiteral("pid/b.json"),
              R"([{"ph":"X","name":"later","pid":1,"tid":1,"ts":1,"dur":1}])");
        const Result r = importAs(path(QStringLiteral("pid")), QStringLiteral("pid"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(runScalar(QStringLiteral("pid"), "count(*)"), 4); // the later file too
    }

    void deviceFileIsSkipped()
    {
        QDir().mkpath(path(QStringLiteral("dev")));
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path(QStringLiteral("dev/t.json"))));
        const Result r = importAs(path(QStringLiteral("dev")), QStringLiteral("dev"));
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QStringLiteral("t.json: skipped (not a regular file (a device)")),
                 qPrintable(r.err));
    }

    void nsightAbsurdTimes_data()
    {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<qint64>("slices"); // of 2 x 10 rows
        QTest::newRow("start 1e308")
            << "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start=1e308 WHERE rowid=1;"
            << "CUPTI_ACTIVITY_KIND_RUNTIME row 1: 'start' is 1e+308 ns, beyond the limit"
            << qint64(19);
        QTest::newRow("blob start, huge end")
            << "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start=x'00ff', end=1.5e308 WHERE rowid=2;"
            << "CUPTI_ACTIVITY_KIND_KERNEL row 2: 'start' holds a blob" << qint64(19);
        QTest::newRow("text start")
            << "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start='soon' WHERE rowid=3;"
            << "CUPTI_ACTIVITY_KIND_KERNEL row 3: 'start' holds text ('soon')" << qint64(19);
        QTest::newRow("NULL start")
            << "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start=NULL WHERE rowid=4;"
            << "CUPTI_ACTIVITY_KIND_KERNEL row 4: 'start' is NULL" << qint64(19);
        QTest::newRow("end before start")
            << "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end=start-60000000000 WHERE rowid IN (5,6);"
            << "CUPTI_ACTIVITY_KIND_KERNEL row 5: 'end' (" << qint64(18);
        QTest::newRow("duration of years")
            << "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end=start+100000000000000000 WHERE rowid=7;"
            << "CUPTI_ACTIVITY_KIND_RUNTIME row 7: a duration of" << qint64(19);
        QTest::newRow("kernel table is a view")
            << "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO K;"
               "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT a.* FROM K a, K b, K c, K d, K e, "
               "K f;"
            << "CUPTI_ACTIVITY_KIND_KERNEL is a view, not a table" << qint64(10);
    }
    void nsightAbsurdTimes()
    {
        QFETCH(QString, sql);
        QFETCH(QString, expected);
        QFETCH(qint64, slices);
        const QString name = QString::fromLatin1(QTest::currentDataTag())
                                 .replace(QLatin1Char(' '), QLatin1Char('_'));
        const QString file = path(QStringLiteral("nsys-%1/export.sqlite").arg(name));
        QDir().mkpath(QFileInfo(file).absolutePath());
        QString error;
        QVERIFY2(gmltest::writeNsysExport(file, 10, sql.toStdString(), &error), qPrintable(error));
        const Result r = importAs(QFileInfo(file).absolutePath(), name);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(sourceText(QStringLiteral("nsys-") + name).contains(expected),
                 qPrintable(sourceText(QStringLiteral("nsys-") + name)));
        QCOMPARE(runScalar(name, "count(*)"), slices);
        // Nothing absurd reached the project: every slice is inside the limits.
        QCOMPARE(
            runScalar(name,
                      "max(abs(s.ts)) <= 3000000000000000000 AND max(s.dur) <= 31622400000000000"),
            1);
        // And the view of it renders in bounded time.
        const Result e = run({QStringLiteral("export"), m_project, QStringLiteral("--out"),
                              path(name + QStringLiteral(".png"))});
        QVERIFY2(e.code == 0, qPrintable(e.err));
    }

    void hugeValuesAreBounded()
    {
        // One event whose args array is 80 MB, one with a 3 MB args object, one with a 200 KB
        // name, then an ordinary event: the first is streamed past, the second keeps a note of
        // its size, the third a cut name, and memory stays far below the file size times three.
        QFile f(path(QStringLiteral("huge/t.json")));
        QDir().mkpath(path(QStringLiteral("huge")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            R"({"traceEvents":[{"ph":"X","name":"big","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":[)");
        const QByteArray ones = QByteArray("1,").repeated(1 << 20);
        for (int i = 0; i < 40; ++i)
            f.write(ones);
        f.write("1]}},\n");
        const QByteArray quote(1, '"');
        f.write("{\"ph\":\"X\",\"name\":\"wide\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1,\"args\":{"
                "\"s\":" +
                quote + QByteArray(3 << 20, 'a') + quote + "}},\n");
        f.write("{\"ph\":\"X\",\"name\":" + quote + QByteArray(200 << 10, 'n') + quote +
                ",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1},");
        f.write(R"({"ph":"X","name":"after","pid":1,"tid":1,"ts":9,"dur":1}]})");
        f.close();
        const Result r = importAs(path(QStringLiteral("huge")), QStringLiteral("huge"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString text = sourceText(QStringLiteral("huge/t.json"));
        QVERIFY2(text.contains(QStringLiteral("the event at byte 16 ends at byte")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("over the limit of 64 MiB for one event; skipped")),
                 qPrintable(text));
        QVERIFY2(
            text.contains(QStringLiteral("args of 3145736 bytes, over the limit of 1048576 bytes")),
            qPrintable(text));
        QVERIFY2(text.contains(
                     QStringLiteral("a name of 204800 bytes was cut to the limit of 65536 bytes")),
                 qPrintable(text));
        QCOMPARE(runScalar(QStringLiteral("huge"), "count(*)"), 3);
        // Every stored chunk reads back: args of the whole run through json().
        QCOMPARE(runScalar(QStringLiteral("huge"), "sum(length(s.args)) < 200"), 1);
        rusage usage{};
        getrusage(RUSAGE_CHILDREN, &usage);
        // Under ASan its quarantine keeps freed blocks (256 MB by default): the file's own
        // sanitizer scale, as the other memory bound here uses.
        QVERIFY2(usage.ru_maxrss < 500 * 1024 * kSanitizerMemoryScale,
                 qPrintable(QStringLiteral("peak RSS %1 KiB").arg(usage.ru_maxrss)));
    }

    void manySiblingTracksStayLinear()
    {
        // 40,000 GPU streams of one kernel each at scattered times (an XPlane of 200,000 lines
        // took 4.4 GB and over 120 s): the stream-wait inference searched every sibling per
        // kernel and the node map kept 16 KB per track. Both are linear now.
        QByteArray events;
        quint64 x = 12345;
        for (int i = 0; i < 40'000; ++i) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            events +=
                QStringLiteral(
                    R"({"ph":"X","name":"k","cat":"kernel","pid":0,"tid":"stream %1","ts":%2,"dur":%3},)")
                    .arg(i)
                    .arg((x >> 20) % 1'000'000'000)
                    .arg(1 + (x >> 8) % 100'000)
                    .toUtf8();
        }
        write(QStringLiteral("streams/t.json"), "{\"traceEvents\":[" + events + "{}]}");
        QElapsedTimer timer;
        timer.start();
        const Result r = run({QStringLiteral("import"), path(QStringLiteral("streams")),
                              QStringLiteral("--project"), m_project, QStringLiteral("--run"),
                              QStringLiteral("streams")},
                             60);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QLatin1String("headline metrics of 1 run computed")),
                 qPrintable(r.out));
        QCOMPARE(runScalar(QStringLiteral("streams"), "count(*)"), 40'000);
        rusage usage{};
        getrusage(RUSAGE_CHILDREN, &usage);
        // 64 MB in a release build (the node map alone took 640 MB before); ASan's shadow
        // memory and quarantine take 13 times that.
        QVERIFY2(usage.ru_maxrss < 500 * 1024 * kSanitizerMemoryScale,
                 qPrintable(QStringLiteral("peak RSS %1 KiB").arg(usage.ru_maxrss)));
        qInfo("40,000 one-kernel streams imported with their metrics in %lld ms", timer.elapsed());
    }

    void recorderSamplesOutOfRange()
    {
        // A time of 2^64 was stored as 1970, a value of 1e999 or 50 MB of digits as 0.
        const QByteArray digits(50 << 20, '9');
        write(QStringLiteral("rec/grademl-samples.csv"),
              "grademl-samples "
              "1\nhost,h\nseries,1,host,cpu,%\n1700000000000000000,1,5\n18446744073709551616,1,5\n"
              "1700000001000000000,1,1e999\n1700000002000000000,1," +
                  digits + "\n1700000003000000000,1,7\n");
        const Result r = importAs(path(QStringLiteral("rec")), QStringLiteral("rec"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(counterCount(QStringLiteral("rec")), 2);
        const QString text = sourceText(QStringLiteral("rec/grademl-samples.csv"));
        QVERIFY2(
            text.contains(QStringLiteral(
                "line 5: the time '18446744073709551616' (20 characters) is past what a time in ns "
                "since 1970 (64 bits) holds; the sample is left out")),
            qPrintable(text));
        QVERIFY2(
            text.contains(QStringLiteral("\"count\":2,\"message\":\"line 6: the value '1e999'")),
            qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("\"offset\":69")), qPrintable(text));
    }

    void nvidiaSmiNanKeepsTheColumn()
    {
        QByteArray log = "timestamp, index, utilization.gpu [%], power.draw [W]\n";
        const QDateTime t0(QDate(2024, 1, 1), QTime(10, 0), QTimeZone::utc());
        for (int i = 0; i < 250; ++i)
            log += QStringLiteral("%1, 0, %2 %, %3 W\n")
                       .arg(t0.addSecs(i).toString(QStringLiteral("yyyy/MM/dd HH:mm:ss.zzz")))
                       .arg(i % 100)
                       .arg(i == 99 ? QStringLiteral("nan") : QStringLiteral("100.5"))
                       .toUtf8();
        write(QStringLiteral("smi/nvsmi.csv"), log);
        const Result r = importAs(path(QStringLiteral("smi")), QStringLiteral("smi"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(counterCount(QStringLiteral("smi")), 250 + 249);
        const QString text = sourceText(QStringLiteral("smi/nvsmi.csv"));
        QVERIFY2(text.contains(QStringLiteral("column 'power.draw': 1 of 250 values are not "
                                              "numbers in W (first 'nan W' at byte")),
                 qPrintable(text));
    }

    void executionTraceWithRepeatedIds()
    {
        write(QStringLiteral("et/kineto.json"),
              R"({"traceEvents":[
                 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":5,"tid":5,"ts":10,"dur":5,"args":{"Record function id":1}},
                 {"ph":"X","cat":"cpu_op","name":"aten::mul","pid":5,"tid":5,"ts":20,"dur":5,"args":{"Record function id":2}},
                 {"ph":"X","cat":"cpu_op","name":"aten::sum","pid":5,"tid":5,"ts":30,"dur":5,"args":{"Record function id":3}}]})");
        write(QStringLiteral("et/et.json"),
              R"({"schema":"1.0.1","pid":5,"nodes":[
                 {"id":1,"name":"[pytorch|profiler|execution_graph|thread]","parent":1,"rf_id":0,"inputs":[],"outputs":[]},
                 {"id":7,"name":"aten::add","parent":1,"rf_id":1,"op_schema":"x","inputs":[[1,1,0,4,4,"cpu"]],"outputs":[[2,2,0,4,4,"cpu"]]},
                 {"id":7,"name":"aten::mul","parent":1,"rf_id":2,"op_schema":"x","inputs":[[2,2,0,4,4,"cpu"]],"outputs":[[3,3,0,4,4,"cpu"]]},
                 {"id":9,"name":"aten::sum","parent":1,"rf_id":3,"op_schema":"x","inputs":[[3,3,0,4,4,"cpu"]],"outputs":[[4,4,0,1,4,"cpu"]]}]})");
        const Result r = importAs(path(QStringLiteral("et")), QStringLiteral("et"));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString text = sourceText(QStringLiteral("et/et.json"));
        QVERIFY2(
            text.contains(QStringLiteral("1 nodes repeat the id of an earlier node (first: id 7)")),
            qPrintable(text));
        QString error;
        auto p = gml::Project::open(m_project, gml::Project::Mode::ReadOnly, &error);
        QCOMPARE(p->db().scalar("SELECT count(*) FROM flow f JOIN source s ON s.id = f.source_id "
                                "WHERE s.path LIKE '%et/et.json'"),
                 2);
    }

    // Issue 56, class 14: inputs the importers read without a word before.
    void silentInputsAreSaid()
    {
        // A Chrome trace of empty events only: refused, with where.
        write(QStringLiteral("empty/t.json"), R"({"traceEvents":[{},{},{}]})");
        Result r = importAs(path(QStringLiteral("empty")), QStringLiteral("empty"));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QLatin1String(
                     "t.json: at byte 16: the trace's 3 events are all empty objects")),
                 qPrintable(r.err));
        // top's process rows without their column header line.
        write(QStringLiteral("top/top.log"),
              "top - 15:16:05 up  5:03,  3 users,  load average: 0.5, 0.73, 0.79\n"
              "Tasks: 1306 total,   2 running, 1304 sleeping,   0 stopped,   0 zombie\n\n"
              "   1234 root      20   0  123456  12345   1234 S   5.0   0.1   0:01.23 python\n");
        r = importAs(path(QStringLiteral("top")), QStringLiteral("top"));
        QCOMPARE(r.code, 0);
        QVERIFY2(sourceText(QStringLiteral("top/top.log"))
                     .contains(QLatin1String("comes without the column header line")),
                 qPrintable(sourceText(QStringLiteral("top/top.log"))));
        // An MLflow run's meta.yaml with flipped bytes: in a key, and a byte that is not UTF-8.
        const QString run = QStringLiteral("mlf/mlruns/3/0123456789abcdef");
        write(QStringLiteral("mlf/mlruns/3/meta.yaml"), "experiment_id: '3'\nname: exp\n");
        write(run + QStringLiteral("/meta.yaml"),
              "artifact_uri: file:///x\nexperiment_id: '3'\nlifecyble_stage: active\n"
              "run_id: 0123456789abcdef\nstart_time: 1628697775478\nuser_id: M\xe1laf\n");
        write(run + QStringLiteral("/metrics/loss"), "1628697775478 0.5 0\n");
        r = run_(path(QStringLiteral("mlf")));
        QCOMPARE(r.code, 0);
        const QString meta = sourceText(run + QStringLiteral("/meta.yaml"));
        QVERIFY2(meta.contains(
                     QLatin1String("a key MLflow does not write, 'lifecyble_stage' at byte 43")) &&
                     meta.contains(QLatin1String("is not valid UTF-8 at byte 128")),
                 qPrintable(meta));
        // Execution-trace nodes without ids; the Kineto trace of the run already imported.
        write(
            QStringLiteral("etid/kineto.json"),
            R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":6,"tid":6,"ts":10,"dur":5}]})");
        write(QStringLiteral("etid/et.json"),
              R"({"schema":"1.0.1","pid":77,"nodes":[
                 {"id":1,"name":"[pytorch|profiler|execution_graph|thread]","parent":1,"rf_id":0,"inputs":[],"outputs":[]},
                 {"name":"aten::add","parent":1,"rf_id":1,"op_schema":"x","inputs":[[1,1,0,4,4,"cpu"]],"outputs":[[2,2,0,4,4,"cpu"]]},
                 {"name":"aten::mul","parent":1,"rf_id":2,"op_schema":"x","inputs":[[2,2,0,4,4,"cpu"]],"outputs":[[3,3,0,4,4,"cpu"]]}]})");
        r = importAs(path(QStringLiteral("etid")), QStringLiteral("etid"));
        const QString et = sourceText(QStringLiteral("etid/et.json"));
        QVERIFY2(et.contains(QLatin1String("2 nodes have no 'id' (first: 'aten::add')")) &&
                     !et.contains(QLatin1String("repeat")),
                 qPrintable(et));
        QVERIFY2(et.contains(QLatin1String(
                     "the run's Kineto trace (kineto.json) has no cpu_op slice of process 77")) &&
                     !et.contains(QLatin1String("import the Kineto trace")),
                 qPrintable(et));
        // A recorder's grademl.json: a start of "x", an end before the start, a time zone of 5.
        write(QStringLiteral("rec/grademl-samples.csv"),
              "grademl-samples 1\nhost,h\nseries,0,host,cpu busy,%\n1700000000000000000,0,1\n");
        write(QStringLiteral("rec/grademl.json"),
              R"({"timezone": 5, "recorder": {"start_ns": "x1", "end_ns": "5"}})");
        r = importAs(path(QStringLiteral("rec")), QStringLiteral("rec"));
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QLatin1String("\"timezone\" must be a string")) &&
                     r.err.contains(QLatin1String("recorder.start_ns is \"x1\"")),
                 qPrintable(r.err));
        write(
            QStringLiteral("rec/grademl.json"),
            R"({"recorder": {"start_ns": "1700000000000000000", "end_ns": "1600000000000000000"}})");
        r = importAs(path(QStringLiteral("rec")), QStringLiteral("rec"));
        QVERIFY2(r.err.contains(QLatin1String(
                     "recorder.end_ns (1600000000000000000) is before recorder.start_ns")),
                 qPrintable(r.err));
    }

    void truncatedMlflowRun()
    {
        const QString run = QStringLiteral("ml/mlruns/3/0123456789abcdef");
        write(QStringLiteral("ml/mlruns/3/meta.yaml"), "experiment_id: '3'\nname: exp\n");
        write(run + QStringLiteral("/meta.yaml"), "artifact_uri: file:///x\nend_time: 16286978");
        write(run + QStringLiteral("/tags/mlflow.log-model.history"),
              R"([{"run_id": "0123456789abcdef"}])");
        write(run + QStringLiteral("/metrics/loss"), "1628697775478 0.5 0\n");
        const Result r = run_(path(QStringLiteral("ml")));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("meta.yaml: at byte 42: the meta.yaml of MLflow run "
                                               "'0123456789abcdef' has no 'run_id'")),
                 qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("chrome-trace")), qPrintable(r.err));
        QVERIFY2(
            r.err.contains(QStringLiteral("mlflow.log-model.history: skipped (MLflow run data")),
            qPrintable(r.err));
    }
    Result run_(const QString &folder) // a folder imported with its own run names
    {
        return run({QStringLiteral("import"), folder, QStringLiteral("--project"), m_project});
    }

    void unreadableEntriesAreNamed()
    {
        if (geteuid() == 0)
            QSKIP("running as root: permissions do not stop root from reading");
        write(QStringLiteral("perm/t.json"),
              R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])");
        write(QStringLiteral("perm/sub/u.json"),
              R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])");
        QFile::setPermissions(path(QStringLiteral("perm/t.json")), {});
        QFile::setPermissions(path(QStringLiteral("perm/sub")), {});
        const Result r = importAs(path(QStringLiteral("perm")), QStringLiteral("perm"));
        QFile::setPermissions(path(QStringLiteral("perm/sub")),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QVERIFY2(r.err.contains(QStringLiteral("t.json: skipped (cannot read: Permission denied)")),
                 qPrintable(r.err));
        QVERIFY2(
            r.err.contains(QStringLiteral("sub: skipped (folder not read: Permission denied)")),
            qPrintable(r.err));
    }

    void readOnlyProjectOpensReadOnly()
    {
        if (geteuid() == 0)
            QSKIP("running as root: a folder without write permission is still writable by root");
        QDir().mkpath(path(QStringLiteral("ro")));
        QVERIFY(QFile::copy(m_project, path(QStringLiteral("ro/p.grademl"))));
        QFile::setPermissions(path(QStringLiteral("ro")), QFile::ReadOwner | QFile::ExeOwner);
        const Result info = run({QStringLiteral("info"), path(QStringLiteral("ro/p.grademl"))});
        const Result imp = run({QStringLiteral("import"), path(QStringLiteral("base")),
                                QStringLiteral("--project"), path(QStringLiteral("ro/p.grademl"))});
        QFile::setPermissions(path(QStringLiteral("ro")),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QVERIFY2(info.code == 0 && info.out.contains(QStringLiteral("run base")),
                 qPrintable(info.err));
        QVERIFY2(imp.err.contains(QStringLiteral("cannot be written")), qPrintable(imp.err));
    }

    void nonUtf8FileName()
    {
        const QByteArray dir = QFile::encodeName(path(QStringLiteral("utf")));
        QDir().mkpath(path(QStringLiteral("utf")));
        const QByteArray raw = dir + "/bad\xff.json";
        FILE *fp = fopen(raw.constData(), "w");
        QVERIFY(fp);
        fputs(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])", fp);
        fclose(fp);
        const Result r = importAs(path(QStringLiteral("utf")), QStringLiteral("utf"));
        ::unlink(raw.constData()); // QTemporaryDir cannot name it to remove it
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QStringLiteral(
                     "the file name is not valid UTF-8 (bytes shown as bad%FF.json)")),
                 qPrintable(r.err));
    }

    void projectMustBeAProject()
    {
        const QString nsys = path(QStringLiteral("notproject/export.sqlite"));
        QDir().mkpath(QFileInfo(nsys).absolutePath());
        QVERIFY(gmltest::writeNsysExport(nsys, 3));
        QFile before(nsys);
        QVERIFY(before.open(QIODevice::ReadOnly));
        const QByteArray header = before.read(100);
        before.close();
        Result r = run({QStringLiteral("import"), path(QStringLiteral("base")),
                        QStringLiteral("--project"), nsys});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral(
                     "export.sqlite: not a GradeML project file: it is an Nsight Systems export")),
                 qPrintable(r.err));
        QFile after(nsys);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.read(100), header); // not switched to WAL
        r = run({QStringLiteral("import"), path(QStringLiteral("base")),
                 QStringLiteral("--project"), QStringLiteral("/missing/dir/p.grademl")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("/missing/dir/p.grademl: cannot create the project: "
                                               "the folder /missing/dir does not exist")),
                 qPrintable(r.err));
        // A user_version of -1 is another program's format number, not damage (issue 56).
        const QString negative = path(QStringLiteral("notproject/negative.grademl"));
        {
            gml::SqliteDb db;
            QString error;
            QVERIFY(db.open(negative, false, &error));
            QVERIFY(db.exec("CREATE TABLE run(id INTEGER PRIMARY KEY); PRAGMA user_version = -1;"));
        }
        r = run({QStringLiteral("info"), negative});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral(
                     "its format number (SQLite's user_version) is -1, which no GradeML writes")) &&
                     !r.err.contains(QStringLiteral("damaged")),
                 qPrintable(r.err));
    }

    // What a file or an argument holds is quoted in messages with its control bytes shown, and
    // a long argument is cut (issue 56: escape sequences reached the terminal, a 10 MB regular
    // expression was echoed whole).
    void messagesCarryNoControlBytes()
    {
        const QString runDir = QStringLiteral("esc/mlruns/3/0123456789abcdef");
        write(QStringLiteral("esc/mlruns/3/meta.yaml"), "experiment_id: '3'\nname: exp\n");
        write(runDir + QStringLiteral("/meta.yaml"),
              "experiment_id: '3'\nrun_id: 0123456789abcdef\nstart_time: 16\x1b[2J28\n");
        Result r = run_(path(QStringLiteral("esc")));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("start_time is '16\\x1b[2J28'")) &&
                     !r.err.contains(QChar(0x1b)),
                 qPrintable(r.err));
        const QString huge(100'000, QLatin1Char('(')); // one argument may hold 128 KiB
        r = run({QStringLiteral("export"), m_project, QStringLiteral("--tracks"), huge,
                 QStringLiteral("--out"), path(QStringLiteral("x.png"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.size() < 5000 && r.err.contains(QStringLiteral("(100000 characters)")),
                 qPrintable(r.err.left(300)));
    }

    void clearMessages_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("expected");
        QByteArray events = "{\"traceEvents\":[";
        for (int i = 0; i < 20000; ++i)
            events += QStringLiteral(R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":%1,"dur":1},)")
                          .arg(i)
                          .toUtf8();
        events += "{}]}";
        const QByteArray gz = gmltest::gzip(events);
        QByteArray damaged = gz;
        for (int i = 0; i < 64; ++i)
            damaged[gz.size() / 2 + i] = char(damaged[gz.size() / 2 + i] ^ 0x5a);
        QTest::newRow("gzip cut short") << "cut.json.gz" << gz.left(gz.size() / 2) << 1
                                        << "gzip data is corrupt or cut short at compressed byte";
        // zlib may inflate damaged blocks into garbage before the checksum at the end says so:
        // then the JSON error names its offset in the decompressed data.
        QTest::newRow("gzip damaged")
            << "bad.json.gz" << damaged << 1 << "(offset in the decompressed data)";
        QTest::newRow("ts 1e308")
            << "ts.json"
            << QByteArray(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1e308,"dur":1}])") << 0
            << "event at byte 1 has a 'ts' out of range (1e308 µs)";
        // 16 digits of µs overflowed the exact integer path (found by fuzz_chrometrace).
        QTest::newRow("ts of 16 digits")
            << "ts16.json"
            << QByteArray(
                   R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":9700000000000005,"dur":1}])")
            << 0 << "has a 'ts' out of range (9700000000000005 µs)";
        QByteArray dcgmi = "#Entity   POWER    GPUTL\nID        W\n";
        for (int i = 0; i < 10; ++i)
            dcgmi += "GPU 0     57.9     12     7     8\n";
        QTest::newRow("dcgmi extra values")
            << "dcgmi.txt" << dcgmi << 1
            << "none of the 10 sample rows matches the header (row at byte";
        QByteArray top = "top - 15:16:05 up  5:03,  3 users,  load average: 1e+30, 0.73, 0.79\n"
                         "Tasks: 1306 total,   2 running, 1304 sleeping,   0 stopped,   0 zombie\n";
        QTest::newRow("top with a huge number")
            << "topLog.txt" << top << 0
            << "the load average '1e+30' at byte 0 is not a plausible number";
    }
    void clearMessages()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, bytes);
        QFETCH(int, code);
        QFETCH(QString, expected);
        const QString name = QString::fromLatin1(QTest::currentDataTag())
                                 .replace(QLatin1Char(' '), QLatin1Char('_'));
        const QString f = write(name + QLatin1Char('/') + file, bytes);
        const Result r = importAs(QFileInfo(f).absolutePath(), name);
        QCOMPARE(r.code, code);
        const QString all = r.err + sourceText(name + QLatin1Char('/') + file);
        QVERIFY2(all.contains(expected), qPrintable(all));
        QVERIFY2(all.contains(file), qPrintable(all));
        QVERIFY2(!all.contains(QStringLiteral("unrecognised format")), qPrintable(all));
    }

    void concurrentImportsWait()
    {
        // Two imports of the same large file at once: the second waits for the first's write
        // lock and then replaces its import; neither fails or blames the trace.
        QCOMPARE(gmltest::runProgram(QStringLiteral(GRADEML_TRACEGEN),
                                     {QStringLiteral("--out"), path(QStringLiteral("conc")),
                                      QStringLiteral("--ranks"), QStringLiteral("1"),
                                      QStringLiteral("--target-mb"), QStringLiteral("60")})
                     .code,
                 0);
        QProcess first;
        first.start(QStringLiteral(GRADEML_CLI),
                    {QStringLiteral("import"), path(QStringLiteral("conc")),
                     QStringLiteral("--project"), m_project, QStringLiteral("--run"),
                     QStringLiteral("conc")});
        QVERIFY(first.waitForStarted());
        QTest::qWait(150);
        const Result second = importAs(path(QStringLiteral("conc")), QStringLiteral("conc"));
        QVERIFY(first.waitForFinished(120000));
        const QString firstErr = QString::fromUtf8(first.readAllStandardError());
        QVERIFY2(first.exitCode() == 0, qPrintable(firstErr));
        QVERIFY2(second.code == 0, qPrintable(second.err));
        for (const QString &e : {firstErr, second.err}) {
            QVERIFY2(!e.contains(QStringLiteral("UNIQUE")), qPrintable(e));
            QVERIFY2(!e.contains(QStringLiteral("locked")), qPrintable(e));
        }
        QCOMPARE(runScalar(QStringLiteral("conc"), "count(DISTINCT t.source_id)"), 1);
        // The import checkpointed: the project file alone holds everything.
        QCOMPARE(QFileInfo(m_project + QStringLiteral("-wal")).size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestBadInputs)
#include "tst_badinputs.moc"
