// SPDX-License-Identifier: GPL-3.0-or-later
#include "windowlayout.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace gml {

namespace {
const QString kLayoutKey = QStringLiteral("layout/state");
const QString kGeometryKey = QStringLiteral("layout/geometry");
const QString kViewKey = QStringLiteral("layout/view");
constexpr int kLayoutVersion = 3; // docks and views as of issue 36 (the flame graph)
} // namespace

WindowLayout::WindowLayout(QMainWindow *window, QTabWidget *views,
                           const std::vector<std::unique_ptr<StudioPage>> &pages)
    : QObject(window), m_window(window), m_views(views), m_pages(pages)
{
    connect(m_views, &QTabWidget::currentChanged, this, [this] {
        QTimer::singleShot(0, this, &WindowLayout::fitBottomPanes); // once the page is shown
    });
}

const StudioPage *WindowLayout::page(const QString &id) const
{
    for (const auto &p : m_pages)
        if (p->id() == id)
            return p.get();
    return nullptr;
}

QStringList WindowLayout::bottomPanes() const
{
    // Details and Aggregate, the registered selection panes (the Flame Graph), then the
    // project's panes (Notes, Sources, Runs).
    QStringList names{QStringLiteral("details"), QStringLiteral("aggregate")};
    for (const auto place : {StudioPage::Place::SelectionPane, StudioPage::Place::ProjectPane})
        for (const auto &page : m_pages)
            if (page->place() == place)
                names << page->id();
    return names;
}

bool WindowLayout::showsSelection(const QString &pane) const
{
    if (pane == QLatin1String("details") || pane == QLatin1String("aggregate"))
        return true;
    const StudioPage *p = page(pane);
    return p && p->place() == StudioPage::Place::SelectionPane;
}

void WindowLayout::arrange()
{
    // The selection panes tabbed below the centre, Details in front; What-if at the right,
    // hidden until asked for (its button, Alt+0). The first layout and View › Reset Layout.
    QDockWidget *prev = nullptr;
    for (const QString &name : bottomPanes()) {
        auto *dock = m_window->findChild<QDockWidget *>(name);
        m_window->addDockWidget(Qt::BottomDockWidgetArea, dock);
        // Small enough to shrink to a strip when another view is in front (fitBottomPanes).
        if (dock->widget())
            dock->widget()->setMinimumHeight(40);
        if (prev)
            m_window->tabifyDockWidget(prev, dock);
        dock->show();
        prev = dock;
    }
    auto *whatif = m_window->findChild<QDockWidget *>(QStringLiteral("whatif"));
    m_window->addDockWidget(Qt::RightDockWidgetArea, whatif);
    whatif->hide();
    m_window->findChild<QDockWidget *>(QStringLiteral("details"))->raise();
}

void WindowLayout::applyDefaultSizes()
{
    // A sixth of the height for the selection panes (at least 120 px), the What-if pane a third
    // of the width (400 to 480 px); hidden until asked for.
    auto *details = m_window->findChild<QDockWidget *>(QStringLiteral("details"));
    auto *whatif = m_window->findChild<QDockWidget *>(QStringLiteral("whatif"));
    m_window->resizeDocks({details}, {std::max(120, m_window->height() / 6)}, Qt::Vertical);
    m_window->resizeDocks({whatif}, {std::clamp(m_window->width() / 3, 400, 480)}, Qt::Horizontal);
}

void WindowLayout::reset()
{
    for (auto *dock : m_window->findChildren<QDockWidget *>())
        m_window->removeDockWidget(dock);
    arrange();
    m_views->setCurrentIndex(0);
    QTimer::singleShot(0, this, &WindowLayout::applyDefaultSizes); // once the docks are laid out
}

void WindowLayout::restore()
{
    QSettings settings;
    m_window->restoreGeometry(settings.value(kGeometryKey).toByteArray());
    const QByteArray state = settings.value(kLayoutKey).toByteArray();
    m_sized = m_window->restoreState(state, kLayoutVersion);
    // Restored before the window has its size, the docks' sizes are scaled when it gets it
    // (a 235 px pane came back 267 px): the state is applied again once it is shown.
    if (m_sized)
        m_pendingState = state;
    showView(settings.value(kViewKey, QStringLiteral("timeline")).toString());
}

void WindowLayout::shown()
{
    // The default sizes are fractions of the window: applied once it has its size (a
    // screenshot's --size, a restored geometry), when the docks are laid out.
    if (!m_sized) {
        m_sized = true;
        QTimer::singleShot(0, this, &WindowLayout::applyDefaultSizes);
    } else if (!m_pendingState.isEmpty()) {
        m_window->restoreState(std::exchange(m_pendingState, {}), kLayoutVersion);
    }
}

void WindowLayout::save()
{
    QSettings settings;
    settings.setValue(kGeometryKey, m_window->saveGeometry());
    settings.setValue(kLayoutKey, m_window->saveState(kLayoutVersion));
    settings.setValue(kViewKey, frontView());
}

bool WindowLayout::showView(const QString &name)
{
    // A part of a page ("memory": the Analysis view's Memory page): the page shows it.
    for (const auto &p : m_pages)
        if (p->showPart(name))
            return showView(p->id());
    for (int i = 0; i < m_views->count(); ++i)
        if (m_views->widget(i)->objectName() == name) {
            m_views->setCurrentIndex(i);
            return true;
        }
    if (auto *dock = m_window->findChild<QDockWidget *>(name)) {
        dock->show();
        dock->raise();
        // A page asked for gets the room it asks for (the flame graph a third of the height,
        // to read a few levels).
        const StudioPage *p = page(name);
        const int wanted = p ? int(p->heightWhenShown() * m_window->height()) : 0;
        if (wanted > 0 && m_window->dockWidgetArea(dock) == Qt::BottomDockWidgetArea &&
            !dock->isFloating() && dock->height() < wanted) {
            m_bottomHeight = 0;
            m_window->resizeDocks({dock}, {wanted}, Qt::Vertical);
        }
        // The keyboard follows (Alt+9 shows Runs and types into its filter, issue 58): the
        // dock's first widget that takes the focus by Tab.
        if (QWidget *inside = dock->widget()) {
            for (QWidget *w : inside->findChildren<QWidget *>())
                if ((w->focusPolicy() & Qt::TabFocus) && w->isVisibleTo(dock) && w->isEnabled()) {
                    w->setFocus(Qt::ShortcutFocusReason);
                    break;
                }
        }
        return true;
    }
    return false;
}

void WindowLayout::fitBottomPanes()
{
    // The selection panes (Details, Aggregate, Flame Graph) show the timeline's selection: with
    // another view in front they shrink to their tabs and a line, so Analysis, Graph, Compare
    // and Query get the height, and come back at the size they had with the timeline. With
    // Runs, Notes or Sources in front they keep their size (Compare works from Runs).
    constexpr int kCompact = 72;
    QDockWidget *front = nullptr;
    for (const QString &name : bottomPanes())
        if (auto *d = m_window->findChild<QDockWidget *>(name);
            d && d->isVisible() && !d->isFloating() && !d->visibleRegion().isEmpty() &&
            m_window->dockWidgetArea(d) == Qt::BottomDockWidgetArea)
            front = d;
    if (!front)
        return;
    const QString name = front->objectName();
    const bool selectionPane = showsSelection(name);
    if (frontView() != QLatin1String("timeline")) {
        if (selectionPane && m_bottomHeight == 0 && front->height() > kCompact) {
            m_bottomHeight = front->height();
            m_window->resizeDocks({front}, {kCompact}, Qt::Vertical);
        }
    } else if (m_bottomHeight > 0) {
        const int target = std::exchange(m_bottomHeight, 0);
        m_window->resizeDocks({front}, {target}, Qt::Vertical);
        // resizeDocks sizes the area a little short of the dock's own height (its title bar):
        // measured once laid out, the difference is added back.
        QTimer::singleShot(0, this, [this, front, target] {
            if (front->height() != target && frontView() == QLatin1String("timeline"))
                m_window->resizeDocks({front}, {2 * target - front->height()}, Qt::Vertical);
        });
    }
}

QString WindowLayout::frontView() const
{
    return m_views->currentWidget()->objectName();
}

} // namespace gml
