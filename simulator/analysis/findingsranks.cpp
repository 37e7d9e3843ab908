// SPDX-License-Identifier: GPL-3.0-or-later
// The trace rules of a run on several ranks: collectives not overlapped with compute, and a
// straggler rank (the rank the others wait for at the collectives), each priced by a what-if.
#include "findingsrules.h"

#include "timeformat.h"

#include <algorithm>
#include <numeric>

namespace gml::sim {

namespace {
constexpr double kExposedShare = 0.10; // collectives not overlapped with compute
constexpr double kLastArrivals = 0.5;  // collectives a rank is last at
constexpr double kLate = 0.05;         // its mean lateness, of an iteration
} // namespace

// Collectives not overlapped with compute.
void exposedCollectives(const TraceRun &r, std::vector<Finding> &out)
{
    const Analysis &a = r.a;
    const TimeNs exposed = r.exposed;
    const double W = r.W;
    if (const double s = double(exposed) / W; s >= kExposedShare) {
        Finding f;
        f.rule = QStringLiteral("nccl-exposed");
        f.share = s;
        f.title =
            QStringLiteral("Exposed communication: collectives run alone %1 of the GPUs' time")
                .arg(pct(s));
        f.detail = QStringLiteral(
            "Collective kernels run while no compute kernel does. Overlap them with the "
            "backward pass (DDP gradient buckets, bucket_cap_mb; FSDP prefetch), or cut "
            "their volume (gradient compression, larger local batches).");
        Transform t = Transform::scale(QString(), 0);
        t.select.kinds = kindBit(NodeKind::Collective);
        f.fix = {t};
        f.notes << QStringLiteral(
            "an upper bound: each collective hidden behind compute, its own time gone, its "
            "wait for the other ranks kept");
        for (const auto &gpu : a.gpus)
            if (gpu.time.communication > 0)
                f.evidence.push_back({QStringLiteral("%1: %2 exposed of %3 communication")
                                          .arg(gpu.device, formatDuration(gpu.time.communication),
                                               formatDuration(gpu.communicationTotal)),
                                      gpu.rank, gpu.start, gpu.end, 0});
        out.push_back(std::move(f));
    }
}

bool passesStragglerTest(qint64 lastArrivals, size_t collectives, TimeNs meanLate, TimeNs iteration)
{
    return collectives > 0 && double(lastArrivals) >= kLastArrivals * double(collectives) &&
           double(meanLate) >= kLate * double(std::max<TimeNs>(1, iteration));
}

std::optional<Finding>
stragglerFinding(const Analysis &a,
                 const std::function<std::pair<TimeNs, qint64>(int)> &iterationsOf, TimeNs whole)
{
    if (a.ranks.size() < 2 || a.stragglers.empty())
        return std::nullopt;
    const RankLoad *worst = nullptr;
    for (const auto &r : a.ranks)
        if (!worst || r.lastArrivals > worst->lastArrivals)
            worst = &r;
    TimeNs late = 0;
    std::vector<const Straggler *> its;
    for (const auto &s : a.stragglers)
        if (s.lastRank == worst->rank) {
            late += s.lateVsMedian;
            its.push_back(&s);
        }
    const auto [iteration, iterations] = iterationsOf(worst->rank);
    const TimeNs meanLate = its.empty() ? 0 : late / TimeNs(its.size());
    const TimeNs per = iterations ? iteration / iterations : whole;
    if (!passesStragglerTest(worst->lastArrivals, a.stragglers.size(), meanLate, per))
        return std::nullopt;
    Finding f;
    f.rule = QStringLiteral("straggler");
    f.share = double(late) / double(std::max<TimeNs>(1, per * std::max<qint64>(1, iterations)));
    f.title = QStringLiteral("Straggler: rank %1 arrives last at %2 of %3 collectives, %4 after "
                             "the median on average")
                  .arg(worst->rank)
                  .arg(worst->lastArrivals)
                  .arg(a.stragglers.size())
                  .arg(formatDuration(meanLate));
    QMap<QString, int> before;
    for (const auto *s : its)
        ++before[s->before.isEmpty() ? QStringLiteral("unknown") : s->before];
    QStringList what;
    for (auto it = before.begin(); it != before.end(); ++it)
        what << QStringLiteral("%1 (%2)").arg(it.key()).arg(it.value());
    f.detail = QStringLiteral("The other ranks wait for it at each collective. Before arriving it "
                              "ran: %1. Look for uneven data (sequence lengths, sharding), a "
                              "slower GPU or host, or extra work on that rank (logging, "
                              "checkpointing).")
                   .arg(what.mid(0, 5).join(QStringLiteral(", ")));
    for (const auto *s : its) {
        if (f.evidence.size() == 20)
            break;
        f.evidence.push_back({QStringLiteral("%1 #%2: rank %3 %4 after the first, %5 after the "
                                             "median")
                                  .arg(s->operation)
                                  .arg(s->index)
                                  .arg(s->lastRank)
                                  .arg(formatDuration(s->late()), formatDuration(s->lateVsMedian)),
                              s->lastRank, s->firstArrival, s->lastArrival, 0});
    }
    return f;
}

// A straggler rank: the finding, priced by bringing its work to the mean of the others'.
void stragglerRank(const TraceRun &r, std::vector<Finding> &out)
{
    const DependencyGraph &g = r.g;
    const Analysis &a = r.a;
    auto found = stragglerFinding(
        a,
        [&](int rank) {
            std::pair<TimeNs, qint64> sum{0, 0};
            for (const auto &it : a.iterations)
                if (it.rank == rank) {
                    sum.first += it.end - it.start;
                    ++sum.second;
                }
            return sum;
        },
        g.measuredEnd() - g.origin());
    if (!found)
        return;
    Finding &f = *found;
    const int worst = f.evidence.empty() ? -1 : f.evidence.front().rank;
    // Its load against the others': the work of its non-collective nodes.
    std::map<int, TimeNs> load;
    for (const Node &n : g.nodes())
        if (n.kind != NodeKind::Collective)
            load[g.resources()[size_t(n.resource)].rank] += n.work;
    TimeNs others = 0;
    int count = 0;
    for (const auto &[rank, l] : load)
        if (rank >= 0 && rank != worst) {
            others += l;
            ++count;
        }
    const double factor =
        count && load[worst] > 0 ? double(others) / count / double(load[worst]) : 1.0;
    if (factor < 0.99) {
        Transform t = Transform::scale(QString(), factor);
        t.select.rank = worst;
        t.select.kinds = kindBit(NodeKind::Cpu) | kindBit(NodeKind::Runtime) |
                         kindBit(NodeKind::Kernel) | kindBit(NodeKind::Memcpy) |
                         kindBit(NodeKind::Memset);
        f.fix = {t};
        f.notes << QStringLiteral("rank %1's work x%2: the mean of the other ranks'")
                       .arg(worst)
                       .arg(factor, 0, 'f', 3);
    } else {
        f.noFix = QStringLiteral("rank %1 does no more work than the others (x%2 of their mean); "
                                 "it arrives late for another reason")
                      .arg(worst)
                      .arg(1 / factor, 0, 'f', 2);
    }
    out.push_back(std::move(f));
}

} // namespace gml::sim
