// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphpainter.h"

#include "graphstyle.h"
#include "theme.h"

#include "timeformat.h"

#include <QElapsedTimer>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace gml {

using sim::ModelEdge;
using namespace graphstyle;

namespace {

struct LegendEntry
{
    std::optional<ModelEdge::Kind> edge;
    bool critical = false;
    int mix = -1;
    double swatch = 0; // the width before the text
    QString text;
};

std::vector<LegendEntry> legendEntries(const GraphScene &scene)
{
    std::vector<ModelEdge::Kind> kinds;
    for (const auto &e : scene.edges)
        if (std::find(kinds.begin(), kinds.end(), e.kind) == kinds.end())
            kinds.push_back(e.kind);
    std::sort(kinds.begin(), kinds.end());
    std::vector<LegendEntry> out;
    for (auto kind : kinds)
        out.push_back({kind, false, -1, 26, edgeLabel(kind)});
    out.push_back({std::nullopt, true, -1, 26, QStringLiteral("critical path")});
    for (int k = 0; k < 5; ++k)
        out.push_back({std::nullopt, false, k, 18, QLatin1String(kMixNames[k])});
    out.push_back(
        {std::nullopt, false, -1, 0, QStringLiteral("×N: repeats folded · colour: share of time")});
    return out;
}

struct LegendPlace
{
    int row = 0;
    double x = 0;
};

// Entries left to right, a new row when the next does not fit.
std::vector<LegendPlace> flowLegend(const std::vector<LegendEntry> &entries,
                                    const QFontMetricsF &fm, double width)
{
    std::vector<LegendPlace> out;
    int row = 0;
    double x = 10;
    for (const LegendEntry &e : entries) {
        const double w = e.swatch + fm.horizontalAdvance(e.text);
        if (x > 10 && x + w > width - 6) {
            ++row;
            x = 10;
        }
        out.push_back({row, x});
        x += w + 16;
    }
    return out;
}

// One row per iteration when the boxes are the insides of several iterations that run one
// after another (one rank's, or ranks folded): iterations down, their phases and modules
// across, so "which module of which iteration" reads off the rows. The first box of each
// iteration but the first starts a row.
std::vector<int> iterationRows(const GraphScene &scene)
{
    const auto &model = *scene.model;
    std::map<int, int> firstItem; // iteration node -> its earliest item
    for (size_t i = 0; i < scene.items.size(); ++i) {
        const int it = model.ancestorAt(scene.items[i].node, sim::Level::Iteration);
        if (it < 0 || it == scene.items[i].node || scene.items[i].isGroup())
            return {}; // a box outside the iterations, an iteration closed, a group of them
        auto [at, fresh] = firstItem.try_emplace(it, int(i));
        if (!fresh && scene.items[i].start < scene.items[size_t(at->second)].start)
            at->second = int(i);
    }
    if (firstItem.size() < 2)
        return {};
    std::vector<int> iterations;
    for (const auto &[it, item] : firstItem)
        iterations.push_back(it);
    const auto &nodes = model.nodes();
    std::sort(iterations.begin(), iterations.end(),
              [&](int a, int b) { return nodes[size_t(a)].start < nodes[size_t(b)].start; });
    // One rank's, or ranks folded (an iteration's GPU tail may overlap the next one's start).
    for (size_t k = 1; k < iterations.size(); ++k)
        if (nodes[size_t(iterations[k])].rank != nodes[size_t(iterations[0])].rank)
            return {}; // side by side (ranks apart): no rows
    std::vector<int> out;
    for (size_t k = 1; k < iterations.size(); ++k)
        out.push_back(firstItem[iterations[k]]);
    return out;
}

} // namespace

std::shared_ptr<const GraphPicture>
GraphPicture::make(std::shared_ptr<const sim::ExecutionModel> model, const GraphCollapse &collapse)
{
    auto picture = std::make_shared<GraphPicture>();
    QElapsedTimer timer;
    timer.start();
    picture->scene = GraphScene::build(std::move(model), collapse);
    picture->buildMs = double(timer.nsecsElapsed()) / 1e6;
    timer.restart();
    GraphLayoutInput input;
    // A chain of operators reads left to right, one row: wrapping it into bands of rows made
    // edges loop around the whole graph. The view scrolls instead.
    input.aspect = 0;
    const QFontMetricsF names(nameFont()), tags(smallFont());
    input.sizes.reserve(picture->scene.items.size());
    for (size_t i = 0; i < picture->scene.items.size(); ++i) {
        const GraphItem &item = picture->scene.items[i];
        const double want =
            std::max(names.horizontalAdvance(item.label) + 16,
                     tags.horizontalAdvance(GraphPainter::context(picture->scene, int(i))) +
                         (item.count > 1 ? 62 : 30));
        input.sizes.emplace_back(
            std::clamp(std::ceil(want), GraphPainter::kNodeWidth, GraphPainter::kMaxNodeWidth),
            GraphPainter::kNodeHeight);
    }
    // Collectives join ranks that run side by side: they do not order the layers (they would
    // make cycles of every all-reduce); they are drawn straight between the boxes instead.
    std::vector<size_t> laidOut;
    for (size_t i = 0; i < picture->scene.edges.size(); ++i) {
        const auto &e = picture->scene.edges[i];
        if (e.kind != ModelEdge::Kind::Collective) {
            input.edges.emplace_back(e.from, e.to);
            laidOut.push_back(i);
        }
    }
    input.rowStarts = iterationRows(picture->scene);
    picture->rowPerIteration = !input.rowStarts.empty();
    GraphLayoutResult layout = layoutGraph(input);
    std::vector<std::vector<QPointF>> routes(picture->scene.edges.size());
    std::vector<bool> reversed(picture->scene.edges.size(), false);
    for (size_t k = 0; k < laidOut.size(); ++k) {
        routes[laidOut[k]] = std::move(layout.routes[k]);
        reversed[laidOut[k]] = layout.reversed[k];
    }
    for (size_t i = 0; i < picture->scene.edges.size(); ++i) {
        const auto &e = picture->scene.edges[i];
        if (e.kind != ModelEdge::Kind::Collective)
            continue;
        const QRectF a = layout.boxes[size_t(e.from)], b = layout.boxes[size_t(e.to)];
        if (a.right() > b.left() && b.right() > a.left()) { // one above the other
            const bool down = b.top() >= a.bottom();
            routes[i] = {QPointF(a.center().x(), down ? a.bottom() : a.top()),
                         QPointF(b.center().x(), down ? b.top() : b.bottom())};
        } else {
            const bool right = b.left() >= a.right();
            routes[i] = {QPointF(right ? a.right() : a.left(), a.center().y()),
                         QPointF(right ? b.left() : b.right(), b.center().y())};
        }
    }
    layout.routes = std::move(routes);
    layout.reversed = std::move(reversed);
    picture->layout = std::move(layout);
    picture->layoutMs = double(timer.nsecsElapsed()) / 1e6;
    return picture;
}

double GraphPainter::legendHeight(const GraphPicture &picture, double width)
{
    const auto entries = legendEntries(picture.scene);
    return GraphPainter::kLegendHeight *
           double(flowLegend(entries, QFontMetricsF(legendFont()), width).back().row + 1);
}

QString GraphPainter::context(const GraphScene &scene, int index)
{
    const GraphItem &item = scene.items[size_t(index)];
    const auto &nodes = scene.model->nodes();
    const sim::ModelNode &node = nodes[size_t(item.node)];
    QStringList path;
    for (int p = node.parent; p >= 0 && p != scene.collapse.focus; p = nodes[size_t(p)].parent)
        if (nodes[size_t(p)].level == sim::Level::Iteration ||
            nodes[size_t(p)].level == sim::Level::Phase)
            path.prepend(nodes[size_t(p)].name);
    QString tag = path.isEmpty() ? sim::levelName(node.level) : path.join(QStringLiteral(" › "));
    if (node.ranks > 1)
        tag += QStringLiteral(" · %1 ranks").arg(node.ranks);
    else if (node.rank >= 0 && node.level <= sim::Level::Iteration)
        tag += QStringLiteral(" · rank %1").arg(node.rank);
    return tag;
}

int GraphPicture::itemAt(QPointF point) const
{
    for (size_t i = 0; i < layout.boxes.size(); ++i)
        if (layout.boxes[i].contains(point))
            return int(i);
    return -1;
}

QColor GraphPainter::edgeColor(ModelEdge::Kind kind)
{
    switch (kind) {
    case ModelEdge::Kind::Launch:
        return QColor(0x2c, 0x8c, 0x5a);
    case ModelEdge::Kind::Sync:
        return QColor(0xd9, 0x5f, 0x02);
    case ModelEdge::Kind::Collective:
        return QColor(0x7b, 0x3f, 0xa0);
    case ModelEdge::Kind::Data:
        return QColor(0x1f, 0x5f, 0xbf);
    case ModelEdge::Kind::StreamWait:
        return QColor(0x88, 0x88, 0x88);
    case ModelEdge::Kind::ThreadWait:
        return QColor(0x88, 0x88, 0x88);
    case ModelEdge::Kind::ProgramOrder:
        return QColor(0xb4, 0xb8, 0xbf);
    case ModelEdge::Kind::Workflow:
    case ModelEdge::Kind::WorkflowInferred:
        return QColor(0x1b, 0x7f, 0x3b);
    }
    return Qt::gray;
}

QTransform GraphPainter::fit(const GraphPicture &picture, const QRectF &viewport, double maxScale)
{
    const QRectF b = picture.layout.bounds.adjusted(-24, -24, 24, 24);
    if (b.isEmpty() || viewport.isEmpty())
        return {};
    const double s =
        std::min({maxScale, viewport.width() / b.width(), viewport.height() / b.height()});
    QTransform t;
    t.translate(viewport.center().x(), viewport.center().y());
    t.scale(s, s);
    t.translate(-b.center().x(), -b.center().y());
    return t;
}

QString GraphPainter::tooltip(const GraphPicture &picture, int index)
{
    const auto &scene = picture.scene;
    if (index < 0 || size_t(index) >= scene.items.size())
        return {};
    const GraphItem &item = scene.items[size_t(index)];
    const auto &node = scene.model->nodes()[size_t(item.node)];
    QString t = QStringLiteral("<b>%1</b> · %2")
                    .arg(item.label.toHtmlEscaped(), context(scene, index).toHtmlEscaped());
    if (item.range)
        t += QStringLiteral(
                 "<br>%1 nodes in a row, %2 on average (more than the view shows at once)")
                 .arg(item.count)
                 .arg(formatDuration(item.time / std::max(1, item.count)));
    else if (item.count > 1)
        t += (item.period > 1
                  ? QStringLiteral("<br>×%1 repeats of a block of %3 nodes, %2 each on average")
                  : QStringLiteral("<br>×%1 of the same shape, %2 each on average"))
                 .arg(item.count)
                 .arg(formatDuration(item.time / item.count))
                 .arg(item.period);
    t += QStringLiteral("<br>inclusive %1 · self %2")
             .arg(formatDuration(item.time), formatDuration(item.self));
    if (scene.total > 0)
        t += QStringLiteral(" · %1% of %2")
                 .arg(100.0 * double(item.time) / double(scene.total), 0, 'f', 1)
                 .arg(scene.model->nodes()[size_t(scene.collapse.focus)].name.toHtmlEscaped());
    if (scene.criticalLength > 0)
        t += QStringLiteral("<br>critical path: %1 (%2%)")
                 .arg(formatDuration(item.critical))
                 .arg(100.0 * double(item.critical) / double(scene.criticalLength), 0, 'f', 1);
    const TimeNs parts[5] = {item.mix.cpu, item.mix.gpuCompute, item.mix.communication,
                             item.mix.copies, item.mix.idle};
    TimeNs sum = 0;
    for (TimeNs v : parts)
        sum += v;
    t += QStringLiteral("<br>resource mix:");
    for (int k = 0; k < 5; ++k)
        if (parts[k] > 0)
            t += QStringLiteral("<br>&nbsp;&nbsp;%1 %2 (%3%)")
                     .arg(QLatin1String(kMixNames[k]), formatDuration(parts[k]))
                     .arg(sum > 0 ? 100.0 * double(parts[k]) / double(sum) : 0.0, 0, 'f', 1);
    if (node.ranks > 1)
        t += QStringLiteral("<br>%1 ranks folded: their span together, their work added up")
                 .arg(node.ranks);
    else if (node.rank >= 0)
        t += QStringLiteral("<br>rank %1").arg(node.rank);
    t += QStringLiteral("<br>%1 slice(s)").arg(qint64(scene.model->slices(item.node).size()));
    if (item.openable)
        t += item.isGroup() ? QStringLiteral("<br><i>double-click to show the %1</i>")
                                  .arg(item.count * item.period)
                            : QStringLiteral("<br><i>double-click to open</i>");
    return t;
}

namespace {

// Edges: parallel edges of one pair are spread apart; critical ones drawn last, on top.
void paintEdges(QPainter &p, const GraphScene &scene, const GraphLayoutResult &layout,
                const QRectF &visible)
{
    std::map<std::pair<int, int>, int> parallel, drawn;
    for (const auto &e : scene.edges)
        ++parallel[{std::min(e.from, e.to), std::max(e.from, e.to)}];
    for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < scene.edges.size(); ++i) {
            const auto &e = scene.edges[i];
            if (e.critical != (pass == 1))
                continue;
            const auto &route = layout.routes[i];
            if (route.size() < 2)
                continue;
            const auto pair = std::pair(std::min(e.from, e.to), std::max(e.from, e.to));
            const int k = drawn[pair]++, n = parallel[pair];
            const double offset = (k - (n - 1) / 2.0) * 5.0;
            const QPainterPath path = routePath(route, offset);
            // Widened: a straight horizontal edge (two boxes side by side) has a bounding box of
            // height 0, which intersects nothing, and was never drawn.
            if (!path.boundingRect().adjusted(-1, -1, 1, 1).intersects(visible))
                continue;
            const QColor color = e.critical ? kCritical : GraphPainter::edgeColor(e.kind);
            QPen pen(color, (e.critical ? 1.2 : 0.0) + edgeWidth(e.kind));
            pen.setStyle(edgeStyle(e.kind));
            pen.setCosmetic(false);
            p.setPen(pen);
            p.setBrush(Qt::NoBrush);
            p.drawPath(path);
            if (e.kind == ModelEdge::Kind::Collective)
                continue; // ranks join a collective together: no direction to show
            const QPointF tip = route.back() + QPointF(0, offset);
            const double direction = route.back().x() >= route[route.size() - 2].x() ? 1.0 : -1.0;
            arrowHead(p, tip, direction, color, 7 + pen.widthF());
        }
}

struct ItemFonts
{
    QFont name = gml::nameFont();
    QFont small = gml::smallFont();
    QFontMetricsF nameMetrics{name};
};

// One box: its fill (share of time or predicted change), stack, marks, the resource-mix bar,
// and (when `text`) its context, name, time and ×N badge.
void paintItem(QPainter &p, const GraphScene &scene, size_t i, const QRectF &box,
               const GraphOverlay &overlay, TimeNs maxTime, const ItemFonts &fonts, bool text)
{
    const QFont &nameFont = fonts.name;
    const QFont &smallFont = fonts.small;
    const QFontMetricsF &nameMetrics = fonts.nameMetrics;
    const GraphItem &item = scene.items[i];
    // Fill: the share of the focus's time (square root, so small items still show), or the
    // predicted change when a what-if colours the graph.
    QColor fill = mix(QColor(0xf7, 0xfb, 0xff), QColor(0x6b, 0xae, 0xd6),
                      std::sqrt(double(item.time) / double(maxTime)));
    if (i < overlay.change.size() && overlay.change[i]) {
        const double c = *overlay.change[i];
        fill = c < 0
                   ? mix(QColor(0xf7, 0xfb, 0xf7), QColor(0x41, 0xab, 0x5d), std::min(1.0, -c * 2))
                   : mix(QColor(0xfd, 0xf7, 0xf6), QColor(0xef, 0x65, 0x48), std::min(1.0, c * 2));
    }
    const bool critical = scene.criticalLength > 0 && item.critical * 100 >= scene.criticalLength;
    QPen border(critical ? kCritical : QColor(0x8a, 0x8f, 0x98), critical ? 2.2 : 1.0);
    if (item.count > 1) { // a stack: the repeats behind the first
        p.setPen(border);
        p.setBrush(fill.darker(104));
        p.drawRoundedRect(box.translated(5, 5), 5, 5);
        p.drawRoundedRect(box.translated(2.5, 2.5), 5, 5);
    }
    if (overlay.highlighted.contains(int(i))) {
        p.setPen(QPen(kHighlighted, 6));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(box.adjusted(-3, -3, 3, 3), 7, 7);
    }
    p.setPen(border);
    p.setBrush(overlay.matches.contains(int(i)) ? mix(fill, kMatch, 0.6) : fill);
    p.drawRoundedRect(box, 5, 5);
    if (int(i) == overlay.selected || int(i) == overlay.hovered) {
        p.setPen(QPen(int(i) == overlay.selected ? kSelected : kSelected.lighter(150), 2.5));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(box.adjusted(-1.5, -1.5, 1.5, 1.5), 6, 6);
    }
    // The resource mix, a stacked bar along the bottom.
    const TimeNs parts[5] = {item.mix.cpu, item.mix.gpuCompute, item.mix.communication,
                             item.mix.copies, item.mix.idle};
    TimeNs sum = 0;
    for (TimeNs v : parts)
        sum += v;
    if (sum > 0) {
        const QRectF bar(box.left() + 6, box.bottom() - 9, box.width() - 12, 5);
        double x = bar.left();
        p.setPen(Qt::NoPen);
        for (int k = 0; k < 5; ++k) {
            const double w = bar.width() * double(parts[k]) / double(sum);
            p.setBrush(mixColor(k));
            p.drawRect(QRectF(x, bar.top(), w, bar.height()));
            x += w;
        }
    }
    if (!text)
        return;
    p.setFont(smallFont);
    p.setPen(QColor(0x5a, 0x60, 0x6a));
    QString tag = GraphPainter::context(scene, int(i));
    if (item.period > 1)
        tag += QStringLiteral(" · block of %1").arg(item.period);
    const double tagWidth = box.width() - (item.count > 1 ? 60 : 28);
    p.drawText(QRectF(box.left() + 7, box.top() + 3, tagWidth, 13),
               Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetricsF(smallFont).elidedText(tag, Qt::ElideRight, tagWidth));
    if (item.openable && item.count == 1)
        p.drawText(QRectF(box.right() - 20, box.top() + 3, 14, 13),
                   Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("+"));
    p.setFont(nameFont);
    p.setPen(QColor(0x1d, 0x22, 0x29));
    p.drawText(QRectF(box.left() + 7, box.top() + 16, box.width() - 14, 16),
               Qt::AlignLeft | Qt::AlignVCenter,
               nameMetrics.elidedText(item.label, Qt::ElideRight, box.width() - 14));
    p.setFont(smallFont);
    p.setPen(QColor(0x30, 0x36, 0x3d));
    QString line = formatDuration(item.time);
    if (scene.criticalLength > 0 && item.critical > 0) {
        const double share = 100.0 * double(item.critical) / double(scene.criticalLength);
        line += QStringLiteral(" · crit %1%")
                    .arg(share, 0, 'f',
                         share >= 10  ? 0
                         : share >= 1 ? 1
                                      : 2);
    }
    if (i < overlay.change.size() && overlay.change[i])
        line += QStringLiteral(" · %1%2%")
                    .arg(*overlay.change[i] >= 0 ? QStringLiteral("+") : QString())
                    .arg(100.0 * *overlay.change[i], 0, 'f', 1);
    p.drawText(QRectF(box.left() + 7, box.top() + 32, box.width() - 14, 13),
               Qt::AlignLeft | Qt::AlignVCenter, line);
    if (item.count > 1) {
        const QString badge = item.range ? QStringLiteral("%1 in a row").arg(item.count)
                                         : QStringLiteral("×%1").arg(item.count);
        QFont badgeFont = smallFont;
        badgeFont.setBold(true);
        p.setFont(badgeFont);
        const double w = QFontMetricsF(badgeFont).horizontalAdvance(badge) + 10;
        const QRectF pill(box.right() - w - 4, box.top() + 3, w, 14);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x33, 0x3a, 0x45));
        p.drawRoundedRect(pill, 7, 7);
        p.setPen(Qt::white);
        p.drawText(pill, Qt::AlignCenter, badge);
    }
}

// Legend, in device coordinates: a strip along the bottom with the edge kinds present, the
// critical path, the mix colours and the ×N mark, in as many rows as the width needs.
void paintLegend(QPainter &p, const GraphScene &scene, const QRectF &viewport)
{
    const auto entries = legendEntries(scene);
    const QFont f = legendFont();
    p.setFont(f);
    const QFontMetricsF fm(f);
    const auto rows = flowLegend(entries, fm, viewport.width());
    const double height = GraphPainter::kLegendHeight * double(rows.back().row + 1);
    const QRectF strip(viewport.left(), viewport.bottom() - height, viewport.width(), height);
    p.setPen(Qt::NoPen);
    QColor back = Theme::current().header;
    back.setAlpha(235);
    p.setBrush(back);
    p.drawRect(strip);
    p.setPen(Theme::current().border);
    p.drawLine(strip.topLeft(), strip.topRight());
    for (size_t k = 0; k < entries.size(); ++k) {
        const LegendEntry &e = entries[k];
        double x = strip.left() + rows[k].x;
        const double top = strip.top() + GraphPainter::kLegendHeight * rows[k].row,
                     mid = top + GraphPainter::kLegendHeight / 2;
        if (e.edge) {
            QPen pen(GraphPainter::edgeColor(*e.edge), edgeWidth(*e.edge));
            pen.setStyle(edgeStyle(*e.edge));
            p.setPen(pen);
            p.drawLine(QPointF(x, mid), QPointF(x + 22, mid));
        } else if (e.critical) {
            p.setPen(QPen(kCritical, 2.4));
            p.drawLine(QPointF(x, mid), QPointF(x + 22, mid));
        } else if (e.mix >= 0) {
            p.setPen(Qt::NoPen);
            p.setBrush(mixColor(e.mix));
            p.drawRect(QRectF(x, mid - 3, 14, 6));
        }
        x += e.swatch;
        p.setPen(Theme::current().text);
        p.drawText(QRectF(x, top, fm.horizontalAdvance(e.text) + 2, GraphPainter::kLegendHeight),
                   Qt::AlignLeft | Qt::AlignVCenter, e.text);
    }
}

} // namespace

void GraphPainter::paint(QPainter &p, const GraphPicture &picture, const QTransform &toDevice,
                         const QRectF &viewport, const GraphOverlay &overlay)
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    p.fillRect(viewport, Theme::current().base);
    const auto &scene = picture.scene;
    const auto &layout = picture.layout;
    if (scene.items.empty()) {
        p.setPen(Theme::current().muted);
        p.drawText(viewport, Qt::AlignCenter, QStringLiteral("Nothing to show at this level."));
        p.restore();
        return;
    }
    p.setWorldTransform(toDevice);
    const double scale = std::sqrt(std::abs(toDevice.determinant()));
    const QRectF visible = toDevice.inverted().mapRect(viewport).adjusted(-40, -40, 40, 40);
    paintEdges(p, scene, layout, visible);
    TimeNs maxTime = 1;
    for (const auto &item : scene.items)
        maxTime = std::max(maxTime, item.time);
    const ItemFonts fonts;
    for (size_t i = 0; i < scene.items.size(); ++i)
        if (layout.boxes[i].intersects(visible))
            paintItem(p, scene, i, layout.boxes[i], overlay, maxTime, fonts, scale >= 0.3);
    p.setWorldTransform(QTransform());
    if (overlay.legend)
        paintLegend(p, scene, viewport);
    p.restore();
}

} // namespace gml
