// SPDX-License-Identifier: GPL-3.0-or-later
// The what-if engine: graph construction on a hand-checked trace (each edge kind), replay and
// transforms against predictions worked out by hand, the critical-path breakdown summing to
// the end-to-end time, identity replay on every shared GPU trace, and `grademl whatif`.
#include "dependencygraph.h"
#include "devicecatalog.h"
#include "importutil.h"
#include "predictedrun.h"
#include "project.h"
#include "testutil.h"
#include "whatif.h"
#include "whatiffixture.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTest>

#include <cmath>

using namespace gml;
using namespace gml::sim;

namespace {

// One training step on one thread and one stream, for data parallelism (µs):
//   ProfilerStep#1 [0,400) holds: launch f [10,20); backward [30,60) launching b1 [35,45) and
//   b2 [48,58); Optimizer.step#SGD.step [70,100) launching o [75,85); cudaDeviceSynchronize
//   [100,372).   Stream 7: f [20,120), b1 [120,220), b2 [220,320), o [320,370).
const char kStepTrace[] = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":400},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":10,"args":{"correlation":1}},
 {"ph":"X","cat":"cpu_op","name":"autograd::engine::evaluate_function: MmBackward0","pid":1,"tid":1,"ts":30,"dur":30},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":35,"dur":10,"args":{"correlation":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":48,"dur":10,"args":{"correlation":3}},
 {"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":1,"ts":70,"dur":30},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":75,"dur":10,"args":{"correlation":4}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":100,"dur":272,"args":{"correlation":5}},
 {"ph":"X","cat":"kernel","name":"f","pid":0,"tid":7,"ts":20,"dur":100,"args":{"correlation":1,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"b1","pid":0,"tid":7,"ts":120,"dur":100,"args":{"correlation":2,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"b2","pid":0,"tid":7,"ts":220,"dur":100,"args":{"correlation":3,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"o","pid":0,"tid":7,"ts":320,"dur":50,"args":{"correlation":4,"device":0,"stream":7}}
]})J";

// A host-bound step with a pageable copy (issue 54): four launches of 6 µs each, and a
// cudaMemcpyAsync of pageable memory that spends 126 µs copying through a staging buffer.
//   launches [10,16) [20,26) [30,36) -> k1 [20,60) k2 [60,100) k3 [100,140);
//   cudaMemcpyAsync [40,166) -> Memcpy HtoD (Pageable -> Device) [150,165);
//   launch [170,176) -> k4 [180,220); cudaMemcpyAsync [178,183) -> pinned copy [225,257).
const char kPageableTrace[] = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":400},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":6,"args":{"correlation":1}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":6,"args":{"correlation":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":30,"dur":6,"args":{"correlation":3}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":40,"dur":126,"args":{"correlation":4}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":170,"dur":6,"args":{"correlation":5}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":178,"dur":5,"args":{"correlation":6}},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":40,"args":{"correlation":1,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":60,"dur":40,"args":{"correlation":2,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":100,"dur":40,"args":{"correlation":3,"device":0,"stream":7}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":150,"dur":15,"args":{"correlation":4,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":7,"ts":180,"dur":40,"args":{"correlation":5,"device":0,"stream":7}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":225,"dur":32,"args":{"correlation":6,"device":0,"stream":7}}
]})J";

constexpr TimeNs us(double v)
{
    return TimeNs(v * 1000);
}

std::shared_ptr<const DependencyGraph> buildGraph(Project &project, const QString &run,
                                                  QString *error)
{
    auto g = DependencyGraph::build(project, *project.findRun(run), error);
    return g ? std::make_shared<const DependencyGraph>(std::move(*g)) : nullptr;
}

// A shared trace imported as run "r" into a project in `dir`, and its dependency graph.
std::shared_ptr<const DependencyGraph> importShared(const QTemporaryDir &dir, const QString &folder,
                                                    std::unique_ptr<Project> *project,
                                                    QString *error)
{
    *project = gmltest::newProject(dir);
    gmltest::importInto(**project, {gmltest::sharedTraces() + QLatin1Char('/') + folder},
                        QStringLiteral("r"));
    return buildGraph(**project, QStringLiteral("r"), error);
}

WhatIfReport predict(const std::shared_ptr<const DependencyGraph> &g,
                     const QList<Transform> &transforms, const WhatIfContext &context = {})
{
    QString why;
    const auto r = whatIf(g, transforms, context, &why);
    if (!r)
        qFatal("whatIf failed: %s", qPrintable(why));
    return r->report;
}

int runCli(const QStringList &args, QByteArray *out)
{
    const auto r = gmltest::runCli(args, QProcessEnvironment::systemEnvironment(), 300);
    *out = r.out + r.err;
    return r.code;
}

} // namespace

class TestWhatIf : public QObject
{
    Q_OBJECT

    std::unique_ptr<Project> handProject(QTemporaryDir &dir)
    {
        gmltest::writeFile(dir, QStringLiteral("run/hand.json"), gmltest::kWhatIfTrace);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {dir.filePath(QStringLiteral("run"))});
        return project;
    }

    // The hand trace's dependency graph (the project closed after building it).
    std::shared_ptr<const DependencyGraph> handGraph(QTemporaryDir &dir)
    {
        auto project = handProject(dir);
        QString error;
        auto g = buildGraph(*project, QStringLiteral("run"), &error);
        if (!g)
            qFatal("hand graph: %s", qPrintable(error));
        return g;
    }

    // The graph of kPageableTrace (a V100 run with a pageable and a pinned copy).
    std::shared_ptr<const DependencyGraph> pageableGraph(QTemporaryDir &dir)
    {
        gmltest::writeFile(dir, QStringLiteral("run/pageable.json"), kPageableTrace);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {dir.filePath(QStringLiteral("run"))});
        QString error;
        auto g = buildGraph(*project, QStringLiteral("run"), &error);
        if (!g)
            qFatal("pageable graph: %s", qPrintable(error));
        return g;
    }

    // The hand trace's project, closed: for the CLI.
    QString handProjectFile(QTemporaryDir &dir)
    {
        handProject(dir).reset();
        return dir.filePath(QStringLiteral("p.grademl"));
    }

private Q_SLOTS:
    void graphHasEachEdgeKind()
    {
        QTemporaryDir dir;
        const auto g = handGraph(dir);
        QString error;
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
        const auto g = handGraph(dir);
        QString error;
        auto report = predict(g, {});
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
        report = predict(g, {*slower});
        QCOMPARE(report.predicted, us(430));
        QCOMPARE(report.predictedBreakdown.compute, us(300));
        QCOMPARE(report.predictedBreakdown.total(), report.predicted);

        // No all-reduce work: it still marks the point 2 µs after k2 (217) that D waits for;
        // D ends at 220, E runs [230, 250).
        report = predict(g, {*parseScale(QStringLiteral("^nccl=0"), &why)});
        QCOMPARE(report.predicted, us(250));
        QCOMPARE(report.predictedBreakdown.total(), report.predicted);

        // Kernels 4x faster: k1 [15,40), k2 [40,65), all-reduce [67,147), D ends 150, E [160,180).
        report = predict(g, {*parseScale(QStringLiteral("^k\\d$=0.25"), &why)});
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
        const auto g = buildGraph(*project, QStringLiteral("job"), &error);
        QVERIFY2(g, qPrintable(error));
        // One all-reduce per step and rank, each waiting for the other two ranks' start.
        QCOMPARE(g->edgeCounts()[size_t(EdgeKind::Collective)], 4 * 3 * 2);
        // Each all-reduce waits for the backward pass on the compute stream.
        QCOMPARE(g->edgeCounts()[size_t(EdgeKind::StreamWait)], 4 * 3);
        QCOMPARE(g->violations(), 0);
        // The evaluation order holds every time point; an edge back to an earlier node of the
        // same thread closes a cycle, which the order reports instead of looping or throwing.
        QVERIFY(!g->hasCycle());
        // Each step's all-reduce is one join of the three ranks: a point of its own.
        QCOMPARE(g->joins().size(), size_t(4));
        QCOMPARE(g->points(), 2 * g->nodes().size() + 4);
        QCOMPARE(g->order().size(), g->points());
        {
            DependencyGraph cyclic = *g;
            const auto &thread = cyclic.resources().front().nodes;
            cyclic.addEdge({thread.back(), thread.front(), EdgeKind::ThreadWait, true, false, 0});
            cyclic.reorder();
            QVERIFY(cyclic.hasCycle());
        }
        const auto report = predict(g, {});
        QCOMPARE(report.identity, report.measured);
        QCOMPARE(report.iterations.size(), 4);
        for (const auto &it : report.iterations)
            QCOMPARE(it.identity, it.measured);
        QCOMPARE(report.identityBreakdown.total(), report.identity);
        QVERIFY(report.identityBreakdown.communication > 0);
        // Half-time data loading shortens every iteration.
        QString why;
        const auto faster = predict(g, {*parseScale(QStringLiteral("DataLoader=0.5"), &why)});
        QVERIFY(faster.predicted < report.measured);
        for (int i = 0; i < faster.iterations.size(); ++i)
            QVERIFY(faster.iterations[i].predicted < faster.iterations[i].measured);
    }

    // A join holds a collective group's pairs once: replays of the graph with joins and of the
    // same graph with every pair as an edge agree to the nanosecond, critical path included,
    // in the measured order, with transforms, under a reschedule (event-driven) and with flows.
    void joinsReplayAsTheirPairs_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::newRow("generated 3 ranks") << QString();
        QTest::newRow("dlrm 8 ranks") << QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100");
    }

    void joinsReplayAsTheirPairs()
    {
        QFETCH(QString, folder);
        QTemporaryDir dir;
        QString traces;
        if (folder.isEmpty()) {
            traces = gmltest::generateJob(dir, 3, 4);
        } else {
            GML_REQUIRE_SHARED(folder);
            traces = gmltest::sharedTraces() + QLatin1Char('/') + folder;
        }
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces}, QStringLiteral("r"));
        QString error;
        const auto g = buildGraph(*project, QStringLiteral("r"), &error);
        QVERIFY2(g, qPrintable(error));
        QVERIFY(!g->joins().empty());
        DependencyGraph expanded = *g;
        expanded.expandJoins();
        expanded.reorder();
        const auto pairs = std::make_shared<const DependencyGraph>(std::move(expanded));
        QVERIFY(pairs->joins().empty());
        QCOMPARE(pairs->edgeCounts(), g->edgeCounts());
        qint64 collectiveEdges = 0;
        for (const Edge &e : pairs->edges())
            collectiveEdges += e.kind == EdgeKind::Collective;
        QCOMPARE(collectiveEdges, g->edgeCounts()[size_t(EdgeKind::Collective)]);
        QString why;
        const QList<QList<Transform>> cases = {
            {},
            {*parseScale(QStringLiteral("(?i)nccl=0.5"), &why)},
            {*parseScale(QStringLiteral("(?i)(gemm|sgemm|volta|ampere|Kernel)=0.3"), &why)},
            {*parsePreset(QStringLiteral("input=2"), &why)},
            {*parseReschedule(QStringLiteral("(?i)nccl=2"), &why)},
            {Transform::network(1.0, 20)},
        };
        WhatIfContext context;
        context.measuredDevice = QStringLiteral("V100");
        for (const auto &transforms : cases) {
            const auto a = whatIf(g, transforms, context, &why);
            QVERIFY2(a, qPrintable(why));
            const auto b = whatIf(pairs, transforms, context, &why);
            QVERIFY2(b, qPrintable(why));
            const QString what =
                transforms.isEmpty() ? QStringLiteral("identity") : transforms.front().describe();
            QVERIFY2(a->predicted.start == b->predicted.start, qPrintable(what));
            QVERIFY2(a->predicted.end == b->predicted.end, qPrintable(what));
            QCOMPARE(a->report.predicted, b->report.predicted);
            if (!transforms.isEmpty() && !transforms.front().is("reschedule"))
                QVERIFY2(a->report.predicted != a->report.identity,
                         qPrintable(what)); // it did something
            QCOMPARE(a->report.predictedBreakdown.total(), b->report.predictedBreakdown.total());
            QCOMPARE(a->report.predictedBreakdown.communication,
                     b->report.predictedBreakdown.communication);
            QCOMPARE(a->predicted.criticalPath.size(), b->predicted.criticalPath.size());
            for (size_t k = 0; k < a->predicted.criticalPath.size(); ++k) {
                QCOMPARE(a->predicted.criticalPath[k].node, b->predicted.criticalPath[k].node);
                QCOMPARE(a->predicted.criticalPath[k].time, b->predicted.criticalPath[k].time);
            }
        }
    }

    void identityReplayOnSharedGpuTraces_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<double>("aim");
        for (const QString &f : gmltest::sharedGpuTraces())
            QTest::newRow(qPrintable(f)) << f << 0.01;
        QTest::newRow("dlrm 8 ranks")
            << QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100") << 0.03;
    }

    void identityReplayOnSharedGpuTraces()
    {
        QFETCH(QString, folder);
        QFETCH(double, aim);
        GML_REQUIRE_SHARED(folder);
        QTemporaryDir dir;
        std::unique_ptr<Project> project;
        QString error;
        const auto g = importShared(dir, folder, &project, &error);
        QVERIFY2(g, qPrintable(error));
        QVERIFY(g->edgeCounts()[size_t(EdgeKind::Launch)] > 0);
        const auto report = predict(g, {});
        QVERIFY2(report.identityError() < aim, qPrintable(report.toText()));
        QVERIFY2(report.worstIterationError() < aim, qPrintable(report.toText()));
        QCOMPARE(report.identityBreakdown.total(), report.identity);
        if (folder.contains(QLatin1String("dlrm"))) // 3 all-reduces x 8 ranks x 7 others
            QCOMPARE(g->edgeCounts()[size_t(EdgeKind::Collective)], 3 * 8 * 7);
        if (folder.contains(QLatin1String("nccl_allreduce"))) {
            // Bytes read from the args: each copy's "bytes", each all-reduce's message from the
            // record_param_comms op that launched it ("In msg nelems" x 4 bytes of Float).
            qint64 copies = 0, copiesWithBytes = 0, collectives = 0, collectivesWithBytes = 0;
            for (const auto &n : g->nodes()) {
                if (n.kind == NodeKind::Memcpy) {
                    ++copies;
                    copiesWithBytes += n.bytes > 0;
                } else if (n.kind == NodeKind::Collective) {
                    ++collectives;
                    collectivesWithBytes += n.bytes > 0 && n.bytes % 4 == 0;
                }
            }
            QVERIFY(copies > 0 && collectives > 0);
            QCOMPARE(copiesWithBytes, copies);
            QCOMPARE(collectivesWithBytes, collectives);
        }
        // Every resource scheduled by the event-driven replay, all at one priority: the same
        // timeline, node for node, as the replay in measured order.
        Transform all;
        all.op = QStringLiteral("reschedule");
        const auto scheduled = whatIf(g, {all}, {}, &error);
        QVERIFY2(scheduled, qPrintable(error));
        QVERIFY(!scheduled->predicted.rescheduleDeadlocked);
        QVERIFY(scheduled->predicted.start == scheduled->identity.start);
        QVERIFY(scheduled->predicted.end == scheduled->identity.end);
        QCOMPARE(scheduled->report.predictedBreakdown.total(),
                 scheduled->report.identityBreakdown.total());
    }

    // A predicted run nests as the measured one does: each step keeps its lead and tail only as
    // far as the gap it sits in allows, so siblings never overlap and no step ends up inside the
    // one before it. Checked by saving AMP's prediction of each shared GPU trace and comparing
    // each CPU thread's nesting depth with the measured run's.
    void predictedRunsNestAsMeasured_data()
    {
        QTest::addColumn<QString>("folder");
        for (const QString &f : gmltest::sharedGpuTraces())
            QTest::newRow(qPrintable(f)) << f;
        QTest::newRow("dlrm 8 ranks") << QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100");
    }

    void predictedRunsNestAsMeasured()
    {
        QFETCH(QString, folder);
        GML_REQUIRE_SHARED(folder);
        QTemporaryDir dir;
        std::unique_ptr<Project> project;
        QString error;
        const auto g = importShared(dir, folder, &project, &error);
        QVERIFY2(g, qPrintable(error));
        const RunId run = *project->findRun(QStringLiteral("r"));
        // Scenarios that move the host: AMP, a fused optimizer, free data loading, every slice at
        // half its time. Each saved as a run of its own.
        const WhatIfContext context = WhatIfContext::forRun(*g, *project, run);
        QStringList saved;
        for (const QString &preset : {QStringLiteral("amp"), QStringLiteral("fusedadam"),
                                      QStringLiteral("input=free"), QStringLiteral("half")}) {
            const auto t = preset == QLatin1String("half")
                               ? parseScale(QStringLiteral(".=0.5"), &error)
                               : parsePreset(preset, &error);
            QVERIFY2(t, qPrintable(error));
            const auto result = whatIf(g, {*t}, context, &error);
            if (!result)
                continue; // a preset the run cannot take (no optimizer, no device): said why
            QVERIFY2(savePredictedRun(*project, run, *result, {*t}, preset, &error),
                     qPrintable(error));
            saved << preset;
        }
        QVERIFY(saved.contains(QStringLiteral("half")));
        // Each thread's depth, by its path (the predicted run has the measured run's tracks).
        auto depths = [&](const QString &name) {
            auto st = project->db().prepare(
                "SELECT coalesce(p.name, '') || ' / ' || t.name, t.max_depth FROM track t "
                "LEFT JOIN track p ON p.id = t.parent_id JOIN run r ON r.id = t.run_id "
                "WHERE r.name = ? AND t.kind = ? AND t.slice_count > 0 ORDER BY 1");
            st.bind(1, name);
            st.bind(2, qint64(TrackKind::Thread));
            QMap<QString, qint64> out;
            while (st.step())
                out.insert(st.text(0), st.int64(1));
            return out;
        };
        const auto measured = depths(QStringLiteral("r"));
        for (const QString &name : saved) {
            const auto predicted = depths(name);
            QVERIFY(!predicted.isEmpty());
            for (auto it = predicted.begin(); it != predicted.end(); ++it) {
                QVERIFY2(measured.contains(it.key()), qPrintable(it.key()));
                // Removed slices (free input) may take the deepest stack with them.
                const bool removes = name == QLatin1String("input=free");
                QVERIFY2(removes ? it.value() <= measured.value(it.key())
                                 : it.value() == measured.value(it.key()),
                         qPrintable(QStringLiteral("%1, %2: %3 levels predicted, %4 measured")
                                        .arg(name, it.key())
                                        .arg(it.value())
                                        .arg(measured.value(it.key()))));
            }
        }
    }

    // Steps keep their order when the gap between them shrinks: the main thread waits for a
    // data-loading thread between two steps; with loading 100x faster the gap shrinks from
    // 180 µs to 21.6 µs, and each step's measured tail (30 µs) and lead (15 µs) shrink with it
    // instead of overlapping (the old clamp nested the second step inside the first).
    void stepsKeepTheirOrderWhenGapsShrink()
    {
        static const char trace[] = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":50},
 {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":5,"dur":15},
 {"ph":"X","cat":"cpu_op","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":1,"tid":2,"ts":20,"dur":160},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":185,"dur":50},
 {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":200,"dur":15}
]})J";
        QTemporaryDir dir;
        gmltest::writeFile(dir, QStringLiteral("gap/gap.json"), trace);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {dir.filePath(QStringLiteral("gap"))});
        QString error;
        const auto g = buildGraph(*project, QStringLiteral("gap"), &error);
        QVERIFY2(g, qPrintable(error));
        // The loader waits for a, b for the loader.
        QCOMPARE(g->edgeCounts()[size_t(EdgeKind::ThreadWait)], 2);
        const auto steps = g->iterations();
        QCOMPARE(steps.size(), size_t(2));
        const auto faster =
            whatIf(g, {*parseScale(QStringLiteral("^enumerate=0.01"), &error)}, {}, &error);
        QVERIFY2(faster, qPrintable(error));
        // a ends at 20, the loader at 21.6, b 20 µs later: [41.6, 56.6). The gap from a to b
        // went from 180 to 21.6 µs (x0.12): step 1's tail 30 -> 3.6 µs, step 2's lead 15 ->
        // 1.8 µs. (Kept whole, they overlapped over [26.6, 41.6).)
        const auto [s1, e1] = faster->predicted.containerSpan(*g, steps[0]);
        const auto [s2, e2] = faster->predicted.containerSpan(*g, steps[1]);
        QCOMPARE(s1, us(0));
        QCOMPARE(e1, us(23.6));
        QCOMPARE(s2, us(39.8));
        QCOMPARE(e2, us(76.6)); // b's 20 µs tail kept: nothing follows
        // The identity replay keeps them as measured.
        QCOMPARE(faster->identity.containerSpan(*g, steps[0]), std::make_pair(us(0), us(50)));
        QCOMPARE(faster->identity.containerSpan(*g, steps[1]), std::make_pair(us(185), us(235)));
        // Iterations by the one definition: step start to step start, the last to its end.
        QCOMPARE(faster->report.iterations.size(), 2);
        QCOMPARE(faster->report.iterations[0].measured, us(185));
        QCOMPARE(faster->report.iterations[1].measured, us(50));
        QCOMPARE(faster->report.meanMeasured, us(117.5));
        QCOMPARE(faster->report.iterations[0].predicted, us(39.8));
        QCOMPARE(faster->report.iterations[1].predicted, us(36.8));
        QCOMPARE(faster->report.meanPredicted, us(38.3));
    }

    void eachTransformMatchesHandPredictions()
    {
        QTemporaryDir dir;
        const auto g = handGraph(dir);
        QString error;
        auto one = [&](Transform t, const WhatIfContext &c = {}) {
            return predict(g, {t}, c).predicted;
        };
        auto named = [](Transform t, const char *regex) {
            t.select.name = QString::fromLatin1(regex);
            return t;
        };
        // Remove k1: k2 runs as soon as launched (30), the all-reduce at 132, D ends 215, E 245.
        Transform remove;
        remove.op = QStringLiteral("remove");
        QCOMPARE(one(named(remove, "^k1$")), us(245));
        // k1 set to 50 µs: k2 [65,165), all-reduce [167,247), D 250, E [260,280).
        Transform set;
        set.op = QStringLiteral("set");
        set.duration = us(50);
        QCOMPARE(one(named(set, "^k1$")), us(280));
        // 30 µs inserted after k1: k2 [145,245), all-reduce [247,327), E ends 360.
        Transform insert;
        insert.op = QStringLiteral("insert");
        insert.duration = us(30);
        insert.name = QStringLiteral("pad");
        auto inserted = whatIf(g, {named(insert, "^k1$")}, {}, &error);
        QVERIFY2(inserted, qPrintable(error));
        QCOMPARE(inserted->report.predicted, us(360));
        QCOMPARE(inserted->prepared.graph->nodes().size(), g->nodes().size() + 1);
        QCOMPARE(g->nodes().size(), size_t(8)); // the measured graph is not touched
        // Fuse k1 and k2: one 200 µs kernel; k2 and its launch B vanish, so C and D start 10 µs
        // earlier but D still waits for the all-reduce: the end stays 330.
        Transform fuse;
        fuse.op = QStringLiteral("fuse");
        auto fused = whatIf(g, {named(fuse, "^k\\d$")}, {}, &error);
        QVERIFY(fused);
        QCOMPARE(fused->report.predicted, us(330));
        int k2 = -1, b = -1;
        for (size_t i = 0; i < g->nodes().size(); ++i) {
            if (g->name(g->nodes()[i].name) == QLatin1String("k2"))
                k2 = int(i);
        }
        b = g->nodes()[size_t(k2)].launcher;
        QVERIFY(b >= 0);
        QCOMPARE(fused->prepared.input.work[size_t(k2)], 0);
        QCOMPARE(fused->prepared.input.work[size_t(b)], 0);
        // A time range: kernels starting from 100 µs on (k2 only) twice as long, as ^k2$ x2.
        Transform later = Transform::scale(QString(), 2);
        later.select.kinds = 1u << unsigned(NodeKind::Kernel);
        later.select.from = us(100);
        QCOMPARE(one(later), us(430));
        // By category and by GPU: every kernel-category slice on GPU 0 twice as long (k1, k2
        // and the all-reduce): k1 [15,215), k2 [215,415), all-reduce [417,577), E ends 610.
        Transform gpu0 = Transform::scale(QString(), 2);
        gpu0.select.category = QStringLiteral("^kernel$");
        gpu0.select.device = QStringLiteral("^0$");
        QCOMPARE(one(gpu0), us(610));
        gpu0.select.device = QStringLiteral("^1$");
        QCOMPARE(one(gpu0), us(330));
        // AMP: k1 and k2 are memory-bound by name (x1/2): k2 ends 115, E ends 230.
        QCOMPARE(one(Transform::amp()), us(230));
        // V100 -> H100: memory-bound kernels x 900/3350 above V100's 1.3 us floor (too few
        // kernels here for the run's own), plus H100's 1.5 us floor.
        WhatIfContext v100;
        v100.measuredDevice = QStringLiteral("Tesla V100-SXM2-32GB");
        const TimeNs k = us(1.5) + std::llround((100000 - 1300) * 900.0 / 3350);
        QCOMPARE(one(Transform::device(QStringLiteral("H100")), v100),
                 us(15) + 2 * k + us(2 + 80 + 3 + 10 + 20));
        QVERIFY(!whatIf(g, {Transform::device(QStringLiteral("H100"))}, {}, &error));
        QVERIFY2(error.contains(QLatin1String("GPU model")), qPrintable(error));
        // Network 150 -> 300 GB/s (NVLink 2 measured, 2 x 1.5 µs latency kept): the all-reduce's
        // 77 µs bandwidth part halves: 3 + 38.5 = 41.5 µs, E ends 291.5.
        WhatIfContext nvlink;
        nvlink.measuredNetwork = QStringLiteral("nvlink2");
        QCOMPARE(one(Transform::network(300), nvlink), us(291.5));
        // 4 workers instead of 2: ring all-reduce x (2*3/4) / (2*1/2) = 1.5: 120 µs, E ends 370.
        QCOMPARE(one(Transform::dataParallel(4)), us(370));
        QCOMPARE(one(Transform::dataParallel(1)), us(250)); // no all-reduce at all
    }

    // A vendor change adds the difference of the launch overheads to each launch call, the
    // run's own measured launch cost against the target's, which is the run's times the ratio
    // of the runtimes' costs (AMD 6.8 us / NVIDIA 5 us: x1.36, measured on TraceLens's pair;
    // issue 75): the pageable copy's 126 µs call gains 2.16 µs, not x1.36 of its copy (issue
    // 54); launches go from 6 to 8.16 µs.
    void vendorChangeAddsTheLaunchOverhead()
    {
        QTemporaryDir dir;
        const auto g = pageableGraph(dir);
        QString error;
        const LaunchCost cost = measuredLaunchCost(*g);
        QCOMPARE(cost.calls, 4);
        QCOMPARE(cost.median, us(6));
        WhatIfContext v100;
        v100.measuredDevice = QStringLiteral("V100");
        const auto r = whatIf(g, {Transform::device(QStringLiteral("MI250"))}, v100, &error);
        QVERIFY2(r, qPrintable(error));
        const auto &before = g->nodes();
        int copies = 0, launches = 0;
        for (size_t i = 0; i < before.size(); ++i) {
            if (before[i].kind != NodeKind::Runtime)
                continue;
            const QString name = g->name(before[i].name);
            const TimeNs after = r->prepared.input.work[i];
            if (name == QLatin1String("cudaMemcpyAsync")) {
                QCOMPARE(after, before[i].work + us(2.16));
                ++copies;
            } else if (name == QLatin1String("cudaLaunchKernel")) {
                QCOMPARE(after, us(8.16));
                ++launches;
            }
        }
        QCOMPARE(copies, 2);
        QCOMPARE(launches, 4);
        // The host link, PCIe 3 (V100) -> PCIe 4 (MI250): the pinned copy's 30.5 us bandwidth
        // part halves (1.5 + 15.25 us); the pageable one is staged through host memory: kept.
        for (size_t i = 0; i < before.size(); ++i) {
            if (before[i].kind != NodeKind::Memcpy)
                continue;
            const QString name = g->name(before[i].name);
            QCOMPARE(r->prepared.input.work[i],
                     name.contains(QLatin1String("Pinned")) ? us(16.75) : before[i].work);
        }
        QVERIFY2(r->prepared.notes.join(QLatin1Char('\n'))
                     .contains(QLatin1String("4 kernel launches took a median 6.0 us")),
                 qPrintable(r->prepared.notes.join(QLatin1Char('\n'))));
        // The same vendor keeps the launch calls as measured.
        const auto same = whatIf(g, {Transform::device(QStringLiteral("H100"))}, v100, &error);
        QVERIFY2(same, qPrintable(error));
        for (size_t i = 0; i < before.size(); ++i)
            if (before[i].kind == NodeKind::Runtime)
                QCOMPARE(same->prepared.input.work[i], before[i].work);
    }

    // The band: what the model does not know, each unknown drawn on its own from its range.
    // Given factors have none; another GPU has three (its kernels' efficiency, its vendor's
    // launch cost, the new machine's host CPU), each with a key of its own; the band is the
    // same on every call (numbered draws); each end of a range is the catalog's.
    void predictionBandsHoldWhatTheModelDoesNotKnow()
    {
        QTemporaryDir dir;
        const auto g = pageableGraph(dir);
        WhatIfContext v100;
        v100.measuredDevice = QStringLiteral("V100");
        for (const QList<Transform> &given :
             {QList<Transform>{}, QList<Transform>{Transform::scale(QStringLiteral("k1"), 2)}}) {
            const WhatIfReport r = predict(g, given, v100);
            QVERIFY(r.unknowns.isEmpty() && !r.hasBand());
            QCOMPARE(r.low.predicted, r.predicted);
            QCOMPARE(r.high.predicted, r.predicted);
            QCOMPARE(r.low.spread.median, r.spreadPredicted.median);
            QCOMPARE(r.high.mean, r.meanPredicted);
        }
        const WhatIfReport cross = predict(g, {Transform::device(QStringLiteral("MI250"))}, v100);
        QCOMPARE(cross.unknowns.size(), 3);
        const WhatIfReport again = predict(g, {Transform::device(QStringLiteral("MI250"))}, v100);
        QCOMPARE(again.low.predicted, cross.low.predicted);
        QCOMPARE(again.high.predicted, cross.high.predicted);
        QVERIFY(cross.low.predicted < cross.predicted && cross.predicted < cross.high.predicted);
        QVERIFY(cross.low.mean < cross.meanPredicted && cross.meanPredicted < cross.high.mean);
        QVERIFY(cross.low.spread.median <= cross.spreadPredicted.median &&
                cross.spreadPredicted.median <= cross.high.spread.median);
        // Each end, node by node: k1..k4 are names no rule knows (the "other" range, another
        // vendor, on their part above MI250's 2.2 us floor, which is not a rate); the launch
        // calls at 1.33 x 6 x 1.36 us at the slow end, then the host's x1.33.
        const Uncertainty &u = DeviceCatalog::builtin().uncertainty();
        const Range other = u.kernel(KernelKind::Family::Other, false);
        auto prepared = [&](WhatIfContext::Bound bound) {
            WhatIfContext c = v100;
            c.bound = bound;
            QString why;
            auto p = prepare(g, {Transform::device(QStringLiteral("MI250"))}, c, &why);
            if (!p)
                qFatal("prepare: %s", qPrintable(why));
            return std::move(*p);
        };
        const Prepared nominal = prepared(WhatIfContext::Bound::Nominal);
        QCOMPARE(nominal.bandKeys,
                 QStringList({QStringLiteral("launch cost"), QStringLiteral("host CPU"),
                              QStringLiteral("kernel efficiency: unrecognised")}));
        const Prepared high = prepared(WhatIfContext::Bound::High);
        const Prepared low = prepared(WhatIfContext::Bound::Low);
        int kernels = 0, launches = 0;
        for (size_t i = 0; i < g->nodes().size(); ++i) {
            const Node &n = g->nodes()[i];
            if (n.kind == NodeKind::Kernel) {
                QVERIFY(std::abs(double(high.input.work[i] - us(2.2)) -
                                 double(nominal.input.work[i] - us(2.2)) * other.high) <= 1);
                QVERIFY(std::abs(double(low.input.work[i] - us(2.2)) -
                                 double(nominal.input.work[i] - us(2.2)) * other.low) <= 1);
                ++kernels;
            } else if (g->name(n.name) == QLatin1String("cudaLaunchKernel")) {
                QVERIFY(std::abs(double(high.input.work[i]) -
                                 us(6 * 1.36 * u.launch.high) * u.hostCpu.high) <= 1);
                QVERIFY(std::abs(double(low.input.work[i]) -
                                 us(6 * 1.36 * u.launch.low) * u.hostCpu.low) <= 1);
                ++launches;
            }
        }
        QCOMPARE(kernels, 4);
        QCOMPARE(launches, 4);
        // A host CPU the user states is no longer unknown.
        Transform stated = Transform::device(QStringLiteral("MI250"));
        stated.hostFactor = 1.5;
        const WhatIfReport known = predict(g, {stated}, v100);
        QCOMPARE(known.unknowns.size(), 2);
        QVERIFY(!known.unknowns.join(QLatin1Char(' ')).contains(QLatin1String("host CPU")));
        // The JSON: beside predicted_ns at the top, in the mean and in the median iteration.
        const QJsonObject o = cross.toJson();
        for (const QJsonObject &at : {o, o[QStringLiteral("mean_iteration")].toObject(),
                                      o[QStringLiteral("median_iteration")].toObject()}) {
            const qint64 lo = at[QStringLiteral("predicted_low_ns")].toInteger(-1);
            const qint64 mid = at[QStringLiteral("predicted_ns")].toInteger(-1);
            const qint64 hi = at[QStringLiteral("predicted_high_ns")].toInteger(-1);
            QVERIFY(lo >= 0 && lo <= mid && mid <= hi);
        }
        QCOMPARE(o[QStringLiteral("unknowns")].toArray().size(), 3);
    }

    void rescheduleRunsReadyWorkByPriority()
    {
        QTemporaryDir dir;
        const auto g = handGraph(dir);
        QString error;
        auto nodeNamed = [&](const char *name) {
            for (size_t i = 0; i < g->nodes().size(); ++i)
                if (g->name(g->nodes()[i].name) == QLatin1String(name))
                    return i;
            qFatal("no node %s", name);
        };
        auto first = [&](const char *regex) {
            QString why;
            auto t = parseReschedule(QString::fromLatin1(regex) + QStringLiteral("=1"), &why);
            if (!t)
                qFatal("%s", qPrintable(why));
            auto r = whatIf(g, {*t}, {}, &why);
            if (!r)
                qFatal("%s", qPrintable(why));
            return *r;
        };
        // aten::add first: the thread is free at 0 and every op is ready, so E runs [10,30) (its
        // 10 µs gap kept), then A [30,40): k1 [45,145), k2 [145,245), the all-reduce [247,327)
        // and the synchronize ends at 330 as measured.
        auto e = first("^aten::add$");
        QCOMPARE(e.predicted.start[nodeNamed("aten::add")] - e.predicted.origin, us(10));
        QCOMPARE(e.predicted.start[nodeNamed("k1")] - e.predicted.origin, us(45));
        QCOMPARE(e.report.predicted, us(330));
        // The all-reduce's launch first: C [10,20), A [20,30), k1 [35,135), B [40,50),
        // k2 [135,235), all-reduce [237,317), D ends 320 and E [330,350): 20 µs later, the
        // kernels the all-reduce waits for are launched later.
        auto c = first("^cudaLaunchKernel$"); // all three launches, in measured order: identity
        QCOMPARE(c.report.predicted, c.report.identity);
        Transform launchC;
        launchC.op = QStringLiteral("reschedule");
        launchC.select.from = us(40);
        launchC.select.to = us(41);
        auto cr = whatIf(g, {launchC}, {}, &error);
        QVERIFY2(cr, qPrintable(error));
        QCOMPARE(cr->report.predicted, us(350));
        QCOMPARE(cr->report.predictedBreakdown.total(), cr->report.predicted);
        // The synchronize first would hold the thread waiting for kernels launched after it:
        // the measured order is kept, and the report says why.
        auto d = first("^cudaDeviceSynchronize$");
        QVERIFY(d.predicted.rescheduleDeadlocked);
        QCOMPARE(d.report.predicted, d.report.identity);
        QVERIFY(d.report.notes.join(QLatin1Char(' '))
                    .contains(QLatin1String("measured order was kept")));
        QVERIFY(!parseReschedule(QStringLiteral("x=1.5"), &error));
        QVERIFY(!parseReschedule(QStringLiteral("(=1"), &error));
    }

    void collectiveAlgorithmsAndCostModels()
    {
        // NCCL's cost model: ring all-reduce of 8 ranks 14 steps x 1.75, tree 6 steps x 2.
        QCOMPARE(collectiveCost(QStringLiteral("AllReduce"), 8, QStringLiteral("ring")).steps, 14);
        QCOMPARE(collectiveCost(QStringLiteral("AllReduce"), 8, QStringLiteral("ring")).busFactor,
                 1.75);
        QCOMPARE(collectiveCost(QStringLiteral("AllReduce"), 8, QStringLiteral("tree")).steps, 6);
        QCOMPARE(collectiveCost(QStringLiteral("AllReduce"), 8, QStringLiteral("tree")).busFactor,
                 2.0);
        QCOMPARE(collectiveCost(QStringLiteral("Broadcast"), 5, QStringLiteral("tree")).steps, 3);
        QCOMPARE(collectiveCost(QStringLiteral("AllGather"), 5, QStringLiteral("tree")).steps,
                 4); // ring
        QCOMPARE(collectiveCost(QStringLiteral("AllReduce"), 1, QStringLiteral("tree")).steps, 0);
        // 1 MB over 25 GB/s with 5 µs steps, 64 ranks: ring 126 x 5 + 1.97 x 40 = 708.75 µs; tree
        // 12 x 5 + 2 x 40 = 140 µs.
        QCOMPARE(
            collectiveTime(QStringLiteral("AllReduce"), 1000000, 64, QStringLiteral("ring"), 25, 5),
            us(708.75));
        QCOMPARE(
            collectiveTime(QStringLiteral("AllReduce"), 1000000, 64, QStringLiteral("tree"), 25, 5),
            us(140));

        QTemporaryDir dir;
        const auto g = handGraph(dir);
        QString error;
        auto one = [&](const Transform &t, const WhatIfContext &c) {
            QString why;
            const auto r = whatIf(g, {t}, c, &why);
            if (!r)
                qFatal("%s", qPrintable(why));
            return r->report.predicted;
        };
        // The all-reduce measured over NVLink 2 (1.5 µs) by 2 ranks, ring: 3 µs of latency and
        // 77 µs of bandwidth. 8 workers with a tree: 6 x 1.5 + 77 x 2 = 163 µs, E ends 413;
        // with a ring 14 x 1.5 + 77 x 1.75 = 155.75 µs, E ends 405.75.
        WhatIfContext nvlink;
        nvlink.measuredNetwork = QStringLiteral("nvlink2");
        Transform tree = Transform::dataParallel(8);
        tree.algorithm = QStringLiteral("tree");
        QCOMPARE(one(tree, nvlink), us(413));
        QCOMPARE(one(Transform::dataParallel(8), nvlink), us(405.75));
        // The order of workers and link transforms does not matter.
        const Transform link = Transform::network(300);
        auto both = [&](const QList<Transform> &list, const WhatIfContext &c) {
            QString why;
            const auto r = whatIf(g, list, c, &why);
            if (!r)
                qFatal("%s", qPrintable(why));
            return r->report.predicted;
        };
        QCOMPARE(both({tree, link}, nvlink), both({link, tree}, nvlink));
        QCOMPARE(both({tree, link}, nvlink), us(330 + 86 - 80)); // 9 + 77 = 86 µs instead of 80

        // Insert by the roofline on the V100: 63 MB at 70% of 900 GB/s is 100 µs, longer than
        // 1 GFLOP at 70% of 15.7 TFLOP/s (91 µs): k2 [215,315), E ends 430.
        WhatIfContext v100;
        v100.measuredDevice = QStringLiteral("V100");
        Transform insert;
        insert.op = QStringLiteral("insert");
        insert.name = QStringLiteral("new_layer");
        insert.flops = 1e9;
        insert.bytes = 63e6;
        insert.select.name = QStringLiteral("^k1$");
        QCOMPARE(one(insert, v100), us(430));
        // Inserted slices keep their modelled time under AMP (only k1, k2 halve: 15 + 50 + 100
        // + 50 + 2 + 80 + 3 + 10 + 20 = 330).
        QCOMPARE(both({insert, Transform::amp()}, v100), us(330));
        QVERIFY(!whatIf(g, {insert}, {}, &error)); // the GPU must be known
        QVERIFY2(error.contains(QLatin1String("GPU model")), qPrintable(error));
        // Fuse k1 and k2 less a 10 µs fixed cost: 190 µs, the all-reduce [207,287), E ends 320.
        Transform fuse;
        fuse.op = QStringLiteral("fuse");
        fuse.model = QStringLiteral("overhead");
        fuse.overhead = us(10);
        fuse.select.name = QStringLiteral("^k\\d$");
        QCOMPARE(one(fuse, {}), us(320));
        // Without a given cost, the GPU's shortest kernel (100 µs) bounds it: 100 µs, E ends 230.
        fuse.overhead = -1;
        QCOMPARE(one(fuse, {}), us(230));
    }

    void dataParallelInsertsBucketAllReduces()
    {
        QTemporaryDir dir;
        gmltest::writeFile(dir, QStringLiteral("step/step.json"), kStepTrace);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {dir.filePath(QStringLiteral("step"))});
        QString error;
        const auto g = buildGraph(*project, QStringLiteral("step"), &error);
        QVERIFY2(g, qPrintable(error));
        QCOMPARE(predict(g, {}).identity, us(362));
        // 2 workers over a 1000 GB/s link with no latency, 50 MB of gradients in 25 MB buckets:
        // 25 µs per all-reduce; bucket 1 after b1 [220,245), bucket 2 after b2 [320,345); the
        // optimizer kernel waits for it: o [345,395); the synchronize ends at 397.
        Transform dp = Transform::dataParallel(2);
        dp.gradMB = 50;
        Transform link = Transform::network(1000, 0);
        WhatIfContext c;
        c.measuredNetwork = QStringLiteral("nvlink2");
        auto r = whatIf(g, {dp, link}, c, &error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->prepared.graph->nodes().size(), g->nodes().size() + 2);
        QCOMPARE(r->report.predicted, us(387)); // from the first launch at 10 µs to 397
        QCOMPARE(r->report.iterations.size(), 1);
        QCOMPARE(r->report.iterations[0].predicted, us(425)); // the step's 28 µs tail kept
        QCOMPARE(r->report.predictedBreakdown.total(), r->report.predicted);
        QVERIFY(r->report.predictedBreakdown.communication >= us(25));
        // Without a size, it is estimated from the optimizer, which needs the GPU model.
        dp.gradMB = 0;
        QVERIFY(!whatIf(g, {dp}, c, &error));
        QVERIFY2(error.contains(QLatin1String("--grad-mb")), qPrintable(error));
        c.measuredDevice = QStringLiteral("V100");
        r = whatIf(g, {dp}, c, &error);
        QVERIFY2(r, qPrintable(error));
        // 50 µs of SGD at 70% of 900 GB/s / 20 bytes per parameter x 4 bytes = 6.3 MB: 1 bucket.
        QCOMPARE(r->prepared.graph->nodes().size(), g->nodes().size() + 1);
        QVERIFY2(
            r->report.notes.join(QLatin1Char('\n')).contains(QLatin1String("gradients 6.3 MB")),
            qPrintable(r->report.notes.join(QLatin1Char('\n'))));
    }

    // A value of the wrong type or out of range is an error naming the transform by its index
    // and the key, never a default taken silently (issue 33).
    void badTransformValuesAreNamed_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("factor text")
            << QByteArray(R"([{"op":"scale","factor":2},{"op":"scale","factor":"abc"}])")
            << QStringLiteral(
                   "transforms[1].factor: expected a number from 0 to 1000000, got \"abc\"");
        QTest::newRow("factor huge")
            << QByteArray(R"([{"op":"scale","select":{"name":"."},"factor":1e308}])")
            << QStringLiteral(
                   "transforms[0].factor: expected a number from 0 to 1000000, got 1e+308");
        QTest::newRow("set huge") << QByteArray(R"([{"op":"set","duration_ns":1e30}])")
                                  << QStringLiteral("transforms[0].duration_ns: expected a whole "
                                                    "number from 0 to 3000000000000000000");
        QTest::newRow("priority text")
            << QByteArray(R"([{"op":"reschedule","priority":"high"}])")
            << QStringLiteral("transforms[0].priority: expected a whole number");
        QTest::newRow("inverted range")
            << QByteArray(R"([{"op":"scale","select":{"from_ns":10,"to_ns":5}}])")
            << QStringLiteral("transforms[0].select.to_ns: 5 is before from_ns 10");
        QTest::newRow("bandwidth 0")
            << QByteArray(R"([{"op":"link","bandwidth_gbps":0}])")
            << QStringLiteral("transforms[0].bandwidth_gbps: expected a number above 0, from 1e-06 "
                              "to 1000000, got 0");
        QTest::newRow("bandwidth negative")
            << QByteArray(R"([{"op":"link","bandwidth_gbps":-50}])")
            << QStringLiteral(
                   "transforms[0].bandwidth_gbps: expected a number above 0, from 1e-06");
        QTest::newRow("latency huge")
            << QByteArray(R"([{"op":"link","latency_us":1e308}])")
            << QStringLiteral("transforms[0].latency_us: expected a number from 0 to 1000000000");
        QTest::newRow("rank text") << QByteArray(R"([{"op":"scale","select":{"rank":"x"}}])")
                                   << QStringLiteral("transforms[0].select.rank: expected a whole "
                                                     "number from 0 to 1000000, got \"x\"");
        QTest::newRow("kind text")
            << QByteArray(R"([{"op":"scale","select":{"kind":"kernel"}}])")
            << QStringLiteral(
                   "transforms[0].select.kind: expected an array of strings, got \"kernel\"");
        QTest::newRow("name number")
            << QByteArray(R"([{"op":"scale","select":{"name":5}}])")
            << QStringLiteral("transforms[0].select.name: expected a string, got 5");
        QTest::newRow("select array")
            << QByteArray(R"([{"op":"scale","select":[]}])")
            << QStringLiteral("transforms[0].select: expected an object, got an array");
        QTest::newRow("workers fraction")
            << QByteArray(R"([{"op":"workers","workers":2.5}])")
            << QStringLiteral(
                   "transforms[0].workers: expected a whole number from 1 to 1000000, got 2.5");
        QTest::newRow("not an object")
            << QByteArray(R"([{"op":"amp"},5])")
            << QStringLiteral("transforms[1]: expected a transform object, got 5");
        QTest::newRow("op number") << QByteArray(R"([{"op":7}])")
                                   << QStringLiteral("transforms[0].op: expected an op, got 7");
        QTest::newRow("unknown key") << QByteArray(R"([{"op":"host","factr":0}])")
                                     << QStringLiteral("transforms[0]: unknown key 'factr'");
    }
    void badTransformValuesAreNamed()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!transformsFromJson(QJsonDocument::fromJson(json).array(), &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    // No transform list, however extreme, makes a predicted time negative or non-finite: the
    // replay saturates or the transforms are refused with a reason (issue 33).
    void noTransformMakesATimeNegative()
    {
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 2, 3);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces});
        QString error;
        const auto g = buildGraph(*project, QStringLiteral("job"), &error);
        QVERIFY2(g, qPrintable(error));
        // Values at and near every limit, and ordinary ones.
        const QList<double> factors{0, 1e-6, 1e-3, 0.5, 1, 2, 1e3, 1e6};
        const QList<double> durations{0, 1, 1e6, 1e12, 1e15, 3e18};
        const QList<double> rates{1e-6, 1e-3, 1, 100, 1e6};
        const QStringList ops{
            QStringLiteral("scale"),   QStringLiteral("set"),        QStringLiteral("insert"),
            QStringLiteral("fuse"),    QStringLiteral("compute"),    QStringLiteral("memory"),
            QStringLiteral("input"),   QStringLiteral("host"),       QStringLiteral("link"),
            QStringLiteral("workers"), QStringLiteral("reschedule"), QStringLiteral("amp"),
            QStringLiteral("unsync"),  QStringLiteral("remove")};
        QRandomGenerator rng(33);
        auto pick = [&](const auto &list) { return list[int(rng.bounded(quint32(list.size())))]; };
        int predicted = 0, refused = 0;
        for (int trial = 0; trial < 300; ++trial) {
            QJsonArray list;
            const int n = 1 + int(rng.bounded(3u));
            for (int k = 0; k < n; ++k) {
                const QString op = pick(ops);
                QJsonObject t{{QStringLiteral("op"), op}};
                if (rng.bounded(2u))
                    t.insert(QStringLiteral("select"),
                             QJsonObject{{QStringLiteral("name"),
                                          pick(QStringList{
                                              QStringLiteral("."), QStringLiteral("gemm"),
                                              QStringLiteral("nccl"), QStringLiteral("^k")})}});
                // Each op takes its own keys only (an unknown key is refused).
                if (op == QLatin1String("compute") || op == QLatin1String("memory"))
                    t.insert(QStringLiteral("factor"), pick(rates));
                else if (op == QLatin1String("scale") || op == QLatin1String("input") ||
                         op == QLatin1String("host"))
                    t.insert(QStringLiteral("factor"), pick(factors));
                if (op == QLatin1String("set") || op == QLatin1String("insert") ||
                    op == QLatin1String("fuse"))
                    t.insert(QStringLiteral("duration_ns"), pick(durations));
                if (op == QLatin1String("link")) {
                    t.insert(QStringLiteral("bandwidth_gbps"), pick(rates));
                    t.insert(QStringLiteral("latency_us"), pick(QList<double>{0, 1, 1e6, 1e9}));
                }
                if (op == QLatin1String("workers")) {
                    t.insert(QStringLiteral("workers"), pick(QList<double>{1, 2, 64, 1e6}));
                    t.insert(QStringLiteral("grad_mb"), pick(QList<double>{0, 1, 1e9}));
                    t.insert(QStringLiteral("bucket_mb"), pick(rates));
                }
                if (op == QLatin1String("reschedule"))
                    t.insert(QStringLiteral("priority"), pick(QList<double>{-1e6, 0, 1e6}));
                list.append(t);
            }
            const auto transforms = transformsFromJson(list, &error);
            QVERIFY2(transforms, qPrintable(error + QStringLiteral(" in ") +
                                            QString::fromUtf8(QJsonDocument(list).toJson())));
            const auto r = whatIf(g, *transforms, {}, &error);
            if (!r) {
                QVERIFY2(!error.isEmpty(), "a refusal says why");
                ++refused;
                continue;
            }
            ++predicted;
            const QString what =
                QString::fromUtf8(QJsonDocument(list).toJson(QJsonDocument::Compact));
            QVERIFY2(r->predicted.finish >= r->predicted.origin, qPrintable(what));
            QVERIFY2(r->report.predicted >= 0, qPrintable(what));
            QVERIFY2(std::isfinite(r->report.predictedBreakdown.total() * 1.0), qPrintable(what));
            for (const auto &it : r->report.iterations)
                QVERIFY2(it.predicted >= 0, qPrintable(what));
            for (size_t i = 0; i < r->predicted.start.size(); ++i)
                QVERIFY2(r->predicted.start[i] >= 0 && r->predicted.end[i] >= r->predicted.start[i],
                         qPrintable(what));
        }
        QVERIFY(predicted > 100);
        qInfo("%d transform lists predicted, %d refused with a reason", predicted, refused);
    }

    void transformsRoundTripThroughJson()
    {
        Transform t = Transform::scale(QStringLiteral("gemm"), 0.5);
        t.select.within = QStringLiteral("^ProfilerStep#3$");
        t.select.kinds = 1u << unsigned(NodeKind::Kernel);
        t.select.rank = 2;
        t.select.from = 5;
        t.select.to = 900;
        t.select.category = QStringLiteral("kernel");
        t.select.device = QStringLiteral("0");
        Transform w = Transform::dataParallel(8);
        w.gradMB = 97.5;
        w.algorithm = QStringLiteral("tree");
        Transform ins;
        ins.op = QStringLiteral("insert");
        ins.flops = 2e12;
        ins.bytes = 5e8;
        ins.precision = QStringLiteral("fp16");
        Transform fuse = Transform::fusedAdam();
        fuse.overhead = 2500;
        QString why;
        const QList<Transform> list = {t,
                                       Transform::amp(),
                                       Transform::fusedAdam(),
                                       Transform::input(0),
                                       Transform::device(QStringLiteral("MI300X")),
                                       Transform::network(25, 3),
                                       w,
                                       *parseReschedule(QStringLiteral("nccl=-2"), &why),
                                       ins,
                                       fuse};
        const auto back = transformsFromJson(transformsToJson(list), &why);
        QVERIFY2(back, qPrintable(why));
        QCOMPARE(transformsToJson(*back), transformsToJson(list));
        QCOMPARE(back->first().select.describe(),
                 QStringLiteral("/gemm/ kernel category /kernel/ on GPU /0/ rank 2 within "
                                "/^ProfilerStep#3$/ in [5 ns, 900 ns)"));
        QVERIFY(!Transform::fromJson(QJsonObject{{QStringLiteral("op"), QStringLiteral("warp")}},
                                     &why));
        QVERIFY2(why.contains(QLatin1String("unknown transform 'warp'")), qPrintable(why));
        QVERIFY(!Transform::fromJson(QJsonObject{{QStringLiteral("op"), QStringLiteral("device")},
                                                 {QStringLiteral("target"), QStringLiteral("TPU")}},
                                     &why));
        const auto typed = parseTransform(
            QStringLiteral(R"J({"op":"reschedule","priority":2,"select":{"name":"nccl"}})J"), &why);
        QVERIFY2(typed && typed->is("reschedule") && typed->priority == 2, qPrintable(why));
        QCOMPARE(parseTransform(QStringLiteral("sgemm=0.5"), &why)->factor, 0.5);
        QVERIFY(!parseTransform(QStringLiteral("{\"op\":"), &why));
        QVERIFY2(why.contains(QLatin1String("offset")), qPrintable(why));
        QVERIFY(!parseTransform(QStringLiteral(R"J({"op":"link","algorithm":"star"})J"), &why));
        QVERIFY2(why.contains(QLatin1String("ring' or 'tree")), qPrintable(why));
        QVERIFY(parsePreset(QStringLiteral("input=4"), &why));
        QVERIFY(!parsePreset(QStringLiteral("turbo"), &why));
    }

    // Each transform is a kind of its own (simulator/replay/transforms/): every registered op
    // reads what it writes and describes itself, and takes its own keys only, the message
    // listing them.
    void eachTransformKindOwnsItsKeys()
    {
        const QStringList ops = transformOps();
        QCOMPARE(ops.size(), 15);
        QString why;
        for (const QString &op : ops) {
            QJsonObject o{{QStringLiteral("op"), op}};
            if (op == QLatin1String("device"))
                o.insert(QStringLiteral("target"), QStringLiteral("H100"));
            if (op == QLatin1String("link"))
                o.insert(QStringLiteral("bandwidth_gbps"), 25);
            const auto t = Transform::fromJson(o, &why);
            QVERIFY2(t && t->is(op.toLatin1().constData()),
                     qPrintable(op + QLatin1Char(' ') + why));
            const auto back = Transform::fromJson(t->toJson(), &why);
            QVERIFY2(back, qPrintable(why));
            QCOMPARE(back->toJson(), t->toJson());
            QVERIFY2(!t->describe().isEmpty() && !t->describe().contains(QLatin1String("unknown")),
                     qPrintable(t->describe()));
        }
        QVERIFY(!parseTransform(QStringLiteral(R"J({"op":"insert","factor":2})J"), &why));
        QCOMPARE(why, QStringLiteral("insert: unknown key 'factor' (expected op, select, name, "
                                     "duration_ns, flops, bytes, precision)"));
        // A transform made in code with an op no kind has is refused by the replay, by name.
        Transform bad;
        bad.op = QStringLiteral("warp");
        QVERIFY(bad.describe().contains(QLatin1String("unknown transform")));
    }

    void cliScenariosAndSavedRuns()
    {
        QTemporaryDir dir;
        const QString file = handProjectFile(dir);
        QByteArray out;
        QCOMPARE(
            runCli({QStringLiteral("whatif"), file, QStringLiteral("--scale"),
                    QStringLiteral("^k2$=2"), QStringLiteral("--scale"), QStringLiteral("^nccl=0"),
                    QStringLiteral("--save-scenario"), QStringLiteral("slow k2"),
                    QStringLiteral("--save"), QStringLiteral("k2x2")},
                   &out),
            0);
        // k2 [115,315), the all-reduce point at 317, D ends 320, E [330,350).
        QVERIFY2(out.contains("predicted 350 µs"), out.constData());
        QVERIFY2(!out.contains("changes nothing"), out.constData());
        // A name that selects nothing (a typo) is said, the prediction being the identity's.
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--scale"),
                         QStringLiteral("^k9$=2")},
                        &out),
                 0);
        QVERIFY2(out.contains("scale /^k9$/ x2 selects no node of run 'run': it changes nothing"),
                 out.constData());
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--run"),
                         QStringLiteral("run"), QStringLiteral("--scenario"),
                         QStringLiteral("slow k2"), QStringLiteral("--json")},
                        &out),
                 0);
        QCOMPARE(QJsonDocument::fromJson(out).object()[QStringLiteral("predicted_ns")].toInteger(),
                 us(350));
        QCOMPARE(
            runCli({QStringLiteral("whatif"), file, QStringLiteral("--run"), QStringLiteral("run"),
                    QStringLiteral("--scenario"), QStringLiteral("nope")},
                   &out),
            1);
        QVERIFY2(out.contains("no scenario 'nope'"), out.constData());
        // The saved run: kind predicted, the measured tracks, k2 200 µs long, the removed
        // all-reduce left out, launch flows kept.
        QCOMPARE(runCli({QStringLiteral("info"), file, QStringLiteral("--json")}, &out), 0);
        const auto runs = QJsonDocument::fromJson(out).object()[QStringLiteral("runs")].toArray();
        QCOMPARE(runs.size(), 2);
        const auto saved = runs[1].toObject();
        QCOMPARE(saved[QStringLiteral("name")].toString(), QStringLiteral("k2x2"));
        QCOMPARE(saved[QStringLiteral("slices")].toInt(), 7);
        QCOMPARE(saved[QStringLiteral("flows")].toInt(), 2);
        QCOMPARE(saved[QStringLiteral("end_ns")].toInteger() -
                     saved[QStringLiteral("start_ns")].toInteger(),
                 us(350));
        QCOMPARE(runCli({QStringLiteral("query"), file,
                         QStringLiteral(
                             "SELECT r.kind, s.dur FROM slice_abs s JOIN run r ON r.id = s.run_id "
                             "WHERE s.name = 'k2' ORDER BY r.id")},
                        &out),
                 0);
        QCOMPARE(out, QByteArray("kind,dur\nmeasured,100000\npredicted,200000\n"));
        // Saving again replaces the prediction; a measured run is never overwritten.
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--run"),
                         QStringLiteral("run"), QStringLiteral("--save"), QStringLiteral("k2x2")},
                        &out),
                 0);
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--run"),
                         QStringLiteral("run"), QStringLiteral("--save"), QStringLiteral("run")},
                        &out),
                 1);
        QVERIFY2(out.contains("a prediction never replaces one"), out.constData());
        QCOMPARE(runCli({QStringLiteral("whatif"), QStringLiteral("--devices")}, &out), 0);
        QVERIFY(out.contains("H200") && out.contains("MI300X") && out.contains("nvlink4"));
    }

    void cli()
    {
        QTemporaryDir dir;
        const QString file = handProjectFile(dir);
        QByteArray out;
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--scale"),
                         QStringLiteral("^k2$=2"), QStringLiteral("--json")},
                        &out),
                 0);
        const auto o = QJsonDocument::fromJson(out).object();
        QCOMPARE(o[QStringLiteral("measured_ns")].toInteger(), us(330));
        QCOMPARE(o[QStringLiteral("identity_ns")].toInteger(), us(330));
        QCOMPARE(o[QStringLiteral("predicted_ns")].toInteger(), us(430));
        QCOMPARE(o[QStringLiteral("identity_error")].toDouble(), 0.0);
        QCOMPARE(o[QStringLiteral("edges")].toObject()[QStringLiteral("sync")].toInt(), 2);
        QCOMPARE(runCli({QStringLiteral("whatif"), file}, &out), 0);
        QVERIFY2(out.contains("end to end: measured 330 µs, identity replay 330 µs (error 0.00%)"),
                 out.constData());
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--scale"),
                         QStringLiteral("k2")},
                        &out),
                 2);
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--run"),
                         QStringLiteral("nope")},
                        &out),
                 1);
        // 8 tree workers over the measured NVLink 2 (collectiveAlgorithmsAndCostModels: 413 µs).
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--workers"),
                         QStringLiteral("8"), QStringLiteral("--algorithm"), QStringLiteral("tree"),
                         QStringLiteral("--measured-link"), QStringLiteral("nvlink2"),
                         QStringLiteral("--json")},
                        &out),
                 0);
        QCOMPARE(QJsonDocument::fromJson(out).object()[QStringLiteral("predicted_ns")].toInteger(),
                 us(413));
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--reschedule"),
                         QStringLiteral("^aten::add$=1"), QStringLiteral("--json")},
                        &out),
                 0);
        QCOMPARE(QJsonDocument::fromJson(out).object()[QStringLiteral("predicted_ns")].toInteger(),
                 us(330));
        QCOMPARE(runCli({QStringLiteral("whatif"), file, QStringLiteral("--algorithm"),
                         QStringLiteral("star")},
                        &out),
                 2);
        QVERIFY2(out.contains("--algorithm must be ring or tree"), out.constData());
    }
};

QTEST_GUILESS_MAIN(TestWhatIf)
#include "tst_whatif.moc"
