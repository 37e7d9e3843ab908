// SPDX-License-Identifier: GPL-3.0-or-later
// grademl runs: the project's experiments -> workloads -> runs with their kind, status, start,
// duration and headline metrics (issue 17). Metrics not computed yet are computed and stored
// first when the project is writable.
#include "clicommands.h"

#include "chartlayer.h"
#include "comparecharts.h"
#include "project.h"
#include "runcatalog.h"
#include "runcompare.h"
#include "runmetrics.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>

namespace gml::cli {

int runsCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {QStringLiteral("filter")}, {QStringLiteral("json")});
    if (!p.error.isEmpty() || p.positional.size() != 1) {
        err << "grademl runs: "
            << (p.error.isEmpty() ? QStringLiteral("need one project file") : p.error)
            << "\nusage: grademl runs FILE.grademl [--filter TEXT|KEY=VALUE] [--json]\n";
        return Usage;
    }
    const bool json = p.flags.contains(QStringLiteral("json"));
    auto project = openWithMetrics(p.positional.first(), "runs", err, json);
    if (!project)
        return SomeFailed;
    QString error;
    const auto catalog = loadRunCatalog(*project, &error);
    if (!catalog) {
        err << "grademl runs: " << error << '\n';
        return SomeFailed;
    }
    const QString filter = p.options.value(QStringLiteral("filter"));
    if (json)
        out << QJsonDocument(catalogToJson(*catalog, filter)).toJson(QJsonDocument::Indented);
    else
        out << catalogToText(*catalog, filter);
    return Ok;
}

} // namespace gml::cli
