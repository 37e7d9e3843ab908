// SPDX-License-Identifier: GPL-3.0-or-later
// GPU and host monitoring logs: nvidia-smi --query-gpu CSV, nvidia-smi dmon, dcgmi dmon, top -b.
// Real PMDLT logs from ../shared/traces (counts checked against an independent count of the same
// file made here with plain string splitting; known rows checked for value, unit and time), and
// malformed variants written by the test.
#include "folderscanner.h"
#include "importer.h"
#include "importjob.h"
#include "importutil.h"
#include "project.h"
#include "projectsummary.h"
#include "testutil.h"

#include <QDateTime>
#include <QTest>
#include <QTimeZone>

using namespace gml;

namespace {

const QString kPmdlt = QStringLiteral("gpu_monitoring/pmdlt_dgx_a100_mnist");

struct Imported
{
    std::unique_ptr<Project> project;
    QList<SourceReport> reports;
};

Imported importPaths(const QTemporaryDir &dir, const QStringList &paths,
                     const QByteArray &zone = "UTC")
{
    Imported r;
    r.project = gmltest::newProject(dir);
    r.reports = gmltest::importInto(*r.project, paths, QString(),
                                    zone.isEmpty() ? QTimeZone() : QTimeZone(zone));
    return r;
}

const SourceReport *report(const Imported &r, const QString &fileName)
{
    for (const auto &rep : r.reports)
        if (rep.path.endsWith(QLatin1Char('/') + fileName))
            return &rep;
    return nullptr;
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

TimeNs utcNs(const char *iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs).toMSecsSinceEpoch() *
           1'000'000;
}

// (ts, value) of the first sample of the counter track whose name contains `name` under the
// device track whose name starts with `device`.
std::pair<TimeNs, double> firstSample(Project &p, const QString &device, const QString &name,
                                      QString *unit = nullptr, qint64 *count = nullptr)
{
    auto st = p.db().prepare(
        "SELECT k.ts + s.clock_offset_ns, k.value, t.unit, t.counter_count FROM counter k "
        "JOIN track t ON t.id = k.track_id JOIN track d ON d.id = t.parent_id "
        "JOIN source s ON s.id = t.source_id "
        "WHERE d.name LIKE ?1 || '%' AND t.name LIKE '%' || ?2 || '%' ORDER BY k.ts LIMIT 1");
    st.bind(1, device);
    st.bind(2, name);
    if (!st.step())
        return {-1, -1};
    if (unit)
        *unit = st.text(2);
    if (count)
        *count = st.int64(3);
    return {st.int64(0), st.real(1)};
}

} // namespace

class TestMonitoring : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sniffing();
    void nvidiaSmiReal();
    void dcgmiReal();
    void topReal();
    void topUndatedSaysSo();
    void wholeFolderTree();
    void timeZones();
    void folderSettingsFile();
    void smiWithoutTimestampOrIndex();
    void smiWithIndexColumn();
    void dmonDatedAndUndated();
    void dcgmiWithoutSibling();
    void dcgmiRepeatedColumn();
    void mergedUnderTraceGpu();
    void malformed_data();
    void malformed();
};

void TestMonitoring::sniffing()
{
    QTemporaryDir dir;
    struct Case
    {
        const char *name;
        QByteArray content;
        const char *format;
    } cases[] = {
        {"a.txt",
         "name, pstate, timestamp, utilization.gpu [%]\nX, P0, 2023/02/21 15:16:55.262, 3 %\n",
         "nvidia-smi-csv"},
        {"b.log", "# gpu   pwr gtemp\n# Idx     W     C\n    0    43    48\n", "nvidia-smi-dmon"},
        {"c.log",
         "#Date       Time        gpu   pwr\n#YYYYMMDD   HH:MM:SS    Idx     W\n 20230221   "
         "15:16:55      0    43\n",
         "nvidia-smi-dmon"},
        {"d.txt", "#Entity   POWER\nID        W\nGPU 0     57.9\n", "dcgmi-dmon"},
        {"e.txt", "top - 15:19:26 up  5:06,  1 user,  load average: 1.80, 1.23, 0.98\n",
         "top-batch"},
        {"f.txt", "Train Epoch: 1 [0/60000 (0%)]\tLoss: 2.299824\n", nullptr},
        {"g.csv", "a,b,c\n1,2,3\n", nullptr},
        // top's rows without their 'top - ' headers (grep'd): named as such, not "unrecognised".
        {"h.txt",
         "  89616 ehyo      20   0 2381860 106644  72288 R  88.2   0.0   0:00.16 python\n"
         "   2885 root      20   0 3047480  42320  29476 S   5.9   0.0   0:53.04 containerd\n",
         nullptr},
    };
    for (const auto &c : cases) {
        const QString path = gmltest::writeFile(dir, QString::fromLatin1(c.name), c.content);
        QString why;
        const Importer *imp = sniffFile(path, &why);
        if (c.format) {
            QVERIFY2(imp, c.name);
            QCOMPARE(imp->format(), QString::fromLatin1(c.format));
        } else {
            QVERIFY2(!imp, c.name);
            QVERIFY(!why.isEmpty());
            if (QByteArrayView(c.name) == "h.txt")
                QVERIFY2(why.startsWith(QStringLiteral(
                             "top's process table without the 'top - HH:MM:SS up …' header")),
                         qPrintable(why));
        }
    }
}

void TestMonitoring::nvidiaSmiReal()
{
    const QString rel = kPmdlt + QStringLiteral("/02-nvidia-smi/ex3_nvsmLog.txt");
    GML_REQUIRE_SHARED(rel);
    const QString path = gmltest::sharedTraces() + QLatin1Char('/') + rel;
    // Independent count: data lines x numeric columns (pstate, two utilizations, two memories).
    const QList<QByteArray> lines = readFile(path).trimmed().split('\n');
    const qint64 rows = lines.size() - 1;
    QCOMPARE(rows, 250);
    QTemporaryDir dir;
    auto r = importPaths(dir, {path});
    const auto *rep = report(r, QStringLiteral("ex3_nvsmLog.txt"));
    QVERIFY(rep);
    QCOMPARE(rep->status, SourceReport::Status::Imported);
    QCOMPARE(rep->format, QStringLiteral("nvidia-smi-csv"));
    QCOMPARE(rep->counterSamples, rows * 5);
    QCOMPARE(rep->warnings, 0);
    // Five GPUs by position; the fourth is the display GPU.
    QCOMPARE(gmltest::scalar(*r.project, "SELECT count(*) FROM track WHERE kind=4"), 5);
    QCOMPARE(gmltest::text(*r.project,
                           QStringLiteral("SELECT name FROM track WHERE kind=4 AND pid='3'")),
             QStringLiteral("GPU 3 · NVIDIA DGX Display"));
    // Row 1: "NVIDIA A100-SXM4-40GB, P0, 2023/02/21 15:16:55.262, 33 %, 1 %, 40960 MiB, 0 MiB".
    QString unit;
    qint64 count = 0;
    auto [ts, v] = firstSample(*r.project, QStringLiteral("GPU 0"),
                               QStringLiteral("utilization.gpu"), &unit, &count);
    QCOMPARE(ts, utcNs("2023-02-21T15:16:55.262Z"));
    QCOMPARE(v, 33.0);
    QCOMPARE(unit, QStringLiteral("%"));
    QCOMPARE(count, 50);
    std::tie(ts, v) =
        firstSample(*r.project, QStringLiteral("GPU 3"), QStringLiteral("memory.total"), &unit);
    QCOMPARE(ts, utcNs("2023-02-21T15:16:55.269Z"));
    QCOMPARE(v, 4096.0);
    QCOMPARE(unit, QStringLiteral("MiB"));
    // Exact times come from the file: no track is marked estimated.
    QCOMPARE(
        gmltest::scalar(*r.project, "SELECT count(*) FROM track WHERE name LIKE '%estimated%'"), 0);
}

void TestMonitoring::dcgmiReal()
{
    const QString rel = kPmdlt + QStringLiteral("/03-dcgmi/ex6_dcgmi_log.txt");
    GML_REQUIRE_SHARED(rel);
    const QString path = gmltest::sharedTraces() + QLatin1Char('/') + rel;
    // Independent count: numeric tokens of the GPU rows.
    qint64 values = 0, rows = 0;
    for (const QByteArray &line : readFile(path).split('\n')) {
        if (!line.startsWith("GPU "))
            continue;
        ++rows;
        const auto tokens = line.simplified().split(' ');
        for (int i = 2; i < tokens.size(); ++i)
            values += tokens[i] != "N/A";
    }
    QCOMPARE(rows, 250);
    QTemporaryDir dir;
    // With its sibling nvidia-smi log, the first sample sits at that log's first timestamp.
    auto r = importPaths(dir, {path, gmltest::sharedTraces() + QLatin1Char('/') + kPmdlt +
                                         QStringLiteral("/03-dcgmi/ex6_nvsmLog.txt")});
    const auto *rep = report(r, QStringLiteral("ex6_dcgmi_log.txt"));
    QVERIFY(rep);
    QCOMPARE(rep->status, SourceReport::Status::Imported);
    QCOMPARE(rep->format, QStringLiteral("dcgmi-dmon"));
    QCOMPARE(rep->counterSamples, values);
    QCOMPARE(rep->warnings, 0);
    QString unit;
    qint64 count = 0;
    auto [ts, v] =
        firstSample(*r.project, QStringLiteral("GPU 0"), QStringLiteral("POWER"), &unit, &count);
    QCOMPARE(ts, utcNs("2023-02-21T15:19:26.082Z"));
    QCOMPARE(v, 57.976);
    QCOMPARE(unit, QStringLiteral("W"));
    QCOMPARE(count, 50); // 250 rows of 5 GPUs
    // The display GPU has no power reading; units from the units line ("KB/" -> "KB/s") or
    // from the field table; the tracks say their time is estimated.
    QCOMPARE(gmltest::scalar(*r.project,
                             "SELECT count(*) FROM track t JOIN track d ON d.id=t.parent_id "
                             "WHERE d.name='GPU 3' AND t.name LIKE 'dcgmi · POWER%'"),
             0);
    QCOMPARE(
        gmltest::text(*r.project,
                      QStringLiteral("SELECT unit FROM track WHERE name LIKE 'dcgmi · SMACT%'")),
        QStringLiteral("ratio"));
    QCOMPARE(
        gmltest::text(*r.project,
                      QStringLiteral("SELECT unit FROM track WHERE name LIKE 'dcgmi · PCITX%'")),
        QStringLiteral("B/s"));
    QCOMPARE(gmltest::scalar(*r.project, "SELECT count(*) FROM track WHERE name LIKE 'dcgmi%' AND "
                                         "name NOT LIKE '%(time estimated)'"),
             0);
    const QString placement = gmltest::text(
        *r.project, QStringLiteral("SELECT json_extract(metadata, '$.time_placement') FROM source "
                                   "WHERE path LIKE '%ex6_dcgmi_log.txt'"));
    QVERIFY2(placement.contains(QLatin1String("ex6_nvsmLog.txt")), qPrintable(placement));
    // One sample per second: the 50th sample is 49 s after the first.
    QCOMPARE(gmltest::scalar(*r.project, "SELECT max(k.ts) - min(k.ts) FROM counter k JOIN track t "
                                         "ON t.id=k.track_id WHERE t.name LIKE 'dcgmi · POWER%'"),
             49'000'000'000LL);
}

void TestMonitoring::topReal()
{
    const QString rel = kPmdlt + QStringLiteral("/03-dcgmi/ex6_topLog.txt");
    GML_REQUIRE_SHARED(rel);
    const QString path = gmltest::sharedTraces() + QLatin1Char('/') + rel;
    const qint64 blocks = readFile(path).count("\ntop - ") + 1;
    QCOMPARE(blocks, 17);
    QTemporaryDir dir;
    auto r = importPaths(
        dir, {gmltest::sharedTraces() + QLatin1Char('/') + kPmdlt + QStringLiteral("/03-dcgmi")});
    const auto *rep = report(r, QStringLiteral("ex6_topLog.txt"));
    QVERIFY(rep);
    QCOMPARE(rep->status, SourceReport::Status::Imported);
    QCOMPARE(rep->format, QStringLiteral("top-batch"));
    // The date comes from the sibling nvidia-smi log; "top - 15:19:26": 2.1 % busy, 3361.3 MiB
    // used.
    QString unit;
    qint64 count = 0;
    auto [ts, v] =
        firstSample(*r.project, QStringLiteral("host"), QStringLiteral("CPU busy"), &unit, &count);
    QCOMPARE(ts, utcNs("2023-02-21T15:19:26.000Z"));
    QCOMPARE(v, 100.0 - 97.9);
    QCOMPARE(unit, QStringLiteral("%"));
    QCOMPARE(count, blocks);
    std::tie(ts, v) =
        firstSample(*r.project, QStringLiteral("host"), QStringLiteral("memory used"), &unit);
    QCOMPARE(v, 3361.3);
    QCOMPARE(unit, QStringLiteral("MiB"));
    // Mixed units in the process table: "2.7g" RES in the second block is 2764.8 MiB.
    auto st = r.project->db().prepare(
        "SELECT k.value FROM counter k JOIN track t ON t.id=k.track_id "
        "WHERE t.name = 'top · python (pid 91607) RES' ORDER BY k.ts LIMIT 2");
    QVERIFY(st.step());
    QCOMPARE(st.real(0), 105800.0 / 1024); // first block: plain KiB
    QVERIFY(st.step());
    QVERIFY(qAbs(st.real(0) - 2.7 * 1024) < 1e-9);
}

void TestMonitoring::wholeFolderTree()
{
    GML_REQUIRE_SHARED(kPmdlt);
    QTemporaryDir dir;
    auto r = importPaths(dir, {gmltest::sharedTraces() + QLatin1Char('/') + kPmdlt});
    int imported = 0, skipped = 0;
    for (const auto &rep : r.reports) {
        QVERIFY2(rep.status != SourceReport::Status::Failed, qPrintable(rep.message));
        imported += rep.status == SourceReport::Status::Imported;
        skipped += rep.status == SourceReport::Status::Skipped;
        if (rep.status == SourceReport::Status::Skipped)
            QVERIFY2(!rep.message.isEmpty(), qPrintable(rep.path));
    }
    QCOMPARE(imported, 8); // 3 top, 3 nvidia-smi, 2 dcgmi
    QCOMPARE(skipped, 4);  // training stdout/stderr
    // dcgmi and nvidia-smi GPU rows of one run are shown as one row per GPU.
    QString error;
    const auto runs = summarizeProject(*r.project, &error);
    for (const auto &run : runs) {
        if (!run.name.endsWith(QLatin1String("03-dcgmi")))
            continue;
        int gpuRows = 0;
        for (const auto &t : run.tracks)
            gpuRows += t.kind == TrackKind::Gpu;
        QCOMPARE(gpuRows, 5);
    }
}

void TestMonitoring::timeZones()
{
    QTemporaryDir dir;
    const QString path = gmltest::writeFile(
        dir, QStringLiteral("smi.csv"),
        "timestamp, index, utilization.gpu [%]\n2023/02/21 15:16:55.262, 0, 33 %\n");
    {
        QTemporaryDir pdir;
        auto r = importPaths(pdir, {path}, "Europe/Paris"); // UTC+1 in February
        QCOMPARE(
            firstSample(*r.project, QStringLiteral("GPU 0"), QStringLiteral("utilization")).first,
            utcNs("2023-02-21T14:16:55.262Z"));
    }
    {
        QTemporaryDir pdir;
        auto r = importPaths(pdir, {path}, "America/New_York"); // UTC-5
        QCOMPARE(
            firstSample(*r.project, QStringLiteral("GPU 0"), QStringLiteral("utilization")).first,
            utcNs("2023-02-21T20:16:55.262Z"));
        // Changing the time zone reads the log again; the same one leaves it.
        auto reports = gmltest::importInto(*r.project, {path}, QString(), QTimeZone("UTC"));
        QCOMPARE(reports.front().status, SourceReport::Status::Imported);
        QCOMPARE(
            firstSample(*r.project, QStringLiteral("GPU 0"), QStringLiteral("utilization")).first,
            utcNs("2023-02-21T15:16:55.262Z"));
        reports = gmltest::importInto(*r.project, {path}, QString(), QTimeZone("UTC"));
        QCOMPARE(reports.front().status, SourceReport::Status::Unchanged);
    }
}

void TestMonitoring::folderSettingsFile()
{
    QTemporaryDir dir;
    gmltest::writeFile(dir, QStringLiteral("logs/grademl.json"), R"J({"timezone": "Asia/Tokyo"})J");
    gmltest::writeFile(dir, QStringLiteral("logs/node1/smi.csv"),
                       "timestamp, index, utilization.gpu [%]\n2023/02/21 15:16:55.262, 0, 33 %\n");
    QStringList errors;
    const auto files = scanInputs({dir.filePath(QStringLiteral("logs"))}, QString(), &errors);
    QVERIFY(errors.isEmpty());
    QCOMPARE(files.size(), 1); // grademl.json itself is not a trace
    QCOMPARE(files.front().timeZone, QStringLiteral("Asia/Tokyo"));
    QTemporaryDir pdir;
    auto r = importPaths(pdir, {dir.filePath(QStringLiteral("logs"))}, QByteArray());
    QCOMPARE(firstSample(*r.project, QStringLiteral("GPU 0"), QStringLiteral("utilization")).first,
             utcNs("2023-02-21T06:16:55.262Z")); // UTC+9
    // A bad settings file is an error naming it and what was expected.
    gmltest::writeFile(dir, QStringLiteral("logs/grademl.json"),
                       R"J({"timezone": "Mars/Olympus"})J");
    errors.clear();
    scanInputs({dir.filePath(QStringLiteral("logs"))}, QString(), &errors);
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.front().contains(QLatin1String("grademl.json")) &&
                 errors.front().contains(QLatin1String("Mars/Olympus")),
             qPrintable(errors.front()));
    // A run name that is not a string is ignored with a warning, and the import goes on with
    // the rest of the file (issue 33: it said "ignored" but imported nothing, exit 2).
    gmltest::writeFile(dir, QStringLiteral("logs/grademl.json"),
                       R"J({"timezone": "Asia/Tokyo", "run": 5})J");
    errors.clear();
    QStringList warnings;
    QCOMPARE(
        scanInputs({dir.filePath(QStringLiteral("logs"))}, QString(), &errors, &warnings).size(),
        1);
    QVERIFY(errors.isEmpty());
    QCOMPARE(warnings.size(), 1);
    QVERIFY2(warnings.front().contains(QLatin1String("\"run\" must be a string")) &&
                 warnings.front().contains(QLatin1String("got 5")),
             qPrintable(warnings.front()));
    const auto cli = gmltest::runCli(
        {QStringLiteral("import"), dir.filePath(QStringLiteral("logs")),
         QStringLiteral("--project"), pdir.filePath(QStringLiteral("cli.grademl"))});
    QCOMPARE(cli.code, 0);
    QVERIFY2(cli.err.contains("grademl import: warning: ") && cli.err.contains("ignored"),
             cli.err.constData());
}

void TestMonitoring::smiWithoutTimestampOrIndex()
{
    // Two A100s and a display GPU, no timestamp: the (name, memory.total) sequence repeats every
    // three rows, so there are 3 GPUs and 2 samples, placed by the file's modification time.
    QTemporaryDir dir;
    const QString path = gmltest::writeFile(dir, QStringLiteral("smi.csv"),
                                            "name, utilization.gpu [%], memory.total [MiB]\n"
                                            "NVIDIA A100, 10 %, 40960 MiB\n"
                                            "NVIDIA A100, 20 %, 40960 MiB\n"
                                            "NVIDIA DGX Display, 0 %, 4096 MiB\n"
                                            "NVIDIA A100, 11 %, 40960 MiB\n"
                                            "NVIDIA A100, 21 %, 40960 MiB\n"
                                            "NVIDIA DGX Display, 1 %, 4096 MiB\n");
    const QDateTime mtime =
        QDateTime::fromString(QStringLiteral("2024-05-01T12:00:00Z"), Qt::ISODate);
    QVERIFY(gmltest::setMtime(path, mtime));
    QTemporaryDir pdir;
    auto r = importPaths(pdir, {path});
    QCOMPARE(r.reports.front().status, SourceReport::Status::Imported);
    QCOMPARE(gmltest::scalar(*r.project, "SELECT count(*) FROM track WHERE kind=4"), 3);
    auto [ts, v] = firstSample(*r.project, QStringLiteral("GPU 1"), QStringLiteral("utilization"));
    QCOMPARE(v, 20.0);
    // Last sample at the modification time, one second apart.
    QCOMPARE(ts, mtime.toMSecsSinceEpoch() * 1'000'000 - 1'000'000'000LL);
    QCOMPARE(gmltest::scalar(
                 *r.project,
                 "SELECT count(*) FROM track WHERE kind=6 AND name NOT LIKE '%(time estimated)'"),
             0);
}

void TestMonitoring::smiWithIndexColumn()
{
    QTemporaryDir dir;
    const QString path = gmltest::writeFile(
        dir, QStringLiteral("smi.csv"),
        "timestamp, index, name, power.draw [W], clocks.sm [MHz], persistence_mode\n"
        "2024/01/02 03:04:05.006, 1, H100, 300.50 W, 1980 MHz, Enabled\n"
        "2024/01/02 03:04:05.007, 0, H100, [N/A], 1980 MHz, Enabled\n"
        "2024/01/02 03:04:05.106, 1, H100, 301.50 W, 1985 MHz, Enabled\n"
        "2024/01/02 03:04:05.107, 0, H100, 100.00 W, 1985 MHz, Enabled\n");
    QTemporaryDir pdir;
    auto r = importPaths(pdir, {path});
    const auto &rep = r.reports.front();
    QCOMPARE(rep.status, SourceReport::Status::Imported);
    QCOMPARE(rep.counterSamples, 7); // one [N/A]; persistence_mode is not a number
    QCOMPARE(rep.warnings, 1);
    QString unit;
    auto [ts, v] =
        firstSample(*r.project, QStringLiteral("GPU 1"), QStringLiteral("power.draw"), &unit);
    QCOMPARE(ts, utcNs("2024-01-02T03:04:05.006Z"));
    QCOMPARE(v, 300.5);
    QCOMPARE(unit, QStringLiteral("W"));
    QCOMPARE(firstSample(*r.project, QStringLiteral("GPU 0"), QStringLiteral("power.draw")).second,
             100.0);
}

void TestMonitoring::dmonDatedAndUndated()
{
    QTemporaryDir dir;
    const QString dated = gmltest::writeFile(dir, QStringLiteral("a/dmon.log"),
                                             "#Date       Time        gpu   pwr gtemp    sm\n"
                                             "#YYYYMMDD   HH:MM:SS    Idx     W     C     %\n"
                                             " 20230221   15:16:55      0    43    48     5\n"
                                             " 20230221   15:16:55      1    44     -     6\n"
                                             " 20230221   15:16:56      0    45    49     7\n"
                                             " 20230221   15:16:56      1    46    50     8\n");
    QTemporaryDir pdir;
    auto r = importPaths(pdir, {dated});
    QCOMPARE(r.reports.front().status, SourceReport::Status::Imported);
    QCOMPARE(r.reports.front().counterSamples, 11);
    QString unit;
    auto [ts, v] = firstSample(*r.project, QStringLiteral("GPU 1"), QStringLiteral(" sm"), &unit);
    QCOMPARE(ts, utcNs("2023-02-21T15:16:55.000Z"));
    QCOMPARE(v, 6.0);
    QCOMPARE(unit, QStringLiteral("%"));

    // Without -o DT, next to an nvidia-smi log with times: placed from its first timestamp.
    gmltest::writeFile(
        dir, QStringLiteral("b/dmon.log"),
        "# gpu   pwr    sm\n# Idx     W     %\n    0    43     5\n    0    44     6\n");
    gmltest::writeFile(dir, QStringLiteral("b/smi.csv"),
                       "timestamp, index, utilization.gpu [%]\n2023/02/21 10:00:00.500, 0, 33 %\n");
    QTemporaryDir pdir2;
    auto r2 = importPaths(pdir2, {dir.filePath(QStringLiteral("b"))});
    qint64 count = 0;
    std::tie(ts, v) = firstSample(*r2.project, QStringLiteral("GPU 0"),
                                  QStringLiteral("dmon · pwr"), &unit, &count);
    QCOMPARE(ts, utcNs("2023-02-21T10:00:00.500Z"));
    QCOMPARE(count, 2);
}

void TestMonitoring::dcgmiWithoutSibling()
{
    QTemporaryDir dir;
    const QString path = gmltest::writeFile(dir, QStringLiteral("dcgmi.txt"),
                                            "#Entity   POWER   SMACT\n"
                                            "ID        W\n"
                                            "GPU 0     60.5    0.100\n"
                                            "GPU 0     61.5    0.200\n"
                                            "GPU 0     62.5    0.300\n");
    const QDateTime mtime =
        QDateTime::fromString(QStringLiteral("2024-05-01T12:00:00Z"), Qt::ISODate);
    QVERIFY(gmltest::setMtime(path, mtime));
    QTemporaryDir pdir;
    auto r = importPaths(pdir, {path});
    QCOMPARE(r.reports.front().status, SourceReport::Status::Imported);
    auto [ts, v] = firstSample(*r.project, QStringLiteral("GPU 0"), QStringLiteral("POWER"));
    QCOMPARE(v, 60.5);
    QCOMPARE(ts, mtime.toMSecsSinceEpoch() * 1'000'000 - 2'000'000'000LL);
    QVERIFY(gmltest::text(*r.project, QStringLiteral("SELECT metadata FROM source"))
                .contains(QLatin1String("modification time")));
}

// A top log alone (no sibling log with dates) is dated from its file's modification time, and
// a warning says so where the user reads warnings (issue 58: it was dated silently).
void TestMonitoring::topUndatedSaysSo()
{
    QTemporaryDir dir;
    const QString path =
        gmltest::writeFile(dir, QStringLiteral("top.txt"),
                           "top - 15:19:26 up  5:06,  1 user,  load average: 1.80, 1.23, 0.98\n"
                           "Tasks: 1 total\n%Cpu(s):  2.1 us,  0.4 sy,  0.0 ni, 97.5 id\n"
                           "top - 15:19:27 up  5:06,  1 user,  load average: 1.70, 1.20, 0.97\n"
                           "Tasks: 1 total\n%Cpu(s):  3.1 us,  0.4 sy,  0.0 ni, 96.5 id\n");
    QVERIFY(gmltest::setMtime(
        path, QDateTime::fromString(QStringLiteral("2024-05-01T16:00:00Z"), Qt::ISODate)));
    QTemporaryDir pdir;
    auto r = importPaths(pdir, {path});
    QCOMPARE(r.reports.front().status, SourceReport::Status::Imported);
    QVERIFY(r.reports.front().warnings >= 1);
    const QString warnings =
        gmltest::text(*r.project, QStringLiteral("SELECT warnings FROM source"));
    QVERIFY2(warnings.contains(QLatin1String("top prints no date")) &&
                 warnings.contains(QLatin1String("2024-05-01")),
             qPrintable(warnings));
}

void TestMonitoring::dcgmiRepeatedColumn()
{
    QTemporaryDir dir;
    const QString path = gmltest::writeFile(dir, QStringLiteral("dcgmi.txt"),
                                            "#Entity   POWER   POWER\n"
                                            "ID        W       W\n"
                                            "GPU 0     60.5    1.5\n"
                                            "GPU 0     61.5    2.5\n");
    QTemporaryDir pdir;
    auto r = importPaths(pdir, {path});
    QCOMPARE(r.reports.front().status, SourceReport::Status::Imported);
    // One POWER series of the first column's values, and the header's repeat said.
    QCOMPARE(firstSample(*r.project, QStringLiteral("GPU 0"), QStringLiteral("POWER")).second,
             60.5);
    QCOMPARE(gmltest::scalar(*r.project, "SELECT count(*) FROM counter"), 2);
    const QString warnings =
        gmltest::text(*r.project, QStringLiteral("SELECT warnings FROM source"));
    QVERIFY2(warnings.contains(QLatin1String("the header names POWER twice (column 2 at byte 18)")),
             qPrintable(warnings));
}

void TestMonitoring::mergedUnderTraceGpu()
{
    // The demo folder: a Kineto trace per rank and one nvidia-smi log for the host. Each
    // GPU's nvidia-smi counters are shown under that GPU's trace row.
    QTemporaryDir dir;
    auto r = importPaths(dir, {QStringLiteral(GRADEML_DEMO)}, QByteArray());
    for (const auto &rep : r.reports)
        QVERIFY2(rep.status == SourceReport::Status::Imported ||
                     rep.status == SourceReport::Status::Skipped,
                 qPrintable(rep.message));
    QString error;
    const auto runs = summarizeProject(*r.project, &error);
    QCOMPARE(runs.size(), 1);
    const auto &tracks = runs.front().tracks;
    QHash<TrackId, const TrackSummary *> byId;
    for (const auto &t : tracks)
        byId.insert(t.id, &t);
    int underTraceGpu = 0, gpuRows = 0;
    for (const auto &t : tracks) {
        gpuRows += t.kind == TrackKind::Gpu;
        if (t.kind == TrackKind::Counter && t.name.startsWith(QLatin1String("nvidia-smi"))) {
            const TrackSummary *parent = byId.value(t.parent);
            QVERIFY(parent);
            QCOMPARE(parent->kind, TrackKind::Gpu);
            QVERIFY2(parent->tid != QLatin1String("monitor"), qPrintable(parent->name));
            ++underTraceGpu;
        }
    }
    QCOMPARE(gpuRows, 2);
    QCOMPARE(underTraceGpu, 6); // 2 GPUs x (utilization, memory, power)
    // grademl.json says UTC: the log's samples fall inside the traces' time span.
    auto st = r.project->db().prepare(
        "SELECT min(ts), max(ts) FROM counter_abs WHERE track LIKE 'nvidia-smi%'");
    QVERIFY(st.step());
    auto sl = r.project->db().prepare("SELECT min(ts), max(ts + dur) FROM slice_abs");
    QVERIFY(sl.step());
    QVERIFY(st.int64(0) >= sl.int64(0));
    QVERIFY(st.int64(1) <= sl.int64(1) + 10'000'000);
}

void TestMonitoring::malformed_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("imports");
    QTest::addColumn<qint64>("samples");
    QTest::addColumn<QString>("expect"); // in the warning or error

    const QByteArray header = "timestamp, index, utilization.gpu [%]\n";
    const QByteArray row1 = "2023/02/21 15:16:55.262, 0, 33 %\n";
    const QByteArray row2 = "2023/02/21 15:16:56.262, 0, 34 %\n";
    QTest::newRow("truncated row")
        << header + row1 + row2 + "2023/02/21 15:16:57.262, 0\n"
        << true << qint64(2) << QStringLiteral("has 2 fields, expected 3");
    // Cut mid-value ("4" of "45 %"): no line break at the end, so the row is not trusted.
    QTest::newRow("cut mid-line")
        << header + row1 + row2 + "2023/02/21 15:16:57.262, 0, 4" << true << qint64(2)
        << QStringLiteral(
               "the last line has no line break: the log was cut while it was being written");
    QTest::newRow("unknown column") << QByteArray("timestamp, index, frobnication.level [zz]\n"
                                                  "2023/02/21 15:16:55.262, 0, 7 zz\n")
                                    << true << qint64(1) << QString();
    QTest::newRow("header repeated") << header + row1 + header + row2 << true << qint64(2)
                                     << QStringLiteral("header line is repeated at byte 71");
    QTest::newRow("garbage bytes")
        << header + row1 + QByteArray("\x01\xff\xfe garbage \x80\n") + row2 << true << qint64(2)
        << QStringLiteral("has 1 fields");
    QTest::newRow("bad timestamp") << header + "yesterday, 0, 3 %\n" + row2 << true << qint64(1)
                                   << QStringLiteral("timestamp 'yesterday' is not");
    QTest::newRow("header only") << header << false << qint64(0)
                                 << QStringLiteral("no sample rows after the header");
}

void TestMonitoring::malformed()
{
    QFETCH(QByteArray, content);
    QFETCH(bool, imports);
    QFETCH(qint64, samples);
    QFETCH(QString, expect);
    QTemporaryDir dir;
    const QString path = gmltest::writeFile(dir, QStringLiteral("smi.csv"), content);
    QTemporaryDir pdir;
    auto r = importPaths(pdir, {path});
    const auto &rep = r.reports.front();
    if (!imports) {
        QCOMPARE(rep.status, SourceReport::Status::Failed);
        QVERIFY2(rep.message.contains(path) && rep.message.contains(expect),
                 qPrintable(rep.message));
        QCOMPARE(gmltest::scalar(*r.project, "SELECT count(*) FROM counter"), 0);
        return;
    }
    QCOMPARE(rep.status, SourceReport::Status::Imported);
    QCOMPARE(rep.counterSamples, samples);
    if (!expect.isEmpty()) {
        QVERIFY(rep.warnings > 0);
        const QString warnings =
            gmltest::text(*r.project, QStringLiteral("SELECT warnings FROM source"));
        QVERIFY2(warnings.contains(expect), qPrintable(warnings));
    }
}

QTEST_GUILESS_MAIN(TestMonitoring)
#include "tst_monitoring.moc"
