// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatifcontroller.h"

#include "projectsession.h"

#include "dependencygraph.h"
#include "predictedrun.h"
#include "project.h"

#include <QElapsedTimer>
#include <QJsonDocument>

namespace gml {

WhatIfController::WhatIfController(QObject *parent) : QObject(parent) {}

WhatIfController::~WhatIfController() = default;

void WhatIfController::setProject(const QString &projectPath,
                                  std::shared_ptr<const TimelineData> base)
{
    m_build.cancel(); // what was built or replayed for the previous project is dropped
    m_replay.cancel();
    m_projectPath = projectPath;
    m_base = std::move(base);
    m_graph.reset();
    m_pending.reset();
}

void WhatIfController::select(const QString &run)
{
    if (m_projectPath.isEmpty() || run.isEmpty())
        return;
    m_graph.reset();
    const QString path = m_projectPath;
    // Overlap::Wait: another run picked while one builds is built after it, the first dropped.
    m_build.start(
        [path, run](const BuildJob::Context &) {
            Graph g;
            g.run = run;
            auto project = Project::open(path, Project::Mode::ReadOnly, &g.error);
            if (!project)
                return g;
            const auto id = project->findRun(run);
            if (!id) {
                g.error = QStringLiteral("no run named '%1'").arg(run);
                return g;
            }
            g.runId = *id;
            auto built = sim::DependencyGraph::build(*project, *id, &g.error);
            if (!built)
                return g;
            g.graph = std::make_shared<const sim::DependencyGraph>(std::move(*built));
            g.identity = sim::replay(*g.graph, sim::ReplayInput::measured(*g.graph));
            g.context = sim::WhatIfContext::forRun(*g.graph, *project, *id);
            g.context.readMemory(*project, *id);
            return g;
        },
        [this](Graph g) {
            const QString run = g.run, error = g.error;
            if (error.isEmpty()) {
                m_graph = std::move(g);
                m_graph->context.calibration = m_calibration;
            } else
                m_graph.reset();
            m_cache = std::make_shared<sim::StructureCache>();
            Q_EMIT graphReady(run, error);
            startNext();
        });
}

void WhatIfController::request(const QList<sim::Transform> &transforms)
{
    m_pending = transforms;
    startNext();
}

void WhatIfController::setCalibration(std::shared_ptr<const sim::Calibration> calibration)
{
    m_calibration = std::move(calibration);
    if (m_graph)
        m_graph->context.calibration = m_calibration;
}

bool WhatIfController::isBusy() const
{
    return m_build.isRunning() || m_replay.isRunning() || (m_pending && m_graph);
}

void WhatIfController::waitForIdle()
{
    m_build.waitForFinished();
    m_replay.waitForFinished();
}

void WhatIfController::startNext()
{
    if (!m_pending || !m_graph || m_build.isRunning())
        return;
    const QList<sim::Transform> transforms = *m_pending;
    m_pending.reset();
    const Graph &g = *m_graph;
    auto graph = g.graph;
    const auto identity = std::make_shared<const sim::Replay>(g.identity);
    const auto context = g.context;
    const RunId runId = g.runId;
    const QString label = tr("%1 · what-if").arg(g.run);
    const QString runName = g.run;
    auto base = m_base;
    auto cache = m_cache;
    const quint64 id = ++m_requests;
    // Overlap::Coalesce: each replay that finishes is shown; of those asked for meanwhile, the
    // last runs next.
    m_replay.start(
        [=](const ReplayJob::Context &) {
            Result r;
            r.request = id;
            r.run = runName;
            r.identity = identity;
            QElapsedTimer timer;
            timer.start();
            const auto res =
                sim::whatIf(graph, transforms, context, &r.error, cache.get(), identity.get());
            if (!res)
                return r;
            r.report = res->report;
            if (!transforms.isEmpty())
                r.predicted = std::make_shared<const sim::Replay>(res->predicted);
            if (base) // the measured timeline alone until something changes
                r.data = transforms.isEmpty()
                             ? base
                             : sim::withPredictedRun(base, runId, *res->prepared.graph,
                                                     res->predicted, label, transforms);
            r.replayMs = double(timer.nsecsElapsed()) / 1e6;
            return r;
        },
        [this](Result r) { Q_EMIT resultReady(r); });
}

void WhatIfController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this,
            [this, &session] { setProject(session.path(), session.data()); });
}

} // namespace gml
