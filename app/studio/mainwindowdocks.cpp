// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's docks beside the timeline: the execution graph, the what-if panel, the
// analysis panel, the runs browser, the comparison and the strategy simulator, each built here
// and wired by its controller.
#include "mainwindow.h"

#include "analysiscontroller.h"
#include "analysispanel.h"
#include "comparecontroller.h"
#include "comparepanel.h"
#include "focuscontroller.h"
#include "graphview.h"
#include "notescontroller.h"
#include "notespanel.h"
#include "project.h"
#include "querycontroller.h"
#include "queryview.h"
#include "rankoverviewcontroller.h"
#include "runsbrowser.h"
#include "runscontroller.h"
#include "simulatecontroller.h"
#include "simulatepanel.h"
#include "theme.h"
#include "timelinestate.h"
#include "timelineview.h"
#include "whatifpanel.h"
#include "whatifworkflow.h"

#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace gml {

namespace {

// A bottom panel in a scroll area. The bottom docks share one area, whose height can go no
// lower than the tallest minimum among them: unwrapped, the Compare and What-if panels (450
// and 300 px) held it at half the window and squeezed the timeline. Squeezed, a panel scrolls.
QWidget *scrolled(QWidget *panel)
{
    auto *area = new QScrollArea;
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(panel);
    return area;
}

} // namespace

void MainWindow::buildGraphPanel()
{
    // The execution graph beside the timeline: a run picker over the graph view.
    auto *box = new QWidget(this);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto *top = new QHBoxLayout;
    top->setContentsMargins(6, 3, 6, 0);
    auto *runs = new QComboBox(box);
    runs->setMinimumContentsLength(24);
    top->addWidget(new QLabel(tr("Run:"), box));
    top->addWidget(runs, 1);
    layout->addLayout(top);
    m_graphView = new GraphView(box);
    layout->addWidget(m_graphView, 1);
    box->setObjectName(QStringLiteral("graph"));
    m_views->addTab(box, tr("Graph"));
    m_graph = new GraphController(m_graphView, runs, m_state, m_timeline, this);
    connect(m_graph, &GraphController::runChosen, this,
            [this](const QString &run) { m_focus->focusRuns({run}); });
    connect(m_views, &QTabWidget::currentChanged, m_graph,
            [this, box] { m_graph->setVisible(m_views->currentWidget() == box); });
    connect(&m_whatIf, &WhatIfController::resultReady, m_graph, &GraphController::onWhatIfResult);
}

bool MainWindow::showGraph()
{
    showView(QStringLiteral("graph"));
    m_graph->setVisible(true);
    m_graph->waitForIdle();
    m_graphView->waitForLayout();
    // A project with nothing to draw (monitoring only, an empty run) shows so; not a failure.
    m_problem = m_graph->error();
    return m_problem.isEmpty();
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
    dock->setWidget(scrolled(m_whatIfPanel));
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

void MainWindow::buildAnalysisPanel()
{
    auto *panel = new AnalysisPanel(this);
    QWidget *page = scrolled(panel);
    page->setObjectName(QStringLiteral("analysis"));
    m_views->addTab(page, tr("Analysis"));
    m_analysis = new AnalysisController(
        panel, m_state, m_timeline,
        [this](const QString &run, const QList<sim::Transform> &transforms) {
            tryWhatIf(run, transforms);
        },
        this);
    connect(m_views, &QTabWidget::currentChanged, m_analysis,
            [this, page] { m_analysis->setVisible(m_views->currentWidget() == page); });
    // A piece of evidence clicked: shown in the timeline, which comes to the front (asked for).
    connect(m_analysis, &AnalysisController::revealed, this,
            [this] { showView(QStringLiteral("timeline")); });
    // One run everywhere: the Analysis view follows the timeline's focus, and an analysis of
    // the rank overview's run marks its stragglers there.
    connect(m_state, &TimelineState::focusChanged, m_analysis, [this] {
        if (const QStringList f = m_focus->focusNames(); !f.isEmpty())
            m_analysis->follow(f.first());
    });
    connect(m_analysis, &AnalysisController::reportReady, this,
            [this, panel](const QString &run, const QString &error) {
                if (error.isEmpty() && panel->report() && panel->report()->analysis)
                    m_rankOverview->setStragglers(run, panel->report()->analysis->stragglers,
                                                  panel->report()->criticalByRank);
            });
}

void MainWindow::buildRunsPanel()
{
    // The catalog sits with the selection panes; the comparison is a view of its own.
    auto *browser = new RunsBrowser(this);
    auto *dock = new QDockWidget(tr("Runs"), this);
    dock->setObjectName(QStringLiteral("runs"));
    dock->setWidget(browser);
    m_runs = new RunsController(browser, this);
    connect(browser, &RunsBrowser::showInTimelineRequested, this,
            [this](const QStringList &runs, bool projectClock) {
                m_focus->focusRuns(runs, projectClock);
                // The user asked to see them: the timeline comes to the front, with the focus.
                showView(QStringLiteral("timeline"));
                m_timeline->setFocus(Qt::OtherFocusReason);
            });

    // The comparison of the runs picked in the browser, in a dock of its own.
    auto *panel = new ComparePanel(this);
    QWidget *page = scrolled(panel);
    page->setObjectName(QStringLiteral("compare"));
    m_views->addTab(page, tr("Compare"));
    m_compare = new CompareController(panel, this);
    connect(browser, &RunsBrowser::compareRequested, this,
            [this, browser](const QStringList &runs) {
                raiseCompare();
                m_compare->compare(browser->catalog(), runs);
            });
}

void MainWindow::buildNotesPanel()
{
    // With the selection panes: the project's notes and bookmarks.
    auto *panel = new NotesPanel(this);
    auto *dock = new QDockWidget(tr("Notes"), this);
    dock->setObjectName(QStringLiteral("notes"));
    dock->setWidget(panel);
    m_notes = new NotesController(panel, m_timeline, m_state, this);
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

void MainWindow::buildNotesMenu()
{
    // Notes: Ctrl+M on what is selected (its text asked for); bookmarks Ctrl+1…9 to set and
    // 1…9 to go to (typing a digit in a text field still types it: a field takes the key first).
    QMenu *menu = menuBar()->addMenu(tr("&Notes"));
    QAction *add = menu->addAction(tr("&Add Note…"), QKeySequence(tr("Ctrl+M")), this, [this] {
        QString text = tr("Note");
        if (m_interactive) {
            bool ok = false;
            text = QInputDialog::getText(
                this, tr("Add Note"),
                tr("A note on the selected slice, else the selected range, else the cursor:"),
                QLineEdit::Normal, QString(), &ok);
            if (!ok || text.trimmed().isEmpty())
                return;
        }
        m_notes->addNote(text.trimmed());
    });
    connect(findChild<NotesPanel *>(), &NotesPanel::addRequested, add, &QAction::trigger);
    menu->addAction(tr("Show &Notes"), this, [this] { showView(QStringLiteral("notes")); });
    QMenu *set = menu->addMenu(tr("&Set Bookmark"));
    QMenu *go = menu->addMenu(tr("&Go to Bookmark"));
    for (int n = 1; n <= 9; ++n) {
        QAction *s =
            set->addAction(tr("Bookmark %1").arg(n), this, [this, n] { m_notes->setBookmark(n); });
        s->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_0 + n)));
        QAction *g = go->addAction(tr("Bookmark %1").arg(n), this, [this, n] {
            if (!m_notes->goToBookmark(n))
                statusBar()->showMessage(
                    tr("No bookmark %1 yet: Ctrl+%1 sets it on what is selected.").arg(n), 5000);
        });
        g->setShortcut(QKeySequence(Qt::Key(Qt::Key_0 + n)));
    }
}

void MainWindow::buildQueryPanel()
{
    // A full-size tab: SQL over the project, read-only as grademl query.
    auto *view = new QueryView(this);
    m_views->addTab(view, tr("Query"));
    m_query = new QueryController(view, m_timeline, m_state, this);
    connect(m_query, &QueryController::showTimelineRequested, this,
            [this] { showView(QStringLiteral("timeline")); });
}

void MainWindow::buildSimulatePanel()
{
    auto *panel = new SimulatePanel(this);
    QWidget *page = scrolled(panel);
    page->setObjectName(QStringLiteral("simulate"));
    m_views->addTab(page, tr("Simulate"));
    // The sweep's results are saved through the import path (off the GUI thread, then the
    // project reloads and every dock sees the new runs).
    auto save = [this](const QList<sim::SimResult> &results, const QStringList &names) {
        if (isBusy() || m_session.path().isEmpty())
            return false;
        startImport(m_session.path(), {},
                    results.size() == 1 ? tr("a simulated run")
                                        : tr("%1 simulated runs").arg(results.size()),
                    [results, names](Project &p, QString *why) {
                        for (qsizetype i = 0; i < results.size(); ++i)
                            if (!sim::saveSimulatedRun(p, results[i], names[i], why)) {
                                *why = tr("simulated run '%1' not saved: %2").arg(names[i], *why);
                                return false;
                            }
                        return true;
                    });
        return true;
    };
    m_simulate = new SimulateController(panel, save, this);
    auto *browser = findChild<RunsBrowser *>();
    connect(m_runs, &RunsController::catalogLoaded, m_simulate,
            [this, browser](int, const QString &error) {
                if (error.isEmpty())
                    m_simulate->setCatalog(browser->catalog());
            });
    connect(panel, &SimulatePanel::runActivated, this, [this, browser, panel](const QString &run) {
        // A simulated run against the others shown (up to four runs): the Compare dock.
        QStringList runs{run};
        for (const SweepPoint &p : panel->points())
            if (p.run != run && runs.size() < 4 && browser->catalog().run(p.run))
                runs << p.run;
        if (runs.size() >= 2 && browser->catalog().run(run)) {
            raiseCompare();
            m_compare->compare(browser->catalog(), runs);
        }
    });
}

bool MainWindow::showSimulate()
{
    if (m_session.path().isEmpty()) {
        m_problem = tr("no project is open");
        return false;
    }
    showView(QStringLiteral("simulate"));
    m_runs->waitForIdle();
    m_simulate->waitForIdle();
    return true;
}

void MainWindow::raiseCompare()
{
    showView(QStringLiteral("compare"));
}

bool MainWindow::showCompare(const QStringList &runs, const QString &metric)
{
    auto *browser = findChild<RunsBrowser *>();
    if (!browser || m_session.path().isEmpty()) {
        m_problem = tr("no project is open");
        return false;
    }
    m_runs->waitForIdle();
    for (const QString &r : runs)
        if (!browser->catalog().run(r)) {
            m_problem = tr("no run '%1' in the project").arg(r);
            return false;
        }
    raiseCompare();
    m_compare->compare(browser->catalog(), runs, metric);
    m_compare->waitForIdle();
    return true;
}

bool MainWindow::showRuns()
{
    if (m_session.path().isEmpty()) {
        m_problem = tr("no project is open");
        return false;
    }
    showView(QStringLiteral("runs"));
    m_runs->waitForIdle();
    return true;
}

bool MainWindow::showAnalysis()
{
    if (!m_session.data()) {
        m_problem = tr("no project is open");
        return false;
    }
    showView(QStringLiteral("analysis"));
    m_analysis->setVisible(true);
    m_analysis->waitForIdle();
    return true;
}

void MainWindow::tryWhatIf(const QString &run, const QList<sim::Transform> &transforms)
{
    m_whatIfFlow->tryRun(run, transforms);
}

} // namespace gml
