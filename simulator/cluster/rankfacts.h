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
