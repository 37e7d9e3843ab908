// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "figuredialog.h"
#include "followcontroller.h"
#include "importcontroller.h"
#include "projectsession.h"
#include "selectioncontroller.h"
#include "slicequery.h"
#include "studiopage.h"
#include "whatifcontroller.h"
#include "whatifpanel.h"

#include <QFuture>
#include <QMainWindow>

#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressDialog;
class QTabWidget;
class QTableView;
class QTimer;
class QToolButton;

namespace gml {

struct RunExportOutcome;

class AggregateModel;
class AnalysisController;
class CommandPalette;
class CompareController;
class FocusController;
class GraphController;
class QueryController;
class NotesController;
class RankOverviewController;
class RankOverviewView;
class RunsController;
class SimulateController;
class DetailsPanel;
class GraphView;
class Project;
class SourcesPanel;
class TimelineState;
class TimelineView;
class WhatIfPanel;
class WhatIfWorkflow;

// The GradeML Studio window: timeline in the middle, find bar above it, details / aggregate /
// sources panels below. Opening a folder imports it off the GUI thread with a cancellable
// progress dialog; opening a project only loads it.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // A folder (imported into its project), a .grademl file, or trace files (imported into the
    // open project, else into their folder's project).
    void openPath(const QString &path);
    void openFolder(const QString &folder);
    void openProject(const QString &projectPath);
    bool isBusy() const;
    void setInteractive(bool interactive) { m_interactive = interactive; }

    TimelineState *state() const { return m_state; }
    TimelineView *timeline() const { return m_timeline; }
    DetailsPanel *details() const { return m_details; }
    AggregateModel *aggregate() const { return m_aggregateModel; }
    WhatIfPanel *whatIfPanel() const { return m_whatIfPanel; }
    WhatIfController *whatIf() { return &m_whatIf; }
    // The registered pages (studiopage.h), one by its id ("flame"; null: none), and its
    // controller (the page's view when it has none).
    const std::vector<std::unique_ptr<StudioPage>> &pages() const { return m_pages; }
    StudioPage *page(const QString &id) const;
    template <class Controller> Controller *controllerOf(const QString &id) const
    {
        const StudioPage *p = page(id);
        return p ? qobject_cast<Controller *>(p->controller()) : nullptr;
    }
    // Shows a page, tells it it is in view and waits for what it computes (tests, screenshots).
    bool showPage(const QString &id);
    // The pages' controllers (mainwindowdocks.cpp).
    GraphController *graph() const;
    GraphView *graphView() const;
    AnalysisController *analysis() const;
    SourcesPanel *sources() const;
    QueryController *query() const;
    NotesController *notes() const;
    RunsController *runs() const;
    CompareController *compare() const;
    SimulateController *simulate() const;
    // Shows the graph dock and waits until its model and layout are ready (screenshots, tests).
    bool showGraph();
    // Shows the what-if panel, building the run's graph when needed, and replays `transforms`
    // (added to the panel's list); whatIfShown() follows the result.
    void showWhatIf(const QList<sim::Transform> &transforms = {});
    // The same for `run` (the what-if panel switches to it first): the analysis' "try it".
    void tryWhatIf(const QString &run, const QList<sim::Transform> &transforms);
    // Shows the analysis dock and waits for the current run's report (screenshots, tests).
    bool showAnalysis();
    RankOverviewController *rankOverview() const { return m_rankOverview; }
    // View › Theme: "light", "dark" or "system" (the platform's, read at start), applied to
    // every view; remembered per user unless `remember` is false (--theme, screenshots).
    void setTheme(const QString &name, bool remember = true);
    static void setSystemDark(bool dark); // the platform palette's, before the studio sets one
    static QString savedTheme();          // the user's choice ("system" when none)
    RankOverviewView *rankView() const { return m_rankView; }
    FocusController *focus() const { return m_focus; }
    // Raises the Runs dock and waits for its catalog (screenshots).
    bool showRuns();
    // Compares runs in the Compare dock and waits for its charts and diff (screenshots, tests);
    // false when a run is not in the project.
    bool showCompare(const QStringList &runs, const QString &metric = {});
    // Raises the Simulate dock and waits for the project's simulated runs (screenshots, tests).
    bool showSimulate();
    QString projectPath() const { return m_session.path(); }
    // The end of File › Export Run…: the status bar says what was written, a dialog why not.
    void showRunExport(const RunExportOutcome &outcome);
    ProjectSession &session() { return m_session; }
    // The central view in front ("timeline", "analysis", "graph", "compare", "simulate").
    QString frontView() const;
    // Brings a central view or a panel (details, aggregate, sources, runs, whatif) to the
    // front, as its tab, its shortcut or a "show in…" action does; false for an unknown name.
    bool showView(const QString &name);
    // The layout as first built (View › Reset Layout).
    void resetLayout();
    // The user's layout (docks, sizes, the view in front), kept per user in QSettings; the
    // screenshot mode never reads it, so its pictures do not depend on who runs it.
    void restoreLayout();
    void saveLayout();
    // Another central view in front: the selection panes shrink; the timeline: they come back.
    void fitBottomPanes();
    // Ctrl+Shift+P: every action and run focus by name.
    void showPalette();
    CommandPalette *palette() const { return m_palette; }
    // Why the last open or show*() failed, in the words the window shows (screenshots say it).
    QString problem() const { return m_problem; }
    // Find: the matches of the last search and the current one.
    // Searches off the GUI thread when the pattern changed, then steps to the next (previous)
    // match; waitForSearch() blocks until a search and its step are done.
    void find(const QString &pattern, bool regex, bool backwards = false)
    {
        m_selection->find(pattern, regex, backwards);
    }
    // Also the selected slice's self time, read off the GUI thread for a paged track.
    void waitForSearch() { m_selection->waitForSearch(); }
    int findMatchCount() const { return m_selection->findMatchCount(); }
    QString findStatus() const; // "3 of 120", "no match", or why the search failed
    int findCurrent() const { return m_selection->findCurrent(); }

    // Live (mainwindowlive.cpp): follows a folder while a job writes it (File › Follow Folder…,
    // --follow), or records a command and follows its folder (File › Record Command…, --record).
    // The window opens the folder's project at the first update and takes in each later one
    // without losing the user's place; the timeline follows the data's end unless the user
    // looked elsewhere (the status bar's Follow button brings it back).
    void followFolder(const QString &folder);
    bool recordCommand(const QStringList &command, const QString &interval, const QString &out,
                       QString *error);
    FollowController &follower() { return m_follow; }

Q_SIGNALS:
    void loaded(bool ok);
    void whatIfShown(bool ok);

protected:
    void dragEnterEvent(QDragEnterEvent *) override;
    void dropEvent(QDropEvent *) override;
    void closeEvent(QCloseEvent *) override;
    void showEvent(QShowEvent *) override; // the first show sizes the panes (unless restored)

private:
    void buildMenus();
    void buildPanels();
    void startImport(const QString &projectPath, const QStringList &inputs, const QString &what,
                     ImportController::Edit edit = {});
    // The progress dialog and status line while a project opens (`what`: its name).
    void showOpening(const QString &what);
    void onImportProgress(const QString &stage, const QString &detail, int done, int total);
    void onImportFinished(const ImportController::Result &result);
    void wireSession();     // each controller and view subscribes to the session
    void onProjectOpened(); // the window's own part: title, what-if runs, status
    void onLiveUpdate(const FollowController::Update &update);
    void buildLiveControls();
    void askRecordCommand();
    void exportFigure();
    void addRecent(const QString &path);
    void rebuildRecentMenu();
    void updateStatus();
    void buildWhatIfPanel();
    void buildPages();               // every registered page (studiopages.cpp), docked or tabbed
    QStringList bottomPanes() const; // the docks tabbed below the centre, in order
    bool showsSelection(const QString &pane) const; // a pane that shows the timeline's selection
    void buildThemeMenu(QMenu *view);
    void arrangeDocks(); // where each pane sits, first and after View › Reset Layout
    void applyDefaultSizes();

    TimelineState *m_state;
    TimelineView *m_timeline;
    DetailsPanel *m_details;
    AggregateModel *m_aggregateModel;
    QTableView *m_aggregateView;
    QLabel *m_aggregateTitle;
    QLineEdit *m_findEdit;
    QCheckBox *m_findRegex;
    QLabel *m_findLabel;
    QLabel *m_statusWindow;
    QLabel *m_statusHover;
    QMenu *m_recentMenu = nullptr;
    QProgressDialog *m_progress = nullptr;
    ProjectSession m_session; // the open project (projectsession.h)
    ImportController m_import;
    FollowController m_follow;
    QToolButton *m_liveButton = nullptr; // "Follow": the timeline back to the live end
    QLabel *m_liveLabel = nullptr;
    qint64 m_liveUpdates = 0;
    WhatIfController m_whatIf;
    WhatIfPanel *m_whatIfPanel = nullptr;
    WhatIfWorkflow *m_whatIfFlow = nullptr; // the panel's workflow (whatifworkflow.h)
    RankOverviewView *m_rankView = nullptr;
    RankOverviewController *m_rankOverview = nullptr;
    FocusController *m_focus = nullptr;
    std::vector<std::unique_ptr<StudioPage>> m_pages;
    std::optional<FigureDialog::Choice> m_lastFigure; // File › Export Figure's last settings
    QTabWidget *m_views = nullptr;                    // the central views
    QToolButton *m_whatIfButton = nullptr;
    CommandPalette *m_palette = nullptr;
    // The what-if controls of a run saved as a run, put back when its graph is built again.
    QString m_problem;
    QString m_openedPath;                       // the folder or file the user is opening
    SelectionController *m_selection = nullptr; // details, aggregate, find
    bool m_interactive = true;
    bool m_sized = false; // the panes have their sizes: restored, or defaults at the first show
    QByteArray m_pendingState; // the restored layout, applied again at the first show
    int m_bottomHeight = 0;    // the selection panes' height before another view compacted them
};

} // namespace gml
