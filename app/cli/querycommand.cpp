// SPDX-License-Identifier: GPL-3.0-or-later
// grademl query FILE.grademl "SELECT ...": one read-only SQL statement, CSV out.
#include "clicommands.h"

#include "project.h"

#include <sqlite3.h>

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
    if (sqlite3_prepare_v2(project->db().handle(), sql.constData(), int(sql.size()), &raw, &tail) != SQLITE_OK) {
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
