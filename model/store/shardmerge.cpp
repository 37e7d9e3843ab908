// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardmerge.h"

#include "project.h"
#include "tracewriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <string>
#include <utility>
#include <vector>

namespace gml::cluster {

namespace {

// The columns of a main-database table, less those the merge sets itself.
std::string columnsOf(SqliteDb &db, const char *table, std::initializer_list<const char *> except)
{
    std::string out;
    auto st = db.prepare(std::string("SELECT name FROM pragma_table_info('") + table + "')");
    while (st.step()) {
        const QString name = st.text(0);
        bool skip = false;
        for (const char *e : except)
            skip = skip || name == QLatin1String(e);
        if (skip)
            continue;
        if (!out.empty())
            out += ", ";
        out += name.toStdString();
    }
    return out;
}

} // namespace

QStringList damageOf(Project &shard)
{
    auto check = shard.db().prepare("PRAGMA quick_check(5)");
    QStringList damage;
    while (check.step()) // one row or several, each of one or more lines
        for (const QString &line : check.text(0).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            if (line != QLatin1String("ok") && !line.startsWith(QLatin1String("***")))
                damage.append(line);
    if (!check.errorString().isEmpty())
        damage.append(check.errorString());
    return damage;
}

qint64 addShard(Project &cluster, const NewShard &s, QString *error)
{
    auto addShard = cluster.db().prepare(
        "INSERT INTO shard(path, status, error, bytes, job, shard_index, shard_count, "
        "stamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    addShard.bind(1, s.path);
    addShard.bind(2, s.status);
    if (s.error.isEmpty())
        addShard.bindNull(3);
    else
        addShard.bind(3, s.error);
    addShard.bind(4, s.bytes);
    if (s.identity) {
        addShard.bind(5, s.identity->job);
        addShard.bind(6, qint64(s.identity->index));
        addShard.bind(7, qint64(s.identity->count));
        addShard.bind(8, s.identity->stamp);
    } else {
        for (int column = 5; column <= 8; ++column)
            addShard.bindNull(column);
    }
    if (!addShard.exec(error))
        return 0;
    return cluster.db().lastInsertRowId();
}

void markShardFailed(Project &cluster, qint64 shard, const QString &why)
{
    auto up = cluster.db().prepare("UPDATE shard SET status = 'failed', error = ? WHERE id = ?");
    up.bind(1, why);
    up.bind(2, shard);
    (void)up.exec();
}

bool copyShardCatalog(Project &cluster, const QString &shardPath, qint64 shardId, ShardCopy *copied,
                      QString *problem)
{
    auto &db = cluster.db();
    auto attach = db.prepare("ATTACH DATABASE ? AS shard");
    attach.bind(1, shardPath);
    if (!attach.exec()) {
        *problem = attach.errorString();
        return false;
    }
    QString error;
    auto detach = [&] { (void)db.exec("DETACH DATABASE shard"); };
    if (!cluster.begin(&error)) {
        detach();
        *problem = error;
        return false;
    }
    auto fail = [&](const QString &why) {
        cluster.rollback();
        detach();
        *problem = why;
        return false;
    };
    auto scalar = [&](const char *sql) {
        auto st = db.prepare(sql);
        return st.step() ? st.int64(0) : 0;
    };
    const qint64 sourceBase = scalar("SELECT coalesce(max(id), 0) FROM main.source");
    const qint64 trackBase = scalar("SELECT coalesce(max(id), 0) FROM main.track");
    const std::string sourceCols = columnsOf(
        db, "source", {"id", "run_id", "shard_id", "shard_source_id", "align_ns", "alignment"});
    const std::string trackCols =
        columnsOf(db, "track", {"id", "run_id", "source_id", "parent_id"});
    const std::string base = std::to_string(sourceBase), tbase = std::to_string(trackBase),
                      sid = std::to_string(shardId);
    const std::string runOf = "(SELECT m.id FROM main.run m WHERE m.name = (SELECT r.name FROM "
                              "shard.run r WHERE r.id = x.run_id))";
    const std::vector<std::string> steps = {
        "INSERT OR IGNORE INTO main.experiment(name, params, tags) SELECT name, params, tags FROM "
        "shard.experiment",
        // A workload is its experiment's name and its own (NULL experiments compare equal here).
        "INSERT INTO main.workload(experiment_id, name) SELECT DISTINCT "
        "(SELECT e2.id FROM main.experiment e2 WHERE e2.name = e.name), w.name FROM shard.workload "
        "w "
        "LEFT JOIN shard.experiment e ON e.id = w.experiment_id WHERE NOT EXISTS (SELECT 1 FROM "
        "main.workload w2 "
        "LEFT JOIN main.experiment e2 ON e2.id = w2.experiment_id WHERE w2.name = w.name AND "
        "e2.name IS e.name)",
        "INSERT INTO main.run(workload_id, name, kind, params, tags, created_at) SELECT "
        "(SELECT w2.id FROM main.workload w2 LEFT JOIN main.experiment e2 ON e2.id = "
        "w2.experiment_id "
        " WHERE w2.name = w.name AND e2.name IS e.name), r.name, r.kind, r.params, r.tags, "
        "r.created_at "
        "FROM shard.run r LEFT JOIN shard.workload w ON w.id = r.workload_id "
        "LEFT JOIN shard.experiment e ON e.id = w.experiment_id WHERE r.name NOT IN (SELECT name "
        "FROM main.run)",
        "INSERT INTO main.source(id, run_id, shard_id, shard_source_id, " + sourceCols +
            ") SELECT x.id + " + base + ", " + runOf + ", " + sid + ", x.id, " + sourceCols +
            " FROM shard.source x",
        "INSERT INTO main.track(id, run_id, source_id, parent_id, " + trackCols +
            ") SELECT x.id + " + tbase + ", " + runOf + ", x.source_id + " + base +
            ", x.parent_id + " + tbase + ", " + trackCols + " FROM shard.track x",
        "INSERT INTO main.source_summary(source_id, version, data) SELECT source_id + " + base +
            ", version, data FROM shard.source_summary",
        "INSERT INTO main.rank_facts(source_id, version, data) SELECT source_id + " + base +
            ", version, data FROM shard.rank_facts",
        // Every name, so that what is paged from the shard keeps its name (matched by value).
        "INSERT OR IGNORE INTO main.string(value) SELECT value FROM shard.string ORDER BY id",
        // The counters are held whole: monitor logs are small next to the slices, and the
        // studio draws them from the cluster project. Chunks in the order written, so each
        // track's in the same order.
        "INSERT INTO main.counter_chunk(track_id, count, min_ts, max_ts, data) SELECT "
        "track_id + " +
            tbase + ", count, min_ts, max_ts, data FROM shard.counter_chunk ORDER BY id",
    };
    {
        // A run another shard brought already gets this shard's params merged in (the ranks,
        // GPU models each source adds), as its sources' imports would have.
        auto st =
            db.prepare("SELECT m.id, r.params FROM shard.run r JOIN main.run m ON m.name = r.name");
        std::vector<std::pair<RunId, QJsonObject>> params;
        while (st.step())
            params.emplace_back(st.int64(0), QJsonDocument::fromJson(st.text(1).toUtf8()).object());
        for (const auto &[run, p] : params)
            if (!mergeIntoRunParams(db, run, p, &error))
                return fail(error);
    }
    for (const std::string &sql : steps) {
        auto st = db.prepare(sql);
        if (!st.exec()) {
            QString why = st.errorString();
            if (why.contains(QLatin1String("UNIQUE constraint failed: source.path")))
                why = QStringLiteral(
                    "a file of this shard is in another shard too (shards must not overlap)");
            return fail(why);
        }
    }
    // What the shard holds, for the catalog's shard row.
    QJsonArray files;
    {
        auto st =
            db.prepare("SELECT path, status FROM main.source WHERE shard_id = ? ORDER BY path");
        st.bind(1, shardId);
        while (st.step()) {
            files.append(st.text(0));
            ++copied->sources;
            if (st.text(1) == QLatin1String("failed"))
                ++copied->failedSources;
        }
    }
    copied->tracks += scalar("SELECT count(*) FROM shard.track");
    auto up = db.prepare(
        "UPDATE main.shard SET status = 'merged', files = ?, sources = ?, source_base = ?, "
        "track_base = ? WHERE id = ?");
    up.bindJson(1, files);
    up.bind(2, qint64(files.size()));
    up.bind(3, sourceBase);
    up.bind(4, trackBase);
    up.bind(5, shardId);
    if (!up.exec())
        return fail(up.errorString());
    if (!cluster.commit(&error))
        return fail(error);
    detach();
    return true;
}

} // namespace gml::cluster
