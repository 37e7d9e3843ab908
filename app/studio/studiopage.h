// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A page of the studio (issue 71): a view, its controller, where it sits in the window, the
// action that shows it with its shortcut, and what it adds to --state. The window builds every
// registered page (studiopages.cpp, one line each) and only wires it: it never names one.
// Adding a page is its view (views/), its controller and page here (app/studio/), and one
// registration line; docs/layout.md gives the steps.
#include <QJsonObject>
#include <QKeySequence>
#include <QList>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

class QMenuBar;
class QObject;
class QWidget;

namespace gml {

namespace sim {
struct Transform;
}
class FocusController;
class Project;
class ProjectSession;
class RankOverviewController;
class StudioPage;
class WhatIfController;
class TimelineState;
class TimelineView;

// What a page may use of the window.
struct PageContext
{
    QWidget *window = nullptr; // the parent of the view and controller a page makes
    TimelineView *timeline = nullptr;
    TimelineState *state = nullptr;              // the one zoom and selection state
    std::function<void(const QString &)> hover;  // the status bar's hover text
    std::function<void(const QString &)> reveal; // brings a view or page to the front by id
    // The status bar's message for `ms` milliseconds.
    std::function<void(const QString &, int ms)> message;
    // False in screenshots and tests: a page asks no question in a dialog (it takes the default).
    std::function<bool()> interactive;
    FocusController *focus = nullptr;               // the run in focus, one for every view
    RankOverviewController *rankOverview = nullptr; // the ranks above the timeline
    // Shows the What-if pane on `run` and replays `transforms` there (an analysis' "try it").
    std::function<void(const QString &run, const QList<sim::Transform> &transforms)> tryWhatIf;
    WhatIfController *whatIf = nullptr; // the what-if replays (their results colour the graph)
    // Writes the open project through the import path (off the GUI thread, one transaction,
    // then the project reloads and every page sees it); `what` names it in the progress. False
    // when no project is open or another write is running.
    std::function<bool(const QString &what, std::function<bool(Project &, QString *)> edit)>
        writeProject;
    // Another page by its id, once every page is made (null: none); a page asks for it when
    // it needs it, not in create().
    std::function<StudioPage *(const QString &id)> page;
};

// A panel in a scroll area, as a central view or a pane shows it: squeezed, it scrolls.
QWidget *scrolledPage(QWidget *panel);
// A page's words, translated in the window's context (where they were before pages).
QString pageTr(const char *text);

class StudioPage
{
public:
    enum class Place {
        // Tabbed with Details and Aggregate below the timeline: it shows the timeline's
        // selection, and shrinks to its tab while another central view is in front.
        SelectionPane,
        // A full-size view among Timeline, Analysis, Graph, Compare and Simulate.
        CentralView,
        // Tabbed below the timeline after the selection panes; it keeps its size while
        // another central view is in front (the project's notes, its sources).
        ProjectPane,
    };
    virtual ~StudioPage() = default;

    // "flame": the dock's or tab's object name, the --panel name, the action "show-flame".
    virtual QString id() const = 0;
    // "Flame Graph": the dock's or tab's title and the View › Show entry.
    virtual QString title() const = 0;
    // The View › Show entry, with its mnemonic (the title when empty).
    virtual QString menuTitle() const { return {}; }
    virtual Place place() const = 0;
    virtual QKeySequence shortcut() const { return {}; }
    // The share of the window's height a pane takes when it is asked for and has less (0: as
    // it is).
    virtual double heightWhenShown() const { return 0; }

    // Makes the view and its controller (parented to context.window); returns the view.
    virtual QWidget *create(const PageContext &context) = 0;
    // Its menu of the menu bar, added after the View menu (none: nothing to add).
    virtual void addMenus(QMenuBar *menuBar) { (void)menuBar; }
    // Takes each project the session opens (projectsession.h).
    virtual void subscribe(const ProjectSession &session) = 0;
    // The controller (tests and screenshots reach it through MainWindow::controllerOf).
    virtual QObject *controller() const = 0;
    // A part of the page asked for by name ("memory": the Analysis view's Memory page); true
    // when the page has it and brought it to its front. The window then shows the page.
    virtual bool showPart(const QString &name)
    {
        (void)name;
        return false;
    }
    // Whether the page is in front (a pane tabbed behind another is not).
    virtual void setInView(bool inView) { (void)inView; }
    // Tests and screenshots: the running request's result delivered.
    virtual void waitForIdle() {}
    // What it adds to --state under "pages" (nothing when empty).
    virtual QJsonObject state() const { return {}; }
};

using PageFactory = std::unique_ptr<StudioPage> (*)();
// Every page, in the order their docks and menu entries appear (studiopages.cpp).
const std::vector<PageFactory> &studioPages();

} // namespace gml
