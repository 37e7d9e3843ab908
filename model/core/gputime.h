// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Unions of time intervals, and the partition of a GPU's time over a window that the analyses
// (simulator/analysis) and the summaries written at import (sourcesummary.h) share.

#include "types.h"

#include <utility>
#include <vector>

namespace gml {

using Intervals = std::vector<std::pair<TimeNs, TimeNs>>;

// Intervals [start, end) merged where they overlap or touch, in order.
Intervals unite(Intervals intervals);
// The total length of a union (sorted, disjoint).
TimeNs length(const Intervals &u);
// The length of the intersection of two unions (sorted, disjoint).
TimeNs overlap(const Intervals &x, const Intervals &y);
// The length of [a, b) covered by a union (sorted, disjoint): a binary search, then only the
// intervals that meet it.
TimeNs overlap(const Intervals &x, TimeNs a, TimeNs b);
// The union of two unions.
Intervals joined(const Intervals &x, const Intervals &y);

// Where one GPU's time goes over a window. The window is partitioned: an instant counts as
// compute when a kernel runs, else communication when a collective does, else copies when a
// memcpy or memset does, else idle (HTA's temporal breakdown, with overlap resolved in that
// order).
struct GpuTime
{
    TimeNs window = 0;
    TimeNs compute = 0;
    TimeNs communication = 0;
    TimeNs copies = 0;
    TimeNs idle = 0;
    TimeNs busy() const { return window - idle; }
};

struct GpuPartition
{
    GpuTime time;
    TimeNs communicationTotal = 0;      // collectives' union, overlapped or not
    TimeNs communicationOverlapped = 0; // of it, the part during compute
    Intervals busy;                     // the union of all the work
};
// The partition of a window of `window` ns from the work in it (each list any order, clipped
// to the window by the caller).
GpuPartition partitionGpuTime(TimeNs window, Intervals compute, Intervals communication,
                              Intervals copies);

} // namespace gml
