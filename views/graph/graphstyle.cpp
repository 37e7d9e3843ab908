// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphstyle.h"

#include <QPainter>

#include <algorithm>

namespace gml::graphstyle {

namespace {
const ResourceClass kMixClasses[5] = {ResourceClass::Cpu, ResourceClass::Compute,
                                      ResourceClass::Communication, ResourceClass::Copies,
                                      ResourceClass::Idle};
} // namespace

QColor mixColor(int k)
{
    return Theme::current().resource(kMixClasses[k]);
}

QFont nameFont()
{
    QFont f;
    f.setPixelSize(12);
    f.setBold(true);
    return f;
}

QFont smallFont()
{
    QFont f;
    f.setPixelSize(10);
    return f;
}

QFont legendFont()
{
    QFont f;
    f.setPixelSize(11);
    return f;
}

QColor mix(const QColor &a, const QColor &b, double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

Qt::PenStyle edgeStyle(sim::ModelEdge::Kind kind)
{
    switch (kind) {
    case sim::ModelEdge::Kind::Launch:
        return Qt::DashLine;
    case sim::ModelEdge::Kind::Sync:
        return Qt::DotLine;
    case sim::ModelEdge::Kind::StreamWait:
        return Qt::DashLine;
    case sim::ModelEdge::Kind::ThreadWait:
        return Qt::DotLine;
    case sim::ModelEdge::Kind::WorkflowInferred:
        return Qt::DashLine;
    default:
        return Qt::SolidLine;
    }
}

double edgeWidth(sim::ModelEdge::Kind kind)
{
    switch (kind) {
    case sim::ModelEdge::Kind::Collective:
        return 2.2;
    case sim::ModelEdge::Kind::Data:
        return 1.6;
    case sim::ModelEdge::Kind::ProgramOrder:
        return 1.0;
    case sim::ModelEdge::Kind::Workflow:
    case sim::ModelEdge::Kind::WorkflowInferred:
        return 2.4;
    default:
        return 1.3;
    }
}

QString edgeLabel(sim::ModelEdge::Kind kind)
{
    switch (kind) {
    case sim::ModelEdge::Kind::Launch:
        return QStringLiteral("launch");
    case sim::ModelEdge::Kind::Sync:
        return QStringLiteral("sync");
    case sim::ModelEdge::Kind::Collective:
        return QStringLiteral("collective");
    case sim::ModelEdge::Kind::Data:
        return QStringLiteral("data");
    case sim::ModelEdge::Kind::StreamWait:
        return QStringLiteral("stream wait");
    case sim::ModelEdge::Kind::ThreadWait:
        return QStringLiteral("thread wait");
    case sim::ModelEdge::Kind::ProgramOrder:
        return QStringLiteral("program order");
    case sim::ModelEdge::Kind::Workflow:
        return QStringLiteral("workflow");
    case sim::ModelEdge::Kind::WorkflowInferred:
        return QStringLiteral("workflow (inferred)");
    }
    return {};
}

QPainterPath routePath(const std::vector<QPointF> &r, double offset)
{
    QPainterPath path;
    if (r.size() < 2)
        return path;
    path.moveTo(r.front() + QPointF(0, offset));
    for (size_t k = 1; k < r.size(); ++k) {
        const QPointF a = r[k - 1] + QPointF(0, offset), b = r[k] + QPointF(0, offset);
        const double dx = (b.x() - a.x()) / 2;
        path.cubicTo(a + QPointF(dx, 0), b - QPointF(dx, 0), b);
    }
    return path;
}

void arrowHead(QPainter &p, QPointF tip, double direction, const QColor &color, double size)
{
    QPolygonF head;
    head << tip << tip + QPointF(-direction * size, -size * 0.5)
         << tip + QPointF(-direction * size, size * 0.5);
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    p.drawPolygon(head);
}

} // namespace gml::graphstyle
