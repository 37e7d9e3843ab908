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
// are popped. A slice that overlaps its parent's end (bad input) still gets the next depth, so
// it never hides under its neighbour; a depth is only reused after its previous slice ended,
// so slices of one depth never overlap. Shared by SliceTrack::build and the summaries.
class Nesting
{
public:
    uint16_t push(TimeNs start, TimeNs end)
    {
        while (!m_stack.empty() && m_stack.back() <= start)
            m_stack.pop_back();
        const size_t d = std::min<size_t>(m_stack.size(), std::numeric_limits<uint16_t>::max());
        if (m_stack.size() < std::numeric_limits<uint16_t>::max())
            m_stack.push_back(end);
        return uint16_t(d);
    }

private:
    std::vector<TimeNs> m_stack;
};

} // namespace gml
