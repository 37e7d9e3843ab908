// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "figuredialog.h"

namespace gml {

class TimelineState;
class TimelineView;

// Writes the timeline figure a FigureDialog chose: its time (window or selection), its tracks
// (on screen, pinned, shown or chosen), its size (px, or cm at the figure's units per inch),
// DPI, chrome and notes, through views/render/figureexport. False with *error set on failure.
[[nodiscard]] bool writeTimelineFigure(const FigureDialog::Choice &choice,
                                       const TimelineView &timeline, const TimelineState &state,
                                       QString *error);

} // namespace gml
