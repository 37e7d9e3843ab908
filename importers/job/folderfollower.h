// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importjob.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTimeZone>

#include <functional>
#include <utility>

namespace gml {

class Project;

// Follows trace folders while a job writes them: `grademl import --follow`, the studio's
// File › Follow Folder… and `grademl-studio --record`. Each poll lists the folders (names,
// sizes, modification times: no file is read); when anything changed, it scans them and runs
// an import job of what is ready:
//   - a log its format reads in parts (the recorder's samples, nvidia-smi -l with timestamps
//     and GPU ids) at once: only its whole lines appended since the last poll (logtail.cpp);
//   - another growing log (dcgmi dmon, top -b, nvidia-smi dmon, an MLflow run's metrics) whole,
//     while it grows, at most every 30 s (Importer::grows);
//   - any other file once it has stopped changing for `settleMs` (a Kineto trace written per
//     profiler cycle, an Nsight export): it is read whole, and again when it changes.
// A file whose size and modification time match its last import is not read (ImportJob's quick
// check). Runs on the calling thread, which owns the Project.
class FolderFollower
{
public:
    struct Options
    {
        QStringList inputs;
        QString runName; // empty: a run per folder
        QTimeZone timeZone;
        int threads = 0;
        qint64 settleMs = 2000;
    };
    struct Poll
    {
        bool imported = false; // a job ran and wrote something
        bool grew = false; // a followed file changed size or time (written to, whole lines or not)
        bool nonAppend =
            false;       // ... more than lines appended to logs (runs may have changed shape)
        int waiting = 0; // files still being written, passed over this time
        QList<SourceReport> reports; // the job's files that were imported or failed this time
        QStringList errors;          // the scan's and the job's
        QStringList warnings; // the job's: a log truncated or replaced, its samples kept aside
        QList<RunId> changedRuns;
    };

    FolderFollower(Project &project, Options options);

    // Called while a job reads files; return false to cancel it (ImportJob::setProgressCallback).
    void setProgressCallback(std::function<bool(const ImportProgress &)> callback)
    {
        m_progress = std::move(callback);
    }
    // One look at the folders, importing what is ready. `nowMs`: the wall clock in ms since the
    // epoch (a parameter so that tests can step it).
    Poll poll(qint64 nowMs);
    // Something changed since the last poll, or files are waiting to settle.
    bool busy() const { return m_pending; }
    // When following stops: folds the write-ahead log into the project file (polls leave that to
    // SQLite's checkpoints, which never wait for a reader). Empty, or why not.
    QString finish();
    // When following stops: the logs read in parts whose last line is still cut (the writer was
    // in the middle of it), said as a one-shot import says it: that line is not imported.
    QStringList cutLastLines();

private:
    struct Seen
    {
        qint64 size = -1;
        qint64 mtimeMs = 0;
        bool operator==(const Seen &o) const { return size == o.size && mtimeMs == o.mtimeMs; }
    };
    QHash<QString, Seen> list() const;

    Project &m_project;
    Options m_options;
    std::function<bool(const ImportProgress &)> m_progress;
    QHash<QString, Seen> m_last;
    QHash<QString, QString> m_failed; // path -> the failure last told
    QSet<QString> m_toldErrors;       // the scan's, as last told
    QSet<QString> m_toldEmpty;        // logs read in parts found empty, as told
    // Growing logs read whole (their format, or this file, cannot be read in parts): when
    // each was last read; it is read again at most every kRereadMs while it grows.
    static constexpr qint64 kRereadMs = 30'000;
    QHash<QString, qint64> m_wholeReads;
    bool m_pending = true; // the first poll imports
    bool m_polled = false;
};

} // namespace gml
