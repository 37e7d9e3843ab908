// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>
#include <optional>
#include <vector>

namespace gml {
class Project;
}

namespace gml::sim {

// A run's headline metrics, as the Runs browser lists them and the comparison charts them,
// stored in run_metrics (model/store/runcatalog.h) so that listing thousands of runs analyses none.
// Keys (each only when known):
//   iterations, step_mean_ns, step_sd_ns, step_min_ns, step_max_ns: the iteration time, from
//     one ProfilerStep's start to the next one's (the last to the end of its work, GPU work
//     included, as the Analysis panel's step), over the ranks; the step figures are the
//     steady state's: warmup_iterations (iterations.h) left out, step_mean_all_ns with them;
//   step_times_ns: each iteration's time, in order (at most 5,000), warm-up included;
//   gpu_busy: busy / window over the GPUs (0..1); compute, communication, copies, idle: the
//     GPUs' time split (fractions of the window, HTA's temporal breakdown);
//   gpu_utilisation (% while active) and energy_j (power integrated over the iterations, or
//     over the GPUs' active span) from monitoring logs; energy_per_iteration_j;
//   mfu, hfu (every costed op's FLOPs against the same peak), device, ranks, gpus;
//   peak_memory_bytes: the highest peak allocated of the run's GPUs (memoryreport.h), and
//     memory_peaks_bytes: that GPU's peak in each iteration, in order (profile_memory runs);
//   predicted_ns: a predicted run's end-to-end time, from its scenario's replay (its step keys
//     come from its own slices, as any run's; its mfu and hfu count its measured run's FLOPs
//     in its own time, on the device it names, a device change's target, else that run's);
//   work_span_ns: from the first slice of work to the end of the last (monitoring samples
//     left out), what a prediction's replay of the same work compares with;
//   last_metrics: {name: last value} of MLflow metrics.
//   version: kRunMetricsVersion, so that metrics computed by an older program are made again.
inline constexpr int kRunMetricsVersion = 5; // 2: peak memory; 3: hfu; 4: work span,
                                             // a prediction's MFU; 5: steady-state steps,
                                             // a prediction's device
// The step keys above (iterations, step_mean_ns, step_sd_ns, step_min_ns, step_max_ns,
// step_times_ns) of a run's iteration times; empty for none.
QJsonObject stepStatistics(const std::vector<TimeNs> &times);
std::optional<QJsonObject> computeRunMetrics(Project &project, RunId run, QString *error);

// Computes and stores the metrics of `runs` (the project must be writable). A run that cannot
// be analysed gets the metrics it has (an empty object at least), so it is not tried again
// until it changes. `progress(done, total, runName)` returning false stops; errors are collected
// per run in *errors.
bool updateRunMetrics(Project &project, const QList<RunId> &runs, QStringList *errors,
                      const std::function<bool(int, int, const QString &)> &progress = {});

} // namespace gml::sim
