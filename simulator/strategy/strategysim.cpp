// SPDX-License-Identifier: GPL-3.0-or-later
// The strategy simulator: checks a configuration, builds its job graph (strategybuild.cpp),
// replays it with shared-link flows, and measures the replay as the thesis defines.
#include "strategyinternal.h"

#include "timeformat.h"
#include "tracewriter.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace gml::sim {

using namespace detail;

QString strategyName(Strategy s)
{
    switch (s) {
    case Strategy::Default:
        return QStringLiteral("default");
    case Strategy::ParameterServer:
        return QStringLiteral("ps");
    case Strategy::Mirrored:
        return QStringLiteral("mirrored");
    case Strategy::MultiWorker:
        return QStringLiteral("multiworker");
    }
    return {};
}

std::optional<Strategy> parseStrategy(const QString &name)
{
    const QString n = name.toLower().remove(QLatin1Char('-')).remove(QLatin1Char('_'));
    if (n == QLatin1String("default") || n == QLatin1String("single"))
        return Strategy::Default;
    if (n == QLatin1String("ps") || n == QLatin1String("parameterserver"))
        return Strategy::ParameterServer;
    if (n == QLatin1String("mirrored"))
        return Strategy::Mirrored;
    if (n == QLatin1String("multiworker") || n == QLatin1String("multiworkermirrored"))
        return Strategy::MultiWorker;
    return std::nullopt;
}

int SimConfig::batchOf(int worker) const
{
    if (globalBatch > 0)
        return globalBatch / workers + (worker < globalBatch % workers ? 1 : 0);
    return batch > 0 ? batch : model.defaultBatch;
}

int SimConfig::samplesPerIteration() const
{
    return globalBatch > 0 ? globalBatch : workers * (batch > 0 ? batch : model.defaultBatch);
}

QString SimConfig::describe() const
{
    auto plural = [](int k) { return k == 1 ? QString() : QStringLiteral("s"); };
    QString s = QStringLiteral("%1 %2, %3 worker%4")
                    .arg(model.id, strategyName(strategy))
                    .arg(workers)
                    .arg(plural(workers));
    if (strategy == Strategy::ParameterServer)
        s += QStringLiteral(", %1 server%2 (%3)")
                 .arg(servers)
                 .arg(plural(servers),
                      asyncUpdates ? QStringLiteral("async") : QStringLiteral("sync"));
    if (strategy == Strategy::MultiWorker)
        s += QStringLiteral(", %1 all-reduce").arg(allReduce);
    s += globalBatch > 0 ? QStringLiteral(", global batch %1").arg(globalBatch)
                         : QStringLiteral(", batch %1").arg(batchOf(0));
    if (syntheticData)
        s += QStringLiteral(", synthetic data");
    s += QStringLiteral(" on %1").arg(cluster.id);
    return s;
}

QJsonObject SimConfig::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("model"), model.id);
    if (!model.measuredRun.isEmpty()) {
        o.insert(QStringLiteral("from_run"), model.measuredRun);
        o.insert(QStringLiteral("model_reference"), model.reference);
    }
    o.insert(QStringLiteral("strategy"), strategyName(strategy));
    o.insert(QStringLiteral("workers"), workers);
    if (strategy == Strategy::ParameterServer) {
        o.insert(QStringLiteral("servers"), servers);
        o.insert(QStringLiteral("updates"),
                 asyncUpdates ? QStringLiteral("async") : QStringLiteral("sync"));
    }
    if (strategy == Strategy::MultiWorker) {
        o.insert(QStringLiteral("allreduce"), allReduce);
        o.insert(QStringLiteral("bucket_mb"), bucketMB);
    }
    o.insert(QStringLiteral("batch"), batchOf(0));
    if (globalBatch > 0)
        o.insert(QStringLiteral("global_batch"), globalBatch);
    o.insert(QStringLiteral("scheduling"),
             criticalPathFirst ? QStringLiteral("critical-path") : QStringLiteral("dfs"));
    o.insert(QStringLiteral("iterations"), iterations);
    if (syntheticData)
        o.insert(QStringLiteral("synthetic_data"), true);
    o.insert(QStringLiteral("cluster"), cluster.toJson());
    o.insert(QStringLiteral("compute_efficiency"), computeEfficiency);
    o.insert(QStringLiteral("memory_efficiency"), memoryEfficiency);
    return o;
}

QJsonObject SimMetrics::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("execution_ns"), qint64(executionNs));
    o.insert(QStringLiteral("iteration_ns"), qint64(iterationNs));
    o.insert(QStringLiteral("computation_ns"), qint64(computationNs));
    o.insert(QStringLiteral("communication_ns"), qint64(communicationNs));
    o.insert(QStringLiteral("memory_ns"), qint64(memoryNs));
    o.insert(QStringLiteral("device_usage"), deviceUsage);
    o.insert(QStringLiteral("throughput_samples_per_s"), throughput);
    o.insert(QStringLiteral("epoch_ns"), qint64(epochNs));
    o.insert(QStringLiteral("energy_j"), energyJ);
    o.insert(QStringLiteral("energy_per_iteration_j"), energyPerIterationJ);
    o.insert(QStringLiteral("speedup"), speedup);
    o.insert(QStringLiteral("scaling_efficiency"), scalingEfficiency);
    o.insert(QStringLiteral("normalized_execution_time"), normalizedExecution);
    o.insert(QStringLiteral("compute_flops"), computeTotalFlops);
    QJsonArray times;
    for (TimeNs t : iterationTimes)
        times.append(qint64(t));
    o.insert(QStringLiteral("iteration_times_ns"), times);
    return o;
}

double PowerTrack::energyJ() const
{
    double joules = 0;
    for (size_t i = 0; i + 1 < samples.size(); ++i)
        joules += samples[i].second * double(samples[i + 1].first - samples[i].first) * 1e-9;
    return joules;
}

namespace {

bool checkConfig(const SimConfig &c, QString *error)
{
    auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    const SimCluster &cl = c.cluster;
    if (c.model.layers.empty())
        return fail(QStringLiteral("the model '%1' has no layers").arg(c.model.id));
    if (c.workers < 1)
        return fail(QStringLiteral("workers must be 1 or more (got %1)").arg(c.workers));
    if (c.iterations < 1 || c.iterations > 100000)
        return fail(
            QStringLiteral("iterations must be between 1 and 100,000 (got %1)").arg(c.iterations));
    if (c.globalBatch > 0 && c.globalBatch < c.workers)
        return fail(QStringLiteral("a global batch of %1 cannot be split over %2 workers")
                        .arg(c.globalBatch)
                        .arg(c.workers));
    if (c.globalBatch <= 0 && c.batch < 0)
        return fail(QStringLiteral("the batch size must be 1 or more (got %1)").arg(c.batch));
    if (c.strategy == Strategy::Default && c.workers != 1)
        return fail(QStringLiteral("the default strategy runs on one device (asked for %1 workers)")
                        .arg(c.workers));
    if (c.workers > cl.gpus())
        return fail(QStringLiteral("the cluster '%1' has %2 GPUs (%3 nodes x %4); %5 workers asked")
                        .arg(cl.id)
                        .arg(cl.gpus())
                        .arg(cl.nodes)
                        .arg(cl.gpusPerNode)
                        .arg(c.workers));
    if (c.strategy == Strategy::Mirrored && c.workers > cl.gpusPerNode)
        return fail(QStringLiteral("the mirrored strategy runs on the GPUs of one node (%1 on "
                                   "'%2'); use multiworker for %3 workers")
                        .arg(cl.gpusPerNode)
                        .arg(cl.id)
                        .arg(c.workers));
    if (c.strategy == Strategy::ParameterServer && (c.servers < 1 || c.servers > 4096))
        return fail(QStringLiteral("a parameter server job needs 1 to 4,096 servers (got %1)")
                        .arg(c.servers));
    if (c.strategy == Strategy::MultiWorker && c.allReduce != QLatin1String("ring") &&
        c.allReduce != QLatin1String("tree"))
        return fail(QStringLiteral("the all-reduce is ring or tree (got '%1')").arg(c.allReduce));
    if (c.bucketMB <= 0)
        return fail(QStringLiteral("the gradient bucket must be above 0 MB"));
    if (!(c.computeEfficiency > 0 && c.computeEfficiency <= 1) ||
        !(c.memoryEfficiency > 0 && c.memoryEfficiency <= 1))
        return fail(
            QStringLiteral("efficiencies are fractions of the peak, above 0 and at most 1"));
    if (cl.gpu.id.isEmpty() || !(cl.gpu.fp32Tflops > 0) || !(cl.gpu.memBwGBps > 0))
        return fail(QStringLiteral(
            "the cluster's GPU is missing from the device catalog or has no peak rates"));
    // Every link a transfer may cross must move bytes.
    const bool network = cl.nodes > 1 || c.strategy == Strategy::ParameterServer;
    const struct
    {
        const Link *link;
        bool used;
        const char *what;
    } links[] = {{&cl.intraLink, cl.gpusPerNode > 1, "intra-node link"},
                 {&cl.hostLink, true, "host link"},
                 {&cl.network, network, "network"}};
    for (const auto &l : links)
        if (l.used && !(l.link->bwGBps > 0))
            return fail(
                QStringLiteral("the %1 '%2' has zero bandwidth: no transfer over it would finish")
                    .arg(QLatin1String(l.what), l.link->id));
    if (!(cl.storage.readGBps > 0))
        return fail(
            QStringLiteral("the storage '%1' has zero read bandwidth: no batch would arrive")
                .arg(cl.storage.id));
    if (c.strategy == Strategy::ParameterServer && !(cl.cpu.memBwGBps > 0))
        return fail(
            QStringLiteral("the CPU '%1' has no memory bandwidth for parameter server updates")
                .arg(cl.cpu.id));
    // Memory: weights, gradients and optimizer state, plus the activations of a batch.
    const double params = double(c.model.params());
    const double need = params * (8 + c.model.stateBytesPerParam()) +
                        double(c.batchOf(0)) * c.model.activationBytes();
    if (cl.gpu.memGB > 0 && need > cl.gpu.memGB * 1e9)
        return fail(QStringLiteral("%1 at batch %2 needs %3 GB per GPU (weights, gradients, "
                                   "optimizer state, activations); "
                                   "the %4 has %5 GB")
                        .arg(c.model.name)
                        .arg(c.batchOf(0))
                        .arg(need / 1e9, 0, 'f', 1)
                        .arg(cl.gpu.id)
                        .arg(cl.gpu.memGB));
    return true;
}

// The length of the union of [start, end) intervals.
TimeNs unionLength(std::vector<std::pair<TimeNs, TimeNs>> &v)
{
    std::sort(v.begin(), v.end());
    TimeNs total = 0, from = 0, to = 0;
    bool open = false;
    for (const auto &[s, e] : v) {
        if (!open || s > to) {
            if (open)
                total += to - from;
            from = s;
            to = e;
            open = true;
        } else {
            to = std::max(to, e);
        }
    }
    if (open)
        total += to - from;
    return total;
}

// Power as a step function over `bins` equal intervals of [from, to): idle + (max - idle) x the
// busy fraction of each. `busy(a, b)` says how long the device was busy within [a, b).
template <typename Busy>
std::vector<std::pair<TimeNs, double>> powerSamples(TimeNs from, TimeNs to, double idleW,
                                                    double maxW, Busy &&busy)
{
    std::vector<std::pair<TimeNs, double>> out;
    const TimeNs span = std::max<TimeNs>(1, to - from);
    const int bins = int(std::clamp<TimeNs>(span / 1'000'000, 1, 400));
    const TimeNs width = (span + bins - 1) / bins;
    for (int i = 0; i < bins; ++i) {
        const TimeNs a = from + TimeNs(i) * width;
        const TimeNs b = std::min(to, a + width);
        if (b <= a)
            break;
        const double u = std::clamp(double(busy(a, b)) / double(b - a), 0.0, 1.0);
        out.emplace_back(a, idleW + (maxW - idleW) * u);
    }
    out.emplace_back(to, out.empty() ? idleW : out.back().second);
    return out;
}

void measure(SimResult &r)
{
    const SimConfig &c = r.config;
    const DependencyGraph &g = *r.graph;
    const Replay &rp = r.replay;
    SimMetrics &m = r.metrics;
    const int n = c.workers;
    m.executionNs = rp.finish - rp.origin;
    const auto spans = iterationSpans(r);
    m.iterationTimes.assign(size_t(c.iterations), 0);
    for (int it = 0; it < c.iterations; ++it) {
        double sum = 0;
        for (int w = 0; w < n; ++w)
            sum += double(spans[size_t(w)][size_t(it)].second - spans[size_t(w)][size_t(it)].first);
        m.iterationTimes[size_t(it)] = TimeNs(std::llround(sum / n));
    }
    // Steady state: the first iteration also fills the input pipeline.
    const int skip = c.iterations > 2 ? 1 : 0;
    double steady = 0;
    for (int it = skip; it < c.iterations; ++it)
        steady += double(m.iterationTimes[size_t(it)]);
    m.iterationNs = TimeNs(std::llround(steady / (c.iterations - skip)));
    // Per worker: computation (its GPU's passes and updates), communication (its transfers in
    // flight) and memory (input read and copy) time.
    std::vector<std::vector<std::pair<TimeNs, TimeNs>>> comm(static_cast<size_t>(n)),
        memory(static_cast<size_t>(n));
    std::vector<TimeNs> compute(static_cast<size_t>(n), 0);
    std::vector<std::vector<std::pair<TimeNs, TimeNs>>> busyOf(static_cast<size_t>(n));
    for (size_t res = 0; res < g.resources().size(); ++res) {
        const auto &info = r.resources[res];
        if (info.worker < 0)
            continue;
        for (int i : g.resources()[res].nodes) {
            const TimeNs s = rp.start[size_t(i)], e = rp.end[size_t(i)];
            if (info.role == SimResult::Role::Compute) {
                compute[size_t(info.worker)] += e - s;
                busyOf[size_t(info.worker)].emplace_back(s, e);
            } else if (info.role == SimResult::Role::Network) {
                const int done = r.collectiveDone[size_t(i)];
                comm[size_t(info.worker)].emplace_back(
                    s, done >= 0 ? std::max(e, rp.end[size_t(done)]) : e);
            } else if (info.role == SimResult::Role::Reader || info.role == SimResult::Role::Copy) {
                memory[size_t(info.worker)].emplace_back(s, e);
            }
        }
    }
    double computeSum = 0, commSum = 0, memSum = 0;
    for (int w = 0; w < n; ++w) {
        computeSum += double(compute[size_t(w)]);
        commSum += double(unionLength(comm[size_t(w)]));
        memSum += double(unionLength(memory[size_t(w)]));
    }
    const double perIteration = double(n) * c.iterations;
    m.computationNs = TimeNs(std::llround(computeSum / perIteration));
    m.communicationNs = TimeNs(std::llround(commSum / perIteration));
    m.memoryNs = TimeNs(std::llround(memSum / perIteration));
    m.deviceUsage = m.executionNs > 0 ? computeSum / n / double(m.executionNs) : 0;
    m.throughput = m.iterationNs > 0 ? c.samplesPerIteration() * 1e9 / double(m.iterationNs) : 0;
    const qint64 iterationsPerEpoch =
        (std::max<qint64>(1, c.model.epochSamples) + c.samplesPerIteration() - 1) /
        c.samplesPerIteration();
    m.epochNs = iterationsPerEpoch * m.iterationNs;
    for (int w = 0; w < n; ++w)
        m.computeTotalFlops += 3.0 * c.model.flops() * c.batchOf(w) * c.iterations;
    // Power: each worker's GPU by its busy time, each parameter server's CPU by the load on its
    // memory (what its updates use of it).
    r.power.clear();
    const TimeNs from = rp.origin, to = rp.finish;
    for (int w = 0; w < n; ++w) {
        auto &busy = busyOf[size_t(w)]; // disjoint: one stream
        std::sort(busy.begin(), busy.end());
        PowerTrack p;
        p.device = QStringLiteral("worker %1 GPU (%2)").arg(w).arg(c.cluster.gpu.id);
        p.node = w / c.cluster.gpusPerNode;
        p.idleW = c.cluster.gpu.idleW;
        p.maxW = c.cluster.gpu.maxW;
        size_t first = 0;
        p.samples = powerSamples(from, to, p.idleW, p.maxW, [&](TimeNs a, TimeNs b) {
            while (first < busy.size() && busy[first].second <= a)
                ++first;
            TimeNs sum = 0;
            for (size_t k = first; k < busy.size() && busy[k].first < b; ++k)
                sum += std::min(b, busy[k].second) - std::max(a, busy[k].first);
            return sum;
        });
        r.power.push_back(std::move(p));
    }
    if (c.strategy == Strategy::ParameterServer) {
        for (size_t s = 0; s < r.serverMemory.size(); ++s) {
            const size_t l = size_t(r.serverMemory[s].first);
            const FlowLink &link = r.flows->links[l];
            const auto &samples = rp.linkLoads[l].samples;
            PowerTrack p;
            p.device = QStringLiteral("parameter server %1 CPU (%2)").arg(s).arg(c.cluster.cpu.id);
            p.node = r.serverMemory[s].second;
            p.gpu = false;
            p.idleW = c.cluster.cpu.idleW;
            p.maxW = c.cluster.cpu.maxW;
            const double capacity = link.bytesPerNs;
            // The load is a step function; its mean over each [a, b) as busy time. The bins
            // come in order, so one cursor walks the samples once.
            size_t next = 0;
            double load = 0;
            p.samples = powerSamples(from, to, p.idleW, p.maxW, [&](TimeNs a, TimeNs b) {
                double busy = 0;
                TimeNs at = a;
                for (; next < samples.size() && samples[next].first < b; ++next) {
                    if (samples[next].first > at) {
                        busy += load * double(samples[next].first - at);
                        at = samples[next].first;
                    }
                    load = samples[next].second;
                }
                busy += load * double(b - at);
                return TimeNs(busy / capacity);
            });
            r.power.push_back(std::move(p));
        }
    }
    for (const PowerTrack &p : r.power)
        m.energyJ += p.energyJ();
    m.energyPerIterationJ = m.energyJ / c.iterations;
}

} // namespace

namespace detail {

std::vector<std::vector<std::pair<TimeNs, TimeNs>>> iterationSpans(const SimResult &r)
{
    const SimConfig &c = r.config;
    const DependencyGraph &g = *r.graph;
    const int n = c.workers;
    std::vector<std::vector<TimeNs>> start(static_cast<size_t>(n),
                                           std::vector<TimeNs>(size_t(c.iterations), -1));
    std::vector<TimeNs> last(static_cast<size_t>(n), r.replay.origin);
    for (size_t res = 0; res < g.resources().size(); ++res) {
        const auto &info = r.resources[res];
        if (info.worker < 0)
            continue;
        for (int i : g.resources()[res].nodes) {
            const int it = r.iterationOfNode[size_t(i)];
            last[size_t(info.worker)] =
                std::max(last[size_t(info.worker)], r.replay.end[size_t(i)]);
            if (info.role != SimResult::Role::Compute || it < 0)
                continue;
            TimeNs &s = start[size_t(info.worker)][size_t(it)];
            if (s < 0 || r.replay.start[size_t(i)] < s)
                s = r.replay.start[size_t(i)];
        }
    }
    std::vector<std::vector<std::pair<TimeNs, TimeNs>>> out(static_cast<size_t>(n));
    for (int w = 0; w < n; ++w)
        for (int it = 0; it < c.iterations; ++it) {
            const TimeNs s = start[size_t(w)][size_t(it)];
            const TimeNs e =
                it + 1 < c.iterations ? start[size_t(w)][size_t(it) + 1] : last[size_t(w)];
            out[size_t(w)].emplace_back(s, std::max(s, e));
        }
    return out;
}

} // namespace detail

std::optional<SimResult> simulate(const SimConfig &config, QString *error)
{
    if (!checkConfig(config, error))
        return std::nullopt;
    SimResult r;
    r.config = config;
    buildJob(config, r);
    if (r.graph->hasCycle()) {
        if (error)
            *error = QStringLiteral(
                "the job graph waits on itself (a simulator bug: please report the configuration)");
        return std::nullopt;
    }
    ReplayInput input;
    input.work.reserve(r.graph->nodes().size());
    input.slack.assign(r.graph->nodes().size(), 0);
    for (const Node &node : r.graph->nodes())
        input.work.push_back(node.work);
    input.flows = r.flows;
    if (config.criticalPathFirst) {
        // Each compute node's priority: its layer pass's longest path of work to the end of its
        // iteration (bottom level, over dependencies, not resource order), ranked; the same for
        // every worker and iteration.
        input.priority.assign(r.graph->nodes().size(), 0);
        const DependencyGraph &g = *r.graph;
        const auto &order = g.order();
        std::vector<TimeNs> bottomOf(g.points(), 0);
        for (auto p = order.rbegin(); p != order.rend(); ++p) {
            if (g.isJoin(*p)) { // a join passes its arrivals on (the job graph has none today)
                for (const auto &in : g.inputs(*p))
                    bottomOf[size_t(in.from)] =
                        std::max(bottomOf[size_t(in.from)], bottomOf[size_t(*p)]);
                continue;
            }
            const size_t i = size_t(*p / 2);
            if (*p % 2 == 0)
                bottomOf[size_t(*p)] =
                    std::max(bottomOf[size_t(*p)], input.work[i] + bottomOf[size_t(*p) + 1]);
            const auto ins = g.inputs(*p);
            const Resource &res = g.resources()[size_t(g.nodes()[i].resource)];
            const size_t skipChain =
                (*p % 2 == 0 && !res.concurrent && g.position(int(i)) > 0) ? 1 : 0;
            for (size_t k = skipChain; k < ins.size(); ++k) {
                const size_t from = size_t(ins[k].from);
                if (g.isJoin(int(from)) || r.iterationOfNode[from / 2] == r.iterationOfNode[i])
                    bottomOf[from] = std::max(bottomOf[from], bottomOf[size_t(*p)]);
            }
        }
        std::vector<std::pair<TimeNs, int>> ranked;
        for (size_t res = 0; res < r.resources.size(); ++res)
            if (r.resources[res].role == SimResult::Role::Compute && r.resources[res].worker == 0)
                for (int i : r.graph->resources()[res].nodes)
                    if (r.iterationOfNode[size_t(i)] == 0)
                        ranked.emplace_back(bottomOf[2 * size_t(i)],
                                            int(r.graph->nodes()[size_t(i)].name));
        std::sort(ranked.begin(), ranked.end());
        QHash<int, int> rankOfName;
        for (size_t k = 0; k < ranked.size(); ++k)
            rankOfName.insert(ranked[k].second, int(k) + 1);
        for (size_t res = 0; res < r.resources.size(); ++res)
            if (r.resources[res].role == SimResult::Role::Compute)
                for (int i : r.graph->resources()[res].nodes)
                    input.priority[size_t(i)] =
                        rankOfName.value(int(r.graph->nodes()[size_t(i)].name), 0);
    }
    r.replay = replay(*r.graph, input);
    // The replay saturates its times at the project's limit: a job that gets there (a link of
    // almost no bandwidth under a million workers) is refused, never saved with times that mean
    // nothing.
    if (r.replay.finish >= kMaxAbsTimeNs) {
        if (error)
            *error =
                QStringLiteral(
                    "the simulated job would run past the %1 days a project's times can hold: the "
                    "cluster's bandwidths or latencies are too far from any real one")
                    .arg(double(kMaxAbsTimeNs) / 86'400e9, 0, 'f', 0);
        return std::nullopt;
    }
    if (r.replay.rescheduleDeadlocked)
        r.warnings << QStringLiteral(
            "the critical-path-first order waited on itself; the depth-first order was simulated");
    measure(r);
    return r;
}

} // namespace gml::sim
