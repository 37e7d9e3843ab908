// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "replay.h"
#include "steadystate.h"

#include <vector>

namespace gml::sim {

// One definition of an iteration, shared by what-if, the findings' prices, the Runs pane and
// Compare (simulator/analysis/runmetrics.cpp): the host step (a ProfilerStep#N of the lowest
// rank, DependencyGraph::iterations()) plus the GPU work it launched.
//   - The iterations' work ends at the latest end of their host steps and of the GPU work
//     launched from inside them: a host running ahead of the GPU (no sync at the step's end)
//     ends its steps long before their kernels do.
//   - Iteration k's time runs from its step's start to the next step's start; the last one's
//     to the end of the work. The times add up to the mean iteration x N, with
//     mean = (work end - first start) / N.
// Steady state: model/core/steadystate.h (warmupIterations), one definition for every layer.
using gml::warmupIterations;

struct Iterations
{
    std::vector<TimeNs> starts; // each step's start, in DependencyGraph::iterations() order
    TimeNs workEnd = 0;
    bool empty() const { return starts.empty(); }
    // Each iteration's time (never negative).
    std::vector<TimeNs> times() const;
    // (workEnd - first start) / N, to the nearest ns; 0 for none.
    TimeNs mean() const;
    // The warm-up iterations (warmupIterations of times()) and the mean of the iterations after
    // `warmup` of them, the run's step time: (workEnd - the first steady start) / their count.
    int warmup() const { return warmupIterations(times()); }
    TimeNs steadyMean(int warmup) const;
    // The q-quantile of times() (0.5: the median, 0.9: p90), 0 for none.
    TimeNs quantile(double q) const;
};

// The q-quantile of a sample: model/core/steadystate.h.
using gml::quantile;

// The iterations as measured, and as a replay of the graph places them.
Iterations measuredIterations(const DependencyGraph &graph);
Iterations replayedIterations(const DependencyGraph &graph, const Replay &replay);

// The mean iteration of a replay; a graph without iterations: the replay's makespan.
TimeNs meanIteration(const DependencyGraph &graph, const Replay &replay);
// The mean of a replay's iterations after the first `warmup` (Iterations::steadyMean); the
// makespan for a run without iterations.
TimeNs steadyIteration(const DependencyGraph &graph, const Replay &replay, int warmup);

} // namespace gml::sim
