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
