// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How slices nest on a row, shared by the tracks built in memory (model/read/slicetrack.h) and
// the level-of-detail summaries written at import (model/store/slicelod.h).

#include "types.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace gml {

// Whether a slice shows in the half-open window [t0, t1): it overlaps it, or it has no length
// and lies at t0 or inside (the convention of SliceTrack::firstIndex). For rows read from the
// project (the pager's window, a summary piece), before they are built into a SliceTrack.
inline bool inWindow(TimeNs start, TimeNs duration, TimeNs t0, TimeNs t1)
{
    return start < t1 && (start + duration > t0 || (duration <= 0 && start >= t0));
}

// Nesting depth of slices fed in canonical order (start, then longer first): a stack of open
// ends. A slice nests under the top if it starts before the top ends; slices that end first
// are popped. A slice that ends after its parent by kClipNs or less nests clipped to its
// parent's end (`end` is set to it, counted in clipped()): issue 73, a Python frame that ends
// 3 us after the next ProfilerStep begins (the profiler's own step()) pushed each step a level
// deeper, a staircase a level a step on every trace recorded with stacks. One that overlaps its
// parent's end by more (bad input) still gets the next depth, so it never hides under its
// neighbour; a depth is only reused after its previous slice ended, so slices of one depth
// never overlap. Shared by SliceTrack::build and the summaries.
class Nesting
{
public:
    static constexpr TimeNs kClipNs = 20'000;

    uint16_t push(TimeNs start, TimeNs &end)
    {
        while (!m_stack.empty() && m_stack.back() <= start)
            m_stack.pop_back();
        if (!m_stack.empty() && end > m_stack.back() && end - m_stack.back() <= kClipNs) {
            end = m_stack.back();
            ++m_clipped;
        }
        const size_t d = std::min<size_t>(m_stack.size(), std::numeric_limits<uint16_t>::max());
        if (m_stack.size() < std::numeric_limits<uint16_t>::max())
            m_stack.push_back(end);
        return uint16_t(d);
    }
    qint64 clipped() const { return m_clipped; }

private:
    std::vector<TimeNs> m_stack;
    qint64 m_clipped = 0;
};

} // namespace gml
