// SPDX-License-Identifier: GPL-3.0-or-later
#include "rankdetail.h"

#include <QCborArray>

#include <algorithm>
#include <cmath>

namespace gml::sim {

namespace {

// Each record is a CBOR array of a fixed length (names repeat: the facts are compressed).
QCborArray timeToCbor(const GpuTime &t)
{
    return {t.window, t.compute, t.communication, t.copies, t.idle};
}

bool timeFromCbor(const QCborArray &a, qsizetype at, GpuTime *t)
{
    if (a.size() < at + 5)
        return false;
    t->window = a[at].toInteger();
    t->compute = a[at + 1].toInteger();
    t->communication = a[at + 2].toInteger();
    t->copies = a[at + 3].toInteger();
    t->idle = a[at + 4].toInteger();
    return t->window >= 0 && t->compute >= 0 && t->communication >= 0 && t->copies >= 0 &&
           t->idle >= 0;
}

QCborArray gpuToCbor(const GpuBreakdown &b)
{
    QCborArray streams, gaps, queue;
    for (const GpuBreakdown::Stream &s : b.streams)
        streams << s.name << s.busy;
    for (const IdleGap &g : b.longestGaps)
        gaps << g.start << g.end << int(g.cause);
    for (const QueueSample &q : b.queue)
        queue << q.start << q.end << q.most << q.mean;
    QCborArray a{b.device, b.rank, b.start, b.end};
    for (const QCborValue &v : timeToCbor(b.time))
        a << v;
    a << b.idle.launch << b.idle.dataLoading << b.idle.sync << b.idle.otherStream << b.idle.gpu
      << b.idle.unattributed << b.idleGaps << b.communicationTotal << b.communicationOverlapped
      << streams << gaps << queue;
    return a;
}

bool gpuFromCbor(const QCborArray &a, GpuBreakdown *b)
{
    if (a.size() != 21 || !timeFromCbor(a, 4, &b->time))
        return false;
    b->device = a[0].toString();
    b->rank = int(a[1].toInteger());
    b->start = a[2].toInteger();
    b->end = a[3].toInteger();
    b->idle = {a[9].toInteger(),  a[10].toInteger(), a[11].toInteger(),
               a[12].toInteger(), a[13].toInteger(), a[14].toInteger()};
    b->idleGaps = a[15].toInteger();
    b->communicationTotal = a[16].toInteger();
    b->communicationOverlapped = a[17].toInteger();
    const QCborArray streams = a[18].toArray(), gaps = a[19].toArray(), queue = a[20].toArray();
    if (streams.size() % 2 || gaps.size() % 3 || queue.size() % 4 || b->end < b->start)
        return false;
    for (qsizetype i = 0; i < streams.size(); i += 2)
        b->streams.push_back({streams[i].toString(), streams[i + 1].toInteger()});
    for (qsizetype i = 0; i < gaps.size(); i += 3) {
        const qint64 cause = gaps[i + 2].toInteger();
        if (cause < 0 || cause > qint64(IdleCause::Unattributed))
            return false;
        // The node that ended it is the shard's: not kept.
        b->longestGaps.push_back(
            {gaps[i].toInteger(), gaps[i + 1].toInteger(), IdleCause(cause), -1});
    }
    for (qsizetype i = 0; i < queue.size(); i += 4) {
        const double mean = queue[i + 3].toDouble();
        if (!std::isfinite(mean))
            return false;
        b->queue.push_back(
            {queue[i].toInteger(), queue[i + 1].toInteger(), int(queue[i + 2].toInteger()), mean});
    }
    return true;
}

QCborArray iterationToCbor(const IterationBreakdown &it)
{
    QCborArray a{it.name, it.device, it.rank, it.start, it.end};
    for (const QCborValue &v : timeToCbor(it.time))
        a << v;
    return a;
}

bool iterationFromCbor(const QCborArray &a, IterationBreakdown *it)
{
    if (a.size() != 10 || !timeFromCbor(a, 5, &it->time))
        return false;
    it->name = a[0].toString();
    it->device = a[1].toString();
    it->rank = int(a[2].toInteger());
    it->start = a[3].toInteger();
    it->end = a[4].toInteger();
    return it->end >= it->start;
}

QCborArray kernelToCbor(const KernelStat &k)
{
    return {k.name,  k.family, int(k.kind), k.bytes, k.count,
            k.total, k.p50,    k.p90,       k.max,   k.durations.toCbor()};
}

bool kernelFromCbor(const QCborArray &a, KernelStat *k)
{
    if (a.size() != 10)
        return false;
    const qint64 kind = a[2].toInteger();
    auto durations = DurationSketch::fromCbor(a[9]);
    if (kind < 0 || kind > qint64(NodeKind::Memset) || !durations)
        return false;
    k->name = a[0].toString();
    k->family = a[1].toString();
    k->kind = NodeKind(kind);
    k->bytes = a[3].toInteger();
    k->count = a[4].toInteger();
    k->total = a[5].toInteger();
    k->p50 = a[6].toInteger();
    k->p90 = a[7].toInteger();
    k->max = a[8].toInteger();
    k->durations = std::move(*durations);
    return k->count == k->durations.count() && k->total >= 0;
}

QCborArray launchToCbor(const LaunchStats &l)
{
    return {l.launches, l.calls,    l.callTime,     l.gpuTime,         l.delayP50,
            l.delayP90, l.delayMax, l.shortKernels, l.shortKernelTime, l.delays.toCbor()};
}

bool launchFromCbor(const QCborArray &a, LaunchStats *l)
{
    if (a.size() != 10)
        return false;
    auto delays = DurationSketch::fromCbor(a[9]);
    if (!delays)
        return false;
    *l = {a[0].toInteger(), a[1].toInteger(),  a[2].toInteger(), a[3].toInteger(),
          a[4].toInteger(), a[5].toInteger(),  a[6].toInteger(), a[7].toInteger(),
          a[8].toInteger(), std::move(*delays)};
    return true;
}

// A kernel's (or the launches') percentiles over shards: a name one shard ran keeps the
// shard's exact ones; several shards' come from their merged durations.
void mergeKernel(KernelStat &into, const KernelStat &k)
{
    if (into.count == 0) {
        into = k;
        return;
    }
    into.bytes += k.bytes;
    into.count += k.count;
    into.total += k.total;
    into.max = std::max(into.max, k.max);
    into.durations.merge(k.durations);
    into.p50 = into.durations.quantile(0.5);
    into.p90 = into.durations.quantile(0.9);
}

void mergeLaunch(LaunchStats &into, const LaunchStats &l, bool first)
{
    if (first) {
        into = l;
        return;
    }
    into.launches += l.launches;
    into.calls += l.calls;
    into.callTime += l.callTime;
    into.gpuTime += l.gpuTime;
    into.shortKernels += l.shortKernels;
    into.shortKernelTime += l.shortKernelTime;
    into.delays.merge(l.delays);
    into.delayP50 = into.delays.quantile(0.5);
    into.delayP90 = into.delays.quantile(0.9);
    into.delayMax = std::max(into.delayMax, l.delayMax);
}

} // namespace

void detailToCbor(const RankDetail &detail, QCborMap &into)
{
    if (!detail.carried)
        return;
    QCborArray gpus, iterations;
    for (const GpuBreakdown &b : detail.gpus)
        gpus.append(gpuToCbor(b));
    for (const IterationBreakdown &it : detail.iterations)
        iterations.append(iterationToCbor(it));
    into.insert(QStringLiteral("gpus"), gpus);
    into.insert(QStringLiteral("iterations"), iterations);
    if (!detail.shard)
        return;
    const ShardDetail &s = *detail.shard;
    QCborArray kernels;
    for (const KernelStat &k : s.kernels)
        kernels.append(kernelToCbor(k));
    const RunSummary &m = s.summary;
    into.insert(QStringLiteral("shard"),
                QCborMap{{QStringLiteral("kernels"), kernels},
                         {QStringLiteral("launch"), launchToCbor(s.launch)},
                         {QStringLiteral("lowest_rank"), s.lowestRank},
                         {QStringLiteral("summary"),
                          QCborArray{m.iterations, m.stepTime, m.stepTimeAll, m.warmupIterations,
                                     m.flops, m.hardwareFlops}}});
}

bool detailFromCbor(const QCborMap &from, RankDetail *detail)
{
    *detail = {};
    if (!from.contains(QStringLiteral("gpus")))
        return true; // written before issue 74
    detail->carried = true;
    for (const QCborValue &v : from.value(QStringLiteral("gpus")).toArray()) {
        GpuBreakdown b;
        if (!gpuFromCbor(v.toArray(), &b))
            return false;
        detail->gpus.push_back(std::move(b));
    }
    for (const QCborValue &v : from.value(QStringLiteral("iterations")).toArray()) {
        IterationBreakdown it;
        if (!iterationFromCbor(v.toArray(), &it))
            return false;
        detail->iterations.push_back(std::move(it));
    }
    if (!from.contains(QStringLiteral("shard")))
        return true;
    const QCborMap m = from.value(QStringLiteral("shard")).toMap();
    ShardDetail s;
    for (const QCborValue &v : m.value(QStringLiteral("kernels")).toArray()) {
        KernelStat k;
        if (!kernelFromCbor(v.toArray(), &k))
            return false;
        s.kernels.push_back(std::move(k));
    }
    if (!launchFromCbor(m.value(QStringLiteral("launch")).toArray(), &s.launch))
        return false;
    s.lowestRank = int(m.value(QStringLiteral("lowest_rank")).toInteger(-1));
    const QCborArray sum = m.value(QStringLiteral("summary")).toArray();
    if (sum.size() != 6)
        return false;
    s.summary.iterations = sum[0].toInteger();
    s.summary.stepTime = sum[1].toInteger();
    s.summary.stepTimeAll = sum[2].toInteger();
    s.summary.warmupIterations = int(sum[3].toInteger());
    s.summary.flops = sum[4].toDouble();
    s.summary.hardwareFlops = sum[5].toDouble();
    if (s.summary.iterations < 0 || s.summary.stepTime < 0 || s.summary.stepTimeAll < 0 ||
        !std::isfinite(s.summary.flops) || !std::isfinite(s.summary.hardwareFlops) ||
        s.summary.flops < 0 || s.summary.hardwareFlops < 0)
        return false;
    detail->shard = std::move(s);
    return true;
}

void RankDetailMerge::add(RankDetail detail, TimeNs offset)
{
    if (!detail.carried) {
        ++m_missing;
        return;
    }
    for (GpuBreakdown &b : detail.gpus) {
        b.start += offset;
        b.end += offset;
        for (IdleGap &g : b.longestGaps)
            g.start += offset, g.end += offset;
        for (QueueSample &q : b.queue)
            q.start += offset, q.end += offset;
        m_gpus.push_back(std::move(b));
    }
    for (IterationBreakdown &it : detail.iterations) {
        it.start += offset;
        it.end += offset;
        m_iterations.push_back(std::move(it));
    }
    if (!detail.shard)
        return;
    const ShardDetail &s = *detail.shard;
    for (const KernelStat &k : s.kernels)
        mergeKernel(m_kernels[k.name], k);
    mergeLaunch(m_launch, s.launch, !m_anyShard);
    m_anyShard = true;
    m_flops += s.summary.flops;
    m_hardwareFlops += s.summary.hardwareFlops;
    if (s.lowestRank >= 0 && (!m_steps || s.lowestRank < m_lowestRank)) {
        m_lowestRank = s.lowestRank;
        m_steps = s.summary;
    }
}

void RankDetailMerge::finish(Analysis &cross, RunSummary &summary) const
{
    // By rank as the whole run's analysis lists them; a rank's own order as its shard had it.
    const auto byRank = [](const auto &x, const auto &y) { return x.rank < y.rank; };
    cross.gpus = m_gpus;
    std::stable_sort(cross.gpus.begin(), cross.gpus.end(), byRank);
    cross.iterations = m_iterations;
    std::stable_sort(cross.iterations.begin(), cross.iterations.end(), byRank);
    cross.kernels.clear();
    for (const auto &[name, k] : m_kernels)
        cross.kernels.push_back(k);
    std::sort(cross.kernels.begin(), cross.kernels.end(),
              [](const KernelStat &x, const KernelStat &y) {
                  return x.total != y.total ? x.total > y.total : x.name < y.name;
              });
    if (m_anyShard)
        cross.launch = m_launch;
    if (m_steps) {
        summary.iterations = m_steps->iterations;
        summary.stepTime = m_steps->stepTime;
        summary.stepTimeAll = m_steps->stepTimeAll;
        summary.warmupIterations = m_steps->warmupIterations;
    }
    if (m_anyShard) {
        summary.flops = m_flops;
        summary.hardwareFlops = std::max(m_hardwareFlops, m_flops);
    }
}

} // namespace gml::sim
