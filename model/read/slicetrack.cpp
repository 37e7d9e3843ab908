// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicetrack.h"

#include "project.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace gml {

SliceTrack SliceTrack::build(std::vector<Input> slices)
{
    std::stable_sort(slices.begin(), slices.end(), [](const Input &a, const Input &b) {
        if (a.start != b.start)
            return a.start < b.start;
        return a.duration > b.duration;
    });
    const size_t n = slices.size();
    const bool given =
        n && std::all_of(slices.begin(), slices.end(), [](const Input &s) { return s.depth >= 0; });
    std::vector<uint16_t> depth(n);
    std::vector<uint32_t> overshoot;
    std::vector<size_t> perDepth;
    Nesting nesting;
    for (size_t i = 0; i < n; ++i) {
        auto &s = slices[i];
        s.duration = std::max<TimeNs>(0, s.duration);
        TimeNs end = s.start + s.duration;
        const size_t d = given
                             ? size_t(std::min(s.depth, int(std::numeric_limits<uint16_t>::max())))
                             : nesting.push(s.start, end);
        if (end != s.start + s.duration) { // clipped to its parent's end: it overshot a little
            overshoot.resize(n, 0);
            overshoot[i] = uint32_t(s.start + s.duration - end);
            s.duration = end - s.start;
        }
        depth[i] = uint16_t(d);
        if (perDepth.size() <= d)
            perDepth.resize(d + 1, 0);
        ++perDepth[d];
    }
    SliceTrack t;
    t.m_clipped = nesting.clipped();
    t.m_depthBegin.assign(perDepth.size() + 1, 0);
    std::partial_sum(perDepth.begin(), perDepth.end(), t.m_depthBegin.begin() + 1);
    t.m_start.resize(n);
    t.m_end.resize(n);
    t.m_id.resize(n);
    t.m_name.resize(n);
    std::vector<size_t> next(t.m_depthBegin.begin(), t.m_depthBegin.end() - 1);
    t.m_minStart = n ? slices.front().start : 0;
    t.m_maxEnd = std::numeric_limits<TimeNs>::min();
    for (size_t i = 0; i < n; ++i) {
        const auto &s = slices[i];
        const size_t k = next[depth[i]]++;
        t.m_start[k] = s.start;
        t.m_end[k] = s.start + s.duration;
        t.m_id[k] = s.id;
        t.m_name[k] = uint32_t(s.name);
        if (!overshoot.empty()) {
            t.m_overshoot.resize(n, 0);
            t.m_overshoot[k] = overshoot[i];
        }
        t.m_maxEnd = std::max(t.m_maxEnd, t.m_end[k]);
    }
    if (!n)
        t.m_maxEnd = 0;
    t.m_blockLongest.resize((n + kBlock - 1) / kBlock);
    for (size_t b = 0; b < t.m_blockLongest.size(); ++b) {
        size_t best = b * kBlock;
        for (size_t k = best + 1; k < std::min(n, (b + 1) * kBlock); ++k)
            if (t.duration(k) > t.duration(best))
                best = k;
        t.m_blockLongest[b] = uint8_t(best - b * kBlock);
    }
    return t;
}

SliceTrack SliceTrack::load(SliceRowReader &reader, TrackId track, QString *error)
{
    std::vector<Input> in;
    if (!reader.read(track, in, error))
        return {};
    return build(std::move(in));
}

SliceTrack SliceTrack::load(Project &project, TrackId track, QString *error)
{
    SliceRowReader reader(project);
    return load(reader, track, error);
}

int SliceTrack::depth(size_t i) const
{
    return int(std::upper_bound(m_depthBegin.begin(), m_depthBegin.end(), i) -
               m_depthBegin.begin()) -
           1;
}

size_t SliceTrack::firstIndex(int d, TimeNs t) const
{
    const auto b = m_end.begin() + ptrdiff_t(depthBegin(d));
    const auto e = m_end.begin() + ptrdiff_t(depthEnd(d));
    // A zero-length slice exactly at t is kept (it would otherwise never be visible).
    auto it = std::lower_bound(b, e, t);
    while (it != e && *it == t && m_start[size_t(it - m_end.begin())] < t)
        ++it;
    return size_t(it - m_end.begin());
}

size_t SliceTrack::lastIndex(int d, TimeNs t) const
{
    const auto b = m_start.begin() + ptrdiff_t(depthBegin(d));
    const auto e = m_start.begin() + ptrdiff_t(depthEnd(d));
    return size_t(std::lower_bound(b, e, t) - m_start.begin());
}

size_t SliceTrack::nextStartingAt(int d, size_t from, TimeNs t) const
{
    // Galloping: the painter asks for the next pixel bucket, usually a few slices away.
    const size_t e = depthEnd(d);
    size_t lo = from, step = 1, hi = from;
    while (hi < e && m_start[hi] < t) {
        lo = hi;
        hi = std::min(e, hi + step);
        step *= 2;
    }
    return size_t(
        std::lower_bound(m_start.begin() + ptrdiff_t(lo), m_start.begin() + ptrdiff_t(hi), t) -
        m_start.begin());
}

qint64 SliceTrack::sliceAt(int d, TimeNs t) const
{
    if (d < 0 || d >= depthCount())
        return -1;
    const size_t last = lastIndex(d, t + 1); // starts at or before t
    if (last == depthBegin(d))
        return -1;
    const size_t i = last - 1;
    return (m_start[i] <= t && t < m_end[i]) ? qint64(i) : -1;
}

qint64 SliceTrack::indexOf(SliceId id) const
{
    const auto it = std::find(m_id.begin(), m_id.end(), id);
    return it == m_id.end() ? -1 : qint64(it - m_id.begin());
}

size_t SliceTrack::longestIn(size_t i, size_t j) const
{
    size_t best = i;
    const auto consider = [&](size_t k) {
        if (duration(k) > duration(best))
            best = k;
    };
    const size_t firstFull = (i + kBlock - 1) / kBlock,
                 lastFull = j / kBlock; // blocks inside [i, j)
    if (firstFull >= lastFull) {
        for (size_t k = i; k < j; ++k)
            consider(k);
        return best;
    }
    for (size_t k = i; k < firstFull * kBlock; ++k)
        consider(k);
    const size_t blocks = lastFull - firstFull;
    const size_t stride = blocks > kLongestBlocks ? blocks / kLongestBlocks : 1;
    for (size_t b = firstFull; b < lastFull; b += stride)
        consider(b * kBlock + m_blockLongest[b]);
    for (size_t k = lastFull * kBlock; k < j; ++k)
        consider(k);
    return best;
}

qint64 SliceTrack::find(SliceId id, TimeNs start) const
{
    for (int d = 0; d < depthCount(); ++d)
        for (size_t i = lastIndex(d, start), e = lastIndex(d, start + 1); i < e; ++i)
            if (m_id[i] == id)
                return qint64(i);
    return -1;
}

TimeNs SliceTrack::selfTime(size_t i) const
{
    const int d = depth(i);
    TimeNs self = duration(i);
    if (d + 1 >= depthCount())
        return self;
    const size_t last = lastIndex(d + 1, m_end[i]);
    for (size_t k = firstIndex(d + 1, m_start[i]); k < last; ++k)
        self -= std::min(m_end[k], m_end[i]) - std::max(m_start[k], m_start[i]);
    return std::max<TimeNs>(0, self);
}

size_t SliceTrack::memoryBytes() const
{
    return m_start.capacity() * sizeof(TimeNs) + m_end.capacity() * sizeof(TimeNs) +
           m_id.capacity() * sizeof(SliceId) + m_name.capacity() * sizeof(uint32_t) +
           m_depthBegin.capacity() * sizeof(size_t) + m_blockLongest.capacity();
}

} // namespace gml
