// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusterproject.h"

#include "project.h"
#include "slicequery.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace gml::cluster {

namespace {

Shard shardFrom(SqliteStatement &st, const QDir &dir)
{
    return {st.int64(0), dir.absoluteFilePath(st.text(1)), st.text(2), st.int64(3), st.int64(4)};
}

constexpr const char *kShardColumns = "SELECT id, path, status, source_base, track_base FROM shard";

// The offset that puts source `source` of the cluster on its clock.
TimeNs clusterOffset(Project &cluster, SourceId source)
{
    auto st = cluster.db().prepare("SELECT coalesce(clock_offset_ns + align_ns, 0) FROM source WHERE id = ?");
    st.bind(1, source);
    return st.step() ? st.int64(0) : 0;
}

// The shard holding slice `id`, opened read-only; null (and *error) when it cannot be.
std::unique_ptr<Project> openShardOf(Project &cluster, SliceId id, Shard *out, QString *error)
{
    const auto sh = shard(cluster, shardOfSlice(id));
    if (!sh) {
        if (error)
            *error = QStringLiteral("slice %1 names shard %2, which this cluster project does not reference")
                         .arg(id)
                         .arg(shardOfSlice(id));
        return nullptr;
    }
    *out = *sh;
    QString why;
    auto p = Project::open(sh->path, Project::Mode::ReadOnly, &why);
    if (!p && error)
        *error = QStringLiteral("its shard %1 cannot be opened: %2").arg(sh->path, why);
    return p;
}

} // namespace

std::vector<Shard> shards(Project &project)
{
    std::vector<Shard> out;
    if (project.schemaVersion() < 12)
        return out;
    const QDir dir = QFileInfo(project.path()).absoluteDir();
    auto st = project.db().prepare(std::string(kShardColumns) + " ORDER BY id");
    while (st.step())
        out.push_back(shardFrom(st, dir));
    return out;
}

std::optional<Shard> shard(Project &project, qint64 id)
{
    if (project.schemaVersion() < 12)
        return std::nullopt;
    auto st = project.db().prepare(std::string(kShardColumns) + " WHERE id = ?");
    st.bind(1, id);
    if (!st.step())
        return std::nullopt;
    return shardFrom(st, QFileInfo(project.path()).absoluteDir());
}

std::shared_ptr<const std::unordered_map<StringId, StringId>> stringMap(const SqliteDb &shardDb, const SqliteDb &clusterDb)
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

std::optional<SliceDetails> sliceDetails(Project &cluster, SliceId id, QString *error)
{
    Shard sh;
    auto p = openShardOf(cluster, id, &sh, error);
    if (!p)
        return std::nullopt;
    auto st = p->db().prepare(
        "SELECT s.id, s.track_id, n.value, c.value, s.ts, s.dur, s.correlation, s.external_id, s.args, t.source_id "
        "FROM slice s JOIN track t ON t.id = s.track_id LEFT JOIN string n ON n.id = s.name_id "
        "LEFT JOIN string c ON c.id = s.cat_id WHERE s.id = ?");
    st.bind(1, storedSlice(id));
    if (!st.step()) {
        if (error)
            *error = st.errorString().isEmpty() ? QStringLiteral("not in its shard %1").arg(sh.path) : st.errorString();
        return std::nullopt;
    }
    SliceDetails d = sliceDetailsOf(st); // on the shard's ids and its source's clock
    d.id = id;
    d.track += sh.trackBase;
    d.start += clusterOffset(cluster, st.int64(9) + sh.sourceBase);
    return d;
}

QList<LinkedSlice> linkedSlices(Project &cluster, SliceId id)
{
    QList<LinkedSlice> out;
    Shard sh;
    auto p = openShardOf(cluster, id, &sh, nullptr);
    if (!p)
        return out;
    auto st = p->db().prepare(
        "SELECT f.kind, 1, s.id, s.track_id, t.source_id, n.value, s.ts, s.dur FROM flow f "
        "JOIN slice s ON s.id = f.to_slice JOIN track t ON t.id = s.track_id "
        "LEFT JOIN string n ON n.id = s.name_id WHERE f.from_slice = ?1 "
        "UNION ALL "
        "SELECT f.kind, 0, s.id, s.track_id, t.source_id, n.value, s.ts, s.dur FROM flow f "
        "JOIN slice s ON s.id = f.from_slice JOIN track t ON t.id = s.track_id "
        "LEFT JOIN string n ON n.id = s.name_id WHERE f.to_slice = ?1");
    st.bind(1, storedSlice(id));
    std::unordered_map<SourceId, TimeNs> offsets;
    while (st.step()) {
        const SourceId source = st.int64(4) + sh.sourceBase;
        auto off = offsets.find(source);
        if (off == offsets.end())
            off = offsets.emplace(source, clusterOffset(cluster, source)).first;
        LinkedSlice l;
        l.kind = FlowKind(st.int64(0));
        l.outgoing = st.int64(1) != 0;
        l.id = sliceIdOf(sh.id, st.int64(2));
        l.track = st.int64(3) + sh.trackBase;
        l.name = st.text(5);
        l.start = st.int64(6) + off->second;
        l.duration = st.int64(7);
        out.append(l);
    }
    std::stable_sort(out.begin(), out.end(), [](const LinkedSlice &a, const LinkedSlice &b) { return a.start < b.start; });
    return out;
}

std::optional<QString> shardOfRank(Project &cluster, RunId run, int rank, QString *why)
{
    auto st = cluster.db().prepare("SELECT sh.path, sh.status, s.status, s.path FROM track t JOIN source s ON s.id = t.source_id "
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
        *why = QStringLiteral("rank %1 is in shard %2, which is %3").arg(rank).arg(path, QFileInfo(path).isFile() ? st.text(1) : QStringLiteral("gone"));
        return std::nullopt;
    }
    if (st.text(2) != QLatin1String("imported")) {
        *why = QStringLiteral("rank %1's file %2 was not imported").arg(rank).arg(st.text(3));
        return std::nullopt;
    }
    return path;
}

bool isClusterProject(Project &project)
{
    if (project.schemaVersion() < 12)
        return false;
    auto st = project.db().prepare("SELECT EXISTS (SELECT 1 FROM shard)");
    return st.step() && st.int64(0) != 0;
}

} // namespace gml::cluster
