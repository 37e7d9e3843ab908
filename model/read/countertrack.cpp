// SPDX-License-Identifier: GPL-3.0-or-later
#include "countertrack.h"

#include "project.h"

#include <algorithm>

namespace gml {

void CounterTrack::append(TimeNs t, double v)
{
    if (m_segments.empty() || m_segments.back()->ts.size() == kSegmentSize) {
        m_segments.push_back(std::make_shared<Segment>());
        m_ts.push_back(nullptr);
        m_value.push_back(nullptr);
    }
    Segment &seg = *m_segments.back();
    seg.ts.push_back(t);
    seg.value.push_back(v);
    m_ts.back() = seg.ts.data(); // it may have moved
    m_value.back() = seg.value.data();
    m_min = m_size == 0 ? v : std::min(m_min, v);
    if (m_size == 0 || v > m_max)
        m_maxAt = t;
    m_max = m_size == 0 ? v : std::max(m_max, v);
    ++m_size;
}

CounterTrack CounterTrack::build(std::vector<std::pair<TimeNs, double>> samples)
{
    std::stable_sort(samples.begin(), samples.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    CounterTrack c;
    c.m_segments.reserve(samples.size() / kSegmentSize + 1);
    for (size_t i = 0; i < samples.size(); ++i) {
        if (i % kSegmentSize == 0) { // each segment holds what it will hold, no more
            auto seg = std::make_shared<Segment>();
            seg->ts.reserve(std::min(kSegmentSize, samples.size() - i));
            seg->value.reserve(seg->ts.capacity());
            c.m_segments.push_back(std::move(seg));
            c.m_ts.push_back(nullptr);
            c.m_value.push_back(nullptr);
        }
        c.append(samples[i].first, samples[i].second);
    }
    return c;
}

CounterTrack CounterTrack::load(CounterRowReader &reader, TrackId track, QString *error)
{
    std::vector<std::pair<TimeNs, double>> in;
    if (!reader.read(track, in, error))
        return {};
    return build(std::move(in));
}

std::optional<CounterTrack> CounterTrack::loadAfter(CounterRowReader &after,
                                                    const CounterTrack &old, TrackId track,
                                                    QString *error)
{
    if (old.isEmpty())
        return std::nullopt;
    std::vector<std::pair<TimeNs, double>> added;
    if (!after.read(track, added, error, old.ts(old.size() - 1)))
        return std::nullopt;
    // The full segments are shared; the last, partial one is copied before samples are
    // appended to it.
    CounterTrack c = old;
    if (c.m_segments.back()->ts.size() < kSegmentSize) {
        c.m_segments.back() = std::make_shared<Segment>(*c.m_segments.back());
        c.m_ts.back() = c.m_segments.back()->ts.data();
        c.m_value.back() = c.m_segments.back()->value.data();
    }
    for (const auto &[ts, value] : added)
        c.append(ts, value);
    return c;
}

CounterTrack CounterTrack::load(Project &project, TrackId track, QString *error)
{
    CounterRowReader reader(project);
    return load(reader, track, error);
}

template <bool after> size_t CounterTrack::bound(TimeNs t) const
{
    // The segment holding the bound: the first whose last sample passes t.
    auto passes = [t](TimeNs x) { return after ? x > t : x >= t; };
    const auto seg = std::partition_point(m_segments.begin(), m_segments.end(),
                                          [&](const auto &s) { return !passes(s->ts.back()); });
    if (seg == m_segments.end())
        return m_size;
    const auto &ts = (*seg)->ts;
    const auto in = after ? std::upper_bound(ts.begin(), ts.end(), t)
                          : std::lower_bound(ts.begin(), ts.end(), t);
    return (size_t(seg - m_segments.begin()) << kSegmentBits) + size_t(in - ts.begin());
}

size_t CounterTrack::lowerBound(TimeNs t) const
{
    return bound<false>(t);
}

qint64 CounterTrack::sampleAt(TimeNs t) const
{
    return qint64(bound<true>(t)) - 1;
}

size_t CounterTrack::memoryBytes() const
{
    size_t bytes = 0;
    for (const auto &s : m_segments)
        bytes += s->ts.capacity() * sizeof(TimeNs) + s->value.capacity() * sizeof(double);
    return bytes;
}

size_t CounterTrack::sharedSegments(const CounterTrack &other) const
{
    size_t n = 0;
    for (size_t i = 0; i < std::min(m_segments.size(), other.m_segments.size()); ++i)
        n += m_segments[i] == other.m_segments[i] ? 1 : 0;
    return n;
}

} // namespace gml
