// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace gml {

class Project;

// The project's runs as experiments -> workloads -> runs (DEEM'23): what the Runs browser and
// `grademl runs` list. One pass of a few aggregate queries, whatever the size of the runs'
// traces: headline metrics come from run_metrics (computed once per run, simulator/runmetrics.h),
// never from the slices.
struct CatalogRun
{
    RunId id = 0;
    QString name;
    QString kind; // measured, predicted, simulated
    QJsonObject params;
    QJsonObject tags;
    qint64 workloadId = 0; // 0: in no workload
    qint64 experimentId = 0;
    QString status;   // "ok", "failed", "2 of 9 files failed", MLflow's status ("FINISHED"), ...
    TimeNs start = 0; // project clock; 0: no data
    TimeNs end = 0;
    QString createdAt; // when the run record was made (UTC, "YYYY-MM-DD HH:MM:SS")
    qint64 sources = 0;
    // Headline metrics (runmetrics.h keys: step_mean_ns, step_sd_ns, gpu_busy, energy_j, ...);
    // empty until computed.
    QJsonObject metrics;
    bool hasMetrics = false;
    // A predicted run: the measured run it came from and its scenario ("amp", "input=free").
    QString measuredRun;
    QString scenario;

    TimeNs duration() const { return end > start ? end - start : 0; }
    double metric(const QString &key, double fallback = -1) const; // headline metric or fallback
    // A param's value as text, looked up in params and MLflow's params ("batch_size"); empty
    // when the run has none.
    QString param(const QString &key) const;
};

struct CatalogWorkload
{
    qint64 id = 0;
    qint64 experimentId = 0; // 0: in no experiment
    QString name;
};

struct CatalogExperiment
{
    qint64 id = 0;
    QString name;
    QJsonObject params;
    QJsonObject tags;
};

struct RunCatalog
{
    QList<CatalogExperiment> experiments; // by name
    QList<CatalogWorkload> workloads;     // by name
    QList<CatalogRun> runs;               // by name

    const CatalogRun *run(const QString &name) const;
    const CatalogRun *run(RunId id) const;
    const CatalogWorkload *workload(qint64 id) const;
    const CatalogExperiment *experiment(qint64 id) const;
    // "experiment / workload" of a run, "" when it is in none.
    QString placeOf(const CatalogRun &run) const;
    // Every param key the runs have (flattened as CatalogRun::param reads them), sorted.
    QStringList paramKeys() const;
};

std::optional<RunCatalog> loadRunCatalog(Project &project, QString *error);

// Edits, each in its own transaction (nothing is written when one fails).
// Puts runs into `workload` of `experiment` (both made when missing; an empty experiment: a
// workload in no experiment; an empty workload: the runs leave their workload).
[[nodiscard]] bool assignRuns(Project &project, const QList<RunId> &runs, const QString &experiment,
                              const QString &workload, QString *error);
// Replaces a run's tags (string values).
[[nodiscard]] bool setRunTags(Project &project, RunId run, const QJsonObject &tags, QString *error);
// Stores a run's headline metrics (runmetrics.h), replacing what was there.
[[nodiscard]] bool storeRunMetrics(Project &project, RunId run, const QJsonObject &metrics,
                                   QString *error);
// Runs whose headline metrics are not computed yet, or were by another `version` of their
// computation (sim::kRunMetricsVersion).
QList<RunId> runsWithoutMetrics(Project &project, int version);

// `grademl runs`: the hierarchy with each run's kind, status, start, duration and headline
// metrics; `filter` keeps runs whose name, place, params or tags contain it.
QString catalogToText(const RunCatalog &catalog, const QString &filter = {});
QJsonObject catalogToJson(const RunCatalog &catalog, const QString &filter = {});
bool runMatches(const RunCatalog &catalog, const CatalogRun &run, const QString &filter);

} // namespace gml
