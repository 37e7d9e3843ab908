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

SqliteStatement CounterTrack::prepareLoad(Project &project)
{
    return project.db().prepare(
        "SELECT k.ts + coalesce(src.clock_offset_ns + src.align_ns, 0), k.value FROM counter k "
        "JOIN track t ON t.id = k.track_id LEFT JOIN source src ON src.id = t.source_id "
        "WHERE k.track_id = ? ORDER BY k.ts");
}

CounterTrack CounterTrack::load(SqliteStatement &st, TrackId track, QString *error)
{
    if (!st.isValid()) {
        if (error)
            *error = st.errorString();
        return {};
    }
    st.reset();
    st.bind(1, track);
    std::vector<std::pair<TimeNs, double>> in;
    while (st.step())
        in.emplace_back(st.int64(0), st.real(1));
    return build(std::move(in));
}

SqliteStatement CounterTrack::prepareLoadAfter(Project &project)
{
    // The track's clock offset is one number, read first: the index on (track_id, ts) then
    // finds the new rows.
    return project.db().prepare("SELECT k.ts + o.off, k.value FROM (SELECT coalesce((SELECT "
                                "src.clock_offset_ns + src.align_ns FROM track t "
                                "LEFT JOIN source src ON src.id = t.source_id WHERE t.id = ?1), 0) "
                                "AS off) o CROSS JOIN counter k "
                                "WHERE k.track_id = ?1 AND k.ts > ?2 - o.off ORDER BY k.ts");
}

std::optional<CounterTrack> CounterTrack::loadAfter(SqliteStatement &st, const CounterTrack &old,
                                                    TrackId track, QString *error)
{
    if (!st.isValid() || old.isEmpty()) {
        if (error && !st.isValid())
            *error = st.errorString();
        return std::nullopt;
    }
    st.reset();
    st.bind(1, track);
    st.bind(2, old.ts(old.size() - 1));
    // The full segments are shared; the last, partial one is copied before samples are
    // appended to it.
    CounterTrack c = old;
    if (c.m_segments.back()->ts.size() < kSegmentSize) {
        c.m_segments.back() = std::make_shared<Segment>(*c.m_segments.back());
        c.m_ts.back() = c.m_segments.back()->ts.data();
        c.m_value.back() = c.m_segments.back()->value.data();
    }
    while (st.step())
        c.append(st.int64(0), st.real(1));
    if (!st.errorString().isEmpty()) {
        if (error)
            *error = st.errorString();
        return std::nullopt;
    }
    return c;
}

CounterTrack CounterTrack::load(Project &project, TrackId track, QString *error)
{
    auto st = prepareLoad(project);
    return load(st, track, error);
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
