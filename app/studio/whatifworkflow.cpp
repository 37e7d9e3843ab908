// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatifworkflow.h"

#include "calibration.h"
#include "devicecatalog.h"
#include "predictedrun.h"
#include "project.h"
#include "projectsession.h"
#include "studiopage.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QMainWindow>
#include <QToolButton>

namespace gml {

WhatIfWorkflow::WhatIfWorkflow(QMainWindow *window, QToolButton *button,
                               WhatIfController *controller, const ProjectSession &session,
                               TimelineView *timeline, TimelineState *state, Hooks hooks)
    : QObject(window), m_panel(new WhatIfPanel(window)),
      m_dock(new QDockWidget(tr("What-if"), window)), m_controller(controller), m_session(session),
      m_timeline(timeline), m_state(state), m_hooks(std::move(hooks))
{
    // Beside the timeline, full height: its sliders replay the run the timeline shows.
    QDockWidget *dock = m_dock;
    WhatIfPanel *panel = m_panel;
    dock->setObjectName(QStringLiteral("whatif"));
    dock->setWidget(scrolledPage(m_panel));
    connect(button, &QToolButton::toggled, dock, [dock](bool on) {
        dock->setVisible(on);
        if (on)
            dock->raise();
    });
    connect(dock, &QDockWidget::visibilityChanged, button,
            [button, dock] { button->setChecked(!dock->isHidden()); });
    // The graph is built when the panel is first looked at, not on every open.
    connect(dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && !m_controller->graph() && !m_controller->isBusy() && m_session.data())
            m_controller->select(m_panel->currentRun());
    });
    connect(panel, &WhatIfPanel::runChanged, this, [this](const QString &run) {
        m_hooks.focusRun(run); // the replayed run and its prediction in the timeline
        m_controller->select(run);
    });
    connect(panel, &WhatIfPanel::transformsChanged, this,
            [this] { m_controller->request(m_panel->transforms()); });
    connect(panel, &WhatIfPanel::calibrationChosen, this, &WhatIfWorkflow::loadCalibration);
    connect(controller, &WhatIfController::graphReady, this, &WhatIfWorkflow::onGraphReady);
    connect(controller, &WhatIfController::resultReady, this, &WhatIfWorkflow::onResult);
    connect(panel, &WhatIfPanel::loadScenarioRequested, this, &WhatIfWorkflow::loadScenario);
    connect(panel, &WhatIfPanel::saveScenarioRequested, this,
            [this](const QString &name, const QList<sim::Transform> &transforms) {
                const auto &g = m_controller->graph();
                if (!g || m_hooks.busy())
                    return;
                const RunId run = g->runId;
                m_hooks.write(tr("scenario %1").arg(name),
                              [run, name, transforms](Project &p, QString *why) {
                                  return sim::saveScenario(p, run, name, transforms, {}, why);
                              });
            });
    connect(panel, &WhatIfPanel::saveRunRequested, this,
            [this](const QString &name, const QList<sim::Transform> &transforms) {
                const auto &g = m_controller->graph();
                if (!g || m_hooks.busy())
                    return;
                // The graph is immutable: the writer replays the one already built.
                const RunId run = g->runId;
                const auto graph = g->graph;
                const auto context = g->context;
                m_kept.emplace(m_panel->currentRun(), m_panel->controls());
                m_hooks.write(tr("predicted run %1").arg(name), [=](Project &p, QString *why) {
                    const auto res = sim::whatIf(graph, transforms, context, why);
                    return res && sim::savePredictedRun(p, run, *res, transforms, name, why);
                });
            });
}

void WhatIfWorkflow::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this, &WhatIfWorkflow::onProjectOpened);
}

void WhatIfWorkflow::onProjectOpened()
{
    QStringList measuredRuns;
    for (const auto &run : m_session.data()->runs)
        if (run.kind == QLatin1String("measured") && run.slices > 0)
            measuredRuns << run.name;
    const QString focused = m_session.focus().value(0);
    const QString current = measuredRuns.contains(focused) ? focused : measuredRuns.value(0);
    m_panel->setRuns(measuredRuns, current);
    m_panel->showMessage(measuredRuns.isEmpty() ? tr("The project has no measured run with slices.")
                                                : tr("Building the dependency graph…"));
    if (!m_dock->visibleRegion().isEmpty() && !measuredRuns.isEmpty())
        m_controller->select(current);
}

void WhatIfWorkflow::loadCalibration(const QString &path)
{
    if (path.isEmpty()) {
        m_calibrationJob.cancel();
        m_panel->setCalibration({}, {});
        m_controller->setCalibration({});
        m_controller->request(m_panel->transforms());
        return;
    }
    // Read off the GUI thread: the file may be a pipe (smallinput.h waits up to 10 s for one).
    m_calibrationJob.start(
        [path](const auto &) {
            Read r;
            r.path = path;
            QString error;
            if (auto loaded = sim::Calibration::load(path, &error))
                r.calibration = std::make_shared<const sim::Calibration>(std::move(*loaded));
            else
                r.error = error;
            return r;
        },
        [this](Read r) {
            if (!r.calibration) {
                m_panel->showMessage(tr("Cannot load the calibration: %1").arg(r.error));
                return;
            }
            m_panel->setCalibration(
                QFileInfo(r.path).fileName(),
                tr("Fitted on %1: %2").arg(r.calibration->source(), r.calibration->factors()));
            m_controller->setCalibration(std::move(r.calibration));
            m_controller->request(m_panel->transforms());
        });
}

void WhatIfWorkflow::refreshScenarios()
{
    const auto &g = m_controller->graph();
    if (!g || m_session.path().isEmpty())
        return;
    // Listed through a connection of the worker's own (the session's belongs to the GUI
    // thread).
    m_listJob.start(
        [path = m_session.path(), run = g->runId](const auto &) {
            Read r;
            auto project = Project::open(path, Project::Mode::ReadOnly, &r.error);
            if (project)
                for (const auto &s : sim::listScenarios(*project, run, &r.error))
                    r.scenarios << s.name;
            return r;
        },
        [this](Read r) { m_panel->setScenarios(r.scenarios); });
}

void WhatIfWorkflow::loadScenario(const QString &name)
{
    const auto &g = m_controller->graph();
    if (!g || m_session.path().isEmpty())
        return;
    m_loadJob.start(
        [path = m_session.path(), run = g->runId, name](const auto &) {
            Read r;
            auto project = Project::open(path, Project::Mode::ReadOnly, &r.error);
            if (project)
                if (auto s = sim::loadScenario(*project, run, name, &r.error))
                    r.loaded = s->transforms;
            return r;
        },
        [this](Read r) {
            if (r.loaded)
                m_panel->setCustomTransforms(*r.loaded);
            else
                m_panel->showMessage(r.error);
        });
}

void WhatIfWorkflow::onGraphReady(const QString &run, const QString &error)
{
    if (!error.isEmpty()) {
        const QString problem = tr("Cannot replay run '%1': %2").arg(run, error);
        m_hooks.problem(problem);
        m_panel->showMessage(problem);
        if (std::exchange(m_wanted, false))
            Q_EMIT shown(false);
        return;
    }
    const auto &g = *m_controller->graph();
    WhatIfPanel::Measured m;
    QString unknown; // the link sliders stay disabled
    if (const auto *l = sim::measuredLink(g.context, true, &unknown)) {
        m.networkGBps = l->bwGBps;
        m.latencyUs = l->latencyUs;
    }
    m.workers = g.context.measuredWorkers;
    m_panel->setMeasured(m);
    if (m_kept && m_kept->first == run)
        m_panel->setControls(m_kept->second);
    m_kept.reset();
    refreshScenarios();
    if (!m_queued.isEmpty())
        m_panel->setCustomTransforms(std::exchange(m_queued, {}));
    else
        m_controller->request(m_panel->transforms());
}

void WhatIfWorkflow::onResult(const WhatIfController::Result &r)
{
    if (!r.error.isEmpty()) {
        m_hooks.problem(r.error);
        m_panel->showMessage(r.error);
    } else {
        m_panel->showResult(r.report, r.replayMs);
        if (r.data && r.data != m_timeline->data()) {
            // The prediction joins the run it predicts; a longer one widens the trace range,
            // and the user's zoom is kept.
            const TimeNs t0 = m_state->windowStart(), t1 = m_state->windowEnd();
            m_timeline->setData(r.data);
            m_state->setWindow(t0, t1);
        }
    }
    if (m_wanted && !m_controller->isBusy()) {
        m_wanted = false;
        Q_EMIT shown(r.error.isEmpty());
    }
}

void WhatIfWorkflow::show(const QList<sim::Transform> &transforms)
{
    m_wanted = true;
    m_hooks.reveal(QStringLiteral("whatif"));
    if (m_controller->graph()) {
        m_panel->setCustomTransforms(transforms);
    } else {
        m_queued = transforms;
        if (!m_controller->isBusy() && m_session.data())
            m_controller->select(m_panel->currentRun());
    }
}

void WhatIfWorkflow::tryRun(const QString &run, const QList<sim::Transform> &transforms)
{
    if (run.isEmpty() || run == m_panel->currentRun() || !m_session.data()) {
        show(transforms);
        return;
    }
    // Another run than the panel's: switch it, then replay once its graph is built.
    QStringList runs;
    for (const auto &r : m_session.data()->runs)
        if (r.kind == QLatin1String("measured") && r.slices > 0)
            runs << r.name;
    m_panel->setRuns(runs, run);
    m_timeline->setData(m_session.data());
    m_wanted = true;
    m_queued = transforms;
    m_hooks.reveal(QStringLiteral("whatif"));
    m_controller->select(run);
}

void WhatIfWorkflow::waitForIdle()
{
    m_calibrationJob.waitForFinished();
    m_listJob.waitForFinished();
    m_loadJob.waitForFinished();
    QCoreApplication::processEvents();
}

} // namespace gml
