// SPDX-License-Identifier: GPL-3.0-or-later
// Nsight Systems SQLite exports: the two real exports in ../shared/traces (counts checked with SQL
// on the export itself, known rows checked for name, time and args), and small exports written
// by the test with other schema versions, missing tables and damage.
#include "folderscanner.h"
#include "importer.h"
#include "importjob.h"
#include "importutil.h"
#include "project.h"
#include "sqlitedb.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gml;

namespace {

const QString kH100 =
    QStringLiteral("nsight_systems/nsysai_h100_2gpu_mfu_before/mfu_2gpu_before.sqlite");
const QString kMock = QStringLiteral("nsight_systems/nsysai_rtx3080_tiny_full/mock.sqlite");

struct Imported
{
    std::unique_ptr<Project> project;
    SourceReport report;
};

Imported importOne(const QTemporaryDir &dir, const QString &path)
{
    Imported r;
    r.project = gmltest::newProject(dir);
    const auto reports = gmltest::importInto(*r.project, {path});
    if (reports.size() != 1)
        qFatal("expected one report");
    r.report = reports.front();
    return r;
}

qint64 exportScalar(const QString &path, const char *sql)
{
    SqliteDb db;
    if (!db.openImmutable(path, nullptr))
        return -1;
    return db.scalar(sql, -1);
}

// Builds a small export: META_DATA_EXPORT, StringIds, one process with a runtime call launching
// a kernel, with the given extra SQL.
QString writeExport(const QTemporaryDir &dir, const QString &name, const std::string &extra,
                    bool kernelHasShortName = true)
{
    const QString path = dir.filePath(name);
    SqliteDb db;
    if (!db.open(path, false, nullptr))
        qFatal("cannot create %s", qPrintable(path));
    const qint64 gtid = (qint64(4242) << 24) | 4242; // pid 4242, main thread
    std::string sql =
        "BEGIN;"
        "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);"
        "INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION', '3.10.0');"
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO StringIds VALUES(1, 'cudaLaunchKernel_v7000'), (2, 'void gemm<float>(int)'), "
        "(3, 'gemm');"
        "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, localTime "
        "TEXT);"
        "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(1700000000000000000, '', '');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, "
        "globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000, 3000, 0, " +
        std::to_string(gtid) + ", 7, 1);";
    sql +=
        kernelHasShortName
            ? "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId "
              "INTEGER, "
              "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, "
              "shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, "
              "blockY INTEGER, blockZ INTEGER);"
              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(4000, 9000, 0, 7, 7, " +
                  std::to_string(qint64(4242) << 24) + ", 2, 3, 80, 1, 1, 256, 1, 1);"
            : "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId "
              "INTEGER, "
              "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(4000, 9000, 0, 7, 7, " +
                  std::to_string(qint64(4242) << 24) + ", 2);";
    sql += extra;
    sql += "COMMIT;";
    QString error;
    if (!db.exec(sql, &error))
        qFatal("cannot build export: %s", qPrintable(error));
    return path;
}

} // namespace

class TestNsys : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void realH100TwoGpus();
    void realTinyComplete();
    void olderSchemaAndMissingTables();
    void nvtxTextIdsDomainsAndOpenRanges();
    void cudaMemoryUsageBecomesACounter();
    void notAnExport();
    void danglingStringReference();
    void damaged_data();
    void damaged();
};

void TestNsys::realH100TwoGpus()
{
    GML_REQUIRE_SHARED(kH100);
    const QString path = gmltest::sharedTraces() + QLatin1Char('/') + kH100;
    const qint64 kernels = exportScalar(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    const qint64 memcpys = exportScalar(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY");
    const qint64 memsets = exportScalar(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET");
    const qint64 runtime = exportScalar(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    const qint64 nvtx =
        exportScalar(path, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60)");
    const qint64 syncs =
        exportScalar(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    QCOMPARE(kernels, 4010); // as SOURCES.md lists
    QCOMPARE(nvtx, 19118);
    // Launch links: GPU work with a runtime call of the same correlation id in the same process.
    const qint64 linked = exportScalar(
        path,
        "SELECT count(*) FROM (SELECT correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL "
        "UNION ALL SELECT correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMCPY "
        "UNION ALL SELECT correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET) g "
        "WHERE EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = "
        "g.correlationId AND (r.globalTid >> 24) = (g.globalPid >> 24))");

    QTemporaryDir dir;
    auto r = importOne(dir, path);
    QCOMPARE(r.report.status, SourceReport::Status::Imported);
    QCOMPARE(r.report.format, QStringLiteral("nsys-sqlite"));
    QCOMPARE(r.report.slices, kernels + memcpys + memsets + runtime + nvtx + syncs);
    QCOMPARE(r.report.flows, linked);
    Project &p = *r.project;
    QCOMPARE(gmltest::scalar(p, "SELECT count(*) FROM flow WHERE kind = 1"), linked);
    QCOMPARE(gmltest::scalar(p, "SELECT count(*) FROM slice_abs WHERE category = 'kernel'"),
             kernels);
    // Two GPUs, one stream each; two python processes with named threads.
    QCOMPARE(gmltest::scalar(p, "SELECT count(*) FROM track WHERE kind = 4"), 2);
    QCOMPARE(
        gmltest::text(p,
                      QStringLiteral("SELECT group_concat(name, '|') FROM (SELECT name FROM track "
                                     "WHERE kind = 3 ORDER BY name)")),
        QStringLiteral("thread 144 (python3)|thread 145 (python3)|thread 242 (pt_nccl_watchdg)|"
                       "thread 245 (pt_nccl_watchdg)"));
    // The first kernel: UTC = session start + its start; name from StringIds (demangled).
    const qint64 t0 = exportScalar(path, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME") +
                      exportScalar(path, "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    auto st = p.db().prepare("SELECT ts, dur, name, args, correlation FROM slice_abs "
                             "WHERE category = 'kernel' ORDER BY ts LIMIT 1");
    QVERIFY(st.step());
    QCOMPARE(st.int64(0), t0);
    QCOMPARE(st.int64(1), 60111701657LL - 60111513113LL);
    QCOMPARE(st.int64(4), 2619582);
    const QJsonObject args = QJsonDocument::fromJson(st.text(3).toUtf8()).object();
    QCOMPARE(args.value(QStringLiteral("grid")).toArray().at(0).toInt(), 93600);
    QCOMPARE(args.value(QStringLiteral("block")).toArray().at(0).toInt(), 128);
    QCOMPARE(args.value(QStringLiteral("registers per thread")).toInt(), 18);
    {
        SqliteDb db;
        QVERIFY(db.openImmutable(path, nullptr));
        auto n = db.prepare("SELECT value FROM StringIds WHERE id = 1366270");
        QVERIFY(n.step());
        QCOMPARE(st.text(2), n.text(0));
    }
    // Runtime names lose their version suffix; memcpy names say the direction.
    QCOMPARE(gmltest::scalar(
                 p, "SELECT count(*) FROM slice_abs WHERE name LIKE '%\\_v____%' ESCAPE '\\' "
                    "AND category = 'cuda_runtime'"),
             0);
    QVERIFY(gmltest::scalar(p, "SELECT count(*) FROM slice_abs WHERE name = 'cudaLaunchKernel'") >
            0);
    QVERIFY(gmltest::scalar(p, "SELECT count(*) FROM slice_abs WHERE name LIKE 'Memcpy DtoD%'") >
            0);
    // The export's schema version is kept.
    QCOMPARE(gmltest::text(
                 p, QStringLiteral(
                        "SELECT json_extract(metadata, '$.EXPORT_SCHEMA_VERSION') FROM source")),
             QStringLiteral("3.25.0"));
}

void TestNsys::realTinyComplete()
{
    GML_REQUIRE_SHARED(kMock);
    const QString path = gmltest::sharedTraces() + QLatin1Char('/') + kMock;
    QTemporaryDir dir;
    auto r = importOne(dir, path);
    QCOMPARE(r.report.status, SourceReport::Status::Imported);
    const qint64 expected =
        exportScalar(path, "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) + "
                           "(SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY) + "
                           "(SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME) + "
                           "(SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)");
    QCOMPARE(r.report.slices, expected);
    QCOMPARE(r.report.flows, 3); // 2 kernels and 1 memcpy, each launched by a runtime call
    // TARGET_INFO_GPU names the GPU; only the process with CUDA activity gets a track.
    QCOMPARE(gmltest::text(*r.project, QStringLiteral("SELECT name FROM track WHERE kind = 4")),
             QStringLiteral("GPU 0 · NVIDIA GeForce RTX 3080"));
    QCOMPARE(gmltest::scalar(*r.project, "SELECT count(*) FROM track WHERE kind = 2"), 1);
}

void TestNsys::olderSchemaAndMissingTables()
{
    // No shortName or launch geometry columns, no NVTX, no memcpy, no thread names.
    QTemporaryDir dir;
    const QString path = writeExport(dir, QStringLiteral("old.sqlite"), {}, false);
    QTemporaryDir pdir;
    auto r = importOne(pdir, path);
    QCOMPARE(r.report.status, SourceReport::Status::Imported);
    QCOMPARE(r.report.slices, 2);
    QCOMPARE(r.report.flows, 1);
    auto st =
        r.project->db().prepare("SELECT name, ts, dur FROM slice_abs WHERE category='kernel'");
    QVERIFY(st.step());
    QCOMPARE(st.text(0), QStringLiteral("void gemm<float>(int)"));
    QCOMPARE(st.int64(1), 1700000000000004000LL);
    QCOMPARE(st.int64(2), 5000);
    QCOMPARE(gmltest::text(*r.project, QStringLiteral("SELECT name FROM track WHERE kind = 3")),
             QStringLiteral("thread 4242"));
}

void TestNsys::nvtxTextIdsDomainsAndOpenRanges()
{
    const qint64 gtid = (qint64(4242) << 24) | 4242;
    const std::string g = std::to_string(gtid);
    QTemporaryDir dir;
    const QString path = writeExport(
        dir, QStringLiteral("nvtx.sqlite"),
        "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT, "
        "globalTid INTEGER, textId INTEGER, domainId INTEGER);"
        "INSERT INTO StringIds VALUES(10, 'forward'), (11, 'Megatron');"
        "INSERT INTO NVTX_EVENTS VALUES(0, NULL, 75, NULL, " +
            g +
            ", 11, 5);" // domain
            "INSERT INTO NVTX_EVENTS VALUES(500, 3500, 59, NULL, " +
            g +
            ", 10, 5);" // textId
            "INSERT INTO NVTX_EVENTS VALUES(600, 700, 59, 'inline', " +
            g +
            ", NULL, 0);" // inline
            "INSERT INTO NVTX_EVENTS VALUES(800, NULL, 34, 'mark', " +
            g +
            ", NULL, 0);" // mark
            "INSERT INTO NVTX_EVENTS VALUES(900, NULL, 59, 'open', " +
            g +
            ", NULL, 0);" // unclosed
            "INSERT INTO NVTX_EVENTS VALUES(950, 5000, 60, 'async', " +
            g + ", NULL, 0);"); // start/end
    QTemporaryDir pdir;
    auto r = importOne(pdir, path);
    QCOMPARE(r.report.status, SourceReport::Status::Imported);
    QCOMPARE(r.report.slices, 2 + 5);
    QCOMPARE(r.report.warnings, 1); // the open range
    Project &p = *r.project;
    QCOMPARE(
        gmltest::text(p, QStringLiteral("SELECT category FROM slice_abs WHERE name = 'forward'")),
        QStringLiteral("Megatron"));
    QCOMPARE(
        gmltest::text(p, QStringLiteral("SELECT category FROM slice_abs WHERE name = 'inline'")),
        QStringLiteral("nvtx"));
    QCOMPARE(gmltest::scalar(p, "SELECT dur FROM slice_abs WHERE name = 'mark'"), 0);
    QCOMPARE(gmltest::scalar(p, "SELECT dur FROM slice_abs WHERE name = 'open'"),
             9000 - 900); // to the last event
    QCOMPARE(
        gmltest::text(
            p, QStringLiteral("SELECT t.name FROM slice_abs s JOIN track t ON t.id = s.track_id "
                              "WHERE s.name = 'async'")),
        QStringLiteral("NVTX start/end ranges"));
}

// nsys --cuda-memory-usage=true: device allocations less frees per GPU, as a counter in MiB
// under the GPU's row; pinned host memory is left out, and said.
void TestNsys::cudaMemoryUsageBecomesACounter()
{
    const std::string pid = std::to_string(qint64(4242) << 24);
    QTemporaryDir dir;
    const QString path = writeExport(
        dir, QStringLiteral("mem.sqlite"),
        "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS(start INTEGER, globalPid INTEGER, deviceId "
        "INTEGER, contextId INTEGER, address INTEGER, pc INTEGER, bytes INTEGER, memKind "
        "INTEGER, memoryOperationType INTEGER, name TEXT, correlationId INTEGER);"
        "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES"
        "(1000, " +
            pid +
            ", 0, 1, 4096, 0, 2097152, 2, 0, NULL, 1)," // +2 MiB
            "(2000, " +
            pid +
            ", 0, 1, 8192, 0, 1048576, 2, 0, NULL, 2)," // +1 MiB: 3
            "(2500, " +
            pid +
            ", 0, 1, 9999, 0, 1048576, 1, 0, NULL, 3)," // pinned: left out
            "(3000, " +
            pid +
            ", 0, 1, 4096, 0, 2097152, 2, 1, NULL, 4)," // -2 MiB: 1
            "(4000, " +
            pid + ", 1, 1, 4096, 0, 4194304, 2, 0, NULL, 5);"); // GPU 1: 4 MiB
    QTemporaryDir pdir;
    auto r = importOne(pdir, path);
    QCOMPARE(r.report.status, SourceReport::Status::Imported);
    Project &p = *r.project;
    QCOMPARE(gmltest::scalar(p, "SELECT count(*) FROM track WHERE name = 'memory allocated · "
                                "Nsight Systems' AND unit = 'MiB'"),
             2);
    QCOMPARE(gmltest::text(
                 p, QStringLiteral("SELECT group_concat(k.value, ',') FROM counter k JOIN track t "
                                   "ON t.id = k.track_id JOIN track g ON g.id = t.parent_id WHERE "
                                   "g.pid = '0' AND t.name LIKE 'memory allocated%'")),
             QStringLiteral("2.0,3.0,1.0"));
    QCOMPARE(gmltest::scalar(p, "SELECT max(k.value) FROM counter k JOIN track t ON t.id = "
                                "k.track_id JOIN track g ON g.id = t.parent_id WHERE g.pid = '1' "
                                "AND t.name LIKE 'memory allocated%'"),
             4);
    QVERIFY(r.report.warnings >= 1); // the pinned operation
}

void TestNsys::notAnExport()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("other.sqlite"));
    {
        SqliteDb db;
        QVERIFY(db.open(path, false, nullptr));
        QVERIFY(db.exec("CREATE TABLE t(x); INSERT INTO t VALUES(1);"));
    }
    QString why;
    QVERIFY(!sniffFile(path, &why));
    QVERIFY2(why.contains(QLatin1String("not an Nsight Systems export")), qPrintable(why));
}

void TestNsys::danglingStringReference()
{
    // The kernel's name (string 2) is gone from StringIds: named by its id and said, not "?".
    QTemporaryDir dir;
    const QString path = writeExport(dir, QStringLiteral("dangling.sqlite"),
                                     "DELETE FROM StringIds WHERE id = 2;", false);
    QTemporaryDir pdir;
    auto r = importOne(pdir, path);
    QCOMPARE(r.report.status, SourceReport::Status::Imported);
    QCOMPARE(gmltest::text(*r.project,
                           QStringLiteral("SELECT name FROM slice_abs WHERE category='kernel'")),
             QStringLiteral("string 2"));
    const QString warnings =
        gmltest::text(*r.project, QStringLiteral("SELECT warnings FROM source"));
    QVERIFY2(
        warnings.contains(QLatin1String(
            "string id 2 is used by an event but is not in StringIds (the export is damaged)")),
        qPrintable(warnings));
}

void TestNsys::damaged_data()
{
    QTest::addColumn<QString>("how");
    QTest::newRow("truncated") << QStringLiteral("truncated");
    QTest::newRow("garbage pages") << QStringLiteral("garbage");
}

void TestNsys::damaged()
{
    QFETCH(QString, how);
    // A real-size export (many pages), then damaged: the import fails naming the file and
    // what is wrong, and the project keeps nothing of it.
    QTemporaryDir dir;
    std::string rows;
    const std::string g = std::to_string((qint64(4242) << 24) | 4242);
    for (int i = 0; i < 4000; ++i)
        rows += "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(" + std::to_string(10000 + i * 10) +
                ", " + std::to_string(10005 + i * 10) + ", 0, " + g + ", " +
                std::to_string(100 + i) + ", 1);";
    const QString path = writeExport(dir, QStringLiteral("big.sqlite"), rows);
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadWrite));
    const qint64 size = f.size();
    QVERIFY(size > 64 * 1024);
    if (how == QLatin1String("truncated")) {
        QVERIFY(f.resize(size / 2));
    } else {
        f.seek(size / 2);
        f.write(QByteArray(8192, '\xA5'));
    }
    f.close();
    QTemporaryDir pdir;
    auto r = importOne(pdir, path);
    QCOMPARE(r.report.status, SourceReport::Status::Failed);
    QVERIFY2(r.report.message.startsWith(path), qPrintable(r.report.message));
    QVERIFY2(r.report.message.contains(QLatin1String("malformed")) ||
                 r.report.message.contains(QLatin1String("not a database")),
             qPrintable(r.report.message));
    QCOMPARE(gmltest::scalar(*r.project, "SELECT count(*) FROM slice"), 0);
    QCOMPARE(gmltest::scalar(*r.project, "SELECT count(*) FROM track"), 0);
}

QTEST_GUILESS_MAIN(TestNsys)
#include "tst_nsys.moc"
