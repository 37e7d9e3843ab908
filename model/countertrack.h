// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sqlitedb.h"
#include "types.h"

#include <QString>

#include <optional>
#include <vector>

namespace gml {

class Project;

// One counter track in memory: samples sorted by time, on the project clock. A sample's value
// holds until the next sample (step semantics, as Perfetto draws counters). Immutable once built.
class CounterTrack
{
public:
    CounterTrack() = default;
    static CounterTrack build(std::vector<std::pair<TimeNs, double>> samples);
    static CounterTrack load(Project &project, TrackId track, QString *error);
    // The same with a statement from prepareLoad(), reused across tracks (preparing one per
    // track was most of the time to open a capture of 200,000 one-slice tracks).
    static SqliteStatement prepareLoad(Project &project);
    static CounterTrack load(SqliteStatement &statement, TrackId track, QString *error);
    // A track that grew since `old` was loaded (a followed log): `old` with the samples after
    // its last one appended, read with prepareLoadAfter()'s statement; nullopt when `old` is
    // empty or the read failed. The caller compares the size with the track's count: samples
    // that did not come after `old`'s last one mean the track must be loaded whole.
    static SqliteStatement prepareLoadAfter(Project &project);
    static std::optional<CounterTrack> loadAfter(SqliteStatement &statement, const CounterTrack &old, TrackId track,
                                                 QString *error);

    size_t size() const { return m_ts.size(); }
    bool isEmpty() const { return m_ts.empty(); }
    TimeNs ts(size_t i) const { return m_ts[i]; }
    double value(size_t i) const { return m_value[i]; }
    double minValue() const { return m_min; }
    double maxValue() const { return m_max; }
    // Index of the first sample at or after t.
    size_t lowerBound(TimeNs t) const;
    // Index of the sample in effect at t (the last one at or before t), else -1.
    qint64 sampleAt(TimeNs t) const;
    size_t memoryBytes() const { return m_ts.capacity() * sizeof(TimeNs) + m_value.capacity() * sizeof(double); }

private:
    std::vector<TimeNs> m_ts;
    std::vector<double> m_value;
    double m_min = 0;
    double m_max = 0;
};

} // namespace gml
