// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusteranalysis.h"

#include "clockalignment.h"
#include "clusterproject.h"
#include "project.h"
#include "projecttime.h"
#include "rankdetail.h"
#include "rankfacts.h"
#include "runmetrics.h"
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

using Group = std::vector<CollectiveArrival>;

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

// "4–7", "0, 2, 9": the ranks a shard held.
QString rankList(std::vector<int> ranks)
{
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    QStringList parts;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        parts << (j > i + 1 ? QStringLiteral("%1–%2").arg(ranks[i]).arg(ranks[j])
                            : QString::number(ranks[i]));
        if (j == i + 1)
            parts << QString::number(ranks[j]);
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

// The straggler rule (findings.h) over the collectives of all ranks: a shard sees its own
// ranks' arrivals only, so the cluster finds it itself. Not priced: its fix (the rank's work
// brought to the others' mean) is a replay of the whole job, which no process holds.
std::optional<Finding> jobStraggler(const Analysis &cross, const std::vector<RankSteps> &steps)
{
    TimeNs span = 0;
    for (const Straggler &st : cross.stragglers)
        span = std::max(span, st.lastArrival - cross.stragglers.front().firstArrival);
    auto f = stragglerFinding(
        cross,
        [&](int rank) {
            std::pair<TimeNs, qint64> sum{0, 0};
            for (const RankSteps &s : steps)
                if (s.rank == rank)
                    for (const auto &[a, b] : s.iterations) {
                        sum.first += b - a;
                        ++sum.second;
                    }
            return sum;
        },
        span);
    if (f) {
        const int rank = f->evidence.empty() ? -1 : f->evidence.front().rank;
        f->detail += QStringLiteral(" Found across the collectives of all ranks.");
        f->noFix = QStringLiteral("pricing it replays the whole job, which a cluster project "
                                  "does not hold: see rank %1 on its shard (grademl analyze "
                                  "PROJECT --rank %1)")
                       .arg(rank);
    }
    return f;
}

// One finding per rule: the shard's where the fix gains most (else the largest share), its
// ranks named, on how many shards the rule held said; evidence put on the cluster's clock.
std::vector<Finding> reduceFindings(const std::vector<RankFacts> &shards,
                                    const std::map<int, TimeNs> &offsetOfRank, int searched,
                                    const Analysis &cross, const std::vector<RankSteps> &steps)
{
    std::map<QString, std::pair<const Finding *, const RankFacts *>> best;
    std::map<QString, int> shardsWith;
    const auto better = [](const Finding &a, const Finding &b) {
        return a.gain() != b.gain() ? a.gain() > b.gain() : a.share > b.share;
    };
    for (const RankFacts &f : shards)
        for (const Finding &x : f.findings) {
            if (x.rule == QLatin1String("straggler")) // the job's, below
                continue;
            ++shardsWith[x.rule];
            auto &b = best[x.rule];
            if (!b.first || better(x, *b.first))
                b = {&x, &f};
        }
    std::vector<Finding> out;
    for (const auto &[rule, b] : best) {
        Finding f = *b.first;
        const QString ranks = rankList(b.second->shardRanks);
        const int on = shardsWith[rule];
        f.title += QStringLiteral(" (ranks %1)").arg(ranks);
        f.detail += QStringLiteral(
                        "\n\nFound on %1 of %2 shards; shown and priced as the shard of ranks %3 "
                        "found it (its own execution model).")
                        .arg(on)
                        .arg(searched)
                        .arg(ranks);
        for (Evidence &e : f.evidence) {
            const auto off = offsetOfRank.find(e.rank);
            if (e.start == 0 && e.end == 0)
                continue;
            if (off == offsetOfRank.end())
                e.start = e.end = 0;
            else
                e.start += off->second, e.end += off->second;
        }
        out.push_back(std::move(f));
    }
    if (auto f = jobStraggler(cross, steps))
        out.push_back(std::move(*f));
    rankFindings(out);
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
    std::vector<RankFacts> found; // the facts that carry a shard's findings
    std::map<int, TimeNs> offsetOfRank;
    RankDetailMerge detail;
    QString readError;
    for (const auto &[source, offset] : importedSourceOffsets(cluster, run, &readError)) {
        if (auto facts = loadRankFacts(db, source)) {
            for (const RankLoad &l : facts->loads)
                offsetOfRank.try_emplace(l.rank, offset);
            if (facts->findingsSearched) { // its findings only: the rest is read below
                RankFacts carried;
                carried.findingsSearched = true;
                carried.findings = std::move(facts->findings);
                carried.shardRanks = std::move(facts->shardRanks);
                found.push_back(std::move(carried));
            }
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
            detail.add(std::move(facts->detail), offset);
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
    const std::vector<Group> groups = matchArrivals(std::move(bySource));
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
    out.shardsSearched = int(found.size());
    out.findings = reduceFindings(found, offsetOfRank, int(found.size()), a, out.steps);
    if (const auto metrics = computeRunMetrics(cluster, run, &readError)) {
        out.summary.gpuBusy = metrics->value(QStringLiteral("gpu_busy")).toDouble(-1);
        out.summary.mfu = metrics->value(QStringLiteral("mfu")).toDouble(-1);
        out.summary.hfu = metrics->value(QStringLiteral("hfu")).toDouble(-1);
        out.summary.device = metrics->value(QStringLiteral("device")).toString();
    }
    detail.finish(a, out.summary);
    if (detail.missing() > 0)
        out.summary.warnings.append(
            QStringLiteral("%1 sources' facts were kept before their GPUs, iterations, kernels "
                           "and step time were: import their shards again to see them")
                .arg(detail.missing()));
    return out;
}

QJsonObject ClusterAnalysis::toJson() const
{
    const QJsonObject whole = cross.toJson();
    QJsonArray found;
    for (const Finding &f : findings)
        found.append(f.toJson());
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
    // The whole run's report's fields (gpus, iterations, kernel_families, top_kernels, launch,
    // unrecognised_kernels, stragglers, ranks, imbalance), then the cluster's own.
    QJsonObject o = whole;
    o.insert(QStringLiteral("run"), run);
    o.insert(QStringLiteral("shards"), shards);
    o.insert(QStringLiteral("merged_shards"), mergedShards);
    o.insert(QStringLiteral("missing"), QJsonArray::fromStringList(missing));
    o.insert(QStringLiteral("rank_count"), ranks);
    o.insert(QStringLiteral("critical_path_by_rank"), critical);
    o.insert(QStringLiteral("critical_path_ns"), qint64(criticalLength));
    o.insert(QStringLiteral("steps"), stepArray);
    o.insert(QStringLiteral("summary"), summary.toJson());
    o.insert(QStringLiteral("shards_searched"), shardsSearched);
    o.insert(QStringLiteral("findings"), found);
    return o;
}

RunReport ClusterAnalysis::toRunReport() const
{
    RunReport r;
    r.run = run;
    r.analysis = cross;
    r.criticalByRank = criticalByRank;
    r.criticalLength = criticalLength;
    r.summary = summary;
    TimeNs sum = 0, origin = std::numeric_limits<TimeNs>::max();
    qint64 count = 0, most = 0;
    for (const RankSteps &s : steps)
        for (const auto &[a, b] : s.iterations) {
            sum += b - a;
            ++count;
            origin = std::min(origin, a);
            most = std::max<qint64>(most, qint64(s.iterations.size()));
        }
    if (count > 0)
        r.origin = origin;
    if (!cross.iterations.empty() || summary.iterations > 0)
        return withFindings(r); // the shards' own breakdown and step time (rankdetail.h)
    // Shards whose facts predate them: the mean step over ranks and iterations, and the
    // rank × iteration heat map from each rank's iterations as its summary recorded them.
    r.summary.iterations = most;
    if (count > 0)
        r.summary.stepTime = sum / count;
    for (const RankSteps &s : steps)
        for (size_t i = 0; i < s.iterations.size(); ++i) {
            IterationBreakdown it;
            it.name = QStringLiteral("iteration %1").arg(i);
            it.rank = s.rank;
            it.start = s.iterations[i].first;
            it.end = s.iterations[i].second;
            r.analysis->iterations.push_back(std::move(it));
        }
    return withFindings(r);
}

RunReport ClusterAnalysis::withFindings(RunReport r) const
{
    r.findings = findings;
    r.noFindingsBecause = noFindingsBecause();
    return r;
}

QString ClusterAnalysis::noFindingsBecause() const
{
    if (!findings.empty())
        return {};
    return shardsSearched == 0
               ? QStringLiteral("the shards were imported before their findings were kept: "
                                "import them again (grademl import --shard) to see them here")
               : QStringLiteral("no rule passed its threshold on any of the %1 shards")
                     .arg(shardsSearched);
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
    if (const QString step = summary.stepText(); !step.isEmpty())
        t += QStringLiteral("Iterations: %1\n").arg(step);
    if (summary.gpuBusy >= 0)
        t += QStringLiteral("GPU busy %1%\n").arg(100.0 * summary.gpuBusy, 0, 'f', 1);
    for (const QString &w : summary.warnings)
        t += QStringLiteral("Note: %1\n").arg(w);
    if (findings.empty())
        t += QStringLiteral("No findings: %1\n").arg(noFindingsBecause());
    else
        t += QStringLiteral("Findings (each found and priced on its shard, %1 searched):\n")
                 .arg(shardsSearched);
    for (size_t k = 0; k < findings.size(); ++k)
        t += QStringLiteral("  %1. %2: %3\n")
                 .arg(k + 1)
                 .arg(findings[k].title, gainText(findings[k]));
    return t;
}

} // namespace gml::sim
