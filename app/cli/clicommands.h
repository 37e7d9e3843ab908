// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QHash>
#include <QList>
#include <QSize>
#include <QStringList>
#include <QTextStream>
#include <QTimeZone>

#include <memory>
#include <optional>
#include <utility>

namespace gml {
class Project;
struct SourceReport;
struct ScannedFile;
} // namespace gml
namespace gml::sim {
struct Transform;
struct WhatIfContext;
} // namespace gml::sim

namespace gml::cli {

// Exit codes of the public CLI.
enum ExitCode { Ok = 0, SomeFailed = 1, Usage = 2 };

// Splits "--key value" / "--key=value" options from positional arguments; unknown options
// are an error.
struct Parsed
{
    QStringList positional;
    QHash<QString, QString> options;      // the last value of each option
    QHash<QString, QStringList> repeated; // every value, in order (options given more than once)
    QStringList flags;
    QString error;
};
Parsed parse(const QStringList &args, const QStringList &valued, const QStringList &flags);

// The run a command works on: `requested` by name, else the project's only measured run. Prints
// why not to `err` (prefixed by "grademl COMMAND: ") and sets *exitCode when there is none.
std::optional<qint64> pickRun(Project &project, QString *requested, const char *command,
                              QTextStream &err, int *exitCode);

// "START:END" after a run's start, each a duration ("10ms:250ms"); nullopt with *problem set
// (naming `option`) when it is not one.
std::optional<std::pair<qint64, qint64>> parseRunRange(const QString &text, const char *option,
                                                       QString *problem);

// A time where a command also takes one on the project clock (note, export): "@NS" on the
// project clock, else a duration after the run's start (parseDuration: "250ms", "1.5s";
// nanoseconds without a unit), never negative.
struct RunTime
{
    qint64 ns = 0;
    bool absolute = false;
};
std::optional<RunTime> parseRunTime(const QString &text);
// "A:B" of two such times, both after the run's start or both @NS, A < B.
std::optional<std::pair<RunTime, RunTime>> parseRunTimes(const QString &text);

// Why the file given to --`option` may not be written ("--out X: refused as an output: it is a
// symbolic link ..."; outputfile.h), checked before a command does any work; empty when it may.
// `project`: the project the command reads. An option not given is never refused.
QString refusedOutput(const Parsed &p, const char *option, const QString &project);

int importCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// "(FORMAT, run 'NAME'): N slices, M counter samples, F flows[, W warnings]": an imported
// file, as import and import --follow print it.
QString importedSummary(const SourceReport &report);
// grademl import ... --follow: what it follows and how (followcommand.cpp).
struct FollowSettings
{
    QStringList inputs;
    QString runName;
    QTimeZone timeZone;
    int threads = 0;
    qint64 pollMs = 1000;
    qint64 idleExitMs = 0; // 0: until a signal
    bool quiet = false;
};
int followImport(Project &project, const FollowSettings &settings, QTextStream &out,
                 QTextStream &err);
// grademl import ... --shard I/N (shardcommand.cpp): shard I's share of the files (contiguous in
// path order, so a rank's files kept side by side stay together), nullopt with *why when the
// option is not I/N with 0 <= I < N.
std::optional<std::pair<int, int>> parseShard(const QString &text, QString *why);
QList<ScannedFile> shardOfFiles(const QList<ScannedFile> &files, int index, int count);
// After a shard's import into `partial` (PROJECT.partial): its identity (the job `job`, shard
// I of N; model/store/clusterproject.h) and the rank facts of its runs stored,
// its write-ahead log folded in, the project closed, then the file put in place at
// `projectPath` in one step. False with what failed on `err`.
bool finishShard(std::unique_ptr<Project> partial, const QString &projectPath, const QString &job,
                 std::pair<int, int> shard, QTextStream &err);
// grademl import ... --scheduler ADDRESS: runs the Dask driver (app/cluster/grademl-dask) with
// this grademl, forwarding its output; its exit status.
int importOnCluster(const Parsed &p, QTextStream &err);
// grademl merge CLUSTER.grademl SHARD.grademl...: the cluster project of a sharded import.
int mergeCommand(const QStringList &args, QTextStream &out, QTextStream &err);
int infoCommand(const QStringList &args, QTextStream &out, QTextStream &err);
int queryCommand(const QStringList &args, QTextStream &out, QTextStream &err);
int whatifCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl validate FILE --run A [TRANSFORMS] --against B [--json]: a prediction against a
// measured run (simulator/analysis/validation.h).
int validateCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// The transform options of whatif and validate (--scale, --preset, --device, ... and the
// measured context: --from-device, --measured-link, --measured-algorithm; --scenario is read
// by the command, from the project).
const QStringList &transformOptions();
extern const char kTransformOptionsHelp[];
// The transforms those options give, in whatif's order; nullopt with the reason in *why.
std::optional<QList<sim::Transform>> transformsOfOptions(const Parsed &p, QString *why);
// --from-device, --measured-link, --measured-algorithm and --calibration FILE (the factors of
// grademl validate --fit) into the context; false with the reason (naming the file) in *why.
[[nodiscard]] bool applyContextOptions(const Parsed &p, sim::WhatIfContext &context, QString *why);
// grademl graph FILE [--run NAME] [--level L] [--json | --dot]: the execution model.
int graphCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl memory FILE [--run NAME] [--json]: peak memory per device and what was live at it.
int memoryCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl roofline FILE [--run NAME] [--json]: FLOPs, bytes and achieved rates per operator.
int rooflineCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl collectives FILE [--run NAME] [--json]: each collective across ranks, skew against
// transfer, algbw and busbw against the link's peak; per rank its wait and arrivals.
int collectivesCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl analyze FILE [--run NAME] [--rank N] [--range A:B] [--json]: the automated analyses.
int analyzeCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl flame FILE [--run NAME] [--range A:B] [--rank N] [--gpu] [--format folded|json]
// [--diff-run NAME | --diff-range A:B]: the flame graph of a range (flamecommand.cpp).
int flameCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl note FILE add|list|remove ...: notes and bookmarks (notecommand.cpp).
int noteCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl runs FILE [--filter TEXT] [--json]: experiments -> workloads -> runs (runscommand.cpp).
int runsCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl compare FILE RUN_A RUN_B [...] [--metric NAME] [--ranks A,B] [--iteration N] [--json]
int compareCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// The project at `path`, read-only unless `writable`; when it cannot be opened, says so on
// `err` after `prefix` ("grademl info: ") and returns null.
std::unique_ptr<Project> openProject(const QString &path, bool writable, const QString &prefix,
                                     QTextStream &err);
// The project opened for listing runs; their missing headline metrics computed when writable.
std::unique_ptr<Project> openWithMetrics(const QString &path, const char *command, QTextStream &err,
                                         bool quiet);
// grademl simulate FILE (--model M | --from-run RUN) ...: the strategy simulator
// (simulatecommand.cpp).
int simulateCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl record --out DIR [--interval I] [--name RUN] -- COMMAND...: a trace folder of a run
// (recorder.h).
int recordCommand(const QStringList &args, QTextStream &out, QTextStream &err);
int alignCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// Needs a QGuiApplication (fonts): grademl_main creates one for this command.
int exportCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// grademl report FILE [--run R] --out REPORT.html [--mlflow RUN_DIR] (reportcommand.cpp): the
// Analysis page as one self-contained HTML file; with --mlflow, GradeML's numbers written into
// an MLflow run. Needs a QApplication (the charts).
int reportCommand(const QStringList &args, QTextStream &out, QTextStream &err);
// export --format chrome-json (exportruncommand.cpp): a run as a Chrome trace.
int exportRun(const Parsed &p, QTextStream &out, QTextStream &err);
// export --view analysis (analyzecommand.cpp): needs a QApplication (the chart layer is
// QCustomPlot, a widget).
int exportAnalysis(const Parsed &p, const QString &projectPath, const QString &outPath, QSize size,
                   QTextStream &out, QTextStream &err);
// export --view compare (runscommand.cpp): the Compare panel's charts; needs a QApplication too.
int exportCompare(const Parsed &p, const QString &projectPath, const QString &outPath, QSize size,
                  QTextStream &out, QTextStream &err);
// export --view simulate (simulatecommand.cpp): the Simulate panel's sweep charts; a QApplication
// too.
int exportSimulate(const Parsed &p, const QString &projectPath, const QString &outPath, QSize size,
                   QTextStream &out, QTextStream &err);

} // namespace gml::cli
