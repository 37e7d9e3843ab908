// SPDX-License-Identifier: GPL-3.0-or-later
#include "clustermerge.h"

#include "clockalignment.h"
#include "project.h"
#include "rankfacts.h"
#include "runmetrics.h"
#include "tracewriter.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <map>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace gml::sim {

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

// Each shard's catalog into the cluster project, in one transaction per shard.
bool mergeOne(Project &cluster, const QString &shardPath, qint64 shardId, MergeReport &report, QString *problem)
{
    auto &db = cluster.db();
    {
        // A shard of another program's schema is not merged: its rows would not fit.
        QString why;
        auto shard = Project::open(shardPath, Project::Mode::ReadOnly, &why);
        if (!shard) {
            *problem = why;
            return false;
        }
        if (shard->schemaVersion() != cluster.schemaVersion()) {
            *problem = QStringLiteral("written by another version of GradeML (schema %1, expected %2)")
                           .arg(shard->schemaVersion())
                           .arg(cluster.schemaVersion());
            return false;
        }
    }
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
    const std::string sourceCols = columnsOf(db, "source", {"id", "run_id", "shard_id", "shard_source_id", "align_ns", "alignment"});
    const std::string trackCols = columnsOf(db, "track", {"id", "run_id", "source_id", "parent_id"});
    const std::string base = std::to_string(sourceBase), tbase = std::to_string(trackBase), sid = std::to_string(shardId);
    const std::string runOf = "(SELECT m.id FROM main.run m WHERE m.name = (SELECT r.name FROM shard.run r WHERE r.id = x.run_id))";
    const std::vector<std::string> steps = {
        "INSERT OR IGNORE INTO main.experiment(name, params, tags) SELECT name, params, tags FROM shard.experiment",
        // A workload is its experiment's name and its own (NULL experiments compare equal here).
        "INSERT INTO main.workload(experiment_id, name) SELECT DISTINCT "
        "(SELECT e2.id FROM main.experiment e2 WHERE e2.name = e.name), w.name FROM shard.workload w "
        "LEFT JOIN shard.experiment e ON e.id = w.experiment_id WHERE NOT EXISTS (SELECT 1 FROM main.workload w2 "
        "LEFT JOIN main.experiment e2 ON e2.id = w2.experiment_id WHERE w2.name = w.name AND e2.name IS e.name)",
        "INSERT INTO main.run(workload_id, name, kind, params, tags, created_at) SELECT "
        "(SELECT w2.id FROM main.workload w2 LEFT JOIN main.experiment e2 ON e2.id = w2.experiment_id "
        " WHERE w2.name = w.name AND e2.name IS e.name), r.name, r.kind, r.params, r.tags, r.created_at "
        "FROM shard.run r LEFT JOIN shard.workload w ON w.id = r.workload_id "
        "LEFT JOIN shard.experiment e ON e.id = w.experiment_id WHERE r.name NOT IN (SELECT name FROM main.run)",
        "INSERT INTO main.source(id, run_id, shard_id, shard_source_id, " + sourceCols + ") SELECT x.id + " + base +
            ", " + runOf + ", " + sid + ", x.id, " + sourceCols + " FROM shard.source x",
        "INSERT INTO main.track(id, run_id, source_id, parent_id, " + trackCols + ") SELECT x.id + " + tbase + ", " +
            runOf + ", x.source_id + " + base + ", x.parent_id + " + tbase + ", " + trackCols + " FROM shard.track x",
        "INSERT INTO main.source_summary(source_id, version, data) SELECT source_id + " + base +
            ", version, data FROM shard.source_summary",
        "INSERT INTO main.rank_facts(source_id, version, data) SELECT source_id + " + base +
            ", version, data FROM shard.rank_facts",
        // Every name, so that what is paged from the shard keeps its name (matched by value).
        "INSERT OR IGNORE INTO main.string(value) SELECT value FROM shard.string ORDER BY id",
        // The counters are held whole: monitor logs are small next to the slices, and the
        // studio draws them from the cluster project.
        "INSERT INTO main.counter(track_id, ts, value) SELECT track_id + " + tbase + ", ts, value FROM shard.counter",
    };
    {
        // A run another shard brought already gets this shard's params merged in (the ranks,
        // GPU models each source adds), as its sources' imports would have.
        auto st = db.prepare("SELECT m.id, r.params FROM shard.run r JOIN main.run m ON m.name = r.name");
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
                why = QStringLiteral("a file of this shard is in another shard too (shards must not overlap)");
            return fail(why);
        }
    }
    // What the shard holds, for the catalog's shard row.
    QJsonArray files;
    {
        auto st = db.prepare("SELECT path, status FROM main.source WHERE shard_id = ? ORDER BY path");
        st.bind(1, shardId);
        while (st.step()) {
            files.append(st.text(0));
            ++report.sources;
            if (st.text(1) == QLatin1String("failed"))
                ++report.failedSources;
        }
    }
    report.tracks += scalar("SELECT count(*) FROM shard.track");
    auto up = db.prepare("UPDATE main.shard SET status = 'merged', files = ?, sources = ?, source_base = ?, "
                         "track_base = ? WHERE id = ?");
    up.bind(1, QString::fromUtf8(QJsonDocument(files).toJson(QJsonDocument::Compact)));
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

// The ranks of every run aligned across the shards, from the collectives in their rank facts.
bool alignAcrossShards(Project &cluster, QString *error)
{
    auto &db = cluster.db();
    std::vector<RunId> runs;
    {
        auto st = db.prepare("SELECT id FROM run ORDER BY id");
        while (st.step())
            runs.push_back(st.int64(0));
    }
    if (!cluster.begin(error))
        return false;
    for (RunId run : runs) {
        std::map<SourceId, TimeNs> clock;
        std::vector<AlignmentInput> inputs;
        for (auto &[id, in] : alignmentSources(db, run, &clock)) {
            if (const auto facts = loadRankFacts(db, id))
                for (const CollectiveArrival &c : facts->collectives)
                    if (c.op >= 0)
                        in.ends.push_back({c.op, c.start + clock[id], c.end + clock[id]});
            inputs.push_back(std::move(in));
        }
        if (!storeAlignment(db, computeAlignment(std::move(inputs)), error)) {
            cluster.rollback();
            return false;
        }
    }
    return cluster.commit(error);
}

} // namespace

bool mergeShards(const QString &path, const QList<ShardInput> &shards, MergeReport *report, QString *error)
{
    QElapsedTimer timer;
    timer.start();
    MergeReport r;
    const QFileInfo target(path);
    const QDir dir = target.absoluteDir();
    const QString partial = target.absoluteFilePath() + QStringLiteral(".partial");
    for (const char *suffix : {"", "-wal", "-shm", "-journal"})
        QFile::remove(partial + QLatin1String(suffix));
    {
        auto cluster = Project::open(partial, Project::Mode::Scratch, error);
        if (!cluster)
            return false;
        auto addShard = cluster->db().prepare("INSERT INTO shard(path, status, error, bytes) VALUES (?, ?, ?, ?)");
        for (const ShardInput &s : shards) {
            ++r.shards;
            const QFileInfo info(s.path);
            QString status = QStringLiteral("merged"), why = s.error;
            if (QFile note(s.path + QStringLiteral(".error")); why.isEmpty() && !info.isFile() && note.open(QIODevice::ReadOnly))
                why = QString::fromUtf8(note.readAll()).trimmed(); // what the shard's import said (docs/cluster.md)
            if (!why.isEmpty())
                status = QStringLiteral("failed");
            else if (!info.isFile()) {
                status = QStringLiteral("missing");
                why = QStringLiteral("no shard project at %1").arg(info.absoluteFilePath());
            }
            addShard.reset();
            addShard.bind(1, dir.relativeFilePath(info.absoluteFilePath()));
            addShard.bind(2, status);
            if (why.isEmpty())
                addShard.bindNull(3);
            else
                addShard.bind(3, why);
            addShard.bind(4, info.isFile() ? info.size() : qint64(0));
            if (!addShard.exec()) {
                if (error)
                    *error = addShard.errorString();
                return false;
            }
            const qint64 id = cluster->db().lastInsertRowId();
            if (status == QLatin1String("merged")) {
                QString problem;
                if (mergeOne(*cluster, info.absoluteFilePath(), id, r, &problem)) {
                    ++r.merged;
                    r.shardBytes += info.size();
                    continue;
                }
                status = QStringLiteral("failed");
                why = QStringLiteral("cannot read it: ") + problem;
                auto up = cluster->db().prepare("UPDATE shard SET status = 'failed', error = ? WHERE id = ?");
                up.bind(1, why);
                up.bind(2, id);
                (void)up.exec();
            }
            (status == QLatin1String("missing") ? r.missing : r.failed) += 1;
            r.problems.append(QStringLiteral("shard %1: %2").arg(QDir::toNativeSeparators(s.path), why));
        }
        {
            auto st = cluster->db().prepare("SELECT path, error FROM source WHERE status = 'failed' ORDER BY path");
            while (st.step())
                r.problems.append(QStringLiteral("%1: not imported: %2").arg(st.text(0), st.text(1)));
        }
        if (!alignAcrossShards(*cluster, error))
            return false;
        QList<RunId> runs;
        {
            auto st = cluster->db().prepare("SELECT id FROM run ORDER BY id");
            while (st.step())
                runs.append(st.int64(0));
        }
        QStringList metricErrors;
        updateRunMetrics(*cluster, runs, &metricErrors);
        r.problems += metricErrors;
    }
    // Made durable, then put in place in one step.
    if (QFile f(partial); f.open(QIODevice::ReadWrite))
        ::fsync(f.handle());
    QFile::remove(target.absoluteFilePath() + QStringLiteral("-wal"));
    QFile::remove(target.absoluteFilePath() + QStringLiteral("-shm"));
    if (::rename(QFile::encodeName(partial).constData(), QFile::encodeName(target.absoluteFilePath()).constData()) != 0) {
        if (error)
            *error = QStringLiteral("cannot put the cluster project in place at %1").arg(target.absoluteFilePath());
        return false;
    }
    r.seconds = double(timer.nsecsElapsed()) / 1e9;
    if (report)
        *report = r;
    return true;
}

} // namespace gml::sim
