// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "folderscanner.h"
#include "importer.h"

#include <QList>
#include <QString>
#include <QTemporaryDir>
#include <QTimeZone>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace gml {

class ImportIds;

// The folder an import's side projects are written in, `.grademl-import-XXXXXX` beside the
// project (on the disk chosen for it). Its owner holds a lock on a file in it while it lives;
// creating one first removes the folders beside it whose owner is gone (an import killed with
// kill -9 left its folder, and its side projects, behind: issue 56).
class ScratchFolder
{
public:
    explicit ScratchFolder(const QString &besideProject);
    ~ScratchFolder();
    ScratchFolder(const ScratchFolder &) = delete;
    ScratchFolder &operator=(const ScratchFolder &) = delete;
    bool isValid() const;
    QString path() const;

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    int m_lock = -1;
};

// One file imported into a side project (sideproject.h) on a worker thread.
struct SideResult
{
    ImportOutcome outcome;              // Failed with the error, Cancelled, or Imported
    QString projectPath;                // the side project, when the file was imported
    SourceId source = 0;                // its source there
    std::optional<quint64> contentHash; // ImportContext::contentHash
    qint64 slices = 0, counterSamples = 0, flows = 0; // what the writer wrote
    double seconds = 0;
};

// Imports files on worker threads, each into its own side project in `folder`, while the job's
// thread copies the results into the project one by one, in the files' order (ImportJob). At
// most `threads` files are read at once, at most a few files ahead of the one being copied,
// and a file is started only while the bytes being read stay under a budget (or nothing else
// is being read), so that a folder of large traces does not hold several in memory at once.
class SideImports
{
public:
    struct Task
    {
        ScannedFile file;
        QTimeZone zone;
    };
    SideImports(ImportIds &ids, QList<Task> tasks, int threads, const QString &folder);
    // Cancels what is still running, waits for the workers and removes the side projects.
    ~SideImports();
    SideImports(const SideImports &) = delete;
    SideImports &operator=(const SideImports &) = delete;

    // Waits for task `index` (the next one in order), calling `waiting(fraction read)` about
    // ten times a second; it returns false to cancel every task. The side project stays until
    // release(index).
    SideResult take(int index, const std::function<bool(double)> &waiting);
    void release(int index);
    void cancel();
    // How much of task `index` was read (1 once it is done).
    double fraction(int index);
    // When the workers finished the last task; nullopt while any is still to finish.
    std::optional<std::chrono::steady_clock::time_point> allDone();

    // The bytes of input read in parallel at most (about 0.5 of them held while importing).
    static constexpr qint64 kBudgetBytes = qint64(2) << 30;

private:
    void work();
    SideResult importOne(int index);
    bool mayStart(int index) const; // under m_mutex
    // Every task started and none running: all finished (under m_mutex).
    bool finishedAll() const { return m_next >= int(m_tasks.size()) && m_running == 0; }

    ImportIds &m_ids;
    QList<Task> m_tasks;
    QString m_folder;
    QByteArray m_template; // the empty side project each one starts as (empty: none)
    std::vector<std::pair<qint64, qint64>> m_templateRuns; // its bytes that are not zero
    std::vector<std::optional<SideResult>> m_results;
    std::vector<std::unique_ptr<std::atomic<double>>> m_fraction;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_next = 0;       // the next task a worker starts
    int m_taken = 0;      // the task the job waits for or copies
    qint64 m_reading = 0; // estimated bytes of the tasks being read
    int m_running = 0;
    std::chrono::steady_clock::time_point m_allDone; // set when finishedAll() became true
    int m_lookAhead = 0;
    std::atomic<bool> m_cancelled{false};
    std::vector<std::thread> m_workers;
};

// The bytes a file expands to while read (bytesAsRead, hugepages.h: a gzip file about eight
// times its size).
qint64 expandedSize(const ScannedFile &file);

// Whether a file is written through the small page cache (Project::Cache::Writing): one of
// 4 MiB or more, as read. Smaller files keep the reading cache: most pages they touch are the
// same few for every file of a batch (strings, tracks, the tables' inner pages), and with a
// small cache each would go to the log and be read back again (1,024 small rank files 1.2-1.4x
// slower). At 8 MB a file the two caches take the same time and the small one 6 MB less memory.
// The copy of a side project into the project keeps the reading cache: through the small one
// the serial tail after the workers doubled (16 files of 64 MB: 0.18-0.24 -> 0.37 s).
bool writesThrough(const ScannedFile &file);

} // namespace gml
