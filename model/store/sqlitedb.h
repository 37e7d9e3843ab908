// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <memory>
#include <string_view>

class QJsonArray;
class QJsonObject;
struct sqlite3;
struct sqlite3_stmt;

namespace gml {

struct SqliteStatementCache;

// A thin RAII layer over the SQLite C API. One connection per thread (docs/layout.md, "Threads").
class SqliteStatement
{
public:
    SqliteStatement() = default;
    SqliteStatement(sqlite3 *db, std::string_view sql);
    // A statement of `cache` when it holds an idle one of `sql`, else a new one; either way
    // handed back to it, reset and unbound, when destroyed (SqliteDb::prepare).
    SqliteStatement(const std::shared_ptr<SqliteStatementCache> &cache, std::string_view sql);
    ~SqliteStatement();
    SqliteStatement(SqliteStatement &&other) noexcept;
    SqliteStatement &operator=(SqliteStatement &&other) noexcept;
    SqliteStatement(const SqliteStatement &) = delete;
    SqliteStatement &operator=(const SqliteStatement &) = delete;

    bool isValid() const { return m_stmt != nullptr; }
    QString errorString() const { return m_error; }

    void bind(int index, qint64 value);
    void bind(int index, double value);
    void bind(int index, std::string_view text); // copied by SQLite (SQLITE_TRANSIENT)
    // Not copied: `text` must stay valid until the statement is stepped and reset (exec()).
    void bindStatic(int index, std::string_view text);
    void bind(int index, const QString &text);
    void bindBlob(int index, std::string_view bytes); // copied by SQLite
    // A JSON value as its compact text (the form the project's JSON columns hold).
    void bindJson(int index, const QJsonObject &value);
    void bindJson(int index, const QJsonArray &value);
    void bindNull(int index);

    // Returns true while a row is available; false at the end or on error (see lastError()).
    bool step();
    // step() expecting SQLITE_DONE; returns false (and sets lastError) on failure.
    bool exec();
    // The same, with the statement's error in *error (when given) on failure.
    [[nodiscard]] bool exec(QString *error);
    void reset();

    int columnCount() const;
    bool isNull(int column) const;
    qint64 int64(int column) const;
    double real(int column) const;
    QString text(int column) const;
    std::string_view textView(int column) const;
    std::string_view blobView(int column) const; // valid until the next step or reset
    int columnType(int column) const;
    QString columnName(int column) const;

    int lastResult() const { return m_lastResult; }
    sqlite3_stmt *handle() const { return m_stmt; }

private:
    void release();

    sqlite3 *m_db = nullptr;
    sqlite3_stmt *m_stmt = nullptr;
    int m_lastResult = 0;
    QString m_error;
    std::shared_ptr<SqliteStatementCache> m_cache; // where it goes back to, if anywhere
    void *m_slot = nullptr;                        // its list of idle statements there
    quint64 m_generation = 0;                      // the cache's, when it was handed out
};

class SqliteDb
{
public:
    SqliteDb() = default;
    ~SqliteDb();
    SqliteDb(const SqliteDb &) = delete;
    SqliteDb &operator=(const SqliteDb &) = delete;

    [[nodiscard]] bool open(const QString &path, bool readOnly, QString *error);
    // Opens another tool's database for reading only, as immutable: no lock, no journal, no
    // -shm file, so it works in read-only folders and never changes the file.
    [[nodiscard]] bool openImmutable(const QString &path, QString *error);
    bool hasTable(std::string_view name) const;
    // Column names of a table (empty when it does not exist).
    QStringList columns(std::string_view table) const;
    void close();
    bool isOpen() const { return m_db != nullptr; }
    sqlite3 *handle() const { return m_db; }

    // Statements that change the schema (CREATE, DROP, ALTER) empty the statement cache.
    [[nodiscard]] bool exec(std::string_view sql, QString *error = nullptr);
    // A statement of `sql`. Queries and changes of rows (SELECT, INSERT, UPDATE, DELETE,
    // REPLACE, WITH) are kept when destroyed, reset and unbound, and handed out again for the
    // same text: an import prepared the same few dozen statements for every file, 15% of the
    // instructions of importing 256 small rank files (issue 74). A kept statement whose tables
    // changed is prepared again by SQLite itself when next stepped.
    SqliteStatement prepare(std::string_view sql) const;
    qint64 scalar(std::string_view sql, qint64 fallback = 0) const;
    // A commit folds the write-ahead log into the file once the log holds `bytes`. SQLite's
    // wal_autocheckpoint counts pages, 1,000 by default: 4 MiB of the 4 KiB pages its documents
    // size it for, but 64 MiB of a project's 64 KiB pages, left for whoever folds the log last.
    void foldLogEvery(qint64 bytes);
    qint64 lastInsertRowId() const;
    QString lastError() const;
    // True when the last call failed because another connection holds the write lock.
    bool lastErrorWasBusy() const;
    // A transaction is open (SQLite may have rolled one back by itself after an I/O error).
    bool inTransaction() const;

private:
    bool openWith(const QByteArray &name, int flags, QString *error);

    sqlite3 *m_db = nullptr;
    std::shared_ptr<SqliteStatementCache> m_cache; // while open
};

} // namespace gml
