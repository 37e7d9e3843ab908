// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Steady state, one definition (TensorBoard's step view leaves warm-up out too), shared by the
// step time (simulator/replay/iterations.h), the findings' prices, the what-if's means, the run
// metrics and the rank overview's default window: the iterations a run begins with that each
// take over kWarmupFactor x the median of all its iterations (the first steps' compilation,
// autotuning, caching allocator and data-loader start, ranks that start one after another) are
// warm-up; at most half of them, none with fewer than 3 iterations. A slow step later in the
// run is not warm-up: it stays in, as the spread it is.

#include "types.h"

#include <vector>

namespace gml {

inline constexpr double kWarmupFactor = 1.5;

// The q-quantile of a sample: linear between the closest ranks (numpy's default, so a median
// of an even count is the mean of the middle two), rounded to the ns; 0 for none.
TimeNs quantile(std::vector<TimeNs> values, double q);

// How many of `times` (each iteration's time, in run order) are warm-up: over kWarmupFactor x
// their median.
int warmupIterations(const std::vector<TimeNs> &times);

} // namespace gml
