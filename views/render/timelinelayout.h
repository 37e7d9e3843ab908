// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slicequery.h"
#include "timelinedata.h"
#include "types.h"

#include <QFontMetricsF>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <vector>

namespace gml {

// Fixed sizes of the timeline, in device-independent pixels.
struct TimelineMetrics
{
    int labelWidth = 280; // the resource tree column at the left
    int overviewHeight = 30;
    int rulerHeight = 24;
    int noteHeight = 0;   // a strip above the ruler for the notes' flags, when there are notes
    int depthHeight = 18; // one nesting level of slices
    int rowPadding = 3;
    int groupHeight = 22; // a run or a track with no data of its own
    int counterHeight = 46;
    int summaryHeight = 12; // a collapsed row drawing what it holds, a rank as one row
    int indent = 14;
    int headerHeight() const { return overviewHeight + noteHeight + rulerHeight; }
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
    int depthCount = 0; // slice rows
    bool isCounter = false;
    TimeNs shift = 0;    // its run's: track time = view time + shift (TimelineState)
    bool pinned = false; // in the pinned band above the rows (y from the band's top)
    // A summary row: a collapsed row with no slices of its own, or a rank shown as one row.
    // It draws the activity of the slice tracks it holds (busy share per pixel by class):
    // their GPU streams when it holds any (`summaryOnGpu`), else their threads.
    std::vector<TrackId> summarised;
    bool summaryOnGpu = false;
    bool isSummary() const { return !summarised.empty(); }
    // A thread that only waits (TimelineData::waitingThreads): it folds to one summary row of
    // itself, as a parent row collapses.
    bool waitsOnly = false;
    bool foldable() const { return hasChildren || waitsOnly; }
    // The key used by the collapsed/hidden sets: the track id, or -run id for a run.
    qint64 key() const { return type == Type::Run ? -run : track; }
};

// A row's label in a figure, where the rows above it say the rest: "main thread",
// "thread 59976", "rank 0", "GPU 0 · V100", "stream 7" (the studio's "thread 59811 (python3) ·
// main thread", "rank 0 · python3 (pid 59811)", "rank 0 · GPU 0 · Tesla V100-SXM2-32GB").
QString figureLabel(const TimelineRow &row);
// A row label in `width` pixels: whole, else its first part (" · " separates them) and as many of
// its last parts as fit, the middle ones left out whole ("rank 0 · … · Tesla V100-SXM2-32GB";
// issue 73: "Te...XM2-32GB" cut words in the middle), else its first part cut at the end.
QString elideParts(const QFontMetricsF &fm, const QString &label, double width);
// "V100" for "Tesla V100-SXM2-32GB", "A100" for "NVIDIA A100-SXM4-80GB", "MI250X" for "AMD
// Instinct MI250X": the model people name in a paper.
QString shortDeviceName(const QString &device);

// The runs a layout shows (TimelineState::focusRuns): empty shows every run on the project clock.
struct TimelineFocus
{
    QList<RunId> runs;
    bool projectClock = false;
    // Ranks as summary rows: every rank's tracks (its processes and GPUs) drawn as one compact
    // row of its GPU streams' activity (its threads' when it has no GPU), so 60 and more ranks
    // fit a 1080-px screen; tracks of no rank are laid out as usual.
    bool rankRows = false;
};

// Which tracks are shown within the runs in focus: those whose name (with their ancestors') holds
// `text`, of one side only (GPU devices and streams, or everything else: the CPU side and its
// counters), with their ancestors for context; `pinned` tracks in a band of their own at the top.
struct TimelineTrackFilter
{
    enum class Only { All, Gpu, Cpu };
    QString text;
    Only only = Only::All;
    QList<TrackId> pinned;
    // Non-empty: only these tracks (with their ancestors for context), as a figure of chosen
    // tracks lays them out.
    QSet<TrackId> chosen;
    // The tracks whose slices' names hold `text` (tracksHolding, found off the GUI thread).
    // Names first (issue 73: on DLRM, "nccl" kept every CPU thread that called NCCL, so nothing
    // narrowed): they are kept as a name match is only with `keepHolding` (Rows › Keep Tracks
    // Holding Matches), so "nccl" then keeps the streams that ran NCCL kernels.
    QSet<TrackId> holding;
    bool keepHolding = false;
    bool active() const
    {
        return !text.trimmed().isEmpty() || only != Only::All || !chosen.isEmpty();
    }
};

// The rows shown, top to bottom: run -> tracks depth-first, siblings by sort index. A collapsed
// row keeps its own content and hides its descendants; a hidden row hides itself and them.
// Only the runs in focus are laid out, in the focus' order (a run not in the project is left
// out); the what-if panel's live prediction follows the run it predicts.
class TimelineLayout
{
public:
    void build(const TimelineData &data, const QSet<qint64> &collapsed, const QSet<qint64> &hidden,
               const TimelineMetrics &metrics = {}, const TimelineFocus &focus = {},
               const TimelineTrackFilter &filter = {});
    // Every key that can be collapsed (runs and tracks with children) of the focused runs.
    static QList<qint64> parentKeys(const TimelineData &data, const TimelineFocus &focus);

    // The focused runs' span in view time (the trace range; its start is the axis origin).
    TimeNs spanStart() const { return m_spanStart; }
    TimeNs spanEnd() const { return m_spanEnd; }
    bool showsRun(RunId run) const { return m_shiftOfRun.contains(run); }
    TimeNs shiftOfRun(RunId run) const { return m_shiftOfRun.value(run, 0); }
    // Track time = view time + shift; 0 but for the other runs of an aligned focus.
    TimeNs shiftOf(TrackId track) const { return m_shiftOfTrack.value(track, 0); }
    // The runs laid out (whether or not collapsed), with their shifts.
    const QHash<RunId, TimeNs> &shownRuns() const { return m_shiftOfRun; }

    // Pinned rows first (pinnedCount() of them, y in the band), then the scrolling rows.
    const std::vector<TimelineRow> &rows() const { return m_rows; }
    size_t pinnedCount() const { return m_firstScrolling; }
    int pinnedHeight() const { return m_pinnedHeight; }
    int contentHeight() const { return m_contentHeight; } // of the scrolling rows
    // Index of the scrolling row containing content y, else -1; of the pinned row at band y.
    int rowAt(int y) const;
    int pinnedRowAt(int y) const;
    int rowOfTrack(TrackId track) const;
    // Slice tracks in row order (for find and the aggregate table).
    QList<TrackId> sliceTracks() const;
    // The same with their shifts (the range aggregate reads each run on its own clock).
    std::vector<AggregateTrack> aggregateTracks() const;
    // Bumped by each build: the painters' geometry caches key on it.
    quint64 version() const { return m_version; }

private:
    std::vector<TimelineRow> m_rows;
    QHash<RunId, TimeNs> m_shiftOfRun;
    QHash<TrackId, TimeNs> m_shiftOfTrack; // non-zero shifts only
    TimeNs m_spanStart = 0, m_spanEnd = 1;
    size_t m_firstScrolling = 0;
    int m_pinnedHeight = 0;
    int m_contentHeight = 0;
    quint64 m_version = 0;
};

} // namespace gml
