// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sqlitedb.h"
#include "types.h"

#include <QElapsedTimer>
#include <QHash>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gml {

class ImportIds;

// What the project remembers of one imported file (a row of `source`).
struct SourceRecord
{
    SourceId id = 0;
    RunId runId = 0;
    QString path;
    QString format;
    qint64 size = 0;
    qint64 mtimeNs = 0;
    QString hash;
    QString status;
    QString error;
    std::optional<TimeNs> alignUserNs; // the user's clock override (clockalignment.h)
};

// One project file (.grademl): a SQLite database in WAL mode whose user_version is the schema
// version. Opening migrates an older file forward. Not thread-safe: one Project per thread.
class Project
{
public:
    // Scratch: written like ReadWrite, but nothing is made durable (no journal on disk, no
    // sync): a file that is thrown away if the program stops, such as an import's side project
    // (sideproject.h), which otherwise paid about ten fsyncs per file.
    enum class Mode { ReadWrite, ReadOnly, Scratch };

    // Called while an older project is brought to this program's schema: what is being done
    // and how far (done of total; total 0: unknown). Return false to stop (the open then fails
    // with "cancelled" and the file keeps its last completed version).
    using MigrationProgress = std::function<bool(const QString &what, int done, int total)>;
    [[nodiscard]] static std::unique_ptr<Project>
    open(const QString &path, Mode mode, QString *error, const MigrationProgress &progress = {});
    ~Project();

    // Why the project file at `path` cannot be written or created (a read-only file or medium,
    // a missing or unwritable folder); empty when it can.
    static QString whyNotWritable(const QString &path);
    // Empty while the project's path still names the file this object opened; else what
    // happened to it (deleted or replaced while open: what was written since is in the old
    // file, which nobody can open any more).
    QString fileProblem() const;

    SqliteDb &db() { return m_db; }
    const QString &path() const { return m_path; }
    bool isReadOnly() const { return m_mode == Mode::ReadOnly; }
    int schemaVersion() const;

    // Folds the write-ahead log into the project file (a TRUNCATE checkpoint), so that copying
    // the .grademl alone keeps everything; false when a reader held part of it back (*why: the
    // error, empty when there was none).
    bool checkpoint(QString *why);

    // SQLite's page cache on this connection. Reading keeps 64 MiB: the chunks views and
    // analyses decode again stay in memory. Writing a large import through it, every page
    // written was a fresh page of that cache, faulted in, filled and copied to the log only at
    // commit (a fifth of a 35 MB import's time). With 1 MiB the pages go to the log as they
    // fill and the same memory is filled again while it is still in the processor's cache:
    // ResNet-50 imports in 0.29 s instead of 0.35 s, at 46 MB peak instead of 61 MB
    // (docs/benchmarks.md). A spilled page read again comes back from the log; what a commit
    // or a kill -9 leaves does not change.
    enum class Cache { Reading, Writing };
    void useCacheFor(Cache use);
    // `use` while it lives, the reading cache again after.
    class CacheScope
    {
    public:
        CacheScope(Project &project, Cache use) : m_project(project), m_use(use)
        {
            if (m_use != Cache::Reading)
                m_project.useCacheFor(m_use);
        }
        ~CacheScope()
        {
            if (m_use != Cache::Reading)
                m_project.useCacheFor(Cache::Reading);
        }
        CacheScope(const CacheScope &) = delete;
        CacheScope &operator=(const CacheScope &) = delete;

    private:
        Project &m_project;
        const Cache m_use;
    };

    // Transactions. rollback() also forgets strings interned since begin().
    [[nodiscard]] bool begin(QString *error);
    [[nodiscard]] bool commit(QString *error);
    void rollback();
    // Grouped commits (issue 74): between startBatch and endBatch, begin / commit / rollback
    // are a savepoint inside one transaction, committed when it has been open `maxMs`, at
    // settle() and at endBatch(). A file still rolls back alone and kill -9 leaves the project
    // as at the last commit; what a commit costs (every page it touched written whole to the
    // log: a small rank file touches twenty 64 KiB pages) is paid once for many small files.
    void startBatch(qint64 maxMs);
    // Commits what the batch holds (ATTACH and checkpoints need no transaction open); true when
    // nothing was open. The batch goes on.
    [[nodiscard]] bool settle(QString *error);
    [[nodiscard]] bool endBatch(QString *error);

    // Runs: created on first use, found by name afterwards.
    [[nodiscard]] RunId ensureRun(const QString &name, QString *error);
    std::optional<RunId> findRun(const QString &name);

    std::optional<SourceRecord> sourceByPath(const QString &path);
    // Deletes everything imported from a source (slices, counters, flows, tracks) and the row.
    [[nodiscard]] bool deleteSource(SourceId id, QString *error);

    // Interned strings: one id per distinct UTF-8 text, shared by the whole project.
    StringId intern(std::string_view text);
    QString string(StringId id);
    // While an import job writes side projects (sideproject.h): this project's new string ids
    // and slice-chunk ids come from `ids`, shared with them; nullptr ends that.
    void shareIds(ImportIds *ids);
    ImportIds *sharedIds() const { return m_sharedIds; }
    // The texts of many ids in one query each 10,000 (into `out`; unknown ids are left out).
    void strings(const std::vector<StringId> &ids, QHash<StringId, QString> &out);

private:
    Project() = default;
    [[nodiscard]] bool migrate(QString *error, const MigrationProgress &progress);
    void loadStrings();

    SqliteDb m_db;
    QString m_path;
    Mode m_mode = Mode::ReadWrite;
    quint64 m_device = 0, m_inode = 0; // of the file opened (0: in memory)
    // The -wal and -shm files this connection uses (0: not seen yet). When the project file was
    // deleted or replaced while open, SQLite leaves them behind on close, and the next open of
    // whatever is at the path then would read this log into it: the destructor removes them.
    quint64 m_walInode = 0, m_shmInode = 0;
    void noteCompanions();
    void removeOrphanedCompanions();
    bool m_stringsLoaded = false;
    StringId m_maxStringId = 0;
    StringId m_stringIdAtBegin = 0;
    void forgetStringsSinceBegin();
    qint64 m_batchMs = -1;    // batching: the longest a transaction stays open (-1: not batching)
    bool m_batchOpen = false; // the batch's transaction is open
    QElapsedTimer m_batchAge;
    struct StringHash
    {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, StringId, StringHash, std::equal_to<>> m_strings;
    SqliteStatement m_insertString;
    ImportIds *m_sharedIds = nullptr;
    SqliteStatement m_selectString; // prepared on first use: a graph reads thousands of names
};

} // namespace gml
