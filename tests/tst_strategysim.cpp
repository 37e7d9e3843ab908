// SPDX-License-Identifier: GPL-3.0-or-later
// The strategy simulator: layer graphs against published totals, max-min fair flows in the
// replay engine, the invariants of data parallelism, the trends the thesis reports, saved runs
// and the CLI, and layer graphs taken from the shared measured runs.
#include "clockalignment.h"
#include "dependencygraph.h"
#include "flownetwork.h"
#include "importutil.h"
#include "modelfromrun.h"
#include "project.h"
#include "replay.h"
#include "strategy.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QtTest>

#include <cmath>

using namespace gml;
using namespace gml::sim;

namespace {

SimConfig config(const QString &model, Strategy strategy, int workers,
                 const QString &cluster = QStringLiteral("dgx1"))
{
    SimConfig c;
    QString error;
    auto m = builtinModel(model, &error);
    if (!m)
        qFatal("%s", qPrintable(error));
    c.model = *m;
    c.strategy = strategy;
    c.workers = workers;
    auto cl = SimCluster::load(cluster, &error);
    if (!cl)
        qFatal("%s", qPrintable(error));
    c.cluster = *cl;
    c.iterations = 6;
    return c;
}

SimResult run(const SimConfig &c)
{
    QString error;
    auto r = simulateWithBaselines(c, nullptr, &error);
    if (!r)
        qFatal("%s: %s", qPrintable(c.describe()), qPrintable(error));
    return *r;
}

QString simulateError(const SimConfig &c)
{
    QString error;
    if (simulate(c, &error))
        return QStringLiteral("(simulated)");
    return error;
}

struct Cli
{
    int code = -1;
    QByteArray out, err;
};

Cli cli(const QStringList &args)
{
    const auto c = gmltest::runCli(args, QProcessEnvironment::systemEnvironment(), 300);
    Cli r;
    r.code = c.code;
    r.out = c.out;
    r.err = c.err;
    return r;
}

} // namespace

class TestStrategySim : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void builtinModelsMatchPublishedTotals_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<qint64>("params");
        QTest::addColumn<double>(
            "gmacs"); // forward multiply-adds per sample, as published or by formula
        QTest::addColumn<double>("tolerance");
        // torchvision's model cards (parameters, GFLOPS as multiply-adds).
        QTest::newRow("alexnet") << QStringLiteral("alexnet") << qint64(61100840) << 0.71 << 0.01;
        QTest::newRow("vgg16") << QStringLiteral("vgg16") << qint64(138357544) << 15.47 << 0.01;
        QTest::newRow("vgg19") << QStringLiteral("vgg19") << qint64(143667240) << 19.63 << 0.01;
        QTest::newRow("resnet50") << QStringLiteral("resnet50") << qint64(25557032) << 4.09 << 0.01;
        // torchvision's 27,161,264 less the auxiliary classifier (3,326,696).
        QTest::newRow("inception3")
            << QStringLiteral("inception3") << qint64(23834568) << 5.71 << 0.01;
        // Narayanan et al.: forward 24·s·h²·L + 4·s²·h·L (+ 2·s·h·V for a language model head),
        // as multiply-adds: half of that.
        const double l = 12, h = 768;
        const double bert = (24 * 128 * h * h * l + 4 * 128.0 * 128 * h * l) / 2 / 1e9;
        const double gpt =
            (24 * 1024 * h * h * l + 4 * 1024.0 * 1024 * h * l + 2 * 1024 * h * 50257) / 2 / 1e9;
        QTest::newRow("bert-base")
            << QStringLiteral("bert-base") << qint64(109483778) << bert << 0.005;
        QTest::newRow("gpt2") << QStringLiteral("gpt2") << qint64(124439808) << gpt << 0.005;
    }
    void builtinModelsMatchPublishedTotals()
    {
        QFETCH(QString, model);
        QFETCH(qint64, params);
        QFETCH(double, gmacs);
        QFETCH(double, tolerance);
        QString error;
        const auto g = builtinModel(model, &error);
        QVERIFY2(g, qPrintable(error));
        QCOMPARE(g->params(), params);
        const double macs = g->flops() / 2 / 1e9;
        QVERIFY2(
            std::abs(macs / gmacs - 1) < tolerance,
            qPrintable(QStringLiteral("%1 G multiply-adds, published %2").arg(macs).arg(gmacs)));
        // Layers only read earlier layers (the order a device runs them in).
        for (size_t l = 0; l < g->layers.size(); ++l)
            for (int i : g->layers[l].inputs)
                QVERIFY(i >= 0 && size_t(i) < l);
        QVERIFY(!builtinModel(QStringLiteral("resnet51"), &error));
        QVERIFY(error.contains(QLatin1String("resnet50")));
    }

    void maxMinFairShares()
    {
        // Link 0 (10 bytes/ns) carries flows 0 and 1; flow 1 is held to 3 by link 1, so flow 0
        // gets the 7 left; flow 2 is alone on link 2.
        FlowSpec spec;
        spec.links = {
            {QStringLiteral("a"), 10}, {QStringLiteral("b"), 3}, {QStringLiteral("c"), 4}};
        spec.flows = {{100, 0, {0}}, {100, 0, {0, 1}}, {100, 0, {2}}};
        MaxMinSharing s(spec);
        for (int f = 0; f < 3; ++f)
            s.add(f);
        s.recompute();
        QCOMPARE(s.rate(0), 7.0);
        QCOMPARE(s.rate(1), 3.0);
        QCOMPARE(s.rate(2), 4.0);
        QCOMPARE(s.load(0), 10.0);
        s.remove(1);
        s.recompute();
        QCOMPARE(s.rate(0), 10.0);
        QCOMPARE(s.load(1), 0.0);
        QVERIFY(s.changedLinks().size() == 1 || s.changedLinks().size() == 2);
    }

    void replayedFlowsShareTheirLink()
    {
        // An incast: four transfers of 1,000 bytes start together into one link of 1 byte/ns
        // (each gets a quarter: all end at 4,000 ns, plus 10 ns latency); a node waits for all.
        DependencyGraph g;
        Resource net;
        net.name = QStringLiteral("nic");
        net.concurrent = true;
        const int nic = g.addResource(net);
        Resource cpu;
        cpu.name = QStringLiteral("cpu");
        const int host = g.addResource(cpu);
        auto spec = std::make_shared<FlowSpec>();
        spec->links = {{QStringLiteral("server in"), 1.0}};
        std::vector<int> transfers;
        for (int k = 0; k < 4; ++k) {
            Node n;
            n.resource = nic;
            n.kind = NodeKind::Collective;
            transfers.push_back(g.appendNode(n));
            spec->flowOfNode.push_back(int(spec->flows.size()));
            spec->flows.push_back({1000, 10, {0}});
        }
        Node after;
        after.resource = host;
        after.work = 5;
        const int last = g.appendNode(after);
        spec->flowOfNode.push_back(-1);
        for (int t : transfers)
            g.addEdge({t, last, EdgeKind::Data, true, false, 0});
        g.reorder();
        ReplayInput in;
        in.work.assign(g.nodes().size(), 0);
        in.work[size_t(last)] = 5;
        in.slack.assign(g.nodes().size(), 0);
        in.flows = spec;
        const Replay r = replay(g, in);
        for (int t : transfers)
            QCOMPARE(r.end[size_t(t)], TimeNs(4010));
        QCOMPARE(r.start[size_t(last)], TimeNs(4010));
        QCOMPARE(r.finish, TimeNs(4015));
        QCOMPARE(r.critical.communication, TimeNs(4010));
        // The link's load: full from 0, empty from 4,000.
        const auto &load = r.linkLoads[0].samples;
        QCOMPARE(load.front(), std::make_pair(TimeNs(0), 1.0));
        QCOMPARE(load.back(), std::make_pair(TimeNs(4000), 0.0));
    }

    void speedupNeverExceedsWorkers_data()
    {
        QTest::addColumn<int>("strategy");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("options");
        QTest::newRow("ps sync resnet50")
            << int(Strategy::ParameterServer) << QStringLiteral("resnet50") << QString();
        QTest::newRow("ps async alexnet") << int(Strategy::ParameterServer)
                                          << QStringLiteral("alexnet") << QStringLiteral("async");
        QTest::newRow("ring alexnet")
            << int(Strategy::MultiWorker) << QStringLiteral("alexnet") << QString();
        QTest::newRow("tree vgg16")
            << int(Strategy::MultiWorker) << QStringLiteral("vgg16") << QStringLiteral("tree");
        QTest::newRow("ring bert") << int(Strategy::MultiWorker) << QStringLiteral("bert-base")
                                   << QStringLiteral("critical-path");
    }
    void speedupNeverExceedsWorkers()
    {
        QFETCH(int, strategy);
        QFETCH(QString, model);
        QFETCH(QString, options);
        for (int n : {1, 2, 4, 8, 16}) {
            SimConfig c = config(model, Strategy(strategy), n, QStringLiteral("12x4-v100-edr"));
            c.servers = 2;
            c.asyncUpdates = options == QLatin1String("async");
            c.allReduce =
                options == QLatin1String("tree") ? QStringLiteral("tree") : QStringLiteral("ring");
            c.criticalPathFirst = options == QLatin1String("critical-path");
            const SimResult r = run(c);
            QVERIFY2(
                r.metrics.speedup > 0 && r.metrics.speedup <= n * (1 + 1e-12),
                qPrintable(
                    QStringLiteral("%1: speedup %2").arg(c.describe()).arg(r.metrics.speedup)));
            QVERIFY(r.metrics.scalingEfficiency <= 1 + 1e-12);
            QVERIFY(r.warnings.isEmpty());
            if (n == 1)
                QCOMPARE(r.metrics.speedup, 1.0);
        }
    }

    void workIsConservedForAFixedGlobalBatch()
    {
        // 256 samples per iteration, split over 1..16 workers (uneven splits included): the
        // FLOPs are the same; the GPU time only grows by the fixed cost per kernel.
        double flops = 0;
        TimeNs single = 0;
        for (int n : {1, 2, 3, 4, 8, 16}) {
            SimConfig c = config(QStringLiteral("resnet50"),
                                 n == 1 ? Strategy::Default : Strategy::MultiWorker, n,
                                 QStringLiteral("12x4-v100-edr"));
            c.globalBatch = 256;
            int samples = 0;
            for (int w = 0; w < n; ++w)
                samples += c.batchOf(w);
            QCOMPARE(samples, 256);
            const SimResult r = run(c);
            if (n == 1) {
                flops = r.metrics.computeTotalFlops;
                single = r.metrics.computationNs;
                QCOMPARE(flops, 3 * c.model.flops() * 256 * c.iterations);
                continue;
            }
            QCOMPARE(r.metrics.computeTotalFlops, flops);
            const double total = double(r.metrics.computationNs) * n;
            QVERIFY2(total >= double(single) * 0.999 && total < double(single) * 1.25,
                     qPrintable(QStringLiteral("%1 workers: %2 ns of GPU work against %3")
                                    .arg(n)
                                    .arg(total)
                                    .arg(single)));
        }
    }

    void energyIsTheIntegralOfPower()
    {
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        for (const auto &c : {config(QStringLiteral("resnet50"), Strategy::Mirrored, 4),
                              config(QStringLiteral("alexnet"), Strategy::ParameterServer, 4)}) {
            const SimResult r = run(c);
            // Independently: per GPU, idle power over the run plus (max - idle) over its busy time.
            const double seconds = double(r.replay.finish - r.replay.origin) * 1e-9;
            double gpus = 0;
            for (size_t res = 0; res < r.resources.size(); ++res)
                if (r.resources[res].role == SimResult::Role::Compute)
                    for (int i : r.graph->resources()[res].nodes)
                        gpus += (c.cluster.gpu.maxW - c.cluster.gpu.idleW) *
                                double(r.replay.end[size_t(i)] - r.replay.start[size_t(i)]) * 1e-9;
            gpus += c.workers * c.cluster.gpu.idleW * seconds;
            double servers = 0;
            for (const PowerTrack &p : r.power)
                if (!p.gpu)
                    servers += p.energyJ();
            QVERIFY(c.strategy != Strategy::ParameterServer ||
                    servers > c.cluster.cpu.idleW * seconds);
            QVERIFY2(std::abs((gpus + servers) / r.metrics.energyJ - 1) < 1e-9,
                     qPrintable(QStringLiteral("%1 J by busy time, %2 J simulated")
                                    .arg(gpus + servers)
                                    .arg(r.metrics.energyJ)));
            // And the saved power counters integrate to the same.
            QString error;
            const QString name = simulatedRunName(c);
            QVERIFY2(saveSimulatedRun(*project, r, name, &error), qPrintable(error));
            auto st =
                project->db().prepare("SELECT t.id, k.ts, k.value FROM counter k JOIN track t ON "
                                      "t.id = k.track_id JOIN run r ON r.id = t.run_id "
                                      "WHERE r.name = ? AND t.unit = 'W' ORDER BY t.id, k.ts");
            st.bind(1, name);
            double joules = 0;
            qint64 track = -1;
            TimeNs at = 0;
            double watts = 0;
            while (st.step()) {
                if (st.int64(0) == track)
                    joules += watts * double(st.int64(1) - at) * 1e-9;
                track = st.int64(0);
                at = st.int64(1);
                watts = st.real(2);
            }
            QVERIFY2(std::abs(joules / r.metrics.energyJ - 1) < 1e-9,
                     qPrintable(QStringLiteral("%1 J in the counters").arg(joules)));
            QCOMPARE(r.metrics.energyPerIterationJ, r.metrics.energyJ / c.iterations);
        }
    }

    void impossibleConfigurationsAreClearErrors()
    {
        QTemporaryDir dir;
        auto clusterFile = [&](const QByteArray &json) {
            return gmltest::writeFile(dir, QStringLiteral("c.json"), json);
        };
        QString error;
        QVERIFY(!SimCluster::load(clusterFile(R"({"gpu": "V100", "nodes": 2, "network_gbps": 0})"),
                                  &error));
        QVERIFY2(error.contains(QLatin1String("network_gbps")) &&
                     error.contains(QLatin1String("above 0")),
                 qPrintable(error));
        QVERIFY(!SimCluster::load(clusterFile(R"({"gpu": "Z9000"})"), &error));
        QVERIFY2(error.contains(QLatin1String("Z9000")) &&
                     error.contains(QLatin1String("not in the device catalog")),
                 qPrintable(error));
        QVERIFY(!SimCluster::load(clusterFile(R"({"gpu": "V100", "storage": "tape"})"), &error));
        QVERIFY2(error.contains(QLatin1String("tape")), qPrintable(error));
        QVERIFY(!SimCluster::load(clusterFile(R"({"gpu": "V100",)"), &error));
        QVERIFY2(error.contains(QLatin1String("c.json")) && error.contains(QLatin1String("byte")),
                 qPrintable(error));
        QVERIFY(!SimCluster::load(QStringLiteral("no-such-preset"), &error));
        QVERIFY2(error.contains(QLatin1String("dgx1")), qPrintable(error));
        // A link of zero bandwidth set in code is refused by the simulator too.
        SimConfig c = config(QStringLiteral("resnet50"), Strategy::MultiWorker, 8,
                             QStringLiteral("12x4-v100-edr"));
        c.cluster.network.bwGBps = 0;
        QVERIFY2(simulateError(c).contains(QLatin1String("zero bandwidth")),
                 qPrintable(simulateError(c)));
        c = config(QStringLiteral("resnet50"), Strategy::MultiWorker, 8,
                   QStringLiteral("12x4-v100-edr"));
        c.cluster.gpu = Device{};
        QVERIFY2(simulateError(c).contains(QLatin1String("missing from the device catalog")),
                 qPrintable(simulateError(c)));
        QVERIFY(simulateError(config(QStringLiteral("resnet50"), Strategy::MultiWorker, 64,
                                     QStringLiteral("12x4-v100-edr")))
                    .contains(QLatin1String("has 48 GPUs")));
        QVERIFY(simulateError(config(QStringLiteral("resnet50"), Strategy::Mirrored, 8,
                                     QStringLiteral("12x4-v100-edr")))
                    .contains(QLatin1String("one node")));
        QVERIFY(simulateError(config(QStringLiteral("resnet50"), Strategy::Default, 2))
                    .contains(QLatin1String("one device")));
        c = config(QStringLiteral("vgg19"), Strategy::Default, 1);
        c.batch = 4096;
        QVERIFY2(simulateError(c).contains(QLatin1String("GB per GPU")),
                 qPrintable(simulateError(c)));
    }

    // A cluster file is read like a what-if transform: unknown keys and values of the wrong
    // type or out of range are errors naming the file and the key (issue 33).
    void clusterFileValuesAreChecked_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown key") << QByteArray(R"({"gpu": "V100", "colour": "red"})")
                                     << QStringLiteral("unknown key 'colour'");
        QTest::newRow("too many nodes")
            << QByteArray(R"({"gpu": "V100", "nodes": 125000000})")
            << QStringLiteral("nodes: expected a whole number from 1 to 1000000, got 125000000");
        QTest::newRow("nodes text")
            << QByteArray(R"({"gpu": "V100", "nodes": "two"})")
            << QStringLiteral("nodes: expected a whole number from 1 to 1000000, got \"two\"");
        QTest::newRow("too many GPUs")
            << QByteArray(R"({"gpu": "V100", "nodes": 1000000, "gpus_per_node": 8})")
            << QStringLiteral("at most 1000000 GPUs in all");
        QTest::newRow("latency huge")
            << QByteArray(R"({"gpu": "V100", "network_latency_us": 1e308})")
            << QStringLiteral(
                   "network_latency_us: expected a number from 0 to 1000000, got 1e+308");
        QTest::newRow("bandwidth tiny")
            << QByteArray(R"({"gpu": "V100", "network_gbps": 1e-300})")
            << QStringLiteral(
                   "network_gbps: expected a number above 0, from 0.001 to 1000000, got 1e-300");
        QTest::newRow("oversubscription huge")
            << QByteArray(R"({"gpu": "V100", "oversubscription": 1e308})")
            << QStringLiteral("oversubscription: expected a number from 1 to 1000, got 1e+308");
        QTest::newRow("gpu number")
            << QByteArray(R"({"gpu": 100})") << QStringLiteral("gpu: expected a string, got 100");
        QTest::newRow("network number") << QByteArray(R"({"gpu": "V100", "network": 5})")
                                        << QStringLiteral("network: expected a string, got 5");
    }
    void clusterFileValuesAreChecked()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = gmltest::writeFile(dir, QStringLiteral("cluster.json"), json);
        QString error;
        QVERIFY(!SimCluster::load(path, &error));
        QVERIFY2(error.startsWith(path + QStringLiteral(": ")) && error.contains(message),
                 qPrintable(error));
    }

    // Clusters at the limits a file may declare simulate to finite, non-negative times, or are
    // refused with a reason: never a negative or overflowed time (issue 33).
    void extremeClustersNeverGiveNegativeTimes()
    {
        QTemporaryDir dir;
        int simulated = 0, refused = 0;
        for (
            const char *json :
            {R"({"gpu": "V100", "nodes": 4, "gpus_per_node": 2, "network_gbps": 0.001, "network_latency_us": 1000000})",
             R"({"gpu": "V100", "nodes": 4, "gpus_per_node": 2, "oversubscription": 1000, "network_gbps": 0.001})",
             R"({"gpu": "V100", "nodes": 4, "gpus_per_node": 2, "intra_gbps": 0.001, "host_gbps": 0.001, "storage_gbps": 0.001})",
             R"({"gpu": "V100", "nodes": 4, "gpus_per_node": 2, "network_gbps": 1000000, "network_latency_us": 0})"}) {
            QString error;
            const auto cl =
                SimCluster::load(gmltest::writeFile(dir, QStringLiteral("c.json"), json), &error);
            QVERIFY2(cl, qPrintable(error));
            for (Strategy strategy : {Strategy::MultiWorker, Strategy::ParameterServer}) {
                SimConfig c = config(QStringLiteral("resnet50"), strategy, 8);
                c.cluster = *cl;
                c.iterations = 3;
                const auto r = simulate(c, &error);
                if (!r) {
                    QVERIFY2(!error.isEmpty(), json);
                    ++refused;
                    continue;
                }
                ++simulated;
                QVERIFY2(r->replay.finish > r->replay.origin, json);
                QVERIFY2(r->metrics.executionNs > 0 && r->metrics.iterationNs > 0 &&
                             r->metrics.epochNs > 0,
                         json);
                QVERIFY2(std::isfinite(r->metrics.energyJ) && r->metrics.energyJ >= 0, json);
                QVERIFY2(std::isfinite(r->metrics.throughput) && r->metrics.throughput > 0, json);
                for (size_t i = 0; i < r->replay.start.size(); ++i)
                    QVERIFY2(r->replay.start[i] >= 0 && r->replay.end[i] >= r->replay.start[i],
                             json);
            }
        }
        QVERIFY(simulated > 0);
        qInfo("%d extreme clusters simulated, %d refused with a reason", simulated, refused);
    }

    // The thesis's trends.
    void largerBatchesShortenTheEpoch()
    {
        TimeNs previous = std::numeric_limits<TimeNs>::max();
        for (int batch : {8, 16, 32, 64, 128}) {
            SimConfig c = config(QStringLiteral("resnet50"), Strategy::Default, 1);
            c.batch = batch;
            const SimResult r = run(c);
            QVERIFY2(r.metrics.epochNs < previous,
                     qPrintable(QStringLiteral("batch %1").arg(batch)));
            previous = r.metrics.epochNs;
        }
    }

    void mirroredBeatsTheParameterServerOnAlexNet()
    {
        double lastPsUsage = 2;
        double firstMirroredUsage = -1;
        for (int n : {1, 2, 4, 8}) {
            SimConfig m = config(QStringLiteral("alexnet"), Strategy::Mirrored, n);
            SimConfig ps = config(QStringLiteral("alexnet"), Strategy::ParameterServer, n);
            m.syntheticData = ps.syntheticData = true; // as tf_cnn_benchmarks measures strategies
            const SimResult rm = run(m), rp = run(ps);
            if (n > 1) {
                QVERIFY2(rm.metrics.throughput > rp.metrics.throughput,
                         qPrintable(QStringLiteral("%1 workers: mirrored %2/s, ps %3/s")
                                        .arg(n)
                                        .arg(rm.metrics.throughput)
                                        .arg(rp.metrics.throughput)));
                QVERIFY2(rm.metrics.scalingEfficiency > 0.9,
                         qPrintable(QStringLiteral("mirrored at %1: %2")
                                        .arg(n)
                                        .arg(rm.metrics.scalingEfficiency)));
            }
            // The parameter server's GPUs wait more as workers grow; mirrored's stay busy.
            QVERIFY(rp.metrics.deviceUsage <= lastPsUsage + 1e-9);
            lastPsUsage = rp.metrics.deviceUsage;
            if (firstMirroredUsage < 0)
                firstMirroredUsage = rm.metrics.deviceUsage;
            QVERIFY(std::abs(rm.metrics.deviceUsage - firstMirroredUsage) < 0.06);
        }
        QVERIFY2(lastPsUsage < 0.85, qPrintable(QString::number(lastPsUsage)));
    }

    void vgg19IsComputeBoundUnderEveryStrategy()
    {
        SimConfig m = config(QStringLiteral("vgg19"), Strategy::Mirrored, 8);
        SimConfig ps = config(QStringLiteral("vgg19"), Strategy::ParameterServer, 8);
        m.syntheticData = ps.syntheticData = true;
        const double ratio =
            double(run(ps).metrics.iterationNs) / double(run(m).metrics.iterationNs);
        QVERIFY2(std::abs(ratio - 1) < 0.05, qPrintable(QString::number(ratio)));
    }

    void contentionSlowsWhatSharesALink()
    {
        // Nine single-GPU nodes on 25 GbE: one parameter server takes every worker's push
        // through its one link (incast); spreading ResNet-50's many variables over eight shards
        // lets them go side by side. (AlexNet's would not: 62% of its weights are one variable,
        // and a shard holds whole variables.)
        SimConfig one = config(QStringLiteral("resnet50"), Strategy::ParameterServer, 8,
                               QStringLiteral("9x1-v100-25gbe"));
        SimConfig spread = one;
        spread.servers = 8;
        one.syntheticData = spread.syntheticData = true;
        QVERIFY(run(one).metrics.iterationNs > 2 * run(spread).metrics.iterationNs);
        // An oversubscribed core slows the all-reduce across nodes.
        SimConfig full = config(QStringLiteral("vgg16"), Strategy::MultiWorker, 48,
                                QStringLiteral("12x4-v100-edr"));
        SimConfig over = full;
        over.cluster.oversubscription = 4;
        QVERIFY(run(over).metrics.communicationNs > run(full).metrics.communicationNs);
    }

    void savedRunsAndTheCommandLine()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("sim.grademl"));
        Cli r = cli({QStringLiteral("simulate"), file, QStringLiteral("--model"),
                     QStringLiteral("resnet50"), QStringLiteral("--strategy"),
                     QStringLiteral("multiworker"), QStringLiteral("--cluster"),
                     QStringLiteral("12x4-v100-edr"), QStringLiteral("--sweep"),
                     QStringLiteral("workers=1,4,8"), QStringLiteral("--iterations"),
                     QStringLiteral("4"), QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonArray list = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(list.size(), 3);
        for (const auto &v : list) {
            const QJsonObject o = v.toObject();
            QVERIFY(o.value(QStringLiteral("run"))
                        .toString()
                        .startsWith(QLatin1String("sim resnet50")));
            QVERIFY(o.value(QStringLiteral("metrics"))
                        .toObject()
                        .value(QStringLiteral("iteration_ns"))
                        .toDouble() > 0);
        }
        QCOMPARE(list[0]
                     .toObject()
                     .value(QStringLiteral("config"))
                     .toObject()
                     .value(QStringLiteral("workers"))
                     .toInt(),
                 1);
        // The runs are in the project, as simulated runs with their headline metrics.
        r = cli({QStringLiteral("runs"), file, QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("\"simulated\""));
        {
            QString error;
            auto project = Project::open(file, Project::Mode::ReadOnly, &error);
            QVERIFY(project);
            QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM run WHERE kind = 'simulated'"),
                     qint64(3));
            QVERIFY(gmltest::scalar(*project, "SELECT count(*) FROM track WHERE unit = '%' AND "
                                              "name LIKE 'link utilisation%'") > 0);
            QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM run_metrics WHERE "
                                               "json_extract(metrics, '$.step_mean_ns') > 0"),
                     qint64(3));
            // Each worker's rows, one of each.
            QCOMPARE(gmltest::scalar(*project,
                                     "SELECT count(*) FROM track t JOIN run r ON r.id = t.run_id "
                                     "WHERE r.name LIKE 'sim resnet50 multiworker w8 %' AND t.name "
                                     "= 'network (transfers)'"),
                     qint64(8));
            QCOMPARE(gmltest::scalar(*project,
                                     "SELECT count(*) FROM track t JOIN run r ON r.id = t.run_id "
                                     "WHERE r.name LIKE 'sim resnet50 multiworker w8 %' AND t.name "
                                     "= 'storage reads'"),
                     qint64(8));
            // 8 workers x 4 iterations x (54 layers forward + backward + update) on compute
            // streams.
            QCOMPARE(gmltest::scalar(
                         *project,
                         "SELECT sum(t.slice_count) FROM track t JOIN run r ON r.id = t.run_id "
                         "WHERE r.name LIKE 'sim resnet50 multiworker w8 %' AND t.name = 'compute "
                         "stream'"),
                     qint64(8 * 4 * (54 * 2 + 1) + 8 * 4));
        }
        // Again: the run is replaced, not doubled; the table names it.
        r = cli({QStringLiteral("simulate"), file, QStringLiteral("--model"),
                 QStringLiteral("alexnet"), QStringLiteral("--strategy"), QStringLiteral("ps"),
                 QStringLiteral("--workers"), QStringLiteral("4"), QStringLiteral("--servers"),
                 QStringLiteral("2"), QStringLiteral("--name"), QStringLiteral("my ps")});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("saved as run 'my ps'"));
        QVERIFY(r.out.contains("alexnet ps, 4 workers, 2 servers (sync)"));
        r = cli({QStringLiteral("simulate"), file, QStringLiteral("--model"),
                 QStringLiteral("alexnet"), QStringLiteral("--strategy"), QStringLiteral("ps"),
                 QStringLiteral("--workers"), QStringLiteral("4"), QStringLiteral("--name"),
                 QStringLiteral("my ps")});
        QCOMPARE(r.code, 0);
        // Usage and configuration errors.
        r = cli(
            {QStringLiteral("simulate"), file, QStringLiteral("--strategy"), QStringLiteral("ps")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--model or --from-run"));
        r = cli({QStringLiteral("simulate"), file, QStringLiteral("--model"),
                 QStringLiteral("resnet50"), QStringLiteral("--strategy"),
                 QStringLiteral("mirrored"), QStringLiteral("--workers"), QStringLiteral("8")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("one node"), r.err.constData());
        r = cli({QStringLiteral("simulate"), file, QStringLiteral("--from-run"),
                 QStringLiteral("nope"), QStringLiteral("--no-save")});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("no run named 'nope'"));
        {
            QString error;
            auto project = Project::open(file, Project::Mode::ReadOnly, &error);
            QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM run WHERE kind = 'simulated'"),
                     qint64(4));
        }
    }

    void measuredRunsAsLayerGraphs_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("strategy");
        QTest::addColumn<int>("workers");
        QTest::addColumn<int>("batch");
        QTest::addColumn<double>("aim");
        // ResNet-50 on one V100 (tb_plugin's sample): the run it came from, on its own GPU.
        QTest::newRow("resnet50 v100")
            << QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100")
            << int(Strategy::Default) << 1 << 32 << 0.10;
        // DLRM on 8 V100 (one DGX-1): rank 0's graph, mirrored over the node's NVLink.
        QTest::newRow("dlrm 8 ranks") << QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100")
                                      << int(Strategy::Mirrored) << 8 << 1 << 0.15;
    }
    void measuredRunsAsLayerGraphs()
    {
        QFETCH(QString, folder);
        QFETCH(int, strategy);
        QFETCH(int, workers);
        QFETCH(int, batch);
        QFETCH(double, aim);
        if (!QFileInfo::exists(gmltest::sharedTraces() + QLatin1Char('/') + folder))
            QSKIP(qPrintable(
                QStringLiteral("%1 is not beside the project (../shared/traces)").arg(folder)));
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {gmltest::sharedTraces() + QLatin1Char('/') + folder},
                            QStringLiteral("measured"));
        QString error;
        const RunId measured = *project->findRun(QStringLiteral("measured"));
        auto model = layerGraphFromRun(*project, measured, &error);
        QVERIFY2(model, qPrintable(error));
        QCOMPARE(model->measuredBatch, batch);
        QCOMPARE(model->measuredDevice, QStringLiteral("V100"));
        QVERIFY(model->layers.size() >= 10);
        // The measured iterations and collectives, per rank.
        auto graph = DependencyGraph::build(*project, measured, &error);
        QVERIFY(graph);
        double stepSum = 0;
        int steps = 0;
        for (const int c : graph->iterations()) {
            stepSum +=
                double(graph->containers()[size_t(c)].end - graph->containers()[size_t(c)].start);
            ++steps;
        }
        const double measuredStep = stepSum / steps;
        double allReduce = 0, collectives = 0;
        const int allReduceOp = int(collectiveOperations().indexOf(QStringLiteral("AllReduce")));
        for (const Node &n : graph->nodes())
            if (n.kind == NodeKind::Collective) {
                collectives += double(n.end - n.start);
                if (n.collectiveOp == allReduceOp)
                    allReduce += double(n.end - n.start);
            }
        const double perRankStep =
            std::max<size_t>(1, graph->gpuDevices().size()) * double(steps) * 1e6;
        SimConfig c;
        c.model = *model;
        c.strategy = Strategy(strategy);
        c.workers = workers;
        c.syntheticData = true; // its input was loaded inside the measured step
        c.cluster = *SimCluster::load(QStringLiteral("dgx1"), &error);
        const SimResult r = run(c);
        const double err = double(r.metrics.iterationNs) / measuredStep - 1;
        qInfo("%s: simulated iteration %.3f ms, measured %.3f ms (%+.1f%%); all-reduce %.3f ms "
              "simulated, measured "
              "per rank and step %.3f ms (all collectives %.3f ms)",
              qPrintable(folder), double(r.metrics.iterationNs) / 1e6, measuredStep / 1e6,
              100 * err, double(r.metrics.communicationNs) / 1e6, allReduce / perRankStep,
              collectives / perRankStep);
        QVERIFY2(std::abs(err) < aim, qPrintable(QStringLiteral("%1% off").arg(100 * err)));
    }

    // A run of inference (Qwen 0.5B answering on an H100: no gradient all-reduced, no
    // optimizer) becomes a model without parameters: replicated over two workers it has
    // nothing to all-reduce, so each worker runs its own steps (it crashed: the step waited
    // for a barrier no bucket ever reached).
    void aModelWithoutParametersHasNoAllReduce()
    {
        const QString file = QStringLiteral("pytorch_kineto/tracelens_qwen05b_h100_vs_mi300/"
                                            "h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
        if (!QFileInfo::exists(gmltest::sharedTraces() + QLatin1Char('/') + file))
            QSKIP(qPrintable(
                QStringLiteral("%1 is not beside the project (../shared/traces)").arg(file)));
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {gmltest::sharedTraces() + QLatin1Char('/') + file},
                            QStringLiteral("inference"));
        QString error;
        auto model =
            layerGraphFromRun(*project, *project->findRun(QStringLiteral("inference")), &error);
        QVERIFY2(model, qPrintable(error));
        QCOMPARE(model->params(), qint64(0));
        for (const Strategy strategy : {Strategy::Mirrored, Strategy::MultiWorker}) {
            SimConfig c;
            c.model = *model;
            c.strategy = strategy;
            c.workers = 2;
            c.syntheticData = true;
            c.cluster = *SimCluster::load(QStringLiteral("dgx1"), &error);
            const SimResult one = run([&] {
                SimConfig single = c;
                single.workers = 1;
                return single;
            }());
            const SimResult r = run(c);
            QVERIFY(r.metrics.iterationNs > 0);
            QCOMPARE(r.metrics.communicationNs, TimeNs(0));
            QCOMPARE(r.metrics.iterationNs, one.metrics.iterationNs);
        }
    }
};

QTEST_GUILESS_MAIN(TestStrategySim)
#include "tst_strategysim.moc"
