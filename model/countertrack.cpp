// SPDX-License-Identifier: GPL-3.0-or-later
#include "countertrack.h"

#include "project.h"

#include <algorithm>

namespace gml {

CounterTrack CounterTrack::build(std::vector<std::pair<TimeNs, double>> samples)
{
    std::stable_sort(samples.begin(), samples.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    CounterTrack c;
    c.m_ts.reserve(samples.size());
    c.m_value.reserve(samples.size());
    for (const auto &[t, v] : samples) {
        c.m_ts.push_back(t);
        c.m_value.push_back(v);
    }
    if (!samples.empty()) {
        const auto [lo, hi] = std::minmax_element(c.m_value.begin(), c.m_value.end());
        c.m_min = *lo;
        c.m_max = *hi;
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
    return project.db().prepare(
        "SELECT k.ts + o.off, k.value FROM (SELECT coalesce((SELECT src.clock_offset_ns + src.align_ns FROM track t "
        "LEFT JOIN source src ON src.id = t.source_id WHERE t.id = ?1), 0) AS off) o CROSS JOIN counter k "
        "WHERE k.track_id = ?1 AND k.ts > ?2 - o.off ORDER BY k.ts");
}

std::optional<CounterTrack> CounterTrack::loadAfter(SqliteStatement &st, const CounterTrack &old, TrackId track,
                                                    QString *error)
{
    if (!st.isValid() || old.isEmpty()) {
        if (error && !st.isValid())
            *error = st.errorString();
        return std::nullopt;
    }
    st.reset();
    st.bind(1, track);
    st.bind(2, old.m_ts.back());
    CounterTrack c;
    c.m_ts.reserve(old.m_ts.size() + 1024);
    c.m_value.reserve(old.m_value.size() + 1024);
    c.m_ts = old.m_ts;
    c.m_value = old.m_value;
    c.m_min = old.m_min;
    c.m_max = old.m_max;
    while (st.step()) {
        const TimeNs t = st.int64(0);
        const double v = st.real(1);
        c.m_ts.push_back(t);
        c.m_value.push_back(v);
        c.m_min = std::min(c.m_min, v);
        c.m_max = std::max(c.m_max, v);
    }
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

size_t CounterTrack::lowerBound(TimeNs t) const
{
    return size_t(std::lower_bound(m_ts.begin(), m_ts.end(), t) - m_ts.begin());
}

qint64 CounterTrack::sampleAt(TimeNs t) const
{
    const auto it = std::upper_bound(m_ts.begin(), m_ts.end(), t);
    return it == m_ts.begin() ? -1 : qint64(it - m_ts.begin()) - 1;
}

} // namespace gml
