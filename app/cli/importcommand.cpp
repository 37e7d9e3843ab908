// SPDX-License-Identifier: GPL-3.0-or-later
// grademl import PATH... --project FILE.grademl: trace files and folders into a project, each file
// in its own transaction.
#include "clicommands.h"

#include "clusterproject.h"
#include "folderscanner.h"
#include "importjob.h"
#include "importmeter.h"
#include "project.h"
#include "runmetrics.h"
#include "safetext.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTimeZone>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace gml::cli {

QString importedSummary(const SourceReport &r)
{
    QString text = QStringLiteral("(%1, run '%2'): %3 slices, %4 counter samples, %5 flows")
                       .arg(r.format, r.runName)
                       .arg(r.slices)
                       .arg(r.counterSamples)
                       .arg(r.flows);
    if (r.warnings)
        text += QStringLiteral(", %1 warnings").arg(r.warnings);
    return text;
}

int importCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p =
        parse(args,
              {QStringLiteral("project"), QStringLiteral("run"), QStringLiteral("timezone"),
               QStringLiteral("jobs"), QStringLiteral("idle-exit"), QStringLiteral("poll"),
               QStringLiteral("shard"), QStringLiteral("scheduler"), QStringLiteral("shards"),
               QStringLiteral("retries"), QStringLiteral("from-plan")},
              {QStringLiteral("quiet"), QStringLiteral("follow"), QStringLiteral("plan")});
    const bool fromPlan = p.options.contains(QStringLiteral("from-plan"));
    if (!p.error.isEmpty() || p.positional.isEmpty() == !fromPlan ||
        !p.options.contains(QStringLiteral("project")) ||
        (fromPlan && !p.options.contains(QStringLiteral("shard")))) {
        err << "grademl import: "
            << (!p.error.isEmpty() ? p.error
                : fromPlan ? QStringLiteral("--from-plan reads a shard's files from the plan "
                                            "instead of PATH...: it needs --shard I/N and no PATH")
                           : QStringLiteral("need PATH... and --project FILE.grademl"))
            << "\nusage: grademl import PATH... --project FILE.grademl [--run NAME] "
               "[--timezone IANA-NAME] [--jobs N]\n"
               "                      [--follow [--idle-exit SECONDS] [--poll SECONDS]] [--shard "
               "I/N]\n"
               "                      [--scheduler tcp://HOST:PORT [--shards N] [--retries R]] "
               "[--plan]\n"
               "       grademl import --from-plan PLAN.json --shard I/N --project SHARD.grademl "
               "[--timezone IANA-NAME] [--jobs N]\n";
        return Usage;
    }
    const bool follow = p.flags.contains(QStringLiteral("follow"));
    FollowSettings followSettings;
    for (const auto &[name, target, least] :
         {std::tuple{"idle-exit", &followSettings.idleExitMs, 0.0},
          std::tuple{"poll", &followSettings.pollMs, 0.05}}) {
        const QString key = QString::fromLatin1(name);
        if (!p.options.contains(key))
            continue;
        bool ok = false;
        const double seconds = p.options.value(key).toDouble(&ok);
        if (!follow || !ok || !std::isfinite(seconds) || seconds < least || seconds > 1e6) {
            err << "grademl import: --" << key << " '" << safeText(p.options.value(key)) << "': "
                << (follow ? QStringLiteral("expected seconds, %1 to 1000000").arg(least)
                           : QStringLiteral("only with --follow"))
                << '\n';
            return Usage;
        }
        *target = qint64(seconds * 1000.0);
    }
    QTimeZone zone;
    if (p.options.contains(QStringLiteral("timezone"))) {
        zone = QTimeZone(p.options.value(QStringLiteral("timezone")).toUtf8());
        if (!zone.isValid()) {
            err << "grademl import: unknown time zone '"
                << safeText(p.options.value(QStringLiteral("timezone")))
                << "'; expected an IANA name such as UTC or Europe/Paris\n";
            return Usage;
        }
    }
    int jobs = 0; // one per core
    if (p.options.contains(QStringLiteral("jobs"))) {
        bool ok = false;
        jobs = p.options.value(QStringLiteral("jobs")).toInt(&ok);
        if (!ok || jobs < 1 || jobs > 1024) {
            err << "grademl import: --jobs '" << safeText(p.options.value(QStringLiteral("jobs")))
                << "': expected how many files to read at once, 1 to 1024\n";
            return Usage;
        }
    }
    if (p.options.contains(QStringLiteral("scheduler"))) {
        if (follow || p.options.contains(QStringLiteral("shard"))) {
            err << "grademl import: --scheduler runs every shard itself: not with --follow or "
                   "--shard\n";
            return Usage;
        }
        return importOnCluster(p, err);
    }
    std::optional<std::pair<int, int>> shard;
    if (p.options.contains(QStringLiteral("shard"))) {
        QString why;
        shard = parseShard(p.options.value(QStringLiteral("shard")), &why);
        if (!shard || follow) {
            err << "grademl import: "
                << (shard ? QStringLiteral("--shard and --follow do not go together") : why)
                << '\n';
            return Usage;
        }
    }
    // A shard is written beside its place and put there whole (finishShard): a task killed
    // mid-import leaves no half-written shard, and a retried one starts afresh.
    const QString finalPath = p.options.value(QStringLiteral("project"));
    const QString projectPath = shard ? finalPath + QStringLiteral(".partial") : finalPath;
    if (shard)
        for (const char *suffix : {"", "-wal", "-shm"})
            QFile::remove(projectPath + QLatin1String(suffix));
    QStringList missing, ignored;
    QList<ScannedFile> files;
    if (fromPlan) { // the files the driver's scan settled (docs/cluster.md), not scanned again
        const QString planPath = p.options.value(QStringLiteral("from-plan"));
        QFile plan(planPath);
        QString why;
        const auto planned =
            plan.open(QIODevice::ReadOnly) ? readPlan(plan.readAll(), &why) : std::nullopt;
        if (!planned) {
            err << "grademl import: " << planPath << ": "
                << (why.isEmpty() ? plan.errorString() : why) << '\n';
            return Usage;
        }
        files = *planned;
        // Only regular files, checked before anything is written: a plan naming /dev/zero or a
        // FIFO read forever, and one of 100,000 missing files took 9 ms each to say so.
        QStringList gone;
        qsizetype goneCount = 0;
        for (const ScannedFile &f : std::as_const(files)) {
            const QFileInfo info(f.path);
            if (info.isFile())
                continue;
            if (++goneCount <= 5)
                gone << QStringLiteral("%1 (%2)").arg(
                    safeText(f.path), info.exists() ? QStringLiteral("not a regular file")
                                                    : QStringLiteral("no such file"));
        }
        if (goneCount) {
            err << "grademl import: " << planPath << ": " << goneCount << " of the plan's "
                << files.size() << " files cannot be read: " << gone.join(QStringLiteral(", "))
                << (goneCount > 5 ? ", ..." : "") << '\n';
            return Usage;
        }
    } else {
        files =
            scanInputs(p.positional, p.options.value(QStringLiteral("run")), &missing, &ignored);
    }
    // The job a shard belongs to: the same for every shard of one file list (clusterproject.h).
    const QString jobId = shard ? cluster::jobIdentity(writePlan(files)) : QString();
    if (shard)
        files = shardOfFiles(files, shard->first, shard->second);
    if (p.flags.contains(QStringLiteral("plan"))) { // what would be read, for the Dask driver
        out << QString::fromUtf8(writePlan(files)) << '\n';
        return Ok;
    }
    if (!missing.isEmpty()) {
        for (const auto &m : missing)
            err << "grademl import: " << m << '\n';
        return Usage;
    }
    // Settings a folder declares that are ignored do not stop the import.
    for (const auto &w : std::as_const(ignored))
        err << "grademl import: warning: " << w << '\n';
    QString error;
    auto project = openProject(projectPath, true, QStringLiteral("grademl import: "), err);
    if (!project)
        return SomeFailed;
    const bool quiet = p.flags.contains(QStringLiteral("quiet"));
    if (follow) {
        followSettings.inputs = p.positional;
        followSettings.runName = p.options.value(QStringLiteral("run"));
        followSettings.timeZone = zone;
        followSettings.threads = jobs;
        followSettings.quiet = quiet;
        return followImport(*project, followSettings, out, err);
    }
    // Live progress only on a terminal; logs get the per-file lines below.
    const bool live = !quiet && isatty(fileno(stderr));
    ImportJob job(*project);
    job.setTimeZone(zone);
    job.setThreads(jobs);
    // The progress line (ImportMeter), redrawn at most every 200 ms and on each new file or stage.
    const ImportMeter meter(files);
    QElapsedTimer clock;
    clock.start();
    qint64 lastDrawn = 0; // the first periodic line after 10 s
    int lastFile = -1;
    auto lastStage = ImportProgress::Stage::Reading;
    bool drawn = false;
    bool toldWaiting = false;
    job.setProgressCallback([&](const ImportProgress &pr) {
        if (pr.waitingForWriter) {
            if (!toldWaiting && !quiet)
                err << "grademl import: another program is writing " << projectPath
                    << " (an import in another shell or the studio?); waiting for it to finish\n";
            err.flush();
            toldWaiting = true;
            return true;
        }
        // Piped or redirected (a Dask task's log, CI): a progress line every 10 s, so that a long
        // import is seen to move before its result lines (issue 56: 100,000 files said nothing
        // for minutes).
        if (!live && !quiet && clock.elapsed() - lastDrawn >= 10'000) {
            lastDrawn = clock.elapsed();
            err << "grademl import: " << meter.line(pr, QDir::current().relativeFilePath(pr.path))
                << '\n';
            err.flush();
            return true;
        }
        if (!live || (pr.fileIndex == lastFile && pr.stage == lastStage &&
                      clock.elapsed() - lastDrawn < 200))
            return true;
        lastFile = pr.fileIndex;
        lastStage = pr.stage;
        lastDrawn = clock.elapsed();
        const QString line = meter.line(pr, QDir::current().relativeFilePath(pr.path));
        err << '\r' << line << "\x1b[K"; // the rest of the previous, longer line erased
        err.flush();
        drawn = true;
        return true;
    });
    QElapsedTimer timer;
    timer.start();
    const QList<SourceReport> reports = job.run(files);
    if (drawn)
        err << "\r\x1b[K"; // the per-file lines replace the progress line
    int imported = 0, unchanged = 0, failed = 0, skipped = 0, relinked = 0;
    qint64 slices = 0, counters = 0, flows = 0, bytes = 0;
    const qsizetype fileCount = std::count_if(reports.begin(), reports.end(),
                                              [](const SourceReport &r) { return !r.relinked; });
    for (int i = 0; i < reports.size(); ++i) {
        const auto &r = reports[i];
        const QString rel = QDir::current().relativeFilePath(r.path);
        if (r.relinked) {
            // An execution trace of an earlier import, read again to link to the new slices.
            if (r.status == SourceReport::Status::Imported) {
                ++relinked;
                flows += r.flows;
                if (!quiet)
                    err << QStringLiteral("[linked again] %1 (run '%2'): %3 data edges\n")
                               .arg(rel, r.runName)
                               .arg(r.flows);
            } else if (r.status == SourceReport::Status::Failed) {
                ++failed;
                err << QStringLiteral("[linked again] error: %1\n").arg(safeText(r.message, 4000));
            }
            continue;
        }
        QString line = QStringLiteral("[%1/%2] %3: %4")
                           .arg(i + 1)
                           .arg(fileCount)
                           .arg(rel, statusName(r.status));
        switch (r.status) {
        case SourceReport::Status::Imported:
            ++imported;
            line += QLatin1Char(' ') + importedSummary(r) +
                    QStringLiteral(" in %1 s").arg(r.seconds, 0, 'f', 2);
            break;
        case SourceReport::Status::Unchanged:
            ++unchanged;
            line += QStringLiteral(" since the last import, skipped");
            break;
        case SourceReport::Status::Skipped:
            ++skipped;
            line += QStringLiteral(" (") + safeText(r.message, 4000) + QLatin1Char(')');
            break;
        case SourceReport::Status::Failed:
        case SourceReport::Status::Cancelled:
            ++failed;
            // What a file holds is quoted in messages: its control bytes are shown, not sent to the
            // terminal.
            line = QStringLiteral("[%1/%2] error: %3")
                       .arg(i + 1)
                       .arg(fileCount)
                       .arg(safeText(r.message, 4000));
            break;
        }
        if (r.status == SourceReport::Status::Imported) {
            slices += r.slices;
            counters += r.counterSamples;
            flows += r.flows;
            bytes += r.bytes;
        }
        if (!quiet || r.status == SourceReport::Status::Failed)
            err << line << (live ? "\x1b[K\n" : "\n");
    }
    const double secs = double(timer.nsecsElapsed()) / 1e9;
    out << QStringLiteral("%1 files: %2 imported, %3 unchanged, %4 skipped, %5 failed; "
                          "%6 slices, %7 counter samples, %8 flows from %9 in %10 s%11\n")
               .arg(fileCount)
               .arg(imported)
               .arg(unchanged)
               .arg(skipped)
               .arg(failed)
               .arg(slices)
               .arg(counters)
               .arg(flows)
               .arg(humanBytes(bytes))
               .arg(secs, 0, 'f', 2)
               .arg(relinked
                        ? QStringLiteral("; %1 execution traces of earlier imports linked again")
                              .arg(relinked)
                        : QString());
    if (!quiet)
        for (const QString &line : describeGroupings(job.groupings()))
            out << "grouping: " << line << '\n';
    // The changed runs' headline metrics (what `grademl runs` and the Runs browser list).
    QStringList metricErrors;
    if (const QList<RunId> changed = job.changedRunIds(); !changed.isEmpty()) {
        QElapsedTimer metricsTimer;
        metricsTimer.start();
        sim::updateRunMetrics(*project, changed, &metricErrors);
        if (!quiet)
            out << QStringLiteral("headline metrics of %1 run%2 computed in %3 s\n")
                       .arg(changed.size())
                       .arg(changed.size() == 1 ? QString() : QStringLiteral("s"))
                       .arg(double(metricsTimer.nsecsElapsed()) / 1e9, 0, 'f', 2);
    }
    for (const auto &e : job.errors())
        err << "grademl import: " << safeText(e, 4000) << '\n';
    for (const auto &e : std::as_const(metricErrors))
        err << "grademl import: " << safeText(e, 4000) << '\n';
    if (shard) {
        if (!finishShard(std::move(project), finalPath, jobId, *shard, err)) {
            for (const char *suffix :
                 {"", "-wal", "-shm"}) // no unfinished shard left for merge to meet
                QFile::remove(projectPath + QLatin1String(suffix));
            return SomeFailed;
        }
        out << QStringLiteral("shard %1 of %2: %3 files\n")
                   .arg(shard->first)
                   .arg(shard->second)
                   .arg(files.size());
    }
    out << "project: " << QFileInfo(finalPath).absoluteFilePath() << '\n';
    return failed || !job.errors().isEmpty() ? SomeFailed : Ok;
}

} // namespace gml::cli
