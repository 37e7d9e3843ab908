// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "palette.h"
#include "slicequery.h"
#include "timelinedata.h"
#include "timelinelayout.h"

#include <QCoreApplication>
#include <QFont>
#include <QPolygonF>
#include <QRectF>
#include <QSize>

#include <array>
#include <memory>
#include <vector>

class QPainter;

namespace gml {

// What is on screen: the device size, the time window and the vertical scroll of the rows.
struct TimelineViewport
{
    QSize size;
    TimeNs t0 = 0;
    TimeNs t1 = 1;
    int scrollY = 0;
    bool operator==(const TimelineViewport &) const = default;
};

// What changes without changing the geometry: selection, links, cursor.
struct TimelineOverlay
{
    TimeNs traceStart = 0, traceEnd = 0; // empty: the painter's data range
    // The ruler's zero (a time the user clicked on the ruler); none: the trace's start.
    bool hasOrigin = false;
    TimeNs origin = 0;
    TimeNs timeOrigin() const { return hasOrigin ? origin : traceStart; }
    TimeNs selectionStart = 0, selectionEnd = 0; // empty: none
    TrackId selectedTrack = 0;
    SliceId selectedSlice = 0;
    TimeNs selectedStart = 0; // finds the selected slice by binary search
    QList<LinkedSlice> links; // of the selected slice
    bool hasCursor = false;
    TimeNs cursor = 0;
    std::vector<SliceRef> highlighted; // the current find match
    // Notes (model/store/notes.h) in view time: a range is shaded, a time is a dashed line; each
    // has a flag on the ruler with its bookmark number (0: none).
    struct NoteMark
    {
        TimeNs start = 0, end = 0;
        int bookmark = 0;
        QString text;
    };
    std::vector<NoteMark> notes;
};

// Slice and counter geometry for one viewport, in device coordinates. Built once per
// (data, layout, viewport) and replayed by every paint; nothing in it points into the data.
struct TimelineGeometry
{
    struct Label
    {
        QRectF rect;
        QString text;
    };
    struct CounterShape
    {
        QPolygonF area; // filled, closed at the baseline
        QPolygonF line; // the upper envelope (max per pixel column)
        int colorIndex = 0;
        QString maxText; // the value at the row's top, with its unit
        QRectF rect;
        // A memory counter's peak in view (memory.used, allocated, reserved): marked on the
        // line and on the ruler; x < 0: none.
        QPointF peak{-1, -1};
    };
    // Grouped by colour, on whole pixels: the raster engine fills integer rectangles on its
    // fast path, and sub-pixel positions show nothing a pixel grid could.
    std::array<std::vector<QRect>, SlicePalette::kSize> boxes;
    std::vector<Label> labels;
    std::vector<CounterShape> counters;
    // The pinned rows' part comes first in each list: this many of each.
    std::array<size_t, SlicePalette::kSize> pinnedBoxes{};
    size_t pinnedLabels = 0;
    size_t pinnedCounters = 0;
    // Per layout row: the pixel columns it painted (-1: not built, off screen or a run header).
    std::vector<int> drawn;
    // The summary rows built (TimelineRow::isSummary): per pixel column from the label
    // column's edge, the busy share and each class's (compute, communication, copy, CPU, and
    // ranges where the window holds no work).
    struct SummaryColumns
    {
        size_t row = 0;
        std::vector<float> busy;
        std::array<std::vector<float>, 5> classes;
    };
    std::vector<SummaryColumns> summaries;
    size_t visibleSlices = 0; // slices covered by the drawn boxes
    size_t exactBoxes = 0;    // boxes of one slice each
    size_t mergedBoxes = 0;   // boxes standing for a pixel bucket of narrow slices
    size_t boxCount() const;
};

// Where a point falls.
struct TimelineHit
{
    enum class Area { None, Overview, Ruler, Labels, Rows };
    Area area = Area::None;
    int row = -1;
    bool onToggle = false; // the expand/collapse triangle of the row
    TrackId track = 0;
    qint64 index = -1; // slice index in the track's SliceTrack, -1 for none
    TimeNs time = 0;   // under the point (window time in rows/ruler, trace time in overview)
};

// Draws the timeline (overview strip, ruler, resource column, slices, counters, overlays) with
// QPainter, so the same code paints the widget, PNG, SVG and PDF. Level of detail: per depth,
// slices at least one pixel wide are drawn exactly; narrower ones are folded into one box per
// pixel bucket coloured by the bucket's longest slice (Perfetto's mipmap rule, by
// SliceTrack::longestIn's block index), found with one galloping search per bucket,
// so a frame costs O(pixels x depths), not O(slices).
class TimelinePainter
{
    Q_DECLARE_TR_FUNCTIONS(TimelinePainter)

public:
    TimelinePainter();

    void setData(std::shared_ptr<const TimelineData> data);
    const std::shared_ptr<const TimelineData> &data() const { return m_data; }
    void setLayout(const TimelineLayout &layout);
    // The pager read more of a track: the next paint builds the rows and overview again.
    void pagesArrived()
    {
        m_geometryValid = false;
        m_overviewWidth = -1;
    }
    // True when every row of the last geometry showed what its scale wants (nothing paged is
    // still being read): the first complete paint of a project.
    bool complete() const { return m_geometryComplete; }
    // Builds the geometry of `v`, waiting for the pager until every row is complete (figure
    // export, screenshots, tests; never on a user's path). False if some row is still not.
    bool waitForPages(const TimelineViewport &v, int rounds = 16);
    const TimelineLayout &layout() const { return m_layout; }
    const TimelineMetrics &metrics() const { return m_metrics; }
    void setFont(const QFont &font);

    // Cached: rebuilt only when the data, the layout or the viewport changed.
    const TimelineGeometry &geometry(const TimelineViewport &viewport);
    // The geometry of the last paint, as it is (the state dump).
    const TimelineGeometry &lastGeometry() const { return m_geometry; }
    void paint(QPainter &painter, const TimelineViewport &viewport, const TimelineOverlay &overlay);
    TimelineHit hitTest(const TimelineViewport &viewport, QPointF point) const;
    // What a summary row draws at device x, for the status bar: "rank 3: busy 78% (compute
    // 60%, communication 18%)"; empty off a summary row of the last geometry.
    QString summaryText(int row, double x) const;

    // Where a row's top is drawn (device y): in the pinned band, or scrolled below it.
    int rowTop(const TimelineRow &row, const TimelineViewport &v) const
    {
        return m_metrics.headerHeight() +
               (row.pinned ? row.y : m_layout.pinnedHeight() + row.y - v.scrollY);
    }
    int rowsTop() const { return m_metrics.headerHeight() + m_layout.pinnedHeight(); }
    // Width of the resource column (the track labels), at least 120 px.
    void setLabelWidth(int width);
    // A figure without the window's chrome: no overview strip, no expand triangles, no
    // "Overview" / "window …" text (the figure export's "chrome off").
    void setFigureMode(bool figure);
    // How slices are coloured: by a hash of the name (the same name, the same colour, in every
    // run), or by class (compute, communication, copy, CPU op, Python, annotation: sliceRole)
    // with a legend in figures.
    enum class ColorBy { Name, Class };
    void setColorBy(ColorBy by);
    ColorBy colorBy() const { return m_colorBy; }
    // The legend's height below the rows (coloured by class; 0: none).
    int legendHeight() const { return m_colorBy == ColorBy::Class ? 22 : 0; }
    // The classes the last paint's legend showed, left to right.
    const QStringList &legendEntries() const { return m_legend; }
    // Figures: labels shortened (figureLabel) and elided at the end; the width the label
    // column needs for them, at most `maxWidth`.
    int figureLabelWidth(int maxWidth) const;
    // A strip above the ruler for the notes' flags, so they never hide a tick label (on when
    // there are notes).
    void setNoteStrip(bool on);
    // The theme to paint in (null: Theme::current(), the studio's).
    void setTheme(const struct Theme *theme) { m_theme = theme; }
    bool figureMode() const { return m_figure; }

    // Time <-> x in the rows area for a viewport.
    double xForTime(const TimelineViewport &v, TimeNs t) const;
    TimeNs timeForX(const TimelineViewport &v, double x) const;
    // Rectangle of slice `index` of a track row (device coordinates), empty when not shown.
    QRectF sliceRect(const TimelineViewport &v, TrackId track, size_t index) const;

    // The ruler's tick labels of the last paint, left to right, where they were drawn (x and
    // width of the text, device coordinates; the state dump and tests check they never overlap).
    struct RulerLabel
    {
        QString text;
        double x = 0;
        double width = 0;
    };
    const std::vector<RulerLabel> &rulerLabels() const { return m_rulerLabels; }
    // The row labels of the last paint as drawn (elided or shortened), top to bottom, with the
    // row's kind ("run" or trackKindName) and top: the figure's state (grademl export --state).
    struct DrawnLabel
    {
        QString text;
        QString kind;
        int y = 0;
        int height = 0;
    };
    const std::vector<DrawnLabel> &drawnLabels() const { return m_drawnLabels; }
    // What the tick labels count from, as drawn in the label column's ruler cell ("from
    // start", "from origin", or "start + 515.18 ms" at deep zoom far from the origin, where the
    // ticks read "+20 ns").
    const QString &rulerBaseText() const { return m_rulerBase; }

    double lastBuildMs() const { return m_lastBuildMs; }
    double lastPaintMs() const { return m_lastPaintMs; }

private:
    void buildGeometry(const TimelineViewport &v);
    // The pixel columns its top depth covers.
    int buildSliceRow(const TimelineViewport &v, const TimelineRow &row, const SliceTrack &track,
                      int top, int viewTop, int viewBottom);
    void buildCounterRow(const TimelineViewport &v, const TimelineRow &row,
                         const CounterTrack &track, int top);
    // What a slice row or a summary draws of `track` over `v` (on its clock): the whole track
    // when held, else the pager's view for the window and scale (null: none yet); notes in
    // m_geometryComplete whether it is what the scale wants.
    std::shared_ptr<const SliceTrack> sliceView(TrackId track, const TimelineViewport &v);
    // Summary row `row` of the layout (TimelineRow::isSummary, timelinesummary.cpp): the pixel
    // columns painted.
    int buildSummaryRow(const TimelineViewport &v, size_t row, int top);
    // The summary class (0 compute, 1 communication, 2 copy, 3 CPU; -1: not work) of a name.
    int summaryRole(StringId name, bool onGpu);
    // One band: the pinned rows, or the scrolling rows below them.
    void paintRows(QPainter &p, const TimelineViewport &v, const TimelineOverlay &o, TimeNs step,
                   bool pinned);
    void paintLabels(QPainter &p, const TimelineViewport &v, bool pinned);
    void paintHeader(QPainter &p, const TimelineViewport &v, const TimelineOverlay &o, TimeNs step);
    void paintOverlay(QPainter &p, const TimelineViewport &v, const TimelineOverlay &o);
    void paintNoteFlags(QPainter &p, const TimelineViewport &v, const TimelineOverlay &o);
    void paintOverview(QPainter &p, const TimelineViewport &v, const TimelineOverlay &o);
    const std::vector<float> &overviewDensity(int width);
    // The ruler's tick step (niceStep: at least 60 px apart and wider than its widest label
    // plus a gap) and its first tick at or before t0, counted from `origin`: the ruler and the
    // grid lines of the rows share them.
    TimeNs tickStep(const TimelineViewport &v, TimeNs origin) const;
    static TimeNs firstTick(const TimelineViewport &v, TimeNs origin, TimeNs step);
    static TimeNs nextTick(TimeNs t, TimeNs step);
    // What the tick labels count from: `origin`, or where its offsets would need more than six
    // digits (deep zoom far from the origin), a multiple of 1000 steps at or before the window.
    static TimeNs labelBase(const TimelineViewport &v, TimeNs origin, TimeNs step);
    static QString tickLabel(TimeNs t, TimeNs base, TimeNs origin, TimeNs step);
    static constexpr int kMaxTicks = 1000;
    int colorOf(StringId name) const;
    void classifyNames();
    void paintLegend(QPainter &p, const TimelineViewport &v);
    // Everything but the legend: rows, overlays, labels, header.
    void paintFrame(QPainter &p, const TimelineViewport &v, const TimelineOverlay &o);

    std::shared_ptr<const TimelineData> m_data;
    TimelineLayout m_layout;
    TimelineMetrics m_metrics;
    bool m_figure = false;
    const struct Theme *m_theme = nullptr;
    int m_paintedDark = -1; // the theme of the cached overview (-1: none)
    QFont m_font;
    QFont m_boldFont;
    std::vector<uint8_t> m_colorOfName;
    ColorBy m_colorBy = ColorBy::Name;
    std::array<std::vector<uint8_t>, 2> m_classOfName; // by name, off / on a GPU
    bool m_rowOnGpu = false;                           // of the row being built
    QStringList m_legend;
    TimelineGeometry m_geometry;
    TimelineViewport m_geometryViewport;
    quint64 m_geometryLayoutVersion = 0;
    bool m_geometryValid = false;
    bool m_geometryComplete = true;
    std::vector<RulerLabel> m_rulerLabels;
    QString m_rulerBase;
    std::vector<DrawnLabel> m_drawnLabels;
    std::vector<float> m_overview;
    int m_overviewWidth = -1;
    double m_lastBuildMs = 0;
    double m_lastPaintMs = 0;
};

} // namespace gml
