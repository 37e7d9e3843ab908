// SPDX-License-Identifier: GPL-3.0-or-later
#include "readonlyquery.h"

#include "sqlitedb.h"

#include <set>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <iterator>

namespace gml {

namespace {

// What a query may do beyond reading, refused at prepare time: SQLite counts BEGIN, ATTACH and
// most PRAGMAs as read-only statements, so sqlite3_stmt_readonly alone lets them through as
// silent no-ops (or, for ATTACH, as SQLite's own refusal in its words).
struct Refusal
{
    QString why;
};

int authorize(void *context, int action, const char *arg1, const char *arg2, const char *,
              const char *)
{
    auto *refusal = static_cast<Refusal *>(context);
    // PRAGMAs that only report something (as statements or as pragma_xxx() table functions):
    // those of the first list take a table or index name (or a count) as their argument; those
    // of the second would set a value with one.
    static const char *const kReportingOf[] = {
        "table_info",  "table_xinfo",      "table_list",      "index_list", "index_info",
        "index_xinfo", "foreign_key_list", "integrity_check", "quick_check"};
    static const char *const kReporting[] = {
        "user_version",   "schema_version",  "application_id", "page_count",     "page_size",
        "freelist_count", "compile_options", "database_list",  "collation_list", "function_list",
        "module_list",    "pragma_list",     "encoding",       "data_version"};
    auto named = [&](const auto &list) {
        return arg1 && std::any_of(std::begin(list), std::end(list),
                                   [&](const char *n) { return qstricmp(arg1, n) == 0; });
    };
    switch (action) {
    case SQLITE_TRANSACTION:
    case SQLITE_SAVEPOINT:
        refusal->why =
            QStringLiteral("transactions are not queries (a query is one read-only statement)");
        return SQLITE_DENY;
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
        refusal->why =
            QStringLiteral("ATTACH and DETACH are not queries (a query reads this project only)");
        return SQLITE_DENY;
    case SQLITE_PRAGMA: {
        if (named(kReportingOf) || (!arg2 && named(kReporting)))
            return SQLITE_OK;
        refusal->why =
            QStringLiteral("PRAGMA %1%2 changes or maintains the project (queries are read-only; "
                           "PRAGMAs that only report, such as table_info, are allowed)")
                .arg(QString::fromUtf8(arg1 ? arg1 : ""),
                     arg2 ? QStringLiteral(" = %1").arg(QString::fromUtf8(arg2)) : QString());
        return SQLITE_DENY;
    }
    default:
        return SQLITE_OK;
    }
}

} // namespace

namespace {
qint64 steadyNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
} // namespace

ReadOnlyQuery::ReadOnlyQuery(sqlite3 *db, sqlite3_stmt *stmt, const Limits &limits)
    : m_db(db), m_stmt(stmt), m_limits(limits)
{
    const int cols = sqlite3_column_count(stmt);
    for (int c = 0; c < cols; ++c)
        m_columns << QString::fromUtf8(sqlite3_column_name(stmt, c));
    // Checked every few thousand virtual-machine steps: a query never runs far past its time,
    // and a cancel that came before a step started is not lost.
    sqlite3_progress_handler(m_db, 4000, &ReadOnlyQuery::onProgress, this);
}

ReadOnlyQuery::~ReadOnlyQuery()
{
    sqlite3_finalize(m_stmt);
    sqlite3_progress_handler(m_db, 0, nullptr, nullptr);
}

int ReadOnlyQuery::onProgress(void *self)
{
    auto *q = static_cast<ReadOnlyQuery *>(self);
    if (q->m_cancelled)
        return 1;
    if (q->m_deadlineNs == 0 || steadyNs() < q->m_deadlineNs)
        return 0;
    q->m_timedOut = true;
    return 1; // SQLITE_INTERRUPT
}

std::unique_ptr<ReadOnlyQuery> ReadOnlyQuery::prepare(SqliteDb &db, const QString &sql,
                                                      Error *error)
{
    return prepare(db, sql, error, Limits());
}

void ReadOnlyQuery::restartClock()
{
    m_deadlineNs = m_limits.timeoutMs > 0 ? steadyNs() + m_limits.timeoutMs * 1'000'000 : 0;
}

std::unique_ptr<ReadOnlyQuery> ReadOnlyQuery::prepare(SqliteDb &db, const QString &sql,
                                                      Error *error, const Limits &limits)
{
    if (limits.processHeapBytes > 0)
        sqlite3_hard_heap_limit64(limits.processHeapBytes);
    if (limits.maxValueBytes > 0)
        sqlite3_limit(db.handle(), SQLITE_LIMIT_LENGTH,
                      int(std::min<qint64>(limits.maxValueBytes, 1'000'000'000)));
    const QByteArray text = sql.toUtf8();
    sqlite3_stmt *raw = nullptr;
    const char *tail = nullptr;
    Refusal refusal;
    sqlite3_set_authorizer(db.handle(), authorize, &refusal);
    const int prepared =
        sqlite3_prepare_v2(db.handle(), text.constData(), int(text.size()), &raw, &tail);
    sqlite3_set_authorizer(db.handle(), nullptr, nullptr);
    auto fail = [&](const QString &why, bool usage) -> std::unique_ptr<ReadOnlyQuery> {
        sqlite3_finalize(raw);
        *error = {why, usage};
        return nullptr;
    };
    if (prepared != SQLITE_OK)
        return fail(refusal.why.isEmpty() ? db.lastError()
                                          : QStringLiteral("refused: ") + refusal.why,
                    false);
    if (!raw)
        return fail(QStringLiteral("empty statement"), true);
    if (tail && QByteArray(tail).trimmed().size() > 0 && QByteArray(tail).trimmed() != ";")
        return fail(QStringLiteral("only one statement is allowed"), true);
    if (!sqlite3_stmt_readonly(raw))
        return fail(
            QStringLiteral(
                "refused: the statement would write to the project (queries are read-only)"),
            false);
    return std::unique_ptr<ReadOnlyQuery>(new ReadOnlyQuery(db.handle(), raw, limits));
}

bool ReadOnlyQuery::fetch(int max, std::vector<QVariantList> &rows, bool *done, QString *error)
{
    const int cols = int(m_columns.size());
    if (m_deadlineNs == 0)
        restartClock();
    for (int n = 0; n < max && !m_done; ++n) {
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_DONE) {
            m_done = true;
            break;
        }
        if (rc != SQLITE_ROW) {
            const int primary = rc & 0xff;
            if (primary == SQLITE_INTERRUPT && m_cancelled)
                *error = QStringLiteral("cancelled");
            else if (primary == SQLITE_INTERRUPT && m_timedOut)
                *error = QStringLiteral("stopped: the query ran past its time limit of %1 s")
                             .arg(double(m_limits.timeoutMs) / 1000.0);
            else if (primary == SQLITE_INTERRUPT)
                *error = QStringLiteral("interrupted");
            else if (primary == SQLITE_TOOBIG)
                *error = QStringLiteral("stopped: a value of the query is larger than its limit of "
                                        "%1 MB for one value")
                             .arg(m_limits.maxValueBytes >> 20);
            else if (primary == SQLITE_NOMEM)
                *error = m_limits.processHeapBytes > 0
                             ? QStringLiteral(
                                   "stopped: the query needed more than its memory limit of %1 MB")
                                   .arg(m_limits.processHeapBytes >> 20)
                             : QStringLiteral("stopped: the query ran out of memory");
            else
                *error = QString::fromUtf8(sqlite3_errmsg(m_db));
            m_done = true;
            *done = true;
            return false;
        }
        QVariantList row;
        row.reserve(cols);
        for (int c = 0; c < cols; ++c) {
            switch (sqlite3_column_type(m_stmt, c)) {
            case SQLITE_NULL:
                row << QVariant();
                break;
            case SQLITE_INTEGER:
                row << QVariant(qint64(sqlite3_column_int64(m_stmt, c)));
                break;
            case SQLITE_FLOAT:
                row << QVariant(sqlite3_column_double(m_stmt, c));
                break;
            case SQLITE_BLOB:
                row << QVariant(
                    QByteArray(static_cast<const char *>(sqlite3_column_blob(m_stmt, c)),
                               sqlite3_column_bytes(m_stmt, c)));
                break;
            default:
                row << QVariant(QString::fromUtf8(
                    reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, c)),
                    sqlite3_column_bytes(m_stmt, c)));
            }
        }
        rows.push_back(std::move(row));
    }
    *done = m_done;
    return true;
}

void ReadOnlyQuery::interrupt()
{
    m_cancelled = true;
    sqlite3_interrupt(m_db);
}

QStringList queryCompletionWords(const SqliteDb &db)
{
    std::set<QString> words{
        QStringLiteral("SELECT"),   QStringLiteral("FROM"),     QStringLiteral("WHERE"),
        QStringLiteral("GROUP BY"), QStringLiteral("ORDER BY"), QStringLiteral("LIMIT"),
        QStringLiteral("JOIN"),     QStringLiteral("count"),    QStringLiteral("sum"),
        QStringLiteral("avg"),      QStringLiteral("max"),      QStringLiteral("min")};
    QStringList tables;
    auto st = db.prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND "
                         "name NOT LIKE 'sqlite_%'");
    while (st.step())
        tables << st.text(0);
    for (const QString &t : tables) {
        words.insert(t);
        auto cols = db.prepare("SELECT name FROM pragma_table_info(?)");
        cols.bind(1, t);
        while (cols.step())
            words.insert(cols.text(0));
    }
    return QStringList(words.begin(), words.end());
}

} // namespace gml
