// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace gml {

class Project;

// One timeline row held in memory: a struct of arrays sorted by start time (ties: the longer
// slice first, so a parent precedes its children). Immutable once built, so it can be shared
// read-only across threads.
//
// Invariants: start[i] <= start[i+1]; end[i] >= start[i]; depth is the number of enclosing
// slices on the nesting stack; blockMaxEnd[b] = max end over slices [0, (b+1)*kBlock).
// Visible-range lookup is O(log n): lastIndex by binary search on start, firstIndex by binary
// search on the block prefix maxima of end followed by a scan of at most one block.
class SliceTrack
{
public:
    static constexpr size_t kBlock = 64;

    struct Input
    {
        TimeNs start;
        TimeNs duration;
        SliceId id;
        StringId name;
    };

    SliceTrack() = default;
    // Sorts, computes nesting and the lookup index. Durations below zero are clamped to 0.
    static SliceTrack build(std::vector<Input> slices);
    // Loads one track of a project, on the project clock (source offset applied).
    static SliceTrack load(Project &project, TrackId track, QString *error);

    size_t size() const { return m_start.size(); }
    bool isEmpty() const { return m_start.empty(); }
    TimeNs start(size_t i) const { return m_start[i]; }
    TimeNs end(size_t i) const { return m_end[i]; }
    TimeNs duration(size_t i) const { return m_end[i] - m_start[i]; }
    SliceId id(size_t i) const { return m_id[i]; }
    StringId nameId(size_t i) const { return m_name[i]; }
    int depth(size_t i) const { return m_depth[i]; }
    int maxDepth() const { return m_maxDepth; }

    // Smallest index whose slice ends after t; every slice before it ends at or before t.
    size_t firstIndex(TimeNs t) const;
    // One past the largest index whose slice starts before t.
    size_t lastIndex(TimeNs t) const;
    // Calls f(i) for each slice overlapping the half-open window [t0, t1), in start order.
    template <typename F> void forEachVisible(TimeNs t0, TimeNs t1, F &&f) const
    {
        const size_t last = lastIndex(t1);
        for (size_t i = firstIndex(t0); i < last; ++i)
            if (m_end[i] > t0)
                f(i);
    }

    // Bytes held per slice, all arrays included (for the memory benchmark).
    size_t memoryBytes() const;

private:
    std::vector<TimeNs> m_start;
    std::vector<TimeNs> m_end;
    std::vector<SliceId> m_id;
    std::vector<uint32_t> m_name;
    std::vector<uint16_t> m_depth;
    std::vector<TimeNs> m_blockMaxEnd;
    int m_maxDepth = 0;
};

} // namespace gml
