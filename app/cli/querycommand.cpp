// SPDX-License-Identifier: GPL-3.0-or-later
// grademl query FILE.grademl "SELECT ...": one read-only SQL statement, CSV out.
#include "clicommands.h"

#include "project.h"

#include <sqlite3.h>

#include <algorithm>
#include <iterator>
#include <memory>

namespace gml::cli {

namespace {

QString csvField(const QString &s)
{
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) ||
        s.contains(QLatin1Char('\n')) || s.contains(QLatin1Char('\r'))) {
        QString q = s;
        q.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + q + QLatin1Char('"');
    }
    return s;
}

// What a query may do beyond reading, refused at prepare time: SQLite counts BEGIN, ATTACH and
// most PRAGMAs as read-only statements, so sqlite3_stmt_readonly alone lets them through as
// silent no-ops (or, for ATTACH, as SQLite's own refusal in its words).
struct Refusal
{
    QString why;
};

int authorize(void *context, int action, const char *arg1, const char *arg2, const char *, const char *)
{
    auto *refusal = static_cast<Refusal *>(context);
    // PRAGMAs that only report something (as statements or as pragma_xxx() table functions):
    // those of the first list take a table or index name (or a count) as their argument; those
    // of the second would set a value with one.
    static const char *const kReportingOf[] = {"table_info", "table_xinfo",      "table_list",      "index_list",
                                               "index_info", "index_xinfo",      "foreign_key_list", "integrity_check",
                                               "quick_check"};
    static const char *const kReporting[] = {"user_version",   "schema_version", "application_id", "page_count",
                                             "page_size",      "freelist_count", "compile_options", "database_list",
                                             "collation_list", "function_list",  "module_list",     "pragma_list",
                                             "encoding",       "data_version"};
    auto named = [&](const auto &list) {
        return arg1 && std::any_of(std::begin(list), std::end(list), [&](const char *n) { return qstricmp(arg1, n) == 0; });
    };
    switch (action) {
    case SQLITE_TRANSACTION:
    case SQLITE_SAVEPOINT:
        refusal->why = QStringLiteral("transactions are not queries (the query command runs one read-only statement)");
        return SQLITE_DENY;
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
        refusal->why = QStringLiteral("ATTACH and DETACH are not queries (the query command reads this project only)");
        return SQLITE_DENY;
    case SQLITE_PRAGMA: {
        if (named(kReportingOf) || (!arg2 && named(kReporting)))
            return SQLITE_OK;
        refusal->why = QStringLiteral("PRAGMA %1%2 changes or maintains the project (the query command is read-only; "
                                      "PRAGMAs that only report, such as table_info, are allowed)")
                           .arg(QString::fromUtf8(arg1 ? arg1 : ""),
                                arg2 ? QStringLiteral(" = %1").arg(QString::fromUtf8(arg2)) : QString());
        return SQLITE_DENY;
    }
    default: return SQLITE_OK;
    }
}

} // namespace

int queryCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {}, {});
    if (!p.error.isEmpty() || p.positional.size() != 2) {
        err << "grademl query: " << (p.error.isEmpty() ? QStringLiteral("need a project file and one SQL statement") : p.error)
            << "\nusage: grademl query FILE.grademl \"SELECT ...\"\n";
        return Usage;
    }
    auto project = openProject(p.positional[0], false, QStringLiteral("grademl query: "), err);
    if (!project)
        return SomeFailed;
    const QByteArray sql = p.positional[1].toUtf8();
    sqlite3_stmt *raw = nullptr;
    const char *tail = nullptr;
    Refusal refusal;
    sqlite3_set_authorizer(project->db().handle(), authorize, &refusal);
    const int prepared = sqlite3_prepare_v2(project->db().handle(), sql.constData(), int(sql.size()), &raw, &tail);
    sqlite3_set_authorizer(project->db().handle(), nullptr, nullptr);
    if (prepared != SQLITE_OK) {
        if (!refusal.why.isEmpty())
            err << "grademl query: refused: " << refusal.why << '\n';
        else
            err << "grademl query: " << project->db().lastError() << '\n';
        return SomeFailed;
    }
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt *)> stmt(raw, sqlite3_finalize);
    if (!raw) {
        err << "grademl query: empty statement\n";
        return Usage;
    }
    if (tail && QByteArray(tail).trimmed().size() > 0 && QByteArray(tail).trimmed() != ";") {
        err << "grademl query: only one statement is allowed\n";
        return Usage;
    }
    if (!sqlite3_stmt_readonly(raw)) {
        err << "grademl query: refused: the statement would write to the project (the query "
               "command is read-only)\n";
        return SomeFailed;
    }
    const int cols = sqlite3_column_count(raw);
    QStringList header;
    for (int c = 0; c < cols; ++c)
        header << csvField(QString::fromUtf8(sqlite3_column_name(raw, c)));
    out << header.join(QLatin1Char(',')) << '\n';
    int rc;
    while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
        QStringList row;
        for (int c = 0; c < cols; ++c) {
            switch (sqlite3_column_type(raw, c)) {
            case SQLITE_NULL: row << QString(); break;
            case SQLITE_INTEGER: row << QString::number(sqlite3_column_int64(raw, c)); break;
            case SQLITE_FLOAT: row << QString::number(sqlite3_column_double(raw, c), 'g', 17); break;
            default:
                row << csvField(QString::fromUtf8(reinterpret_cast<const char *>(sqlite3_column_text(raw, c)),
                                                  sqlite3_column_bytes(raw, c)));
            }
        }
        out << row.join(QLatin1Char(',')) << '\n';
    }
    if (rc != SQLITE_DONE) {
        err << "grademl query: " << project->db().lastError() << '\n';
        return SomeFailed;
    }
    return Ok;
}

} // namespace gml::cli
