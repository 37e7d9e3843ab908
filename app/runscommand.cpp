// SPDX-License-Identifier: GPL-3.0-or-later
// grademl runs: the project's experiments -> workloads -> runs with their kind, status, start,
// duration and headline metrics (issue 17). Metrics not computed yet are computed and stored
// first when the project is writable.
#include "clicommands.h"

#include "project.h"
#include "runcatalog.h"
#include "runmetrics.h"

#include <QElapsedTimer>
#include <QJsonDocument>

namespace gml::cli {

// Opens a project for reading runs, computing the headline metrics it lacks when it can.
std::unique_ptr<Project> openWithMetrics(const QString &path, const char *command, QTextStream &err, bool quiet)
{
    QString error;
    const bool writable = Project::whyNotWritable(path).isEmpty();
    auto project = Project::open(path, writable ? Project::Mode::ReadWrite : Project::Mode::ReadOnly, &error);
    if (!project) {
        err << "grademl " << command << ": " << error << '\n';
        return nullptr;
    }
    const QList<RunId> missing = runsWithoutMetrics(*project, sim::kRunMetricsVersion);
    if (!missing.isEmpty() && writable) {
        QElapsedTimer t;
        t.start();
        QStringList errors;
        sim::updateRunMetrics(*project, missing, &errors);
        for (const QString &e : std::as_const(errors))
            err << "grademl " << command << ": " << e << '\n';
        if (!quiet)
            err << QStringLiteral("grademl %1: headline metrics of %2 run%3 computed in %4 s\n")
                       .arg(QLatin1String(command))
                       .arg(missing.size())
                       .arg(missing.size() == 1 ? QString() : QStringLiteral("s"))
                       .arg(double(t.nsecsElapsed()) / 1e9, 0, 'f', 2);
    } else if (!missing.isEmpty()) {
        err << "grademl " << command << ": the project is read-only; " << missing.size()
            << " run(s) are listed without their headline metrics\n";
    }
    return project;
}

int runsCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {QStringLiteral("filter")}, {QStringLiteral("json")});
    if (!p.error.isEmpty() || p.positional.size() != 1) {
        err << "grademl runs: " << (p.error.isEmpty() ? QStringLiteral("need one project file") : p.error)
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
