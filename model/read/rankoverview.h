// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The rank overview of a run: one lane per GPU of every rank, from the source summaries
// written at import (sourcesummary.h), so that a 1,024-rank job is drawn without reading a
// slice: each lane's busy and communication heat over the run, its rank's iterations, and what
// ranks it (byHoldUp: how late it arrived last at collectives, else how little it waited in
// them). Times are on the project clock.

#include "sourcesummary.h"
#include "types.h"

#include <QString>

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace gml {

class Project;

struct RankLane
{
    int rank = -1;
    QString device;
    SourceId source = 0;
    TimeNs start = 0; // the GPU's window
    TimeNs end = 0;
    TimeNs work = 0;          // compute and copies (busy time not spent only in collectives)
    TimeNs communication = 0; // collectives not overlapped with compute
    // Its time in collectives (overlapped or not) after RankOverview::steadyFrom, from the heat
    // (to a bucket's width): what Slowest / Fastest rank by in steady state.
    TimeNs steadyCommunication = 0;
    SourceWork::Activity activity;                     // `from` on the project clock
    std::vector<std::pair<TimeNs, TimeNs>> iterations; // its rank's, by start
};

struct RankOverview
{
    TimeNs origin = 0; // the earliest window start and the latest end
    TimeNs end = 0;
    std::vector<RankLane> lanes; // by rank, then device
    // Steady state (steadystate.h): each rank's warm-up iterations found from its own; the
    // overview's steady state starts where the last rank's does (`origin` when no rank has
    // warm-up), and `warmup` is the most warm-up iterations a rank has. A job whose ranks start
    // one after another waits longest in its first step: that says nothing about the steps after.
    TimeNs steadyFrom = 0;
    int warmup = 0;

    // A lane's busy and communication share in `columns` equal columns over [a, b) (0..1 each,
    // the mean of the buckets a column covers; -1 where the lane has no activity).
    static void shares(const RankLane &lane, TimeNs a, TimeNs b, int columns, float *busy,
                       float *communication);
    // The lanes by their own work, most first (ties by rank).
    std::vector<int> byWork() const;
    // The lanes by how much they hold the others up, most first (issue 57: "Slowest" picked
    // the victim, the rank with the most own work that then waited 11 ms in communication):
    // first by their rank's time on the critical path (`criticalByRank`, from an analysis),
    // then by how late it arrived last at collectives (`lateByRank`: the summed lateness of
    // its last arrivals), then by the least time waiting in communication (the rank the others
    // wait for waits the least: in steady state unless `withWarmup`), then by rank. Empty maps:
    // unknown.
    std::vector<int> byHoldUp(const std::map<int, TimeNs> &lateByRank = {},
                              const std::map<int, TimeNs> &criticalByRank = {},
                              bool withWarmup = false) const;
    // How much each lane stands out as holding the others up over [a, b), 0..1: the larger of
    // how little it waited in communication there against the lanes' median (1: not at all,
    // where the median lane waited; the rank the others wait for waits least) and its rank's
    // lateness at collectives against the latest rank's (`lateByRank`, once an analysis has
    // found the last arrivals). Over a window, not the run: a job whose ranks start one after
    // another waits longest in its first step, which says nothing about the steps after.
    std::vector<float> standOut(TimeNs a, TimeNs b,
                                const std::map<int, TimeNs> &lateByRank = {}) const;
};

// The overview of a run's GPUs; an empty one for a run without GPU work. nullopt (and `error`)
// on a database error.
std::optional<RankOverview> loadRankOverview(Project &project, RunId run, QString *error);

} // namespace gml
