// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How readers of a cluster project reach the detail its shards hold (issue 39; docs/cluster.md).
// A cluster project (written by simulator/cluster/clustermerge.h) holds the catalog, the
// summaries of each source and run, and the counters; the slices, flows and level-of-detail
// summaries stay in the shard projects it references (table shard, by a path relative to it),
// read for what is on screen as a single project's are (model/read/slicepager.h).
//
// Ids: a shard's sources and tracks got the cluster's ids by adding the shard's source_base and
// track_base. Its slices keep their shard id in the low kShardSliceBits bits of the cluster's
// id, the shard's id above (a cluster project has no slice of its own, so the two never
// collide); its strings were all copied into the cluster's string table, matched by value.
// Times: a shard's rows are on their source's clock, as in any project; the cluster's source
// row carries the offset that puts them on the cluster's clock (aligned across all shards).

#include "types.h"

#include <QList>
#include <QString>

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace gml {

class Project;
class SqliteDb;

namespace cluster {

inline constexpr int kShardSliceBits = 40;

inline SliceId sliceIdOf(qint64 shard, SliceId stored)
{
    return (SliceId(shard) << kShardSliceBits) | stored;
}
inline qint64 shardOfSlice(SliceId id)
{
    return id >> kShardSliceBits;
}
inline SliceId storedSlice(SliceId id)
{
    return id & ((SliceId(1) << kShardSliceBits) - 1);
}

// A shard as the cluster project references it.
struct Shard
{
    qint64 id = 0;
    QString path;   // absolute (resolved against the cluster project's folder)
    QString status; // merged, failed or missing
    qint64 sourceBase = 0, trackBase = 0;
    // The shard's identity as merged (ShardIdentity); empty in projects merged before schema 13.
    QString job, stamp;
    int index = -1, count = 0;
};

// What a shard project says of itself (table shard_identity, schema 13): the job it belongs to
// (a hash of the job's whole file list: the same in every shard of one import), which shard of
// how many it is, and a stamp drawn anew each time it is imported.
struct ShardIdentity
{
    QString job, stamp;
    int index = 0, count = 0;
};

// The job of a file list, as jobIdentity computes it from the plan's bytes (writePlan).
QString jobIdentity(const QByteArray &plan);
// The shard identity `project` holds; nullopt when it is not a shard (or older than schema 13).
std::optional<ShardIdentity> shardIdentity(Project &project);
// Writes `identity` (with a new stamp) into the shard project, in a transaction of its own.
[[nodiscard]] bool storeShardIdentity(Project &project, const QString &job, int index, int count,
                                      QString *error);
// Why the project opened as `shardProject` is not the shard `expected` that the cluster project
// merged (another job, another index, imported again since, or itself a cluster project);
// empty when it is. Every reader of a cluster project checks a shard before reading it.
QString shardMismatch(Project &shardProject, const Shard &expected);

// How many shards the cluster project references, and how many of them merged.
struct ShardCounts
{
    int total = 0, merged = 0;
};
ShardCounts shardCounts(Project &cluster);
// The shards that did not merge: path (as stored, relative to the cluster project), status and
// error, by path.
struct ShardStatus
{
    QString path, status, error;
};
QList<ShardStatus> unmergedShards(Project &cluster);

// True when `project` is a cluster project (it references shards).
bool isClusterProject(Project &project);

// The shard project holding `rank` of `run` (its path made absolute from the cluster
// project's folder); nullopt with why (no such rank, or its shard failed or is missing).
std::optional<QString> shardOfRank(Project &cluster, RunId run, int rank, QString *why);

// The shards of `project`: none when it is not a cluster project (or older than schema 12).
std::vector<Shard> shards(Project &project);
std::optional<Shard> shard(Project &project, qint64 id);

// Shard string id -> cluster string id, for every string of the shard (opened as `shardDb`),
// looked up in `clusterDb`. A string the cluster lacks (a shard changed after the merge) maps to
// 0 (no name).
std::shared_ptr<const std::unordered_map<StringId, StringId>> stringMap(const SqliteDb &shardDb,
                                                                        const SqliteDb &clusterDb);

// The offset that puts source `source` of the cluster on its clock.
TimeNs clusterOffset(Project &cluster, SourceId source);
// The shard holding slice `id`, opened read-only and checked (shardMismatch); null (and
// *error) when it cannot be. *out is the shard as the cluster references it.
std::unique_ptr<Project> openShardOf(Project &cluster, SliceId id, Shard *out, QString *error);

} // namespace cluster
} // namespace gml
