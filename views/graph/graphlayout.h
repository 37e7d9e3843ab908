// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <vector>

namespace gml {

// A layered (Sugiyama) drawing of a directed graph, left to right, on Boost.Graph:
//  1. cycles broken by reversing the back edges of a depth-first search that visits nodes in
//     their given order (a trace's time order, so the reversed edges are the ones pointing
//     back in time);
//  2. layers by longest path from the sources (every edge points one or more layers right);
//  3. an edge that spans several layers gets a dummy node in each layer it crosses;
//  4. order within layers: the given order (lanes: resources, ranks) improved by median sweeps
//     left-to-right and back, keeping the order with the fewest crossings;
//  5. vertical positions: each node pulled to the mean of its neighbours' positions, solved as
//     a least-squares problem under the no-overlap constraints of its layer (pool adjacent
//     violators), alternating directions;
//  6. a graph much wider than `aspect` wraps into bands of consecutive layers, or the bands
//     start where the caller says (one row per iteration);
//  7. edges routed through their dummies (and from one band into the next).
// Pure geometry: no Qt Gui, safe off the GUI thread.
struct GraphLayoutInput
{
    std::vector<QSizeF> sizes;              // per node
    std::vector<std::pair<int, int>> edges; // from, to (self loops and repeats are ignored)
    double layerGap = 70;                   // between the right of one layer and the next
    double nodeGap = 18;                    // between boxes of a layer
    double aspect = 1.6;                    // wrap into bands when wider than this (0: never)
    double bandGap = 60;                    // between bands
    double wrapBelow = 12;                  // ... and it has fewer boxes per layer than this
    // Rows asked for: each of these nodes starts a new band at its layer (one row per
    // iteration); when given, `aspect` is not used.
    std::vector<int> rowStarts;
};

struct GraphLayoutResult
{
    std::vector<QRectF> boxes;                // per node
    std::vector<std::vector<QPointF>> routes; // per input edge: right of `from` ... left of `to`
    std::vector<int> layer;                   // per node
    std::vector<bool> reversed;               // per input edge: drawn against the layers
    QRectF bounds;
    int layers = 0;
    int bands = 1; // a long graph wraps into bands of consecutive layers, top to bottom
    int dummies = 0;
    long long crossings = 0; // between consecutive layers, counting dummy segments
};

GraphLayoutResult layoutGraph(const GraphLayoutInput &input);

} // namespace gml
