// SPDX-License-Identifier: GPL-3.0-or-later
// A job imported in shards (docs/cluster.md): `grademl import ... --shard I/N` writes shard I's
// project, `grademl merge` the cluster project that references the shards.
#include "clicommands.h"
#include "runrecords.h"

#include "clustermerge.h"
#include "clusterproject.h"
#include "folderscanner.h"
#include "importer.h"
#include "importjob.h"
#include "importmeter.h"
#include "project.h"
#include "rankfacts.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

#include <cstdio>

namespace gml::cli {

std::optional<std::pair<int, int>> parseShard(const QString &text, QString *why)
{
    static const QRegularExpression re(QStringLiteral(R"(^(\d{1,6})/(\d{1,6})$)"));
    const auto m = re.match(text.trimmed());
    const int index = m.hasMatch() ? m.captured(1).toInt() : -1;
    const int count = m.hasMatch() ? m.captured(2).toInt() : 0;
    if (!m.hasMatch() || count < 1 || index >= count) {
        *why = QStringLiteral("--shard '%1': expected I/N, shard I (from 0) of N, such as 3/64")
                   .arg(text);
        return std::nullopt;
    }
    return std::pair{index, count};
}

QList<ScannedFile> shardOfFiles(const QList<ScannedFile> &files, int index, int count)
{
    // In path order, shard I takes files [I*n/N, (I+1)*n/N): neighbours stay together, and every
    // file is in exactly one shard whatever N is.
    QList<ScannedFile> sorted = files;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const ScannedFile &a, const ScannedFile &b) { return a.path < b.path; });
    const qint64 n = sorted.size();
    const qint64 from = n * index / count, to = n * (index + 1) / count;
    return sorted.mid(from, to - from);
}

bool finishShard(std::unique_ptr<Project> partial, const QString &projectPath, const QString &job,
                 std::pair<int, int> shard, QTextStream &err)
{
    const QString partialPath = partial->path();
    {
        // Which job, which shard: merge refuses shards of another job or given twice, and a
        // cluster project refuses a shard swapped or imported again since it was merged.
        if (QString why;
            !cluster::storeShardIdentity(*partial, job, shard.first, shard.second, &why)) {
            err << "grademl import: " << partialPath
                << ": cannot store the shard's identity: " << why << '\n';
            return false;
        }
        QList<RunId> runs;
        for (const auto &[id, name] : runNames(*partial))
            runs.append(id);
        QString error;
        if (!sim::storeRankFacts(*partial, runs, &error)) {
            err << "grademl import: " << partialPath << ": cannot store the ranks' facts: " << error
                << '\n';
            return false;
        }
        // Everything in the file itself before it moves (nobody else has it open).
        if (const QString why = foldWriteAheadLog(*partial); !why.isEmpty()) {
            err << "grademl import: " << partialPath << ": " << why << '\n';
            return false;
        }
        partial.reset();
    }
    for (const char *suffix : {"-wal", "-shm"}) {
        QFile::remove(partialPath + QLatin1String(suffix));
        QFile::remove(projectPath + QLatin1String(suffix));
    }
    if (std::rename(QFile::encodeName(partialPath).constData(),
                    QFile::encodeName(projectPath).constData()) != 0) {
        err << "grademl import: cannot put the shard in place at " << projectPath << '\n';
        return false;
    }
    return true;
}

int importOnCluster(const Parsed &p, QTextStream &err)
{
    // The driver beside this program (the build tree) or in its libexec folder (installed).
    const QString here = QCoreApplication::applicationDirPath();
    QString driver;
    const QStringList candidates{
        QString(here + QStringLiteral("/grademl-dask")),
        QString(here + QStringLiteral("/../libexec/grademl/grademl-dask"))};
    for (const QString &candidate : candidates)
        if (QFileInfo(candidate).isExecutable()) {
            driver = QFileInfo(candidate).absoluteFilePath();
            break;
        }
    if (driver.isEmpty()) {
        err << "grademl import: --scheduler needs the Dask driver grademl-dask, not found in "
            << here << " or " << QDir::cleanPath(here + QStringLiteral("/../libexec/grademl"))
            << '\n';
        return SomeFailed;
    }
    QStringList args{QStringLiteral("--scheduler"), p.options.value(QStringLiteral("scheduler")),
                     QStringLiteral("--project"),   p.options.value(QStringLiteral("project")),
                     QStringLiteral("--grademl"),   QCoreApplication::applicationFilePath()};
    for (const char *option : {"shards", "retries", "run", "timezone"})
        if (p.options.contains(QLatin1String(option)))
            args << QStringLiteral("--") + QLatin1String(option)
                 << p.options.value(QLatin1String(option));
    args << p.positional;
    err.flush();
    QProcess driverProcess;
    driverProcess.setProcessChannelMode(QProcess::ForwardedChannels);
    driverProcess.start(driver, args);
    if (!driverProcess.waitForStarted(-1)) {
        err << "grademl import: cannot run " << driver << ": " << driverProcess.errorString()
            << " (the Dask driver needs python3-distributed)\n";
        return SomeFailed;
    }
    driverProcess.waitForFinished(-1);
    if (driverProcess.exitStatus() != QProcess::NormalExit) {
        err << "grademl import: the Dask driver stopped: " << driverProcess.errorString() << '\n';
        return SomeFailed;
    }
    return driverProcess.exitCode();
}

int mergeCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {}, {QStringLiteral("quiet")});
    if (!p.error.isEmpty() || p.positional.size() < 2) {
        err << "grademl merge: "
            << (p.error.isEmpty() ? QStringLiteral("need CLUSTER.grademl and SHARD.grademl...")
                                  : p.error)
            << "\nusage: grademl merge CLUSTER.grademl SHARD.grademl...\n"
               "  A shard that is missing is listed as missing; beside it, SHARD.grademl.error "
               "says why\n"
               "  its import failed (the Dask driver writes it).\n";
        return Usage;
    }
    QList<sim::ShardInput> shards;
    for (const QString &s : p.positional.mid(1))
        shards.append({s, {}});
    sim::MergeReport report;
    QString error;
    if (!sim::mergeShards(p.positional.first(), shards, &report, &error)) {
        err << "grademl merge: " << error << '\n';
        return SomeFailed;
    }
    for (const QString &problem : std::as_const(report.problems))
        err << "grademl merge: " << problem << '\n';
    out << QStringLiteral(
               "%1 shards: %2 merged, %3 failed, %4 missing; %5 sources (%6 failed), %7 tracks; "
               "%8 of shards in %9 s\n")
               .arg(report.shards)
               .arg(report.merged)
               .arg(report.failed)
               .arg(report.missing)
               .arg(report.sources)
               .arg(report.failedSources)
               .arg(report.tracks)
               .arg(humanBytes(report.shardBytes))
               .arg(report.seconds, 0, 'f', 2);
    const QFileInfo cluster(p.positional.first());
    out << QStringLiteral("cluster project: %1 (%2)\n")
               .arg(cluster.absoluteFilePath(), humanBytes(cluster.size()));
    return report.merged == report.shards && report.failedSources == 0 ? Ok : SomeFailed;
}

} // namespace gml::cli
