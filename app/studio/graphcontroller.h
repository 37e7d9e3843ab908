// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "executionmodel.h"
#include "latestjob.h"
#include "timelinedata.h"
#include "whatifcontroller.h"
#include "workflow.h"

#include <QObject>
#include <QSet>

#include <memory>
#include <optional>

class QComboBox;

namespace gml {

class ProjectSession;

class GraphView;
class TimelineState;
class TimelineView;

// Wires the graph dock to the rest of the studio. Builds the execution model of the chosen
// run off the GUI thread (its dependency graph, the identity replay's critical path and the
// slice index) when the dock is first looked at, and links selection both ways: a click on a
// box selects its span and first slice in the timeline; a slice or a range selected in the
// timeline lights up the boxes that hold it. A what-if result on the same run colours the
// boxes by their predicted change.
// The picker's first entry is the project's workflow (its steps and the edges between them,
// declared or inferred); a double-click on a step opens its run, and the run's breadcrumb
// leads back up to it.
class GraphController : public QObject
{
    Q_OBJECT
public:
    // Takes each project the session opens (projectsession.h).
    void subscribe(const ProjectSession &session);
    GraphController(GraphView *view, QComboBox *runs, TimelineState *state, TimelineView *timeline,
                    QObject *parent = nullptr);
    ~GraphController() override;

    void setProject(const QString &projectPath, std::shared_ptr<const TimelineData> data);
    void setVisible(bool visible); // the dock: builds the model the first time it shows
    void selectRun(const QString &run);
    void selectWorkflow();
    QString run() const { return m_run; } // empty while the workflow is shown
    bool showsWorkflow() const { return m_workflowShown; }
    const sim::Workflow *workflow() const { return m_workflow.get(); }
    bool isBusy() const { return m_job.isRunning(); }
    // Runs of more slices than this are built when the user asks, not when the dock shows
    // (default kAskAbove; the setting "graph/askAboveSlices" overrides it).
    static constexpr qint64 kAskAbove = 1'000'000;
    void setAskAbove(qint64 slices) { m_askAbove = slices; }
    qint64 askAbove() const { return m_askAbove; }
    // Why the last model could not be built; empty when it was, or when there is nothing to
    // draw (a project of monitoring only).
    QString error() const { return m_error; }
    GraphView *view() const { return m_view; }
    void waitForIdle();
    void onWhatIfResult(const WhatIfController::Result &result);
    // Model node -> reveal in the timeline (what a click on a box does).
    void reveal(int node);

Q_SIGNALS:
    void modelReady(const QString &run, const QString &error);
    // The user chose a run (the picker, a workflow step opened): the timeline focuses it.
    void runChosen(const QString &run);

private:
    struct Built
    {
        QString run; // empty: the workflow
        std::shared_ptr<const sim::Workflow> workflow;
        std::shared_ptr<const sim::ExecutionModel> model;
        std::vector<std::pair<SliceId, int>> sliceIndex;
        std::shared_ptr<const sim::ExecutionModel> folded; // its ranks folded; null: one rank
        std::vector<std::pair<SliceId, int>> foldedIndex;
        QString error;
        double ms = 0;
    };
    void start();
    void highlightFromTimeline();
    void openStep(int node);

    GraphView *m_view;
    QComboBox *m_runs;
    TimelineState *m_state;
    TimelineView *m_timeline;
    QString m_projectPath;
    std::shared_ptr<const TimelineData> m_data;
    QString m_run;
    bool m_workflowShown = false; // the workflow, not m_run, is (being) shown
    QString m_error;
    std::shared_ptr<const sim::Workflow> m_workflow;
    QStringList m_drawable; // runs with slices: those a step can open
    bool m_visible = false;
    bool m_built = false; // the model of m_run is built (or being built)
    // Runs whose graph the user asked for: a run of more slices than m_askAbove is built only
    // then (its model takes seconds and about 380 bytes a slice), not because the dock shows.
    QSet<QString> m_asked;
    qint64 m_askAbove = kAskAbove;
    // The run's model with its ranks apart and folded (null: one rank); m_models[m_shown] is shown.
    struct Shown
    {
        std::shared_ptr<const sim::ExecutionModel> model;
        std::vector<std::pair<SliceId, int>> index;
    };
    Shown m_models[2];
    int m_shown = 0;
    const Shown &shown() const { return m_models[m_shown]; }
    std::optional<WhatIfController::Result> m_whatIf; // the last on this run: kept across a fold
    void showBuilt(Built b);
    using Job = LatestJob<Built>;
    Job m_job{this, Job::Overlap::Wait};
};

} // namespace gml
