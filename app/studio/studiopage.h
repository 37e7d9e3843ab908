// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A page of the studio (issue 71): a view, its controller, where it sits in the window, the
// action that shows it with its shortcut, and what it adds to --state. The window builds every
// registered page (studiopages.cpp, one line each) and only wires it: it never names one.
// Adding a page is its view (views/), its controller and page here (app/studio/), and one
// registration line; docs/layout.md gives the steps.
#include <QJsonObject>
#include <QKeySequence>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

class QWidget;

namespace gml {

class ProjectSession;
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
};

class StudioPage
{
public:
    enum class Place {
        // Tabbed with Details and Aggregate below the timeline: it shows the timeline's
        // selection, and shrinks to its tab while another central view is in front.
        SelectionPane,
        // A full-size view among Timeline, Analysis, Graph, Compare and Simulate.
        CentralView,
    };
    virtual ~StudioPage() = default;

    // "flame": the dock's or tab's object name, the --panel name, the action "show-flame".
    virtual QString id() const = 0;
    // "Flame Graph": the dock's or tab's title and the View › Show entry.
    virtual QString title() const = 0;
    virtual Place place() const = 0;
    virtual QKeySequence shortcut() const { return {}; }
    // The share of the window's height a pane takes when it is asked for and has less (0: as
    // it is).
    virtual double heightWhenShown() const { return 0; }

    // Makes the view and its controller (parented to context.window); returns the view.
    virtual QWidget *create(const PageContext &context) = 0;
    // Takes each project the session opens (projectsession.h).
    virtual void subscribe(const ProjectSession &session) = 0;
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
