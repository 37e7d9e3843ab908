// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graphpainter.h"

#include <QString>

namespace gml {

// The graph view as a figure: the whole picture at 1:1 (scaled down to at most `maxWidth`
// wide), a title line above it, the legend in the corner.
[[nodiscard]] bool exportGraphFigure(const GraphPicture &picture, const GraphOverlay &overlay,
                                     const QString &path, const QString &title, QString *error,
                                     int maxWidth = 6000);

} // namespace gml
