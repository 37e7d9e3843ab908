// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "projectsummary.h"
#include "types.h"

#include <QSet>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

namespace gml {

class SliceTrack;

// A CPU thread that only waits: every slice a Python frame and every innermost frame one in
// which the thread blocks (isWaitFrame): a tqdm monitor, threading's bootstrap waiting on a
// condition, a watchdog sleeping. It launches nothing and runs no operator.
// `names`: the project's strings by id.
bool onlyWaits(const SliceTrack &track, const std::vector<QString> &names);

// Finds the runs' threads that only wait (small threads other than a main thread only: at most
// kMaxWaitingSlices slices, given by `slicesOf`, null when they cannot be read) and lists each
// after its siblings in its run's track tree, so a process's working threads and GPUs come first
// (issue 73: a vLLM engine trace opened on "thread 0", a tqdm monitor waiting, above the main
// thread's 128,013 slices). Returns them; the timeline folds them to one row each.
inline constexpr qint64 kMaxWaitingSlices = 4096;
QSet<TrackId>
sortWaitingThreadsLast(QList<RunSummary> &runs, const std::vector<QString> &names,
                       const std::function<std::shared_ptr<const SliceTrack>(TrackId)> &slicesOf);

} // namespace gml
