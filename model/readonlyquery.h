// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QVariant>

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
        QString message; // "refused: ..." for what a query may not do
        bool usage = false; // the text is not one statement (empty, or several)
    };
    // Nullptr with *error set when the statement cannot run.
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
    // Stops a fetch running on another thread (sqlite3_interrupt on the connection).
    void interrupt();

private:
    ReadOnlyQuery(sqlite3 *db, sqlite3_stmt *stmt);
    sqlite3 *m_db;
    sqlite3_stmt *m_stmt;
    QStringList m_columns;
    bool m_done = false;
};

} // namespace gml
