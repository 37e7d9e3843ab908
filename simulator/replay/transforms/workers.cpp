// SPDX-License-Identifier: GPL-3.0-or-later
// workers: N-way data parallel. A run with collectives has them rescaled to N ranks
// (collectiveCost, in the network change); one without gets an all-reduce per gradient bucket
// after the backward kernel that completes it, over the measured network link (as DDP does,
// `bucket_mb` per bucket), and the first kernel after backward waits for the last.
#include "transformkind.h"

#include "clockalignment.h"
#include "devicecatalog.h"
#include "jsonfields.h"
#include "timeformat.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace gml::sim::detail {

namespace {

const QString kBackwardPattern = QStringLiteral("(?i)backward|evaluate_function");

double bytesPerParameter(const QString &optimizer)
{
    // Memory traffic of one update per fp32 parameter: Adam reads p, g, m, v and writes p, m, v;
    // SGD with momentum, Adagrad and RMSprop read p, g, one state and write p and it.
    if (optimizer.contains(QLatin1String("adam"), Qt::CaseInsensitive) ||
        optimizer.contains(QLatin1String("lamb"), Qt::CaseInsensitive))
        return 28;
    return 20;
}

Selector withinSelector(const QString &pattern)
{
    Selector s;
    s.within = pattern;
    return s;
}

using Window = std::pair<TimeNs, TimeNs>;
using RankKey = std::pair<SourceId, int>;

// The compute stream of each (source, rank): the GPU resource with the most kernel work.
std::map<RankKey, int> computeStreams(const DependencyGraph &g)
{
    std::map<RankKey, std::pair<int, TimeNs>> best;
    std::vector<TimeNs> busy(g.resources().size(), 0);
    for (const auto &node : g.nodes())
        if (node.kind == NodeKind::Kernel)
            busy[size_t(node.resource)] += node.end - node.start;
    for (size_t r = 0; r < g.resources().size(); ++r) {
        const Resource &res = g.resources()[r];
        if (!res.gpu || !busy[r])
            continue;
        auto &b = best[{res.source, res.rank}];
        if (busy[r] > b.second)
            b = {int(r), busy[r]};
    }
    std::map<RankKey, int> out;
    for (const auto &[key, b] : best)
        out[key] = b.first;
    return out;
}

// One rank's iterations: its ProfilerStep#N; else from one optimizer step to the next; else the
// whole run. With its optimizer steps and the optimizer's name (Adam, SGD).
struct RankSteps
{
    std::vector<Window> windows;
    std::vector<Window> optimizerSteps;
    QString optimizer;
};

RankSteps rankSteps(const DependencyGraph &g, const RankKey &key)
{
    static const QRegularExpression optName(QStringLiteral("^Optimizer\\.step#(\\w+)"));
    RankSteps r;
    for (const auto &c : g.containers()) {
        const Resource &res = g.resources()[size_t(c.resource)];
        if (res.source != key.first || res.rank != key.second)
            continue;
        const QString name = g.name(c.name);
        if (isProfilerStep(name))
            r.windows.emplace_back(c.start, c.end);
        if (const auto m = optName.match(name); m.hasMatch()) {
            r.optimizer = m.captured(1);
            r.optimizerSteps.emplace_back(c.start, c.end);
        }
    }
    std::sort(r.windows.begin(), r.windows.end());
    std::sort(r.optimizerSteps.begin(), r.optimizerSteps.end());
    if (r.windows.empty()) {
        TimeNs from = std::numeric_limits<TimeNs>::min();
        for (const auto &o : r.optimizerSteps) {
            r.windows.emplace_back(from, o.second);
            from = o.second;
        }
    }
    if (r.windows.empty())
        r.windows.emplace_back(std::numeric_limits<TimeNs>::min(),
                               std::numeric_limits<TimeNs>::max());
    return r;
}

// The gradients' size per step: given, or from the optimizer's memory traffic at kAchieved of
// the GPU's peak bandwidth. Nullopt with *error when it cannot be estimated.
std::optional<double> gradientBytes(StructureStep &step, const Transform &t,
                                    const std::vector<int> &order, const NodeSelection &optimizer,
                                    const RankSteps &steps, QString *error)
{
    if (t.gradMB > 0)
        return t.gradMB * 1e6;
    const DependencyGraph &g = *step.s.graph;
    TimeNs optTime = 0;
    for (int k : order)
        if (optimizer[size_t(k)])
            optTime += g.nodes()[size_t(k)].work;
    const int stepsWithOpt = optTime > 0 ? int(steps.optimizerSteps.size()) : 0;
    const Device *dev = measuredDevice(step.context, step.cat, error);
    if (!stepsWithOpt || !dev) {
        *error = QStringLiteral("cannot estimate the gradient size (%1); give it with --grad-mb")
                     .arg(stepsWithOpt ? *error
                                       : QStringLiteral("no Optimizer.step kernels in the trace"));
        return std::nullopt;
    }
    const double perParam = bytesPerParameter(steps.optimizer);
    const double bytes =
        double(optTime) / stepsWithOpt * 1e-9 * dev->memBwGBps * 1e9 * kAchieved / perParam * 4;
    step.s.notes << QStringLiteral("gradients %1 MB per step, estimated from %2 of %3 kernels "
                                   "per step at 70% of "
                                   "%4 GB/s (%5 bytes of traffic per fp32 parameter)")
                        .arg(bytes / 1e6, 0, 'f', 1)
                        .arg(formatDuration(optTime / stepsWithOpt),
                             steps.optimizer.isEmpty() ? QStringLiteral("optimizer")
                                                       : steps.optimizer)
                        .arg(dev->memBwGBps)
                        .arg(perParam);
    return bytes;
}

// What one bucket's all-reduce is: its node's name, operation, size and time, on `resource`.
struct Bucket
{
    Node node;
    int count = 1;
};

// Inserts, in each window, a bucket's all-reduce after the backward kernel that completes it
// (by the kernels' cumulative work) on the communication resource of the bucket's node; the
// first kernel after backward waits for the last. The number inserted.
int insertBuckets(DependencyGraph &g, const std::vector<int> &order, const NodeSelection &backward,
                  const std::vector<Window> &windows, const Bucket &bucket)
{
    auto launchedIn = [&](int node, const Window &w) {
        const Node &x = g.nodes()[size_t(node)];
        const TimeNs at = x.launcher >= 0 ? g.nodes()[size_t(x.launcher)].start : x.start;
        return at >= w.first && at < w.second;
    };
    int inserted = 0, lastComm = -1;
    for (const auto &w : windows) {
        std::vector<int> back;
        for (int k : order)
            if (backward[size_t(k)] && launchedIn(k, w))
                back.push_back(k);
        if (back.empty())
            continue;
        TimeNs total = 0;
        for (int k : back)
            total += g.nodes()[size_t(k)].work;
        TimeNs acc = 0;
        size_t at = 0;
        int last = -1;
        for (int b = 0; b < bucket.count; ++b) {
            const double threshold = double(total) * (b + 1) / bucket.count;
            while (at + 1 < back.size() &&
                   double(acc + g.nodes()[size_t(back[at])].work) < threshold)
                acc += g.nodes()[size_t(back[at++])].work;
            const int after = back[at];
            Node node = bucket.node;
            node.start = node.end = g.nodes()[size_t(after)].end;
            last = g.insertNode(node, lastComm);
            lastComm = last;
            g.addEdge({after, last, EdgeKind::StreamWait, true, false, 0});
            ++inserted;
        }
        // The first kernel after backward (the optimizer) waits for the gradients.
        const int pos = g.position(back.back()) + 1;
        if (pos < int(order.size()) && launchedIn(order[size_t(pos)], w))
            g.addEdge({last, order[size_t(pos)], EdgeKind::StreamWait, true, false, 0});
    }
    return inserted;
}

class WorkersTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("workers"); }
    std::vector<const char *> keys() const override
    {
        return {"workers", "grad_mb", "bucket_mb", "algorithm"};
    }
    void read(JsonFields &f, Transform &t) const override
    {
        t.workers = int(f.integer("workers", 1, 1, limits::kMaxWorkers));
        t.gradMB = f.number("grad_mb", 0, 0, limits::kMaxMB);
        t.bucketMB = f.number("bucket_mb", 25, limits::kMinRate, limits::kMaxMB);
        t.algorithm = f.string("algorithm");
    }
    QString invalid(const Transform &t) const override
    {
        if (!t.algorithm.isEmpty() && !collectiveAlgorithms().contains(t.algorithm))
            return QStringLiteral("algorithm must be 'ring' or 'tree'");
        return {};
    }
    void write(const Transform &t, QJsonObject &o) const override
    {
        o.insert(QStringLiteral("workers"), t.workers);
        if (t.gradMB > 0)
            o.insert(QStringLiteral("grad_mb"), t.gradMB);
        o.insert(QStringLiteral("bucket_mb"), t.bucketMB);
        if (!t.algorithm.isEmpty())
            o.insert(QStringLiteral("algorithm"), t.algorithm);
    }
    QString describe(const Transform &t, const QString &sel) const override
    {
        return QStringLiteral("%1-way data parallel%2%3")
            .arg(t.workers)
            .arg(t.gradMB > 0 ? QStringLiteral(", %1 MB gradients").arg(t.gradMB) : QString(),
                 t.algorithm.isEmpty() ? QString()
                                       : QStringLiteral(", %1 all-reduce").arg(t.algorithm));
    }
    quint8 nodeKinds(const Transform &) const override { return bit(NodeKind::Collective); }
    bool structural(const Transform &t, bool hasCollectives) const override
    {
        return t.workers > 1 && !hasCollectives;
    }
    std::optional<NetworkChange::State>
    insertedCollectives(const Transform &t, const NetworkChange::State &measured) const override
    {
        NetworkChange::State s = measured;
        s.ranks = t.workers;
        if (!t.algorithm.isEmpty())
            s.algorithm = t.algorithm;
        return s;
    }
    bool build(StructureStep &step, const Transform &t, QString *error) const override;
    // The run has collectives (else structural: the inserted all-reduces are costed as they are
    // inserted): they are rescaled to `workers` ranks.
    bool changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                     QString *) const override
    {
        s.net.apply(sel, [&](NetworkChange::State &c) {
            c.ranks = t.workers;
            if (!t.algorithm.isEmpty())
                c.algorithm = t.algorithm;
        });
        s.out.notes << QStringLiteral(
                           "workers: measured collectives of %1 ranks (%2) rescaled to %3 (%4)")
                           .arg(s.net.measuredRanks())
                           .arg(s.context.measuredAlgorithm)
                           .arg(t.workers)
                           .arg(t.algorithm.isEmpty() ? s.context.measuredAlgorithm : t.algorithm);
        return true;
    }
};

// Inserts the all-reduce of each gradient bucket after the backward kernel that completes it,
// on a new communication stream per rank; the first kernel after backward waits for the last.
bool WorkersTransform::build(StructureStep &step, const Transform &t, QString *error) const
{
    DependencyGraph &g = *step.s.graph;
    const int n = t.workers;
    // The all-reduces cross what n ranks cross (within a node its peer link, across nodes the
    // network; collectivePath); a Link transform rescales them.
    const CollectivePath path = collectivePath(QStringLiteral("AllReduce"), n, step.context);
    if (!path.link || !(path.peakGBps > 0)) {
        QString why;
        if (!measuredLink(step.context, true, &why))
            why = QStringLiteral("no link for %1 ranks").arg(n);
        *error =
            QStringLiteral(
                "the link between workers is unknown (%1); name the measured one (--measured-link)")
                .arg(why);
        return false;
    }
    const auto streams = computeStreams(g);
    if (streams.empty()) {
        *error =
            QStringLiteral("data parallelism needs GPU kernels to hang gradient all-reduces on");
        return false;
    }
    const NodeSelection backward(g, withinSelector(kBackwardPattern), bit(NodeKind::Kernel), error);
    const NodeSelection optimizer(g, withinSelector(optimizerPattern()), bit(NodeKind::Kernel),
                                  error);
    const QString algorithm = t.algorithm.isEmpty() ? step.context.measuredAlgorithm : t.algorithm;
    Bucket bucket;
    bucket.node.name = g.syntheticName(
        QStringLiteral("ncclKernel_AllReduce_%1 (predicted)").arg(algorithm.toUpper()));
    bucket.node.kind = NodeKind::Collective;
    bucket.node.collectiveOp = int(collectiveOperations().indexOf(QStringLiteral("AllReduce")));
    int inserted = 0;
    for (const auto &[key, stream] : streams) {
        const RankSteps steps = rankSteps(g, key);
        const std::vector<int> order =
            g.resources()[size_t(stream)].nodes; // a copy: resources grow
        const auto gradBytes = gradientBytes(step, t, order, optimizer, steps, error);
        if (!gradBytes)
            return false;
        bucket.count = std::max(1, int(std::ceil(*gradBytes / (t.bucketMB * 1e6))));
        bucket.node.bytes = qint64(*gradBytes / bucket.count);
        bucket.node.work = collectiveTime(QStringLiteral("AllReduce"), bucket.node.bytes, n,
                                          algorithm, path.peakGBps, path.latencyUs);
        Resource comm = g.resources()[size_t(stream)];
        comm.track = 0;
        comm.name = QStringLiteral("all-reduce (predicted, %1 workers)").arg(n);
        bucket.node.resource = g.addResource(comm);
        inserted += insertBuckets(g, order, backward, steps.windows, bucket);
        step.s.notes << QStringLiteral("rank %1: %2 buckets of %3 MB per step, each all-reduce %4 "
                                       "(%5, %6 workers, %7 GB/s busbw over %8%9, %10 us "
                                       "latency)")
                            .arg(std::max(key.second, 0))
                            .arg(bucket.count)
                            .arg(double(bucket.node.bytes) / 1e6, 0, 'f', 1)
                            .arg(formatDuration(bucket.node.work), algorithm)
                            .arg(n)
                            .arg(path.peakGBps)
                            .arg(path.link->name, path.assumed
                                                      ? QStringLiteral(", the reference server's")
                                                      : QString())
                            .arg(path.latencyUs);
    }
    if (!inserted) {
        *error = QStringLiteral(
            "no backward kernels found (launched within 'autograd::engine::evaluate_function' "
            "or '*Backward*' ops) to hang gradient all-reduces on");
        return false;
    }
    return true;
}

} // namespace

const TransformKind &workersKind()
{
    static const WorkersTransform kind;
    return kind;
}

} // namespace gml::sim::detail
