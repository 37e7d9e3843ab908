// SPDX-License-Identifier: GPL-3.0-or-later
#include "rankoverviewcontroller.h"

#include "projectsession.h"

#include "clusterproject.h"
#include "project.h"
#include "rankoverviewview.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QMenu>
#include <QtConcurrent>

#include <set>
#include <utility>

namespace gml {

RankOverviewController::RankOverviewController(RankOverviewView *view, TimelineView *timeline,
                                               TimelineState *state, QObject *parent)
    : QObject(parent), m_view(view), m_timeline(timeline), m_state(state)
{
    m_view->hide();
    connect(m_view, &RankOverviewView::laneActivated, this,
            [this](int lane, qint64 at) { expand(lane, at, true); });
    connect(m_view, &RankOverviewView::lanePicked, this,
            [this](int lane, qint64 at) { expand(lane, at, false); });
    connect(m_view, &RankOverviewView::laneOpened, this,
            [this](int lane, qint64 at) { reveal(lane, at); });
    connect(m_view, &RankOverviewView::laneMenuRequested, this,
            &RankOverviewController::showLaneMenu);
    connect(m_view, &RankOverviewView::stragglersRequested, this,
            [this] { Q_EMIT stragglersRequested(m_run); });
    // Lined up with the timeline's columns; the run shown follows the focus.
    connect(m_timeline, &TimelineView::layoutChanged, this, [this] {
        m_view->setLabelWidth(m_timeline->painter().metrics().labelWidth);
        m_view->setRightMargin(m_timeline->scrollBarWidth());
        if (m_data && m_timeline->data() && m_timeline->data()->projectPath == m_data->projectPath)
            followFocus();
    });
    // Ranks as summary rows draw what the overview does, at full width with labels: the
    // overview steps aside while they are on, so the rows get its height.
    connect(m_timeline, &TimelineView::rankRowsChanged, this, [this] { showIfUseful(); });
}

void RankOverviewController::showIfUseful()
{
    const auto overview = m_view->overview();
    m_view->setVisible(overview && overview->lanes.size() > 1 && !m_timeline->rankRows());
}

RankOverviewController::~RankOverviewController() = default;

QString RankOverviewController::shardOf(int lane, QString *why) const
{
    const auto overview = m_view->overview();
    if (!overview || lane < 0 || size_t(lane) >= overview->lanes.size() || m_projectPath.isEmpty())
        return {};
    QString error;
    auto project = Project::open(m_projectPath, Project::Mode::ReadOnly, &error);
    if (!project || !cluster::isClusterProject(*project))
        return {};
    const auto path =
        cluster::shardOfRank(*project, m_runId, overview->lanes[size_t(lane)].rank, &error);
    if (!path && why)
        *why = error;
    return path.value_or(QString());
}

void RankOverviewController::openShard(int lane)
{
    if (const QString path = shardOf(lane); !path.isEmpty())
        Q_EMIT openProjectRequested(path);
}

void RankOverviewController::showLaneMenu(int lane, TimeNs at, const QPoint &globalPos)
{
    const auto overview = m_view->overview();
    if (!overview || lane < 0 || size_t(lane) >= overview->lanes.size())
        return;
    const int rank = overview->lanes[size_t(lane)].rank;
    QMenu menu;
    menu.addAction(m_expandedLane == lane ? tr("Fold rank %1's streams").arg(rank)
                                          : tr("Expand rank %1's streams").arg(rank),
                   this, [this, lane, at] { expand(lane, at, true); });
    menu.addAction(tr("Show rank %1's GPU row").arg(rank), this,
                   [this, lane, at] { reveal(lane, at); });
    QString why;
    const QString shard = shardOf(lane, &why);
    if (!shard.isEmpty() || !why.isEmpty()) {
        menu.addSeparator();
        QAction *open =
            menu.addAction(tr("Open rank %1's shard (findings, graph, what-if)").arg(rank), this,
                           [this, shard] { Q_EMIT openProjectRequested(shard); });
        open->setEnabled(!shard.isEmpty());
        open->setToolTip(shard.isEmpty() ? why : shard);
        menu.setToolTipsVisible(true);
    }
    menu.exec(globalPos);
}

void RankOverviewController::setProject(const QString &projectPath,
                                        std::shared_ptr<const TimelineData> data)
{
    m_projectPath = projectPath;
    m_data = std::move(data);
    m_expanded.clear(); // tracks of the project before
    m_expandedLane = -1;
    m_run.clear();
    m_runId = 0;
    // Each run's ranks (GPU tracks with slices), counted once: the focus is followed at every
    // layout of the timeline.
    m_ranksOfRun.clear();
    for (const RunSummary &run : m_data ? m_data->runs : QList<RunSummary>{}) {
        std::set<int> ranks;
        for (const TrackSummary &t : run.tracks)
            if ((t.kind == TrackKind::Gpu || t.kind == TrackKind::Stream) && t.slices > 0)
                ranks.insert(t.rank);
        m_ranksOfRun.insert(run.id, ranks.size());
    }
    followFocus();
}

void RankOverviewController::followFocus()
{
    // The focused run over the most ranks (GPU tracks of two ranks at least); every run when
    // none is focused.
    const QList<RunId> focus = m_state->focusRuns();
    QString name;
    RunId id = 0;
    size_t most = 1;
    for (const RunSummary &run : m_data ? m_data->runs : QList<RunSummary>{}) {
        if (!focus.isEmpty() && !focus.contains(run.id))
            continue;
        if (const size_t ranks = m_ranksOfRun.value(run.id); ranks > most) {
            most = ranks;
            name = run.name;
            id = run.id;
        }
    }
    m_view->setShift(m_timeline->layout().shiftOfRun(id));
    if (id == m_runId && m_view->overview())
        return;     // shown already
    m_job.cancel(); // what was being read is of another run (or project) now
    fold();
    m_run = name;
    m_runId = id;
    m_view->clear();
    m_view->hide();
    m_view->setLabelWidth(m_timeline->painter().metrics().labelWidth);
    if (m_run.isEmpty())
        return;
    m_job.start(
        [path = m_projectPath, run = m_runId](const LatestJob<Result>::Context &) {
            Result r;
            // Writable where it can be: a summary made now (a source imported by an older program)
            // is then kept, and the next open reads it.
            const auto mode = Project::whyNotWritable(path).isEmpty() ? Project::Mode::ReadWrite
                                                                      : Project::Mode::ReadOnly;
            auto project = Project::open(path, mode, &r.error);
            if (!project && mode == Project::Mode::ReadWrite)
                project = Project::open(path, Project::Mode::ReadOnly, &r.error);
            if (!project)
                return r;
            auto overview = loadRankOverview(*project, run, &r.error);
            if (overview)
                r.overview = std::make_shared<const RankOverview>(std::move(*overview));
            return r;
        },
        [this](Result r) { // the latest run's, a project opened since drops it
            m_view->setOverview(r.overview, m_run);
            // Opened on the steady state when the user has not moved the window yet: a job whose
            // ranks start one after another is otherwise all start-up triangle.
            if (r.overview && r.overview->warmup > 0 &&
                m_state->windowStart() == m_state->traceStart() &&
                m_state->windowEnd() == m_state->traceEnd())
                m_view->setIncludeWarmup(false);
            showIfUseful();
            Q_EMIT loaded(r.error);
        });
}

void RankOverviewController::setStragglers(
    const QString &run, const std::vector<sim::Straggler> &stragglers,
    const std::vector<std::pair<int, TimeNs>> &criticalByRank)
{
    if (run != m_run)
        return;
    std::vector<RankOverviewView::Mark> marks;
    for (const auto &s : stragglers)
        if (s.lastRank >= 0 && s.late() > 0)
            marks.push_back({s.lastRank, s.lastArrival, s.late()});
    m_view->setMarks(std::move(marks),
                     std::map<int, TimeNs>(criticalByRank.begin(), criticalByRank.end()));
}

void RankOverviewController::waitForIdle()
{
    m_job.waitForFinished();
    // Its result is delivered by the event loop; showing the view then lays the splitter out.
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
}

TrackId RankOverviewController::trackOf(int lane) const
{
    const auto &overview = m_view->overview();
    if (!overview || !m_data || lane < 0 || size_t(lane) >= overview->lanes.size())
        return 0;
    const RankLane &l = overview->lanes[size_t(lane)];
    TrackId stream = 0, any = 0;
    for (const RunSummary &run : m_data->runs) {
        if (run.id != m_runId)
            continue;
        for (const TrackSummary &t : run.tracks) {
            if (t.rank != l.rank)
                continue;
            if (t.kind == TrackKind::Gpu && t.pid == l.device)
                return t.id; // the device's row, its streams under it
            if (t.kind == TrackKind::Stream && t.pid == l.device && !stream)
                stream = t.id;
            if (!any)
                any = t.id;
        }
    }
    return stream ? stream : any;
}

QList<TrackId> RankOverviewController::streamsOf(int lane) const
{
    QList<TrackId> out;
    const auto &overview = m_view->overview();
    if (!overview || !m_data || lane < 0 || size_t(lane) >= overview->lanes.size())
        return out;
    const RankLane &l = overview->lanes[size_t(lane)];
    for (const RunSummary &run : m_data->runs)
        if (run.id == m_runId)
            for (const TrackSummary &t : run.tracks)
                if (t.rank == l.rank && t.pid == l.device && t.kind == TrackKind::Stream &&
                    t.slices > 0)
                    out.append(t.id);
    if (out.isEmpty())
        if (const TrackId t = trackOf(lane))
            out.append(t);
    return out;
}

void RankOverviewController::fold()
{
    for (TrackId t : std::exchange(m_expanded, {}))
        m_timeline->setPinned(t, false);
    m_expandedLane = -1;
    m_view->setHighlighted(-1);
}

void RankOverviewController::expand(int lane, TimeNs at, bool toggle)
{
    const bool again = toggle && lane == m_expandedLane;
    fold();
    if (!again) {
        m_expanded = streamsOf(lane);
        for (TrackId t : m_expanded)
            m_timeline->setPinned(t, true);
        m_expandedLane = m_expanded.isEmpty() ? -1 : lane;
        m_view->setHighlighted(m_expandedLane);
    }
    if (!m_expanded.isEmpty() || again)
        m_state->setCursor(at);
}

void RankOverviewController::reveal(int lane, TimeNs at)
{
    if (const TrackId track = trackOf(lane)) {
        m_timeline->revealTrack(track);
        m_state->setCursor(at);
    }
}

void RankOverviewController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this,
            [this, &session] { setProject(session.path(), session.data()); });
}

} // namespace gml
