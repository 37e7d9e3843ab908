// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "replay.h"
#include "transforms.h"
#include "whatif.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <memory>
#include <optional>

namespace gml {
class Project;
struct TimelineData;
} // namespace gml

namespace gml::sim {

// A replay as a run: one track per thread and stream of the measured run (under copies of
// their process and device rows, names kept), nodes and enclosing slices at their predicted
// times, launch flows between them. Nodes a transform removed (no work, no gap) are left out.
//
// Written into the project in one transaction as run `name` of kind 'predicted' with one
// source "whatif:MEASURED/NAME"; params say which run, which transforms and the predicted
// time. An existing predicted run of that name is replaced; a measured one is never touched.
// Returns its id.
std::optional<RunId> savePredictedRun(Project &project, RunId measuredRun,
                                      const WhatIfResult &result,
                                      const QList<Transform> &transforms, const QString &name,
                                      QString *error);

// The same run held in memory for the timeline, placed right after the measured run in a copy
// of `base` (sharing its tracks); a previous in-memory prediction is dropped. A device change
// among `transforms` names its target on the GPU rows, as a saved prediction does. Track and run
// ids are above every project id (kLivePredictionRun, model/core/types.h).
using gml::kLivePredictionRun;
std::shared_ptr<const TimelineData>
withPredictedRun(const std::shared_ptr<const TimelineData> &base, RunId measuredRun,
                 const DependencyGraph &graph, const Replay &predicted, const QString &label,
                 const QList<Transform> &transforms = {});

// Scenarios: named transform lists of a run (table scenario), with the last result.
struct ScenarioRecord
{
    QString name;
    QList<Transform> transforms;
    QJsonObject results;
};
[[nodiscard]] bool saveScenario(Project &project, RunId run, const QString &name,
                                const QList<Transform> &transforms, const QJsonObject &results,
                                QString *error);
std::optional<ScenarioRecord> loadScenario(Project &project, RunId run, const QString &name,
                                           QString *error);
QList<ScenarioRecord> listScenarios(Project &project, RunId run, QString *error);

} // namespace gml::sim
