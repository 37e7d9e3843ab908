// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "figuredialog.h"

namespace gml {

class TimelineState;
class TimelineView;

// Writes the timeline figure a FigureDialog chose: its time (window or selection), its tracks
// (on screen, pinned, shown or chosen), its size (px, or cm at the figure's units per inch),
// DPI, chrome, notes, colours and time origin, through views/render/figureexport. False with *error
// set on failure. The figure's size for a choice, exactly as writeTimelineFigure would write it
// (logical pixels; empty when nothing can be drawn): the dialog's estimate.
QSize timelineFigureSize(const FigureDialog::Choice &choice, const TimelineView &timeline,
                         const TimelineState &state);
[[nodiscard]] bool writeTimelineFigure(const FigureDialog::Choice &choice,
                                       const TimelineView &timeline, const TimelineState &state,
                                       QString *error);

} // namespace gml
