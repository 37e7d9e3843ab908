// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The writing of a cluster project (simulator/cluster/clustermerge.h decides what to merge):
// a shard row per input, each shard's catalog copied in (its experiments, workloads, runs,
// sources and tracks with ids moved past the cluster's, its summaries, rank facts, strings and
// counters; its slices stay in the shard), in one transaction per shard. Ids: clusterproject.h.

#include "clusterproject.h"
#include "types.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace gml {

class Project;

namespace cluster {

// What SQLite's quick check finds wrong with `shard` (empty: nothing).
QStringList damageOf(Project &shard);

// A shard row: path relative to the cluster project (or a description of a shard not given),
// status (merged, failed, missing), why it failed, its size and identity (when it has one).
struct NewShard
{
    QString path, status, error;
    qint64 bytes = 0;
    std::optional<ShardIdentity> identity;
};
// Its id; 0 on error (*error set).
qint64 addShard(Project &cluster, const NewShard &shard, QString *error);
void markShardFailed(Project &cluster, qint64 shard, const QString &why);

// What copyShardCatalog copied.
struct ShardCopy
{
    int sources = 0, failedSources = 0;
    qint64 tracks = 0;
};
// Copies the catalog of the shard project at `shardPath` into the cluster project as shard
// `shardId` (its row made by addShard), in a transaction of its own, and marks it merged.
// False (and *problem) when it cannot; the cluster project is then as before.
[[nodiscard]] bool copyShardCatalog(Project &cluster, const QString &shardPath, qint64 shardId,
                                    ShardCopy *copied, QString *problem);

} // namespace cluster
} // namespace gml
