// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// GradeML's numbers written into an MLflow run of a file store (`mlruns/EXPERIMENT/RUN`), in
// MLflow's own format so that the MLflow UI shows them beside the run's own (issue 59):
// metrics as metrics/grademl.* files (lines "TIMESTAMP_MS VALUE STEP", at the run's own end
// time from its meta.yaml, not the write-back's; a second write-back adds the next step, as a
// metric logged again), tags as tags/grademl.* files, and the report under
// artifacts/grademl/. Only files named grademl.* (and that artifact folder) are written: what
// MLflow wrote is never touched. The run must exist (its meta.yaml).

#include <QList>
#include <QMap>
#include <QPair>
#include <QString>

#include <optional>

namespace gml {

struct MlflowWriteBack
{
    int metrics = 0, tags = 0;
    QString artifact; // the report's path in the run's artifacts, when one was copied
};

// Writes into the run folder `runDir`; keys are written as given (callers prefix "grademl.").
// A key outside [A-Za-z0-9_.-] or not starting with "grademl." is refused. nullopt (and
// *error, naming the path) when the folder is not an MLflow run or a file cannot be written.
std::optional<MlflowWriteBack> writeBackToMlflow(const QString &runDir,
                                                 const QList<QPair<QString, double>> &metrics,
                                                 const QMap<QString, QString> &tags,
                                                 const QString &artifact, QString *error);

} // namespace gml
