// SPDX-License-Identifier: GPL-3.0-or-later
// grademl query FILE.grademl "SELECT ...": one read-only SQL statement, CSV out.
#include "clicommands.h"

#include "project.h"
#include "readonlyquery.h"
#include "safetext.h"

#include <cmath>
#include <tuple>

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
    const Parsed p = parse(args, {QStringLiteral("timeout"), QStringLiteral("memory-limit")}, {});
    auto usage = [&](const QString &why) {
        err << "grademl query: " << why
            << "\nusage: grademl query FILE.grademl [--timeout SECONDS] [--memory-limit MB] [--] "
               "\"SELECT ...\"\n"
               "  A query stops after 60 s (--timeout; 0: no limit) and when SQLite needs more "
               "than 2048 MB\n"
               "  (--memory-limit) or one value of more than 256 MB.\n";
        return Usage;
    };
    if (!p.error.isEmpty() || p.positional.size() != 2)
        return usage(p.error.isEmpty() ? QStringLiteral("need a project file and one SQL statement")
                                       : p.error);
    ReadOnlyQuery::Limits limits;
    limits.processHeapBytes = qint64(2048) << 20;
    for (const auto &[name, low, high] :
         {std::tuple{"timeout", 0.0, 1e6}, std::tuple{"memory-limit", 16.0, 1048576.0}}) {
        const QString key = QLatin1String(name);
        if (!p.options.contains(key))
            continue;
        bool ok = false;
        const double v = p.options.value(key).toDouble(&ok);
        if (!ok || !std::isfinite(v) || v < low || v > high)
            return usage(QStringLiteral("--%1 '%2': expected %3 from %4 to %5")
                             .arg(key, safeText(p.options.value(key), 60),
                                  key == QLatin1String("timeout") ? QStringLiteral("seconds")
                                                                  : QStringLiteral("MB"))
                             .arg(low)
                             .arg(high));
        if (key == QLatin1String("timeout"))
            limits.timeoutMs = qint64(v * 1000.0);
        else
            limits.processHeapBytes = qint64(v * 1048576.0);
    }
    auto project = openProject(p.positional[0], false, QStringLiteral("grademl query: "), err);
    if (!project)
        return SomeFailed;
    ReadOnlyQuery::Error why;
    const auto query = ReadOnlyQuery::prepare(project->db(), p.positional[1], &why, limits);
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
            out.flush();
            err << "grademl query: " << error
                << (error.contains(QLatin1String("time limit"))
                        ? " (--timeout SECONDS to change it)"
                    : error.contains(QLatin1String("memory limit"))
                        ? " (--memory-limit MB to change it)"
                        : "")
                << '\n';
            return SomeFailed;
        }
        for (const QVariantList &r : rows) {
            QStringList row;
            for (const QVariant &v : r) {
                switch (v.typeId()) {
                case QMetaType::UnknownType:
                    row << QString();
                    break;
                case QMetaType::LongLong:
                    row << QString::number(v.toLongLong());
                    break;
                case QMetaType::Double:
                    row << QString::number(v.toDouble(), 'g', 17);
                    break;
                case QMetaType::QByteArray:
                    row << csvField(QString::fromUtf8(v.toByteArray()));
                    break;
                default:
                    row << csvField(v.toString());
                }
            }
            out << row.join(QLatin1Char(',')) << '\n';
        }
    }
    return Ok;
}

} // namespace gml::cli
