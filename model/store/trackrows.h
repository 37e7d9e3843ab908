// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the views' in-memory tracks (model/read) are built from, read from the project on its
// clock: a track's slices or counter samples (one statement reused across the tracks of a
// project: preparing one per track was most of the time to open a capture of 200,000 one-slice
// tracks), the interned names, which tracks are paged from their level-of-detail summaries and
// at what levels, the detail rows in a window, and a run's launch flows.

#include "sqlitedb.h"
#include "types.h"

#include <QString>

#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace gml {

class Project;

// A slice as a timeline row holds it (project clock).
struct TimelineSlice
{
    TimeNs start;
    TimeNs duration;
    SliceId id;
    StringId name;
    int depth = -1; // given (a level-of-detail summary's, slicelod.h), else computed by nesting
};

// The slices of one track by start, on the project clock.
class SliceRowReader
{
public:
    explicit SliceRowReader(Project &project);
    // Into `out` (cleared); false (and *error) when the statement could not be prepared.
    bool read(TrackId track, std::vector<TimelineSlice> &out, QString *error);

private:
    SqliteStatement m_st;
};

// The samples of one counter track by time, on the project clock; or only those after a time.
class CounterRowReader
{
public:
    enum class Mode { All, After };
    CounterRowReader(Project &project, Mode mode = Mode::All);
    // Into `out` (cleared). Mode::After: the samples after `after` (project clock). False (and
    // *error) when the statement could not be prepared, or in Mode::After when a read failed.
    bool read(TrackId track, std::vector<std::pair<TimeNs, double>> &out, QString *error,
              TimeNs after = 0);

private:
    Mode m_mode;
    SqliteStatement m_st;
};

// A slice whole, as an export writes it out (project clock): its name and category as string
// ids (category 0: none), its args as JSON text (empty: none).
struct SliceRecord
{
    SliceId id = 0;
    TimeNs start = 0, duration = 0;
    StringId name = 0, category = 0;
    qint64 correlation = -1, externalId = -1; // -1: none
    std::string_view args;                    // valid inside the visit only
};
// The slices of one track by start, the enclosing (longer) first where starts are equal.
class SliceRecordReader
{
public:
    explicit SliceRecordReader(Project &project);
    // Calls visit for each; false (and *error) on a read error.
    bool read(TrackId track, const std::function<void(const SliceRecord &)> &visit, QString *error);

private:
    SqliteStatement m_st;
};

// Every interned string (id, text).
std::vector<std::pair<StringId, QString>> allStrings(Project &project);

// A track with slices whose extent and depth were summarised at import (slicelod.h; its
// levels, if it has any, are read by summaryLevels), as the pager needs it: its depth, offset to
// the project clock, extent (its own clock), slices, and in a cluster project the shard holding it
// with its id there.
struct SummarizedTrack
{
    TrackId id = 0;
    qint64 maxDepth = 0;
    TimeNs offset = 0, start = 0, end = 0;
    qint64 slices = 0;
    qint64 shard = 0;     // 0: the project's own
    TrackId storedId = 0; // its id in the shard (0: the project's own)
};
// Empty in projects older than schema 7; *error on a read error.
std::vector<SummarizedTrack> summarizedTracks(Project &project, QString *error);
// The summary levels (shifts) of every track, by track then shift.
std::vector<std::pair<TrackId, int>> summaryLevels(Project &project, QString *error = nullptr);

// The number of slices in the chunks of `track` (its stored id) that overlap [t0, t1) on its
// own clock: an upper bound of what a window of detail would read.
qint64 slicesInWindow(Project &project, TrackId track, TimeNs t0, TimeNs t1);

// The flows of `source` of `kinds` (from, to, kind).
struct FlowRow
{
    SliceId from = 0, to = 0;
    FlowKind kind = FlowKind::TraceFlow;
};
bool flowsOfSource(Project &project, SourceId source, std::initializer_list<FlowKind> kinds,
                   std::vector<FlowRow> &out, QString *error);

} // namespace gml
