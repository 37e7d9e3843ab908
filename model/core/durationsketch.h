// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A distribution of durations that merges: what a shard keeps of its kernels' (and launch
// delays') durations so that a cluster project gives the percentiles of all ranks together
// (issue 74) without holding every duration. Up to kExact values are kept as they are (their
// quantiles exact); past that, counts in logarithmic buckets of ratio kGamma (DDSketch's
// scheme, Masson et al., VLDB 2019), each bucket answered by its middle, so any quantile is
// within (kGamma - 1) / (kGamma + 1), 0.5%, of the value a sorted list gives, and never outside
// the smallest and largest value seen. Quantiles are nearest-rank, as the analysis's
// (simulator/analysis/analysis.cpp: the value at round(p x (n - 1)) of the sorted list).

#include "types.h"

#include <QCborValue>

#include <optional>
#include <utility>
#include <vector>

namespace gml {

class DurationSketch
{
public:
    static constexpr size_t kExact = 128;
    static constexpr double kGamma = 1.01;

    // From a sorted list (ascending): linear, one logarithm per bucket met.
    static DurationSketch fromSorted(const std::vector<TimeNs> &sorted);
    void merge(const DurationSketch &other);

    qint64 count() const { return m_count; }
    bool isExact() const { return m_buckets.empty(); }
    // The value at nearest rank round(p x (count - 1)); 0 when empty.
    TimeNs quantile(double p) const;
    TimeNs max() const { return m_count > 0 ? m_max : 0; }

    QCborValue toCbor() const;
    // nullopt when `v` is not a sketch toCbor wrote (damaged facts).
    static std::optional<DurationSketch> fromCbor(const QCborValue &v);

private:
    void toBuckets();
    static int bucketOf(TimeNs d);
    std::vector<TimeNs> m_exact;                   // sorted, while exact
    std::vector<std::pair<int, qint64>> m_buckets; // bucket, count; ascending
    qint64 m_count = 0;
    TimeNs m_min = 0, m_max = 0;
};

} // namespace gml
