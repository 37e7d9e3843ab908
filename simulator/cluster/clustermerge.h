// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A cluster project: the catalog of a job imported in shards (docs/cluster.md). It references
// each shard project by a path relative to itself, and holds what opening the job and its
// cross-rank analyses need without any slice: the shards' runs, sources and tracks (with new
// ids; each source knows its shard and its id there), their summaries (model/store/sourcesummary.h)
// and rank facts (rankfacts.h), the ranks' clocks aligned across all shards from those facts,
// and each run's headline metrics. A shard that failed or is missing is listed with why, so the
// project says which ranks it lacks.

#include "types.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace gml {
class Project;
} // namespace gml

namespace gml::sim {

struct ShardInput
{
    QString path;  // the shard project (absolute, or relative to the working folder)
    QString error; // set: the shard's import failed and wrote no project (said in the catalog)
};

struct MergeReport
{
    int shards = 0, merged = 0, failed = 0, missing = 0;
    qint64 sources = 0, failedSources = 0, tracks = 0;
    qint64 shardBytes = 0;
    double seconds = 0;
    QStringList problems; // one line per shard not merged, or per failed source
};

// Writes the cluster project at `path` from `shards` (replacing only a cluster project there,
// in one step: it is written beside and renamed, so a reader sees the old one or the new one
// whole; nothing is left beside it when it stops). False (and `error`, naming the file) when it
// cannot be written or refuses its inputs, before writing anything: an output that is another
// kind of file or one of the inputs, an input given twice or unfinished (.partial), a project
// that is not a shard, shards of different jobs or counts, two files that are the same shard.
// A shard that cannot be read or is damaged is listed as failed, and a shard of the job that is
// not given as missing: problems, not errors.
bool mergeShards(const QString &path, const QList<ShardInput> &shards, MergeReport *report,
                 QString *error);

} // namespace gml::sim
