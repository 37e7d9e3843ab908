// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinedata.h"
#include "types.h"

#include <QSet>
#include <QString>

#include <vector>

namespace gml {

// Fixed sizes of the timeline, in device-independent pixels.
struct TimelineMetrics
{
    int labelWidth = 280;   // the resource tree column at the left
    int overviewHeight = 30;
    int rulerHeight = 24;
    int depthHeight = 18;   // one nesting level of slices
    int rowPadding = 3;
    int groupHeight = 22;   // a run or a track with no data of its own
    int counterHeight = 46;
    int indent = 14;
    int headerHeight() const { return overviewHeight + rulerHeight; }
};

// One row of the timeline: a run header or a track. y is in content coordinates (0 = first row).
struct TimelineRow
{
    enum class Type { Run, Track };
    Type type = Type::Track;
    RunId run = 0;
    TrackId track = 0;
    TrackKind kind = TrackKind::Thread;
    QString label;
    QString unit;
    int indent = 0;
    bool hasChildren = false;
    bool expanded = true;
    int y = 0;
    int height = 0;
    int depthCount = 0;     // slice rows
    bool isCounter = false;
    // The key used by the collapsed/hidden sets: the track id, or -run id for a run.
    qint64 key() const { return type == Type::Run ? -run : track; }
};

// The rows shown, top to bottom: run -> tracks depth-first, siblings by sort index. A collapsed
// row keeps its own content and hides its descendants; a hidden row hides itself and them.
class TimelineLayout
{
public:
    void build(const TimelineData &data, const QSet<qint64> &collapsed, const QSet<qint64> &hidden,
               const TimelineMetrics &metrics = {});

    const std::vector<TimelineRow> &rows() const { return m_rows; }
    int contentHeight() const { return m_contentHeight; }
    // Index of the row containing content y, else -1.
    int rowAt(int y) const;
    int rowOfTrack(TrackId track) const;
    // Slice tracks in row order (for find and the aggregate table).
    QList<TrackId> sliceTracks() const;
    // Bumped by each build: the painters' geometry caches key on it.
    quint64 version() const { return m_version; }

private:
    std::vector<TimelineRow> m_rows;
    int m_contentHeight = 0;
    quint64 m_version = 0;
};

} // namespace gml
