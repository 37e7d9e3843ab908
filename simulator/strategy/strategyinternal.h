// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the strategy simulator's files: building the job graph, its metrics and its run.
#pragma once

#include "strategy.h"

namespace gml::sim::detail {

// The job's dependency graph and flows into result.graph / result.flows, with
// result.resources and result.iterationOfNode; the configuration was checked.
void buildJob(const SimConfig &config, SimResult &result);

// Each worker's iterations: [start, end) on the project clock, per worker then iteration.
std::vector<std::vector<std::pair<TimeNs, TimeNs>>> iterationSpans(const SimResult &result);

} // namespace gml::sim::detail
