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
#include "smallinput.h"

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

namespace {

// The options of an import, checked; nullopt after saying what is wrong (a usage error).
struct ImportOptions
{
    bool follow = false;
    FollowSettings followSettings;
    QTimeZone zone;
    int jobs = 0; // one per core
    std::optional<std::pair<int, int>> shard;
};

std::optional<ImportOptions> importOptions(const Parsed &p, QTextStream &err)
{
    ImportOptions o;
    const bool follow = o.follow = p.flags.contains(QStringLiteral("follow"));
    FollowSettings &followSettings = o.followSettings;
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
            return std::nullopt;
        }
        *target = qint64(seconds * 1000.0);
    }
    if (p.options.contains(QStringLiteral("timezone"))) {
        o.zone = QTimeZone(p.options.value(QStringLiteral("timezone")).toUtf8());
        if (!o.zone.isValid()) {
            err << "grademl import: unknown time zone '"
                << safeText(p.options.value(QStringLiteral("timezone")))
                << "'; expected an IANA name such as UTC or Europe/Paris\n";
            return std::nullopt;
        }
    }
    if (p.options.contains(QStringLiteral("jobs"))) {
        bool ok = false;
        const int jobs = o.jobs = p.options.value(QStringLiteral("jobs")).toInt(&ok);
        if (!ok || jobs < 1 || jobs > 1024) {
            err << "grademl import: --jobs '" << safeText(p.options.value(QStringLiteral("jobs")))
                << "': expected how many files to read at once, 1 to 1024\n";
            return std::nullopt;
        }
    }
    if (p.options.contains(QStringLiteral("scheduler"))) {
        if (follow || p.options.contains(QStringLiteral("shard"))) {
            err << "grademl import: --scheduler runs every shard itself: not with --follow or "
                   "--shard\n";
            return std::nullopt;
        }
    }
    if (p.options.contains(QStringLiteral("shard"))) {
        QString why;
        const auto shard = o.shard = parseShard(p.options.value(QStringLiteral("shard")), &why);
        if (!shard || follow) {
            err << "grademl import: "
                << (shard ? QStringLiteral("--shard and --follow do not go together") : why)
                << '\n';
            return std::nullopt;
        }
    }
    return o;
}

// The files of a shard's plan (docs/cluster.md); nullopt after saying why they cannot be read.
std::optional<QList<ScannedFile>> planFiles(const QString &planPath, QTextStream &err)
{
    QString why;
    const auto bytes =
        readSmallInput(planPath, QStringLiteral("a shard's plan"), &why, {kPlanInputBytes});
    const auto planned = bytes ? readPlan(*bytes, &why) : std::nullopt;
    if (!planned) {
        err << "grademl import: " << (bytes ? planPath + QStringLiteral(": ") : QString())
            << safeText(why, 400) << '\n';
        return std::nullopt;
    }
    QList<ScannedFile> files = *planned;
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
        return std::nullopt;
    }
    return files;
}

// The progress line (ImportMeter) of an import: on a terminal, redrawn at most every 200 ms and
// on each new file or stage; piped or redirected (a Dask task's log, CI), a line every 10 s, so
// that a long import is seen to move before its result lines (issue 56: 100,000 files said
// nothing for minutes).
class ProgressLine
{
public:
    ProgressLine(const QList<ScannedFile> &files, const QString &projectPath, bool quiet, bool live,
                 QTextStream &err)
        : m_meter(files), m_projectPath(projectPath), m_quiet(quiet), m_live(live), m_err(err)
    {
        m_clock.start();
    }
    bool drawn() const { return m_drawn; }
    bool show(const ImportProgress &pr)
    {
        if (pr.waitingForWriter) {
            if (!m_toldWaiting && !m_quiet)
                m_err << "grademl import: another program is writing " << m_projectPath
                      << " (an import in another shell or the studio?); waiting for it to finish\n";
            m_err.flush();
            m_toldWaiting = true;
            return true;
        }
        // Piped or redirected (a Dask task's log, CI): a progress line every 10 s, so that a long
        // import is seen to move before its result lines (issue 56: 100,000 files said nothing
        // for minutes).
        if (!m_live && !m_quiet && m_clock.elapsed() - m_lastDrawn >= 10'000) {
            m_lastDrawn = m_clock.elapsed();
            m_err << "grademl import: "
                  << m_meter.line(pr, QDir::current().relativeFilePath(pr.path)) << '\n';
            m_err.flush();
            return true;
        }
        if (!m_live || (pr.fileIndex == m_lastFile && pr.stage == m_lastStage &&
                        m_clock.elapsed() - m_lastDrawn < 200))
            return true;
        m_lastFile = pr.fileIndex;
        m_lastStage = pr.stage;
        m_lastDrawn = m_clock.elapsed();
        const QString line = m_meter.line(pr, QDir::current().relativeFilePath(pr.path));
        m_err << '\r' << line << "\x1b[K"; // the rest of the previous, longer line erased
        m_err.flush();
        m_drawn = true;
        return true;
    }

private:
    const ImportMeter m_meter;
    const QString m_projectPath;
    const bool m_quiet, m_live;
    QTextStream &m_err;
    QElapsedTimer m_clock;
    qint64 m_lastDrawn = 0; // the first periodic line after 10 s
    int m_lastFile = -1;
    ImportProgress::Stage m_lastStage = ImportProgress::Stage::Reading;
    bool m_drawn = false;
    bool m_toldWaiting = false;
};

// What an import did, file by file.
struct ImportTotals
{
    qsizetype files = 0;
    int imported = 0, unchanged = 0, failed = 0, skipped = 0, relinked = 0;
    qint64 slices = 0, counters = 0, flows = 0, bytes = 0;
};

// A line per file (failures even when quiet), and the totals.
ImportTotals reportSources(const QList<SourceReport> &reports, bool quiet, bool live,
                           QTextStream &err)
{
    ImportTotals t;
    const qsizetype fileCount = t.files = std::count_if(
        reports.begin(), reports.end(), [](const SourceReport &r) { return !r.relinked; });
    for (int i = 0; i < reports.size(); ++i) {
        const auto &r = reports[i];
        const QString rel = QDir::current().relativeFilePath(r.path);
        if (r.relinked) {
            // An execution trace of an earlier import, read again to link to the new slices.
            if (r.status == SourceReport::Status::Imported) {
                ++t.relinked;
                t.flows += r.flows;
                if (!quiet)
                    err << QStringLiteral("[linked again] %1 (run '%2'): %3 data edges\n")
                               .arg(rel, r.runName)
                               .arg(r.flows);
            } else if (r.status == SourceReport::Status::Failed) {
                ++t.failed;
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
            ++t.imported;
            line += QLatin1Char(' ') + importedSummary(r) +
                    QStringLiteral(" in %1 s").arg(r.seconds, 0, 'f', 2);
            break;
        case SourceReport::Status::Unchanged:
            ++t.unchanged;
            line += r.message.isEmpty()
                        ? QStringLiteral(" since the last import, skipped")
                        : QStringLiteral(" (") + safeText(r.message, 4000) + QLatin1Char(')');
            break;
        case SourceReport::Status::Skipped:
            ++t.skipped;
            line += QStringLiteral(" (") + safeText(r.message, 4000) + QLatin1Char(')');
            break;
        case SourceReport::Status::Failed:
        case SourceReport::Status::Cancelled:
            ++t.failed;
            // What a file holds is quoted in messages: its control bytes are shown, not sent to the
            // terminal.
            line = QStringLiteral("[%1/%2] error: %3")
                       .arg(i + 1)
                       .arg(fileCount)
                       .arg(safeText(r.message, 4000));
            break;
        }
        if (r.status == SourceReport::Status::Imported) {
            t.slices += r.slices;
            t.counters += r.counterSamples;
            t.flows += r.flows;
            t.bytes += r.bytes;
        }
        if (!quiet || r.status == SourceReport::Status::Failed)
            err << line << (live ? "\x1b[K\n" : "\n");
    }
    return t;
}

} // namespace

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
    const auto o = importOptions(p, err);
    if (!o)
        return Usage;
    if (p.options.contains(QStringLiteral("scheduler")))
        return importOnCluster(p, err);
    const bool follow = o->follow;
    FollowSettings followSettings = o->followSettings;
    const QTimeZone &zone = o->zone;
    const int jobs = o->jobs;
    const std::optional<std::pair<int, int>> &shard = o->shard;
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
        const auto planned = planFiles(p.options.value(QStringLiteral("from-plan")), err);
        if (!planned)
            return Usage;
        files = *planned;
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
    ProgressLine progress(files, projectPath, quiet, live, err);
    job.setProgressCallback([&](const ImportProgress &pr) { return progress.show(pr); });
    QElapsedTimer timer;
    timer.start();
    const QList<SourceReport> reports = job.run(files);
    if (progress.drawn())
        err << "\r\x1b[K"; // the per-file lines replace the progress line
    const ImportTotals t = reportSources(reports, quiet, live, err);
    const double secs = double(timer.nsecsElapsed()) / 1e9;
    out << QStringLiteral("%1 files: %2 imported, %3 unchanged, %4 skipped, %5 failed; "
                          "%6 slices, %7 counter samples, %8 flows from %9 in %10 s%11\n")
               .arg(t.files)
               .arg(t.imported)
               .arg(t.unchanged)
               .arg(t.skipped)
               .arg(t.failed)
               .arg(t.slices)
               .arg(t.counters)
               .arg(t.flows)
               .arg(humanBytes(t.bytes))
               .arg(secs, 0, 'f', 2)
               .arg(t.relinked
                        ? QStringLiteral("; %1 execution traces of earlier imports linked again")
                              .arg(t.relinked)
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
    return t.failed || !job.errors().isEmpty() ? SomeFailed : Ok;
}

} // namespace gml::cli
