// SPDX-License-Identifier: GPL-3.0-or-later
#include "project.h"

#include "counterstore.h"
#include "importids.h"
#include "schema.h"
#include "slicestore.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QThread>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include <sys/stat.h>
#include <unistd.h>

namespace gml {

// Why a project at `path` cannot be created or written, in the user's terms; empty when the
// folder is there and writable (and the file, if it exists, too).
QString Project::whyNotWritable(const QString &path)
{
    const QFileInfo file(path);
    const QFileInfo dir(file.absolutePath());
    if (!dir.exists())
        return QStringLiteral("the folder %1 does not exist").arg(dir.absoluteFilePath());
    if (!dir.isDir())
        return QStringLiteral("%1 is not a folder").arg(dir.absoluteFilePath());
    if (file.exists() &&
        ::access(QFile::encodeName(file.absoluteFilePath()).constData(), W_OK) != 0)
        return errno == EROFS ? QStringLiteral("it is on a read-only file system")
                              : QStringLiteral("the file is read-only for this user");
    // SQLite writes its -wal and -shm files beside the project.
    if (::access(QFile::encodeName(dir.absoluteFilePath()).constData(), W_OK | X_OK) != 0)
        return errno == EROFS
                   ? QStringLiteral("the folder %1 is on a read-only file system")
                         .arg(dir.absoluteFilePath())
                   : QStringLiteral("the folder %1 cannot be written (%2)")
                         .arg(dir.absoluteFilePath(), QString::fromLocal8Bit(std::strerror(errno)));
    return {};
}

// Project::useCacheFor. Negative sizes are KiB, whatever the page size (projects made before
// 64 KiB pages keep 4 KiB ones).
static constexpr const char *kReadingCache = "PRAGMA cache_size=-65536;";
static constexpr const char *kWritingCache = "PRAGMA cache_size=-1024;";
// The write-ahead log's size at which a commit folds it into the project (wal_autocheckpoint).
static constexpr qint64 kWalBytes = qint64(4) << 20;

// The virtual tables over the chunks (slice, flow, counter), on every connection.
static bool registerModules(sqlite3 *db, QString *error)
{
    return slicestore::registerModule(db, error) && counterstore::registerModule(db, error);
}

// A file that starts like an SQLite database but cannot be read as one: cut short (its header
// says how many pages it has) or overwritten. Empty when it does not start like one.
static QString damagedDatabase(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray head = f.read(100);
    if (head.size() < 100 || !head.startsWith(QByteArrayView("SQLite format 3\0", 16)))
        return {};
    auto be = [&](int at, int bytes) {
        quint64 v = 0;
        for (int i = 0; i < bytes; ++i)
            v = (v << 8) | static_cast<unsigned char>(head[at + i]);
        return v;
    };
    const quint64 pageSize = be(16, 2) == 1 ? 65536 : be(16, 2), pages = be(28, 4);
    const quint64 expected = pageSize * pages;
    if (pages > 0 && quint64(f.size()) < expected)
        return QStringLiteral(
                   "the project file is damaged: it is cut short (%1 of the %2 bytes its header "
                   "names, %3%); restore it from a copy, or run `sqlite3 FILE .recover` to save "
                   "what is readable")
            .arg(f.size())
            .arg(expected)
            .arg(100.0 * double(f.size()) / double(expected), 0, 'f', 1);
    return QStringLiteral(
        "the project file is damaged: it starts as an SQLite database but its pages cannot be "
        "read; restore it from a copy, or run `sqlite3 FILE .recover` to save what is readable");
}

// What a file holds, read without writing a byte: SQLite never writes on these reads, and the
// journal mode (which changes the header) is set only once the file is known to be a project.
static QString notAProject(SqliteDb &db, const QString &path)
{
    // Read as a statement, not with a fallback: user_version is signed, and -1 is a version
    // (another program's), not a read error (issue 56: it was reported as a damaged file).
    std::optional<qint64> version;
    {
        auto st = db.prepare("PRAGMA user_version;");
        if (st.step())
            version = st.int64(0);
    }
    const qint64 objects = db.scalar("SELECT count(*) FROM sqlite_master", -1);
    if (!version || objects < 0) {
        if (const QString damage = damagedDatabase(path); !damage.isEmpty())
            return damage;
        return QStringLiteral("not a GradeML project file (not an SQLite database: %1)")
            .arg(db.lastError());
    }
    if (objects == 0)
        return {}; // empty: a new project
    if (db.scalar("SELECT count(*) FROM sqlite_master WHERE name='run'") == 0) {
        if (db.scalar("SELECT count(*) FROM sqlite_master WHERE name='META_DATA_EXPORT'") > 0)
            return QStringLiteral("not a GradeML project file: it is an Nsight Systems export (a "
                                  "trace to import, not a project); it was not changed");
        return QStringLiteral("not a GradeML project file (an SQLite database with other tables); "
                              "it was not changed");
    }
    if (*version < 0)
        return QStringLiteral("not a GradeML project file: its format number (SQLite's "
                              "user_version) is %1, which no "
                              "GradeML writes; it was not changed")
            .arg(*version);
    if (*version > schema::currentVersion())
        return QStringLiteral("project schema %1 is newer than this program's %2")
            .arg(*version)
            .arg(schema::currentVersion());
    return {};
}

std::unique_ptr<Project> Project::open(const QString &path, Mode mode, QString *error,
                                       const MigrationProgress &progress)
{
    std::unique_ptr<Project> p(new Project);
    p->m_path = path;
    p->m_mode = mode;
    auto failWith = [&](const QString &message) -> std::unique_ptr<Project> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, message);
        return nullptr;
    };
    // ":memory:" is SQLite's in-memory database (the fuzzers' scratch project), no file.
    const bool inMemory = path == QLatin1String(":memory:");
    const bool exists = !inMemory && QFileInfo::exists(path);
    if (mode == Mode::ReadOnly && !exists)
        return failWith(QStringLiteral("no such project file"));
    if (exists && !QFileInfo(path).isFile())
        return failWith(QStringLiteral("not a file"));
    if (mode != Mode::ReadOnly && !inMemory) {
        if (const QString why = whyNotWritable(path); !why.isEmpty())
            return failWith(QStringLiteral("cannot %1 the project: %2%3")
                                .arg(exists ? QStringLiteral("write") : QStringLiteral("create"),
                                     why,
                                     exists ? QStringLiteral(" (it can still be opened read-only)")
                                            : QString()));
    }
    QString why;
    if (!p->m_db.open(path, mode == Mode::ReadOnly, &why) ||
        !registerModules(p->m_db.handle(), &why))
        return failWith(QStringLiteral("cannot open project: ") + why);
    if (struct stat st; !inMemory && ::stat(QFile::encodeName(path).constData(), &st) == 0) {
        p->m_device = quint64(st.st_dev);
        p->m_inode = quint64(st.st_ino);
    }
    QString notProject = notAProject(p->m_db, path);
    if (!notProject.isEmpty() && mode == Mode::ReadOnly && exists &&
        !whyNotWritable(path).isEmpty()) {
        // On read-only media SQLite cannot make the -shm file a WAL database needs to be read;
        // nobody can be writing there, so it is read as immutable.
        if (!p->m_db.openImmutable(path, &why) || !registerModules(p->m_db.handle(), &why))
            return failWith(QStringLiteral("cannot open project: ") + why);
        notProject = notAProject(p->m_db, path);
    }
    if (!notProject.isEmpty())
        return failWith(notProject);
    if (mode == Mode::ReadOnly) {
        if (p->m_db.scalar("SELECT count(*) FROM sqlite_master WHERE name='run'") == 0)
            return failWith(QStringLiteral("not a GradeML project file (an empty database)"));
        // query_only makes any writing statement fail even if it slipped past the read-only open.
        (void)p->m_db.exec("PRAGMA query_only=ON;");
        return p;
    }
    // WAL keeps readers (GUI) going while a worker imports; NORMAL sync is durable at commit
    // boundaries in WAL mode, which is the unit we care about (one source). A new project gets
    // 64 KiB pages (it must be set before WAL mode): nearly all of its bytes are chunk blobs of
    // up to a few MB, and with 4 KiB pages each was a chain of hundreds of overflow pages, one
    // WAL frame and one write each. Importing 200 MB of trace committed in half the time.
    // Existing projects keep their page size (changing it needs a VACUUM outside WAL mode).
    // A scratch file journals in memory and never syncs, set before the schema is written.
    const char *durability = mode == Mode::Scratch
                                 ? "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"
                                 : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;";
    // Several programs may open one new project at once (imports started together). Turning
    // the new file to WAL needs its exclusive lock, and when two connections each hold a read
    // lock and want it, SQLite answers one of them "database is locked" at once rather than
    // wait (its busy timeout cannot resolve a deadlock). That connection lets go and tries
    // again; a minute of that means someone else really keeps the project.
    QElapsedTimer waited;
    waited.start();
    for (int attempt = 0;; ++attempt) {
        if (p->m_db.exec(std::string("PRAGMA page_size=65536; ") + durability +
                             "PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY; " + kReadingCache,
                         &why) &&
            p->migrate(&why, progress))
            break;
        if (!p->m_db.lastErrorWasBusy() || waited.elapsed() > 60'000) {
            if (error)
                *error = QStringLiteral("%1: %2").arg(path, why);
            return nullptr;
        }
        QThread::msleep(20 + 10 * std::min(attempt, 20));
    }
    // The final fold of an import, after its workers, was up to 64 MiB (sqlitedb.h).
    if (mode != Mode::Scratch)
        p->m_db.foldLogEvery(kWalBytes);
    p->noteCompanions();
    return p;
}

// The inode of `path`'s companion file `suffix` on the project's device, 0 when there is none.
static quint64 companionInode(const QString &path, const char *suffix, quint64 device)
{
    struct stat st;
    if (::stat(QFile::encodeName(path + QLatin1String(suffix)).constData(), &st) != 0 ||
        quint64(st.st_dev) != device)
        return 0;
    return quint64(st.st_ino);
}

void Project::noteCompanions()
{
    if (m_inode == 0 || m_mode != Mode::ReadWrite || !fileProblem().isEmpty())
        return;
    if (m_walInode == 0)
        m_walInode = companionInode(m_path, "-wal", m_device);
    if (m_shmInode == 0)
        m_shmInode = companionInode(m_path, "-shm", m_device);
}

void Project::removeOrphanedCompanions()
{
    // Only the files this connection wrote: the same inodes as when the project was still its own.
    const bool wal = m_walInode != 0 && companionInode(m_path, "-wal", m_device) == m_walInode;
    const bool shm = m_shmInode != 0 && companionInode(m_path, "-shm", m_device) == m_shmInode;
    if (wal)
        QFile::remove(m_path + QStringLiteral("-wal"));
    if (shm)
        QFile::remove(m_path + QStringLiteral("-shm"));
}

Project::~Project()
{
    // SQLite keeps a log whose database was moved (it cannot tell whose it is); it is this
    // connection's, and its project is gone: removed once the connection is closed.
    const bool orphaned = m_inode != 0 && m_mode == Mode::ReadWrite && !fileProblem().isEmpty();
    if (!orphaned)
        return;
    m_insertString = {};
    m_selectString = {};
    m_db.close();
    removeOrphanedCompanions();
}

QString Project::fileProblem() const
{
    if (m_inode == 0)
        return {};
    struct stat st;
    if (::stat(QFile::encodeName(m_path).constData(), &st) != 0)
        return QStringLiteral("%1: the project file was deleted while it was open; what was "
                              "written to it is lost")
            .arg(m_path);
    if (quint64(st.st_dev) != m_device || quint64(st.st_ino) != m_inode)
        return QStringLiteral("%1: the project file was replaced while it was open; what was "
                              "written to it is not "
                              "in the file there now")
            .arg(m_path);
    return {};
}

int Project::schemaVersion() const
{
    return int(m_db.scalar("PRAGMA user_version;", 0));
}

bool Project::migrate(QString *error, const MigrationProgress &progress)
{
    int have = schemaVersion();
    const auto &steps = schema::migrations();
    if (have > int(steps.size())) {
        if (error)
            *error = QStringLiteral("project schema %1 is newer than this program's %2")
                         .arg(have)
                         .arg(steps.size());
        return false;
    }
    // A new file gets its tables in one go, without progress and so without a cancel that
    // would leave an empty database behind (quick: there is no data to convert), and in one
    // transaction: a commit a step wrote the schema's pages to the log sixteen times.
    const bool fresh = have == 0;
    const MigrationProgress told = fresh ? MigrationProgress() : progress;
    bool open = false; // a transaction of a new file's steps is open
    while (have < int(steps.size())) {
        if (!open) {
            if (!m_db.exec("BEGIN IMMEDIATE;", error))
                return false;
            // Read again under the write lock: a second import that opened the same new
            // project at the same moment may have made this step while we waited ("table
            // slice_chunk already exists" otherwise).
            have = schemaVersion();
            if (have >= int(steps.size())) {
                (void)m_db.exec("COMMIT;");
                break;
            }
            if (have == 0 && m_db.scalar("SELECT count(*) FROM sqlite_master") != 0) {
                (void)m_db.exec("ROLLBACK;");
                if (error)
                    *error = QStringLiteral("not a GradeML project file (it holds other tables)");
                return false;
            }
        }
        const int v = have;
        const std::string sql =
            std::string(steps[size_t(v)]) + "\nPRAGMA user_version=" + std::to_string(v + 1) + ";";
        const QString what =
            QStringLiteral("upgrading the project to format %1%2")
                .arg(v + 1)
                .arg(v + 1 == 7 ? QStringLiteral(": summarising its tracks for the timeline")
                                : QString());
        if (told && !told(what, 0, 0)) {
            (void)m_db.exec("ROLLBACK;");
            if (error)
                *error = QStringLiteral("cancelled");
            return false;
        }
        auto step = [&](int done, int total) { return !told || told(what, done, total); };
        if (!m_db.exec(sql, error) || !schema::migrateData(v + 1, m_db, error, step)) {
            (void)m_db.exec("ROLLBACK;");
            return false;
        }
        have = v + 1;
        open = fresh && have < int(steps.size());
        if (!open && !m_db.exec("COMMIT;", error))
            return false;
    }
    return true;
}

bool Project::begin(QString *error)
{
    loadStrings();
    m_stringIdAtBegin = m_maxStringId;
    if (m_batchMs >= 0 && m_batchOpen)
        return m_db.exec("SAVEPOINT gml_batched;", error);
    if (!m_db.exec("BEGIN IMMEDIATE;", error))
        return false;
    noteCompanions();
    if (m_batchMs < 0)
        return true;
    m_batchOpen = true;
    m_batchAge.start();
    return m_db.exec("SAVEPOINT gml_batched;", error);
}

bool Project::commit(QString *error)
{
    if (!m_batchOpen)
        return m_db.exec("COMMIT;", error);
    if (!m_db.exec("RELEASE gml_batched;", error))
        return false;
    return m_batchAge.elapsed() < m_batchMs || settle(error);
}

void Project::startBatch(qint64 maxMs)
{
    m_batchMs = std::max<qint64>(0, maxMs);
}

bool Project::settle(QString *error)
{
    if (!m_batchOpen)
        return true;
    m_batchOpen = false;
    if (m_db.exec("COMMIT;", error))
        return true;
    (void)m_db.exec("ROLLBACK;");
    m_strings.clear(); // what the batch interned is gone with it: read again when next needed
    m_stringsLoaded = false;
    if (error)
        *error = QStringLiteral("the files imported since the last commit could not be "
                                "committed: ") +
                 *error;
    return false;
}

bool Project::endBatch(QString *error)
{
    const bool ok = settle(error);
    m_batchMs = -1;
    return ok;
}

void Project::rollback()
{
    if (m_batchOpen) { // this file's part alone; the batch's others stay
        (void)m_db.exec("ROLLBACK TO gml_batched; RELEASE gml_batched;");
        forgetStringsSinceBegin();
        if (!m_db.inTransaction()) { // SQLite rolled the whole batch back (an I/O error)
            m_batchOpen = false;
            m_strings.clear();
            m_stringsLoaded = false;
        }
        return;
    }
    (void)m_db.exec("ROLLBACK;");
    forgetStringsSinceBegin();
}

void Project::forgetStringsSinceBegin()
{
    if (m_sharedIds) { // shared ids are not in order: read the strings again when next needed
        m_strings.clear();
        m_stringsLoaded = false;
        return;
    }
    // Strings inserted inside the rolled-back transaction are gone from the file.
    for (auto it = m_strings.begin(); it != m_strings.end();) {
        if (it->second > m_stringIdAtBegin)
            it = m_strings.erase(it);
        else
            ++it;
    }
    m_maxStringId = m_stringIdAtBegin;
}

RunId Project::ensureRun(const QString &name, QString *error)
{
    if (auto id = findRun(name))
        return *id;
    auto st = m_db.prepare("INSERT INTO run(name) VALUES(?)");
    st.bind(1, name);
    if (!st.exec()) {
        if (error)
            *error = st.errorString();
        return 0;
    }
    return m_db.lastInsertRowId();
}

std::optional<RunId> Project::findRun(const QString &name)
{
    auto st = m_db.prepare("SELECT id FROM run WHERE name=?");
    st.bind(1, name);
    if (st.step())
        return st.int64(0);
    return std::nullopt;
}

std::optional<SourceRecord> Project::sourceByPath(const QString &path)
{
    auto st = m_db.prepare("SELECT id, run_id, path, format, size, mtime_ns, hash, status, error, "
                           "align_user_ns FROM source WHERE path=?");
    st.bind(1, path);
    if (!st.step())
        return std::nullopt;
    SourceRecord r;
    r.id = st.int64(0);
    r.runId = st.int64(1);
    r.path = st.text(2);
    r.format = st.text(3);
    r.size = st.int64(4);
    r.mtimeNs = st.int64(5);
    r.hash = st.text(6);
    r.status = st.text(7);
    r.error = st.text(8);
    if (!st.isNull(9))
        r.alignUserNs = st.int64(9);
    return r;
}

bool Project::deleteSource(SourceId id, QString *error)
{
    static constexpr std::string_view steps[] = {
        "DELETE FROM slice_chunk WHERE track_id IN (SELECT id FROM track WHERE source_id=?1)",
        "DELETE FROM slice_lod WHERE track_id IN (SELECT id FROM track WHERE source_id=?1)",
        "DELETE FROM counter_chunk WHERE track_id IN (SELECT id FROM track WHERE source_id=?1)",
        "DELETE FROM flow_chunk WHERE source_id=?1",
        "DELETE FROM track WHERE source_id=?1",
        "DELETE FROM source WHERE id=?1",
    };
    for (auto sql : steps) {
        auto st = m_db.prepare(sql);
        st.bind(1, id);
        if (!st.exec()) {
            if (error)
                *error = st.errorString();
            return false;
        }
    }
    return true;
}

void Project::loadStrings()
{
    if (m_stringsLoaded)
        return;
    m_stringsLoaded = true;
    auto st = m_db.prepare("SELECT id, value FROM string");
    while (st.step()) {
        const auto v = st.textView(1);
        m_strings.emplace(std::string(v), st.int64(0));
        m_maxStringId = std::max(m_maxStringId, st.int64(0));
    }
}

StringId Project::intern(std::string_view text)
{
    loadStrings();
    auto it = m_strings.find(text); // transparent lookup: no temporary string

    if (it != m_strings.end())
        return it->second;
    if (m_sharedIds) {
        // The id may be in the file already: a side project's source copied in since.
        if (!m_insertString.isValid())
            m_insertString = m_db.prepare("INSERT OR IGNORE INTO string(id, value) VALUES(?, ?)");
        const StringId id = m_sharedIds->intern(text);
        m_insertString.bind(1, id);
        m_insertString.bind(2, text);
        if (!m_insertString.exec())
            return 0;
        m_strings.emplace(std::string(text), id);
        return id;
    }
    if (!m_insertString.isValid())
        m_insertString = m_db.prepare("INSERT INTO string(id, value) VALUES(?, ?)");
    const StringId id = ++m_maxStringId;
    m_insertString.bind(1, id);
    m_insertString.bind(2, text);
    if (!m_insertString.exec()) {
        --m_maxStringId;
        return 0;
    }
    m_strings.emplace(std::string(text), id);
    return id;
}

void Project::useCacheFor(Cache use)
{
    (void)m_db.exec(use == Cache::Writing ? kWritingCache : kReadingCache);
}

bool Project::checkpoint(QString *why)
{
    auto st = m_db.prepare("PRAGMA wal_checkpoint(TRUNCATE);");
    if (st.step() && st.int64(0) == 0)
        return true;
    if (why)
        *why = st.errorString();
    return false;
}

void Project::shareIds(ImportIds *ids)
{
    m_sharedIds = ids;
    // The statement differs by mode; the strings and the largest id are read again.
    m_insertString = {};
    m_strings.clear();
    m_stringsLoaded = false;
    m_maxStringId = 0;
}

void Project::strings(const std::vector<StringId> &ids, QHash<StringId, QString> &out)
{
    constexpr size_t kBatch = 10'000;
    auto st =
        m_db.prepare("SELECT s.id, s.value FROM json_each(?) j JOIN string s ON s.id = j.value");
    for (size_t at = 0; at < ids.size(); at += kBatch) {
        std::string list = "[";
        for (size_t i = at; i < std::min(ids.size(), at + kBatch); ++i) {
            if (i > at)
                list += ',';
            list += std::to_string(ids[i]);
        }
        list += ']';
        st.reset();
        st.bind(1, std::string_view(list));
        while (st.step())
            out.insert(st.int64(0), st.text(1));
    }
}

QString Project::string(StringId id)
{
    if (!m_selectString.isValid())
        m_selectString = m_db.prepare("SELECT value FROM string WHERE id=?");
    m_selectString.reset();
    m_selectString.bind(1, id);
    const QString value = m_selectString.step() ? m_selectString.text(0) : QString();
    m_selectString.reset();
    return value;
}

} // namespace gml
