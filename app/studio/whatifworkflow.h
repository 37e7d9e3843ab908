// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The what-if workflow of the studio (issue 71: it lived in the main window): the What-if
// panel's choices sent to the WhatIfController, its results shown, a calibration file loaded,
// scenarios listed, loaded and saved, a prediction saved as a run with the controls kept for
// when the project comes back, and a what-if asked for by another view (the Analysis view's
// "try it", --whatif) replayed once the run's graph is built. Files and the project are read
// off the GUI thread (a calibration named by a FIFO waited up to 10 s there); writes go
// through the window's one writer job (`Hooks::write`).
#include "latestjob.h"
#include "whatifcontroller.h"
#include "whatifpanel.h"

#include <QObject>

#include <functional>
#include <optional>

class QDockWidget;
class QMainWindow;
class QToolButton;

namespace gml {

class Project;
class ProjectSession;
class TimelineState;
class TimelineView;

class WhatIfWorkflow : public QObject
{
    Q_OBJECT
public:
    // What the workflow asks of the window.
    struct Hooks
    {
        std::function<void(const QString &run)> focusRun; // the replayed run in the timeline
        std::function<void(const QString &id)> reveal;    // brings a view or pane forward
        std::function<void(const QString &message)> problem;
        std::function<bool()> busy; // a write (import, scenario) is running
        // Runs `write` on the project in the window's writer job, labelled `what`.
        std::function<void(const QString &what, std::function<bool(Project &, QString *)> write)>
            write;
    };
    // Makes the What-if panel and its dock ("whatif") in `window`; `button` shows and hides it.
    WhatIfWorkflow(QMainWindow *window, QToolButton *button, WhatIfController *controller,
                   const ProjectSession &session, TimelineView *timeline, TimelineState *state,
                   Hooks hooks);

    WhatIfPanel *panel() const { return m_panel; }
    // Each project opened: its measured runs offered, the one in focus replayed when the
    // panel is in view.
    void subscribe(const ProjectSession &session);

    // Shows the panel and replays `transforms` (added to its list) once the run's graph is
    // ready; shown() follows the result.
    void show(const QList<sim::Transform> &transforms);
    // The same for `run` (the panel switches to it first).
    void tryRun(const QString &run, const QList<sim::Transform> &transforms);
    // Tests: the file and project reads running now delivered.
    void waitForIdle();

Q_SIGNALS:
    void shown(bool ok);

private:
    struct Read
    {
        std::shared_ptr<const sim::Calibration> calibration;
        QString path;
        QStringList scenarios;
        std::optional<QList<sim::Transform>> loaded; // a scenario's transforms
        QString error;
    };
    void onProjectOpened();
    void onGraphReady(const QString &run, const QString &error);
    void onResult(const WhatIfController::Result &r);
    void loadCalibration(const QString &path);
    void refreshScenarios();
    void loadScenario(const QString &name);

    WhatIfPanel *m_panel;
    QDockWidget *m_dock;
    WhatIfController *m_controller;
    const ProjectSession &m_session;
    TimelineView *m_timeline;
    TimelineState *m_state;
    Hooks m_hooks;
    // Saved as a run, the project reloaded: the controls as the user left them, for that run.
    std::optional<std::pair<QString, WhatIfPanel::Controls>> m_kept;
    QList<sim::Transform> m_queued; // asked for before the graph was ready
    bool m_wanted = false;          // shown() owed to whoever asked
    LatestJob<Read> m_calibrationJob{this};
    // The scenario list and a scenario's load are read apart: a load must not drop the list
    // asked for when the run's graph came (the latest of each wins).
    LatestJob<Read> m_listJob{this};
    LatestJob<Read> m_loadJob{this};
};

} // namespace gml
