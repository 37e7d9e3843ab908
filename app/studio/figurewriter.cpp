// SPDX-License-Identifier: GPL-3.0-or-later
#include "figurewriter.h"

#include "figureexport.h"
#include "timelinestate.h"
#include "timelineview.h"

namespace gml {

bool writeTimelineFigure(const FigureDialog::Choice &c, const TimelineView &timeline,
                         const TimelineState &state, QString *error)
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
    TimelinePainter painter;
    painter.setData(timeline.data());
    painter.setLabelWidth(timeline.painter().metrics().labelWidth);
    painter.setLayout(c.tracks == FigureDialog::Tracks::Shown ? timeline.layout()
                                                              : timeline.layoutOf(tracks));
    FigureRequest req;
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
    return exportFigure(painter, req, error);
}

} // namespace gml
