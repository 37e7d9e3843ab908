// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusteranalysis.h"

#include "clockalignment.h"
#include "clusterproject.h"
#include "project.h"
#include "projecttime.h"
#include "rankfacts.h"
#include "sourcerecords.h"
#include "sourcesummary.h"
#include "timeformat.h"

#include <QJsonArray>

#include <algorithm>
#include <climits>
#include <map>
#include <set>

namespace gml::sim {

namespace {

// The execution model's matching (dependencygraph.cpp): each (rank, source)'s collectives in
// start order are fitted to the lowest one's; the k-th of the reference and the arrivals
// matched to it are one collective. Point-to-point operations have no group.
using Group = std::vector<CollectiveArrival>;
std::vector<Group>
matchCollectives(std::map<std::pair<int, SourceId>, std::vector<CollectiveArrival>> bySource)
{
    std::vector<Group> out;
    if (bySource.size() < 2)
        return out;
    auto ends = [](const std::vector<CollectiveArrival> &v) {
        std::vector<CollectiveEnd> e;
        e.reserve(v.size());
        for (const CollectiveArrival &a : v)
            e.push_back({a.op, a.start, a.end});
        return e;
    };
    for (auto &[key, v] : bySource)
        std::stable_sort(v.begin(), v.end(),
                         [](const CollectiveArrival &x, const CollectiveArrival &y) {
                             return x.start < y.start;
                         });
    auto it = bySource.begin();
    const std::vector<CollectiveArrival> &ref = it->second;
    const auto refEnds = ends(ref);
    std::vector<std::vector<CollectiveArrival>> groups(ref.size());
    for (size_t k = 0; k < ref.size(); ++k)
        groups[k].push_back(ref[k]);
    for (++it; it != bySource.end(); ++it) {
        const auto fit = fitCollectives(refEnds, ends(it->second));
        if (!fit)
            continue;
        for (size_t k = 0; k < ref.size(); ++k) {
            const long j = long(k) + fit->shift;
            if (j >= 0 && j < long(it->second.size()) && it->second[size_t(j)].op == ref[k].op)
                groups[k].push_back(it->second[size_t(j)]);
        }
    }
    for (auto &group : groups) {
        const QString &op = group.front().operation;
        if (group.size() < 2 || op == QLatin1String("SendRecv") || op == QLatin1String("Send") ||
            op == QLatin1String("Recv"))
            continue;
        out.push_back(std::move(group));
    }
    return out;
}

// The critical path across ranks as the collectives tell it, without the graph: a collective
// starts when its last rank arrives, so from the previous collective's end the path runs on
// that rank up to its arrival, then through the collective (to that rank's end of it); before
// the first one it runs on its last rank from the run's first step, after the last one on the
// rank whose steps end last. The run's span is thus split between ranks, each moment to the
// rank that held everyone up then.
std::vector<std::pair<int, TimeNs>> criticalByRank(const std::vector<Group> &groups,
                                                   const std::map<int, RankSteps> &steps,
                                                   TimeNs *length)
{
    std::map<int, TimeNs> byRank;
    // Each collective's last arrival (the lowest rank among ties), in the order they came.
    std::vector<const CollectiveArrival *> lasts;
    lasts.reserve(groups.size());
    for (const Group &g : groups)
        lasts.push_back(&*std::max_element(
            g.begin(), g.end(), [](const CollectiveArrival &x, const CollectiveArrival &y) {
                return x.start != y.start ? x.start < y.start : x.rank > y.rank;
            }));
    std::sort(
        lasts.begin(), lasts.end(),
        [](const CollectiveArrival *x, const CollectiveArrival *y) { return x->start < y->start; });
    TimeNs runStart = std::numeric_limits<TimeNs>::max(),
           runEnd = std::numeric_limits<TimeNs>::min();
    int endRank = -1;
    for (const auto &[rank, s] : steps)
        for (const auto &[a, b] : s.iterations) {
            runStart = std::min(runStart, a);
            if (b > runEnd) {
                runEnd = b;
                endRank = rank;
            }
        }
    TimeNs cursor = std::numeric_limits<TimeNs>::min();
    for (const CollectiveArrival *last : lasts) {
        const CollectiveArrival &l = *last;
        const TimeNs from =
            cursor == std::numeric_limits<TimeNs>::min() ? std::min(runStart, l.start) : cursor;
        const TimeNs to = std::max(l.end, from);
        byRank[l.rank] += to - from;
        cursor = to;
    }
    if (endRank >= 0 && cursor != std::numeric_limits<TimeNs>::min() && runEnd > cursor)
        byRank[endRank] += runEnd - cursor;
    std::vector<std::pair<int, TimeNs>> out;
    *length = 0;
    for (const auto &[rank, time] : byRank)
        if (time > 0) {
            out.emplace_back(rank, time);
            *length += time;
        }
    std::sort(out.begin(), out.end(), [](const auto &x, const auto &y) {
        return x.second != y.second ? x.second > y.second : x.first < y.first;
    });
    return out;
}

} // namespace

std::optional<ClusterAnalysis> analyzeCluster(Project &cluster, RunId run, const QString &runName,
                                              QString *error)
{
    auto &db = cluster.db();
    ClusterAnalysis out;
    out.run = runName;
    {
        const cluster::ShardCounts counts = cluster::shardCounts(cluster);
        out.shards = counts.total;
        out.mergedShards = counts.merged;
        for (const cluster::ShardStatus &bad : cluster::unmergedShards(cluster))
            out.missing.append(
                QStringLiteral("shard %1 %2: %3").arg(bad.path, bad.status, bad.error));
        for (const auto &[path, why] : failedSources(cluster, run))
            out.missing.append(QStringLiteral("%1: not imported: %2").arg(path, why));
        for (const auto &[path, version] :
             staleSourceBlobs(db, "rank_facts", run, kRankFactsVersion))
            out.missing.append(QStringLiteral("%1: its rank facts are of version %2, this program "
                                              "reads %3 (import its shard again)")
                                   .arg(path)
                                   .arg(version)
                                   .arg(kRankFactsVersion));
    }
    std::map<std::pair<int, SourceId>, std::vector<CollectiveArrival>> bySource;
    std::map<int, RankLoad> loads;
    std::map<QString, KernelFamily> families;
    std::map<int, RankSteps> steps;
    QString readError;
    for (const auto &[source, offset] : importedSourceOffsets(cluster, run, &readError)) {
        if (const auto facts = loadRankFacts(db, source)) {
            for (CollectiveArrival a : facts->collectives) {
                a.start += offset;
                a.end += offset;
                if (a.prevEnd != std::numeric_limits<TimeNs>::min())
                    a.prevEnd += offset;
                bySource[{a.rank < 0 ? INT_MAX : a.rank, source}].push_back(std::move(a));
            }
            for (const RankLoad &l : facts->loads) {
                RankLoad &to = loads[l.rank];
                to.rank = l.rank;
                to.compute += l.compute;
                to.communication += l.communication;
            }
            for (const KernelFamily &f : facts->families) {
                KernelFamily &to = families[f.family];
                to.family = f.family;
                to.count += f.count;
                to.time += f.time;
            }
        }
        if (const auto work = loadSourceSummary(db, source))
            for (const SourceWork::Rank &r : work->ranks) {
                RankSteps &s = steps[r.rank];
                s.rank = r.rank;
                for (const auto &[a, b] : r.iterations)
                    s.iterations.emplace_back(a + offset, b + offset);
            }
    }
    if (!readError.isEmpty()) {
        if (error)
            *error = readError;
        return std::nullopt;
    }
    Analysis &a = out.cross;
    const std::vector<Group> groups = matchCollectives(std::move(bySource));
    for (const Group &g : groups)
        a.stragglers.push_back(stragglerOf(g));
    out.criticalByRank = criticalByRank(groups, steps, &out.criticalLength);
    finishRanks(a, std::move(loads));
    for (auto &[name, f] : families)
        a.families.push_back(f);
    std::sort(a.families.begin(), a.families.end(),
              [](const KernelFamily &x, const KernelFamily &y) {
                  return x.time != y.time ? x.time > y.time : x.family < y.family;
              });
    for (auto &[rank, s] : steps) {
        std::sort(s.iterations.begin(), s.iterations.end());
        out.steps.push_back(std::move(s));
    }
    std::set<int> ranks;
    for (const RankLoad &l : a.ranks)
        ranks.insert(l.rank);
    for (const RankSteps &s : out.steps)
        ranks.insert(s.rank);
    out.ranks = int(ranks.size());
    return out;
}

QJsonObject ClusterAnalysis::toJson() const
{
    const QJsonObject whole = cross.toJson();
    QJsonArray stepArray;
    for (const RankSteps &s : steps) {
        QJsonArray its;
        for (const auto &[a, b] : s.iterations)
            its.append(QJsonArray{a, b});
        stepArray.append(
            QJsonObject{{QStringLiteral("rank"), s.rank}, {QStringLiteral("iterations_ns"), its}});
    }
    QJsonArray critical;
    for (const auto &[rank, time] : criticalByRank)
        critical.append(
            QJsonObject{{QStringLiteral("rank"), rank}, {QStringLiteral("time_ns"), qint64(time)}});
    return QJsonObject{
        {QStringLiteral("run"), run},
        {QStringLiteral("shards"), shards},
        {QStringLiteral("merged_shards"), mergedShards},
        {QStringLiteral("missing"), QJsonArray::fromStringList(missing)},
        {QStringLiteral("ranks"), ranks},
        {QStringLiteral("kernel_families"), whole.value(QStringLiteral("kernel_families"))},
        {QStringLiteral("stragglers"), whole.value(QStringLiteral("stragglers"))},
        {QStringLiteral("rank_loads"), whole.value(QStringLiteral("ranks"))},
        {QStringLiteral("compute_imbalance"), cross.computeImbalance},
        {QStringLiteral("communication_imbalance"), cross.communicationImbalance},
        {QStringLiteral("critical_path_by_rank"), critical},
        {QStringLiteral("critical_path_ns"), qint64(criticalLength)},
        {QStringLiteral("steps"), stepArray}};
}

RunReport ClusterAnalysis::toRunReport() const
{
    RunReport r;
    r.run = run;
    r.analysis = cross;
    r.criticalByRank = criticalByRank;
    r.criticalLength = criticalLength;
    TimeNs sum = 0, origin = std::numeric_limits<TimeNs>::max();
    qint64 count = 0;
    for (const RankSteps &s : steps)
        for (const auto &[a, b] : s.iterations) {
            sum += b - a;
            ++count;
            origin = std::min(origin, a);
            r.summary.iterations =
                std::max<qint64>(r.summary.iterations, qint64(s.iterations.size()));
        }
    if (count > 0) {
        r.summary.stepTime = sum / count;
        r.origin = origin;
    }
    r.noFindingsBecause =
        QStringLiteral(
            "a cluster project's report is across ranks (%1 of %2 shards); each rank's findings "
            "are found on its shard: grademl analyze PROJECT --rank N")
            .arg(mergedShards)
            .arg(shards);
    return r;
}

QString ClusterAnalysis::toText() const
{
    QString t = QStringLiteral("Run '%1' of a cluster project: %2 ranks from %3 of %4 shards\n")
                    .arg(run)
                    .arg(ranks)
                    .arg(mergedShards)
                    .arg(shards);
    if (!missing.isEmpty()) {
        t += QStringLiteral("Missing (%1):\n").arg(missing.size());
        for (const QString &m : missing)
            t += QStringLiteral("  ") + m + QLatin1Char('\n');
    }
    TimeNs total = 0;
    for (const KernelFamily &f : cross.families)
        total += f.time;
    if (!cross.families.empty()) {
        t += QStringLiteral("Kernel families (all ranks):\n");
        for (const KernelFamily &f : cross.families)
            t += QStringLiteral("  %1 %2 (%3%), %4 launches\n")
                     .arg(f.family, -12)
                     .arg(formatDuration(f.time), 10)
                     .arg(total > 0 ? 100.0 * double(f.time) / double(total) : 0.0, 5, 'f', 1)
                     .arg(f.count);
    }
    if (!cross.stragglers.empty()) {
        std::map<int, int> lastAt;
        TimeNs late = 0;
        for (const Straggler &s : cross.stragglers) {
            ++lastAt[s.lastRank];
            late += s.lateVsMedian;
        }
        std::vector<std::pair<int, int>> order(lastAt.begin(), lastAt.end());
        std::sort(order.begin(), order.end(), [](auto x, auto y) {
            return x.second != y.second ? x.second > y.second : x.first < y.first;
        });
        t += QStringLiteral("Stragglers: %1 collectives matched across ranks; last to arrive: ")
                 .arg(cross.stragglers.size());
        for (size_t k = 0; k < std::min<size_t>(5, order.size()); ++k)
            t += QStringLiteral("%1rank %2 at %3")
                     .arg(k ? QStringLiteral(", ") : QString())
                     .arg(order[k].first)
                     .arg(order[k].second);
        t += QStringLiteral("; mean lateness after the median %1\n")
                 .arg(formatDuration(late / TimeNs(cross.stragglers.size())));
        const auto worst = std::max_element(
            cross.stragglers.begin(), cross.stragglers.end(),
            [](const Straggler &x, const Straggler &y) { return x.lateVsMedian < y.lateVsMedian; });
        t += QStringLiteral("  latest: #%1 %2 (%3 ranks): rank %4, %5 after the median%6\n")
                 .arg(worst->index)
                 .arg(worst->operation)
                 .arg(worst->ranks)
                 .arg(worst->lastRank)
                 .arg(formatDuration(worst->lateVsMedian))
                 .arg(worst->before.isEmpty() ? QString()
                                              : QStringLiteral(", after ") + worst->before);
    }
    if (criticalByRank.size() > 1) {
        QStringList parts;
        for (size_t k = 0; k < std::min<size_t>(8, criticalByRank.size()); ++k)
            parts << QStringLiteral("rank %1 %2 (%3%)")
                         .arg(criticalByRank[k].first)
                         .arg(formatDuration(criticalByRank[k].second))
                         .arg(criticalLength > 0 ? 100.0 * double(criticalByRank[k].second) /
                                                       double(criticalLength)
                                                 : 0,
                              0, 'f', 1);
        t += QStringLiteral("Critical path across ranks, from the collectives (%1): %2%3\n")
                 .arg(formatDuration(criticalLength), parts.join(QStringLiteral(", ")),
                      criticalByRank.size() > 8 ? QStringLiteral(", ...") : QString());
    }
    if (cross.ranks.size() >= 2)
        t +=
            QStringLiteral("Imbalance across %1 ranks (max / mean): compute %2, communication %3\n")
                .arg(cross.ranks.size())
                .arg(cross.computeImbalance, 0, 'f', 3)
                .arg(cross.communicationImbalance, 0, 'f', 3);
    if (!steps.empty()) {
        // Rank x iteration: the slowest ranks by mean step time, and each step's spread.
        struct Mean
        {
            int rank;
            TimeNs mean, most;
        };
        std::vector<Mean> means;
        size_t longest = 0;
        for (const RankSteps &s : steps) {
            if (s.iterations.empty())
                continue;
            TimeNs sum = 0, most = 0;
            for (const auto &[a, b] : s.iterations) {
                sum += b - a;
                most = std::max(most, b - a);
            }
            means.push_back({s.rank, sum / TimeNs(s.iterations.size()), most});
            longest = std::max(longest, s.iterations.size());
        }
        std::sort(means.begin(), means.end(), [](const Mean &x, const Mean &y) {
            return x.mean != y.mean ? x.mean > y.mean : x.rank < y.rank;
        });
        t += QStringLiteral("Step times (rank x iteration), slowest ranks by mean:\n");
        for (size_t k = 0; k < std::min<size_t>(8, means.size()); ++k)
            t += QStringLiteral("  rank %1 mean %2, slowest %3\n")
                     .arg(means[k].rank, 4)
                     .arg(formatDuration(means[k].mean), 10)
                     .arg(formatDuration(means[k].most));
        for (size_t i = 0; i < std::min<size_t>(longest, 16); ++i) {
            std::vector<TimeNs> d;
            for (const RankSteps &s : steps)
                if (i < s.iterations.size())
                    d.push_back(s.iterations[i].second - s.iterations[i].first);
            std::sort(d.begin(), d.end());
            t += QStringLiteral("  iteration %1 over %2 ranks: min %3, median %4, max %5\n")
                     .arg(i, 2)
                     .arg(d.size())
                     .arg(formatDuration(d.front()), 9)
                     .arg(formatDuration(d[d.size() / 2]), 9)
                     .arg(formatDuration(d.back()), 9);
        }
    }
    return t;
}

} // namespace gml::sim
