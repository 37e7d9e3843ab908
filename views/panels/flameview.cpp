// SPDX-License-Identifier: GPL-3.0-or-later
#include "flameview.h"

#include "palette.h"
#include "timeformat.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace gml {

FlameView::FlameView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto *bar = new QWidget(this);
    auto *bl = new QHBoxLayout(bar);
    bl->setContentsMargins(6, 2, 6, 2);
    m_title = new QLabel(bar);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_metric = new QComboBox(bar);
    m_metric->setObjectName(QStringLiteral("flameMetric"));
    m_metric->addItem(tr("CPU self time"));
    m_metric->addItem(tr("GPU time by launching stack"));
    m_against = new QComboBox(bar);
    m_against->setObjectName(QStringLiteral("flameAgainst"));
    m_against->addItem(tr("No diff"));
    m_against->addItem(tr("Diff: previous selection"));
    bl->addWidget(m_title, 1);
    bl->addWidget(m_metric);
    bl->addWidget(m_against);
    layout->addWidget(bar);
    m_canvas = new FlameCanvas;
    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setWidget(m_canvas);
    layout->addWidget(m_scroll, 1);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &FlameView::requestChanged);
    connect(m_against, &QComboBox::currentIndexChanged, this, &FlameView::requestChanged);
    connect(m_canvas, &FlameCanvas::frameClicked, this, &FlameView::frameSelected);
    connect(m_canvas, &FlameCanvas::hoverTextChanged, this, &FlameView::hoverTextChanged);
    connect(m_canvas, &FlameCanvas::contextMenuAt, this, [this](int frame, QPoint global) {
        QMenu menu(this);
        menu.addAction(tr("Zoom Into"), this, [this, frame] { m_canvas->zoomTo(frame); });
        menu.addAction(tr("Zoom Out to All"), this, [this] { m_canvas->zoomTo(0); });
        menu.addSeparator();
        menu.addAction(tr("Show in Timeline"), this, [this, frame] {
            m_canvas->select(frame);
            Q_EMIT frameSelected(frame);
            Q_EMIT showInTimelineRequested(frame);
        });
        menu.addAction(tr("Copy Stack"), this, [this, frame] {
            if (const auto &g = m_canvas->graph())
                QApplication::clipboard()->setText(g->path(frame));
        });
        menu.exec(global);
    });
}

FlameMetric FlameView::metric() const
{
    return m_metric->currentIndex() == 1 ? FlameMetric::GpuTime : FlameMetric::CpuSelf;
}

FlameView::Against FlameView::against() const
{
    const int i = m_against->currentIndex();
    return i <= 0 ? Against::Nothing : i == 1 ? Against::PreviousSelection : Against::Run;
}

QString FlameView::againstRun() const
{
    return against() == Against::Run ? m_against->currentData().toString() : QString();
}

void FlameView::setRuns(const QStringList &runs)
{
    const QString current = againstRun();
    const QSignalBlocker block(m_against);
    while (m_against->count() > 2)
        m_against->removeItem(2);
    for (const QString &run : runs)
        m_against->addItem(tr("Diff: run %1").arg(run), run);
    const int keep = m_against->findData(current);
    if (!current.isEmpty())
        m_against->setCurrentIndex(keep >= 0 ? keep : 0);
}

void FlameView::clearAgainst()
{
    const QSignalBlocker quiet(m_against);
    m_against->setCurrentIndex(0);
}

void FlameView::setGraph(std::shared_ptr<const FlameGraph> graph, const QString &title)
{
    m_title->setText(title);
    m_canvas->setGraph(std::move(graph));
}

void FlameView::setMessage(const QString &text)
{
    m_title->setText(QString());
    m_canvas->setMessage(text);
}

const std::shared_ptr<const FlameGraph> &FlameView::graph() const
{
    return m_canvas->graph();
}

// --- the canvas -------------------------------------------------------------------------

FlameCanvas::FlameCanvas(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void FlameCanvas::setGraph(std::shared_ptr<const FlameGraph> graph)
{
    m_graph = std::move(graph);
    m_message.clear();
    m_zoom = 0;
    m_selected = -1;
    m_laidOutWidth = -1;
    updateGeometry();
    update();
}

void FlameCanvas::setMessage(const QString &text)
{
    m_graph.reset();
    m_message = text;
    m_boxes.clear();
    m_rows = 0;
    updateGeometry();
    update();
}

void FlameCanvas::zoomTo(int frame)
{
    if (!m_graph || frame < 0 || size_t(frame) >= m_graph->frames().size())
        return;
    m_zoom = frame;
    m_laidOutWidth = -1;
    updateGeometry();
    update();
}

void FlameCanvas::select(int frame)
{
    m_selected = frame;
    update();
}

TimeNs FlameCanvas::span(int frame) const
{
    const FlameFrame &f = m_graph->frames()[size_t(frame)];
    return m_graph->isDiff() ? std::max(f.total, f.baseTotal) : f.total;
}

void FlameCanvas::layoutBoxes()
{
    if (m_laidOutWidth == width() || !m_graph)
        return;
    m_laidOutWidth = width();
    m_boxes.clear();
    m_rows = 0;
    const auto &frames = m_graph->frames();
    // The zoomed frame's ancestors, full width, above it.
    std::vector<int> chain;
    for (int f = m_zoom; f >= 0; f = frames[size_t(f)].parent)
        chain.insert(chain.begin(), f);
    const double w = double(width());
    for (size_t i = 0; i < chain.size(); ++i)
        m_boxes.push_back({chain[i], 0, w, int(i)});
    const TimeNs all = span(m_zoom);
    if (all <= 0)
        return;
    const double scale = w / double(all);
    // Depth-first below the zoomed frame; frames under half a pixel are left out (with their
    // children).
    struct Item
    {
        int frame;
        double x0;
        int row;
    };
    std::vector<Item> stack{{m_zoom, 0.0, int(chain.size()) - 1}};
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        double x = it.x0;
        for (int c : frames[size_t(it.frame)].children) {
            const double cw = double(span(c)) * scale;
            if (cw >= 0.5) {
                m_boxes.push_back({c, x, x + cw, it.row + 1});
                stack.push_back({c, x, it.row + 1});
            }
            x += cw;
        }
    }
    for (const Box &b : m_boxes)
        m_rows = std::max(m_rows, b.row + 1);
}

QSize FlameCanvas::sizeHint() const
{
    // Every depth below the zoomed frame, its ancestors above it.
    int rows = 4;
    if (m_graph) {
        const auto &frames = m_graph->frames();
        int deepest = frames[size_t(m_zoom)].depth;
        for (const auto &f : frames)
            deepest = std::max(deepest, f.depth);
        rows = deepest + 2;
    }
    return {400, rows * kRowHeight + 4};
}

QColor FlameCanvas::colour(int frame) const
{
    const FlameFrame &f = m_graph->frames()[size_t(frame)];
    if (m_graph->isDiff()) {
        // Red where the time grew, blue where it shrank, white where it held; by the change
        // against the larger of the two.
        const double big = double(std::max(f.total, f.baseTotal));
        const double change = big > 0 ? (double(f.total) - double(f.baseTotal)) / big : 0.0;
        const int fade = int(std::round(220 * (1.0 - std::min(1.0, std::abs(change)))));
        return change >= 0 ? QColor(255, 35 + fade, 35 + fade) : QColor(35 + fade, 35 + fade, 255);
    }
    if (f.gpu)
        return SlicePalette::darker(SlicePalette::indexFor(f.name));
    return SlicePalette::color(SlicePalette::indexFor(f.name));
}

void FlameCanvas::paintEvent(QPaintEvent *event)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_graph) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(8, 4, -8, -4), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                   m_message);
        return;
    }
    layoutBoxes();
    const QRect dirty = event->rect();
    const QFontMetrics fm = fontMetrics();
    for (const Box &b : m_boxes) {
        const QRectF r(b.x0, b.row * kRowHeight, std::max(1.0, b.x1 - b.x0 - 1), kRowHeight - 1);
        if (!r.intersects(dirty))
            continue;
        const QColor c = b.frame == 0 ? palette().color(QPalette::Button) : colour(b.frame);
        p.fillRect(r, c);
        if (b.frame == m_selected) {
            p.setPen(QPen(palette().color(QPalette::Highlight), 2));
            p.drawRect(r.adjusted(1, 1, -1, -1));
        }
        if (r.width() > 24) {
            p.setPen(b.frame == 0 ? palette().color(QPalette::ButtonText)
                                  : QColor(0x20, 0x20, 0x20));
            const QString label =
                b.frame == 0 ? describe(0) : m_graph->frames()[size_t(b.frame)].name;
            p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(label, Qt::ElideRight, int(r.width()) - 5));
        }
    }
}

int FlameCanvas::frameAt(QPoint pos) const
{
    const int row = pos.y() / kRowHeight;
    for (const Box &b : m_boxes)
        if (b.row == row && pos.x() >= b.x0 && pos.x() < b.x1)
            return b.frame;
    return -1;
}

QRect FlameCanvas::frameRect(int frame) const
{
    for (const Box &b : m_boxes)
        if (b.frame == frame)
            return QRectF(b.x0, b.row * kRowHeight, b.x1 - b.x0, kRowHeight).toAlignedRect();
    return {};
}

QString FlameCanvas::describe(int frame) const
{
    if (!m_graph || frame < 0)
        return QString();
    const FlameFrame &f = m_graph->frames()[size_t(frame)];
    const TimeNs all = m_graph->total();
    const double share = all > 0 ? 100.0 * double(f.total) / double(all) : 0.0;
    QString text = frame == 0
                       ? tr("all: %1").arg(formatDuration(f.total))
                       : tr("%1%2 · %3 (%4%) · self %5 · %6 slice(s)")
                             .arg(f.name, f.gpu ? tr(" [GPU]") : QString(), formatDuration(f.total))
                             .arg(share, 0, 'f', 1)
                             .arg(formatDuration(f.self))
                             .arg(f.count);
    if (m_graph->isDiff()) {
        const double change =
            f.baseTotal > 0 ? 100.0 * (double(f.total) - double(f.baseTotal)) / double(f.baseTotal)
                            : 0.0;
        text += f.baseTotal > 0 ? tr(" · was %1 (%2%3%)")
                                      .arg(formatDuration(f.baseTotal),
                                           change >= 0 ? QStringLiteral("+") : QString())
                                      .arg(change, 0, 'f', 1)
                                : tr(" · new");
    }
    return text;
}

void FlameCanvas::mousePressEvent(QMouseEvent *e)
{
    if (e->button() != Qt::LeftButton || !m_graph)
        return;
    const int f = frameAt(e->position().toPoint());
    select(f);
    Q_EMIT frameClicked(f);
}

void FlameCanvas::mouseDoubleClickEvent(QMouseEvent *e)
{
    if (e->button() == Qt::LeftButton)
        if (const int f = frameAt(e->position().toPoint()); f >= 0)
            zoomTo(f == m_zoom ? std::max(0, m_graph->frames()[size_t(f)].parent) : f);
}

void FlameCanvas::mouseMoveEvent(QMouseEvent *e)
{
    const QString text = describe(frameAt(e->position().toPoint()));
    Q_EMIT hoverTextChanged(text);
    if (!text.isEmpty())
        QToolTip::showText(e->globalPosition().toPoint(), text, this);
    else
        QToolTip::hideText();
}

void FlameCanvas::leaveEvent(QEvent *)
{
    Q_EMIT hoverTextChanged(QString());
}

void FlameCanvas::keyPressEvent(QKeyEvent *e)
{
    if (e->key() == Qt::Key_Escape && m_zoom != 0) {
        zoomTo(0);
        return;
    }
    QWidget::keyPressEvent(e);
}

void FlameCanvas::contextMenuEvent(QContextMenuEvent *e)
{
    if (const int f = frameAt(e->pos()); f >= 0)
        Q_EMIT contextMenuAt(f, e->globalPos());
}

} // namespace gml
