// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "livecontrols.h"
#include "projectopener.h"
#include "projectsession.h"
#include "selectioncontroller.h"
#include "studiopage.h"
#include "timelinecentre.h"
#include "whatifcontroller.h"

#include <QMainWindow>

#include <memory>
#include <vector>

namespace gml {

class CommandPalette;
class WhatIfPanel;
class WhatIfWorkflow;
class WindowLayout;

// The GradeML Studio window. It only wires its parts: the timeline with its find bar and the
// selection panes (TimelineCentre), every registered page (studiopage.h), the What-if pane
// (WhatIfWorkflow), opening (ProjectOpener), live following (LiveControls), the layout
// (WindowLayout) and the menus (studiomenus.h), each subscribed to the one ProjectSession.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // A folder (imported into its project), a .grademl file, or trace files (imported into the
    // open project, else into their folder's project): ProjectOpener.
    void openPath(const QString &path) { m_opener->openPath(path); }
    void openFolder(const QString &folder) { m_opener->openFolder(folder); }
    void openProject(const QString &projectPath) { m_opener->openProject(projectPath); }
    bool isBusy() const { return m_opener->isBusy(); }
    void setInteractive(bool interactive) { m_interactive = interactive; }

    // The window's parts.
    ProjectSession &session() { return m_session; }
    const ProjectSession &session() const { return m_session; }
    ProjectOpener &opener() { return *m_opener; }
    LiveControls &live() { return *m_live; }
    TimelineCentre &centre() { return *m_centre; }
    WindowLayout &windowLayout() { return *m_layout; }
    QString projectPath() const { return m_session.path(); }
    TimelineState *state() const { return m_centre->state(); }
    TimelineView *timeline() const { return m_centre->timeline(); }
    DetailsPanel *details() const { return m_centre->details(); }
    AggregateModel *aggregate() const { return m_centre->aggregate(); }
    RankOverviewController *rankOverview() const { return m_centre->rankOverview(); }
    RankOverviewView *rankView() const { return m_centre->rankView(); }
    FocusController *focus() const { return m_centre->focus(); }
    WhatIfPanel *whatIfPanel() const;
    WhatIfController *whatIf() { return &m_whatIf; }
    FollowController &follower() { return m_live->follower(); }

    // The registered pages (studiopage.h), one by its id ("flame"; null: none), and its
    // controller (the page's view when it has none); studiodriver.h names them.
    const std::vector<std::unique_ptr<StudioPage>> &pages() const { return m_pages; }
    StudioPage *page(const QString &id) const;
    template <class Controller> Controller *controllerOf(const QString &id) const
    {
        const StudioPage *p = page(id);
        return p ? qobject_cast<Controller *>(p->controller()) : nullptr;
    }
    // Shows a page, tells it it is in view and waits for what it computes (tests, screenshots).
    bool showPage(const QString &id);
    // Brings a central view ("timeline", "analysis", "graph", ...), a pane (details, aggregate,
    // sources, runs, whatif) or a page's part to the front, as its tab, its shortcut or a "show
    // in…" action does; false for an unknown name. frontView(): the central view in front.
    bool showView(const QString &name);
    QString frontView() const;
    // Shows the what-if panel, building the run's graph when needed, and replays `transforms`
    // (added to the panel's list); whatIfShown() follows the result.
    void showWhatIf(const QList<sim::Transform> &transforms = {});
    // Ctrl+Shift+P: every action and run focus by name.
    void showPalette();
    CommandPalette *palette() const { return m_palette; }
    // Why the last open or show failed, in the words the window shows (screenshots say it).
    QString problem() const { return m_problem; }
    void setProblem(const QString &why) { m_problem = why; }

    // Find: searches off the GUI thread when the pattern changed, then steps to the next
    // (previous) match; waitForSearch() blocks until a search and its step are done, and the
    // selected slice's self time.
    void find(const QString &pattern, bool regex, bool backwards = false)
    {
        m_centre->selection()->find(pattern, regex, backwards);
    }
    void waitForSearch() { m_centre->selection()->waitForSearch(); }
    int findMatchCount() const { return m_centre->selection()->findMatchCount(); }
    int findCurrent() const { return m_centre->selection()->findCurrent(); }
    QString findStatus() const { return m_centre->findStatus(); }

    // Live (livecontrols.h): follows a folder while a job writes it, or records a command and
    // follows its folder.
    void followFolder(const QString &folder) { m_live->followFolder(folder); }
    bool recordCommand(const QStringList &command, const QString &interval, const QString &out,
                       QString *error)
    {
        return m_live->recordCommand(command, interval, out, error);
    }

Q_SIGNALS:
    void loaded(bool ok);
    void whatIfShown(bool ok);

protected:
    void dragEnterEvent(QDragEnterEvent *) override;
    void dropEvent(QDropEvent *) override;
    void closeEvent(QCloseEvent *) override;
    void showEvent(QShowEvent *) override; // the first show sizes the panes (unless restored)

private:
    void buildPages(); // every registered page (studiopages.cpp), docked or tabbed
    PageContext pageContext();
    void buildWhatIf();
    void wireSession();     // each part and page subscribes to the session
    void onProjectOpened(); // the window's title

    ProjectSession m_session; // the open project (projectsession.h)
    TimelineCentre *m_centre = nullptr;
    ProjectOpener *m_opener = nullptr;
    LiveControls *m_live = nullptr;
    WindowLayout *m_layout = nullptr;
    WhatIfController m_whatIf;
    WhatIfWorkflow *m_whatIfFlow = nullptr; // the What-if pane's workflow (whatifworkflow.h)
    std::vector<std::unique_ptr<StudioPage>> m_pages;
    CommandPalette *m_palette = nullptr;
    QString m_problem;
    bool m_interactive = true;
};

} // namespace gml
