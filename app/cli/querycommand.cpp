// SPDX-License-Identifier: GPL-3.0-or-later
// grademl query FILE.grademl "SELECT ...": one read-only SQL statement, CSV out.
#include "clicommands.h"

#include "project.h"
#include "readonlyquery.h"

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
    ReadOnlyQuery::Error why;
    const auto query = ReadOnlyQuery::prepare(project->db(), p.positional[1], &why);
    if (!query) {
        err << "grademl query: " << why.message << '\n';
        return why.usage ? Usage : SomeFailed;
    }
    QStringList header;
    for (const QString &c : query->columns())
        header << csvField(c);
    out << header.join(QLatin1Char(',')) << '\n';
    std::vector<QVariantList> rows;
    bool done = false;
    QString error;
    while (!done) {
        rows.clear();
        if (!query->fetch(4096, rows, &done, &error)) {
            err << "grademl query: " << error << '\n';
            return SomeFailed;
        }
        for (const QVariantList &r : rows) {
            QStringList row;
            for (const QVariant &v : r) {
                switch (v.typeId()) {
                case QMetaType::UnknownType: row << QString(); break;
                case QMetaType::LongLong: row << QString::number(v.toLongLong()); break;
                case QMetaType::Double: row << QString::number(v.toDouble(), 'g', 17); break;
                case QMetaType::QByteArray: row << csvField(QString::fromUtf8(v.toByteArray())); break;
                default: row << csvField(v.toString());
                }
            }
            out << row.join(QLatin1Char(',')) << '\n';
        }
    }
    return Ok;
}

} // namespace gml::cli
