// SPDX-License-Identifier: GPL-3.0-or-later
#include "importjob.h"
#include "sourcework.h"

#include "clockalignment.h"
#include "contenthash.h"
#include "importer.h"
#include "project.h"
#include "runrecords.h"
#include "sideimport.h"
#include "sideproject.h"
#include "sourcerecords.h"
#include "tracewriter.h"
#include "writerlock.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace gml {

QString statusName(SourceReport::Status status)
{
    switch (status) {
    case SourceReport::Status::Imported:
        return QStringLiteral("imported");
    case SourceReport::Status::Unchanged:
        return QStringLiteral("unchanged");
    case SourceReport::Status::Failed:
        return QStringLiteral("failed");
    case SourceReport::Status::Skipped:
        return QStringLiteral("skipped");
    case SourceReport::Status::Cancelled:
        return QStringLiteral("cancelled");
    }
    return {};
}

qint64 fileMtimeNs(const QString &path)
{
    return QFileInfo(path).lastModified().toMSecsSinceEpoch() * 1'000'000;
}

// The 'failed' source row of a file an importer takes; a successful import turns it into
// 'imported' (TraceWriter::finish) inside the same transaction.
static NewSource newSource(const ScannedFile &file, RunId run, const QString &hash,
                           const QString &error)
{
    return NewSource{run,
                     file.path,
                     file.importer->format(),
                     file.size,
                     fileMtimeNs(file.path),
                     hash,
                     file.importer->version(),
                     error};
}

// A file the job did not get to (a cancel, another import holding the project): said why.
static SourceReport notImported(const ScannedFile &file, const QString &why)
{
    SourceReport r;
    r.path = file.path;
    r.runName = file.runName;
    r.status = SourceReport::Status::Cancelled;
    r.message = QStringLiteral("not imported: ") + why;
    return r;
}

// An import takes and frees buffers of megabytes again and again (a chunk's rows and args, the
// parser's growing vectors, a track's summary levels), for every file. glibc maps each one above
// its mmap threshold afresh and unmaps it when freed, and gives the heap's free top back to the
// kernel above its trim threshold, so every one is zero-filled and faulted in again page by
// page: a fifth of a 256 MB import's time on a VM where a fault is dear. So allocations under a
// sixteenth of the largest file (32 to 64 MiB; 32 MiB is glibc's own ceiling for its moving
// threshold on 64-bit) come from the heap, and twice that is kept free there before any is given
// back (glibc's own ratio when it moves the threshold itself). Two workers free their buffers at
// different times, and a trim at the threshold alone gave back what the other was about to take.
// A folder of 16 files of 61 MiB: 137k -> 17k faults, 6.0 -> 4.3 s on one thread; 3.7 -> 2.8 s
// on two (90k faults with the trim at the threshold, 45k at twice). Files of 21-35 MB import
// about 0.9x the time for 5-8 MB more peak memory (docs/benchmarks.md). Set for the process,
// raised by a larger import, never undone.
// A worker thread allocates from an arena of its own, which glibc grows in heaps of 64 MiB
// (HEAP_MAX_SIZE: twice its mmap threshold's ceiling on 64-bit) and unmaps a heap the moment all
// of it is free, whatever the trim threshold, unless the arena's top pad asks to keep that much.
// So every worker faulted its buffers in again for every file, and each unmap on one core
// interrupted the other (TLB shootdown): the same folder on two threads took 24k faults against
// 3k on one, and 0.5 s more CPU. A pad of one heap keeps it (1.5-3.7k faults; two threads
// 0.77-0.97x the time). What was kept is given back when the import is done (giveBackFreedMemory).
static constexpr int kArenaHeapBytes = 64 << 20;

static void reuseFreedMemory(const QList<ScannedFile> &files)
{
#ifdef __GLIBC__
    mallopt(M_TOP_PAD, kArenaHeapBytes);
    qint64 largest = 0;
    for (const ScannedFile &f : files)
        if (f.importer)
            largest = std::max(largest, expandedSize(f));
    const int threshold = int(std::clamp(largest / 16, qint64(32) << 20, qint64(64) << 20));
    static std::mutex mutex;
    static int set = 0; // raised by a larger import, never lowered
    std::lock_guard lock(mutex);
    if (threshold <= set)
        return;
    set = threshold;
    mallopt(M_MMAP_THRESHOLD, threshold);
    mallopt(M_TRIM_THRESHOLD, 2 * threshold);
#else
    (void)files;
#endif
}

// What the arenas kept for reuse (a heap each, and twice the mmap threshold at their tops) is
// given back when the import is done: a long-lived program (the GUI, a follower) does not hold
// it until its next import. About 10 ms after a folder of 1 GB on two threads.
static void giveBackFreedMemory()
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

QList<SourceReport> ImportJob::run(const QList<ScannedFile> &files)
{
    reuseFreedMemory(files);
    QList<SourceReport> reports;
    bool cancelled = false;
    m_stage = ImportProgress::Stage::Reading;
    m_afterWorkersSeconds = -1;
    // One import writes the project at a time (writerlock.h): a second waits here, saying so,
    // until the first is done, and then imports as if it had started after it.
    WriterLock lock;
    if (QString why; !takeWriterLock(lock, int(files.size()), &why)) {
        m_errors.append(why);
        for (const ScannedFile &f : files)
            reports.append(notImported(f, why));
        return reports;
    }
    // The files that changed and whose importer writes only through its TraceWriter are read
    // on worker threads into side projects and copied in here, in order (sideimport.h); the
    // others (execution traces, MLflow runs, files too small to gain: kMinAsideBytes) are
    // imported here in their turn, while the workers read ahead.
    const int threads = m_threads > 0 ? m_threads : std::max(1, QThread::idealThreadCount());
    std::vector<int> taskOf(size_t(files.size()), -1);
    std::vector<std::optional<SourceReport>> sameAsBefore(size_t(files.size()));
    std::vector<QString> hashes(size_t(files.size()));
    QList<SideImports::Task> tasks;
    const std::vector<char> copies = threads > 1 ? copiesWithinJob(files) : std::vector<char>();
    for (int i = 0; threads > 1 && i < files.size(); ++i) {
        // Following, a log read in parts is read here (tailOne): its parts continue the source
        // in place. A one-shot import reads it aside like any file (a folder of 1,024 ranks'
        // GPU logs on every core).
        if (!files[i].importer || !files[i].importer->importsAside() ||
            expandedSize(files[i]) < m_minAsideBytes || copies[size_t(i)] ||
            (m_following && files[i].importer->tails()) || m_deferred.contains(files[i].path))
            continue;
        SourceReport r = startReport(files[i]);
        if (unchanged(files[i], r, hashes[size_t(i)])) {
            sameAsBefore[size_t(i)] = r;
            continue;
        }
        taskOf[size_t(i)] = int(tasks.size());
        tasks.append({files[i], zoneOf(files[i])});
    }
    // Small files' commits grouped (Project::startBatch): a quarter of a second at most.
    m_project.startBatch(kBatchMs);
    std::unique_ptr<ImportIds> ids;
    std::unique_ptr<ScratchFolder> scratch;
    std::unique_ptr<SideImports> aside;
    if (tasks.size() >= 2) {
        // Beside the project: on the disk chosen for it, not in a /tmp that may be memory.
        scratch = std::make_unique<ScratchFolder>(m_project.path());
        if (scratch->isValid()) {
            ids = std::make_unique<ImportIds>(m_project.db());
            m_project.shareIds(ids.get());
            aside = std::make_unique<SideImports>(*ids, tasks, threads, scratch->path());
        }
    }
    for (int i = 0; i < files.size(); ++i) {
        if (cancelled) {
            reports.append(notImported(files[i], QStringLiteral("the import was cancelled")));
            continue;
        }
        const size_t at = size_t(i);
        if (m_deferred.contains(files[i].path)) {
            SourceReport r = startReport(files[i]);
            r.status = SourceReport::Status::Skipped;
            r.message = QStringLiteral("still being written: imported once it stops changing");
            reports.append(r);
        } else if (sameAsBefore[at])
            reports.append(*sameAsBefore[at]);
        else if (aside && taskOf[at] >= 0)
            reports.append(copyAside(files[i], i, int(files.size()), *aside, taskOf[at], hashes[at],
                                     &cancelled));
        else
            reports.append(importOne(files[i], i, int(files.size()), &cancelled));
        if (reports.back().status == SourceReport::Status::Imported) {
            if (reports.back().appended && !m_changedRuns.contains(files[i].runName))
                m_appendedRuns.insert(files[i].runName);
            else
                m_appendedRuns.remove(files[i].runName);
            m_changedRuns.insert(files[i].runName);
        }
    }
    if (QString why; !m_project.endBatch(&why))
        m_errors.append(why);
    const auto workersDone = aside ? aside->allDone() : std::nullopt;
    aside.reset(); // stops what a cancel left running, removes the side projects
    QSet<QString> regroupedRuns;
    if (ids)
        m_project.shareIds(nullptr);
    if (!cancelled) {
        RegroupResult regrouped = regroupFolderRuns(m_project, files, m_changedRuns);
        for (SourceReport &r : reports)
            if (auto it = regrouped.moved.constFind(r.path); it != regrouped.moved.constEnd())
                r.runName = *it;
        m_changedRuns.unite(regrouped.touchedRuns);
        regroupedRuns = regrouped.touchedRuns;
        for (RunId run : std::as_const(regrouped.leftRuns))
            m_leftRuns.insert(run);
        m_errors += regrouped.errors;
        m_groupings = regrouped.groupings;
        relinkExecutionTraces(files, reports);
        placeRuns(files, reports);
    }
    dropLeftRuns();
    storeWorkflows(files);
    // Ranks whose data changed are aligned again (a run's own transaction; a failure leaves
    // the previous alignment and is reported). Not cancellable: the data is in.
    m_stage = ImportProgress::Stage::Aligning;
    int aligned = 0;
    for (const QString &runName : std::as_const(m_changedRuns)) {
        // Lines appended to a log keep its source's clock offset: nothing to align again.
        if (m_appendedRuns.contains(runName) && !regroupedRuns.contains(runName))
            continue;
        if (m_progress) {
            ImportProgress p = progressAt(aligned++, int(m_changedRuns.size()), {}, 0.0);
            p.run = runName;
            (void)m_progress(p);
        }
        const auto run = m_project.findRun(runName);
        QString error;
        if (run && !waitingForLock([&] { return alignRunClocks(m_project, *run, &error); }))
            m_errors.append(
                QStringLiteral("clock alignment of run '%1' failed: %2").arg(runName, error));
    }
    // Headline metrics of the changed runs are computed again by whoever lists them.
    if (const QList<RunId> changed = changedRunIds(); !changed.isEmpty()) {
        QString error;
        if (waitingForLock([&] { return m_project.begin(&error); })) {
            if (!dropRunMetrics(m_project, changed, &error) || !m_project.commit(&error)) {
                m_project.rollback();
                m_errors.append(QStringLiteral("stale headline metrics not dropped: ") + error);
            }
        }
    }
    // Following, SQLite's own checkpoints (which never wait) fold the log in as it grows, and
    // the follower folds the rest when it stops (FolderFollower::finish).
    if (!m_following)
        if (const QString why = foldWriteAheadLog(m_project); !why.isEmpty())
            m_errors.append(why);
    // A project deleted or replaced while this import wrote to it holds nothing of it now.
    if (const QString why = m_project.fileProblem(); !why.isEmpty())
        m_errors.append(why);
    giveBackFreedMemory();
    if (workersDone)
        m_afterWorkersSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - *workersDone).count();
    return reports;
}

void ImportJob::recordSkipped(const ScannedFile &file, SourceReport &report)
{
    // A file imported before that no format reads now (emptied, overwritten): what it gave is
    // kept, and said (a followed log truncated to nothing lost its samples: issue 56).
    if (const auto earlier = m_project.sourceByPath(file.path);
        earlier && earlier->status == QLatin1String("imported")) {
        report.message += QStringLiteral("; what was imported of it before is kept");
        return;
    }
    QString error;
    if (!begin(file, 0, 1, &error)) {
        report.status = SourceReport::Status::Failed;
        report.message = file.path + QStringLiteral(": ") + error;
        return;
    }
    bool ok = true;
    if (auto existing = m_project.sourceByPath(file.path))
        ok = m_project.deleteSource(existing->id, &error);
    const RunId run = ok ? m_project.ensureRun(file.runName, &error) : 0;
    if (ok && run) {
        ok = insertSkippedSource(m_project, run, file.path, file.size, fileMtimeNs(file.path),
                                 file.skipReason, &error);
    }
    if (ok && run && m_project.commit(&error))
        return;
    m_project.rollback();
}

ImportProgress ImportJob::progressAt(int index, int count, const QString &path, double fraction,
                                     bool waiting) const
{
    ImportProgress p;
    p.stage = m_stage;
    p.fileIndex = index;
    p.fileCount = count;
    p.path = path;
    p.fraction = fraction;
    p.waitingForWriter = waiting;
    return p;
}

QTimeZone ImportJob::zoneOf(const ScannedFile &file) const
{
    return m_timeZone.isValid()       ? m_timeZone
           : !file.timeZone.isEmpty() ? QTimeZone(file.timeZone.toUtf8())
                                      : QTimeZone::systemTimeZone();
}

SourceReport ImportJob::startReport(const ScannedFile &file) const
{
    SourceReport report;
    report.path = file.path;
    report.runName = file.runName;
    report.bytes = file.size;
    if (file.importer)
        report.format = file.importer->format();
    return report;
}

bool ImportJob::openSource(const ScannedFile &file, int index, int count, const QString &hash,
                           std::optional<SourceRecord> &existing, RunId &run, SourceId &source,
                           QString *error)
{
    if (!begin(file, index, count, error)) {
        *error = QStringLiteral("not imported: ") + *error;
        return false;
    }
    // Read again inside the transaction: another import may have written this file since.
    existing = m_project.sourceByPath(file.path);
    bool ok = true;
    if (existing)
        ok = m_project.deleteSource(existing->id, error);
    run = ok ? m_project.ensureRun(file.runName, error) : 0;
    if (ok && run) {
        source = insertFailedSource(
            m_project, newSource(file, run, hash, QStringLiteral("import in progress")), error);
        ok = source != 0;
        // The user's clock override belongs to the file, not to one import of it.
        if (ok && existing && existing->alignUserNs)
            ok = setSourceUserOffset(m_project, source, *existing->alignUserNs, error);
    }
    if (ok && run)
        return true;
    m_project.rollback();
    *error = QStringLiteral("cannot write to the project: ") + *error;
    return false;
}

void ImportJob::recordFailure(const ScannedFile &file, int index, int count,
                              const std::optional<SourceRecord> &existing, const QString &hash,
                              const SourceReport &report)
{
    // Its own small transaction. A file imported before keeps its data: its row stays
    // 'imported' and carries the latest error.
    QString error;
    if (!begin(file, index, count, &error))
        return;
    bool recorded = false;
    if (existing && existing->status == QLatin1String("imported")) {
        recorded = setSourceError(
            m_project, existing->id,
            QStringLiteral("re-import failed, previous import kept: ") + report.message, &error);
    } else {
        bool ok = true;
        if (existing)
            ok = m_project.deleteSource(existing->id, &error);
        const RunId r = ok ? m_project.ensureRun(file.runName, &error) : 0;
        if (r)
            recorded = insertFailedSource(m_project, newSource(file, r, hash, report.message),
                                          &error) != 0;
    }
    if (!(recorded && m_project.commit(&error)))
        m_project.rollback();
}

SourceReport ImportJob::importOne(const ScannedFile &file, int index, int count, bool *cancelled)
{
    SourceReport report = startReport(file);
    if (!file.importer) {
        report.status = SourceReport::Status::Skipped;
        report.message = file.skipReason;
        recordSkipped(file, report);
        return report;
    }
    const Importer &importer = *file.importer;
    QElapsedTimer timer;
    timer.start();
    if (auto tailed = tailOne(file, index, count, cancelled))
        return *tailed;
    QString hash;
    if (unchanged(file, report, hash))
        return report;

    auto failWith = [&](const QString &message) {
        report.status = SourceReport::Status::Failed;
        report.message = message;
    };
    QString error;
    std::optional<SourceRecord> existing;
    RunId run = 0;
    SourceId sourceId = 0;
    if (!openSource(file, index, count, hash, existing, run, sourceId, &error)) {
        failWith(file.path + QStringLiteral(": ") + error);
        return report;
    }

    const Project::CacheScope cache(m_project, writesThrough(file) ? Project::Cache::Writing
                                                                   : Project::Cache::Reading);
    TraceWriter writer(m_project, run, sourceId);
    ImportContext ctx;
    ctx.path = file.path;
    ctx.fileSize = file.size;
    ctx.writer = &writer;
    ctx.timeZone = zoneOf(file);
    ctx.progress = [&](double fraction) {
        if (!m_progress)
            return true;
        return m_progress(progressAt(index, count, file.path, fraction));
    };
    if (m_progress && !m_progress(progressAt(index, count, file.path, 0.0))) {
        m_project.rollback();
        *cancelled = true;
        report.status = SourceReport::Status::Cancelled;
        report.message = QStringLiteral("cancelled");
        return report;
    }
    QElapsedTimer stage;
    stage.start();
    ImportOutcome outcome = importGuarded(importer, ctx);
    report.readSeconds = double(stage.nsecsElapsed()) / 1e9;
    if (outcome.ok() && writer.failed()) {
        outcome.status = ImportOutcome::Status::Failed;
        outcome.error = QStringLiteral("could not write to the project: ") + writer.errorString();
    }
    auto takeHash = [&] {
        if (hash.isEmpty())
            hash = withFingerprint(file, ctx.contentHash ? ContentHash::text(*ctx.contentHash)
                                                         : fileHash(file.path));
    };
    if (outcome.ok()) {
        takeHash();
        if (QString why; !setSourceHash(m_project, sourceId, hash, &why)) {
            outcome.status = ImportOutcome::Status::Failed;
            outcome.error = QStringLiteral("could not write to the project: ") + why;
        }
    }
    // A source that joined another run (an execution trace finding its operators there)
    // leaves its run behind; run() drops it if nothing else is in it.
    if (outcome.ok() && writer.runId() != run) {
        if (const auto name = runName(m_project, writer.runId()))
            report.runName = *name;
    }
    outcome.warnings += writer.warnings();
    stage.restart();
    const bool finished = outcome.ok() && finishSource(writer, outcome.warnings, &error);
    report.finishSeconds = double(stage.nsecsElapsed()) / 1e9;
    stage.restart();
    if (finished && m_project.commit(&error)) {
        report.commitSeconds = double(stage.nsecsElapsed()) / 1e9;
        if (report.runName != file.runName) {
            m_changedRuns.insert(report.runName);
            m_leftRuns.insert(run);
        }
        report.status = SourceReport::Status::Imported;
        report.slices = writer.sliceCount();
        report.counterSamples = writer.counterCount();
        report.flows = writer.flowCount();
        for (const auto &w : outcome.warnings)
            report.warnings += w.count;
        report.seconds = double(timer.nsecsElapsed()) / 1e9;
        return report;
    }
    m_project.rollback();
    if (outcome.status == ImportOutcome::Status::Cancelled) {
        *cancelled = true;
        report.status = SourceReport::Status::Cancelled;
        report.message = QStringLiteral("cancelled; nothing of this file was kept");
        return report;
    }
    if (outcome.ok()) // the importer succeeded, but finishing or committing did not
        outcome = ImportOutcome{ImportOutcome::Status::Failed,
                                -1,
                                QStringLiteral("could not write to the project: ") + error,
                                {}};
    failWith(outcome.describe(file.path));
    takeHash();
    recordFailure(file, index, count, existing, hash, report);
    report.seconds = double(timer.nsecsElapsed()) / 1e9;
    return report;
}

SourceReport ImportJob::copyAside(const ScannedFile &file, int index, int count, SideImports &aside,
                                  int task, const QString &knownHash, bool *cancelled)
{
    SourceReport report = startReport(file);
    if (m_progress && !m_progress(progressAt(index, count, file.path, aside.fraction(task))))
        aside.cancel();
    const SideResult side = aside.take(task, [&](double fraction) {
        return !m_progress || m_progress(progressAt(index, count, file.path, fraction));
    });
    if (side.outcome.status == ImportOutcome::Status::Cancelled) {
        *cancelled = true;
        report.status = SourceReport::Status::Cancelled;
        report.message = QStringLiteral("cancelled; nothing of this file was kept");
        return report;
    }
    // The worker's read hashed a plain file; a gzip one (or a failed read) is hashed here.
    QString hash = knownHash;
    if (hash.isEmpty())
        hash = withFingerprint(file, side.contentHash ? ContentHash::text(*side.contentHash)
                                                      : fileHash(file.path));
    QString error;
    std::optional<SourceRecord> existing;
    if (side.outcome.ok()) {
        RunId run = 0;
        SourceId source = 0;
        bool conflict = false;
        // ATTACH and DETACH need no transaction open: what a batch of small files holds is
        // committed first, and the copy committed alone.
        if (m_project.settle(&error) && attachSide(m_project, side.projectPath, &error)) {
            const bool opened = openSource(file, index, count, hash, existing, run, source, &error);
            if (opened && copySideSource(m_project, side.source, run, source, &conflict, &error) &&
                m_project.commit(&error) && m_project.settle(&error)) {
                detachSide(m_project);
                aside.release(task);
                report.slices = side.slices;
                report.counterSamples = side.counterSamples;
                report.flows = side.flows;
                for (const auto &w : side.outcome.warnings)
                    report.warnings += w.count;
                report.status = SourceReport::Status::Imported;
                report.readAside = true;
                report.seconds = side.seconds;
                return report;
            }
            if (opened) { // the copy or the commit failed
                m_project.rollback();
                if (!conflict)
                    error = QStringLiteral("cannot write to the project: ") + error;
            }
            QString unused;
            (void)m_project.settle(&unused); // the batch's other files, before the detach
            detachSide(m_project);
        }
        aside.release(task);
        // Another program imported into the project meanwhile and took the ids the side project
        // used: read the file again, directly.
        if (conflict)
            return importOne(file, index, count, cancelled);
        report.status = SourceReport::Status::Failed;
        report.message = file.path + QStringLiteral(": ") + error;
    } else {
        report.status = SourceReport::Status::Failed;
        report.message = side.outcome.describe(file.path);
    }
    existing = m_project.sourceByPath(file.path);
    recordFailure(file, index, count, existing, hash, report);
    report.seconds = side.seconds;
    return report;
}

} // namespace gml
