// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a cross-rank analysis needs of one source (a rank's trace) beyond its summary
// (model/store/sourcesummary.h), taken from the execution model of the run that holds it: the map
// step of a sharded import. Stored with the source (table rank_facts) by `grademl import
// --shard`, merged into the cluster project, and reduced there (clusteranalysis.h).
//
// Times are on the source's own clock (its clock offset and alignment taken off): the cluster
// project aligns the ranks of all shards together and adds its own offsets.

#include "analysis.h"
#include "findings.h"
#include "rankdetail.h"
#include "types.h"

#include <QByteArray>

#include <map>
#include <optional>
#include <vector>

namespace gml {
class Project;
class SqliteDb;
} // namespace gml

namespace gml::sim {

// Bumped whenever what the facts hold or how they are computed changes (2: stored compressed).
inline constexpr int kRankFactsVersion = 2;

struct RankFacts
{
    std::vector<CollectiveArrival> collectives; // its collective kernels, in start order
    std::vector<RankLoad> loads;                // its ranks' compute and communication
    std::vector<KernelFamily> families;         // its GPU work by family
    // The shard's findings (findings.h), found and priced on the shard's own execution model
    // (issue 57), carried by the facts of the run's first source with GPU work only:
    // `findingsSearched` says they were looked for (false: a shard imported before), `shardRanks`
    // which ranks the shard's run held. Their fixes are not kept (a cluster replays nothing);
    // their evidence keeps its rank and its times on that rank's source's own clock (0, 0: no
    // time), its slice and track ids are the shard's, so not kept either.
    bool findingsSearched = false;
    std::vector<Finding> findings;
    std::vector<int> shardRanks;
    // Its rank's GPUs and iterations, and (the first source with GPU work) its shard's kernels,
    // launches, FLOPs and step time (rankdetail.h).
    RankDetail detail;

    QByteArray toCbor() const;
    static std::optional<RankFacts> fromCbor(const QByteArray &data);
};

// The facts of every source of `run` with GPU work, by source. nullopt (and `error`) when the
// run's execution model cannot be built.
std::optional<std::map<SourceId, RankFacts>> computeRankFacts(Project &project, RunId run,
                                                              QString *error);
// computeRankFacts for each run, stored (replacing older facts) in one transaction.
[[nodiscard]] bool storeRankFacts(Project &project, const QList<RunId> &runs, QString *error);
// The stored facts of a source (current version), nullopt when there are none.
std::optional<RankFacts> loadRankFacts(const SqliteDb &db, SourceId source);

} // namespace gml::sim
