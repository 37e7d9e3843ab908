// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphcontroller.h"

#include "graphview.h"
#include "project.h"
#include "slicetrack.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QtConcurrent>

namespace gml {

GraphController::GraphController(GraphView *view, QComboBox *runs, TimelineState *state, TimelineView *timeline,
                                 QObject *parent)
    : QObject(parent), m_view(view), m_runs(runs), m_state(state), m_timeline(timeline)
{
    connect(&m_watcher, &QFutureWatcher<Built>::finished, this, [this] {
        m_inFlight = false;
        Built b = m_watcher.result();
        if (b.run != m_run) { // the user picked another run meanwhile
            m_built = false;
            start();
            return;
        }
        m_model = b.model;
        m_sliceIndex = std::move(b.sliceIndex);
        if (!b.error.isEmpty())
            m_view->showMessage(tr("Cannot build the graph of run '%1': %2").arg(b.run, b.error));
        else
            m_view->setModel(m_model, b.run);
        highlightFromTimeline();
        Q_EMIT modelReady(b.run, b.error);
    });
    connect(m_runs, &QComboBox::activated, this, [this] { selectRun(m_runs->currentText()); });
    connect(m_view, &GraphView::nodeActivated, this, &GraphController::reveal);
    connect(m_view, &GraphView::pictureShown, this, &GraphController::highlightFromTimeline);
    connect(m_state, &TimelineState::selectedSliceChanged, this, &GraphController::highlightFromTimeline);
    connect(m_state, &TimelineState::selectionChanged, this, &GraphController::highlightFromTimeline);
}

GraphController::~GraphController()
{
    // The view may be gone already (the window deletes its docks first): no more deliveries.
    m_watcher.disconnect(this);
    m_watcher.waitForFinished();
}

void GraphController::waitForIdle()
{
    while (m_inFlight) {
        m_watcher.waitForFinished();
        QCoreApplication::processEvents(); // deliver finished (it may start the next run's build)
    }
}

void GraphController::setProject(const QString &projectPath, std::shared_ptr<const TimelineData> data)
{
    m_watcher.waitForFinished();
    m_projectPath = projectPath;
    m_data = std::move(data);
    m_model.reset();
    m_sliceIndex.clear();
    m_built = false;
    QStringList measured;
    if (m_data)
        for (const auto &run : m_data->runs)
            if (run.kind == QLatin1String("measured") && run.slices > 0)
                measured << run.name;
    m_runs->clear();
    m_runs->addItems(measured);
    m_run = measured.value(0);
    m_view->setModel(nullptr, {});
    m_view->showMessage(measured.isEmpty() ? tr("The project has no measured run with slices: nothing to draw.")
                                           : tr("Building the execution graph of %1…").arg(m_run));
    start();
}

void GraphController::setVisible(bool visible)
{
    m_visible = visible;
    start();
}

void GraphController::selectRun(const QString &run)
{
    if (run == m_run)
        return;
    m_run = run;
    m_built = false;
    m_runs->setCurrentText(run);
    m_view->showMessage(tr("Building the execution graph of %1…").arg(run));
    start();
}

void GraphController::start()
{
    if (!m_visible || m_built || m_run.isEmpty() || m_projectPath.isEmpty() || m_watcher.isRunning())
        return;
    m_built = true;
    m_inFlight = true;
    const QString path = m_projectPath, run = m_run;
    m_watcher.setFuture(QtConcurrent::run([path, run] {
        Built b;
        b.run = run;
        QElapsedTimer timer;
        timer.start();
        auto project = Project::open(path, Project::Mode::ReadOnly, &b.error);
        if (!project)
            return b;
        const auto id = project->findRun(run);
        if (!id) {
            b.error = QStringLiteral("no run named '%1'").arg(run);
            return b;
        }
        auto model = sim::ExecutionModel::forRun(*project, *id, run, &b.error);
        if (!model)
            return b;
        b.sliceIndex = model->sliceIndex();
        b.model = std::make_shared<const sim::ExecutionModel>(std::move(*model));
        b.ms = double(timer.nsecsElapsed()) / 1e6;
        return b;
    }));
}

void GraphController::reveal(int node)
{
    if (!m_model || node < 0 || size_t(node) >= m_model->nodes().size())
        return;
    const sim::ModelNode &n = m_model->nodes()[size_t(node)];
    if (n.end > n.start) {
        m_state->setSelection(n.start, n.end);
        m_state->zoomToSelection();
    }
    // Its first slice on its own track (an operator's range, a kernel); a step or the
    // workflow has none, and its span is the selection.
    const TrackId track = m_model->trackOf(n.resource);
    const auto slices = m_data ? m_data->slices.value(track) : nullptr;
    if (slices && !n.slices.empty()) {
        const qint64 index = slices->indexOf(n.slices.front());
        if (index >= 0)
            m_timeline->revealSlice(track, size_t(index), false);
    }
    highlightFromTimeline();
}

void GraphController::highlightFromTimeline()
{
    if (!m_model)
        return;
    std::vector<int> nodes;
    // A selected slice: the node that holds it; else a selected range: every shown box that
    // overlaps it.
    if (m_state->hasSelectedSlice()) {
        const int n = sim::ExecutionModel::nodeOfSlice(m_sliceIndex, m_state->selectedSlice());
        if (n >= 0)
            nodes.push_back(n);
    }
    const auto picture = m_view->picture();
    if (nodes.empty() && m_state->hasSelection() && picture) {
        const TimeNs t0 = m_state->selectionStart(), t1 = m_state->selectionEnd();
        for (const auto &item : picture->scene.items)
            if (item.start < t1 && item.end > t0 && item.end > item.start)
                nodes.push_back(item.node);
    }
    m_view->setHighlightedNodes(nodes);
}

void GraphController::onWhatIfResult(const WhatIfController::Result &result)
{
    if (!m_model || result.run != m_run)
        return;
    if (!result.predicted || !result.identity) {
        m_view->setPredictedChange({});
        return;
    }
    m_view->setPredictedChange(m_model->spanChange(*result.identity, *result.predicted));
}

} // namespace gml
