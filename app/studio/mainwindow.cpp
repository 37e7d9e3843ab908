// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "commandpalette.h"
#include "detailspanel.h"
#include "focuscontroller.h"
#include "project.h"
#include "studiomenus.h"
#include "timelineview.h"
#include "whatifworkflow.h"
#include "windowlayout.h"

#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLineEdit>
#include <QMenuBar>
#include <QMimeData>
#include <QScreen>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>

namespace gml {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("GradeML Studio"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    m_centre = new TimelineCentre(this, m_session);
    ProjectOpener::Hooks hooks;
    hooks.clearSelection = [this] { m_centre->clearSelection(); };
    hooks.interactive = [this] { return m_interactive; };
    hooks.failed = [this](const QString &why) { m_centre->details()->showMessage(why); };
    m_opener = new ProjectOpener(this, m_session, std::move(hooks));
    connect(m_opener, &ProjectOpener::loaded, this, [this](bool ok) {
        if (!ok)
            m_problem = m_opener->problem();
        Q_EMIT loaded(ok);
    });
    connect(m_centre, &TimelineCentre::openProjectRequested, m_opener, &ProjectOpener::openProject);

    // The central views after the Timeline, and the panes after Details and Aggregate: the
    // registered pages (studiopages.cpp). Then the What-if pane.
    buildPages();
    buildWhatIf();
    // Docks move and close but never float: one careless drag used to leave a panel over the
    // timeline. Each has a shortcut (View menu) that brings it to the front.
    for (auto *dock : findChildren<QDockWidget *>())
        dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable);
    // The bottom panes span the window's left; What-if, when shown, takes the whole right edge
    // (its controls and chart need the height more than Details needs the width).
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
    m_layout = new WindowLayout(this, m_centre->views(), m_pages);
    m_layout->arrange();
    m_live = new LiveControls(this, m_session, *m_opener, m_centre->state());
    buildStudioMenus(*this);
    wireSession();
    // The first window: 1400 x 900 where that fits, else the screen's available area less a
    // margin (a 1366 x 768 laptop gets a window that fits, not one that overflows).
    const QScreen *screen = QGuiApplication::primaryScreen();
    const QSize room = screen ? screen->availableSize() : QSize(1400, 900);
    resize(std::min(1400, room.width() - 16), std::min(900, room.height() - 48));
}

MainWindow::~MainWindow()
{
    // A slice's self time being computed holds pointers to the window's views: it ends first,
    // while the window is still whole.
    delete m_centre;
    // The base destructors hide and remove the children (a dock hidden, a tab removed), which
    // emit: no slot of this window, half destroyed by then, may answer.
    for (QObject *child : findChildren<QObject *>())
        child->blockSignals(true);
    // The jobs that read or write the project end before the session they serve.
    delete m_live;
    delete m_opener;
}

PageContext MainWindow::pageContext()
{
    PageContext context;
    context.window = this;
    context.timeline = m_centre->timeline();
    context.state = m_centre->state();
    context.hover = [this](const QString &text) { m_centre->setHoverText(text); };
    context.reveal = [this](const QString &id) { showView(id); };
    context.message = [this](const QString &text, int ms) { statusBar()->showMessage(text, ms); };
    context.interactive = [this] { return m_interactive; };
    context.focus = m_centre->focus();
    context.rankOverview = m_centre->rankOverview();
    context.tryWhatIf = [this](const QString &run, const QList<sim::Transform> &transforms) {
        m_whatIfFlow->tryRun(run, transforms);
    };
    context.whatIf = &m_whatIf;
    context.writeProject = [this](const QString &what, ImportController::Edit edit) {
        return m_opener->write(what, std::move(edit));
    };
    context.page = [this](const QString &id) { return page(id); };
    return context;
}

void MainWindow::buildPages()
{
    // Each page makes its view and controller; the window gives it a dock (or a central tab)
    // and tells it when it is in front. Its menu entry is made with the View menu.
    const PageContext context = pageContext();
    QTabWidget *views = m_centre->views();
    for (const PageFactory make : studioPages()) {
        std::unique_ptr<StudioPage> page = make();
        StudioPage *p = page.get();
        QWidget *view = p->create(context);
        if (p->place() == StudioPage::Place::CentralView) {
            view->setObjectName(p->id());
            views->addTab(view, p->title());
            connect(views, &QTabWidget::currentChanged, this,
                    [views, p, view] { p->setInView(views->currentWidget() == view); });
        } else {
            auto *dock = new QDockWidget(p->title(), this);
            dock->setObjectName(p->id());
            dock->setWidget(view);
            connect(dock, &QDockWidget::visibilityChanged, this,
                    [p](bool visible) { p->setInView(visible); });
        }
        m_pages.push_back(std::move(page));
    }
}

StudioPage *MainWindow::page(const QString &id) const
{
    for (const auto &p : m_pages)
        if (p->id() == id)
            return p.get();
    return nullptr;
}

bool MainWindow::showPage(const QString &id)
{
    StudioPage *p = page(id);
    if (!p || !showView(id))
        return false;
    p->setInView(true);
    p->waitForIdle();
    return true;
}

bool MainWindow::showView(const QString &name)
{
    return m_layout->showView(name);
}

QString MainWindow::frontView() const
{
    return m_layout->frontView();
}

void MainWindow::buildWhatIf()
{
    // Beside the timeline, full height; the workflow (whatifworkflow.h) drives it and writes
    // through the opener's job.
    WhatIfWorkflow::Hooks hooks;
    hooks.focusRun = [this](const QString &run) {
        m_centre->timeline()->setData(m_session.data());
        m_centre->focus()->focusRuns({run});
    };
    hooks.reveal = [this](const QString &id) { showView(id); };
    hooks.problem = [this](const QString &why) { m_problem = why; };
    hooks.busy = [this] { return isBusy(); };
    hooks.write = [this](const QString &what, std::function<bool(Project &, QString *)> write) {
        m_opener->write(what, std::move(write));
    };
    m_whatIfFlow = new WhatIfWorkflow(this, m_centre->whatIfButton(), &m_whatIf, m_session,
                                      m_centre->timeline(), m_centre->state(), std::move(hooks));
    connect(m_whatIfFlow, &WhatIfWorkflow::shown, this, &MainWindow::whatIfShown);
}

WhatIfPanel *MainWindow::whatIfPanel() const
{
    return m_whatIfFlow->panel();
}

void MainWindow::showWhatIf(const QList<sim::Transform> &transforms)
{
    m_whatIfFlow->show(transforms);
}

void MainWindow::wireSession()
{
    m_centre->subscribe(m_session); // the focus first: focusing comes before opened
    m_whatIf.subscribe(m_session);
    for (const auto &page : m_pages)
        page->subscribe(m_session);
    m_whatIfFlow->subscribe(m_session);
    connect(&m_session, &ProjectSession::opened, this, &MainWindow::onProjectOpened);
}

void MainWindow::onProjectOpened()
{
    // A project on read-only media is shown as it is; edits (clock offsets, Save as Run) would
    // fail.
    const QString readOnly = Project::whyNotWritable(m_session.path());
    setWindowTitle(tr("%1%2 — GradeML Studio")
                       .arg(QFileInfo(m_session.openedPath()).fileName(),
                            readOnly.isEmpty() ? QString() : tr(" (read-only)")));
}

void MainWindow::showPalette()
{
    if (!m_palette)
        m_palette = new CommandPalette(this);
    // Every menu action, and the runs to focus (the switcher's menu).
    auto actions = CommandPalette::collect(menuBar()->actions());
    if (auto *switcher = findChild<QToolButton *>(QStringLiteral("runSwitcher"));
        switcher && switcher->menu())
        actions += CommandPalette::collect(switcher->menu()->actions(), tr("Focus"));
    m_palette->setActions(actions);
    m_palette->move(geometry().center() - QPoint(m_palette->width() / 2, height() / 3));
    m_palette->show();
    m_palette->raise();
    // A dialog shown from a shortcut is not always the active window (the window manager
    // decides): ask for it, or typing goes to whatever had the focus (issue 58).
    m_palette->activateWindow();
    m_palette->edit()->setFocus();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *e)
{
    if (e->mimeData()->hasUrls())
        e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *e)
{
    const auto urls = e->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        openPath(urls.first().toLocalFile());
        e->acceptProposedAction();
    }
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    m_layout->shown();
}

void MainWindow::closeEvent(QCloseEvent *e)
{
    if (m_interactive)
        m_layout->save();
    m_centre->focus()->waitForIdle();
    m_whatIf.waitForIdle();
    m_opener->stop();
    m_live->follower().stop(); // a recorded command gets Ctrl-C, its recorder writes what it has
    e->accept();
}

} // namespace gml
