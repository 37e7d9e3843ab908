// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "executionmodel.h"
#include "projectsummary.h"
#include "workflowdeclaration.h"

#include <QJsonObject>
#include <QStringList>

#include <optional>
#include <vector>

namespace gml::sim {

// One step of a workflow: a run, or the runs a declared step names.
struct WorkflowStep
{
    QString name;
    QStringList runs; // in start order; empty: a declared step that matched no run
    TimeNs start = 0; // project clock, over its runs (0 when it has no data)
    TimeNs end = 0;
    qint64 slices = 0;
    qint64 counterSamples = 0;
    QStringList formats;   // of its runs' sources (chrome-trace, mlflow-run, nvidia-smi-csv, …)
    bool declared = false; // false: a run no declared step names, or an inferred workflow's
    TimeNs duration() const { return end - start; }
};

struct WorkflowEdge
{
    int from = 0; // step indices
    int to = 0;
    bool inferred = false;
};

// The workflow of a project: its steps and which feeds which. Declared in grademl.json files
// (model/store/workflowdeclaration.h), else inferred: every measured run with data is a step, and a
// step feeds each step that starts after it ends with no other step in between (so sequential
// jobs chain and concurrent ones branch) — only among runs that belong together: of one
// workload or experiment, or imported from one trace folder, and at most a day apart. Runs that
// belong with no other are steps with no edges, and `notes` says why (issue 36: a project of
// unrelated runs from different days is not one workflow). What is wrong with a declaration (a
// loop, a step that matches no run, an edge naming no step, a run in two steps) is in `problems`;
// nothing is dropped for it: a step that matched nothing is still a step, a loop's edges are kept.
struct Workflow
{
    QString name;
    QStringList declaredIn; // the grademl.json files; empty: inferred
    std::vector<WorkflowStep> steps;
    std::vector<WorkflowEdge> edges;
    QStringList problems; // in the declaration
    QStringList notes;    // in the data: runs in no declared step, steps out of time order

    bool inferred() const { return declaredIn.isEmpty(); }
    int find(const QString &step) const;

    // From the project's runs (grademl info's summary) and stored declarations. `groups`: each
    // run's workload and experiment keys ("workload:3", "experiment:1"); the trace folders come
    // from the runs' sources.
    static Workflow resolve(const std::vector<WorkflowDeclaration> &declarations,
                            const QList<RunSummary> &runs,
                            const QHash<QString, QStringList> &groups = {});
    static constexpr TimeNs kTogetherWithin = 24LL * 3600 * 1'000'000'000; // a day
    static std::optional<Workflow> load(Project &project, QString *error);

    QJsonObject toJson() const;
    QString toText() const;
};

} // namespace gml::sim
