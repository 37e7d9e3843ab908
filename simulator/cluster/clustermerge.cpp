// SPDX-License-Identifier: GPL-3.0-or-later
#include "clustermerge.h"

#include "clockalignment.h"
#include "clusterproject.h"
#include "project.h"
#include "rankfacts.h"
#include "runmetrics.h"
#include "runrecords.h"
#include "shardmerge.h"
#include "sourcerecords.h"
#include "tracewriter.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace gml::sim {

namespace {

// Each shard's catalog into the cluster project, in one transaction per shard.
bool mergeOne(Project &cluster, const QString &shardPath, qint64 shardId, MergeReport &report,
              QString *problem)
{
    {
        // A shard of another program's schema is not merged: its rows would not fit.
        QString why;
        auto shard = Project::open(shardPath, Project::Mode::ReadOnly, &why);
        if (!shard) {
            *problem = why;
            return false;
        }
        if (shard->schemaVersion() != cluster.schemaVersion()) {
            *problem =
                QStringLiteral("written by another version of GradeML (schema %1, expected %2)")
                    .arg(shard->schemaVersion())
                    .arg(cluster.schemaVersion());
            return false;
        }
        // A damaged shard is not merged: its pages would be copied, or fail half-way.
        if (const QStringList damage = cluster::damageOf(*shard); !damage.isEmpty()) {
            *problem = QStringLiteral("the shard is damaged (SQLite's check: %1); import it again")
                           .arg(damage.join(QStringLiteral("; ")));
            return false;
        }
    }
    cluster::ShardCopy copied;
    const bool ok = cluster::copyShardCatalog(cluster, shardPath, shardId, &copied, problem);
    report.sources += copied.sources;
    report.failedSources += copied.failedSources;
    report.tracks += copied.tracks;
    return ok;
}

// The ranks of every run aligned across the shards, from the collectives in their rank facts.
bool alignAcrossShards(Project &cluster, QString *error)
{
    auto &db = cluster.db();
    std::vector<RunId> runs;
    for (const auto &[id, name] : runNames(cluster))
        runs.push_back(id);
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

// A path as one file is known by: its canonical path when it exists, else its clean absolute one.
QString fileKey(const QString &path)
{
    const QFileInfo info(path);
    const QString canonical = info.canonicalFilePath();
    return canonical.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : canonical;
}

// The shard index a missing input's name gives (the Dask driver's shard-I-of-N.grademl), or -1.
int indexFromName(const QString &path, int count)
{
    static const QRegularExpression re(QStringLiteral(R"(shard-0*(\d+)-of-(\d+)\.grademl$)"));
    const auto m = re.match(path);
    return m.hasMatch() && m.captured(2).toInt() == count ? m.captured(1).toInt() : -1;
}

// Everything merge refuses before it writes a byte (issue 56): an output that is not a cluster
// project or is one of the inputs, an input given twice or unfinished (.partial), a project that
// is not a shard, shards of other jobs or of other counts, two files that are the same shard.
// The identity of each input that is a shard goes to `identities` (by input index).
bool checkInputs(const QString &path, const QList<ShardInput> &shards,
                 std::map<int, cluster::ShardIdentity> &identities, QString *error)
{
    auto refuse = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    const QString out = fileKey(path);
    for (const ShardInput &s : shards)
        if (fileKey(s.path) == out)
            return refuse(
                QStringLiteral("%1 is both the cluster project to write and one of its shards")
                    .arg(s.path));
    if (QFileInfo(path).exists()) {
        QString why;
        auto existing = Project::open(path, Project::Mode::ReadOnly, &why);
        if (!existing)
            return refuse(QStringLiteral("%1 exists and is not a cluster project (%2); merge "
                                         "writes a new cluster project "
                                         "and never replaces another file: name another one")
                              .arg(path, why));
        if (!cluster::isClusterProject(*existing)) {
            const qint64 runs = runNames(*existing).size();
            return refuse(
                QStringLiteral(
                    "%1 is a%2 project with %3 run%4, not a cluster project; merge writes a new "
                    "cluster project and never replaces another project: name another file")
                    .arg(path,
                         cluster::shardIdentity(*existing) ? QStringLiteral(" shard") : QString())
                    .arg(runs)
                    .arg(runs == 1 ? QString() : QStringLiteral("s")));
        }
    }
    std::map<QString, int> seen;
    for (int i = 0; i < shards.size(); ++i) {
        const QString &s = shards[i].path;
        if (s.endsWith(QLatin1String(".partial")))
            return refuse(QStringLiteral("%1 is an unfinished shard (its import was stopped before "
                                         "it was put in place); "
                                         "import that shard again and merge its .grademl")
                              .arg(s));
        const QString key = fileKey(s);
        if (const auto [at, added] = seen.emplace(key, i); !added)
            return refuse(QStringLiteral("%1 is given twice (arguments %2 and %3)")
                              .arg(s)
                              .arg(at->second + 2)
                              .arg(i + 2));
        if (!shards[i].error.isEmpty() || !QFileInfo(s).isFile())
            continue;
        QString why;
        auto shard = Project::open(s, Project::Mode::ReadOnly, &why);
        if (!shard)
            continue; // cannot be read: listed as failed, with why
        if (cluster::isClusterProject(*shard))
            return refuse(QStringLiteral("%1 is a cluster project, not a shard").arg(s));
        const auto id = cluster::shardIdentity(*shard);
        if (!id)
            return refuse(
                QStringLiteral(
                    "%1 is not a shard (a project imported without --shard I/N%2); merge takes the "
                    "shards of one `grademl import --shard` job")
                    .arg(s, shard->schemaVersion() < 13 ? QStringLiteral(", or by an older GradeML")
                                                        : QString()));
        identities.emplace(i, *id);
    }
    if (identities.empty())
        return true;
    const auto &[firstAt, first] = *identities.begin();
    std::map<int, int> byIndex;
    for (const auto &[i, id] : identities) {
        if (id.job != first.job || id.count != first.count)
            return refuse(
                QStringLiteral(
                    "%1 is shard %2 of %3 of job %4, but %5 is shard %6 of %7 of job %8: shards "
                    "of one job only (the same inputs imported with the same --shard count)")
                    .arg(shards[i].path)
                    .arg(id.index)
                    .arg(id.count)
                    .arg(id.job, shards[firstAt].path)
                    .arg(first.index)
                    .arg(first.count)
                    .arg(first.job));
        if (const auto [at, added] = byIndex.emplace(id.index, i); !added)
            return refuse(
                QStringLiteral("%1 and %2 are both shard %3 of %4 (a copy?): give each shard once")
                    .arg(shards[at->second].path, shards[i].path)
                    .arg(id.index)
                    .arg(id.count));
    }
    return true;
}

} // namespace

bool mergeShards(const QString &path, const QList<ShardInput> &shards, MergeReport *report,
                 QString *error)
{
    QElapsedTimer timer;
    timer.start();
    MergeReport r;
    const QFileInfo target(path);
    const QDir dir = target.absoluteDir();
    std::map<int, cluster::ShardIdentity> identities;
    if (!checkInputs(path, shards, identities, error))
        return false;
    const QString partial = target.absoluteFilePath() + QStringLiteral(".partial");
    auto removePartial = [&] {
        for (const char *suffix : {"", "-wal", "-shm", "-journal"})
            QFile::remove(partial + QLatin1String(suffix));
    };
    removePartial();
    // Whatever stops the merge leaves no .partial behind (the output is only ever renamed whole).
    struct Cleanup
    {
        std::function<void()> run;
        ~Cleanup()
        {
            if (run)
                run();
        }
    } cleanup{removePartial};
    {
        auto cluster = Project::open(partial, Project::Mode::Scratch, error);
        if (!cluster)
            return false;
        // The shards of the job that no input is: said, and counted as missing.
        const int count = identities.empty() ? 0 : identities.begin()->second.count;
        const QString job = identities.empty() ? QString() : identities.begin()->second.job;
        std::vector<bool> covered(size_t(count), false);
        for (const auto &[i, id] : identities)
            covered[size_t(id.index)] = true;
        for (int i = 0; i < shards.size(); ++i)
            if (!identities.count(i))
                if (const int index = indexFromName(shards[i].path, count);
                    index >= 0 && index < count)
                    covered[size_t(index)] = true;
        QList<ShardInput> all = shards;
        std::vector<int> notGiven;
        for (int index = 0; index < count; ++index)
            if (!covered[size_t(index)]) {
                notGiven.push_back(index);
                all.append({QStringLiteral("(shard %1 of %2 of job %3, not given)")
                                .arg(index)
                                .arg(count)
                                .arg(job),
                            QStringLiteral(
                                "shard %1 of %2 of job %3 is not among the shards given to merge")
                                .arg(index)
                                .arg(count)
                                .arg(job)});
            }
        for (int i = 0; i < all.size(); ++i) {
            const ShardInput &s = all[i];
            ++r.shards;
            const QFileInfo info(s.path);
            QString status = QStringLiteral("merged"), why = s.error;
            if (QFile note(s.path + QStringLiteral(".error"));
                why.isEmpty() && !info.isFile() && note.open(QIODevice::ReadOnly))
                why = QString::fromUtf8(note.readAll())
                          .trimmed(); // what the shard's import said (docs/cluster.md)
            if (i >= shards.size())
                status = QStringLiteral("missing"); // a shard of the job not given
            else if (!why.isEmpty())
                status = QStringLiteral("failed");
            else if (!info.isFile()) {
                status = QStringLiteral("missing");
                why = QStringLiteral("no shard project at %1").arg(info.absoluteFilePath());
            }
            cluster::NewShard row;
            row.path = i >= shards.size() ? s.path : dir.relativeFilePath(info.absoluteFilePath());
            row.status = status;
            row.error = why;
            row.bytes = info.isFile() ? info.size() : qint64(0);
            if (const auto id = identities.find(i); id != identities.end())
                row.identity = id->second;
            const qint64 id = cluster::addShard(*cluster, row, error);
            if (!id)
                return false;
            if (status == QLatin1String("merged")) {
                QString problem;
                if (mergeOne(*cluster, info.absoluteFilePath(), id, r, &problem)) {
                    ++r.merged;
                    r.shardBytes += info.size();
                    continue;
                }
                status = QStringLiteral("failed");
                why = QStringLiteral("cannot read it: ") + problem;
                cluster::markShardFailed(*cluster, id, why);
            }
            (status == QLatin1String("missing") ? r.missing : r.failed) += 1;
            r.problems.append(
                i >= shards.size()
                    ? why
                    : QStringLiteral("shard %1: %2").arg(QDir::toNativeSeparators(s.path), why));
        }
        for (const auto &[path, why] : failedSources(*cluster, 0))
            r.problems.append(QStringLiteral("%1: not imported: %2").arg(path, why));
        if (!alignAcrossShards(*cluster, error))
            return false;
        QList<RunId> runs;
        for (const auto &[id, name] : runNames(*cluster))
            runs.append(id);
        QStringList metricErrors;
        updateRunMetrics(*cluster, runs, &metricErrors);
        r.problems += metricErrors;
    }
    // Made durable, then put in place in one step.
    if (QFile f(partial); f.open(QIODevice::ReadWrite))
        ::fsync(f.handle());
    QFile::remove(target.absoluteFilePath() + QStringLiteral("-wal"));
    QFile::remove(target.absoluteFilePath() + QStringLiteral("-shm"));
    if (::rename(QFile::encodeName(partial).constData(),
                 QFile::encodeName(target.absoluteFilePath()).constData()) != 0) {
        if (error)
            *error =
                QStringLiteral("cannot put the cluster project in place at %1: %2")
                    .arg(target.absoluteFilePath(), QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    cleanup.run = nullptr;
    r.seconds = double(timer.nsecsElapsed()) / 1e9;
    if (report)
        *report = r;
    return true;
}

} // namespace gml::sim
