// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "nesting.h"
#include "trackrows.h"
#include "types.h"

#include <QString>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace gml {

class Project;

// One timeline row held in memory: a struct of arrays grouped by nesting depth, each depth
// sorted by start time. Immutable once built, so it can be shared read-only across threads.
//
// Invariants: depth d holds indices [depthBegin(d), depthEnd(d)); within a depth the slices
// are disjoint (the nesting stack only reuses a depth after its previous slice ended), so both
// start and end are non-decreasing there. That makes "visible between t0 and t1" two binary
// searches per depth (first by end, last by start), and lets the painter skip whole pixel
// buckets with one search (level of detail with one byte per 16 slices for the longest-slice
// colour: 28.1 bytes per slice).
class SliceTrack
{
public:
    using Input = TimelineSlice; // trackrows.h

    SliceTrack() = default;
    // Sorts (start, then longer first so a parent precedes its children), computes nesting
    // (unless every input's depth is given: slices of one depth must then be disjoint) and
    // groups by depth. Durations below zero are clamped to 0.
    static SliceTrack build(std::vector<Input> slices);
    // Loads one track of a project, on the project clock (source offset applied).
    static SliceTrack load(Project &project, TrackId track, QString *error);
    // The same with one reader reused across tracks (trackrows.h).
    static SliceTrack load(SliceRowReader &reader, TrackId track, QString *error);

    size_t size() const { return m_start.size(); }
    bool isEmpty() const { return m_start.empty(); }
    TimeNs start(size_t i) const { return m_start[i]; }
    TimeNs end(size_t i) const { return m_end[i]; }
    // The slice's recorded duration; end() may be earlier, clipped to its parent's end for
    // nesting (clippedCount()).
    TimeNs duration(size_t i) const
    {
        return m_end[i] - m_start[i] + (m_overshoot.empty() ? 0 : TimeNs(m_overshoot[i]));
    }
    SliceId id(size_t i) const { return m_id[i]; }
    StringId nameId(size_t i) const { return m_name[i]; }
    int depth(size_t i) const; // O(log depthCount)
    int depthCount() const
    {
        return int(m_depthBegin.size()) - 1 < 0 ? 0 : int(m_depthBegin.size()) - 1;
    }
    int maxDepth() const { return depthCount() - 1; }
    size_t depthBegin(int d) const { return m_depthBegin[size_t(d)]; }
    size_t depthEnd(int d) const { return m_depthBegin[size_t(d) + 1]; }
    TimeNs minStart() const { return m_minStart; }
    TimeNs maxEnd() const { return m_maxEnd; }
    // Slices drawn clipped to their parent's end, which they overshot by Nesting::kClipNs or
    // less (their end() is the parent's; duration() and the project keep their own).
    qint64 clippedCount() const { return m_clipped; }

    // Within depth d: the smallest index whose slice ends after t (depthEnd(d) if none).
    size_t firstIndex(int d, TimeNs t) const;
    // Within depth d: one past the largest index whose slice starts before t.
    size_t lastIndex(int d, TimeNs t) const;
    // Within depth d, from index `from`: the first index whose slice starts at or after t.
    size_t nextStartingAt(int d, size_t from, TimeNs t) const;
    // Calls f(i) for each slice overlapping the half-open window [t0, t1), depth by depth,
    // each depth in start order. A zero-length slice at t0 counts as visible.
    template <typename F> void forEachVisible(TimeNs t0, TimeNs t1, F &&f) const
    {
        for (int d = 0; d < depthCount(); ++d) {
            const size_t last = lastIndex(d, t1);
            for (size_t i = firstIndex(d, t0); i < last; ++i)
                f(i);
        }
    }
    // The slice at depth d covering t (start <= t < end), else -1.
    qint64 sliceAt(int d, TimeNs t) const;
    // Index of a slice id, else -1 (linear; when only the id is known).
    qint64 indexOf(SliceId id) const;
    // Index of slice `id` that starts at `start`, else -1: O(depths x log n), for painting.
    qint64 find(SliceId id, TimeNs start) const;
    // The index of the longest slice in [i, j) (the first of equals). Exact while the range
    // spans at most kLongestBlocks blocks of kBlock slices; beyond that, the longest of
    // kLongestBlocks evenly spaced blocks (a level-of-detail colour, not a statistic).
    static constexpr size_t kBlock = 16;
    static constexpr size_t kLongestBlocks = 64;
    size_t longestIn(size_t i, size_t j) const;
    // Duration minus the time covered by direct children.
    TimeNs selfTime(size_t i) const;

    // Bytes held per slice, all arrays included (for the memory benchmark).
    size_t memoryBytes() const;

private:
    std::vector<TimeNs> m_start;
    std::vector<TimeNs> m_end;
    std::vector<SliceId> m_id;
    std::vector<uint32_t> m_name;
    std::vector<size_t> m_depthBegin;    // depthCount() + 1 offsets
    std::vector<uint8_t> m_blockLongest; // per kBlock slices: offset of the longest in the block
    TimeNs m_minStart = 0;
    TimeNs m_maxEnd = 0;
    qint64 m_clipped = 0;
    std::vector<uint32_t> m_overshoot; // per slice, past end(); empty when none was clipped
};

} // namespace gml
