// SPDX-License-Identifier: GPL-3.0-or-later
// bench_simulate: what it measures, its options and what it prints are kUsage below (--help).
#include "benchutil.h"
#include "strategy.h"
#include "strategyinternal.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

using namespace gml;
using namespace gml::sim;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

// What --help prints.
constexpr const char *kUsage =
    "bench_simulate: how fast the strategy simulator runs (issue 18: ResNet-50 on 1,024 workers "
    "for\n"
    "10 iterations in under 5 s on one core; a sweep of 8 configurations in parallel).\n"
    "\n"
    "  bench_simulate [--workers N] [--iterations K] [--repeat R]\n"
    "\n"
    "On a cluster of N/4 nodes with 4 V100 each (NVLink 2, EDR InfiniBand, Lustre), ResNet-50 "
    "with\n"
    "multi-worker ring all-reduce, as medians over R repeats:\n"
    "  simulate   build the job graph, replay it with max-min fair flows, measure it (one "
    "thread);\n"
    "  build      of which building the graph;\n"
    "  replay     of which the event-driven replay with flows;\n"
    "  baseline   the same graph replayed by the in-order (Daydream) replay with every flow's\n"
    "             time fixed at its simulated length: the floor of any replay of that graph;\n"
    "then a sweep of 8 configurations (workers 8..1,024) run one after the other and in parallel\n"
    "(runSweep: a thread pool, baselines cached).\n";

int main(int argc, char **argv)
{
    if (gmlbench::helpAsked(argc, argv, kUsage))
        return 0;
    QCoreApplication app(argc, argv);
    int workers = 1024, iterations = 10, repeat = 3;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--workers"))
            workers = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--iterations"))
            iterations = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--repeat"))
            repeat = args[i + 1].toInt();
    }
    QString error;
    SimConfig c;
    c.model = *builtinModel(QStringLiteral("resnet50"), &error);
    c.strategy = Strategy::MultiWorker;
    c.workers = workers;
    c.iterations = iterations;
    c.cluster =
        *SimCluster::fromJson(QJsonObject{{QStringLiteral("nodes"), (workers + 3) / 4},
                                          {QStringLiteral("gpu"), QStringLiteral("V100")},
                                          {QStringLiteral("gpus_per_node"), 4},
                                          {QStringLiteral("intra_link"), QStringLiteral("nvlink2")},
                                          {QStringLiteral("network"), QStringLiteral("ib-edr")},
                                          {QStringLiteral("storage"), QStringLiteral("lustre")},
                                          {QStringLiteral("storage_gbps"), 200.0}},
                              QStringLiteral("bench"), &error);
    c.cluster.id = QStringLiteral("bench");
    std::vector<double> total, build, replayed, baseline;
    size_t nodes = 0, flows = 0, edges = 0;
    TimeNs iteration = 0;
    for (int r = 0; r < repeat; ++r) {
        QElapsedTimer t;
        t.start();
        auto result = simulate(c, &error);
        if (!result) {
            std::fprintf(stderr, "bench_simulate: %s\n", qPrintable(error));
            return 1;
        }
        total.push_back(double(t.nsecsElapsed()) / 1e6);
        nodes = result->graph->nodes().size();
        edges = result->graph->edges().size();
        flows = result->flows->flows.size();
        iteration = result->metrics.iterationNs;
        // The parts: building and replaying again, timed alone.
        t.restart();
        SimResult again;
        again.config = c;
        detail::buildJob(c, again);
        build.push_back(double(t.nsecsElapsed()) / 1e6);
        ReplayInput input;
        input.work.reserve(nodes);
        for (const Node &n : again.graph->nodes())
            input.work.push_back(n.work);
        input.slack.assign(nodes, 0);
        input.flows = again.flows;
        t.restart();
        const Replay rp = replay(*again.graph, input);
        replayed.push_back(double(t.nsecsElapsed()) / 1e6);
        // Baseline: every flow's time fixed at what it took, replayed in order.
        ReplayInput fixed = input;
        fixed.flows.reset();
        for (size_t i = 0; i < nodes; ++i)
            if (again.flows->flowOfNode[i] >= 0)
                fixed.work[i] = rp.end[i] - rp.start[i];
        t.restart();
        const Replay plain = replay(*again.graph, fixed);
        baseline.push_back(double(t.nsecsElapsed()) / 1e6);
        if (plain.finish < rp.finish * 0.99 || plain.finish > rp.finish * 1.01)
            std::fprintf(
                stderr, "note: the fixed-time replay ends at %lld ns, the flow replay at %lld ns\n",
                (long long)plain.finish, (long long)rp.finish);
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    std::printf("ResNet-50, %d workers (multi-worker ring), %d iterations: %zu nodes, %zu edges, "
                "%zu flows; "
                "simulated iteration %.3f ms\n",
                workers, iterations, nodes, edges, flows, double(iteration) / 1e6);
    std::printf("simulate  %9.1f ms (median of %d)\n", median(total), repeat);
    std::printf("  build   %9.1f ms\n", median(build));
    std::printf("  replay  %9.1f ms  (%.2fx the baseline)\n", median(replayed),
                median(replayed) / median(baseline));
    std::printf("baseline  %9.1f ms  in-order replay of the same graph, flow times fixed\n",
                median(baseline));
    std::printf("peak RSS  %9.1f MB\n", double(usage.ru_maxrss) / 1024);
    // A sweep of 8 configurations: one after the other, then in parallel.
    SimConfig base = c;
    base.workers = 1;
    base.iterations = iterations;
    const QList<SimConfig> configs = sweepConfigs(base, {8, 16, 32, 64, 128, 256, 512, 1024}, {});
    QElapsedTimer t;
    t.start();
    for (const SimConfig &one : configs)
        simulateWithBaselines(one, nullptr, &error);
    const double sequential = double(t.nsecsElapsed()) / 1e6;
    t.restart();
    const SweepOutcome outcome = runSweep(configs);
    const double parallel = double(t.nsecsElapsed()) / 1e6;
    std::printf("sweep of 8 (workers 8..1,024): one after the other %.1f ms, in parallel on %d "
                "threads %.1f ms (%.2fx); %lld results\n",
                sequential, QThread::idealThreadCount(), parallel, sequential / parallel,
                (long long)outcome.results.size());
    return 0;
}
