// SPDX-License-Identifier: GPL-3.0-or-later
#include "studiomenus.h"

#include "livecontrols.h"
#include "mainwindow.h"
#include "projectopener.h"
#include "runexport.h"
#include "studiotheme.h"
#include "timelinecentre.h"
#include "timelinestate.h"
#include "timelineview.h"
#include "windowlayout.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QFileDialog>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>

namespace gml {

namespace {
QString tr(const char *text)
{
    return pageTr(text);
}
} // namespace

void buildStudioMenus(MainWindow &w)
{
    MainWindow *window = &w;
    QMenuBar *bar = w.menuBar();
    ProjectOpener *opener = &w.opener();
    LiveControls *live = &w.live();
    TimelineCentre *centre = &w.centre();
    TimelineView *timeline = centre->timeline();
    TimelineState *state = centre->state();
    QMenu *file = bar->addMenu(tr("&File"));
    file->addAction(tr("Open &Folder…"), QKeySequence(tr("Ctrl+O")), window, [window, opener] {
        const QString dir = QFileDialog::getExistingDirectory(window, tr("Open Trace Folder"));
        if (!dir.isEmpty())
            opener->openFolder(dir);
    });
    file->addAction(
        tr("Open &Project…"), QKeySequence(tr("Ctrl+Shift+O")), window, [window, opener] {
            const QString f = QFileDialog::getOpenFileName(window, tr("Open Project"), QString(),
                                                           tr("GradeML projects (*.grademl)"));
            if (!f.isEmpty())
                opener->openProject(f);
        });
    opener->setRecentMenu(file->addMenu(tr("&Recent")));
    file->addSeparator();
    file->addAction(tr("Fo&llow Folder…"), window, [window, live] {
        const QString dir =
            QFileDialog::getExistingDirectory(window, tr("Follow a Folder While a Job Writes It"));
        if (!dir.isEmpty())
            live->followFolder(dir);
    });
    file->addAction(tr("Record &Command…"), live, &LiveControls::askRecordCommand);
    file->addAction(tr("S&top Following"), live, [live] { live->follower().stop(); });
    file->addSeparator();
    file->addAction(tr("&Reload"), QKeySequence(QKeySequence::Refresh), opener,
                    &ProjectOpener::reload);
    file->addSeparator();
    file->addAction(tr("&Export Figure…"), QKeySequence(tr("Ctrl+E")), centre,
                    &TimelineCentre::exportFigure);
    const auto shown = [window](const RunExportOutcome &outcome) {
        showRunExport(window, outcome);
    };
    file->addAction(tr("Export &Run as Chrome Trace…"), window, [window, shown] {
        askRunExport(window, window->session().path(), window->session().focus(), shown);
    });
    file->addAction(tr("Save Run Re&port…"), window, [window, shown] {
        askRunReport(window, window->session().path(), window->session().focus(), shown);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence(QKeySequence::Quit), window, &QWidget::close);

    QMenu *view = bar->addMenu(tr("&View"));
    // One entry per view and pane, each with its shortcut (Alt+digit; Ctrl+digit is left to
    // bookmarks): the Timeline, the central pages, Details and Aggregate, the panes' pages,
    // What-if.
    QMenu *show = view->addMenu(tr("&Show"));
    auto entry = [window, show](const QString &id, const QString &title, const QKeySequence &key) {
        QAction *a = show->addAction(title, window, [window, id] { window->showView(id); });
        a->setShortcut(key);
        a->setObjectName(QStringLiteral("show-") + id);
    };
    auto pages = [window, &entry](bool central) {
        for (const auto &page : window->pages())
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
    view->addAction(tr("&Reset Layout"), &w.windowLayout(), &WindowLayout::reset);
    addThemeMenu(view, window);
    view->addAction(tr("Command &Palette…"), QKeySequence(tr("Ctrl+Shift+P")), window,
                    &MainWindow::showPalette);
    view->addSeparator();
    view->addAction(tr("Zoom to &Fit"), QKeySequence(tr("0")), state, &TimelineState::showAll);
    view->addAction(tr("Zoom to &Selection"), state, [state] { state->zoomToSelection(); });
    // How far one wheel notch or W/S press zooms (kept across sessions).
    QMenu *zoomStep = view->addMenu(tr("Zoom St&ep"));
    auto *steps = new QActionGroup(zoomStep);
    const int savedStep = QSettings().value(QStringLiteral("timeline/zoomStep"), 20).toInt();
    timeline->setZoomStep(savedStep);
    for (int percent : {10, 20, 35, 50}) {
        QAction *a =
            zoomStep->addAction(tr("%1% a notch").arg(percent), timeline, [timeline, percent] {
                timeline->setZoomStep(percent);
                QSettings().setValue(QStringLiteral("timeline/zoomStep"), percent);
            });
        a->setCheckable(true);
        a->setChecked(percent == timeline->zoomStep());
        steps->addAction(a);
    }
    view->addAction(tr("Reset Time &Origin"), state, &TimelineState::clearOrigin);
    QAction *byClass = view->addAction(tr("&Colour Slices by Class"));
    byClass->setCheckable(true);
    byClass->setToolTip(tr("Compute, communication, copy, CPU op, Python, annotation, with a "
                           "legend (else each name its own colour)"));
    QObject::connect(byClass, &QAction::toggled, timeline, &TimelineView::setColorByClass);
    view->addAction(tr("Show &All Tracks"), timeline, &TimelineView::showAllTracks);
    QAction *rankRows = view->addAction(tr("&Ranks as Summary Rows"));
    rankRows->setCheckable(true);
    rankRows->setToolTip(tr("One compact row per rank drawing its GPU streams' activity (its "
                            "threads' without a GPU): compute, communication, copy, CPU"));
    QObject::connect(rankRows, &QAction::toggled, timeline, &TimelineView::setRankRows);
    QObject::connect(timeline, &TimelineView::rankRowsChanged, rankRows, &QAction::setChecked);
    view->addAction(tr("&Find"), QKeySequence(QKeySequence::Find), centre,
                    &TimelineCentre::focusFind);
    view->addSeparator();
    for (auto *dock : w.findChildren<QDockWidget *>())
        view->addAction(dock->toggleViewAction());

    for (const auto &page : w.pages()) // the pages' own menus (Notes)
        page->addMenus(bar);
    QMenu *help = bar->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard and Mouse"), window, [window] {
        QMessageBox::information(
            window, tr("Keyboard and Mouse"),
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

} // namespace gml
