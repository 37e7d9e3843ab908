// SPDX-License-Identifier: GPL-3.0-or-later
// Runs browsed and compared (issue 17): run grouping on import, the catalog and its edits,
// headline metrics, metric series across runs, the comparison charts' data and figures, and
// the trace diff.
#include "comparecharts.h"
#include "dependencygraph.h"
#include "importutil.h"
#include "predictedrun.h"
#include "runcatalog.h"
#include "runcompare.h"
#include "runmetrics.h"
#include "testutil.h"
#include "timelinedata.h"
#include "transforms.h"

#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QtTest>

#include <cmath>

using namespace gml;

namespace {

// Links `files` (under the shared traces) into DIR/NAME, as a user puts traces side by side.
QString sideBySide(const QTemporaryDir &dir, const QString &name, const QStringList &files)
{
    const QString folder = dir.filePath(name);
    QDir().mkpath(folder);
    for (const QString &f : files)
        QFile::link(gmltest::sharedTraces() + QLatin1Char('/') + f,
                    folder + QLatin1Char('/') + QFileInfo(f).fileName());
    return folder;
}

RunCatalog catalogOf(Project &p)
{
    QString error;
    auto c = loadRunCatalog(p, &error);
    if (!c)
        qFatal("catalog: %s", qPrintable(error));
    return *c;
}

QByteArray cli(const QStringList &args, int *exitCode = nullptr)
{
    const auto r = gmltest::runCli(args);
    if (exitCode)
        *exitCode = r.code;
    return r.out;
}

// A generated job imported by the CLI into DIR/p.grademl, as a user does; empty on failure.
QString importedJob(const QTemporaryDir &dir, int ranks, int steps)
{
    const QString job = gmltest::generateJob(dir, ranks, steps);
    const QString project = dir.filePath(QStringLiteral("p.grademl"));
    int code = -1;
    cli({QStringLiteral("import"), job, QStringLiteral("--project"), project}, &code);
    return code == 0 ? project : QString();
}

const QString kResnet = QStringLiteral(
    "pytorch_kineto/kineto_tbplugin_2021_resnet50_v100/worker0.1623143089861.pt.trace.json.gz");
const QString kMi250 = QStringLiteral(
    "pytorch_kineto/hta_amd_mi250_rocm62/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
const QString kDlrm = QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100");

} // namespace

class TestRuns : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Two rank-less traces from two GPUs in one folder are two runs of one workload, not two
    // ranks of one run; importing again keeps them where they are.
    void ranklessTracesBecomeRunsOfOneWorkload()
    {
        GML_REQUIRE_SHARED(kResnet);
        GML_REQUIRE_SHARED(kMi250);
        QTemporaryDir dir;
        const QString folder = sideBySide(dir, QStringLiteral("side"), {kResnet, kMi250});
        auto p = gmltest::newProject(dir);
        QStringList errors;
        ImportJob job(*p);
        job.run(scanInputs({folder}, {}, &errors));
        QVERIFY(job.errors().isEmpty());
        const RunCatalog c = catalogOf(*p);
        const CatalogRun *v100 = c.run(QStringLiteral("side/worker0"));
        const CatalogRun *mi250 = c.run(QStringLiteral("side/mi250_minitoy_train_ROCm6_2_kineto"));
        QVERIFY(v100 && mi250);
        QVERIFY(!c.run(QStringLiteral("side"))); // the folder's run was emptied and dropped
        QCOMPARE(v100->sources, 1);
        QCOMPARE(mi250->sources, 1);
        QVERIFY(v100->workloadId != 0);
        QCOMPARE(v100->workloadId, mi250->workloadId);
        QCOMPARE(c.workload(v100->workloadId)->name, QStringLiteral("side"));
        // Each run keeps its own GPU in its params, not the union of the folder's.
        QCOMPARE(v100->params.value(QStringLiteral("gpu_models")).toArray(),
                 QJsonArray{QStringLiteral("Tesla V100-DGXS-32GB")});
        QCOMPARE(mi250->params.value(QStringLiteral("gpu_models")).toArray(),
                 QJsonArray{QStringLiteral("AMD Radeon Graphics")});
        // ROCm names the GPU generically: what identifies it is kept (issue 75), and the
        // catalog takes it, as a guess, for one GCD of an MI250 (104 CUs, 64 GiB, warps of 64).
        const QJsonObject props =
            mi250->params.value(QStringLiteral("gpu_properties")).toArray().at(0).toObject();
        QCOMPARE(props.value(QStringLiteral("cus")).toInt(), 104);
        QCOMPARE(props.value(QStringLiteral("warp")).toInt(), 64);
        QVERIFY(std::abs(props.value(QStringLiteral("mem_gib")).toDouble() - 64) < 0.1);
        QString guess;
        QCOMPARE(sim::WhatIfContext::deviceOf(mi250->params, &guess), QStringLiteral("MI250-GCD"));
        QVERIFY2(guess.contains(QLatin1String("a guess")), qPrintable(guess));
        QCOMPARE(sim::WhatIfContext::deviceOf(v100->params),
                 QStringLiteral("Tesla V100-DGXS-32GB"));
        // The import summary says how and why.
        const QStringList said = describeGroupings(job.groupings());
        QVERIFY2(said.join(QLatin1Char('\n')).contains(QStringLiteral("2 runs of workload 'side'")),
                 qPrintable(said.join(QLatin1Char('\n'))));
        QVERIFY(said.join(QLatin1Char('\n')).contains(QStringLiteral("no distributed info")));
        // Again: nothing moves, no run appears.
        ImportJob again(*p);
        again.run(scanInputs({folder}, {}, &errors));
        QCOMPARE(catalogOf(*p).runs.size(), c.runs.size());
        QVERIFY(catalogOf(*p).run(QStringLiteral("side/worker0")));
    }

    // A second import of a same-named folder from another machine and day (a V100 trace, then
    // an MI250 trace, both in a folder named "job") is not added to the first run: it becomes a
    // run of its own in workload "job", and the first run keeps its name. A rank of the same job
    // imported later still joins its run (distributedRanksJoinAcrossImports).
    void sameNamedFolderOfAnotherMachineIsAnotherRun()
    {
        GML_REQUIRE_SHARED(kResnet);
        GML_REQUIRE_SHARED(kMi250);
        QTemporaryDir dir;
        const QString first = sideBySide(dir, QStringLiteral("a/job"), {kResnet});
        const QString second = sideBySide(dir, QStringLiteral("b/job"), {kMi250});
        auto p = gmltest::newProject(dir);
        QStringList errors;
        ImportJob(*p).run(scanInputs({first}, {}, &errors));
        const RunId before = catalogOf(*p).run(QStringLiteral("job"))->id;
        ImportJob job(*p);
        job.run(scanInputs({second}, {}, &errors));
        QVERIFY(job.errors().isEmpty());
        const RunCatalog c = catalogOf(*p);
        const CatalogRun *v100 = c.run(QStringLiteral("job"));
        const CatalogRun *mi250 = c.run(QStringLiteral("job/mi250_minitoy_train_ROCm6_2_kineto"));
        QVERIFY(v100 && mi250);
        QCOMPARE(v100->id, before);
        QCOMPARE(v100->sources, 1);
        QCOMPARE(mi250->sources, 1);
        QCOMPARE(v100->params.value(QStringLiteral("gpu_models")).toArray(),
                 QJsonArray{QStringLiteral("Tesla V100-DGXS-32GB")});
        QCOMPARE(v100->workloadId, mi250->workloadId);
        QVERIFY(describeGroupings(job.groupings())
                    .join(QLatin1Char('\n'))
                    .contains(QStringLiteral("their clocks do not overlap")));
    }

    // Ranks of one job imported one at a time (DLRM ranks 0-3, then 4-7, from two folders of
    // the same name) end in one run.
    void distributedRanksJoinAcrossImports()
    {
        GML_REQUIRE_SHARED(kDlrm);
        QTemporaryDir dir;
        QStringList low, high;
        for (int r = 0; r < 8; ++r) {
            const QDir d(gmltest::sharedTraces() + QLatin1Char('/') + kDlrm);
            const QStringList f = d.entryList({QStringLiteral("worker%1_*").arg(r)}, QDir::Files);
            QCOMPARE(f.size(), 1);
            (r < 4 ? low : high) << kDlrm + QLatin1Char('/') + f.front();
        }
        const QString a = sideBySide(dir, QStringLiteral("a/dlrm"), low);
        const QString b = sideBySide(dir, QStringLiteral("b/dlrm"), high);
        auto p = gmltest::newProject(dir);
        QStringList errors;
        ImportJob(*p).run(scanInputs({a}, {}, &errors));
        ImportJob(*p).run(scanInputs({b}, {}, &errors));
        const RunCatalog c = catalogOf(*p);
        QCOMPARE(c.runs.size(), 1);
        QCOMPARE(c.runs.front().name, QStringLiteral("dlrm"));
        QCOMPARE(c.runs.front().sources, 8);
    }

    // The eight DLRM ranks (distributedInfo rank 0-7 of 8) stay one run.
    void distributedRanksStayOneRun()
    {
        GML_REQUIRE_SHARED(kDlrm);
        QTemporaryDir dir;
        auto p = gmltest::newProject(dir);
        QStringList errors;
        ImportJob job(*p);
        job.run(scanInputs({gmltest::sharedTraces() + QLatin1Char('/') + kDlrm}, {}, &errors));
        const RunCatalog c = catalogOf(*p);
        QCOMPARE(c.runs.size(), 1);
        QCOMPARE(c.runs.front().sources, 8);
        QCOMPARE(
            gmltest::scalar(*p, "SELECT count(DISTINCT rank) FROM track WHERE rank IS NOT NULL"),
            8);
        QCOMPARE(job.groupings().size(), 1);
        QCOMPARE(job.groupings().front().runs,
                 QStringList{QStringLiteral("param_dlrm_8rank_v100")});
        QVERIFY(describeGroupings(job.groupings())
                    .join(QLatin1Char('\n'))
                    .contains(QStringLiteral("ranks 0-7 of 8")));
    }

    // A folder's grademl.json names the experiment and workload of its runs; edits (moving runs,
    // tags) are stored in the project.
    void groupingAndTagsAreStored()
    {
        GML_REQUIRE_SHARED(kResnet);
        GML_REQUIRE_SHARED(kMi250);
        QTemporaryDir dir;
        const QString folder = sideBySide(dir, QStringLiteral("vendors"), {kResnet, kMi250});
        gmltest::writeFile(dir, QStringLiteral("vendors/grademl.json"),
                           R"({"experiment": "cross-vendor", "workload": "toy models"})");
        {
            auto p = gmltest::newProject(dir);
            gmltest::importInto(*p, {folder});
            const RunCatalog c = catalogOf(*p);
            QCOMPARE(c.runs.size(), 2);
            for (const CatalogRun &r : c.runs)
                QCOMPARE(c.placeOf(r), QStringLiteral("cross-vendor / toy models"));
            QCOMPARE(c.workloads.size(), 1); // the folder's own workload was left empty and removed
            QString error;
            QVERIFY2(assignRuns(*p, {c.run(QStringLiteral("vendors/worker0"))->id},
                                QStringLiteral("resnet"), QStringLiteral("resnet50 v100"), &error),
                     qPrintable(error));
            QVERIFY(setRunTags(*p, c.run(QStringLiteral("vendors/worker0"))->id,
                               QJsonObject{{QStringLiteral("baseline"), QStringLiteral("yes")}},
                               &error));
        }
        QString error;
        auto p = Project::open(dir.filePath(QStringLiteral("p.grademl")), Project::Mode::ReadOnly,
                               &error);
        const RunCatalog c = catalogOf(*p);
        const CatalogRun *v100 = c.run(QStringLiteral("vendors/worker0"));
        QCOMPARE(c.placeOf(*v100), QStringLiteral("resnet / resnet50 v100"));
        QCOMPARE(v100->tags.value(QStringLiteral("baseline")).toString(), QStringLiteral("yes"));
        QVERIFY(runMatches(c, *v100, QStringLiteral("baseline=yes")));
        QVERIFY(!runMatches(c, *c.run(QStringLiteral("vendors/mi250_minitoy_train_ROCm6_2_kineto")),
                            QStringLiteral("baseline=yes")));
        QCOMPARE(c.experiments.size(), 2);
    }

    // MLflow runs land in their experiment and workload; their metric charts with its values
    // and steps, as the metrics file has them.
    void mlflowRunsAndMetricSteps()
    {
        const QString store = QStringLiteral("mlflow/swahili_keras_autolog");
        GML_REQUIRE_SHARED(store);
        QTemporaryDir dir;
        auto p = gmltest::newProject(dir);
        gmltest::importInto(*p, {gmltest::sharedTraces() + QLatin1Char('/') + store});
        QStringList errors;
        QVERIFY(
            sim::updateRunMetrics(*p, runsWithoutMetrics(*p, sim::kRunMetricsVersion), &errors));
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
        const RunCatalog c = catalogOf(*p);
        const CatalogRun *run = nullptr;
        for (const CatalogRun &r : c.runs)
            if (r.params.value(QStringLiteral("mlflow.run_id")).toString() ==
                QLatin1String("ed05f9cd599442fe9a0c9222184710b8"))
                run = &r;
        QVERIFY(run);
        QCOMPARE(c.placeOf(*run),
                 QStringLiteral("Speech model simple rnn / Speech model simple rnn"));
        QCOMPARE(run->status, QStringLiteral("finished"));
        QCOMPARE(run->param(QStringLiteral("epochs")), QStringLiteral("10"));
        QCOMPARE(run->param(QStringLiteral("opt_learning_rate")), QStringLiteral("0.002"));
        QVERIFY(!run->metrics.contains(
            QStringLiteral("step_mean_ns"))); // an MLflow run has no iterations

        const QString metricsFile =
            gmltest::sharedTraces() + QLatin1Char('/') + store +
            QStringLiteral("/mlruns/1/ed05f9cd599442fe9a0c9222184710b8/metrics/loss");
        QFile f(metricsFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QList<QList<QByteArray>> lines;
        for (const QByteArray &l : f.readAll().split('\n'))
            if (!l.trimmed().isEmpty())
                lines << l.simplified().split(' ');
        QVERIFY(lines.size() > 3);
        QCOMPARE(sim::comparableMetrics(*p, {run->id}), QStringList{QStringLiteral("loss")});
        QString error;
        const auto series = sim::metricSeries(*p, c, {run->id}, QStringLiteral("loss"), &error);
        QCOMPARE(series.size(), size_t(1));
        const sim::MetricSeries &s = series.front();
        QVERIFY(s.hasSteps());
        QCOMPARE(s.points.size(), size_t(lines.size()));
        for (size_t i = 0; i < s.points.size(); ++i) {
            QCOMPARE(s.points[i].t, lines[int(i)][0].toLongLong() * 1'000'000);
            QCOMPARE(s.points[i].value, lines[int(i)][1].toDouble());
            QCOMPARE(s.points[i].step, lines[int(i)][2].toLongLong());
        }
        QCOMPARE(run->metrics.value(QStringLiteral("last_metrics"))
                     .toObject()
                     .value(QStringLiteral("loss"))
                     .toDouble(),
                 lines.back()[1].toDouble());
    }

    // Monitoring counters chart per GPU, with the values of the log.
    void monitoringSeries()
    {
        const QString folder = QStringLiteral("gpu_monitoring/pmdlt_dgx_a100_mnist/02-nvidia-smi");
        GML_REQUIRE_SHARED(folder);
        QTemporaryDir dir;
        auto p = gmltest::newProject(dir);
        gmltest::importInto(*p, {gmltest::sharedTraces() + QLatin1Char('/') + folder});
        const RunCatalog c = catalogOf(*p);
        QCOMPARE(c.runs.size(), 1);
        const QStringList metrics = sim::comparableMetrics(*p, {c.runs.front().id});
        QVERIFY2(metrics.contains(QStringLiteral("GPU utilisation")) &&
                     metrics.contains(QStringLiteral("memory used")),
                 qPrintable(metrics.join(QStringLiteral(", "))));
        QString error;
        const auto series = sim::metricSeries(*p, c, {c.runs.front().id},
                                              QStringLiteral("GPU utilisation"), &error);
        QVERIFY(!series.empty());
        const qint64 samples =
            gmltest::scalar(*p, "SELECT count(*) FROM counter k JOIN track t ON t.id = k.track_id "
                                "WHERE t.name LIKE '%utilization.gpu%'");
        size_t points = 0;
        for (const auto &s : series) {
            QVERIFY(s.device.startsWith(QLatin1String("GPU ")));
            QCOMPARE(s.unit, QStringLiteral("%"));
            points += s.points.size();
            for (const auto &pt : s.points)
                QVERIFY(pt.value >= 0 && pt.value <= 100 && pt.step == -1);
        }
        QCOMPARE(qint64(points), samples);
    }

    // Headline metrics of a generated job: its iterations' times add up to the mean iteration
    // times their count, and the GPU time splits into its parts.
    void headlineMetrics()
    {
        QTemporaryDir dir;
        const QString job = gmltest::generateJob(dir, 2, 6);
        auto p = gmltest::newProject(dir);
        gmltest::importInto(*p, {job});
        const RunCatalog before = catalogOf(*p);
        QCOMPARE(before.runs.size(), 1);
        QVERIFY(!before.runs.front().hasMetrics);
        QString error;
        const auto m = sim::computeRunMetrics(*p, before.runs.front().id, &error);
        QVERIFY2(m, qPrintable(error));
        QCOMPARE(m->value(QStringLiteral("iterations")).toInt(), 6);
        const QJsonArray times = m->value(QStringLiteral("step_times_ns")).toArray();
        QCOMPARE(times.size(), 6);
        double sum = 0;
        for (const auto &t : times)
            sum += t.toDouble();
        QVERIFY(std::abs(sum / 6 - m->value(QStringLiteral("step_mean_ns")).toDouble()) < 1.0);
        const double parts = m->value(QStringLiteral("compute")).toDouble() +
                             m->value(QStringLiteral("communication")).toDouble() +
                             m->value(QStringLiteral("copies")).toDouble() +
                             m->value(QStringLiteral("idle")).toDouble();
        QVERIFY(std::abs(parts - 1.0) < 1e-9);
        QVERIFY(std::abs(m->value(QStringLiteral("gpu_busy")).toDouble() +
                         m->value(QStringLiteral("idle")).toDouble() - 1.0) < 1e-9);
        QCOMPARE(m->value(QStringLiteral("gpus")).toInt(), 2);
        QVERIFY(storeRunMetrics(*p, before.runs.front().id, *m, &error));
        QVERIFY(runsWithoutMetrics(*p, sim::kRunMetricsVersion).isEmpty());
        QCOMPARE(runsWithoutMetrics(*p, sim::kRunMetricsVersion + 1).size(),
                 1); // a newer program computes again
        // Importing the job again after a change drops the run's metrics.
        QDir(job).removeRecursively();
        gmltest::generateJob(dir, 2, 4);
        gmltest::importInto(*p, {job});
        QCOMPARE(runsWithoutMetrics(*p, sim::kRunMetricsVersion).size(), 1);
    }

    // A measured run against its own prediction with GEMMs twice as fast: the diff finds
    // exactly that and nothing else.
    void diffAgainstOwnPrediction()
    {
        GML_REQUIRE_SHARED(kResnet);
        QTemporaryDir dir;
        const QString folder = sideBySide(dir, QStringLiteral("r50"), {kResnet});
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        {
            auto p = gmltest::newProject(dir);
            gmltest::importInto(*p, {folder});
        }
        int code = -1;
        cli({QStringLiteral("whatif"), project, QStringLiteral("--run"), QStringLiteral("r50"),
             QStringLiteral("--scale"), QStringLiteral("gemm=0.5"), QStringLiteral("--save"),
             QStringLiteral("r50 gemm x0.5")},
            &code);
        QCOMPARE(code, 0);
        const QJsonObject o =
            QJsonDocument::fromJson(cli({QStringLiteral("compare"), project, QStringLiteral("r50"),
                                         QStringLiteral("r50 gemm x0.5"), QStringLiteral("--json")},
                                        &code))
                .object();
        QCOMPARE(code, 0);
        const QJsonArray runs = o.value(QStringLiteral("runs")).toArray();
        QCOMPARE(runs[1].toObject().value(QStringLiteral("measured_run")).toString(),
                 QStringLiteral("r50"));
        QVERIFY(runs[1]
                    .toObject()
                    .value(QStringLiteral("scenario"))
                    .toString()
                    .contains(QStringLiteral("gemm")));
        const QJsonObject diff = o.value(QStringLiteral("diff")).toObject();
        QCOMPARE(diff.value(QStringLiteral("alignment")).toString(),
                 QStringLiteral("by step number"));
        QCOMPARE(diff.value(QStringLiteral("pairs")).toArray().size(), 6);
        int gemms = 0, others = 0;
        for (const auto &lv : diff.value(QStringLiteral("levels")).toArray()) {
            const QJsonObject level = lv.toObject();
            const bool gpu =
                level.value(QStringLiteral("level")).toString() == QLatin1String("GPU work");
            QCOMPARE(level.value(QStringLiteral("row_count")).toInt() > 0, true);
            for (const auto &rv : level.value(QStringLiteral("rows")).toArray()) {
                const QJsonObject r = rv.toObject();
                const double a = r.value(QStringLiteral("a_ns")).toDouble(),
                             b = r.value(QStringLiteral("b_ns")).toDouble();
                QCOMPARE(r.value(QStringLiteral("a_count")).toDouble(),
                         r.value(QStringLiteral("b_count")).toDouble());
                if (gpu &&
                    r.value(QStringLiteral("name")).toString().contains(QStringLiteral("gemm"))) {
                    QVERIFY2(std::abs(b - a / 2) <= 1.0,
                             qPrintable(r.value(QStringLiteral("path")).toString()));
                    ++gemms;
                } else if (gpu || level.value(QStringLiteral("level"))
                                      .toString()
                                      .startsWith(QLatin1String("operators"))) {
                    QVERIFY2(std::abs(b - a) <= 1.0,
                             qPrintable(r.value(QStringLiteral("path")).toString()));
                    ++others;
                }
            }
        }
        QVERIFY(gemms >= 5);
        QVERIFY(others > 50);
    }

    // Two DLRM ranks: the one step aligned by its number; rank 1's forward pass waits 5.5 ms
    // longer in its all-to-all, and the diff puts that first at every level.
    void diffTwoRanks()
    {
        GML_REQUIRE_SHARED(kDlrm);
        QTemporaryDir dir;
        auto p = gmltest::newProject(dir);
        gmltest::importInto(*p, {gmltest::sharedTraces() + QLatin1Char('/') + kDlrm});
        QString error;
        const RunCatalog c = catalogOf(*p);
        sim::DiffOptions options;
        options.rankA = 0;
        options.rankB = 1;
        const auto cmp = sim::compareRuns(*p, c, {c.runs.front().name, c.runs.front().name}, {},
                                          options, &error);
        QVERIFY2(cmp && cmp->diff, qPrintable(error));
        const sim::TraceDiff &d = *cmp->diff;
        QCOMPARE(d.alignment, QStringLiteral("by step number"));
        QCOMPARE(d.pairs.size(), size_t(1));
        QCOMPARE(d.a.rank, 0);
        QCOMPARE(d.b.rank, 1);
        const sim::DiffLevel *depth1 = nullptr, *gpu = nullptr;
        for (const auto &l : d.levels) {
            if (l.name == QLatin1String("operators, depth 1"))
                depth1 = &l;
            if (l.name == QLatin1String("GPU work"))
                gpu = &l;
        }
        QVERIFY(depth1 && gpu);
        QCOMPARE(depth1->rows.front().name, QStringLiteral("## forward ##"));
        QVERIFY(depth1->rows.front().delta() > 5e6 && depth1->rows.front().delta() < 6e6);
        QVERIFY(gpu->rows.front().name.startsWith(QLatin1String("ncclKernel_SendRecv")));
        QVERIFY(gpu->rows.front().path.contains(QStringLiteral("alltoall")));
        // Iteration time of each side: its ProfilerStep range.
        QCOMPARE(d.levels.front().rows.front().timeA, double(d.pairs.front().lengthA()));
    }

    // Two monitoring runs' GPU utilisation overlaid: on the time axis as they ran, on the
    // relative axis each from its own start, and not on the step axis (counters have no steps);
    // the MLflow loss on the step axis at its logged steps.
    void metricChartsOnTheirAxes()
    {
        const QString smi = QStringLiteral("gpu_monitoring/pmdlt_dgx_a100_mnist/02-nvidia-smi");
        const QString dcgmi = QStringLiteral("gpu_monitoring/pmdlt_dgx_a100_mnist/03-dcgmi");
        const QString store = QStringLiteral("mlflow/swahili_keras_autolog");
        GML_REQUIRE_SHARED(smi);
        GML_REQUIRE_SHARED(dcgmi);
        GML_REQUIRE_SHARED(store);
        QTemporaryDir dir;
        auto p = gmltest::newProject(dir);
        gmltest::importInto(*p, {gmltest::sharedTraces() + QLatin1Char('/') + smi});
        gmltest::importInto(*p, {gmltest::sharedTraces() + QLatin1Char('/') + dcgmi});
        const RunCatalog c = catalogOf(*p);
        const CatalogRun *a = c.run(QStringLiteral("02-nvidia-smi")),
                         *b = c.run(QStringLiteral("03-dcgmi"));
        QVERIFY(a && b);
        QString error;
        const auto series =
            sim::metricSeries(*p, c, {a->id, b->id}, QStringLiteral("GPU utilisation"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(series.size() >= 2);
        const QList<CatalogRun> runs{*a, *b};
        const TimeNs origin = std::min(a->start, b->start);
        const TimeChart time = metricChart(series, runs, CompareAxis::Time);
        const TimeChart relative = metricChart(series, runs, CompareAxis::Relative);
        QCOMPARE(time.lines.size(), series.size());
        QCOMPARE(relative.lines.size(), series.size());
        QSet<QString> names;
        for (size_t i = 0; i < series.size(); ++i) {
            const auto &s = series[i];
            names.insert(time.lines[i].name);
            QCOMPARE(time.lines[i].x.size(), s.points.size());
            QCOMPARE(time.lines[i].y.front(), s.points.front().value);
            QCOMPARE(time.lines[i].x.front(), double(s.points.front().t - origin) / 1e9);
            QCOMPARE(relative.lines[i].x.back(), double(s.points.back().t - s.runStart) / 1e9);
            QVERIFY(relative.lines[i].x.front() >= 0);
        }
        QCOMPARE(names.size(),
                 int(series.size())); // a name per line, the source added where a GPU has two
        QVERIFY(time.steps && !time.markers);
        QString note;
        QVERIFY(metricChart(series, runs, CompareAxis::Step, &note).lines.empty());
        QVERIFY2(note.contains(QStringLiteral("not logged at steps")), qPrintable(note));

        gmltest::importInto(*p, {gmltest::sharedTraces() + QLatin1Char('/') + store});
        const RunCatalog withMlflow = catalogOf(*p);
        QList<CatalogRun> logged;
        for (const CatalogRun &r : withMlflow.runs)
            if (!sim::comparableMetrics(*p, {r.id}).isEmpty() &&
                sim::comparableMetrics(*p, {r.id}).contains(QStringLiteral("loss")))
                logged << r;
        QVERIFY(!logged.isEmpty());
        const auto loss =
            sim::metricSeries(*p, withMlflow, {logged.front().id}, QStringLiteral("loss"), &error);
        QCOMPARE(loss.size(), size_t(1));
        const TimeChart steps = metricChart(loss, logged, CompareAxis::Step, &note);
        QVERIFY(note.isEmpty());
        QCOMPARE(steps.lines.size(), size_t(1));
        QVERIFY(steps.markers && !steps.steps);
        QCOMPARE(steps.keyLabel, QStringLiteral("step"));
        for (size_t k = 0; k < loss.front().points.size(); ++k) {
            QCOMPARE(steps.lines[0].x[k], double(loss.front().points[k].step));
            QCOMPARE(steps.lines[0].y[k], loss.front().points[k].value);
        }
        // A scatter can place the run by its last loss.
        QStringList metricErrors;
        QVERIFY(sim::updateRunMetrics(*p, runsWithoutMetrics(*p, sim::kRunMetricsVersion),
                                      &metricErrors));
        const CatalogRun withLast = *catalogOf(*p).run(logged.front().name);
        const auto against = scatterMetrics({withLast});
        const auto last =
            std::find_if(against.begin(), against.end(), [](const sim::SummaryMetric &m) {
                return m.key == QLatin1String("last_metrics.loss");
            });
        QVERIFY(last != against.end());
        QCOMPARE(last->label, QStringLiteral("loss (last)"));
        QCOMPARE(sim::summaryValue(withLast, *last), loss.front().points.back().value);
    }

    // The bars of generated runs and of a prediction: each run's mean iteration time with its
    // spread, the prediction hatched and saying where it came from, breakdowns adding up to 100%;
    // world size against iteration time as numbers, the backend as a category.
    void summaryBarsAndScatter()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        int code = -1;
        for (const QString &ranks : {QStringLiteral("2"), QStringLiteral("4")}) {
            const QString out = dir.filePath(QStringLiteral("w") + ranks);
            QDir().mkpath(out);
            QCOMPARE(gmltest::runProgram(QStringLiteral(GRADEML_TRACEGEN),
                                         {QStringLiteral("--out"), out, QStringLiteral("--ranks"),
                                          ranks, QStringLiteral("--steps"), QStringLiteral("4")})
                         .code,
                     0);
            cli({QStringLiteral("import"), out, QStringLiteral("--project"), project}, &code);
            QCOMPARE(code, 0);
        }
        cli({QStringLiteral("whatif"), project, QStringLiteral("--run"), QStringLiteral("w2"),
             QStringLiteral("--scale"), QStringLiteral("gemm=0.5"), QStringLiteral("--save"),
             QStringLiteral("w2 gemm")},
            &code);
        QCOMPARE(code, 0);
        cli({QStringLiteral("runs"), project}, &code); // computes the headline metrics
        QCOMPARE(code, 0);
        QString error;
        auto p = Project::open(project, Project::Mode::ReadOnly, &error);
        QVERIFY2(p, qPrintable(error));
        const RunCatalog c = catalogOf(*p);
        const QList<CatalogRun> runs{*c.run(QStringLiteral("w2")), *c.run(QStringLiteral("w4")),
                                     *c.run(QStringLiteral("w2 gemm"))};
        const SummaryCharts s = summaryCharts(runs);
        QCOMPARE(s.iteration.categories, (QStringList{QStringLiteral("w2"), QStringLiteral("w4"),
                                                      QStringLiteral("w2 gemm")}));
        QCOMPARE(s.iteration.series.size(), size_t(3));
        for (int k = 0; k < 3; ++k) {
            QCOMPARE(s.iteration.series[size_t(k)].values[size_t(k)],
                     runs[k].metric(QStringLiteral("step_mean_ns")) / 1e6);
            QCOMPARE(s.iteration.errors[size_t(k)],
                     runs[k].metric(QStringLiteral("step_sd_ns")) / 1e6);
            double total = 0;
            for (const auto &part : s.breakdown.series)
                total += part.values[size_t(k)];
            QVERIFY2(std::abs(total - 100) < 1e-6, qPrintable(QString::number(total)));
        }
        QCOMPARE(s.iteration.series[0].pattern, Qt::SolidPattern);
        QVERIFY(s.iteration.series[2].pattern != Qt::SolidPattern);
        QVERIFY2(s.iteration.notes[2].contains(QStringLiteral("predicted from 'w2'")),
                 qPrintable(s.iteration.notes[2]));

        const sim::SummaryMetric &iteration = sim::summaryMetrics().front();
        const ScatterChart numeric = paramScatter(runs, QStringLiteral("world_size"), iteration);
        QVERIFY(numeric.categories.isEmpty());
        // The prediction from w2 keeps its world size (a workers change would set its own).
        QCOMPARE(numeric.points.size(), size_t(3));
        QCOMPARE(numeric.points[0].x, 2.0);
        QCOMPARE(numeric.points[1].x, 4.0);
        QCOMPARE(numeric.points[2].x, 2.0);
        QCOMPARE(numeric.points[1].y, runs[1].metric(QStringLiteral("step_mean_ns")) / 1e6);
        const ScatterChart categorical = paramScatter(runs, QStringLiteral("backend"), iteration);
        QCOMPARE(categorical.categories, QStringList{QStringLiteral("nccl")});
        QCOMPARE(categorical.points.front().x, 1.0);
    }

    // grademl export --view compare writes the panel's charts as a valid PNG, SVG (text kept)
    // and PDF; a bad axis or run is refused with a reason.
    void exportCompareFigures()
    {
        QTemporaryDir dir;
        const QString project = importedJob(dir, 2, 4);
        QVERIFY(!project.isEmpty());
        int code = -1;
        cli({QStringLiteral("whatif"), project, QStringLiteral("--run"), QStringLiteral("job"),
             QStringLiteral("--preset"), QStringLiteral("amp"), QStringLiteral("--save"),
             QStringLiteral("job amp")},
            &code);
        QCOMPARE(code, 0);
        for (const QString &ext :
             {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
            const QString out = dir.filePath(QStringLiteral("cmp.") + ext);
            cli({QStringLiteral("export"), project, QStringLiteral("--view"),
                 QStringLiteral("compare"), QStringLiteral("--runs"), QStringLiteral("job,job amp"),
                 QStringLiteral("--param"), QStringLiteral("world_size"), QStringLiteral("--out"),
                 out, QStringLiteral("--size"), QStringLiteral("1200x900")},
                &code);
            QCOMPARE(code, 0);
            QFile f(out);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            if (ext == QLatin1String("png")) {
                QCOMPARE(QImage(out).size(), QSize(1200, 900));
            } else if (ext == QLatin1String("svg")) {
                QVERIFY(bytes.contains("<svg"));
                for (const char *text : {"Iteration time", "GPU time", "job amp", "world_size"})
                    QVERIFY2(bytes.contains(text), text);
            } else {
                QVERIFY(bytes.startsWith("%PDF-"));
                QVERIFY(bytes.trimmed().endsWith("%%EOF"));
            }
        }
        const auto bad = gmltest::runCli(
            {QStringLiteral("export"), project, QStringLiteral("--view"), QStringLiteral("compare"),
             QStringLiteral("--runs"), QStringLiteral("job,nope"), QStringLiteral("--out"),
             dir.filePath(QStringLiteral("x.png"))});
        QCOMPARE(bad.code, 1);
        QVERIFY(bad.err.contains("no run named 'nope'"));
        cli({QStringLiteral("export"), project, QStringLiteral("--view"), QStringLiteral("compare"),
             QStringLiteral("--runs"), QStringLiteral("job,job amp"), QStringLiteral("--axis"),
             QStringLiteral("sideways"), QStringLiteral("--out"),
             dir.filePath(QStringLiteral("x.png"))},
            &code);
        QCOMPARE(code, 2);
    }

    // A prediction on another GPU names it (issue 73): the saved run's params say H100, its GPU
    // rows read "GPU 0 · NVIDIA H100 SXM5" (they said the measured A100), and its analysis
    // takes the H100's peaks (the roofline's device).
    void aPredictionNamesItsTargetGpu()
    {
        QTemporaryDir dir;
        const QString project = importedJob(dir, 2, 4);
        QVERIFY(!project.isEmpty());
        int code = -1;
        cli({QStringLiteral("whatif"), project, QStringLiteral("--run"), QStringLiteral("job"),
             QStringLiteral("--device"), QStringLiteral("H100"), QStringLiteral("--save"),
             QStringLiteral("job on h100")},
            &code);
        QCOMPARE(code, 0);
        cli({QStringLiteral("runs"), project}, &code); // computes and stores the runs' metrics
        QCOMPARE(code, 0);
        QString error;
        auto p = Project::open(project, Project::Mode::ReadOnly, &error);
        QVERIFY2(p, qPrintable(error));
        const RunCatalog c = catalogOf(*p);
        const CatalogRun *predicted = c.run(QStringLiteral("job on h100"));
        QVERIFY(predicted);
        QCOMPARE(predicted->params.value(QStringLiteral("gpu_models")).toArray().first().toString(),
                 QStringLiteral("H100"));
        // Its MFU against the H100's peak, not the measured A100's: the same FLOPs in its own
        // time against a peak 3.2-3.4 times the A100's (fp16 989.4/312, fp32 67/19.5); on the
        // A100's the ratio would be 1.
        const CatalogRun *measured = c.run(QStringLiteral("job"));
        QCOMPARE(predicted->metrics.value(QStringLiteral("device")).toString(),
                 QStringLiteral("H100"));
        const double mfuRatio =
            predicted->metric(QStringLiteral("mfu")) / measured->metric(QStringLiteral("mfu"));
        const double timeRatio = measured->metric(QStringLiteral("step_mean_all_ns")) /
                                 predicted->metric(QStringLiteral("step_mean_all_ns"));
        QVERIFY2(mfuRatio / timeRatio > 0.28 && mfuRatio / timeRatio < 0.33,
                 qPrintable(QStringLiteral("%1 %2").arg(mfuRatio).arg(timeRatio)));
        auto st = p->db().prepare("SELECT name FROM track WHERE run_id = ? AND kind = ?");
        st.bind(1, predicted->id);
        st.bind(2, qint64(TrackKind::Gpu));
        int gpus = 0;
        while (st.step()) {
            ++gpus;
            const QString name = st.text(0);
            QVERIFY2(name.contains(
                         QRegularExpression(QStringLiteral("GPU \\d+ \u00b7 NVIDIA H100 SXM5$"))) &&
                         !name.contains(QLatin1String("A100")),
                     qPrintable(name));
        }
        QCOMPARE(gpus, 2);
        const QJsonObject roofline =
            QJsonDocument::fromJson(
                cli({QStringLiteral("roofline"), project, QStringLiteral("--run"),
                     QStringLiteral("job on h100"), QStringLiteral("--json")},
                    &code))
                .object();
        QCOMPARE(code, 0);
        QCOMPARE(roofline.value(QStringLiteral("catalog_device")).toString(),
                 QStringLiteral("H100"));
        // The live prediction (the what-if panel's, before it is saved) names it too.
        const auto data = loadTimelineData(*p, &error);
        QVERIFY2(data, qPrintable(error));
        const auto graph = sim::DependencyGraph::build(*p, measured->id, &error);
        QVERIFY2(graph, qPrintable(error));
        const auto live = sim::withPredictedRun(
            data, measured->id, *graph, sim::replay(*graph, sim::ReplayInput::measured(*graph)),
            QStringLiteral("live"), {sim::Transform::device(QStringLiteral("H100"))});
        gpus = 0;
        for (const auto &run : live->runs)
            if (run.id == kLivePredictionRun)
                for (const TrackSummary &t : run.tracks)
                    if (t.kind == TrackKind::Gpu) {
                        ++gpus;
                        QVERIFY2(t.name.endsWith(QStringLiteral("\u00b7 NVIDIA H100 SXM5")),
                                 qPrintable(t.name));
                    }
        QCOMPARE(gpus, 2);
    }

    // grademl runs lists the hierarchy with the headline metrics it computed on the way.
    void runsCommand()
    {
        QTemporaryDir dir;
        const QString project = importedJob(dir, 2, 3);
        QVERIFY(!project.isEmpty());
        int code = -1;
        const QJsonObject o =
            QJsonDocument::fromJson(
                cli({QStringLiteral("runs"), project, QStringLiteral("--json")}, &code))
                .object();
        QCOMPARE(code, 0);
        const QJsonArray runs = o.value(QStringLiteral("runs")).toArray();
        QCOMPARE(runs.size(), 1);
        const QJsonObject m = runs[0].toObject().value(QStringLiteral("metrics")).toObject();
        QCOMPARE(m.value(QStringLiteral("iterations")).toInt(), 3);
        QVERIFY(m.value(QStringLiteral("step_mean_ns")).toDouble() > 0);
        const QString text = QString::fromUtf8(cli({QStringLiteral("runs"), project}, &code));
        QVERIFY2(text.contains(QStringLiteral("step ")) &&
                     text.contains(QStringLiteral("GPU busy")),
                 qPrintable(text));
    }
};

QTEST_GUILESS_MAIN(TestRuns)
#include "tst_runs.moc"
