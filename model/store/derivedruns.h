// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Runs the simulator writes into a project: a what-if's predicted run (simulator/replay/
// predictedrun.h) and the strategy simulator's simulated runs (simulator/strategy/
// simulatedrun.h). Each is a run of its kind with one source whose tracks and slices go through
// a TraceWriter, saved again under the same name by dropping the old one first. Scenarios (a
// run's named what-if transforms and their results) are kept beside them. Inside the caller's
// transaction unless said otherwise.

#include "tracewriter.h"
#include "types.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace gml {

class Project;

// Deletes run `name` with its sources when it is of `kind` (a prediction or simulation saved
// again); fails, saying "WHAT never replaces one", when it is of another kind. No run of that
// name: nothing to do.
[[nodiscard]] bool dropDerivedRun(Project &project, const QString &name, const QString &kind,
                                  const QString &what, QString *error);
// Marks `run` as of `kind` with `params`.
[[nodiscard]] bool setRunKind(Project &project, RunId run, const QString &kind,
                              const QJsonObject &params, QString *error);
// The run's one source (path and format given; 'failed' until its writer finishes); 0 on error.
SourceId insertDerivedSource(Project &project, RunId run, const QString &path,
                             const QString &format, QString *error);
// Stores a run's headline metrics (run_metrics) inside the caller's transaction
// (runcatalog.h's storeRunMetrics makes its own).
[[nodiscard]] bool writeRunMetrics(Project &project, RunId run, const QJsonObject &metrics,
                                   QString *error);

// The tracks of `run` as specs to write again (a prediction copies its measured run's rows).
struct TrackTemplate
{
    TrackId id = 0, parent = 0; // parent 0: none
    TrackSpec spec;             // spec.parent unset: ids are the measured run's
};
std::vector<TrackTemplate> trackTemplates(Project &project, RunId run);

// Where data starts on the project clock: the earliest track start of the run named `run`, or
// (when `run` is empty) of every run that is not simulated; nullopt when there is none.
std::optional<TimeNs> earliestTrackStart(Project &project, const QString &run);

// A what-if scenario as stored: its transforms (a JSON array, as the simulator writes them) and
// results.
struct ScenarioRow
{
    QString name;
    QString transforms; // JSON text
    QString results;    // JSON text ("{}" when none)
};
[[nodiscard]] bool storeScenario(Project &project, RunId run, const QString &name,
                                 const QJsonArray &transforms, const QJsonObject &results,
                                 QString *error);
std::optional<ScenarioRow> scenarioRow(Project &project, RunId run, const QString &name);
QList<ScenarioRow> scenarioRows(Project &project, RunId run);

} // namespace gml
