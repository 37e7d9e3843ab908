// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "trackrows.h"
#include "types.h"

#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace gml {

class Project;

// One counter track in memory: samples sorted by time, on the project clock. A sample's value
// holds until the next sample (step semantics, as Perfetto draws counters). Immutable once built.
//
// The samples are held in segments of kSegmentSize, shared between the tracks built from one
// another: a followed log's track that grew (loadAfter) shares its full segments with the one
// it grew from and copies only its last, partial one, so a live refresh costs what arrived,
// not what the window already holds.
class CounterTrack
{
public:
    static constexpr int kSegmentBits = 16;
    static constexpr size_t kSegmentSize = size_t(1) << kSegmentBits;

    CounterTrack() = default;
    static CounterTrack build(std::vector<std::pair<TimeNs, double>> samples);
    static CounterTrack load(Project &project, TrackId track, QString *error);
    // The same with one reader reused across tracks (trackrows.h).
    static CounterTrack load(CounterRowReader &reader, TrackId track, QString *error);
    // A track that grew since `old` was loaded (a followed log): `old` with the samples after
    // its last one appended, read with a CounterRowReader of Mode::After; nullopt when `old` is
    // empty or the read failed. The caller compares the size with the track's count: samples
    // that did not come after `old`'s last one mean the track must be loaded whole.
    static std::optional<CounterTrack> loadAfter(CounterRowReader &after, const CounterTrack &old,
                                                 TrackId track, QString *error);

    size_t size() const { return m_size; }
    bool isEmpty() const { return m_size == 0; }
    TimeNs ts(size_t i) const { return m_ts[i >> kSegmentBits][i & (kSegmentSize - 1)]; }
    double value(size_t i) const { return m_value[i >> kSegmentBits][i & (kSegmentSize - 1)]; }
    double minValue() const { return m_min; }
    double maxValue() const { return m_max; }
    TimeNs maxAt() const { return m_maxAt; } // the first sample at the maximum
    // Index of the first sample at or after t.
    size_t lowerBound(TimeNs t) const;
    // Index of the sample in effect at t (the last one at or before t), else -1.
    qint64 sampleAt(TimeNs t) const;
    // The bytes of its segments (those it shares with another track included).
    size_t memoryBytes() const;
    // Segments held in common with `other` (a track grown from it, or it from the track).
    size_t sharedSegments(const CounterTrack &other) const;

private:
    struct Segment
    {
        std::vector<TimeNs> ts;
        std::vector<double> value;
    };
    void append(TimeNs t, double v);
    // Index of the first sample with a time after t (before: at or after t).
    template <bool after> size_t bound(TimeNs t) const;

    std::vector<std::shared_ptr<Segment>> m_segments; // all full but the last; shared once built
    std::vector<const TimeNs *> m_ts;                 // each segment's data, for ts(i)
    std::vector<const double *> m_value;
    size_t m_size = 0;
    double m_min = 0;
    double m_max = 0;
    TimeNs m_maxAt = 0;
};

} // namespace gml
