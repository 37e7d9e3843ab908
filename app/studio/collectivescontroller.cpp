// SPDX-License-Identifier: GPL-3.0-or-later
#include "collectivescontroller.h"

#include "collectivelinks.h"
#include "collectivesview.h"
#include "project.h"
#include "projectsession.h"
#include "slicequery.h"
#include "timelineview.h"

#include <QCoreApplication>

namespace gml {

CollectivesController::CollectivesController(CollectivesView *view, TimelineView *timeline,
                                             QObject *parent)
    : QObject(parent), m_view(view), m_timeline(timeline)
{
    connect(m_view, &CollectivesView::collectiveClicked, this,
            &CollectivesController::selectCollective);
    connect(m_view, &CollectivesView::rankClicked, this, &CollectivesController::revealRank);
}

CollectivesController::~CollectivesController() = default;

void CollectivesController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this,
            [this, &session] { setData(session.data(), session.focus()); });
    connect(&session, &ProjectSession::focusChanged, this, &CollectivesController::setFocus);
}

void CollectivesController::setData(std::shared_ptr<const TimelineData> data, QStringList focus)
{
    m_data = std::move(data);
    m_focus = std::move(focus);
    m_shownRun.clear();
    m_dirty = true;
    refresh();
}

void CollectivesController::setFocus(QStringList focus)
{
    if (focus.value(0) == m_focus.value(0))
        return;
    m_focus = std::move(focus);
    m_dirty = true;
    refresh();
}

void CollectivesController::setInView(bool inView)
{
    m_inView = inView;
    if (inView)
        refresh();
}

void CollectivesController::refresh()
{
    if (!m_inView || !m_dirty)
        return;
    const RunSummary *run = m_data ? m_data->runNamed(m_focus.value(0)) : nullptr;
    if (!run && m_data && !m_data->runs.empty())
        run = &m_data->runs.front();
    if (!run) {
        m_view->setMessage(tr("Open a project with a distributed run: its collectives show "
                              "here."));
        return;
    }
    m_dirty = false;
    m_view->setMessage(tr("Reading the collectives of %1…").arg(run->name));
    m_job.start(
        [path = m_data->projectPath, id = run->id,
         name = run->name](const LatestJob<Result>::Context &) {
            Result r;
            r.run = name;
            auto project = Project::open(path, Project::Mode::ReadOnly, &r.error);
            if (!project)
                return r;
            if (auto report = sim::linkedCollectives(*project, id, {}, &r.error))
                r.report = std::make_shared<const CollectiveReport>(std::move(*report));
            return r;
        },
        [this](Result r) {
            m_shownRun = r.run;
            if (!r.report)
                m_view->setMessage(
                    tr("The collectives of %1 could not be read: %2").arg(r.run, r.error));
            else
                m_view->setReport(r.run, r.report);
        });
}

void CollectivesController::selectCollective(int index)
{
    const CollectiveReport *report = m_view->report();
    const RunSummary *run = m_data ? m_data->runNamed(m_shownRun) : nullptr;
    if (!report || !run || index < 0 || index >= int(report->collectives.size()))
        return;
    const Collective &c = report->collectives[size_t(index)];
    std::vector<SliceRef> members;
    std::optional<SliceRef> last; // the last arrival's kernel: selected, its row scrolled to
    for (const CollectiveMember &m : c.members)
        if (const auto ref = findSliceRef(*m_data, m.track, m.slice)) {
            members.push_back(*ref);
            if (m.rank == c.lastRank())
                last = ref;
        }
    // The collective with a tenth of its span either side: every rank's kernel in view.
    const TimeNs margin = std::max<TimeNs>(1'000, c.duration() / 10);
    m_timeline->revealTime(run->id, c.firstStart - margin, c.lastEnd + margin);
    if (last)
        m_timeline->revealSlice(*last, false);
    m_timeline->setHighlighted(std::move(members));
}

void CollectivesController::revealRank(int rank)
{
    const RunSummary *run = m_data ? m_data->runNamed(m_shownRun) : nullptr;
    if (!run)
        return;
    for (const auto &t : run->tracks)
        if (t.rank == rank && t.kind == TrackKind::Gpu) {
            m_timeline->revealTrack(t.id);
            return;
        }
}

void CollectivesController::waitForIdle()
{
    m_job.waitForFinished();
    QCoreApplication::processEvents();
}

} // namespace gml
