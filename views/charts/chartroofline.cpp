// SPDX-License-Identifier: GPL-3.0-or-later
// The roofline chart: log-log axes, the GPU's ceilings, a point per operator (chartlayer.h).
#include "chartlayer.h"

#include "roofline.h"
#include "timeformat.h"

#include <QMouseEvent>

#include <algorithm>
#include <cmath>

namespace gml {

QColor boundColour(const QString &bound)
{
    if (bound == QLatin1String("compute"))
        return QColor(0x4c, 0x78, 0xa8);
    if (bound == QLatin1String("memory"))
        return QColor(0xf5, 0x85, 0x18);
    return QColor(0x9d, 0x9d, 0x9d); // latency (and unknown)
}

RooflineChart rooflineChart(const sim::Roofline &r)
{
    RooflineChart c;
    c.why = r.problem();
    c.title = r.catalogId.isEmpty()
                  ? QObject::tr("Roofline")
                  : QObject::tr("Roofline · %1 (%2 GB/s)").arg(r.catalogId).arg(r.peakGbps);
    if (!c.why.isEmpty())
        return c;
    c.peakGbps = r.peakGbps;
    c.roofs.push_back({QObject::tr("fp32 %1 TFLOP/s").arg(r.peakTflops), r.peakTflops});
    if (r.peakTflopsHalf > r.peakTflops)
        c.roofs.push_back({QObject::tr("fp16 %1 TFLOP/s").arg(r.peakTflopsHalf), r.peakTflopsHalf});
    TimeNs total = 0;
    for (const auto &o : r.ops)
        if (o.flops > 0 && o.bytes > 0)
            total += o.time;
    for (int i = 0; i < r.ops.size(); ++i) {
        const sim::RooflineOp &o = r.ops[i];
        if (o.flops <= 0 || o.bytes <= 0 || o.time <= 0)
            continue;
        RooflineChart::Point p;
        p.x = o.intensity();
        p.y = o.achievedTflops();
        p.share = total > 0 ? double(o.time) / double(total) : 0;
        p.op = i;
        p.color = boundColour(o.bound);
        p.label = QObject::tr("<b>%1</b> (%2)<br>%3 calls, %4 of GPU time<br>%5 TFLOP/s, %6 GB/s, "
                              "%7 FLOP/byte<br>%8-bound against %9 TFLOP/s<br><i>click: show its "
                              "longest call</i>")
                      .arg(o.name.toHtmlEscaped(), o.precision())
                      .arg(o.calls)
                      .arg(formatDuration(o.time))
                      .arg(p.y, 0, 'g', 3)
                      .arg(o.achievedGbps(), 0, 'f', 0)
                      .arg(p.x, 0, 'g', 3)
                      .arg(o.bound)
                      .arg(o.peakTflops);
        c.points.push_back(p);
    }
    return c;
}

void Chart::showRoofline(const RooflineChart &chart)
{
    reset(chart.title, tr("achieved TFLOP/s"), Kind::Roofline);
    m_roofline = chart;
    m_empty = chart.isEmpty();
    xAxis->setLabel(tr("arithmetic intensity (FLOP/byte)"));
    for (QCPAxis *axis : {xAxis, yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        axis->setNumberFormat(QStringLiteral("gb"));
    }
    if (m_empty) {
        replot();
        return;
    }
    const double ridge = chart.roofs.back().tflops * 1e3 / chart.peakGbps; // FLOP/byte
    double xlo = ridge, xhi = ridge, ylo = chart.roofs.front().tflops;
    for (const auto &p : chart.points) {
        xlo = std::min(xlo, p.x);
        xhi = std::max(xhi, p.x);
        ylo = std::min(ylo, p.y);
    }
    xlo /= 4;
    xhi *= 4;
    // The ceilings: bandwidth x intensity up to each precision's peak, flat after.
    // The fp32 roof in the theme's text colour (readable light and dark), fp16 dashed.
    const QColor roofColours[] = {palette().color(QPalette::WindowText), QColor(0xc4, 0x6e, 0x5b)};
    for (size_t k = 0; k < chart.roofs.size(); ++k) {
        const auto &roof = chart.roofs[k];
        const double knee = roof.tflops * 1e3 / chart.peakGbps;
        QVector<double> x{xlo}, y{xlo * chart.peakGbps / 1e3};
        if (knee > xlo) {
            x << knee;
            y << roof.tflops;
        } else {
            y[0] = roof.tflops;
        }
        x << xhi;
        y << roof.tflops;
        auto *g = addGraph();
        g->setName(roof.name);
        g->setPen(QPen(roofColours[k % 2], 1.6, k ? Qt::DashLine : Qt::SolidLine));
        g->setData(x, y, true);
    }
    // A point per operator, its area by its share of the GPU time.
    for (const auto &p : chart.points) {
        auto *g = addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        QColor fill = p.color;
        fill.setAlpha(170);
        g->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, p.color, fill, 5 + 22 * std::sqrt(p.share)));
        g->setData({p.x}, {p.y});
        g->removeFromLegend();
    }
    for (const char *bound : {"compute", "memory", "latency"}) {
        auto *g = addGraph();
        g->setName(tr("%1-bound").arg(QLatin1String(bound)));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, boundColour(QLatin1String(bound)), 8));
    }
    legend->setVisible(true);
    legend->setWrap(3);
    xAxis->setRange(xlo, xhi);
    yAxis->setRange(ylo / 4, chart.roofs.back().tflops * 2);
    keepRanges();
    replot();
}

const RooflineChart::Point *Chart::rooflinePointAt(QPoint pos) const
{
    return nearestPoint(m_roofline.points, pos, 12);
}

void Chart::mousePressEvent(QMouseEvent *event)
{
    QCustomPlot::mousePressEvent(event);
    if (m_kind != Kind::Roofline || event->button() != Qt::LeftButton)
        return;
    if (const auto *p = rooflinePointAt(event->position().toPoint()))
        Q_EMIT rooflinePointClicked(p->op);
}

} // namespace gml
