// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinepainter.h"

#include <QJsonObject>
#include <QString>

#include <cmath>
#include <functional>

class QPainter;

namespace gml {

// Writes the timeline as a figure: PNG, SVG or PDF by the file's extension, drawn by the same
// TimelinePainter as the screen, so text stays text in SVG and PDF. The figure shows every row
// of the layout (the height grows to fit when `fitHeight`), the window [t0, t1).
// Paper sizes: `size` is the canvas in logical pixels (what the painter lays out). A PNG has
// 96 of them per inch and `dpi` / 96 device pixels per logical one (300 dpi: sharp text at
// print size); in SVG and PDF one logical pixel is one point (72 per inch; text stays text).
struct FigureRequest
{
    QString path;
    QSize size{1600, 900};
    TimeNs t0 = 0, t1 = 0; // empty: the whole trace
    bool fitHeight = true; // the height grows to hold every row of the painter's layout
    double dpi = 96;
    bool chrome = true; // false: no overview strip, expand triangles or window text
    bool notes = true;  // the overlay's notes drawn (in a strip above the ruler)
    // Slices coloured by name or by class (with a legend below the rows).
    TimelinePainter::ColorBy colorBy = TimelinePainter::ColorBy::Name;
    // Figures without chrome fit the label column to the short labels (figureLabel), at most
    // this share of the width; with chrome it stays as wide as the studio's (a third at most).
    double maxLabelShare = 0.3;
    TimelineOverlay overlay;
    // Logical pixels of a length in centimetres, for a figure written to `path` (by its
    // extension: 96 per inch for PNG, 72 for SVG and PDF).
    static int fromCm(double cm, const QString &path)
    {
        const bool vector = path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ||
                            path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive);
        return int(std::lround(cm / 2.54 * (vector ? 72.0 : 96.0)));
    }
};

[[nodiscard]] bool exportFigure(TimelinePainter &painter, const FigureRequest &request,
                                QString *error);
// The size in logical pixels exportFigure would write (its height grown to fit the rows and
// the legend), and the label column's width: what the export dialog shows before writing.
struct FigureGeometry
{
    QSize size;
    int labelWidth = 0;
};
FigureGeometry figureGeometry(TimelinePainter &painter, const FigureRequest &request);
// What the last exportFigure drew, as the studio's state dump says it: `size`, `label_width`,
// `tracks` (each row's `label` as drawn, `kind`, `y`, `height`), `ruler` (`label`, `x`,
// `width`), `ruler_base`, `legend`.
QJsonObject figureState(TimelinePainter &painter, const FigureRequest &request);

// The one figure path every view exports through: PNG, SVG or PDF by the file's extension
// (one device pixel = one point), `draw` painting a `size` canvas. The file is written to a
// temporary first, so a failed export never leaves half a figure where the old one was.
// `svgPerInch`: the SVG's units per inch, 72 (a point, the paper figures' unit) unless the
// drawing was laid out in screen pixels (the chart layer's pictures: 96, or its text came out
// at three quarters of the room laid out for it).
[[nodiscard]] bool writeFigure(const QString &path, QSize size, const QString &title,
                               const QString &description,
                               const std::function<void(QPainter &)> &draw, QString *error,
                               double dpi = 96, int svgPerInch = 72);

} // namespace gml
