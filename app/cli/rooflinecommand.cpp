// SPDX-License-Identifier: GPL-3.0-or-later
// grademl roofline: how close to the hardware each operator ran (roofline.h), from the shapes
// the profiler recorded, against the catalog's peaks for the run's GPU.
#include "clicommands.h"

#include "dependencygraph.h"
#include "devicecatalog.h"
#include "project.h"
#include "roofline.h"
#include "transforms.h"

#include <QJsonDocument>

namespace gml::cli {

int rooflineCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p =
        parse(args, {QStringLiteral("run"), QStringLiteral("device")}, {QStringLiteral("json")});
    QString problem = p.error;
    if (problem.isEmpty() && p.positional.size() != 1)
        problem = QStringLiteral("need one project file");
    // --device: the GPU the run ran on when its trace does not name one the catalog knows.
    const QString named = p.options.value(QStringLiteral("device"));
    if (problem.isEmpty() && !named.isEmpty() && !sim::DeviceCatalog::builtin().device(named))
        problem = QStringLiteral("--device: no GPU '%1' in the catalog (one of %2)")
                      .arg(named, sim::DeviceCatalog::builtin().deviceIds());
    if (!problem.isEmpty()) {
        err << "grademl roofline: " << problem
            << "\nusage: grademl roofline FILE.grademl [--run NAME] [--device ID] [--json]\n";
        return Usage;
    }
    auto project =
        openProject(p.positional.first(), false, QStringLiteral("grademl roofline: "), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    int exitCode = Ok;
    const auto run = pickRun(*project, &runName, "roofline", err, &exitCode);
    if (!run)
        return exitCode;
    QString error;
    auto graph = sim::DependencyGraph::build(*project, *run, &error);
    if (!graph) {
        err << "grademl roofline: run '" << runName << "': " << error << '\n';
        return SomeFailed;
    }
    const QString device =
        named.isEmpty() ? sim::WhatIfContext::forRun(*graph, *project, *run).measuredDevice : named;
    const sim::Roofline r = sim::roofline(*graph, device, sim::DeviceCatalog::builtin());
    if (p.flags.contains(QStringLiteral("json"))) {
        QJsonObject o = r.toJson();
        o.insert(QStringLiteral("run"), runName);
        if (!r.problem().isEmpty())
            o.insert(QStringLiteral("problem"), r.problem());
        out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    } else {
        out << "run " << runName << '\n' << r.toText();
        if (!r.problem().isEmpty())
            out << "no roofline: " << r.problem() << '\n';
    }
    return Ok;
}

} // namespace gml::cli
