// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's pages (studiopage.h) and the What-if pane: each page built, docked or
// tabbed, and told when it is in front; the show*() helpers tests and screenshots use; the
// theme.
#include "mainwindow.h"

#include "analysiscontroller.h"
#include "comparecontroller.h"
#include "focuscontroller.h"
#include "graphcontroller.h"
#include "graphview.h"
#include "notescontroller.h"
#include "querycontroller.h"
#include "runscontroller.h"
#include "simulatecontroller.h"
#include "sourcespanel.h"
#include "theme.h"
#include "timelinestate.h"
#include "timelineview.h"
#include "whatifpanel.h"
#include "whatifworkflow.h"

#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>

namespace gml {

bool MainWindow::showGraph()
{
    if (!showPage(QStringLiteral("graph")))
        return false;
    graphView()->waitForLayout();
    // A project with nothing to draw (monitoring only, an empty run) shows so; not a failure.
    m_problem = graph()->error();
    return m_problem.isEmpty();
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

void MainWindow::buildPages()
{
    // Each page makes its view and controller; the window gives it a dock (or a central tab)
    // and tells it when it is in front. Its menu entry is made with the View menu.
    PageContext context;
    context.window = this;
    context.timeline = m_timeline;
    context.state = m_state;
    context.hover = [this](const QString &text) { m_statusHover->setText(text); };
    context.reveal = [this](const QString &id) { showView(id); };
    context.message = [this](const QString &text, int ms) { statusBar()->showMessage(text, ms); };
    context.interactive = [this] { return m_interactive; };
    context.focus = m_focus;
    context.rankOverview = m_rankOverview;
    context.tryWhatIf = [this](const QString &run, const QList<sim::Transform> &transforms) {
        tryWhatIf(run, transforms);
    };
    context.whatIf = &m_whatIf;
    context.writeProject = [this](const QString &what, ImportController::Edit edit) {
        if (isBusy() || m_session.path().isEmpty())
            return false;
        startImport(m_session.path(), {}, what, std::move(edit));
        return true;
    };
    context.page = [this](const QString &id) { return page(id); };
    for (const PageFactory make : studioPages()) {
        std::unique_ptr<StudioPage> page = make();
        StudioPage *p = page.get();
        QWidget *view = p->create(context);
        if (p->place() == StudioPage::Place::CentralView) {
            view->setObjectName(p->id());
            m_views->addTab(view, p->title());
            connect(m_views, &QTabWidget::currentChanged, this,
                    [this, p, view] { p->setInView(m_views->currentWidget() == view); });
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

void MainWindow::buildWhatIfPanel()
{
    // Beside the timeline, full height: its sliders replay the run the timeline shows. The
    // workflow (whatifworkflow.h) drives it.
    m_whatIfPanel = new WhatIfPanel(this);
    auto *dock = new QDockWidget(tr("What-if"), this);
    dock->setObjectName(QStringLiteral("whatif"));
    dock->setWidget(scrolledPage(m_whatIfPanel));
    WhatIfWorkflow::Hooks hooks;
    hooks.focusRun = [this](const QString &run) {
        m_timeline->setData(m_session.data());
        m_focus->focusRuns({run});
    };
    hooks.reveal = [this](const QString &id) { showView(id); };
    hooks.problem = [this](const QString &why) { m_problem = why; };
    hooks.busy = [this] { return isBusy(); };
    hooks.write = [this](const QString &what, std::function<bool(Project &, QString *)> write) {
        startImport(m_session.path(), {}, what, std::move(write));
    };
    m_whatIfFlow = new WhatIfWorkflow(m_whatIfPanel, dock, m_whatIfButton, &m_whatIf, m_session,
                                      m_timeline, m_state, std::move(hooks), this);
    connect(m_whatIfFlow, &WhatIfWorkflow::shown, this, &MainWindow::whatIfShown);
}

void MainWindow::showWhatIf(const QList<sim::Transform> &transforms)
{
    m_whatIfFlow->show(transforms);
}

namespace {
bool g_systemDark = false;
const QString kThemeKey = QStringLiteral("view/theme");
} // namespace

void MainWindow::setSystemDark(bool dark)
{
    g_systemDark = dark;
}

void MainWindow::setTheme(const QString &name, bool remember)
{
    bool dark = false;
    if (!Theme::parse(name, g_systemDark, &dark))
        return;
    Theme::use(dark);
    QApplication::setPalette(Theme::current().palette()); // every widget repaints in it
    if (remember)
        QSettings().setValue(kThemeKey, name);
    for (QAction *a : findChildren<QAction *>())
        if (a->objectName().startsWith(QLatin1String("theme-")))
            a->setChecked(a->objectName() == QStringLiteral("theme-") + name);
}

void MainWindow::buildThemeMenu(QMenu *view)
{
    QMenu *menu = view->addMenu(tr("T&heme"));
    auto *group = new QActionGroup(menu);
    for (const auto &[name, title] :
         {std::pair{"light", tr("&Light")}, std::pair{"dark", tr("&Dark")},
          std::pair{"system", tr("&System")}}) {
        QAction *a =
            menu->addAction(title, this, [this, n = QString::fromLatin1(name)] { setTheme(n); });
        a->setCheckable(true);
        a->setObjectName(QStringLiteral("theme-") + QLatin1String(name));
        group->addAction(a);
    }
}

QString MainWindow::savedTheme()
{
    return QSettings().value(kThemeKey, QStringLiteral("system")).toString();
}

bool MainWindow::showSimulate()
{
    if (m_session.path().isEmpty()) {
        m_problem = tr("no project is open");
        return false;
    }
    return showPage(QStringLiteral("simulate"));
}

bool MainWindow::showCompare(const QStringList &runs, const QString &metric)
{
    if (m_session.path().isEmpty()) {
        m_problem = tr("no project is open");
        return false;
    }
    RunsController *catalog = this->runs();
    catalog->waitForIdle();
    for (const QString &r : runs)
        if (!catalog->catalog().run(r)) {
            m_problem = tr("no run '%1' in the project").arg(r);
            return false;
        }
    showView(QStringLiteral("compare"));
    compare()->compare(catalog->catalog(), runs, metric);
    compare()->waitForIdle();
    return true;
}

bool MainWindow::showRuns()
{
    if (m_session.path().isEmpty()) {
        m_problem = tr("no project is open");
        return false;
    }
    return showPage(QStringLiteral("runs"));
}

bool MainWindow::showAnalysis()
{
    if (!m_session.data()) {
        m_problem = tr("no project is open");
        return false;
    }
    return showPage(QStringLiteral("analysis"));
}

// The pages' controllers, by their pages' ids.
GraphController *MainWindow::graph() const
{
    return controllerOf<GraphController>(QStringLiteral("graph"));
}

GraphView *MainWindow::graphView() const
{
    return graph()->view();
}

AnalysisController *MainWindow::analysis() const
{
    return controllerOf<AnalysisController>(QStringLiteral("analysis"));
}

SourcesPanel *MainWindow::sources() const
{
    return controllerOf<SourcesPanel>(QStringLiteral("sources"));
}

QueryController *MainWindow::query() const
{
    return controllerOf<QueryController>(QStringLiteral("query"));
}

NotesController *MainWindow::notes() const
{
    return controllerOf<NotesController>(QStringLiteral("notes"));
}

RunsController *MainWindow::runs() const
{
    return controllerOf<RunsController>(QStringLiteral("runs"));
}

CompareController *MainWindow::compare() const
{
    return controllerOf<CompareController>(QStringLiteral("compare"));
}

SimulateController *MainWindow::simulate() const
{
    return controllerOf<SimulateController>(QStringLiteral("simulate"));
}

void MainWindow::tryWhatIf(const QString &run, const QList<sim::Transform> &transforms)
{
    m_whatIfFlow->tryRun(run, transforms);
}

} // namespace gml
