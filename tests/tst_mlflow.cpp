// SPDX-License-Identifier: GPL-3.0-or-later
// MLflow file stores: the real Swahili Keras autolog store in ../shared/traces (run, experiment,
// params, tags, metrics, the TensorFlow profiler trace among its artifacts on the same clock),
// and stores written by the test (unfinished run, stray folders, bad metric lines, growth).
#include "folderscanner.h"
#include "importjob.h"
#include "importutil.h"
#include "project.h"
#include "testutil.h"

#include <QDirIterator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QScopeGuard>
#include <QTest>

#include <cmath>
#include <cstdio>
#include <unistd.h>

using namespace gml;
using gmltest::importInto;
using gmltest::newProject;

namespace {

const QString kStore = QStringLiteral("mlflow/swahili_keras_autolog/mlruns");
const QString kRunId = QStringLiteral("ed05f9cd599442fe9a0c9222184710b8");

void writeRun(const QTemporaryDir &dir, const QString &runId, const QByteArray &endTime,
              const QByteArray &status, const QByteArray &loss)
{
    gmltest::writeFile(dir, QStringLiteral("mlruns/7/meta.yaml"),
                       "artifact_location: ./mlruns/7\nexperiment_id: '7'\nlifecycle_stage: "
                       "active\nname: bert-finetune\n");
    gmltest::writeFile(
        dir, QStringLiteral("mlruns/7/%1/meta.yaml").arg(runId),
        "artifact_uri: ./mlruns/7/" + runId.toUtf8() + "/artifacts\nend_time: " + endTime +
            "\nexperiment_id: '7'\nlifecycle_stage: active\nname: ''\nrun_id: " + runId.toUtf8() +
            "\nrun_uuid: " + runId.toUtf8() + "\nstart_time: 1700000000000\nstatus: " + status +
            "\ntags: []\nuser_id: alice\n");
    gmltest::writeFile(dir, QStringLiteral("mlruns/7/%1/metrics/loss").arg(runId), loss);
    gmltest::writeFile(
        dir, QStringLiteral("mlruns/7/%1/metrics/system/gpu_utilization_percentage").arg(runId),
        "1700000001000 87.5 0\n");
    gmltest::writeFile(dir, QStringLiteral("mlruns/7/%1/params/lr").arg(runId), "3e-5");
    gmltest::writeFile(dir, QStringLiteral("mlruns/7/%1/tags/mlflow.runName").arg(runId),
                       "warm-start");
}

} // namespace

class TestMlflow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void realStore();
    void unfinishedRunAndBadLines();
    void strayFoldersAndGrowth();
    void oddRunFilesAreSaid();
    void writeBackIsReadBack();
};

void TestMlflow::realStore()
{
    GML_REQUIRE_SHARED(kStore);
    const QString store = gmltest::sharedTraces() + QLatin1Char('/') + kStore;
    const QString runDir = store + QStringLiteral("/1/") + kRunId;
    // Independent counts from the files.
    QFile lossFile(runDir + QStringLiteral("/metrics/loss"));
    QVERIFY(lossFile.open(QIODevice::ReadOnly));
    const qint64 points = lossFile.readAll().trimmed().split('\n').size();
    const qint64 params = QDir(runDir + QStringLiteral("/params")).entryList(QDir::Files).size();
    QCOMPARE(points, 10);
    QCOMPARE(params, 20);

    QTemporaryDir dir;
    auto project = newProject(dir);
    const auto reports = importInto(*project, {store});
    int imported = 0;
    for (const auto &r : reports) {
        QVERIFY2(r.status != SourceReport::Status::Failed, qPrintable(r.message));
        if (r.status == SourceReport::Status::Imported)
            ++imported;
        if (r.path.contains(QLatin1String("/metrics/")) ||
            r.path.contains(QLatin1String("/params/")))
            QVERIFY2(r.message.contains(QLatin1String("read with")), qPrintable(r.message));
    }
    QCOMPARE(imported, 2); // the run and its TensorFlow profiler trace
    const QString run = QStringLiteral("mlflow/Speech model simple rnn/") + kRunId;
    // Both sources in that run, the run linked to its experiment.
    QCOMPARE(gmltest::scalar(
                 *project,
                 "SELECT count(*) FROM source s JOIN run r ON r.id = s.run_id "
                 "WHERE s.status = 'imported' AND r.name LIKE 'mlflow/Speech model simple rnn/%'"),
             2);
    QCOMPARE(gmltest::text(
                 *project,
                 QStringLiteral("SELECT x.name FROM run r JOIN workload w ON w.id = r.workload_id "
                                "JOIN experiment x ON x.id = w.experiment_id")),
             QStringLiteral("Speech model simple rnn"));
    const QJsonObject runParams =
        QJsonDocument::fromJson(
            gmltest::text(*project,
                          QStringLiteral("SELECT params FROM run WHERE name = '%1'").arg(run))
                .toUtf8())
            .object();
    QCOMPARE(runParams.value(QStringLiteral("mlflow.params")).toObject().size(), params);
    QCOMPARE(runParams.value(QStringLiteral("mlflow.params"))
                 .toObject()
                 .value(QStringLiteral("opt_learning_rate"))
                 .toString(),
             QStringLiteral("0.002"));
    QCOMPARE(runParams.value(QStringLiteral("mlflow.status")).toString(),
             QStringLiteral("FINISHED"));
    QCOMPARE(runParams.value(QStringLiteral("mlflow.tags"))
                 .toObject()
                 .value(QStringLiteral("mlflow.autologging"))
                 .toString(),
             QStringLiteral("tensorflow"));
    // Metrics: one counter sample per line, at its epoch ms; first loss 332.68 at 1628697792090.
    auto st = project->db().prepare(
        "SELECT ts, value, (SELECT count(*) FROM counter_abs WHERE track = 'loss') "
        "FROM counter_abs WHERE track = 'loss' ORDER BY ts LIMIT 1");
    QVERIFY(st.step());
    QCOMPARE(st.int64(0), 1628697792090LL * 1'000'000);
    QVERIFY(qAbs(st.real(1) - 332.6841735839844) < 1e-9);
    QCOMPARE(st.int64(2), points);
    // The run's span, and the TF capture inside it (placed by its profile-empty event file;
    // read from its xplane.pb, which the folder has beside the trace.json.gz).
    QCOMPARE(gmltest::scalar(*project, "SELECT ts FROM slice_abs WHERE category = 'mlflow'"),
             1628697775478LL * 1'000'000);
    QCOMPARE(gmltest::scalar(*project, "SELECT dur FROM slice_abs WHERE category = 'mlflow'"),
             (1628697851678LL - 1628697775478LL) * 1'000'000);
    QCOMPARE(gmltest::scalar(
                 *project, "SELECT clock_offset_ns FROM source WHERE format = 'tensorflow-xplane'"),
             1628697787LL * 1'000'000'000);
    const qint64 tfStart =
        gmltest::scalar(*project, "SELECT min(ts) FROM slice_abs WHERE category IS NOT 'mlflow'");
    QVERIFY(tfStart >= 1628697775478LL * 1'000'000 && tfStart <= 1628697851678LL * 1'000'000);
}

void TestMlflow::unfinishedRunAndBadLines()
{
    QTemporaryDir dir;
    writeRun(dir, QStringLiteral("abc123"), "null", "1",
             "1700000002000 2.5 0\nnot a number\n1700000004000 1.5 1\n1700000005000 nan-ish 2\n");
    QTemporaryDir pdir;
    auto project = newProject(pdir);
    const auto reports = importInto(*project, {dir.filePath(QStringLiteral("mlruns"))});
    const SourceReport *run = nullptr;
    for (const auto &r : reports)
        if (r.status == SourceReport::Status::Imported)
            run = &r;
    QVERIFY(run);
    QCOMPARE(run->runName, QStringLiteral("mlflow/bert-finetune/warm-start"));
    QCOMPARE(run->counterSamples, 3); // two good loss lines + one system metric
    QCOMPARE(run->warnings, 3);       // two bad lines (one warning kind), unfinished
    const QString warnings = gmltest::text(
        *project, QStringLiteral("SELECT warnings FROM source WHERE status = 'imported'"));
    QVERIFY2(warnings.contains(QLatin1String("metrics/loss line 2")), qPrintable(warnings));
    QVERIFY2(warnings.contains(QLatin1String("no end_time (status RUNNING)")),
             qPrintable(warnings));
    // The unfinished run's span ends at its last metric point; nested metric keys keep their path.
    QCOMPARE(gmltest::scalar(*project, "SELECT dur FROM slice_abs WHERE category = 'mlflow'"),
             4'000'000'000LL);
    QCOMPARE(gmltest::scalar(
                 *project,
                 "SELECT count(*) FROM track WHERE name = 'system/gpu_utilization_percentage'"),
             1);
}

void TestMlflow::strayFoldersAndGrowth()
{
    QTemporaryDir dir;
    writeRun(dir, QStringLiteral("r1"), "1700000010000", "3", "1700000002000 2.5 0\n");
    // A stray nested store with only an experiment, and an empty experiment folder.
    gmltest::writeFile(dir, QStringLiteral("mlruns/mlruns/0/meta.yaml"),
                       "artifact_location: ./mlruns/0\nexperiment_id: '0'\nlifecycle_stage: "
                       "active\nname: Default\n");
    QDir().mkpath(dir.filePath(QStringLiteral("mlruns/3")));
    QTemporaryDir pdir;
    auto project = newProject(pdir);
    auto reports = importInto(*project, {dir.filePath(QStringLiteral("mlruns"))});
    int imported = 0;
    for (const auto &r : reports) {
        QVERIFY2(r.status != SourceReport::Status::Failed, qPrintable(r.message));
        imported += r.status == SourceReport::Status::Imported;
        if (r.path.endsWith(QLatin1String("mlruns/mlruns/0/meta.yaml")))
            QVERIFY2(r.message.contains(QLatin1String("MLflow experiment 'Default'")),
                     qPrintable(r.message));
    }
    QCOMPARE(imported, 1);
    // Nothing changed: unchanged. A metric point appended: the run is read again.
    reports = importInto(*project, {dir.filePath(QStringLiteral("mlruns"))});
    for (const auto &r : reports)
        if (r.path.endsWith(QLatin1String("r1/meta.yaml")))
            QCOMPARE(r.status, SourceReport::Status::Unchanged);
    {
        QFile f(dir.filePath(QStringLiteral("mlruns/7/r1/metrics/loss")));
        QVERIFY(f.open(QIODevice::Append));
        f.write("1700000003000 2.0 1\n");
    }
    reports = importInto(*project, {dir.filePath(QStringLiteral("mlruns"))});
    for (const auto &r : reports)
        if (r.path.endsWith(QLatin1String("r1/meta.yaml"))) {
            QCOMPARE(r.status, SourceReport::Status::Imported);
            QCOMPARE(r.counterSamples, 3);
        }
    QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM counter_abs WHERE track = 'loss'"), 2);
}

void TestMlflow::oddRunFilesAreSaid()
{
    QTemporaryDir dir;
    // end_time before start_time, a 17 MB param, an 17 MB metric file, a metric file name that
    // is not UTF-8, a point at epoch ms past 2065.
    writeRun(dir, QStringLiteral("flip"), "1600000000000", "3",
             "1700000002000 2.5 0\n99999999999999999 1.0 1\n");
    gmltest::writeFile(dir, QStringLiteral("mlruns/7/flip/params/prompt"),
                       QByteArray(17 << 20, 'p'));
    gmltest::writeFile(dir, QStringLiteral("mlruns/7/flip/metrics/huge"),
                       QByteArray("1700000002000 1 0\n").repeated(1 << 20));
    {
        const QByteArray name =
            QFile::encodeName(dir.filePath(QStringLiteral("mlruns/7/flip/metrics/"))) + "acc\xff";
        FILE *f = std::fopen(name.constData(), "wb"); // the raw byte, which QString cannot hold
        QVERIFY(f);
        std::fputs("1700000003000 0.5 0\n", f);
        std::fclose(f);
    }
    // QTemporaryDir cannot remove a name QString cannot hold.
    const auto removeIt = qScopeGuard([&] {
        ::unlink(
            QByteArray(QFile::encodeName(dir.filePath(QStringLiteral("mlruns/7/flip/metrics/"))) +
                       "acc\xff")
                .constData());
    });
    // A second run whose meta.yaml is a folder: its tags are not read as a trace.
    writeRun(dir, QStringLiteral("dirmeta"), "1700000009000", "3", "1700000002000 2.5 0\n");
    QVERIFY(QFile::remove(dir.filePath(QStringLiteral("mlruns/7/dirmeta/meta.yaml"))));
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("mlruns/7/dirmeta/meta.yaml"))));
    gmltest::writeFile(
        dir, QStringLiteral("mlruns/7/dirmeta/tags/mlflow.log-model.history"),
        R"([{"run_id": "dirmeta", "artifact_path": "model", "utc_time_created": "2024-01-01"}])");
    QTemporaryDir pdir;
    auto project = newProject(pdir);
    const auto reports = importInto(*project, {dir.filePath(QStringLiteral("mlruns"))});
    int imported = 0;
    for (const auto &r : reports) {
        imported += r.status == SourceReport::Status::Imported;
        if (r.path.contains(QLatin1String("dirmeta/tags")))
            QVERIFY2(r.status == SourceReport::Status::Skipped &&
                         r.message.contains(QLatin1String(
                             "the run's meta.yaml is a folder, not the run's record")),
                     qPrintable(r.message));
    }
    QCOMPARE(imported, 1); // the flipped run only; nothing of dirmeta
    const QString warnings = gmltest::text(
        *project, QStringLiteral("SELECT warnings FROM source WHERE status = 'imported'"));
    for (const char *expected :
         {"end_time 1600000000000 is before start_time 1700000000000",
          "params/prompt is 17825792 bytes, over the limit of 16777216 for a param or tag; kept as "
          "its size",
          "metrics/huge is 18874368 bytes, over the limit of 16777216",
          "metrics/acc\\\\xff: a file name that is not UTF-8; that metric is not read",
          "metrics/loss line 2: '99999999999999999 1.0 1' is not '<epoch ms> <value> [<step>]'"})
        QVERIFY2(warnings.contains(QLatin1String(expected)),
                 qPrintable(QStringLiteral("%1 not in %2").arg(QLatin1String(expected), warnings)));
    QVERIFY2(!warnings.contains(QLatin1String("no end_time")), qPrintable(warnings));
    // The span runs from start_time to the last metric point, never backwards.
    // (the loss point at +2 s; acc\xff at +3 s is not read).
    QCOMPARE(gmltest::scalar(*project, "SELECT dur FROM slice_abs WHERE category = 'mlflow'"),
             2'000'000'000LL);
    QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM run WHERE name LIKE '%dirmeta%'"), 0);
}

// grademl report --mlflow (issue 59): GradeML's headline metrics, findings and report written
// into a copy of the real store's run, in MLflow's file-store format; every file MLflow wrote
// left as it was; the MLflow importer reads the grademl.* metrics back as the run's own, and a
// second write-back imported again adds a step, not a run.
void TestMlflow::writeBackIsReadBack()
{
    GML_REQUIRE_SHARED(kStore);
    QTemporaryDir dir;
    const QString store = dir.filePath(QStringLiteral("mlruns"));
    const QString from = gmltest::sharedTraces() + QLatin1Char('/') + kStore;
    for (QDirIterator it(from, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
         it.hasNext();) {
        const QString path = it.next();
        const QString to = store + path.mid(from.size());
        QDir().mkpath(QFileInfo(to).absolutePath());
        QVERIFY(QFile::copy(path, to));
        QFile(to).setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    }
    const QString runDir = store + QStringLiteral("/1/") + kRunId;
    // What MLflow wrote, byte for byte.
    const auto snapshot = [&] {
        QMap<QString, QByteArray> files;
        QDirIterator it(store, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.contains(QLatin1String("/grademl")))
                continue;
            QFile f(path);
            if (f.open(QIODevice::ReadOnly))
                files.insert(path, f.readAll());
        }
        return files;
    };
    const auto before = snapshot();
    // The run GradeML analysed: the bundled demo.
    const QString project = dir.filePath(QStringLiteral("demo.grademl"));
    QCOMPARE(gmltest::runCli({QStringLiteral("import"), QStringLiteral(GRADEML_DEMO),
                              QStringLiteral("--project"), project})
                 .code,
             0);
    const QString html = dir.filePath(QStringLiteral("report.html"));
    auto r = gmltest::runCli({QStringLiteral("report"), project, QStringLiteral("--out"), html,
                              QStringLiteral("--mlflow"), runDir});
    QVERIFY2(r.code == 0, qPrintable(r.all()));
    QVERIFY2(r.outText().contains(QLatin1String("wrote into MLflow run")), r.out.constData());
    QCOMPARE(snapshot(), before);
    QFile step(runDir + QStringLiteral("/metrics/grademl.step_time_ms"));
    QVERIFY(step.open(QIODevice::ReadOnly));
    const QList<QByteArray> fields = step.readAll().trimmed().split(' ');
    QCOMPARE(fields.size(), 3); // timestamp value step
    // Logged at the run's own end (meta.yaml's end_time), not today (issue 73): imported, a
    // 76 s run does not stretch to the day of the write-back.
    qint64 endMs = 0;
    QFile meta(runDir + QStringLiteral("/meta.yaml"));
    QVERIFY(meta.open(QIODevice::ReadOnly));
    for (const QByteArray &line : meta.readAll().split('\n'))
        if (line.startsWith("end_time:"))
            endMs = line.mid(9).trimmed().toLongLong();
    QVERIFY(endMs > 1'600'000'000'000LL);
    QCOMPARE(fields[0].toLongLong(), endMs);
    QVERIFY(std::abs(fields[1].toDouble() - 25.088) < 0.01); // the demo's mean step, in ms
    QCOMPARE(fields[2], QByteArray("0"));
    QVERIFY(QFile::exists(runDir + QStringLiteral("/metrics/grademl.gpu_busy")));
    QVERIFY(QFile::exists(runDir + QStringLiteral("/tags/grademl.findings")));
    QVERIFY(QFile::exists(runDir + QStringLiteral("/artifacts/grademl/report.html")));

    // Read back by the importer: the same runs as the untouched store, the metric the run's own.
    auto imported = newProject(dir);
    const auto reports = importInto(*imported, {store});
    for (const auto &rep : reports)
        QVERIFY2(rep.status != SourceReport::Status::Failed, qPrintable(rep.message));
    QTemporaryDir plain;
    auto untouched = newProject(plain);
    importInto(*untouched, {gmltest::sharedTraces() + QLatin1Char('/') + kStore});
    const qint64 runs = gmltest::scalar(*untouched, "SELECT count(*) FROM run");
    QCOMPARE(gmltest::scalar(*imported, "SELECT count(*) FROM run"), runs);
    const auto samples = [&] {
        return gmltest::scalar(*imported,
                               "SELECT count(*) FROM counter k JOIN track t ON t.id = k.track_id "
                               "JOIN run r ON r.id = t.run_id WHERE t.name = "
                               "'grademl.step_time_ms' AND r.name LIKE '%ed05f9cd%'");
    };
    QCOMPARE(samples(), 1);
    // Written back again and imported again: step 1 of the same metric, still no new run.
    r = gmltest::runCli({QStringLiteral("report"), project, QStringLiteral("--out"), html,
                         QStringLiteral("--mlflow"), runDir});
    QVERIFY2(r.code == 0, r.err.constData());
    importInto(*imported, {store});
    QCOMPARE(gmltest::scalar(*imported, "SELECT count(*) FROM run"), runs);
    QCOMPARE(samples(), 2);
    QCOMPARE(snapshot(), before);
    // Not a run folder: said, nothing written.
    r = gmltest::runCli({QStringLiteral("report"), project, QStringLiteral("--out"), html,
                         QStringLiteral("--mlflow"), store});
    QCOMPARE(r.code, 1);
    QVERIFY(r.all().contains(QLatin1String("is not an MLflow run folder")));
}

QTEST_GUILESS_MAIN(TestMlflow)
#include "tst_mlflow.moc"
