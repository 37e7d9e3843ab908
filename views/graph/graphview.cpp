// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphview.h"

#include "graphcanvas.h"

#include "graphfigure.h"
#include "timeformat.h"

#include <QComboBox>
#include <QContextMenuEvent>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QtConcurrent>

namespace gml {

GraphView::GraphView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto *bar = new QWidget(this);
    auto *barLayout = new QHBoxLayout(bar);
    barLayout->setContentsMargins(6, 3, 6, 3);
    m_crumbs = new QWidget(bar);
    m_crumbLayout = new QHBoxLayout(m_crumbs);
    m_crumbLayout->setContentsMargins(0, 0, 0, 0);
    m_crumbLayout->setSpacing(0);
    // A deep breadcrumb or a long status line must not widen the dock (and the window).
    m_crumbs->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    barLayout->addWidget(m_crumbs, 1);
    barLayout->addWidget(new QLabel(tr("Open down to:"), bar));
    m_level = new QComboBox(bar);
    for (sim::Level l : {sim::Level::Iteration, sim::Level::Phase, sim::Level::Scope,
                         sim::Level::Operator, sim::Level::GpuWork})
        m_level->addItem(l == sim::Level::Scope ? tr("module / scope") : sim::levelName(l), int(l));
    m_level->setCurrentIndex(m_level->findData(int(GraphCollapse{}.level)));
    m_level->setToolTip(
        tr("The deepest level opened automatically while the boxes fit; a double-click opens "
           "a box further"));
    barLayout->addWidget(m_level);
    m_foldRanks = new QToolButton(bar);
    m_foldRanks->setText(tr("Fold ranks"));
    m_foldRanks->setCheckable(true);
    m_foldRanks->setChecked(true);
    m_foldRanks->setToolTip(
        tr("One box for the same work of every rank (their span together), or each rank's apart"));
    m_foldRanks->hide();
    barLayout->addWidget(m_foldRanks);
    m_syncEdges = new QToolButton(bar);
    m_syncEdges->setText(tr("Sync edges"));
    m_syncEdges->setCheckable(true);
    m_syncEdges->setToolTip(
        tr("Draw where the host waits for the device (those on the critical path always show)"));
    barLayout->addWidget(m_syncEdges);
    m_find = new QLineEdit(bar);
    m_find->setPlaceholderText(tr("Find node (Enter: next)"));
    m_find->setClearButtonEnabled(true);
    m_find->setMaximumWidth(220);
    barLayout->addWidget(m_find);
    auto *fitButton = new QToolButton(bar);
    fitButton->setText(tr("Fit"));
    fitButton->setToolTip(tr("Fit the graph in the view (F)"));
    barLayout->addWidget(fitButton);
    auto *exportButton = new QToolButton(bar);
    exportButton->setText(tr("Export…"));
    exportButton->setToolTip(tr("Save the graph as PNG, SVG or PDF"));
    barLayout->addWidget(exportButton);
    layout->addWidget(bar);
    m_notice = new QLabel(this);
    m_notice->setWordWrap(true);
    m_notice->setContentsMargins(8, 4, 8, 4);
    m_notice->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    m_notice->setStyleSheet(QStringLiteral(
        "QLabel { background: #fff4d6; color: #5a4300; border-bottom: 1px solid #e6d08a; }"));
    m_notice->hide();
    connect(m_notice, &QLabel::linkActivated, this, &GraphView::noticeLinkActivated);
    layout->addWidget(m_notice);
    m_canvas = new GraphCanvas(this);
    {
        auto *area = new QGridLayout;
        area->setContentsMargins(0, 0, 0, 0);
        area->setSpacing(0);
        auto *horizontal = new QScrollBar(Qt::Horizontal, this);
        auto *vertical = new QScrollBar(Qt::Vertical, this);
        horizontal->hide();
        vertical->hide();
        area->addWidget(m_canvas, 0, 0);
        area->addWidget(vertical, 0, 1);
        area->addWidget(horizontal, 1, 0);
        m_canvas->setScrollBars(horizontal, vertical);
        layout->addLayout(area, 1);
    }
    m_status = new QLabel(this);
    m_status->setContentsMargins(6, 2, 6, 2);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    connect(m_level, &QComboBox::activated, this,
            [this] { setLevel(sim::Level(m_level->currentData().toInt())); });
    connect(m_find, &QLineEdit::returnPressed, this, [this] { find(m_find->text()); });
    connect(m_find, &QLineEdit::textChanged, this, [this](const QString &t) {
        if (t.isEmpty())
            find({});
    });
    connect(fitButton, &QToolButton::clicked, this, &GraphView::fit);
    connect(m_foldRanks, &QToolButton::toggled, this, &GraphView::foldRanksToggled);
    connect(m_syncEdges, &QToolButton::toggled, this, [this](bool on) {
        GraphCollapse c = m_collapse;
        c.syncEdges = on;
        setCollapse(c);
    });
    connect(exportButton, &QToolButton::clicked, this, &GraphView::exportDialog);
    connect(&m_watcher, &QFutureWatcher<std::shared_ptr<const GraphPicture>>::finished, this,
            [this] {
                auto picture = m_watcher.result();
                if (picture->scene.model != m_model) { // laid out for a model replaced since
                    m_pending = false;
                    request();
                    return;
                }
                m_cache.insert(picture->scene.collapse.key(), picture);
                if (m_pending) { // the user moved on while this one was laid out
                    m_pending = false;
                    request();
                    return;
                }
                show(std::move(picture));
            });
    showMessage(tr("Open a project to see its execution graph."));
}

GraphView::~GraphView()
{
    m_watcher.waitForFinished();
}

void GraphView::setModel(std::shared_ptr<const sim::ExecutionModel> model, const QString &title,
                         int focus)
{
    m_watcher.waitForFinished();
    m_pending = false;
    m_cache.clear();
    m_model = std::move(model);
    m_title = title;
    m_picture.reset();
    m_canvas->m_picture.reset();
    m_highlightNodes.clear();
    m_change.clear();
    m_canvas->m_overlay = {};
    GraphCollapse c;
    c.level = sim::Level(m_level->currentData().toInt());
    c.syncEdges = m_syncEdges->isChecked();
    c.focus = focus;
    m_collapse = c;
    if (!m_model || m_model->nodes().empty()) {
        showMessage(tr("The run has no execution graph."));
        return;
    }
    m_message.clear();
    request();
}

void GraphView::showMessage(const QString &message)
{
    m_message = message;
    m_canvas->m_message = message;
    m_status->setText(message);
    m_canvas->update();
}

void GraphView::setCollapse(const GraphCollapse &collapse)
{
    m_collapse = collapse;
    Q_EMIT collapseChanged();
    request();
}

void GraphView::setFocusNode(int node)
{
    if (!m_model || node < 0 || size_t(node) >= m_model->nodes().size())
        return;
    GraphCollapse c = m_collapse;
    c.focus = node;
    setCollapse(c);
}

void GraphView::unfold(int item)
{
    if (!m_picture || item < 0 || size_t(item) >= m_picture->scene.items.size())
        return;
    const GraphItem &it = m_picture->scene.items[size_t(item)];
    GraphCollapse c = m_collapse;
    c.unfolded.insert(it.unfoldKey());
    c.closed.remove(it.first);
    setCollapse(c);
}

void GraphView::openInPlace(int item)
{
    if (!m_picture || item < 0 || size_t(item) >= m_picture->scene.items.size())
        return;
    const int node = m_picture->scene.items[size_t(item)].node;
    GraphCollapse c = m_collapse;
    c.opened.insert(node);
    c.closed.remove(node);
    setCollapse(c);
}

void GraphView::collapseItem(int item)
{
    if (!m_picture || item < 0 || size_t(item) >= m_picture->scene.items.size())
        return;
    // The item folds back into its parent: the parent is closed (and its own opening undone).
    const auto &nodes = m_model->nodes();
    const int parent = nodes[size_t(m_picture->scene.items[size_t(item)].node)].parent;
    if (parent < 0 || parent == m_collapse.focus) {
        const auto crumbs = m_picture->scene.breadcrumb();
        if (crumbs.size() > 1)
            setFocusNode(crumbs[crumbs.size() - 2]);
        return;
    }
    GraphCollapse c = m_collapse;
    c.opened.remove(parent);
    c.closed.insert(parent);
    for (int ch : nodes[size_t(parent)].children) {
        c.unfolded.remove(ch);
        c.unfolded.remove(GraphItem::rangeKey(ch));
    }
    setCollapse(c);
}

void GraphView::setLevel(sim::Level level)
{
    const int index = m_level->findData(int(level));
    if (index >= 0)
        m_level->setCurrentIndex(index);
    GraphCollapse c = m_collapse;
    c.level = level;
    setCollapse(c);
}

void GraphView::request()
{
    if (!m_model)
        return;
    const auto cached = m_cache.value(m_collapse.key());
    if (cached) {
        show(cached);
        return;
    }
    if (m_watcher.isRunning()) {
        m_pending = true;
        return;
    }
    m_canvas->m_message = tr("Laying out…");
    m_canvas->update();
    const auto model = m_model;
    const GraphCollapse collapse = m_collapse;
    m_watcher.setFuture(
        QtConcurrent::run([model, collapse] { return GraphPicture::make(model, collapse); }));
}

bool GraphView::isLayingOut() const
{
    return m_watcher.isRunning() || m_pending;
}

void GraphView::waitForLayout()
{
    while (isLayingOut() ||
           (m_model && (!m_picture || m_picture->scene.collapse.key() != m_collapse.key()))) {
        m_watcher.waitForFinished();
        QCoreApplication::processEvents();
        if (!m_model)
            break;
    }
}

void GraphView::show(std::shared_ptr<const GraphPicture> picture)
{
    const bool newFocus = !m_picture ||
                          m_picture->scene.collapse.focus != picture->scene.collapse.focus ||
                          m_picture->scene.collapse.level != picture->scene.collapse.level;
    m_picture = std::move(picture);
    m_canvas->m_picture = m_picture;
    m_canvas->m_message.clear();
    m_canvas->m_overlay.selected = -1;
    m_canvas->m_overlay.hovered = -1;
    updateOverlay();
    rebuildBreadcrumb();
    m_status->setText(statusText());
    if (newFocus)
        m_canvas->showStart();
    m_canvas->changed();
    Q_EMIT pictureShown();
}

void GraphView::setRanksFoldable(bool foldable)
{
    m_foldRanks->setVisible(foldable);
}

bool GraphView::ranksFolded() const
{
    return m_foldRanks->isChecked();
}

void GraphView::setRanksFolded(bool folded)
{
    m_foldRanks->setChecked(folded);
}

QString GraphView::statusText() const
{
    if (!m_picture)
        return m_message;
    const auto &s = m_picture->scene;
    QString t = tr("%1 · %2 boxes, %3 edges").arg(m_title).arg(s.items.size()).arg(s.edges.size());
    if (m_picture->rowPerIteration)
        t += tr(", a row per iteration");
    else if (m_picture->layout.bands > 1)
        t += tr(", wrapped in %1 rows").arg(m_picture->layout.bands);
    if (s.hiddenSync > 0)
        t += tr(" · %n sync edge(s) not drawn (Sync edges shows them)", nullptr, s.hiddenSync);
    if (s.hiddenForBudget > 0)
        t += tr(" · %n more would open past the %1-box budget (double-click to open)", nullptr,
                s.hiddenForBudget)
                 .arg(s.collapse.budget);
    // A path needs edges: boxes with none between them (unrelated runs) claim none.
    if (s.criticalLength > 0 && !s.edges.empty())
        t += tr(" · critical path %1 (red)").arg(formatDuration(s.criticalLength));
    t += tr(" · layout %1 ms").arg(m_picture->buildMs + m_picture->layoutMs, 0, 'f', 0);
    return t;
}

void GraphView::rebuildBreadcrumb()
{
    while (auto *item = m_crumbLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (!m_upLink.isEmpty()) {
        auto *up = new QToolButton(m_crumbs);
        up->setText(m_upLink);
        up->setToolTip(tr("Back to the project's workflow of every run"));
        up->setAutoRaise(true);
        connect(up, &QToolButton::clicked, this, &GraphView::upRequested);
        m_crumbLayout->addWidget(up);
        m_crumbLayout->addWidget(new QLabel(QStringLiteral("›"), m_crumbs));
    }
    if (!m_picture) {
        m_crumbLayout->addStretch(1);
        return;
    }
    const auto crumbs = m_picture->scene.breadcrumb();
    for (size_t k = 0; k < crumbs.size(); ++k) {
        const int node = crumbs[k];
        const auto &n = m_picture->scene.model->nodes()[size_t(node)];
        auto *b = new QToolButton(m_crumbs);
        QString name = n.name;
        if (name.size() > 40)
            name = name.left(18) + QStringLiteral("…") + name.right(18);
        b->setText(name);
        b->setToolTip(
            tr("%1 %2: %3").arg(sim::levelName(n.level), n.name, formatDuration(n.inclusive())));
        b->setAutoRaise(true);
        if (k + 1 == crumbs.size()) {
            QFont f = b->font();
            f.setBold(true);
            b->setFont(f);
        } else {
            connect(b, &QToolButton::clicked, this, [this, node] { setFocusNode(node); });
        }
        m_crumbLayout->addWidget(b);
        if (k + 1 < crumbs.size())
            m_crumbLayout->addWidget(new QLabel(QStringLiteral("›"), m_crumbs));
    }
    m_crumbLayout->addStretch(1);
}

void GraphView::setNotice(const QString &text)
{
    m_notice->setText(text);
    m_notice->setVisible(!text.isEmpty());
}

QString GraphView::notice() const
{
    return m_notice->text();
}

void GraphView::setUpLink(const QString &label)
{
    m_upLink = label;
    rebuildBreadcrumb();
}

void GraphView::setHighlightedNodes(const std::vector<int> &nodes)
{
    m_highlightNodes = nodes;
    updateOverlay();
    m_canvas->update();
}

QSet<int> GraphView::highlightedItems() const
{
    return m_canvas->m_overlay.highlighted;
}

void GraphView::selectItem(int item)
{
    m_canvas->m_overlay.selected = item;
    m_canvas->update();
}

int GraphView::selectedItem() const
{
    return m_canvas->m_overlay.selected;
}

void GraphView::setPredictedChange(std::vector<std::optional<double>> perNode)
{
    m_change = std::move(perNode);
    updateOverlay();
    m_canvas->update();
}

void GraphView::updateOverlay()
{
    GraphOverlay &o = m_canvas->m_overlay;
    o.highlighted.clear();
    o.matches.clear();
    o.change.clear();
    if (!m_picture)
        return;
    const auto &scene = m_picture->scene;
    for (int n : m_highlightNodes) {
        const int item = scene.itemOf(n);
        if (item >= 0)
            o.highlighted.insert(item);
    }
    if (!m_search.isEmpty())
        for (size_t i = 0; i < scene.items.size(); ++i)
            if (scene.items[i].label.contains(m_search, Qt::CaseInsensitive))
                o.matches.insert(int(i));
    if (!m_change.empty()) {
        o.change.resize(scene.items.size());
        for (size_t i = 0; i < scene.items.size(); ++i) {
            // A group's change: its members' spans added up, measured against predicted.
            const int node = scene.items[i].node;
            if (size_t(node) < m_change.size())
                o.change[i] = m_change[size_t(node)];
        }
    }
}

void GraphView::find(const QString &text)
{
    if (text != m_search)
        m_matchCursor = -1;
    m_search = text;
    updateOverlay();
    const auto &matches = m_canvas->m_overlay.matches;
    if (!m_picture || matches.isEmpty()) {
        m_canvas->update();
        if (!text.isEmpty())
            m_status->setText(
                tr("no box named like '%1' is shown (open more, or go up)").arg(text));
        else
            m_status->setText(statusText());
        return;
    }
    std::vector<int> sorted(matches.begin(), matches.end());
    std::sort(sorted.begin(), sorted.end());
    m_matchCursor = (m_matchCursor + 1) % int(sorted.size());
    const int item = sorted[size_t(m_matchCursor)];
    m_canvas->centreOn(m_picture->layout.boxes[size_t(item)].center());
    m_status->setText(tr("match %1 of %2").arg(m_matchCursor + 1).arg(sorted.size()));
}

int GraphView::matchCount() const
{
    return int(m_canvas->m_overlay.matches.size());
}

void GraphView::fit()
{
    m_canvas->fit();
}

bool GraphView::exportTo(const QString &path, QString *error) const
{
    if (!m_picture) {
        *error = tr("nothing to export: no graph is shown");
        return false;
    }
    GraphOverlay overlay = m_canvas->m_overlay;
    overlay.hovered = -1;
    const auto crumbs = m_picture->scene.breadcrumb();
    QStringList names;
    for (int n : crumbs)
        names << m_model->nodes()[size_t(n)].name;
    const QString title = tr("%1 · %2").arg(m_title, names.join(QStringLiteral(" › ")));
    return exportGraphFigure(*m_picture, overlay, path, title, error);
}

void GraphView::exportDialog()
{
    if (!m_picture)
        return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Graph"), QStringLiteral("graph.png"),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportTo(path, &error))
        QMessageBox::warning(this, tr("Export Graph"), error);
}

} // namespace gml
