// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "folderscanner.h"
#include "rungrouping.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QTimeZone>

#include <functional>
#include <optional>
#include <vector>

namespace gml {

class WriterLock;

class Project;
class SideImports;
struct SourceRecord;

// What happened to one file.
struct SourceReport
{
    enum class Status { Imported, Unchanged, Failed, Skipped, Cancelled };
    QString path;
    QString format;
    QString runName;
    Status status = Status::Skipped;
    QString message; // error (with file and byte offset) or skip reason
    qint64 slices = 0;
    qint64 counterSamples = 0;
    qint64 flows = 0;
    qint64 warnings = 0;
    qint64 bytes = 0;
    double seconds = 0;
    // Where `seconds` went, for a file read on the job's thread (all 0 for one read aside or
    // not read): the importer reading it and writing its chunks, finishing the source (flows,
    // level of detail, the source's summary: finishSource) and the commit. bench_import
    // --stages prints them.
    double readSeconds = 0, finishSeconds = 0, commitSeconds = 0;
    // Not among the job's files: an execution trace read again because the run it links to
    // changed (ImportJob::run).
    bool relinked = false;
    // Read on a worker thread into a side project and copied in (sideimport.h).
    bool readAside = false;
    // A growing log of which only the lines appended since its last import were read
    // (logtail.cpp); the counts are the source's totals.
    bool appended = false;
    bool inParts = false; // read as a log in parts (logtail.cpp), whether or not it continued
    // Its last lines were left for the next part (a top -b block with no end yet): the
    // follower polls again, even if nothing else changes.
    bool held = false;
};

QString statusName(SourceReport::Status status);

struct ImportProgress
{
    // Reading: the job's files (fileIndex of fileCount, fraction of the current one).
    // Relinking: execution traces of earlier imports read again (index of count).
    // Aligning: the clocks of the changed runs (index of count, `run`).
    enum class Stage { Reading, Relinking, Aligning };
    Stage stage = Stage::Reading;
    QString run;
    int fileIndex = 0; // 0-based
    int fileCount = 0;
    QString path;
    double fraction = 0; // of the current file
    // Another program (an import in a second window or shell) is writing the project: this job
    // waits for it, calling the callback every few seconds (return false to stop waiting).
    bool waitingForWriter = false;
};

// Imports scanned files into a project, one transaction per source: a failing file rolls back
// alone (and is recorded as failed), nothing imported before is lost, an unchanged file (same
// size, mtime and content hash, same importer version) is skipped, a changed one replaces its
// previous import. Runs on whichever thread calls run(); the Project must belong to it.
class ImportJob
{
public:
    explicit ImportJob(Project &project) : m_project(project) {}
    // Called often; return false to cancel (the current file rolls back, the rest is not read).
    void setProgressCallback(std::function<bool(const ImportProgress &)> callback)
    {
        m_progress = std::move(callback);
    }
    // How many files are read at once (sideimport.h); 0: one per core. 1 reads them in turn on
    // the calling thread.
    void setThreads(int threads) { m_threads = threads; }
    // Files smaller than this (as read: expandedSize) are imported in their turn on the calling
    // thread even with several threads: a side project's fixed cost (made, attached, copied,
    // committed, removed) is more than such a file's reading. 256 rank files of 47 KB took 1.7x
    // as long aside on 2 threads as in turn on one; files of 1 MB gain 1.2x aside
    // (docs/benchmarks.md, issue 74).
    static constexpr qint64 kMinAsideBytes = qint64(512) << 10;
    // The longest the files imported in turn wait to be committed together (Project::startBatch).
    static constexpr qint64 kBatchMs = 250;
    void setMinAsideBytes(qint64 bytes) { m_minAsideBytes = bytes; }
    // Following a folder (folderfollower.h): these files are still being written and are passed
    // over this time (reported Skipped; nothing is recorded of them).
    void setDeferred(QSet<QString> paths) { m_deferred = std::move(paths); }
    // Following a folder (a follower polls every second): a file whose size and modification
    // time match its last import is taken as unchanged without reading it to compare its hash,
    // one that failed is not read again until it changes, and a log its format can read in
    // parts is read in parts (logtail.cpp; a one-shot import reads every file whole).
    void setFollowing(bool following) { m_following = following; }
    // The time zone of local-time logs, over any folder's grademl.json; invalid: not set.
    void setTimeZone(const QTimeZone &zone) { m_timeZone = zone; }
    // Imports, then re-aligns the clocks of every run that changed (clockalignment.h).
    // At the end the WAL is checkpointed, so the project file alone holds every commit.
    QList<SourceReport> run(const QList<ScannedFile> &files);
    // The last run()'s serial tail: seconds from the moment the worker threads finished the last
    // file read aside to the end of run() (copying what was left, grouping runs, aligning
    // clocks, folding the log); -1 when no file was read aside (issue 74).
    double afterWorkersSeconds() const { return m_afterWorkersSeconds; }
    // Errors that belong to no single file (a run's clock alignment).
    const QStringList &errors() const { return m_errors; }
    // What a follower must say though nothing failed: a followed log truncated or replaced,
    // whose earlier samples were kept aside (logtail.cpp).
    const QStringList &warnings() const { return m_warnings; }
    // How the folders' traces were grouped into runs, and why (rungrouping.h).
    const QList<RunGrouping> &groupings() const { return m_groupings; }
    // Runs whose data changed in this job (their headline metrics were dropped: runmetrics.h).
    QList<RunId> changedRunIds() const;

private:
    SourceReport importOne(const ScannedFile &file, int index, int count, bool *cancelled);
    // A log its format reads in parts (logtail.cpp): its whole lines since the last import.
    // Nullopt: the file is read whole (importOne).
    std::optional<SourceReport> tailOne(const ScannedFile &file, int index, int count,
                                        bool *cancelled);
    struct TailRead; // a followed log's parts, one after another (logtail.cpp)
    // A followed log no longer holds what was read of it (truncated, or replaced by another
    // file): its source is kept under another name, unless the lines read are in another file
    // of its folder (a rotation, imported as its own source); false with *error when the
    // project cannot be written. The warning says which.
    bool keepAside(const SourceRecord &existing, const QString &why, qint64 readBytes,
                   const QString &head, QString *error);
    // The file imported on a worker (task `task` of `aside`), copied into the project.
    SourceReport copyAside(const ScannedFile &file, int index, int count, SideImports &aside,
                           int task, const QString &knownHash, bool *cancelled);
    SourceReport startReport(const ScannedFile &file) const;
    // True when the file was imported before as it is, or failed as it is while following a
    // folder (report filled in); `hash` is set when it had to be read to tell.
    bool unchanged(const ScannedFile &file, SourceReport &report, QString &hash);
    // A file no source has the path of, whose content (size, format and hash) an imported
    // source has: its folder was moved, renamed or copied. Recognised by content, not path
    // (issue 73: a renamed folder's run got doubled tracks): a source whose file is gone, or
    // that lies outside the folder of a project that lies in this file's folder (the folder
    // copied with its project), takes the new path; otherwise the file is a copy of one
    // imported already and is not imported twice. A run named by the user (--run) other than
    // the source's imports the file as asked. True when it is not to be read.
    bool sameContent(const ScannedFile &file, SourceReport &report, QString &hash);
    // Begins the source's transaction: its previous import deleted, its run made, a row
    // inserted as 'failed' (made 'imported' by TraceWriter::finish or the side copy).
    [[nodiscard]] bool openSource(const ScannedFile &file, int index, int count,
                                  const QString &hash, std::optional<SourceRecord> &existing,
                                  RunId &run, SourceId &source, QString *error);
    // The failed file recorded in its own transaction (`hash`: its content hash).
    void recordFailure(const ScannedFile &file, int index, int count,
                       const std::optional<SourceRecord> &existing, const QString &hash,
                       const SourceReport &report);
    QTimeZone zoneOf(const ScannedFile &file) const;
    ImportProgress progressAt(int index, int count, const QString &path, double fraction,
                              bool waiting = false) const;
    QString withFingerprint(const ScannedFile &file, const QString &content) const;
    // Per file: the same content as a file before it in `files` (a copied folder). Such a file
    // is imported in its turn, after the one it copies, so that sameContent sees it, never
    // aside (the side projects are all started before any is committed).
    std::vector<char> copiesWithinJob(const QList<ScannedFile> &files) const;
    void relinkExecutionTraces(const QList<ScannedFile> &files, QList<SourceReport> &reports);
    void dropLeftRuns();
    // Runs into the workloads their folders' grademl.json name (rungrouping.h splits first).
    void placeRuns(const QList<ScannedFile> &files, const QList<SourceReport> &reports);
    // Workflows the files' folders declare (grademl.json), stored for the workflow graph.
    void storeWorkflows(const QList<ScannedFile> &files);
    void recordSkipped(const ScannedFile &file, SourceReport &report);
    // Project::begin that waits, with progress, while another connection writes the project.
    // Runs `step` (which begins its own transaction) again while it failed because another
    // program held the write lock, for up to ten minutes as a file's import waits: the steps
    // after the files (runs left empty, workflows, clock alignment, stale metrics) otherwise
    // failed after SQLite's 5 s when a second import of the project was writing its file.
    bool waitingForLock(const std::function<bool()> &step);
    // The project's writer lock (writerlock.h) taken, waiting with progress while another
    // import holds it (ten minutes without a callback); false with `why` when waiting stopped.
    bool takeWriterLock(WriterLock &lock, int count, QString *why);
    [[nodiscard]] bool begin(const ScannedFile &file, int index, int count, QString *error);

    Project &m_project;
    std::function<bool(const ImportProgress &)> m_progress;
    QTimeZone m_timeZone;
    int m_threads = 0;
    double m_afterWorkersSeconds = -1;
    qint64 m_minAsideBytes = kMinAsideBytes;
    QSet<QString> m_deferred;
    bool m_following = false;
    ImportProgress::Stage m_stage = ImportProgress::Stage::Reading;
    QSet<QString> m_changedRuns;  // runs with a file imported by this job
    QSet<QString> m_appendedRuns; // runs where the only change was lines appended to logs
    QSet<QString> m_relink;       // paths read again whatever their state
    QSet<qint64> m_leftRuns;      // runs a source moved out of (ExecutionTraceImporter)
    QStringList m_errors;
    QStringList m_warnings;
    QList<RunGrouping> m_groupings;
};

// Copies the project's write-ahead log into the project file (a checkpoint), so that the
// .grademl alone holds every commit. Empty, or why not.
QString foldWriteAheadLog(Project &project);

// The file's modification time as source.mtime_ns records it (ms precision, in ns).
qint64 fileMtimeNs(const QString &path);

// The ContentHash of the file's bytes as "xxh64:" and 16 hex digits; empty when unreadable.
QString fileHash(const QString &path);

} // namespace gml
