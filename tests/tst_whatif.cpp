// SPDX-License-Identifier: GPL-3.0-or-later
// The what-if engine: graph construction on a hand-checked trace (each edge kind), replay and
// transforms against predictions worked out by hand, the critical-path breakdown summing to
// the end-to-end time, identity replay on every shared GPU trace, and `grademl whatif`.
#include "dependencygraph.h"
#include "importutil.h"
#include "testutil.h"
#include "whatif.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace gml;
using namespace gml::sim;

namespace {

// One thread launching k1, k2 (stream 7) and an all-reduce (stream 20), then synchronising the
// device and running one more CPU op. Times in µs:
//   A launch k1 [0,10)   B launch k2 [20,30)   C launch nccl [40,50)
//   D cudaDeviceSynchronize [60,300)   E aten::add [310,330)
//   k1 [15,115)   k2 [115,215)   nccl [217,297): waits for k2 (stream wait, 2 µs after it)
const char kTrace[] = R"J({"traceEvents":[
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":10,"args":{"correlation":1}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":10,"args":{"correlation":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":40,"dur":10,"args":{"correlation":3}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":60,"dur":240,"args":{"correlation":4}},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":310,"dur":20,"args":{}},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":15,"dur":100,"args":{"correlation":1,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":115,"dur":100,"args":{"correlation":2,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)","pid":0,"tid":20,"ts":217,"dur":80,"args":{"correlation":3,"device":0,"stream":20}}
]})J";

constexpr TimeNs us(double v)
{
    return TimeNs(v * 1000);
}

int runCli(const QStringList &args, QByteArray *out)
{
    QProcess p;
    p.start(QStringLiteral(GRADEML_CLI), args);
    if (!p.waitForFinished(300000))
        qFatal("grademl did not finish");
    *out = p.readAllStandardOutput() + p.readAllStandardError();
    return p.exitCode();
}

} // namespace

class TestWhatIf : public QObject
{
    Q_OBJECT

    std::unique_ptr<Project> handProject(QTemporaryDir &dir)
    {
        gmltest::writeFile(dir, QStringLiteral("run/hand.json"), kTrace);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {dir.filePath(QStringLiteral("run"))});
        return project;
    }

private Q_SLOTS:
    void graphHasEachEdgeKind()
    {
        QTemporaryDir dir;
        auto project = handProject(dir);
        QString error;
        const auto g = DependencyGraph::build(*project, *project->findRun(QStringLiteral("run")), &error);
        QVERIFY2(g, qPrintable(error));
        QCOMPARE(g->nodes().size(), size_t(8));
        QCOMPARE(g->resources().size(), size_t(3)); // thread, stream 7, stream 20
        const auto counts = g->edgeCounts();
        QCOMPARE(counts[size_t(EdgeKind::Launch)], 3);
        QCOMPARE(counts[size_t(EdgeKind::Sync)], 2);       // D waits for k2 and the all-reduce
        QCOMPARE(counts[size_t(EdgeKind::StreamWait)], 1); // the all-reduce waits for k2
        QCOMPARE(counts[size_t(EdgeKind::Collective)], 0); // one rank
        QCOMPARE(g->violations(), 0);
        auto node = [&](const char *name) -> const Node & {
            for (const auto &n : g->nodes())
                if (g->name(n.name) == QLatin1String(name))
                    return n;
            qFatal("no node %s", name);
        };
        // k1 could start 10 µs into its launch (the call's length): 5 µs of slack after that.
        QCOMPARE(node("k1").slack, us(5));
        QCOMPARE(node("k2").slack, us(0));
        // D's work is what is left after the last GPU work ended at 297.
        QCOMPARE(node("cudaDeviceSynchronize").work, us(3));
        QCOMPARE(node("aten::add").slack, us(10));
        for (const auto &e : g->edges()) {
            if (e.kind == EdgeKind::StreamWait) {
                QCOMPARE(g->name(g->nodes()[size_t(e.from)].name), QStringLiteral("k2"));
                QCOMPARE(e.lag, us(2));
            }
        }
    }

    void replayAndTransformsMatchHandPredictions()
    {
        QTemporaryDir dir;
        auto project = handProject(dir);
        QString error;
        const auto g = DependencyGraph::build(*project, *project->findRun(QStringLiteral("run")), &error);
        QVERIFY(g);
        auto report = whatIf(*g, {});
        QCOMPARE(report.measured, us(330));
        QCOMPARE(report.identity, us(330));
        // Critical path: k1 (launch lag 10 as CPU, 5 idle), k1 + k2 compute, 2 µs stream-wait
        // lag idle, all-reduce 80, D's 3, E's slack 10 and work 20 as CPU.
        QCOMPARE(report.identityBreakdown.compute, us(200));
        QCOMPARE(report.identityBreakdown.communication, us(80));
        QCOMPARE(report.identityBreakdown.cpu, us(43));
        QCOMPARE(report.identityBreakdown.idle, us(7));
        QCOMPARE(report.identityBreakdown.total(), report.identity);

        // k2 twice as long: the all-reduce starts at 317, D ends at 400, E at 430.
        QString why;
        auto slower = parseScale(QStringLiteral("^k2$=2"), &why);
        QVERIFY2(slower, qPrintable(why));
        report = whatIf(*g, {*slower});
        QCOMPARE(report.predicted, us(430));
        QCOMPARE(report.predictedBreakdown.compute, us(300));
        QCOMPARE(report.predictedBreakdown.total(), report.predicted);

        // No all-reduce work: it still marks the point 2 µs after k2 (217) that D waits for;
        // D ends at 220, E runs [230, 250).
        report = whatIf(*g, {*parseScale(QStringLiteral("^nccl=0"), &why)});
        QCOMPARE(report.predicted, us(250));
        QCOMPARE(report.predictedBreakdown.total(), report.predicted);

        // Kernels 4x faster: k1 [15,40), k2 [40,65), all-reduce [67,147), D ends 150, E [160,180).
        report = whatIf(*g, {*parseScale(QStringLiteral("^k\\d$=0.25"), &why)});
        QCOMPARE(report.predicted, us(180));

        QVERIFY(!parseScale(QStringLiteral("k2"), &why));
        QVERIFY(!parseScale(QStringLiteral("k2=-1"), &why));
        QVERIFY(!parseScale(QStringLiteral("(k2=2"), &why));
        QVERIFY2(why.contains(QLatin1String("offset")), qPrintable(why));
    }

    void generatedRanksJoinTheirCollectives()
    {
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 3, 4);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces});
        QString error;
        const auto g = DependencyGraph::build(*project, *project->findRun(QStringLiteral("job")), &error);
        QVERIFY2(g, qPrintable(error));
        // One all-reduce per step and rank, each waiting for the other two ranks' start.
        QCOMPARE(g->edgeCounts()[size_t(EdgeKind::Collective)], 4 * 3 * 2);
        // Each all-reduce waits for the backward pass on the compute stream.
        QCOMPARE(g->edgeCounts()[size_t(EdgeKind::StreamWait)], 4 * 3);
        QCOMPARE(g->violations(), 0);
        const auto report = whatIf(*g, {});
        QCOMPARE(report.identity, report.measured);
        QCOMPARE(report.iterations.size(), 4);
        for (const auto &it : report.iterations)
            QCOMPARE(it.identity, it.measured);
        QCOMPARE(report.identityBreakdown.total(), report.identity);
        QVERIFY(report.identityBreakdown.communication > 0);
        // Half-time data loading shortens every iteration.
        QString why;
        const auto faster = whatIf(*g, {*parseScale(QStringLiteral("DataLoader=0.5"), &why)});
        QVERIFY(faster.predicted < report.measured);
        for (int i = 0; i < faster.iterations.size(); ++i)
            QVERIFY(faster.iterations[i].predicted < faster.iterations[i].measured);
    }

    void identityReplayOnSharedGpuTraces_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<double>("aim");
        for (const char *f : {"pytorch_kineto/hta_2022_format_a100_rank3of8", "pytorch_kineto/hta_alexnet_a100",
                              "pytorch_kineto/hta_amd_mi250_rocm62", "pytorch_kineto/hta_cuda_event_sync_multistream_a100",
                              "pytorch_kineto/hta_nccl_allreduce_rank0of2_a100", "pytorch_kineto/hta_ns_resolution_v100",
                              "pytorch_kineto/hta_simple_add_with_et_a100", "pytorch_kineto/kineto_docs_tiny_h100",
                              "pytorch_kineto/kineto_tbplugin_2021_resnet50_v100", "pytorch_kineto/param_linear_rtx2080ti",
                              "nsight_systems/nsysai_h100_2gpu_mfu_before", "nsight_systems/nsysai_rtx3080_tiny_full"})
            QTest::newRow(f) << QString::fromLatin1(f) << 0.01;
        QTest::newRow("dlrm 8 ranks") << QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100") << 0.03;
    }

    void identityReplayOnSharedGpuTraces()
    {
        QFETCH(QString, folder);
        QFETCH(double, aim);
        GML_REQUIRE_SHARED(folder);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {gmltest::sharedTraces() + QLatin1Char('/') + folder}, QStringLiteral("r"));
        QString error;
        const auto g = DependencyGraph::build(*project, *project->findRun(QStringLiteral("r")), &error);
        QVERIFY2(g, qPrintable(error));
        QVERIFY(g->edgeCounts()[size_t(EdgeKind::Launch)] > 0);
        const auto report = whatIf(*g, {});
        QVERIFY2(report.identityError() < aim, qPrintable(report.toText()));
        QVERIFY2(report.worstIterationError() < aim, qPrintable(report.toText()));
        QCOMPARE(report.identityBreakdown.total(), report.identity);
        if (folder.contains(QLatin1String("dlrm"))) // 3 all-reduces x 8 ranks x 7 others
            QCOMPARE(g->edgeCounts()[size_t(EdgeKind::Collective)], 3 * 8 * 7);
    }

    void cli()
    {
        QTemporaryDir dir;
        auto project = handProject(dir);
        project.reset();
        const QString file = dir.filePath(QStringLiteral("p.grademl"));
        QByteArray out;
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--scale"), QStringLiteral("^k2$=2"),
                         QStringLiteral("--json")}, &out), 0);
        const auto o = QJsonDocument::fromJson(out).object();
        QCOMPARE(o[QStringLiteral("measured_ns")].toInteger(), us(330));
        QCOMPARE(o[QStringLiteral("identity_ns")].toInteger(), us(330));
        QCOMPARE(o[QStringLiteral("predicted_ns")].toInteger(), us(430));
        QCOMPARE(o[QStringLiteral("identity_error")].toDouble(), 0.0);
        QCOMPARE(o[QStringLiteral("edges")].toObject()[QStringLiteral("sync")].toInt(), 2);
        QCOMPARE(runCli({QStringLiteral("whatif"), file}, &out), 0);
        QVERIFY2(out.contains("end to end: measured 330 µs, identity replay 330 µs (error 0.00%)"), out.constData());
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--scale"), QStringLiteral("k2")}, &out), 2);
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--run"), QStringLiteral("nope")}, &out), 1);
    }
};

QTEST_GUILESS_MAIN(TestWhatIf)
#include "tst_whatif.moc"
