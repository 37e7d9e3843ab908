// SPDX-License-Identifier: GPL-3.0-or-later
// The findings of the automated analysis (issue 16) and their what-if gains, on real traces and
// generated runs, checked against the what-if CLI and against the monitoring logs' own energy
// counter.
#include "findings.h"
#include "importutil.h"
#include "testutil.h"

#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gml;
using namespace gml::sim;

namespace {

std::pair<int, QString> cli(const QStringList &args)
{
    const auto r = gmltest::runCli(args);
    return {r.code, r.all()};
}

RunReport reportOf(Project &project, const QString &run, const AnalysisScope &scope = {})
{
    QString error;
    auto r = analyzeRun(project, *project.findRun(run), run, scope, &error);
    if (!r)
        qFatal("analyzeRun: %s", qPrintable(error));
    return std::move(*r);
}

QStringList rules(const RunReport &r)
{
    QStringList out;
    for (const auto &f : r.findings)
        out << f.rule;
    return out;
}

} // namespace

class TestFindings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void resnetIsInputBound()
    {
        // DataLoader with num_workers=0: the GPU waits for the batch each step. The top
        // finding is input-bound, and its gain is what `grademl whatif --preset input=free`
        // predicts for the run.
        const QString path = QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100");
        GML_REQUIRE_SHARED(path);
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        auto r = cli({QStringLiteral("import"), gmltest::sharedTraces() + QLatin1Char('/') + path,
                      QStringLiteral("--project"), project, QStringLiteral("--run"),
                      QStringLiteral("r")});
        QVERIFY2(r.first == 0, qPrintable(r.second));
        auto p = Project::open(project, Project::Mode::ReadOnly, nullptr);
        const RunReport report = reportOf(*p, QStringLiteral("r"));
        QVERIFY(!report.findings.empty());
        const Finding &top = report.findings.front();
        QCOMPARE(top.rule, QStringLiteral("input-bound"));
        QVERIFY(top.priced);
        QCOMPARE(top.fix.size(), 1);
        QVERIFY(!top.evidence.empty());
        // Every other priced finding gains less.
        for (size_t k = 1; k < report.findings.size(); ++k)
            QVERIFY(report.findings[k].gain() <= top.gain());

        r = cli({QStringLiteral("whatif"), project, QStringLiteral("--preset"),
                 QStringLiteral("input=free"), QStringLiteral("--json")});
        QVERIFY2(r.first == 0, qPrintable(r.second));
        const QJsonObject w = QJsonDocument::fromJson(r.second.toUtf8()).object();
        const double identity = w.value(QStringLiteral("identity_ns")).toDouble();
        const double predicted = w.value(QStringLiteral("predicted_ns")).toDouble();
        QVERIFY(identity > 0 && predicted > 0);
        const double whatifGain = 1 - predicted / identity;
        QVERIFY2(
            std::abs(top.gain() - whatifGain) < 0.02,
            qPrintable(QStringLiteral("finding %1, whatif %2").arg(top.gain()).arg(whatifGain)));
        QVERIFY2(top.gain() > 0.25, qPrintable(QString::number(top.gain())));
        // And the GPU's idle while loading, as the analysis split it, is most of the evidence.
        QVERIFY(top.share > 0.2);
    }

    void healthyRunHasNoFindings()
    {
        // Batches from loader workers, pinned copies, FP16 tensor-core matmuls, no syncs, no
        // all-reduce: nothing to report, and the MFU the FLOPs say.
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(
            dir, 1, 8, 0,
            {QStringLiteral("--healthy"), QStringLiteral("--layers"), QStringLiteral("12")});
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces});
        const RunReport report = reportOf(*project, QStringLiteral("job"));
        QVERIFY2(report.findings.empty(), qPrintable(rules(report).join(QLatin1Char(','))));
        QVERIFY(report.summary.gpuBusy > 0.95);
        // tracegen records each matmul's FLOPs as its kernel time at 50% of the A100's 312
        // TFLOP/s: MFU is half the share of time the GPU spends in matmuls.
        QVERIFY2(report.summary.mfu > 0.35 && report.summary.mfu < 0.5,
                 qPrintable(QString::number(report.summary.mfu)));
    }

    void generatedRunIsInputBound()
    {
        // The default generated job loads each batch for 15-30 ms on the training thread
        // after a device synchronise: input-bound first, by far.
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 2, 4);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces});
        const RunReport report = reportOf(*project, QStringLiteral("job"));
        QVERIFY(!report.findings.empty());
        QCOMPARE(report.findings.front().rule, QStringLiteral("input-bound"));
        QVERIFY(report.findings.front().gain() > 0.5);
        QVERIFY(!rules(report).contains(QStringLiteral("sync-stall")));
    }

    void stragglerRankIsNamedAndPriced()
    {
        // Rank 2 of 4 has a slower GPU: last at every all-reduce, the others waiting for it
        // (a healthy job otherwise, so no data loading jitter decides who is last).
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(
            dir, 4, 6, 0,
            {QStringLiteral("--slow-rank"), QStringLiteral("2"), QStringLiteral("--layers"),
             QStringLiteral("12"), QStringLiteral("--healthy")});
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces});
        const RunReport report = reportOf(*project, QStringLiteral("job"));
        QVERIFY(report.analysis);
        // Last at every all-reduce but perhaps the first (the ranks start 1.3 ms apart).
        int last = 0;
        for (const auto &s : report.analysis->stragglers)
            last += s.lastRank == 2;
        QVERIFY2(last >= int(report.analysis->stragglers.size()) - 1,
                 qPrintable(QString::number(last)));
        const Finding *straggler = nullptr;
        for (const auto &f : report.findings)
            if (f.rule == QLatin1String("straggler"))
                straggler = &f;
        QVERIFY2(straggler, qPrintable(rules(report).join(QLatin1Char(','))));
        QVERIFY(straggler->title.contains(QLatin1String("rank 2")));
        QCOMPARE(straggler->fix.size(), 1);
        QCOMPARE(straggler->fix.front().select.rank, 2);
        // Its work made the others' mean: about 1/1.5 of its kernels' time.
        QVERIFY2(straggler->fix.front().factor > 0.6 && straggler->fix.front().factor < 0.9,
                 qPrintable(QString::number(straggler->fix.front().factor)));
        QVERIFY(straggler->priced && straggler->gain() > 0);
        QCOMPARE(int(straggler->evidence.size()), last); // one per all-reduce it was last at
        // And it holds the critical path across the ranks.
        QVERIFY(!report.criticalByRank.empty());
        QCOMPARE(report.criticalByRank.front().first, 2);
        QVERIFY(report.criticalByRank.front().second > report.criticalLength / 2);
    }

    void unsyncDropsTheWait()
    {
        // The generated job synchronises at each step's end: with the calls no longer waiting,
        // no synchronise call ends after the GPU work launched before it any more.
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 1, 3);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces});
        QString error;
        auto built =
            DependencyGraph::build(*project, *project->findRun(QStringLiteral("job")), &error);
        QVERIFY2(built, qPrintable(error));
        const auto g = std::make_shared<const DependencyGraph>(std::move(*built));
        const auto prepared = prepare(
            g, {Transform::unsync()},
            WhatIfContext::forRun(*g, *project, *project->findRun(QStringLiteral("job"))), &error);
        QVERIFY2(prepared, qPrintable(error));
        const Replay identity = replay(*g, ReplayInput::measured(*g));
        const Replay unsynced = replay(*g, prepared->input);
        int syncs = 0;
        for (size_t i = 0; i < g->nodes().size(); ++i) {
            if (!isSynchronisingCall(g->name(g->nodes()[i].name)))
                continue;
            ++syncs;
            QVERIFY(prepared->input.unsynced[i]);
            // Its own work only: it ends its measured work after it starts.
            QCOMPARE(unsynced.end[i] - unsynced.start[i], g->nodes()[i].work);
            QVERIFY(identity.end[i] - identity.start[i] >= g->nodes()[i].work);
        }
        QCOMPARE(syncs, 3);
        QVERIFY(unsynced.makespan() <= identity.makespan());
    }

    void monitoringOnlyRunHasPhasesAndEnergy()
    {
        // nvidia-smi, dcgmi and top logs of an MNIST run on a DGX A100, no kernel trace.
        const QString path = QStringLiteral("gpu_monitoring/pmdlt_dgx_a100_mnist/03-dcgmi");
        GML_REQUIRE_SHARED(path);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {gmltest::sharedTraces() + QLatin1Char('/') + path},
                            QStringLiteral("mnist"));
        const RunReport report = reportOf(*project, QStringLiteral("mnist"));
        QVERIFY(!report.analysis);
        const ResourceAttribution &res = report.resources;
        QCOMPARE(res.phaseSource, QStringLiteral("GPU activity in the monitoring logs"));
        int active = -1, busy = 0, lulls = 0;
        for (size_t p = 0; p < res.phases.size(); ++p) {
            if (res.phases[p].kind == QLatin1String("active"))
                active = int(p);
            busy += res.phases[p].kind == QLatin1String("busy");
            lulls += res.phases[p].kind == QLatin1String("lull");
        }
        QVERIFY(active >= 0);
        // Training stretches at ~22% utilisation, each followed by a ~1 s lull (the test pass).
        QVERIFY2(busy >= 4 && lulls >= 3,
                 qPrintable(QStringLiteral("%1 busy, %2 lulls").arg(busy).arg(lulls)));
        const PhaseUsage *gpu0 = nullptr;
        for (const auto &u : res.usage)
            if (u.phase == active && u.device == QLatin1String("GPU 0"))
                gpu0 = &u;
        QVERIFY(gpu0);
        QVERIFY(gpu0->has(Metric::GpuUtilisation) && gpu0->has(Metric::Power) &&
                gpu0->has(Metric::MemoryUsed));
        const double util = gpu0->mean[size_t(Metric::GpuUtilisation)];
        QVERIFY2(util > 15 && util < 25, qPrintable(QString::number(util)));
        // Energy: power integrated over the active phase against dcgmi's own cumulative energy
        // counter (TOTEC, mJ) read here: the difference of its samples over the same span.
        const Phase &phase = res.phases[size_t(active)];
        auto st = project->db().prepare(
            "SELECT c.value FROM counter c JOIN track t ON t.id = c.track_id JOIN track g ON g.id "
            "= t.parent_id "
            "JOIN source s ON s.id = t.source_id WHERE t.name LIKE 'dcgmi · TOTEC%' AND g.pid = "
            "'0' "
            "AND c.ts + s.clock_offset_ns + s.align_ns BETWEEN ? AND ? ORDER BY c.ts");
        st.bind(1, qint64(phase.start));
        st.bind(2, qint64(phase.end));
        std::vector<double> totec;
        while (st.step())
            totec.push_back(st.real(0));
        QVERIFY(totec.size() > 10);
        const double counted = (totec.back() - totec.front()) / 1000;
        QVERIFY2(
            std::abs(gpu0->energyJ - counted) / counted < 0.05,
            qPrintable(
                QStringLiteral("integrated %1 J, TOTEC %2 J").arg(gpu0->energyJ).arg(counted)));
        // The finding a monitoring-only run can get.
        QVERIFY(rules(report).contains(QStringLiteral("low-utilisation")));
        for (const auto &f : report.findings)
            QVERIFY(!f.priced && !f.noFix.isEmpty());
        // And the CLI prints it.
        const QString file = dir.filePath(QStringLiteral("p.grademl"));
        project.reset();
        const auto r = cli({QStringLiteral("analyze"), file, QStringLiteral("--json")});
        QVERIFY2(r.first == 0, qPrintable(r.second));
        const QJsonObject o = QJsonDocument::fromJson(r.second.toUtf8()).object();
        QVERIFY(o.value(QStringLiteral("resources"))
                    .toObject()
                    .value(QStringLiteral("phases"))
                    .toArray()
                    .size() >= 8);
        QVERIFY(o.value(QStringLiteral("summary"))
                    .toObject()
                    .contains(QStringLiteral("gpu_utilisation")));
    }

    void generatedRunEnergyPerIteration()
    {
        // A generated job with nvidia-smi beside it: each ProfilerStep gets the GPUs' energy.
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 2, 4, 0, {QStringLiteral("--monitor")});
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces});
        const RunReport report = reportOf(*project, QStringLiteral("job"));
        QCOMPARE(report.resources.phaseSource, QStringLiteral("the execution model"));
        int iterations = 0;
        for (const auto &p : report.resources.phases)
            iterations += p.kind == QLatin1String("iteration");
        QCOMPARE(iterations, 4);
        QVERIFY(report.summary.energyPerIterationJ > 0);
        // Data loading is one phase over the four loading ranges (ranges that hold no ops, here).
        const auto loading =
            std::find_if(report.resources.phases.begin(), report.resources.phases.end(),
                         [](const Phase &p) { return p.kind == QLatin1String("data loading"); });
        QVERIFY(loading != report.resources.phases.end());
        QCOMPARE(loading->spans.size(), size_t(4)); // each step loads the next batch at its end
    }

    void exportAnalysisCharts()
    {
        // grademl export --view analysis: the panel's charts, as a vector SVG (text stays text)
        // and a PNG of the requested size.
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 2, 3, 0, {QStringLiteral("--monitor")});
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        auto r = cli({QStringLiteral("import"), traces, QStringLiteral("--project"), project});
        QVERIFY2(r.first == 0, qPrintable(r.second));
        const QString svg = dir.filePath(QStringLiteral("a.svg")),
                      png = dir.filePath(QStringLiteral("a.png"));
        r = cli({QStringLiteral("export"), project, QStringLiteral("--view"),
                 QStringLiteral("analysis"), QStringLiteral("--out"), svg});
        QVERIFY2(r.first == 0, qPrintable(r.second));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        for (const char *title : {"GPU time per iteration", "GPU time per GPU",
                                  "Kernel time by family", "GPU utilisation"})
            QVERIFY2(text.contains(title), title);
        r = cli({QStringLiteral("export"), project, QStringLiteral("--view"),
                 QStringLiteral("analysis"), QStringLiteral("--out"), png, QStringLiteral("--size"),
                 QStringLiteral("1000x700")});
        QVERIFY2(r.first == 0, qPrintable(r.second));
        QCOMPARE(QImage(png).size(), QSize(1000, 700));
        r = cli({QStringLiteral("export"), project, QStringLiteral("--view"),
                 QStringLiteral("analysis"), QStringLiteral("--out"), png,
                 QStringLiteral("--level"), QStringLiteral("gpu")});
        QCOMPARE(r.first, 2);
    }

    void transformKeysAreChecked()
    {
        QString error;
        QVERIFY(!Transform::fromJson(QJsonObject{{QStringLiteral("op"), QStringLiteral("host")},
                                                 {QStringLiteral("factr"), 0}},
                                     &error));
        QVERIFY2(error.contains(QStringLiteral("unknown key 'factr'")), qPrintable(error));
        QVERIFY(!Transform::fromJson(
            QJsonObject{
                {QStringLiteral("op"), QStringLiteral("scale")},
                {QStringLiteral("select"), QJsonObject{{QStringLiteral("kinds"), QJsonArray{}}}}},
            &error));
        QVERIFY2(error.contains(QStringLiteral("select: unknown key 'kinds'")), qPrintable(error));
        for (const auto &t : {Transform::host(0), Transform::host(2), Transform::unsync()}) {
            const auto back = Transform::fromJson(t.toJson(), &error);
            QVERIFY2(back, qPrintable(error));
            QCOMPARE(back->toJson(), t.toJson());
        }
    }
};

QTEST_GUILESS_MAIN(TestFindings)
#include "tst_findings.moc"
