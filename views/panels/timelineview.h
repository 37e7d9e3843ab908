// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinepainter.h"

#include <QPointer>
#include <QSet>
#include <QWidget>

class QScrollBar;

namespace gml {

class TimelineState;

// The timeline widget: overview strip, ruler, resource column and rows, painted by
// TimelinePainter. All zoom, pan and selection go through the shared TimelineState; the widget
// only translates input (chrome://tracing and Perfetto keys: W/S zoom, A/D pan, wheel zoom,
// drag to pan, drag on the ruler to select a range, F to fit the selection, Esc to clear).
class TimelineView : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineView(TimelineState *state, QWidget *parent = nullptr);
    ~TimelineView() override;

    void setData(std::shared_ptr<const TimelineData> data);
    // A followed folder's data grew: the new data in, the selection, rows and a window away
    // from the end kept (TimelineState::extendTraceRange).
    void updateLiveData(std::shared_ptr<const TimelineData> data);
    const std::shared_ptr<const TimelineData> &data() const { return m_painter.data(); }
    // Blocks until the rows in view show what their scale wants (paged tracks read): for
    // screenshots and tests, never on a user's path.
    void waitForPages();
    TimelinePainter &painter() { return m_painter; }
    const TimelinePainter &painter() const { return m_painter; }
    const TimelineLayout &layout() const { return m_painter.layout(); }
    TimelineViewport viewport() const;
    TimelineOverlay overlay() const;

    void setLinks(const QList<LinkedSlice> &links);
    void setHighlighted(std::vector<SliceRef> slices);
    const std::vector<SliceRef> &highlighted() const { return m_highlighted; }
    void setNotes(std::vector<TimelineOverlay::NoteMark> notes); // in view time
    // Selects the slice and scrolls so it is visible (find, links); zoomTo also zooms to it.
    void revealSlice(const SliceRef &slice, bool zoomTo);
    // The same for slice `index` of the track as shown now (data()->shown()).
    void revealSlice(TrackId track, size_t index, bool zoomTo);

    // Shows [start, end) of run `run` (project clock; 0: the runs shown), its run in focus first:
    // a range is selected with a quarter of context either side, a time gets the cursor and is
    // centred when out of view (analysis evidence, query rows, notes).
    void revealTime(RunId run, TimeNs start, TimeNs end);
    // Shows a track's row (expanding and unhiding what holds it) and scrolls it to the top.
    void revealTrack(TrackId track);
    int scrollBarWidth() const; // 0 when it is hidden
    int scrollY() const;        // the rows' vertical scroll
    // How long the first paint after setData() took (ms; -1 before it): the state dump's figure.
    double firstPaintMs() const { return m_firstPaintMs; }

    void setTrackHidden(qint64 key, bool hidden);
    void setCollapsed(qint64 key, bool collapsed);
    void showAllTracks();
    const QSet<qint64> &hiddenTracks() const { return m_hidden; }
    // Track management: every run and parent row collapsed or expanded; the tracks kept by a
    // name filter and a side (GPU streams only, CPU only); tracks pinned in a band at the top.
    void collapseAll(bool collapsed);
    // Ranks as summary rows (TimelineFocus::rankRows): one compact row per rank.
    void setRankRows(bool on);
    bool rankRows() const { return m_rankRows; }
    void setTrackFilter(const QString &text, TimelineTrackFilter::Only only);
    const TimelineTrackFilter &trackFilter() const { return m_filter; }
    // The tracks whose slices' names hold `text` (found off the GUI thread after the filter's
    // text changed, trackFilterTextChanged): kept too, when `text` is still the filter's.
    void setTrackFilterHolding(const QString &text, const QSet<TrackId> &tracks);
    // Whether the filter also keeps the tracks holding a slice named like its text (off: track
    // names, kinds and runs only).
    void setFilterKeepsHolding(bool keep);
    // Every slice track of the runs in focus, whether the filter keeps it or not.
    QList<TrackId> focusedSliceTracks() const;
    // No track matches the filter (the rows say so).
    bool filterMatchesNothing() const;
    void setPinned(TrackId track, bool pinned);
    // For a figure: the tracks of the rows on screen (pinned ones included), and the layout of
    // the view keeping only `chosen` tracks (with their ancestors), unpinned.
    QSet<TrackId> tracksOnScreen() const;
    TimelineLayout layoutOf(const QSet<TrackId> &chosen) const;
    void unpinAll();
    // The resource column's width (dragging its right edge changes it too).
    void setLabelWidth(int width);

    // The zoom of one wheel notch or W/S press, in percent of the window (View › Zoom Step);
    // holding W or S zooms faster the longer it is held, as in Perfetto.
    void setZoomStep(int percent);
    // Slices coloured by name (the default) or by class with a legend (View › Colour by Class).
    void setColorByClass(bool byClass);
    int zoomStep() const { return m_zoomStep; }

    QSize sizeHint() const override { return {1200, 700}; }

Q_SIGNALS:
    void hoverTextChanged(const QString &text);
    void layoutChanged();
    void trackFilterChanged(); // by the view itself (a row's context menu)
    void filterKeepsHoldingChanged(bool keep);
    // The filter's text changed: what the tracks hold is to be searched (the main window's
    // search controller answers with setTrackFilterHolding).
    void trackFilterTextChanged(const QString &text);
    // A paged track could not be read (a cluster project's shard gone, a damaged file): why.
    void pagingFailed(const QString &why);
    void rankRowsChanged(bool on);

protected:
    void paintEvent(QPaintEvent *) override;
    void resizeEvent(QResizeEvent *) override;
    void wheelEvent(QWheelEvent *) override;
    void mousePressEvent(QMouseEvent *) override;
    void mouseMoveEvent(QMouseEvent *) override;
    void mouseReleaseEvent(QMouseEvent *) override;
    void mouseDoubleClickEvent(QMouseEvent *) override;
    void keyPressEvent(QKeyEvent *) override;
    void keyReleaseEvent(QKeyEvent *) override;
    void leaveEvent(QEvent *) override;
    void contextMenuEvent(QContextMenuEvent *) override;

private:
    void relayout(bool live = false);
    // Other tracks are shown (data, focus): what they hold is searched again for the filter.
    void researchFilterContents();
    // The data drawn, and its pager's reads repainting this view.
    void adopt(std::shared_ptr<const TimelineData> data);
    void ensureShown(TrackId track); // expands and unhides its ancestors
    void focusRunOf(TrackId track);  // puts its run in focus when it is not shown
    // Adds or removes `key` and lays the rows out again when that changed something.
    void setMember(QSet<qint64> &set, qint64 key, bool member);
    void updateScrollBar();
    TimeNs anchorTime() const;
    void selectAt(QPointF pos);
    void moveOverviewTo(double x);

    TimelineState *m_state;
    TimelinePainter m_painter;
    QScrollBar *m_vbar;
    QSet<qint64> m_hidden;
    QSet<qint64> m_collapsed;
    // Threads that only wait start folded, once per project: unfolding one sticks on reload.
    QString m_foldedProject;
    QSet<TrackId> m_foldedOnce;
    bool m_rankRows = false;
    QList<LinkedSlice> m_links;
    std::vector<SliceRef> m_highlighted;
    std::vector<TimelineOverlay::NoteMark> m_notes;
    QString m_pagingError;         // the last one told
    bool m_holdingPending = false; // the filter's content search has not answered yet

    TimelineTrackFilter m_filter;
    bool onLabelEdge(QPointF pos) const;

    enum class Drag { None, Pan, Range, Overview, LabelEdge };
    Drag m_drag = Drag::None;
    QPointF m_pressPos;
    QPointF m_lastPos;
    TimeNs m_rangeAnchor = 0;
    bool m_moved = false;
    bool m_rangeOnRuler = false; // the press was on the ruler: a click there sets the origin
    int m_zoomStep = 20;
    int m_keyRepeats = 0; // auto-repeats of the held W/S
    double m_firstPaintMs = -1;
    bool m_firstPaintPending = false;
    QPointF m_mousePos{-1, -1};
};

} // namespace gml
