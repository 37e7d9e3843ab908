// SPDX-License-Identifier: GPL-3.0-or-later
// grademl graph: the execution model of a run (step -> iteration -> scope -> operator -> GPU
// work) with its edges, or at --level workflow the project's workflow (its steps and the
// workflow edges between them), as text, JSON or Graphviz dot, for scripts.
#include "clicommands.h"

#include "executionmodel.h"
#include "project.h"
#include "workflow.h"

#include <QJsonDocument>

namespace gml::cli {

int graphCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {QStringLiteral("run"), QStringLiteral("level")},
                           {QStringLiteral("json"), QStringLiteral("dot")});
    const QString levelText = p.options.value(QStringLiteral("level"), QStringLiteral("iteration"));
    const auto level = sim::levelFromName(levelText);
    QString problem = p.error;
    if (problem.isEmpty() && p.positional.size() != 1)
        problem = QStringLiteral("need one project file");
    if (problem.isEmpty() && !level)
        problem =
            QStringLiteral(
                "unknown level '%1'; expected workflow, step, iteration, scope, operator or gpu")
                .arg(levelText);
    if (problem.isEmpty() && p.flags.contains(QStringLiteral("json")) &&
        p.flags.contains(QStringLiteral("dot")))
        problem = QStringLiteral("--json and --dot exclude each other");
    if (!problem.isEmpty()) {
        err << "grademl graph: " << problem
            << "\nusage: grademl graph FILE.grademl [--run NAME] "
               "[--level workflow|step|iteration|phase|scope|operator|gpu] [--json | --dot]\n";
        return Usage;
    }
    QString error;
    auto project = openProject(p.positional.first(), false, QStringLiteral("grademl graph: "), err);
    if (!project)
        return SomeFailed;
    if (*level == sim::Level::Workflow) {
        // The project's workflow: its steps (runs, or what grademl.json declares) and edges.
        const auto workflow = sim::Workflow::load(*project, &error);
        if (!workflow) {
            err << "grademl graph: " << error << '\n';
            return SomeFailed;
        }
        if (p.flags.contains(QStringLiteral("json"))) {
            QJsonObject o = sim::ExecutionModel::forWorkflow(*workflow).toJson(sim::Level::Step);
            o.insert(QStringLiteral("workflow"), workflow->toJson());
            out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
        } else if (p.flags.contains(QStringLiteral("dot"))) {
            out << sim::ExecutionModel::forWorkflow(*workflow).toDot(sim::Level::Step);
        } else {
            out << workflow->toText();
        }
        for (const QString &problem : workflow->problems)
            err << "grademl graph: workflow: " << problem << '\n';
        return workflow->problems.isEmpty() ? Ok : SomeFailed;
    }
    QString runName = p.options.value(QStringLiteral("run"));
    int exitCode = Ok;
    const auto run = pickRun(*project, &runName, "graph", err, &exitCode);
    if (!run)
        return exitCode;
    const auto built = sim::ExecutionModel::forRun(*project, *run, runName, &error);
    if (!built) {
        err << "grademl graph: run '" << runName << "': " << error << '\n';
        return SomeFailed;
    }
    const sim::ExecutionModel &model = *built;
    if (p.flags.contains(QStringLiteral("json"))) {
        QJsonObject o = model.toJson(*level);
        o.insert(QStringLiteral("run"), runName);
        out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    } else if (p.flags.contains(QStringLiteral("dot"))) {
        out << model.toDot(*level);
    } else {
        out << model.toText(*level);
    }
    return Ok;
}

} // namespace gml::cli
