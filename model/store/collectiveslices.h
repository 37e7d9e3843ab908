// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QString>

#include <vector>

namespace gml {

class Project;

// A collective kernel of a run as stored (NCCL / RCCL, named ...ccl...): its GPU stream, rank,
// start on the run's aligned clock, duration, name and args (Kineto's "Collective name", "In
// msg nelems", "Group size", "dtype", "Process Group Name", "Process Group Ranks" where
// recorded), in no particular order.
struct CollectiveSlice
{
    SliceId id = 0;
    TrackId track = 0;
    int rank = -1;
    TimeNs start = 0;
    TimeNs dur = 0;
    QString name;
    QString args; // JSON text, empty when none
};

// Every slice of a stream track of `run` whose name holds "ccl" (the caller keeps the
// collective kernels among them). A cluster project keeps its slices in its shards: *error
// says so and nothing is returned.
std::vector<CollectiveSlice> collectiveSlices(Project &project, RunId run, QString *error);

} // namespace gml
