// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Runs as the import job files them: a run's name, the runs a job left empty, the headline
// metrics to compute again, the sources moved from one run to another when a folder turns out
// to hold several jobs (importers/job/rungrouping.h), the params a run's sources merged, and the
// workloads and experiments runs belong to. Inside the caller's transaction unless said
// otherwise. Project.h creates and finds runs (ensureRun, findRun).

#include "sqlitedb.h"
#include "types.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace gml {

class Project;

std::optional<QString> runName(Project &project, RunId run);
// Every run's id and name, by id.
QList<std::pair<RunId, QString>> runNames(Project &project);
// The names of the runs of `kind` (measured, predicted, simulated), by id.
QStringList runNamesOfKind(Project &project, const QString &kind);
// A run's name, kind (measured, predicted, simulated) and params.
struct RunRow
{
    RunId id = 0;
    QString name, kind;
    QJsonObject params;
};
std::optional<RunRow> runRow(Project &project, RunId run);
// Every run's name with its workload and that workload's experiment (unset: none), by id.
struct RunPlacement
{
    QString name;
    std::optional<qint64> workload, experiment;
};
QList<RunPlacement> runPlacements(Project &project);
// The last value (by time, then step) of each counter track of `run` imported from files of
// `format`, by track name; tracks without a sample are left out.
QJsonObject lastCounterValues(Project &project, RunId run, const QString &format);
// Drops the stored headline metrics of `runs` (computed again when next listed).
[[nodiscard]] bool dropRunMetrics(Project &project, const QList<RunId> &runs, QString *error);
// Removes each of `runs` that holds no source and no track.
[[nodiscard]] bool dropEmptyRuns(Project &project, const QList<RunId> &runs, QString *error);

// What run grouping reads of an imported source at `path`: its run, format, the rank and world
// size its metadata names ('$.distributedInfo'), the highest rank of its tracks, and its span
// on its own clock (clock_offset_ns applied; unset when it has no track).
struct PlacedSource
{
    SourceId id = 0;
    RunId run = 0;
    QString runName, format;
    std::optional<int> rank, worldSize, trackRank;
    std::optional<TimeNs> start, end;
};
// One statement for every path of a folder (a folder of 100,000 files is read once per import).
class PlacedSourceReader
{
public:
    explicit PlacedSourceReader(Project &project);
    std::optional<PlacedSource> at(const QString &path);

private:
    SqliteStatement m_read;
};
// Moves source `source` and its tracks into run `run`.
[[nodiscard]] bool moveSource(Project &project, SourceId source, RunId run, QString *error);
// The run params of each imported source of `run` ('$.run_params'); nullopt for a source
// imported before they were kept.
QList<std::optional<QJsonObject>> sourceRunParams(Project &project, RunId run);
QJsonObject runParams(Project &project, RunId run);
// The run's tags (the user's: Runs › Edit Tags, MLflow's); empty when none.
QJsonObject runTags(Project &project, RunId run);
// Replaces them inside the caller's transaction (runcatalog.h's setRunTags opens its own).
[[nodiscard]] bool storeRunTags(Project &project, RunId run, const QJsonObject &tags,
                                QString *error);
[[nodiscard]] bool setRunParams(Project &project, RunId run, const QJsonObject &params,
                                QString *error);
// Puts the run named `run` in the workload named `workload` (one in an experiment first, else
// one made in no experiment) unless it is in a workload already.
[[nodiscard]] bool joinWorkloadByName(Project &project, const QString &run, const QString &workload,
                                      QString *error);
// MLflow: the experiment `name` (its params replaced), its workload of the same name, and run
// `run` placed there with `tags`.
[[nodiscard]] bool placeInExperiment(Project &project, RunId run, const QString &name,
                                     const QJsonObject &params, const QJsonObject &tags,
                                     QString *error);

// The execution-trace linker (importers/chakra/etlinker.h): the slices of category `category` on
// the tracks of process `pid` in `run`, by track, start and longer first, with their external id
// and '$."Record function id"' arg.
struct ProcessOp
{
    SliceId id = 0;
    TrackId track = 0;
    TimeNs ts = 0, dur = 0;
    StringId name = 0;
    std::optional<qint64> external, recordFunction;
};
std::vector<ProcessOp> processOps(Project &project, RunId run, qint64 pid, StringId category);
// The paths of the imported sources of the run named `run` and of the runs split from it
// ("<run>/<file stem>"), by path.
QStringList importedPathsOfRunFamily(Project &project, const QString &run);
// The first `limit` paths, by path, of the imported sources of `format` in `run`.
QStringList importedPaths(Project &project, RunId run, const QString &format, int limit);
// The measured runs other than `except` that have tracks of process `pid`, by id.
QList<std::pair<RunId, QString>> measuredRunsWithProcess(Project &project, qint64 pid,
                                                         RunId except);

} // namespace gml
