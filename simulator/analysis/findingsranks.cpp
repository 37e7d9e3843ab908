// SPDX-License-Identifier: GPL-3.0-or-later
// The trace rules of a run on several ranks: collectives not overlapped with compute, and a
// straggler rank (the rank the others wait for at the collectives), each priced by a what-if.
#include "findingsrules.h"

#include "collectivelinks.h"
#include "devicecatalog.h"
#include "sliceclass.h"
#include "timeformat.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace gml::sim {

namespace {
constexpr double kExposedShare = 0.10; // collectives not overlapped with compute
constexpr double kLastArrivals = 0.5;  // collectives a rank is last at
constexpr double kLate = 0.05;         // its mean lateness, of an iteration
constexpr double kSlowBusbw = 0.5;     // a collective's busbw under this share of its link
constexpr double kGoodBusbw = 0.8;     // what NCCL reaches on large messages (nccl-tests)
constexpr double kSlowShare = 0.02;    // their transfer, of the window

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

// Collectives whose bus bandwidth (nccl-tests' conventions: the recorded message over the time
// after the last rank arrived, the node's work) is under half the peak of the link they
// crossed: the GPU's peer link for a group of up to 8 ranks, the network the context names for
// a wider one. Priced by their transfer at 80% of the link's peak, what NCCL reaches on large
// messages: each operation's collectives scaled by their summed time there over their time.
void slowCollectives(const TraceRun &r, std::vector<Finding> &out)
{
    const DependencyGraph &g = r.g;
    std::vector<int> groupOf(g.nodes().size(), 0);
    for (const Join &j : g.joins())
        for (int a : j.arriving)
            groupOf[size_t(a)] = int(j.arriving.size());
    struct Op
    {
        TimeNs transfer = 0;
        double atGood = 0; // the same collectives at kGoodBusbw of their link
        std::vector<double> share;
        QString link;
        bool assumed = false; // the reference server's network
        double peak = 0;
        std::vector<int> nodes;
    };
    std::map<QString, Op> ops;
    const auto &names = collectiveOperations();
    for (size_t i = 0; i < g.nodes().size(); ++i) {
        const Node &n = g.nodes()[i];
        if (n.kind != NodeKind::Collective || n.bytes <= 0 || n.work <= 0 || n.collectiveOp < 0 ||
            n.collectiveOp >= names.size())
            continue;
        const QString &op = names[n.collectiveOp];
        if (op == QLatin1String("SendRecv") || op == QLatin1String("Send") ||
            op == QLatin1String("Recv"))
            continue; // the peer and its wait are not known: no transfer time to hold
        const int ranks = groupOf[i] > 1 ? groupOf[i] : r.context.measuredWorkers;
        const CollectivePath path = collectivePath(op, ranks, r.context);
        if (!path.link || !(path.peakGBps > 0) || ranks < 2)
            continue;
        // nccl-tests' size (the graph reads an all-gather's output; collectiveMessageBytes).
        const double moved = double(n.bytes) * busFactor(op, ranks); // bytes over each link
        const double busbw = moved / double(n.work);                 // B/ns = GB/s
        Op &o = ops[op];
        o.transfer += n.work;
        o.atGood += std::min(double(n.work), moved / (kGoodBusbw * path.peakGBps));
        o.share.push_back(busbw / path.peakGBps);
        o.link = path.network ? path.link->name + QStringLiteral(" across nodes") : path.link->name;
        o.assumed = path.assumed;
        o.peak = path.peakGBps;
        o.nodes.push_back(int(i));
    }
    for (auto &[op, o] : ops) {
        std::nth_element(o.share.begin(), o.share.begin() + qsizetype(o.share.size() / 2),
                         o.share.end());
        const double median = o.share[o.share.size() / 2];
        const double s = double(o.transfer) / r.W;
        if (median >= kSlowBusbw || s < kSlowShare || o.atGood >= double(o.transfer))
            continue;
        Finding f;
        f.rule = QStringLiteral("slow-collective");
        f.share = s;
        f.title =
            QStringLiteral("%1 runs at %2 of the bus bandwidth of %3").arg(op, pct(median), o.link);
        f.detail =
            QStringLiteral("%1 %2 collectives move their data at a median busbw of %3 GB/s "
                           "(nccl-tests' conventions) against %4 GB/s per direction; NCCL reaches "
                           "about 80% of a link on large messages. Check what NCCL picked "
                           "(NCCL_DEBUG=INFO: topology, algorithm, protocol), the message sizes "
                           "(small buckets: bucket_cap_mb), and a link or NIC below its rate "
                           "(nvidia-smi nvlink -s, ibstat).")
                .arg(o.nodes.size())
                .arg(op)
                .arg(median * o.peak, 0, 'f', 1)
                .arg(o.peak);
        if (o.assumed)
            f.detail += QStringLiteral(
                " The trace does not say which network joined the nodes: this is the GPU's "
                "reference server's, its NICs together (devices.json); name the run's with "
                "its tag network=LINK (grademl runs FILE --tag network=ib-hdr, or Runs, Edit "
                "Tags).");
        Transform t = Transform::scale(QStringLiteral("(?i)") + op, o.atGood / double(o.transfer));
        t.select.kinds = kindBit(NodeKind::Collective);
        f.fix = {t};
        f.notes << QStringLiteral("%1's transfers at %2 of %3's %4 GB/s, their wait for the "
                                  "last rank kept")
                       .arg(op, pct(kGoodBusbw), o.link)
                       .arg(o.peak);
        std::sort(o.nodes.begin(), o.nodes.end(), [&](int a, int b) {
            return g.nodes()[size_t(a)].work > g.nodes()[size_t(b)].work;
        });
        for (size_t k = 0; k < o.nodes.size() && k < 20; ++k) {
            const Node &n = g.nodes()[size_t(o.nodes[k])];
            const Resource &res = g.resources()[size_t(n.resource)];
            f.evidence.push_back(
                {QStringLiteral("%1 of %2: %3 after the last arrival")
                     .arg(op, QStringLiteral("%1 MB").arg(double(n.bytes) / 1e6, 0, 'f', 1),
                          formatDuration(n.work)),
                 res.rank, n.start, n.end, n.slice, res.track});
        }
        out.push_back(std::move(f));
    }
}

} // namespace gml::sim
