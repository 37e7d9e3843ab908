// SPDX-License-Identifier: GPL-3.0-or-later
// The window's menus (File, View, Notes, Help) and the recent files.
#include "mainwindow.h"
#include "runexport.h"

#include "timelinestate.h"
#include "timelineview.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>

namespace gml {

namespace {
constexpr int kMaxRecent = 10;
const QString kRecentKey = QStringLiteral("recentPaths");
} // namespace

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Open &Folder…"), QKeySequence(tr("Ctrl+O")), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Trace Folder"));
        if (!dir.isEmpty())
            openFolder(dir);
    });
    file->addAction(tr("Open &Project…"), QKeySequence(tr("Ctrl+Shift+O")), this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open Project"), QString(),
                                                       tr("GradeML projects (*.grademl)"));
        if (!f.isEmpty())
            openProject(f);
    });
    m_recentMenu = file->addMenu(tr("&Recent"));
    rebuildRecentMenu();
    file->addSeparator();
    file->addAction(tr("Fo&llow Folder…"), this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Follow a Folder While a Job Writes It"));
        if (!dir.isEmpty())
            followFolder(dir);
    });
    file->addAction(tr("Record &Command…"), this, &MainWindow::askRecordCommand);
    file->addAction(tr("S&top Following"), this, [this] { m_follow.stop(); });
    file->addSeparator();
    file->addAction(tr("&Reload"), QKeySequence(QKeySequence::Refresh), this, [this] {
        if (!m_openedPath.isEmpty())
            openPath(m_openedPath);
    });
    file->addSeparator();
    file->addAction(tr("&Export Figure…"), QKeySequence(tr("Ctrl+E")), this,
                    &MainWindow::exportFigure);
    file->addAction(tr("Export &Run as Chrome Trace…"), this, [this] {
        askRunExport(this, m_session.path(), m_session.focus(),
                     [this](const RunExportOutcome &outcome) { showRunExport(outcome); });
    });
    file->addAction(tr("Save Run Re&port…"), this, [this] {
        askRunReport(this, m_session.path(), m_session.focus(),
                     [this](const RunExportOutcome &outcome) { showRunExport(outcome); });
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence(QKeySequence::Quit), this, &QWidget::close);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    // One entry per view and pane, each with its shortcut (Alt+digit; Ctrl+digit is left to
    // bookmarks): the Timeline, the central pages, Details and Aggregate, the panes' pages,
    // What-if.
    QMenu *show = view->addMenu(tr("&Show"));
    auto entry = [this, show](const QString &id, const QString &title, const QKeySequence &key) {
        QAction *a = show->addAction(title, this, [this, id] { showView(id); });
        a->setShortcut(key);
        a->setObjectName(QStringLiteral("show-") + id);
    };
    auto pages = [this, &entry](bool central) {
        for (const auto &page : m_pages)
            if ((page->place() == StudioPage::Place::CentralView) == central)
                entry(page->id(), page->menuTitle().isEmpty() ? page->title() : page->menuTitle(),
                      page->shortcut());
    };
    entry(QStringLiteral("timeline"), tr("&Timeline"), QKeySequence(Qt::ALT | Qt::Key_1));
    pages(true);
    entry(QStringLiteral("details"), tr("&Details"), QKeySequence(Qt::ALT | Qt::Key_6));
    entry(QStringLiteral("aggregate"), tr("A&ggregate"), QKeySequence(Qt::ALT | Qt::Key_7));
    pages(false);
    entry(QStringLiteral("whatif"), tr("&What-if"), QKeySequence(Qt::ALT | Qt::Key_0));
    view->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);
    buildThemeMenu(view);
    view->addAction(tr("Command &Palette…"), QKeySequence(tr("Ctrl+Shift+P")), this,
                    &MainWindow::showPalette);
    view->addSeparator();
    view->addAction(tr("Zoom to &Fit"), QKeySequence(tr("0")), m_state, &TimelineState::showAll);
    view->addAction(tr("Zoom to &Selection"), this, [this] { m_state->zoomToSelection(); });
    // How far one wheel notch or W/S press zooms (kept across sessions).
    QMenu *zoomStep = view->addMenu(tr("Zoom St&ep"));
    auto *steps = new QActionGroup(zoomStep);
    const int savedStep = QSettings().value(QStringLiteral("timeline/zoomStep"), 20).toInt();
    m_timeline->setZoomStep(savedStep);
    for (int percent : {10, 20, 35, 50}) {
        QAction *a = zoomStep->addAction(tr("%1% a notch").arg(percent), this, [this, percent] {
            m_timeline->setZoomStep(percent);
            QSettings().setValue(QStringLiteral("timeline/zoomStep"), percent);
        });
        a->setCheckable(true);
        a->setChecked(percent == m_timeline->zoomStep());
        steps->addAction(a);
    }
    view->addAction(tr("Reset Time &Origin"), m_state, &TimelineState::clearOrigin);
    QAction *byClass = view->addAction(tr("&Colour Slices by Class"));
    byClass->setCheckable(true);
    byClass->setToolTip(tr("Compute, communication, copy, CPU op, Python, annotation, with a "
                           "legend (else each name its own colour)"));
    connect(byClass, &QAction::toggled, m_timeline, &TimelineView::setColorByClass);
    view->addAction(tr("Show &All Tracks"), m_timeline, &TimelineView::showAllTracks);
    QAction *rankRows = view->addAction(tr("&Ranks as Summary Rows"));
    rankRows->setCheckable(true);
    rankRows->setToolTip(tr("One compact row per rank drawing its GPU streams' activity (its "
                            "threads' without a GPU): compute, communication, copy, CPU"));
    connect(rankRows, &QAction::toggled, m_timeline, &TimelineView::setRankRows);
    connect(m_timeline, &TimelineView::rankRowsChanged, rankRows, &QAction::setChecked);
    view->addAction(tr("&Find"), QKeySequence(QKeySequence::Find), this, [this] {
        m_findEdit->setFocus();
        m_findEdit->selectAll();
    });
    view->addSeparator();
    for (auto *dock : findChildren<QDockWidget *>())
        view->addAction(dock->toggleViewAction());

    for (const auto &page : m_pages) // the pages' own menus (Notes)
        page->addMenus(menuBar());
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard and Mouse"), this, [this] {
        QMessageBox::information(
            this, tr("Keyboard and Mouse"),
            tr("Timeline\n"
               "W / S: zoom in / out around the mouse\nA / D: pan left / right\n"
               "Mouse wheel or Ctrl+wheel: zoom (View › Zoom Step); Shift+wheel: scroll tracks\n"
               "Hold W / S: zoom faster the longer it is held\nDrag: pan\n"
               "Drag on the ruler or Shift+drag: select a range (Aggregate pane)\n"
               "Click the ruler: count time from there (View › Reset Time Origin)\n"
               "Click: select a slice; double-click: zoom to it\nF: zoom to the selection\n"
               "0: zoom to fit\nEsc: clear the selection\nRight-click a row: hide, collapse\n\n"
               "Window\n"
               "Alt+1 … Alt+5: Timeline, Analysis, Graph, Compare, Simulate\n"
               "Alt+6 … Alt+9, Alt+0: Details, Aggregate, Sources, Runs, What-if\n"
               "Ctrl+M: add a note on the selected slice, range or the cursor (Notes pane)\n"
               "Ctrl+1 … Ctrl+9: set bookmark 1 … 9 there; 1 … 9: go to it\n"
               "Ctrl+Shift+Q: Query view (SQL; Ctrl+Enter runs; Enter on a row: show it in the "
               "timeline)\n"
               "Ctrl+Shift+F: Flame Graph of the selection (click a frame: its slices in the "
               "timeline;\n"
               "  double-click: zoom into it; Esc: zoom out)\n"
               "Ctrl+Shift+P: command palette (every action, by name)\n"
               "Ctrl+F: find (Enter: next, Shift+Enter: previous, Esc: back to the timeline)\n"
               "Ctrl+O / Ctrl+Shift+O: open a folder / a project; F5: reload\n"
               "Ctrl+E: export a figure; Ctrl+Q: quit"));
    });
}

void MainWindow::addRecent(const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString &p : recent)
        m_recentMenu->addAction(p, this, [this, p] { openPath(p); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

} // namespace gml
