// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the two replays (replay.cpp: in measured order; scheduledreplay.cpp: event-driven,
// for priorities and flows); not part of the simulator's interface.
#pragma once

#include "replay.h"
#include "tracewriter.h"

#include <optional>

namespace gml::sim::detail {

// `at` plus a duration, saturated at the project's time limit: work that adds up past it, or a
// flow over a link of almost no bandwidth, must never wrap into a negative time. Callers that
// find a time at the limit refuse the result (the strategy simulator) or never get there (the
// what-if checks the total work first).
inline TimeNs later(TimeNs at, TimeNs by)
{
    return by > kMaxAbsTimeNs - at ? kMaxAbsTimeNs : at + by;
}

// The replay from the time points and the input point that set each (-1: the origin): node
// times, the finish and the critical path's breakdown, walked back from the last end.
Replay assemble(const DependencyGraph &graph, const ReplayInput &input,
                const std::vector<TimeNs> &t, const std::vector<int> &bound);

// The event-driven replay for resources with priorities and for flows (replay.h). Nullopt
// when the order it picks would wait on itself.
std::optional<Replay> replayScheduled(const DependencyGraph &graph, const ReplayInput &input);

} // namespace gml::sim::detail
