// SPDX-License-Identifier: GPL-3.0-or-later
// input: data loading `factor` times faster (0: free). With `workers` N > 1 it is a queue: each
// batch is loaded on one of N worker threads in the time the measured run loaded it on its main
// thread, the step waits for its batch when the workers fall behind, the first batches all wait
// for the workers' start, and a worker runs at most `prefetch` batches per worker ahead of the
// step (PyTorch's DataLoader: prefetch_factor 2).
#include "transformkind.h"

#include "jsonfields.h"
#include "timeformat.h"

#include <QRegularExpression>

#include <algorithm>
#include <map>

namespace gml::sim::detail {

namespace {

// The nodes a loader worker runs, one per batch.
const QLatin1String kBatchName("loader worker: batch");

constexpr int kPrefetch = 2;

// A data-loading range of a CPU thread (the outermost, forEachDataLoadingRange) with the
// positions of the thread's nodes in it.
struct LoadingRange
{
    int resource = 0;
    int first = 0; // positions in the resource's order
    int last = 0;
    TimeNs start = 0;
    TimeNs end = 0;
};

std::vector<LoadingRange> loadingRanges(const DependencyGraph &g)
{
    // The data-loading ranges of each CPU thread, the outermost where they nest.
    std::map<int, std::vector<std::pair<TimeNs, TimeNs>>> byResource;
    forEachDataLoadingRange(g, [&](int resource, TimeNs start, TimeNs end) {
        byResource[resource].emplace_back(start, end);
    });
    std::vector<LoadingRange> out;
    for (auto &[resource, list] : byResource) {
        std::sort(list.begin(), list.end());
        const auto &order = g.resources()[size_t(resource)].nodes;
        for (size_t k = 0; k < list.size();) {
            auto [start, end] = list[k];
            size_t j = k + 1;
            while (j < list.size() && list[j].first < end)
                end = std::max(end, list[j++].second);
            k = j;
            // The thread's nodes inside it, in order.
            const auto first =
                std::lower_bound(order.begin(), order.end(), start,
                                 [&](int n, TimeNs t) { return g.nodes()[size_t(n)].start < t; });
            auto last = first;
            while (last != order.end() && g.nodes()[size_t(*last)].end <= end)
                ++last;
            if (last == first)
                continue;
            out.push_back(
                {resource, int(first - order.begin()), int(last - order.begin()) - 1, start, end});
        }
    }
    return out;
}

// Adds the workers (per loading thread, `t.workers` CPU resources), a node per batch on them
// and the edges of the queue.
bool insertLoaderWorkers(Structural &s, const Transform &t, QString *error)
{
    DependencyGraph &g = *s.graph;
    const auto ranges = loadingRanges(g);
    if (ranges.empty()) {
        *error = QStringLiteral("no data loading in the run (ranges named %1)").arg(inputPattern());
        return false;
    }
    const StringId name = g.syntheticName(kBatchName);
    const double speed = t.factor > 0 ? 1.0 / t.factor : 0.0;
    std::map<int, std::vector<const LoadingRange *>> byThread;
    for (const auto &r : ranges)
        byThread[r.resource].push_back(&r);
    TimeNs total = 0;
    qint64 batches = 0;
    for (const auto &[resource, list] : byThread) {
        // A copy: adding resources moves the graph's list.
        const Resource main = g.resources()[size_t(resource)];
        std::vector<int> workers;
        for (int w = 0; w < t.workers; ++w) {
            Resource r;
            r.source = main.source;
            r.rank = main.rank;
            r.pid = main.pid;
            r.track = 0;
            r.name = QStringLiteral("%1 · DataLoader worker %2").arg(main.name).arg(w);
            workers.push_back(g.addResource(std::move(r)));
        }
        const auto &order = g.resources()[size_t(resource)].nodes;
        const int firstOfAll = order[size_t(list.front()->first)];
        std::vector<int> lastOf; // per batch, the step's last node of its loading range
        for (size_t i = 0; i < list.size(); ++i) {
            const LoadingRange &r = *list[i];
            const int last = order[size_t(r.last)];
            lastOf.push_back(last);
            Node n;
            n.name = name;
            n.resource = workers[i % workers.size()];
            n.kind = NodeKind::Cpu;
            n.start = n.end = r.start;
            n.work = scaled(r.end - r.start, speed);
            total += n.work;
            ++batches;
            const int w = g.appendNode(n);
            // The workers start with the loader (the first request); a worker is at most
            // `prefetch` batches ahead of the step; the step's range ends when its batch is in.
            if (i < workers.size())
                g.addEdge({firstOfAll, w, EdgeKind::ThreadWait, false, false, 0});
            const size_t ahead = workers.size() * kPrefetch;
            if (i >= ahead)
                g.addEdge({lastOf[i - ahead], w, EdgeKind::ThreadWait, true, false, 0});
            g.addEdge({w, last, EdgeKind::ThreadWait, true, true, 0});
        }
    }
    s.notes << QStringLiteral("data loading: %1 workers per loading thread (prefetch %2 batches "
                              "each): %3 batches of "
                              "%4 on average, each on one worker in the time measured on the "
                              "step's thread%5; the step "
                              "waits for its batch")
                   .arg(t.workers)
                   .arg(kPrefetch)
                   .arg(batches)
                   .arg(formatDuration(batches ? total / batches : 0))
                   .arg(t.factor != 1 ? QStringLiteral(" (x%1 faster)").arg(t.factor) : QString());
    return true;
}

// On the loading threads, the ranges' own work becomes waiting for the batch (their nodes no
// work, no gaps inside); the count changed.
qint64 waitForLoaderWorkers(const DependencyGraph &g, std::vector<TimeNs> &work,
                            std::vector<TimeNs> &slack)
{
    qint64 changed = 0;
    for (const auto &r : loadingRanges(g)) {
        const auto &order = g.resources()[size_t(r.resource)].nodes;
        for (int k = r.first; k <= r.last; ++k) {
            const size_t n = size_t(order[size_t(k)]);
            work[n] = 0;
            if (k > r.first)
                slack[n] = 0;
            ++changed;
        }
    }
    return changed;
}

class InputTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("input"); }
    std::vector<const char *> keys() const override { return {"factor", "workers"}; }
    void read(JsonFields &f, Transform &t) const override
    {
        t.factor = f.number("factor", 1, 0, limits::kMaxFactor);
        t.workers = int(f.integer("workers", 1, 1, limits::kMaxWorkers));
    }
    void write(const Transform &t, QJsonObject &o) const override
    {
        o.insert(QStringLiteral("factor"), t.factor);
        if (t.workers > 1)
            o.insert(QStringLiteral("workers"), t.workers);
    }
    QString describe(const Transform &t, const QString &sel) const override
    {
        if (t.workers > 1)
            return QStringLiteral("input pipeline on %1 loader workers%2%3")
                .arg(t.workers)
                .arg(t.factor != 1 ? QStringLiteral(", each %1x faster").arg(t.factor) : QString())
                .arg(sel);
        return t.factor == 0 ? QStringLiteral("input pipeline free%1").arg(sel)
                             : QStringLiteral("input pipeline %1x faster%2").arg(t.factor).arg(sel);
    }
    quint8 nodeKinds(const Transform &) const override
    {
        return bit(NodeKind::Cpu) | bit(NodeKind::Runtime);
    }
    Selector selector(const Transform &t) const override
    {
        Selector s = t.select;
        if (s.name.isEmpty() && s.within.isEmpty())
            s.within = inputPattern();
        return s;
    }
    bool structural(const Transform &t, bool) const override { return t.workers > 1; }
    bool build(StructureStep &step, const Transform &t, QString *error) const override
    {
        return insertLoaderWorkers(step.s, t, error);
    }
    void afterBuild(TimingStep &s, const Transform &t) const override
    {
        // Data loading moved to the workers leaves its ranges waiting for their batches.
        waitForLoaderWorkers(s.g, s.work, s.slack);
        // A batch on a worker is not loaded exactly as on the step's thread: the band's ends.
        const Range r = s.cat.uncertainty().loaderWorker;
        s.out.unknowns << QStringLiteral("a batch's loading time on one of %1 DataLoader "
                                         "workers (cores, memory and storage shared, the "
                                         "hand-over to the main process): x%2 to x%3 of its "
                                         "time on the step's thread")
                              .arg(t.workers)
                              .arg(r.low)
                              .arg(r.high);
        const double x = s.vary(QStringLiteral("loader workers"), r);
        if (x == 1)
            return;
        for (size_t i = 0; i < s.nodes.size(); ++i)
            if (s.nodes[i].slice == 0 && s.nodes[i].kind == NodeKind::Cpu &&
                s.g.name(s.nodes[i].name) == kBatchName)
                s.work[i] = scaled(s.work[i], x);
    }
    bool changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                     QString *) const override
    {
        const double f = t.factor > 0 ? 1.0 / t.factor : 0.0;
        for (size_t i = 0; i < s.nodes.size(); ++i)
            if (sel[i]) {
                s.work[i] = scaled(s.work[i], f);
                s.slack[i] = scaled(s.slack[i], f);
            }
        return true;
    }
};

} // namespace

const TransformKind &inputKind()
{
    static const InputTransform kind;
    return kind;
}

} // namespace gml::sim::detail
