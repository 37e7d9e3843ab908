// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphcontroller.h"

#include "projectsession.h"

#include "graphview.h"
#include "project.h"
#include "slicequery.h"
#include "slicetrack.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QSettings>
#include <QtConcurrent>

namespace gml {

GraphController::GraphController(GraphView *view, QComboBox *runs, TimelineState *state,
                                 TimelineView *timeline, QObject *parent)
    : QObject(parent), m_view(view), m_runs(runs), m_state(state), m_timeline(timeline)
{
    bool ok = false;
    const qint64 askAbove =
        QSettings().value(QStringLiteral("graph/askAboveSlices")).toLongLong(&ok);
    if (ok && askAbove >= 0)
        m_askAbove = askAbove;
    connect(m_runs, &QComboBox::activated, this, [this](int index) {
        if (m_runs->itemData(index).toString() == QLatin1String("workflow"))
            selectWorkflow();
        else {
            selectRun(m_runs->currentText());
            Q_EMIT runChosen(m_runs->currentText());
        }
    });
    connect(m_view, &GraphView::nodeActivated, this, &GraphController::reveal);
    connect(m_view, &GraphView::leafOpened, this, &GraphController::openStep);
    connect(m_view, &GraphView::upRequested, this, &GraphController::selectWorkflow);
    connect(m_view, &GraphView::noticeLinkActivated, this, [this](const QString &link) {
        if (link != QLatin1String("build") || m_run.isEmpty())
            return;
        m_asked.insert(m_run);
        m_view->setNotice({});
        m_view->showMessage(tr("Building the execution graph of %1…").arg(m_run));
        start();
    });
    connect(m_view, &GraphView::pictureShown, this, &GraphController::highlightFromTimeline);
    m_view->setRanksFolded(QSettings().value(QStringLiteral("graph/foldRanks"), true).toBool());
    connect(m_view, &GraphView::foldRanksToggled, this, [this](bool folded) {
        QSettings().setValue(QStringLiteral("graph/foldRanks"), folded);
        if (m_workflowShown || !m_models[1].model || m_job.isRunning())
            return;
        m_shown = folded ? 1 : 0;
        m_view->setModel(shown().model, m_run);
        if (m_whatIf)
            onWhatIfResult(*m_whatIf);
        highlightFromTimeline();
    });
    connect(m_state, &TimelineState::selectedSliceChanged, this,
            &GraphController::highlightFromTimeline);
    connect(m_state, &TimelineState::selectionChanged, this,
            &GraphController::highlightFromTimeline);
}

GraphController::~GraphController()
{
    // The view may be gone already (the window deletes its docks first): no more deliveries.
    m_job.cancel();
}

void GraphController::waitForIdle()
{
    while (m_job.isRunning()) {
        m_job.waitForFinished();
        QCoreApplication::processEvents(); // deliver finished (it may start the next run's build)
    }
}

// A build's result: shown when it is of the run (or workflow) picked now, else the pick's
// build starts (a pick made while the dock was hidden, or while this one ran).
void GraphController::showBuilt(Built b)
{
    if (b.run != m_run || bool(b.workflow) != m_workflowShown) { // another pick meanwhile
        m_built = false;
        start();
        return;
    }
    m_models[0] = {b.model, std::move(b.sliceIndex)};
    m_models[1] = {b.folded, std::move(b.foldedIndex)};
    const bool folded = b.folded && m_view->ranksFolded();
    m_shown = folded ? 1 : 0;
    m_view->setRanksFoldable(bool(b.folded));
    if (b.workflow)
        m_workflow = b.workflow;
    const QString title = b.workflow ? tr("workflow") : b.run;
    m_error = b.error.isEmpty() ? QString()
              : b.workflow      ? tr("Cannot read the project's workflow: %1").arg(b.error)
                                : tr("Cannot build the graph of run '%1': %2").arg(b.run, b.error);
    if (!m_error.isEmpty()) {
        m_view->showMessage(m_error);
    } else {
        // Named for where it leads, not as the run's own root ("workflow" below it).
        m_view->setUpLink(b.workflow || m_runs->count() < 2 ? QString() : tr("All runs"));
        m_view->setModel(shown().model, title);
    }
    if (b.workflow) {
        QStringList lines;
        for (const QString &p : b.workflow->problems)
            lines << tr("Declaration problem: %1").arg(p);
        for (const QString &n : b.workflow->notes)
            lines << n;
        // Only where an inferred edge is drawn: unrelated runs are steps with no edges.
        if (b.workflow->inferred() && b.workflow->steps.size() > 1 &&
            std::any_of(b.workflow->edges.begin(), b.workflow->edges.end(),
                        [](const sim::WorkflowEdge &e) { return e.inferred; }))
            lines << tr(
                "No workflow is declared: the order of the steps is inferred from their times "
                "(dashed edges). Declare one in the trace folder's grademl.json.");
        m_view->setNotice(lines.join(QLatin1Char('\n')));
    } else {
        m_view->setNotice({});
    }
    highlightFromTimeline();
    Q_EMIT modelReady(title, b.error);
}

void GraphController::setProject(const QString &projectPath,
                                 std::shared_ptr<const TimelineData> data)
{
    m_job.cancel(); // a build of the previous project is dropped
    m_projectPath = projectPath;
    m_data = std::move(data);
    m_models[0] = m_models[1] = {};
    m_shown = 0;
    m_whatIf.reset();
    m_built = false;
    m_workflow.reset();
    m_drawable.clear();
    m_asked.clear();
    int steps = 0; // measured runs with data: the inferred workflow's steps
    if (m_data)
        for (const auto &run : m_data->runs) {
            if (run.kind != QLatin1String("measured"))
                continue;
            if (run.slices > 0)
                m_drawable << run.name;
            steps += run.slices > 0 || run.counterSamples > 0;
        }
    m_runs->clear();
    if (steps > 1)
        m_runs->addItem(tr("Workflow (all runs)"), QStringLiteral("workflow"));
    m_runs->addItems(m_drawable);
    // Several runs: the workflow first, each step opens its run; one run: its graph.
    m_workflowShown = steps > 1;
    m_run = m_workflowShown ? QString() : m_drawable.value(0);
    m_runs->setCurrentIndex(0);
    m_view->setModel(nullptr, {});
    m_view->setNotice({});
    m_view->setUpLink({});
    m_view->showMessage(m_drawable.isEmpty() && !m_workflowShown
                            ? tr("The project has no measured run with slices: nothing to draw.")
                        : m_workflowShown ? tr("Reading the project's workflow…")
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
    if (run == m_run && !m_workflowShown)
        return;
    m_run = run;
    m_workflowShown = false;
    m_built = false;
    m_asked.insert(run); // picked by the user: built whatever its size
    m_runs->setCurrentText(run);
    m_view->showMessage(tr("Building the execution graph of %1…").arg(run));
    start();
}

void GraphController::selectWorkflow()
{
    const int index = m_runs->findData(QStringLiteral("workflow"));
    if (m_workflowShown || index < 0)
        return;
    m_workflowShown = true;
    m_run.clear();
    m_built = false;
    m_runs->setCurrentIndex(index);
    m_view->showMessage(tr("Reading the project's workflow…"));
    start();
}

void GraphController::openStep(int node)
{
    if (!m_workflowShown || !m_workflow || node < 1 || size_t(node) > m_workflow->steps.size())
        return;
    const sim::WorkflowStep &step = m_workflow->steps[size_t(node - 1)];
    for (const QString &run : step.runs)
        if (m_drawable.contains(run)) {
            selectRun(run);
            Q_EMIT runChosen(run);
            return;
        }
    m_view->setNotice(
        step.runs.isEmpty()
            ? tr("Step '%1' matches no run: nothing to open.").arg(step.name)
            : tr("Step '%1' has no slices to draw (its runs hold counters only; they are "
                 "in the timeline).")
                  .arg(step.name));
}

void GraphController::start()
{
    if (!m_visible || m_built || (m_run.isEmpty() && !m_workflowShown) || m_projectPath.isEmpty())
        return;
    if (!m_workflowShown && !m_asked.contains(m_run) && m_data) {
        qint64 slices = 0;
        for (const auto &r : m_data->runs)
            if (r.name == m_run)
                slices = r.slices;
        if (slices > m_askAbove) {
            m_view->showMessage(
                tr("Run %1 has %L2 slices: its execution graph is built when you ask.")
                    .arg(m_run)
                    .arg(slices));
            const double gb =
                double(slices) * 380 / 1e9; // bench_graph --project: 1.24 GiB for 3.44 M slices
            m_view->setNotice(tr("Building it takes a few seconds and about %1 of memory. <a "
                                 "href=\"build\">Build "
                                 "the execution graph</a>")
                                  .arg(gb >= 1 ? tr("%1 GB").arg(gb, 0, 'f', 1)
                                               : tr("%1 MB").arg(qRound(gb * 1000))));
            return;
        }
    }
    m_built = true;
    const QString path = m_projectPath, run = m_run;
    const bool workflow = m_workflowShown;
    // Overlap::Wait: a build asked for while one runs starts when it has ended.
    m_job.start(
        [path, run, workflow](const Job::Context &) {
            Built b;
            b.run = run;
            QElapsedTimer timer;
            timer.start();
            auto project = Project::open(path, Project::Mode::ReadOnly, &b.error);
            if (!project)
                return b;
            if (workflow) {
                auto w = sim::Workflow::load(*project, &b.error);
                if (!w) {
                    b.workflow = std::make_shared<const sim::Workflow>();
                    return b;
                }
                b.model = std::make_shared<const sim::ExecutionModel>(
                    sim::ExecutionModel::forWorkflow(*w));
                b.workflow = std::make_shared<const sim::Workflow>(std::move(*w));
                b.ms = double(timer.nsecsElapsed()) / 1e6;
                return b;
            }
            const auto id = project->findRun(run);
            if (!id) {
                b.error = QStringLiteral("no run named '%1'").arg(run);
                return b;
            }
            auto model = sim::ExecutionModel::forRun(*project, *id, run, &b.error);
            if (!model)
                return b;
            b.sliceIndex = model->sliceIndex();
            if (model->rankCount() > 1) {
                auto folded = model->foldRanks();
                b.foldedIndex = folded.sliceIndex();
                b.folded = std::make_shared<const sim::ExecutionModel>(std::move(folded));
            }
            b.model = std::make_shared<const sim::ExecutionModel>(std::move(*model));
            b.ms = double(timer.nsecsElapsed()) / 1e6;
            return b;
        },
        [this](Built b) { showBuilt(std::move(b)); });
}

void GraphController::reveal(int node)
{
    const auto &model = shown().model;
    if (!model || node < 0 || size_t(node) >= model->nodes().size())
        return;
    const sim::ModelNode &n = model->nodes()[size_t(node)];
    if (n.end > n.start) {
        m_state->setSelection(n.start, n.end);
        m_state->zoomToSelection();
    }
    // Its first slice on its own track (an operator's range, a kernel); a step or the
    // workflow has none, and its span is the selection.
    const TrackId track = model->trackOf(n.resource);
    if (const auto own = model->slices(node); m_data && !own.empty())
        if (const auto ref = findSliceRef(*m_data, track, own.front()))
            m_timeline->revealSlice(*ref, false);
    highlightFromTimeline();
}

void GraphController::highlightFromTimeline()
{
    if (!shown().model)
        return;
    std::vector<int> nodes;
    // A selected slice: the node that holds it; else a selected range: every shown box that
    // overlaps it.
    if (m_state->hasSelectedSlice()) {
        const int n = sim::ExecutionModel::nodeOfSlice(shown().index, m_state->selectedSlice());
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
    const auto &model = shown().model;
    if (!model || m_workflowShown || result.run != m_run)
        return;
    m_whatIf = result;
    if (!result.predicted || !result.identity) {
        m_view->setPredictedChange({});
        return;
    }
    m_view->setPredictedChange(model->spanChange(*result.identity, *result.predicted));
}

void GraphController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this,
            [this, &session] { setProject(session.path(), session.data()); });
}

} // namespace gml
