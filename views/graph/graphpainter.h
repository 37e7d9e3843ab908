// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graphlayout.h"
#include "graphscene.h"

#include <QColor>
#include <QSet>
#include <QTransform>

#include <memory>
#include <optional>

class QPainter;

namespace gml {

// A scene with its layout: what the graph view draws for one collapse state (cached by it).
struct GraphPicture
{
    GraphScene scene;
    GraphLayoutResult layout; // node i = scene item i, edge i = scene edge i
    double buildMs = 0;       // scene
    double layoutMs = 0;
    bool rowPerIteration = false; // the layout's bands are the iterations, one row each
    static std::shared_ptr<const GraphPicture>
    make(std::shared_ptr<const sim::ExecutionModel> model, const GraphCollapse &collapse);
    int itemAt(QPointF scenePoint) const; // -1: none
};

// What is drawn over the picture: selection, linked highlights, search matches and what-if
// changes, all by item.
struct GraphOverlay
{
    int selected = -1;
    int hovered = -1;
    QSet<int> highlighted; // the timeline's selection falls under these
    QSet<int> matches;     // search
    // Per item, the predicted change of its time (predicted / measured - 1); empty: none.
    std::vector<std::optional<double>> change;
    bool legend = true;
};

// Draws a GraphPicture: boxes coloured by their share of the focus's time (or by predicted
// change), a resource-mix bar under each, ×N badges, the critical path in red, one edge style
// per kind, a legend. The same code draws the widget and the exported figures.
class GraphPainter
{
public:
    static constexpr double kNodeWidth = 196; // at least: a box widens to show its name whole
    static constexpr double kMaxNodeWidth =
        340; // ... up to this, then the name is elided at its end
    static constexpr double kNodeHeight = 56;
    static constexpr double kLegendHeight =
        24; // a row of the strip along the bottom (GraphOverlay::legend)
    // The legend's height at a width: it wraps into rows rather than being cut.
    static double legendHeight(const GraphPicture &picture, double width);
    // The smallest scale at which the boxes' names stay legible (9 px): Fit goes no smaller
    // and scrolls instead; the wheel still zooms out to an overview.
    static constexpr double kMinReadableScale = 0.75;

    // `toDevice` maps the layout's coordinates onto the device; `viewport` is the device area.
    static void paint(QPainter &p, const GraphPicture &picture, const QTransform &toDevice,
                      const QRectF &viewport, const GraphOverlay &overlay);
    // The transform that fits the picture into `viewport` (never enlarging past 1:1).
    static QTransform fit(const GraphPicture &picture, const QRectF &viewport,
                          double maxScale = 1.0);
    static QColor edgeColor(sim::ModelEdge::Kind kind);
    static QString tooltip(const GraphPicture &picture, int item);
    // What a box's top line says: where it sits below the focus ("ProfilerStep#5 › forward"),
    // else its level; and how many ranks it folds or which rank it is.
    static QString context(const GraphScene &scene, int item);
};

} // namespace gml
