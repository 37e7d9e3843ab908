// SPDX-License-Identifier: GPL-3.0-or-later
// grademl import PATH... --project FILE.grademl --follow [--idle-exit SECONDS] [--poll SECONDS]:
// keeps importing while the folders change (importers/job/folderfollower.h), until Ctrl-C, SIGTERM
// or SECONDS without a change.
#include "clicommands.h"

#include "folderfollower.h"
#include "project.h"
#include "runmetrics.h"
#include "safetext.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSet>
#include <QThread>

#include <csignal>

namespace gml::cli {

namespace {

volatile std::sig_atomic_t g_stop = 0;

extern "C" void onStopSignal(int)
{
    g_stop = 1;
}

// Headline metrics of runs that only grew by appended lines are computed again at most this
// often: they read the whole run, and a 10 Hz sampler would otherwise have them every poll.
constexpr qint64 kMetricsEveryMs = 10'000;

} // namespace

int followImport(Project &project, const FollowSettings &settings, QTextStream &out,
                 QTextStream &err)
{
    FolderFollower::Options options;
    options.inputs = settings.inputs;
    options.runName = settings.runName;
    options.timeZone = settings.timeZone;
    options.threads = settings.threads;
    FolderFollower follower(project, options);
    g_stop = 0;
    struct sigaction sa = {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    struct sigaction oldInt = {}, oldTerm = {};
    sigaction(SIGINT, &sa, &oldInt);
    sigaction(SIGTERM, &sa, &oldTerm);
    // Cancel a file being read when asked to stop: its transaction rolls back, nothing is half
    // written.
    follower.setProgressCallback([](const ImportProgress &) { return g_stop == 0; });

    QElapsedTimer clock;
    clock.start();
    qint64 lastActivity = 0, lastMetrics = -kMetricsEveryMs;
    qint64 polls = 0, imports = 0, appendedSamples = 0, failures = 0;
    QHash<QString, qint64> counters; // path -> counter samples imported so far
    QSet<RunId> staleMetrics;
    bool anyError = false;
    if (!settings.quiet)
        err << "grademl import: following " << settings.inputs.join(QStringLiteral(", "))
            << " into " << QFileInfo(project.path()).absoluteFilePath() << " (Ctrl-C stops"
            << (settings.idleExitMs > 0 ? QStringLiteral("; %1 s without a change stops")
                                              .arg(settings.idleExitMs / 1000.0)
                                        : QString())
            << ")\n";
    err.flush();
    auto updateMetrics = [&] {
        if (staleMetrics.isEmpty())
            return;
        QStringList errors;
        sim::updateRunMetrics(project, QList<RunId>(staleMetrics.begin(), staleMetrics.end()),
                              &errors);
        for (const QString &e : std::as_const(errors))
            err << "grademl import: " << e << '\n';
        staleMetrics.clear();
        lastMetrics = clock.elapsed();
    };
    while (!g_stop) {
        const FolderFollower::Poll poll = follower.poll(QDateTime::currentMSecsSinceEpoch());
        ++polls;
        for (const SourceReport &r : poll.reports) {
            const QString rel = QDir::current().relativeFilePath(r.path);
            if (r.status != SourceReport::Status::Imported) {
                ++failures;
                anyError = true;
                err << "[follow] error: " << safeText(r.message, 4000) << '\n';
                continue;
            }
            ++imports;
            const qint64 before = counters.value(r.path);
            counters.insert(r.path, r.counterSamples);
            if (r.appended) {
                appendedSamples += r.counterSamples - before;
                if (!settings.quiet)
                    err << QStringLiteral("[follow] %1: +%2 counter samples (%3 in all)%4\n")
                               .arg(rel)
                               .arg(r.counterSamples - before)
                               .arg(r.counterSamples)
                               .arg(r.warnings ? QStringLiteral(", %1 warnings").arg(r.warnings)
                                               : QString());
            } else if (!settings.quiet) {
                err << QStringLiteral("[follow] %1: imported %2\n").arg(rel, importedSummary(r));
            }
        }
        for (const QString &e : poll.errors) {
            anyError = true;
            err << "grademl import: " << safeText(e, 4000) << '\n';
        }
        for (const QString &w : poll.warnings)
            err << "grademl import: warning: " << safeText(w, 4000) << '\n';
        err.flush();
        for (RunId run : poll.changedRuns)
            staleMetrics.insert(run);
        if (poll.nonAppend ||
            (!staleMetrics.isEmpty() && clock.elapsed() - lastMetrics >= kMetricsEveryMs))
            updateMetrics();
        // Growth counts, not imports: a line written a byte at a time, or a 1 GiB line, imports
        // nothing until its end, and the follower waited only 5 s for it.
        if (poll.grew || poll.imported || poll.waiting > 0 || !poll.reports.isEmpty())
            lastActivity = clock.elapsed();
        if (settings.idleExitMs > 0 && clock.elapsed() - lastActivity >= settings.idleExitMs)
            break;
        // Sleep in short steps, so that a signal stops the follower at once.
        for (qint64 slept = 0; slept < settings.pollMs && !g_stop; slept += 50)
            QThread::msleep(ulong(std::min<qint64>(50, settings.pollMs - slept)));
    }
    updateMetrics();
    for (const QString &w : follower.cutLastLines())
        err << "grademl import: warning: " << w << '\n';
    if (const QString why = follower.finish(); !why.isEmpty()) {
        anyError = true;
        err << "grademl import: " << why << '\n';
    }
    sigaction(SIGINT, &oldInt, nullptr);
    sigaction(SIGTERM, &oldTerm, nullptr);
    out << QStringLiteral("followed for %1 s: %2 polls, %3 imports (%4 counter samples appended), "
                          "%5 failed; stopped %6\n")
               .arg(double(clock.elapsed()) / 1000.0, 0, 'f', 1)
               .arg(polls)
               .arg(imports)
               .arg(appendedSamples)
               .arg(failures)
               .arg(g_stop ? QStringLiteral("by a signal")
                           : QStringLiteral("after %1 s without a file growing")
                                 .arg(settings.idleExitMs / 1000.0));
    out << "project: " << QFileInfo(project.path()).absoluteFilePath() << '\n';
    return anyError ? SomeFailed : Ok;
}

} // namespace gml::cli
