// SPDX-License-Identifier: GPL-3.0-or-later
// grademl info FILE.grademl [--json]: runs, sources, counts and the track tree.
#include "clicommands.h"

#include "project.h"
#include "projectsummary.h"

#include <QJsonDocument>

namespace gml::cli {

int infoCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {}, {QStringLiteral("json")});
    if (!p.error.isEmpty() || p.positional.size() != 1) {
        err << "grademl info: " << (p.error.isEmpty() ? QStringLiteral("need one project file") : p.error)
            << "\nusage: grademl info FILE.grademl [--json]\n";
        return Usage;
    }
    QString error;
    auto project = openProject(p.positional.first(), false, QStringLiteral("grademl info: "), err);
    if (!project)
        return SomeFailed;
    const auto runs = summarizeProject(*project, &error);
    if (!error.isEmpty()) {
        err << "grademl info: " << error << '\n';
        return SomeFailed;
    }
    if (p.flags.contains(QStringLiteral("json")))
        out << QString::fromUtf8(QJsonDocument(summaryToJson(runs)).toJson(QJsonDocument::Indented));
    else
        out << summaryToText(runs);
    return Ok;
}

} // namespace gml::cli
