// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QVariant>

#include <atomic>
#include <memory>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace gml {

class SqliteDb;

// One read-only SQL statement over a project, as `grademl query` and the studio's Query view
// run it: refused at prepare time when it would write, open a transaction, ATTACH another file
// or set a PRAGMA (SQLite counts BEGIN, ATTACH and most PRAGMAs as read-only statements, so
// sqlite3_stmt_readonly alone lets them through); reporting PRAGMAs (table_info ...) are
// allowed. Rows are read in batches, so a result of millions of rows pages.
class ReadOnlyQuery
{
public:
    struct Error
    {
        QString message;    // "refused: ..." for what a query may not do
        bool usage = false; // the text is not one statement (empty, or several)
    };
    // What one query may take (issue 56: a recursive query never ended, hex(zeroblob(3e8))
    // took 4 GB). A query past its time is interrupted with a message that says so; a value
    // larger than maxValueBytes fails as too big. Both are set on `db` for its lifetime: give a
    // query a connection of its own.
    struct Limits
    {
        qint64 timeoutMs = 60'000;                // 0: none; from the first fetch (setDeadline)
        qint64 maxValueBytes = qint64(256) << 20; // one string or blob of the result or on the way
        // SQLite's memory in the whole process (sqlite3_hard_heap_limit64; 0: left as it is):
        // for a process that runs the query alone (grademl query), not the studio.
        qint64 processHeapBytes = 0;
    };
    // Nullptr with *error set when the statement cannot run.
    static std::unique_ptr<ReadOnlyQuery> prepare(SqliteDb &db, const QString &sql, Error *error,
                                                  const Limits &limits);
    static std::unique_ptr<ReadOnlyQuery> prepare(SqliteDb &db, const QString &sql, Error *error);
    ~ReadOnlyQuery();
    ReadOnlyQuery(const ReadOnlyQuery &) = delete;
    ReadOnlyQuery &operator=(const ReadOnlyQuery &) = delete;

    const QStringList &columns() const { return m_columns; }
    // Appends up to `max` rows (NULL: an invalid QVariant; integers as qint64, reals as double,
    // text as QString, blobs as QByteArray); *done when none remain. False with *error on failure
    // (an interrupted statement says "interrupted").
    bool fetch(int max, std::vector<QVariantList> &rows, bool *done, QString *error);
    bool isDone() const { return m_done; }
    // The time limit counts from now (the first fetch starts it when not set): a view that pages
    // rows as the user scrolls restarts it at each page, a command runs under one deadline.
    void restartClock();
    const Limits &limits() const { return m_limits; }
    // Stops a fetch running on another thread, or the next one to start: it fails with
    // "cancelled". Safe from any thread.
    void interrupt();

private:
    ReadOnlyQuery(sqlite3 *db, sqlite3_stmt *stmt, const Limits &limits);
    static int onProgress(void *self);
    sqlite3 *m_db;
    sqlite3_stmt *m_stmt;
    QStringList m_columns;
    Limits m_limits;
    qint64 m_deadlineNs = 0; // steady clock; 0: not started
    bool m_timedOut = false;
    std::atomic<bool> m_cancelled{false};
    bool m_done = false;
};

// The words the Query view completes: the SQL words people type most, and the project's
// tables, views and their columns.
QStringList queryCompletionWords(const SqliteDb &db);

} // namespace gml
