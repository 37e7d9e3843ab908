// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusterproject.h"

#include "project.h"
#include "projecttime.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QRandomGenerator>

#include <algorithm>

namespace gml::cluster {

namespace {

Shard shardFrom(SqliteStatement &st, const QDir &dir)
{
    Shard s{st.int64(0),
            dir.absoluteFilePath(st.text(1)),
            st.text(2),
            st.int64(3),
            st.int64(4),
            {},
            {},
            -1,
            0};
    if (st.columnCount() > 5 && !st.isNull(5)) {
        s.job = st.text(5);
        s.index = int(st.int64(6));
        s.count = int(st.int64(7));
        s.stamp = st.text(8);
    }
    return s;
}

// The identity columns exist from schema 13 on.
std::string shardColumns(Project &project)
{
    return project.schemaVersion() >= 13
               ? "SELECT id, path, status, source_base, track_base, job, shard_index, "
                 "shard_count, stamp FROM shard"
               : "SELECT id, path, status, source_base, track_base FROM shard";
}

} // namespace

// The offset that puts source `source` of the cluster on its clock.
TimeNs clusterOffset(Project &cluster, SourceId source)
{
    return sourceOffset(cluster, source);
}

// The shard holding slice `id`, opened read-only; null (and *error) when it cannot be.
std::unique_ptr<Project> openShardOf(Project &cluster, SliceId id, Shard *out, QString *error)
{
    const auto sh = shard(cluster, shardOfSlice(id));
    if (!sh) {
        if (error)
            *error = QStringLiteral(
                         "slice %1 names shard %2, which this cluster project does not reference")
                         .arg(id)
                         .arg(shardOfSlice(id));
        return nullptr;
    }
    *out = *sh;
    QString why;
    auto p = Project::open(sh->path, Project::Mode::ReadOnly, &why);
    if (p)
        why = shardMismatch(*p, *sh);
    if (!why.isEmpty()) {
        if (error)
            *error = QStringLiteral("its shard %1 cannot be read: %2").arg(sh->path, why);
        return nullptr;
    }
    return p;
}

std::vector<Shard> shards(Project &project)
{
    std::vector<Shard> out;
    if (project.schemaVersion() < 12)
        return out;
    const QDir dir = QFileInfo(project.path()).absoluteDir();
    auto st = project.db().prepare(shardColumns(project) + " ORDER BY id");
    while (st.step())
        out.push_back(shardFrom(st, dir));
    return out;
}

std::optional<Shard> shard(Project &project, qint64 id)
{
    if (project.schemaVersion() < 12)
        return std::nullopt;
    auto st = project.db().prepare(shardColumns(project) + " WHERE id = ?");
    st.bind(1, id);
    if (!st.step())
        return std::nullopt;
    return shardFrom(st, QFileInfo(project.path()).absoluteDir());
}

std::shared_ptr<const std::unordered_map<StringId, StringId>> stringMap(const SqliteDb &shardDb,
                                                                        const SqliteDb &clusterDb)
{
    auto out = std::make_shared<std::unordered_map<StringId, StringId>>();
    auto all = shardDb.prepare("SELECT id, value FROM string");
    auto find = clusterDb.prepare("SELECT id FROM string WHERE value = ?");
    while (all.step()) {
        find.reset();
        find.bind(1, all.text(1));
        (*out)[StringId(all.int64(0))] = find.step() ? StringId(find.int64(0)) : 0;
    }
    return out;
}

std::optional<QString> shardOfRank(Project &cluster, RunId run, int rank, QString *why)
{
    auto st = cluster.db().prepare(
        "SELECT sh.path, sh.status, s.status, s.path, sh.id FROM track t JOIN source s ON s.id = "
        "t.source_id "
        "JOIN shard sh ON sh.id = s.shard_id WHERE t.run_id = ? AND t.rank = ? "
        "ORDER BY s.status = 'imported' DESC LIMIT 1");
    st.bind(1, run);
    st.bind(2, qint64(rank));
    if (!st.step()) {
        *why = QStringLiteral("no rank %1 in any shard").arg(rank);
        return std::nullopt;
    }
    const QString path = QFileInfo(cluster.path()).absoluteDir().absoluteFilePath(st.text(0));
    if (st.text(1) != QLatin1String("merged") || !QFileInfo(path).isFile()) {
        *why = QStringLiteral("rank %1 is in shard %2, which is %3")
                   .arg(rank)
                   .arg(path, QFileInfo(path).isFile() ? st.text(1) : QStringLiteral("gone"));
        return std::nullopt;
    }
    if (st.text(2) != QLatin1String("imported")) {
        *why = QStringLiteral("rank %1's file %2 was not imported").arg(rank).arg(st.text(3));
        return std::nullopt;
    }
    // The file there must be the shard that was merged (not swapped, replaced or re-imported).
    const auto expected = shard(cluster, st.int64(4));
    QString problem;
    auto opened = Project::open(path, Project::Mode::ReadOnly, &problem);
    if (opened && expected)
        problem = shardMismatch(*opened, *expected);
    if (!problem.isEmpty()) {
        *why = QStringLiteral("rank %1 is in shard %2, which cannot be read: %3")
                   .arg(rank)
                   .arg(path, problem);
        return std::nullopt;
    }
    return path;
}

QString jobIdentity(const QByteArray &plan)
{
    return QString::fromLatin1(
        QCryptographicHash::hash(plan, QCryptographicHash::Sha256).toHex().left(16));
}

std::optional<ShardIdentity> shardIdentity(Project &project)
{
    if (project.schemaVersion() < 13)
        return std::nullopt;
    auto st = project.db().prepare(
        "SELECT job, shard_index, shard_count, stamp FROM shard_identity WHERE id = 1");
    if (!st.step())
        return std::nullopt;
    return ShardIdentity{st.text(0), st.text(3), int(st.int64(1)), int(st.int64(2))};
}

bool storeShardIdentity(Project &project, const QString &job, int index, int count, QString *error)
{
    const QString stamp =
        QStringLiteral("%1%2")
            .arg(QRandomGenerator::system()->generate64(), 16, 16, QLatin1Char('0'))
            .arg(QRandomGenerator::system()->generate64(), 16, 16, QLatin1Char('0'));
    if (!project.begin(error))
        return false;
    auto st = project.db().prepare(
        "INSERT OR REPLACE INTO shard_identity(id, job, shard_index, shard_count, stamp) "
        "VALUES (1, ?, ?, ?, ?)");
    st.bind(1, job);
    st.bind(2, qint64(index));
    st.bind(3, qint64(count));
    st.bind(4, stamp);
    if (!st.exec()) {
        if (error)
            *error = st.errorString();
        project.rollback();
        return false;
    }
    return project.commit(error);
}

QString shardMismatch(Project &shardProject, const Shard &expected)
{
    if (isClusterProject(shardProject))
        return QStringLiteral(
            "it is a cluster project, not a shard (was it merged over a shard?); import the "
            "shard again and merge again");
    if (expected.stamp.isEmpty())
        return {}; // merged before shards had identities: nothing to compare
    const auto id = shardIdentity(shardProject);
    if (!id)
        return QStringLiteral("it is not a shard project (it has no shard identity); the file "
                              "merged as shard %1 "
                              "of %2 was replaced since the merge")
            .arg(expected.index)
            .arg(expected.count);
    if (id->job != expected.job || id->index != expected.index || id->count != expected.count)
        return QStringLiteral("it holds shard %1 of %2 of job %3, not shard %4 of %5 of job %6 "
                              "that was merged "
                              "(shards swapped, or from another job); merge again")
            .arg(id->index)
            .arg(id->count)
            .arg(id->job)
            .arg(expected.index)
            .arg(expected.count)
            .arg(expected.job);
    if (id->stamp != expected.stamp)
        return QStringLiteral("it was imported again after the merge; merge again to read it");
    return {};
}

ShardCounts shardCounts(Project &cluster)
{
    ShardCounts out;
    auto st = cluster.db().prepare("SELECT count(*), total(status = 'merged') FROM shard");
    if (st.step()) {
        out.total = int(st.int64(0));
        out.merged = int(st.int64(1));
    }
    return out;
}

QList<ShardStatus> unmergedShards(Project &cluster)
{
    QList<ShardStatus> out;
    auto bad = cluster.db().prepare("SELECT path, status, coalesce(error, '') FROM shard WHERE "
                                    "status != 'merged' ORDER BY path");
    while (bad.step())
        out.append(ShardStatus{bad.text(0), bad.text(1), bad.text(2)});
    return out;
}

bool isClusterProject(Project &project)
{
    if (project.schemaVersion() < 12)
        return false;
    auto st = project.db().prepare("SELECT EXISTS (SELECT 1 FROM shard)");
    return st.step() && st.int64(0) != 0;
}

} // namespace gml::cluster
