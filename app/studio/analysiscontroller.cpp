// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysiscontroller.h"

#include "projectsession.h"

#include "analysispanel.h"
#include "clusteranalysis.h"
#include "clusterproject.h"
#include "project.h"
#include "slicequery.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QPointer>
#include <QSignalBlocker>
#include <QtConcurrent>

#include <climits>

namespace gml {

AnalysisController::AnalysisController(
    AnalysisPanel *panel, TimelineState *state, TimelineView *timeline,
    std::function<void(const QString &, const QList<sim::Transform> &)> tryIt, QObject *parent)
    : QObject(parent), m_panel(panel), m_state(state), m_timeline(timeline),
      m_tryIt(std::move(tryIt))
{
    qRegisterMetaType<sim::Evidence>();
    connect(m_panel, &AnalysisPanel::runChanged, this, &AnalysisController::select);
    connect(m_panel, &AnalysisPanel::refreshRequested, this, [this] {
        if (!m_refreshRun.isEmpty() && m_refreshRun != m_run) {
            m_panel->setRuns(m_runs, m_refreshRun);
            m_run = m_refreshRun;
        }
        m_done = false;
        start();
    });
    connect(m_panel, &AnalysisPanel::cancelRequested, this, [this] { m_job.stop(); });
    connect(m_panel, &AnalysisPanel::evidenceActivated, this, &AnalysisController::reveal);
    connect(m_panel, &AnalysisPanel::tryRequested, this,
            [this](const QList<sim::Transform> &transforms) {
                if (m_tryIt)
                    m_tryIt(m_run, transforms);
            });
}

AnalysisController::~AnalysisController() = default;

// The runs the panel offers: measured ones with data.
static QStringList analysable(const TimelineData *data)
{
    QStringList runs;
    if (data)
        for (const auto &run : data->runs)
            if (run.kind == QLatin1String("measured") && (run.slices > 0 || run.counterSamples > 0))
                runs << run.name;
    return runs;
}

void AnalysisController::setProject(const QString &projectPath,
                                    std::shared_ptr<const TimelineData> data)
{
    m_projectPath = projectPath;
    m_data = std::move(data);
    const QStringList runs = analysable(m_data.get());
    m_runs = runs;
    m_run = runs.value(0);
    m_done = false;
    m_panel->setRuns(runs, m_run);
    m_panel->showMessage(runs.isEmpty() ? tr("The project has no measured run.")
                                        : tr("Analysing when shown…"));
    if (m_visible)
        start();
}

void AnalysisController::dataGrew(std::shared_ptr<const TimelineData> data)
{
    auto slicesOf = [this](const std::shared_ptr<const TimelineData> &d) -> qint64 {
        const RunSummary *run = d ? d->runNamed(m_run) : nullptr;
        return run ? run->slices : 0;
    };
    const qint64 before = slicesOf(m_data), after = slicesOf(data);
    m_data = std::move(data);
    const QStringList runs = analysable(m_data.get());
    QStringList newRuns;
    for (const QString &run : runs)
        if (!m_runs.contains(run) && m_data->runNamed(run)->slices > 0)
            newRuns << run;
    if (runs != m_runs) {
        m_runs = runs;
        // The run shown may have been renamed (a folder's second trace splits it into runs of
        // one workload, rungrouping.h): its first successor is analysed in its place.
        const bool gone = !runs.contains(m_run);
        if (gone)
            m_run = newRuns.value(0, runs.value(0));
        {
            const QSignalBlocker quiet(m_panel);
            m_panel->setRuns(runs, m_run);
        }
        if (gone) {
            newRuns.removeAll(m_run);
            m_done = false;
            if (m_visible)
                start();
        }
    }
    if (!m_done)
        return; // not analysed yet: it will be with the new data
    // New slices make the shown findings stale: new iterations of the run shown, or a new run
    // (torch.profiler writes a trace per cycle, and each is a run of the folder's workload).
    m_refreshRun = QString();
    if (!newRuns.isEmpty()) {
        m_refreshRun = newRuns.last();
        m_panel->offerRefresh(tr("New run %1 arrived: Refresh analyses it").arg(m_refreshRun));
    } else if (after > before) {
        m_panel->offerRefresh(tr("%n new slices in %1 since this analysis", nullptr,
                                 int(std::min<qint64>(after - before, INT_MAX)))
                                  .arg(m_run));
    }
}

void AnalysisController::setVisible(bool visible)
{
    m_visible = visible;
    if (visible && !m_done)
        start();
}

void AnalysisController::select(const QString &run)
{
    if (run == m_run && m_done)
        return;
    if (run != m_run)
        m_panel->withdrawRefresh();
    m_run = run;
    m_done = false;
    if (m_visible)
        start();
}

void AnalysisController::follow(const QString &run)
{
    if (!m_runs.contains(run) || run == m_run)
        return;
    m_panel->setRuns(m_runs, run);
    select(run);
}

void AnalysisController::analyse(const QString &run)
{
    if (!m_runs.contains(run))
        return;
    if (run != m_run)
        m_panel->setRuns(m_runs, run);
    if (run == m_run && m_done)
        return; // analysed already, or on its way
    m_run = run;
    start();
}

void AnalysisController::start()
{
    if (m_run.isEmpty() || m_projectPath.isEmpty())
        return;
    m_done = true;
    m_panel->showProgress(tr("Opening the project"), 0, 1);
    // Overlap::Wait: an analysis asked for while one runs starts when it has stopped.
    m_job.start(
        [this, path = m_projectPath, run = m_run](const Job::Context &job) -> Result {
            Result r;
            r.run = run;
            auto project = Project::open(path, Project::Mode::ReadOnly, &r.error);
            if (!project)
                return r;
            const auto id = project->findRun(run);
            if (!id) {
                r.error = tr("no run named '%1'").arg(run);
                return r;
            }
            if (cluster::isClusterProject(*project)) { // no slice here: its shards' facts
                if (auto c = sim::analyzeCluster(*project, *id, run, &r.error))
                    r.report = c->toRunReport();
                return r;
            }
            r.report = sim::analyzeRun(
                *project, *id, run, {}, &r.error,
                [&](const QString &stage, int done, int total) {
                    job.post(
                        [this, stage, done, total] { m_panel->showProgress(stage, done, total); });
                    return !job.cancelled();
                },
                nullptr,
                [&](const sim::RunReport &unpriced) {
                    job.post([this, unpriced] { m_panel->showReport(unpriced, false); });
                });
            return r;
        },
        [this](Result r) {
            if (r.report)
                m_panel->showReport(*r.report, true);
            else
                m_panel->showMessage(tr("Cannot analyse run '%1': %2").arg(r.run, r.error));
            Q_EMIT reportReady(r.run, r.report ? QString() : r.error);
        });
}

void AnalysisController::waitForIdle()
{
    while (m_job.isRunning()) {
        m_job.waitForFinished();
        QCoreApplication::processEvents();
    }
}

void AnalysisController::reveal(const sim::Evidence &e)
{
    if (!m_data)
        return;
    // The analysed run in focus first (the evidence's times are on its clock), the evidence
    // with a little context either side.
    const RunSummary *analysed = m_data->runNamed(m_run);
    const RunId run = analysed ? analysed->id : 0;
    if (e.end > e.start)
        m_timeline->revealTime(run, e.start, e.end);
    else if (run && !m_timeline->layout().showsRun(run))
        m_state->setFocus({run});
    if (e.slice && e.track) {
        if (const auto ref = findSliceRef(*m_data, e.track, e.slice))
            m_timeline->revealSlice(*ref, false);
    } else if (e.rank >= 0) {
        // A rank's iteration or a collective's straggler: that rank's GPU row, at the top.
        for (const auto &r : m_data->runs)
            if (r.id == run)
                for (const auto &t : r.tracks)
                    if (t.rank == e.rank && t.kind == TrackKind::Gpu) {
                        m_timeline->revealTrack(t.id);
                        Q_EMIT revealed();
                        return;
                    }
    }
    Q_EMIT revealed();
}

void AnalysisController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this, [this, &session] {
        setProject(session.path(), session.data());
        follow(session.focus().value(0)); // one run everywhere
    });
    // After the focus took a new run in (runsChanged): it may offer to analyse it.
    connect(&session, &ProjectSession::grew, this, [this, &session] { dataGrew(session.data()); });
}

} // namespace gml
