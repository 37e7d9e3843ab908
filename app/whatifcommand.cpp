// SPDX-License-Identifier: GPL-3.0-or-later
// grademl whatif: replay a run's dependency graph, as measured and with transforms.
#include "clicommands.h"

#include "dependencygraph.h"
#include "project.h"
#include "whatif.h"

#include <QJsonDocument>

namespace gml::cli {

namespace {

const char kWhatIfUsage[] =
    "usage: grademl whatif FILE.grademl [--run NAME] [--scale 'REGEX=FACTOR'] [--json]\n"
    "  --scale: multiply the time of the slices whose name matches REGEX (0 removes them)\n";

} // namespace

int whatifCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {QStringLiteral("run"), QStringLiteral("scale")}, {QStringLiteral("json")});
    QString usageError = p.error;
    if (usageError.isEmpty() && p.positional.size() != 1)
        usageError = QStringLiteral("need one project file");
    QList<sim::Transform> transforms;
    if (usageError.isEmpty() && p.options.contains(QStringLiteral("scale"))) {
        if (auto t = sim::parseScale(p.options.value(QStringLiteral("scale")), &usageError))
            transforms.append(*t);
    }
    if (!usageError.isEmpty()) {
        err << "grademl whatif: " << usageError << '\n' << kWhatIfUsage;
        return Usage;
    }
    QString error;
    auto project = Project::open(p.positional.first(), Project::Mode::ReadOnly, &error);
    if (!project) {
        err << "grademl whatif: " << error << '\n';
        return SomeFailed;
    }
    QString runName = p.options.value(QStringLiteral("run"));
    if (runName.isEmpty()) {
        QStringList names;
        auto st = project->db().prepare("SELECT name FROM run WHERE kind = 'measured' ORDER BY id");
        while (st.step())
            names << st.text(0);
        if (names.size() != 1) {
            err << "grademl whatif: " << (names.isEmpty() ? QStringLiteral("the project has no measured run")
                                                           : QStringLiteral("the project has %1 runs; name one with --run: %2")
                                                                 .arg(names.size()).arg(names.join(QStringLiteral(", "))))
                << '\n';
            return names.isEmpty() ? SomeFailed : Usage;
        }
        runName = names.first();
    }
    const auto run = project->findRun(runName);
    if (!run) {
        err << "grademl whatif: no run named '" << runName << "'\n";
        return SomeFailed;
    }
    const auto graph = sim::DependencyGraph::build(*project, *run, &error);
    if (!graph) {
        err << "grademl whatif: run '" << runName << "': " << error << '\n';
        return SomeFailed;
    }
    const auto report = sim::whatIf(*graph, transforms);
    if (p.flags.contains(QStringLiteral("json"))) {
        QJsonObject o = report.toJson();
        o.insert(QStringLiteral("run"), runName);
        out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    } else {
        out << "run " << runName << '\n' << report.toText();
    }
    return Ok;
}

} // namespace gml::cli
