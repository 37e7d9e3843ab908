// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the timeline painter's files share (timelinepainter.cpp, timelineruler.cpp): the theme
// of the paint in progress and the colour of a memory counter's peak.
#include <QColor>

namespace gml {

struct Theme;

namespace painting {

// The theme of the paint in progress: the painter's own while TimelinePainter::paint runs,
// else the current one.
const Theme &T();
// A memory counter's peak, on its line and on the ruler.
inline const QColor kPeakColour{0xc0, 0x39, 0x2b};

} // namespace painting
} // namespace gml
