// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinedata.h"

#include <QFuture>
#include <QObject>
#include <QStringList>

#include <memory>

class QToolButton;

namespace gml {

class ProjectSession;

class Project;
class TimelineState;

// Which runs the timeline shows (TimelineState::focusRuns), through the run switcher above it:
// one run, several chosen runs (aligned at their starts, or on the project clock for runs that
// ran together), or all of them. A project opens on the runs last in focus (remembered in the
// project, model/store/viewstate.h), else on its most recent measured run. Each change is
// remembered off the GUI thread; a read-only project is shown without remembering.
class FocusController : public QObject
{
    Q_OBJECT
public:
    FocusController(TimelineState *state, QToolButton *switcher, QObject *parent = nullptr);
    ~FocusController() override;

    // Takes each project at the session's `focusing` (before the timeline gets its data, so the
    // first layout and the trace range are the focused runs') and each new run at
    // `runsChanged`; tells the session each focus it shows (ProjectSession::setFocus).
    void subscribe(ProjectSession &session);
    // Call before the timeline gets `data`: the focus is set first, so the first layout and the
    // trace range are the focused runs'. `project` (read-only) gives what was remembered.
    void setProject(const QString &projectPath, std::shared_ptr<const TimelineData> data,
                    Project *project);
    // Names not in the project are left out; none left (or an empty list) shows every run.
    void focusRuns(const QStringList &names, bool projectClock = false);
    QStringList focusNames() const;
    // The run a new project opens on: the most recent measured run with slices, else the most
    // recent measured run with data (monitoring logs), else any run with data.
    static RunId defaultRun(const TimelineData &data);
    void waitForIdle(); // the last remembering written (tests, close)

private:
    QList<RunId> idsOf(const QStringList &names) const; // the project's runs of these names
    void chooseSeveral();
    void update();   // the switcher's text and menu
    void remember(); // into the project, off the GUI thread

    TimelineState *m_state;
    QToolButton *m_switcher;
    QString m_projectPath;
    std::shared_ptr<const TimelineData> m_data;
    bool m_writable = false;
    bool m_loading = false;
    QFuture<void> m_write;
    ProjectSession *m_session = nullptr;
};

} // namespace gml
