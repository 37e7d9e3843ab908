// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicetrack.h"

#include "project.h"

#include <algorithm>
#include <limits>

namespace gml {

SliceTrack SliceTrack::build(std::vector<Input> slices)
{
    std::stable_sort(slices.begin(), slices.end(), [](const Input &a, const Input &b) {
        if (a.start != b.start)
            return a.start < b.start;
        return a.duration > b.duration;
    });
    SliceTrack t;
    const size_t n = slices.size();
    t.m_start.resize(n);
    t.m_end.resize(n);
    t.m_id.resize(n);
    t.m_name.resize(n);
    t.m_depth.resize(n);
    // Nesting: a stack of open ends. A slice nests under the top if it starts before the top
    // ends; slices that end first are popped. A slice that overlaps its parent's end (bad
    // input) still gets the next depth, so it never hides under its neighbour.
    std::vector<TimeNs> stack;
    for (size_t i = 0; i < n; ++i) {
        const auto &s = slices[i];
        const TimeNs end = s.start + std::max<TimeNs>(0, s.duration);
        while (!stack.empty() && stack.back() <= s.start)
            stack.pop_back();
        t.m_start[i] = s.start;
        t.m_end[i] = end;
        t.m_id[i] = s.id;
        t.m_name[i] = uint32_t(s.name);
        const size_t depth = std::min<size_t>(stack.size(), std::numeric_limits<uint16_t>::max());
        t.m_depth[i] = uint16_t(depth);
        t.m_maxDepth = std::max(t.m_maxDepth, int(depth));
        stack.push_back(end);
    }
    const size_t blocks = (n + kBlock - 1) / kBlock;
    t.m_blockMaxEnd.resize(blocks);
    TimeNs running = std::numeric_limits<TimeNs>::min();
    for (size_t b = 0; b < blocks; ++b) {
        const size_t hi = std::min(n, (b + 1) * kBlock);
        for (size_t i = b * kBlock; i < hi; ++i)
            running = std::max(running, t.m_end[i]);
        t.m_blockMaxEnd[b] = running;
    }
    return t;
}

SliceTrack SliceTrack::load(Project &project, TrackId track, QString *error)
{
    auto st = project.db().prepare(
        "SELECT s.ts + coalesce(src.clock_offset_ns, 0), s.dur, s.id, s.name_id FROM slice s "
        "JOIN track t ON t.id = s.track_id LEFT JOIN source src ON src.id = t.source_id "
        "WHERE s.track_id = ? ORDER BY s.ts");
    if (!st.isValid()) {
        if (error)
            *error = st.errorString();
        return {};
    }
    st.bind(1, track);
    std::vector<Input> in;
    while (st.step())
        in.push_back({st.int64(0), st.int64(1), st.int64(2), st.int64(3)});
    return build(std::move(in));
}

size_t SliceTrack::firstIndex(TimeNs t) const
{
    // First block whose prefix max end exceeds t, then the first slice in it ending after t.
    const auto it = std::upper_bound(m_blockMaxEnd.begin(), m_blockMaxEnd.end(), t);
    if (it == m_blockMaxEnd.end())
        return size();
    const size_t b = size_t(it - m_blockMaxEnd.begin());
    const size_t hi = std::min(size(), (b + 1) * kBlock);
    for (size_t i = b * kBlock; i < hi; ++i)
        if (m_end[i] > t)
            return i;
    return hi; // unreachable: the block's maximum exceeds t
}

size_t SliceTrack::lastIndex(TimeNs t) const
{
    return size_t(std::lower_bound(m_start.begin(), m_start.end(), t) - m_start.begin());
}

size_t SliceTrack::memoryBytes() const
{
    return m_start.capacity() * sizeof(TimeNs) + m_end.capacity() * sizeof(TimeNs) +
           m_id.capacity() * sizeof(SliceId) + m_name.capacity() * sizeof(uint32_t) +
           m_depth.capacity() * sizeof(uint16_t) + m_blockMaxEnd.capacity() * sizeof(TimeNs);
}

} // namespace gml
