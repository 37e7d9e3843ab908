// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinepainter.h"

#include <QString>

#include <functional>

class QPainter;

namespace gml {

// Writes the timeline as a figure: PNG, SVG or PDF by the file's extension, drawn by the same
// TimelinePainter as the screen, so text stays text in SVG and PDF. The figure shows every row
// of the layout (the height grows to fit when `fitHeight`), the window [t0, t1).
struct FigureRequest
{
    QString path;
    QSize size{1600, 900};
    TimeNs t0 = 0, t1 = 0; // empty: the whole trace
    bool fitHeight = true;
    TimelineOverlay overlay;
};

[[nodiscard]] bool exportFigure(TimelinePainter &painter, const FigureRequest &request, QString *error);

// The one figure path every view exports through: PNG, SVG or PDF by the file's extension
// (one device pixel = one point), `draw` painting a `size` canvas. The file is written to a
// temporary first, so a failed export never leaves half a figure where the old one was.
[[nodiscard]] bool writeFigure(const QString &path, QSize size, const QString &title, const QString &description,
                               const std::function<void(QPainter &)> &draw, QString *error);

} // namespace gml
