// SPDX-License-Identifier: GPL-3.0-or-later
#include "simulatecontroller.h"

#include "projectsession.h"

#include "modelfromrun.h"
#include "project.h"
#include "simulatepanel.h"

#include <QCoreApplication>
#include <QtConcurrent>

namespace gml {

SimulateController::SimulateController(SimulatePanel *panel, Save save, QObject *parent)
    : QObject(parent), m_panel(panel), m_save(std::move(save))
{
    connect(panel, &SimulatePanel::simulateRequested, this, &SimulateController::simulate);
    connect(panel, &SimulatePanel::cancelRequested, this, &SimulateController::cancel);
    connect(panel, &SimulatePanel::showAllRunsChanged, this, &SimulateController::showPoints);
}

SimulateController::~SimulateController() = default;

void SimulateController::setProject(const QString &projectPath)
{
    if (projectPath == m_projectPath)
        return;     // the same project reloaded (after a save): the sweep stays shown
    m_job.cancel(); // a sweep for the old project is dropped
    m_projectPath = projectPath;
    m_projectPoints.clear();
    m_sweepPoints.clear();
    m_savedPending = 0;
    m_panel->setBusy(false);
    m_panel->setMeasuredRuns({});
    m_panel->setProjectOpen(!projectPath.isEmpty());
    m_panel->setShowAllRuns(true);
    showPoints();
}

void SimulateController::setCatalog(const RunCatalog &catalog)
{
    QStringList measured;
    for (const CatalogRun &r : catalog.runs)
        if (r.kind == QLatin1String("measured") && r.end > r.start)
            measured << r.name;
    m_panel->setMeasuredRuns(measured);
    m_projectPoints = sweepPoints(catalog.runs);
    if (m_savedPending > 0) {
        int found = 0;
        for (const SweepPoint &p : std::as_const(m_sweepPoints))
            found += catalog.run(p.run) != nullptr;
        m_panel->showMessage(tr("Saved %1 simulated %2 in the project: in the timeline, the Runs "
                                "and the Compare docks.")
                                 .arg(found)
                                 .arg(found == 1 ? tr("run") : tr("runs")));
        m_savedPending = 0;
    }
    showPoints();
}

void SimulateController::showPoints()
{
    if (m_panel->showsAllRuns() || m_sweepPoints.isEmpty())
        m_panel->setPoints(m_projectPoints, tr("all simulated runs of the project"));
    else
        m_panel->setPoints(m_sweepPoints, m_sweepWhat);
}

void SimulateController::simulate()
{
    if (m_job.isRunning() || m_projectPath.isEmpty())
        return;
    QString error;
    const auto request = m_panel->request(&error);
    if (!request) {
        m_panel->showMessage(error);
        return;
    }
    const QString path = m_projectPath;
    m_panel->setBusy(true);
    m_panel->showProgress(0, request->configurations());
    m_clock.start();
    m_job.start(
        [this, path, req = *request](const Job::Context &job) {
            Result r;
            sim::SimConfig base = req.base;
            if (!req.fromRun.isEmpty()) {
                // One connection per thread (docs/layout.md, "Threads"): this worker opens its own.
                auto project = Project::open(path, Project::Mode::ReadOnly, &r.error);
                if (!project)
                    return r;
                const auto run = project->findRun(req.fromRun);
                if (!run) {
                    r.error = tr("No run named '%1' in %2.").arg(req.fromRun, path);
                    return r;
                }
                auto model = sim::layerGraphFromRun(*project, *run, &r.error);
                if (!model) {
                    r.error = tr("No layer graph from run '%1': %2").arg(req.fromRun, r.error);
                    return r;
                }
                base.model = std::move(*model);
            } else {
                auto model = sim::builtinModel(req.model, &r.error);
                if (!model)
                    return r;
                base.model = std::move(*model);
            }
            if (base.batch == 0 && base.globalBatch == 0)
                base.batch = base.model.defaultBatch; // a measured run's own batch
            auto cluster = sim::SimCluster::load(req.cluster, &r.error);
            if (!cluster)
                return r;
            base.cluster = std::move(*cluster);
            const QList<sim::SimConfig> configs =
                sim::sweepConfigs(base, req.sweepWorkers, req.sweepBatches);
            r.configurations = int(configs.size());
            int shown = -1;
            auto outcome = sim::runSweep(configs, [&](int done, int total) {
                if (done !=
                    shown) { // the sweep asks every 10 ms; the panel hears of each step once
                    shown = done;
                    job.post([this, done, total] { m_panel->showProgress(done, total); });
                }
                return !job.cancelled();
            });
            r.cancelled = outcome.cancelled;
            r.errors = outcome.errors;
            for (const sim::SimResult &res : std::as_const(outcome.results))
                r.names << (configs.size() == 1 && !req.name.isEmpty()
                                ? req.name
                                : sim::simulatedRunName(res.config));
            r.results = std::move(outcome.results);
            return r;
        },
        [this](Result r) { onFinished(r); });
}

void SimulateController::cancel()
{
    m_job.stop(); // the configurations simulated so far are still shown
}

void SimulateController::onFinished(const Result &r)
{
    m_panel->setBusy(false);
    const double seconds = double(m_clock.elapsed()) / 1000;
    if (!r.error.isEmpty()) {
        m_panel->showMessage(r.error);
        Q_EMIT finished(0, r.error);
        return;
    }
    m_sweepPoints.clear();
    for (qsizetype i = 0; i < r.results.size(); ++i)
        m_sweepPoints.append(sweepPoint(r.results[i], r.names.value(i)));
    if (!r.results.isEmpty()) {
        const sim::SimConfig &c = r.results.front().config;
        m_sweepWhat = tr("this sweep: %1 on %2").arg(c.model.name, c.cluster.name);
        m_panel->setShowAllRuns(false);
    }
    showPoints();
    QStringList lines;
    lines << (r.cancelled
                  ? tr("Cancelled: %1 of %2 configurations simulated in %3 s.")
                        .arg(r.results.size())
                        .arg(r.configurations)
                        .arg(seconds, 0, 'f', 1)
                  : tr("%1 %2 simulated in %3 s.")
                        .arg(r.results.size())
                        .arg(r.results.size() == 1 ? tr("configuration") : tr("configurations"))
                        .arg(seconds, 0, 'f', 1));
    for (const QString &e : r.errors)
        lines << tr("Failed: %1").arg(e);
    for (const sim::SimResult &res : r.results)
        for (const QString &w : res.warnings)
            lines << tr("Warning (%1): %2").arg(res.config.describe(), w);
    int saved = 0;
    if (!r.results.isEmpty()) {
        if (m_save && m_save(r.results, r.names)) {
            saved = int(r.results.size());
            m_savedPending = saved;
            lines << (saved == 1 ? tr("Saving the run in the project…")
                                 : tr("Saving the %1 runs in the project…").arg(saved));
        } else {
            lines << tr("Not saved: the project is busy (an import is running). Simulate again "
                        "once it is done.");
        }
    }
    m_panel->showMessage(lines.join(QLatin1Char('\n')));
    Q_EMIT finished(saved, r.errors.isEmpty() ? QString() : r.errors.join(QLatin1Char('\n')));
}

void SimulateController::waitForIdle()
{
    while (m_job.isRunning()) {
        m_job.waitForFinished();
        QCoreApplication::processEvents();
    }
}

void SimulateController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this,
            [this, &session] { setProject(session.path()); });
}

} // namespace gml
