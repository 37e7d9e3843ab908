// SPDX-License-Identifier: GPL-3.0-or-later
// The execution graph's drawing style, shared by its painter (graphpainter.cpp): the colours
// of the resource mix and the marks, the fonts, one line style, width and name per edge kind,
// the edges' curves and arrowheads.
#pragma once

#include "executionmodel.h"
#include "theme.h"

#include <QColor>
#include <QFont>
#include <QPainterPath>

#include <vector>

class QPainter;

namespace gml::graphstyle {

// A node's time split, in the studio's one palette (render/theme.h): CPU, GPU compute,
// communication, copies, idle.
QColor mixColor(int k);
inline const char *const kMixNames[5] = {"CPU", "GPU compute", "communication", "copies", "idle"};
inline const QColor kCritical{0xd6, 0x27, 0x28};
inline const QColor kSelected{0x1f, 0x6f, 0xeb};
inline const QColor kHighlighted{0xff, 0x9f, 0x1c};
inline const QColor kMatch{0xf5, 0xc5, 0x18};

QFont nameFont();
QFont smallFont();
QFont legendFont();
// a..b at t (0..1).
QColor mix(const QColor &a, const QColor &b, double t);

Qt::PenStyle edgeStyle(sim::ModelEdge::Kind kind);
double edgeWidth(sim::ModelEdge::Kind kind);
QString edgeLabel(sim::ModelEdge::Kind kind);
// Horizontal-tangent cubic segments through the route's points (dot's look for LR graphs).
QPainterPath routePath(const std::vector<QPointF> &r, double offset);
void arrowHead(QPainter &p, QPointF tip, double direction, const QColor &color, double size);

} // namespace gml::graphstyle
