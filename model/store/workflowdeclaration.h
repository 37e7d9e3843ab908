// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace gml {

class Project;

// A workflow a trace folder declares in its grademl.json:
//   {"workflow": {"name": "speech",
//                 "steps": [{"name": "train", "folder": "mlruns/1/ed05…"},
//                           {"name": "finetune", "run": "torch-job"}],
//                 "edges": [["train", "finetune"]]}}
// A step names its runs ("run": a name, "runs": names) or folders ("folder", "folders":
// relative to the grademl.json's folder; a run is in the step when one of its files is under
// one). An edge says the first step's output feeds the second ([from, to] or {"from", "to"}).
struct WorkflowDeclaration
{
    struct Step
    {
        QString name;
        QStringList runs;
        QStringList folders; // absolute, clean
    };
    QString path; // the grademl.json
    QString name; // "workflow" when it does not say
    std::vector<Step> steps;
    std::vector<std::pair<QString, QString>> edges; // step names, as declared (checked later)

    // What a declaration may hold (docs/analysis.md): the graph view and the workflow's checks
    // stay bounded whatever a file declares.
    static constexpr qsizetype kMaxSteps = 1000;
    static constexpr qsizetype kMaxEdges = 10'000;
    static constexpr qsizetype kMaxNameChars =
        200; // the workflow's, a step's, a run's or a folder's
    static constexpr qsizetype kMaxRunsPerStep = 10'000; // runs and folders a step names

    // Reads the "workflow" object of the settings file at `path`; step folders are resolved
    // against the file's folder. Nullopt with *error ("workflow.steps[2].run: expected ...")
    // when its shape is wrong, a key is unknown, a limit above is passed or a step's folder
    // holds the file's own folder (every run would be in it); what it says about runs and
    // loops is checked when it is shown. `stored`: read back from a project (folders are
    // absolute, the file may be gone).
    static std::optional<WorkflowDeclaration>
    parse(const QJsonObject &workflow, const QString &path, QString *error, bool stored = false);
    QJsonObject toJson() const;
};

// Stores (or replaces) the declaration of a settings file; inside the caller's transaction.
[[nodiscard]] bool storeWorkflowDeclaration(Project &project,
                                            const WorkflowDeclaration &declaration, QString *error);
// Every stored declaration, oldest first; none for a project from before schema 5.
std::vector<WorkflowDeclaration> workflowDeclarations(Project &project, QString *error);

} // namespace gml
