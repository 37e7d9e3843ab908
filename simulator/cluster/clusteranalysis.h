// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The cross-rank analyses of a cluster project's run (clustermerge.h), reduced from its
// sources' rank facts and summaries without reading a slice: the stragglers of every collective
// (matched across ranks as the execution model matches them, with the ranks' clocks aligned
// across shards), each rank's compute and communication and the imbalance between ranks, the
// kernel families, the rank × iteration step times, and the critical path across ranks as the
// collectives tell it. The same functions as a whole-run analysis (analysis.h: stragglerOf,
// finishRanks) give the same report for the same job; the critical path is the one reduce of
// its own (a whole run's comes from replaying its graph).

#include "analysis.h"
#include "findings.h"
#include "types.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace gml {
class Project;
} // namespace gml

namespace gml::sim {

struct RankSteps
{
    int rank = -1;
    std::vector<std::pair<TimeNs, TimeNs>> iterations; // on the project clock, by start
};

struct ClusterAnalysis
{
    QString run;
    int shards = 0, mergedShards = 0;
    QStringList missing; // the shards and files the run lacks, with why
    int ranks = 0;       // ranks with GPU work or iterations
    // Stragglers, ranks, imbalance, kernel families; each rank's GPUs and iterations, the kernels
    // and launches of all ranks (rankdetail.h: as the shards' analyses found them).
    Analysis cross;
    std::vector<RankSteps> steps;
    // The run's span split between the ranks that held the others up (criticalByRank in
    // clusteranalysis.cpp), longest first, and its length.
    std::vector<std::pair<int, TimeNs>> criticalByRank;
    TimeNs criticalLength = 0;
    // Each shard's findings (rankfacts.h), one per rule: the shard where fixing it gains most,
    // naming its ranks, priced on that shard's execution model, ranked as a run's are; evidence
    // on the cluster's clock. `shardsSearched`: shards whose facts say findings were looked for.
    std::vector<Finding> findings;
    int shardsSearched = 0;
    // The run's headline metrics (runmetrics.h: GPU busy, MFU, HFU, the GPU), from the merged
    // source summaries; its iterations, step time and FLOPs from the shards' (rankdetail.h).
    RunSummary summary;

    QJsonObject toJson() const;
    QString toText() const;
    // As the Analysis panel shows a run: the cross-rank analyses, the mean step over ranks and
    // iterations, the headline metrics, the rank × iteration step times and the findings.
    RunReport toRunReport() const;
    // Why there are no findings (empty when there are some).
    QString noFindingsBecause() const;

private:
    RunReport withFindings(RunReport r) const;
};

std::optional<ClusterAnalysis> analyzeCluster(Project &cluster, RunId run, const QString &runName,
                                              QString *error);

} // namespace gml::sim
