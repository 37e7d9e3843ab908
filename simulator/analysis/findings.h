// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis.h"
#include "iterations.h" // meanIteration: the one definition of an iteration
#include "memoryreport.h"
#include "resourceattribution.h"
#include "roofline.h"
#include "transforms.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace gml::sim {

enum class Severity : uint8_t { Low, Medium, High };
QString severityName(Severity s);

// Where a finding shows: a time range on the project clock, the slice that shows it (0: none).
struct Evidence
{
    QString what; // "idle 12.3 ms before volta_sgemm_128x64_nn"
    int rank = -1;
    TimeNs start = 0;
    TimeNs end = 0;
    SliceId slice = 0;
    TrackId track = 0; // the slice's
};

// One rule's verdict on a run (docs/analysis.md lists the rules and their thresholds). `share` is
// the measured time it covers as a fraction of the GPUs' time (or of the phase, for the
// monitoring rules); the gain is the what-if replay of `fix` on the run's graph.
struct Finding
{
    QString rule;   // "input-bound", "launch-bound", ...
    QString title;  // one line
    QString detail; // the evidence in words, and what to do
    double share = 0;
    std::vector<Evidence> evidence; // the largest first, at most 20
    QList<Transform> fix;           // empty: no transform removes it (`noFix` says why)
    QString noFix;
    // The replay of `fix`: the mean iteration (the run's makespan when it has no iterations)
    // identity-replayed and predicted.
    bool priced = false;
    QString priceError; // the transform failed (an unknown GPU, ...)
    TimeNs before = 0;
    TimeNs after = 0;
    QStringList notes; // the model's assumptions while pricing
    double gain() const
    {
        return priced && before > 0 ? double(before - after) / double(before) : 0.0;
    }
    Severity
    severity() const; // by the gain when priced, else by the share: >= 20% high, >= 5% medium
    QJsonObject toJson() const;
};

// The rules, over the analysis of a run's graph (null: a run without a kernel trace) and its
// resource attribution. Unpriced and unranked.
std::vector<Finding> findFindings(const DependencyGraph *graph, const Analysis *analysis,
                                  const ResourceAttribution &resources,
                                  const WhatIfContext &context);

// The straggler rule's test (docs/analysis.md), one definition for a run and a cluster project:
// the rank last at the most collectives is a straggler when it is last at half of them or more
// and arrives, on average, 5% of its mean iteration (`iteration`) after the median.
bool passesStragglerTest(qint64 lastArrivals, size_t collectives, TimeNs meanLate,
                         TimeNs iteration);
// The straggler rule's finding without its fix: the rank last at the most collectives of `a`,
// when it passes the test; `iterationsOf(rank)` gives that rank's iterations' total length and
// count (none: `whole`, the run's span, stands for one). Its evidence is the collectives it
// was last at (their rank first). The rule prices it on the run's graph; a cluster project,
// which holds no graph of the whole job, leaves it unpriced.
std::optional<Finding>
stragglerFinding(const Analysis &a,
                 const std::function<std::pair<TimeNs, qint64>(int)> &iterationsOf, TimeNs whole);

// Prices each finding that has a fix by replaying it (identity: the measured graph's replay,
// computed when null), then ranks them: priced by gain, then the rest by share. `progress`
// (optional) is told after each finding; returning false from it stops (the rest unpriced).
void priceFindings(const std::shared_ptr<const DependencyGraph> &graph,
                   std::vector<Finding> &findings, const WhatIfContext &context,
                   const Replay *identity = nullptr,
                   const std::function<bool(int done, int total)> &progress = {});
void rankFindings(std::vector<Finding> &findings);

// The run at a glance (TensorBoard's overview): step time, GPU busy, MFU where FLOPs are known.
struct RunSummary
{
    qint64 iterations = 0;
    // The step time: the mean of the steady iterations (iterations.h: the warm-up ones left
    // out), GPU work included; stepTimeAll the mean of them all (meanIteration).
    TimeNs stepTime = 0;
    TimeNs stepTimeAll = 0;
    int warmupIterations = 0;
    // "step 32 ms (1 warm-up iteration of 10 left out; 61.8 ms with it)": the headline's words.
    QString stepText() const;
    double gpuBusy = -1; // busy / window over the GPUs (-1: no kernel trace)
    double mfu = -1;     // model FLOPs utilisation (-1: FLOPs or the GPU's peak unknown)
    QString mfuUnknown;  // why mfu is -1 ("no shapes recorded ...")
    double flops = 0;    // FLOPs of the ops in the iterations: recorded, else from their shapes
    // Hardware FLOPs utilisation: every costed op's FLOPs (recomputed activations included, as
    // the trace ran them), against the same peak (-1 with MFU, or when no more is known).
    double hfu = -1;
    double hardwareFlops = 0;
    QString device;             // the GPU model, as recorded
    double gpuUtilisation = -1; // monitoring: mean GPU utilisation while active, %
    double energyPerIterationJ = -1;
    // Values dropped because they lay outside physical bounds (physical.h): ops whose shapes or
    // recorded FLOPs are not a machine's, an MFU above 100%, a memory peak above the GPU's
    // memory. Each says what and how many; shown beside the headline, never folded into it.
    QStringList warnings;
    QJsonObject toJson() const;
};
// The FLOPs the graph's ops recorded (DependencyGraph::recordedFlops): each rank's inside that
// rank's iterations of the same trace when the run has iterations, else all of them.
double recordedFlops(const DependencyGraph &graph);
// The same with every costed op's FLOPs (normalisation, softmax, elementwise and reductions
// too): what the hardware executed, for HFU.
double hardwareFlops(const DependencyGraph &graph);
// `stepTime`: meanIteration() of the measured run (its identity replay).
RunSummary summarize(const DependencyGraph *graph, const Analysis *analysis,
                     const ResourceAttribution &resources, const WhatIfContext &context,
                     double flops, TimeNs stepTime, double hardware = 0);

// Everything `grademl analyze` and the Analysis panel show of one run.
struct RunReport
{
    QString run;
    TimeNs origin = 0; // the run's start: evidence times are shown after it
    RunSummary summary;
    std::optional<Analysis> analysis; // none for a run without a kernel trace
    ResourceAttribution resources;
    std::vector<Finding> findings; // ranked
    // The measured run's critical path (its identity replay) across ranks: the time each rank's
    // work holds it, largest first (rank -1: resources without a rank).
    std::vector<std::pair<int, TimeNs>> criticalByRank;
    TimeNs criticalLength = 0;
    // Set when the report has no findings by design (a cluster project's cross-rank report,
    // simulator/cluster): says where they are, in place of "no rule passed its threshold".
    QString noFindingsBecause;
    // FLOPs and bytes per operator against the GPU's peaks (roofline.h); none without a graph.
    std::optional<Roofline> roofline;
    // Where the memory went (memoryreport.h); none without profile_memory events.
    std::optional<MemoryReport> memory;
    QJsonObject toJson() const;
    QString toText() const;
};

// What the analysis of a run is doing, for a progress bar: a stage and how far along it is.
using AnalysisProgress = std::function<bool(const QString &stage, int done, int total)>;

// Everything of one run: its graph (when it has a kernel trace) analysed over `scope` (a range
// relative to the run's start), its counters attributed to phases, the findings found, priced
// on the whole run's graph and ranked. Fails on a database error, or a run with neither a
// kernel trace nor recognised counters. `graphOut` (optional) gets the graph for reuse.
// `progress` returning false cancels: nullopt with `error` "cancelled".
// `unpriced` (optional) gets the report before the findings are priced (a panel fills
// progressively).
std::optional<RunReport> analyzeRun(Project &project, RunId run, const QString &runName,
                                    const AnalysisScope &scope, QString *error,
                                    const AnalysisProgress &progress = {},
                                    std::shared_ptr<const DependencyGraph> *graphOut = nullptr,
                                    const std::function<void(const RunReport &)> &unpriced = {});

// "up to -33.2% per iteration (176 ms -> 117 ms)", or why it has no price.
QString gainText(const Finding &f);

} // namespace gml::sim

// Carried in a view's item data (a row that shows its evidence in the timeline).
Q_DECLARE_METATYPE(gml::sim::Evidence)
