// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "findings.h"
#include "latestjob.h"
#include "timelinedata.h"

#include <QObject>

#include <atomic>
#include <functional>
#include <memory>

namespace gml {

class ProjectSession;

class AnalysisPanel;
class TimelineState;
class TimelineView;

// Wires the Analysis panel: analyses the chosen run off the GUI thread when the panel is first
// looked at (grademl analyze's report: the graph, the breakdowns, the counters by phase, then
// the findings, shown unpriced at once and again once each is priced by its what-if), with
// progress and cancel. A click on a piece of evidence selects its range in the timeline, zooms
// to it and reveals its slice; "try it" hands the finding's transforms to `tryIt` (the
// main window opens the What-if panel with them).
class AnalysisController : public QObject
{
    Q_OBJECT
public:
    // Takes each project the session opens, on its first run in focus, and follows what a
    // followed folder adds (projectsession.h).
    void subscribe(const ProjectSession &session);
    AnalysisController(AnalysisPanel *panel, TimelineState *state, TimelineView *timeline,
                       std::function<void(const QString &run, const QList<sim::Transform> &)> tryIt,
                       QObject *parent = nullptr);
    ~AnalysisController() override;

    void setProject(const QString &projectPath, std::shared_ptr<const TimelineData> data);
    // A followed folder brought new data: the shown report is kept, and the panel offers to
    // analyse again (with `data`) when the run it shows grew.
    void dataGrew(std::shared_ptr<const TimelineData> data);
    void setVisible(bool visible); // the dock: analyses the first time it shows
    void select(const QString &run);
    // The run in focus in the timeline: the panel switches to it when it can analyse it.
    void follow(const QString &run);
    // Analyses `run` now, shown or not (the rank overview's straggler marks).
    void analyse(const QString &run);
    const QString &run() const { return m_run; }
    // From start() until its report is shown (the future may not have begun running yet).
    bool isBusy() const { return m_job.isRunning(); }
    void waitForIdle(); // tests and screenshots: the final report is shown on return

Q_SIGNALS:
    void reportReady(const QString &run, const QString &error);
    // A piece of evidence was shown in the timeline (its run put in focus).
    void revealed();

private:
    struct Result
    {
        QString run;
        std::optional<sim::RunReport> report;
        QString error;
    };
    void start();
    void reveal(const sim::Evidence &evidence);

    AnalysisPanel *m_panel;
    TimelineState *m_state;
    TimelineView *m_timeline;
    std::function<void(const QString &, const QList<sim::Transform> &)> m_tryIt;
    QString m_projectPath;
    std::shared_ptr<const TimelineData> m_data;
    QString m_run;
    QString m_refreshRun; // the run Refresh analyses (a new one), empty: m_run again
    QStringList m_runs;   // the runs it can analyse
    bool m_visible = false;
    bool m_done = false; // m_run is analysed (or being analysed)
    using Job = LatestJob<Result>;
    Job m_job{this, Job::Overlap::Wait};
};

} // namespace gml
