// SPDX-License-Identifier: GPL-3.0-or-later
// grademl memory: where a run's memory went (memoryreport.h), from the PyTorch profiler's
// profile_memory events: the peak per device, what was live at it, the largest allocations,
// what was never freed, and each iteration's memory.
#include "clicommands.h"

#include "memoryreport.h"
#include "project.h"

#include <QJsonDocument>

namespace gml::cli {

int memoryCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {QStringLiteral("run")}, {QStringLiteral("json")});
    QString problem = p.error;
    if (problem.isEmpty() && p.positional.size() != 1)
        problem = QStringLiteral("need one project file");
    if (!problem.isEmpty()) {
        err << "grademl memory: " << problem
            << "\nusage: grademl memory FILE.grademl [--run NAME] [--json]\n";
        return Usage;
    }
    auto project =
        openProject(p.positional.first(), false, QStringLiteral("grademl memory: "), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    int exitCode = Ok;
    const auto run = pickRun(*project, &runName, "memory", err, &exitCode);
    if (!run)
        return exitCode;
    QString error;
    const auto report = memoryReport(*project, *run, &error);
    if (!report) {
        err << "grademl memory: run '" << runName << "': " << error << '\n';
        return SomeFailed;
    }
    if (p.flags.contains(QStringLiteral("json"))) {
        QJsonObject o = report->toJson();
        o.insert(QStringLiteral("run"), runName);
        out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    } else {
        out << "run " << runName << '\n' << report->toText();
    }
    return Ok;
}

} // namespace gml::cli
