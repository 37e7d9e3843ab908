// SPDX-License-Identifier: GPL-3.0-or-later
// The public CLI forms: exit codes, info --json keys, read-only query.
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

class TestCli : public QObject
{
    Q_OBJECT

    struct Result
    {
        int code;
        QByteArray out;
        QByteArray err;
    };
    Result run(const QStringList &args)
    {
        QProcess p;
        p.start(QStringLiteral(GRADEML_CLI), args);
        if (!p.waitForFinished(120000))
            qFatal("grademl did not finish");
        return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
    }

private Q_SLOTS:
    void usageErrorsExitTwo()
    {
        QCOMPARE(run({}).code, 2);
        QCOMPARE(run({QStringLiteral("import")}).code, 2);
        QCOMPARE(run({QStringLiteral("import"), QStringLiteral("x.json")}).code, 2); // no --project
        QCOMPARE(run({QStringLiteral("frobnicate")}).code, 2);
        QCOMPARE(run({QStringLiteral("import"), QStringLiteral("/nonexistent/dir"), QStringLiteral("--project"), QStringLiteral("/tmp/x.grademl")}).code, 2);
    }

    void importInfoQuery()
    {
        QTemporaryDir dir;
        const QString good = gmltest::writeFile(dir, QStringLiteral("in/good.json"),
            R"({"distributedInfo":{"rank":0,"world_size":1},"traceEvents":[
                {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":5}},
                {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":4,"dur":3,"args":{"correlation":5}},
                {"ph":"C","name":"mem","pid":1,"ts":1,"args":{"value":3}}]})");
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        auto r = run({QStringLiteral("import"), dir.filePath(QStringLiteral("in")), QStringLiteral("--project"), project});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("1 imported"), r.out.constData());

        gmltest::writeFile(dir, QStringLiteral("in/bad.json"), R"({"traceEvents":[{"ph":)");
        r = run({QStringLiteral("import"), dir.filePath(QStringLiteral("in")), QStringLiteral("--project"), project, QStringLiteral("--run"), QStringLiteral("job")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("bad.json: at byte"), r.err.constData());

        r = run({QStringLiteral("info"), project, QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const auto runs = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("runs")).toArray();
        QCOMPARE(runs.size(), 2);
        const auto first = runs[0].toObject();
        for (const char *key : {"name", "start_ns", "end_ns", "tracks", "slices", "counter_samples", "flows", "sources"})
            QVERIFY2(first.contains(QLatin1String(key)), key);
        QCOMPARE(first.value(QStringLiteral("slices")).toInteger(), 2);
        QCOMPARE(first.value(QStringLiteral("counter_samples")).toInteger(), 1);
        QCOMPARE(first.value(QStringLiteral("flows")).toInteger(), 1);
        QCOMPARE(first.value(QStringLiteral("start_ns")).toInteger(), 1000);
        QCOMPARE(first.value(QStringLiteral("end_ns")).toInteger(), 7000);
        const auto src = first.value(QStringLiteral("sources")).toArray()[0].toObject();
        for (const char *key : {"path", "format", "status", "error", "warnings", "slices", "counter_samples", "flows"})
            QVERIFY2(src.contains(QLatin1String(key)), key);
        QCOMPARE(src.value(QStringLiteral("status")).toString(), QStringLiteral("imported"));
        const auto job = runs[1].toObject();
        QCOMPARE(job.value(QStringLiteral("name")).toString(), QStringLiteral("job"));
        const auto badSrc = job.value(QStringLiteral("sources")).toArray()[0].toObject();
        QCOMPARE(badSrc.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        QVERIFY(badSrc.value(QStringLiteral("error")).toString().contains(QStringLiteral("at byte")));

        r = run({QStringLiteral("info"), project});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("stream 7 [stream] 1 slices"), r.out.constData());

        r = run({QStringLiteral("query"), project, QStringLiteral("SELECT name, dur FROM slice_abs ORDER BY ts")});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, QByteArray("name,dur\ncudaLaunchKernel,2000\nk,3000\n"));

        r = run({QStringLiteral("query"), project, QStringLiteral("DELETE FROM track")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("read-only"), r.err.constData());
        // slice and flow are virtual tables over chunks, with no write path at all.
        r = run({QStringLiteral("query"), project, QStringLiteral("DELETE FROM slice")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("may not be modified"), r.err.constData());
        r = run({QStringLiteral("query"), project, QStringLiteral("SELECT count(*) AS n FROM slice")});
        QCOMPARE(r.out, QByteArray("n\n2\n"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
