// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a shard keeps of its run's analysis beyond the cross-rank facts (rankfacts.h), so that
// `grademl analyze` of a cluster project gives the direct import's report field for field
// (issue 74): each rank's GPUs and iterations as the shard's analysis broke them down (a GPU's
// breakdown needs only its own rank's trace, so the shard's is the direct import's), and, once
// per shard, its kernels with their durations' distributions, its launches, the FLOPs its ranks
// ran and its step time. A reduce adds the shards' kernels, launches and FLOPs up and takes the
// step time of the shard holding the job's lowest rank (the rank whose steps are the run's
// iterations, simulator/replay/iterations.h).
//
// Times are on the source's own clock in the facts; RankDetailMerge puts them on the cluster's.

#include "analysis.h"
#include "findings.h"

#include <QCborMap>

#include <map>
#include <optional>
#include <vector>

namespace gml::sim {

// A shard's own figures, carried by the facts of its first source with GPU work.
struct ShardDetail
{
    std::vector<KernelStat> kernels; // every name, with its durations (KernelStat::durations)
    LaunchStats launch;              // with its delays
    int lowestRank = -1;             // the lowest rank the shard held
    RunSummary summary;              // iterations, step times, warm-up, FLOPs (its ranks')
};

// One source's detail: its rank's GPUs and iterations, and its shard's figures when it is the
// source that carries them.
struct RankDetail
{
    bool carried = false; // false: facts written before issue 74 (none of it kept)
    std::vector<GpuBreakdown> gpus;
    std::vector<IterationBreakdown> iterations;
    std::optional<ShardDetail> shard;
};

// Into a facts map / out of one (absent keys: not carried). False when a key is there but
// damaged.
void detailToCbor(const RankDetail &detail, QCborMap &into);
[[nodiscard]] bool detailFromCbor(const QCborMap &from, RankDetail *detail);

// The detail of a cluster's sources, reduced.
class RankDetailMerge
{
public:
    // One source's detail, its times put on the cluster's clock by `offset`.
    void add(RankDetail detail, TimeNs offset);
    // Fills the analysis's GPUs and iterations (by rank), kernels (by time) and launches, and
    // the summary's iterations, step times, warm-up and FLOPs, from what the sources carried.
    void finish(Analysis &cross, RunSummary &summary) const;
    // Sources whose facts were written before the detail was kept.
    int missing() const { return m_missing; }

private:
    std::vector<GpuBreakdown> m_gpus;
    std::vector<IterationBreakdown> m_iterations;
    std::map<QString, KernelStat> m_kernels;
    LaunchStats m_launch;
    int m_lowestRank = -1;
    std::optional<RunSummary> m_steps; // of the shard holding the lowest rank
    bool m_anyShard = false;
    double m_flops = 0, m_hardwareFlops = 0;
    int m_missing = 0;
};

} // namespace gml::sim
