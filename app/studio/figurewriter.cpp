// SPDX-License-Identifier: GPL-3.0-or-later
#include "figurewriter.h"

#include "figureexport.h"
#include "timelinestate.h"
#include "timelineview.h"

namespace gml {

namespace {

// The painter and request a choice makes; false with *error when there is nothing to draw.
bool prepare(const FigureDialog::Choice &c, const TimelineView &timeline,
             const TimelineState &state, TimelinePainter &painter, FigureRequest &req,
             QString *error)
{
    if (!timeline.data()) {
        *error = QStringLiteral("nothing to export: no project is open");
        return false;
    }
    QSet<TrackId> tracks;
    switch (c.tracks) {
    case FigureDialog::Tracks::OnScreen:
        tracks = timeline.tracksOnScreen();
        break;
    case FigureDialog::Tracks::Pinned:
        for (TrackId t : timeline.trackFilter().pinned)
            tracks.insert(t);
        break;
    case FigureDialog::Tracks::Chosen:
        tracks = c.chosen;
        break;
    case FigureDialog::Tracks::Shown:
        break;
    }
    if (c.tracks != FigureDialog::Tracks::Shown && tracks.isEmpty()) {
        *error =
            QStringLiteral("no track to draw: %1")
                .arg(c.tracks == FigureDialog::Tracks::Pinned ? QStringLiteral("nothing is pinned")
                                                              : QStringLiteral("none is chosen"));
        return false;
    }
    painter.setData(timeline.data());
    painter.setLabelWidth(timeline.painter().metrics().labelWidth);
    painter.setLayout(c.tracks == FigureDialog::Tracks::Shown ? timeline.layout()
                                                              : timeline.layoutOf(tracks));
    req.path = c.path;
    const auto px = [&](double v) {
        return c.centimetres ? FigureRequest::fromCm(v, c.path) : int(std::lround(v));
    };
    req.size = QSize(px(c.width), c.fitHeight ? 60 : px(c.height));
    req.fitHeight = c.fitHeight;
    req.dpi = c.dpi;
    req.chrome = c.chrome;
    req.notes = c.notes;
    const bool selection = c.selection && state.hasSelection();
    req.t0 = selection ? state.selectionStart() : state.windowStart();
    req.t1 = selection ? state.selectionEnd() : state.windowEnd();
    req.overlay = timeline.overlay();
    req.overlay.hasCursor = false;
    if (selection) // the figure is the selection: no shading over all of it
        req.overlay.selectionStart = req.overlay.selectionEnd = 0;
    req.colorBy = c.colorByClass ? TimelinePainter::ColorBy::Class : TimelinePainter::ColorBy::Name;
    switch (c.origin) {
    case FigureDialog::Choice::Origin::RunStart:
        req.overlay.hasOrigin = false;
        break;
    case FigureDialog::Choice::Origin::UserOrigin:
        break; // the state's, in the overlay
    case FigureDialog::Choice::Origin::LeftEdge:
        req.overlay.hasOrigin = true;
        req.overlay.origin = req.t0;
        break;
    }
    return true;
}

} // namespace

QSize timelineFigureSize(const FigureDialog::Choice &c, const TimelineView &timeline,
                         const TimelineState &state)
{
    TimelinePainter painter;
    FigureRequest req;
    QString error;
    if (!prepare(c, timeline, state, painter, req, &error))
        return {};
    return figureGeometry(painter, req).size;
}

bool writeTimelineFigure(const FigureDialog::Choice &c, const TimelineView &timeline,
                         const TimelineState &state, QString *error)
{
    TimelinePainter painter;
    FigureRequest req;
    return prepare(c, timeline, state, painter, req, error) && exportFigure(painter, req, error);
}

} // namespace gml
