// SPDX-License-Identifier: GPL-3.0-or-later
#include "flamecontroller.h"

#include "projectsession.h"

#include "flameview.h"
#include "project.h"
#include "timeformat.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QtConcurrent>

namespace gml {

FlameController::FlameController(FlameView *view, TimelineView *timeline, TimelineState *state,
                                 QObject *parent)
    : QObject(parent), m_view(view), m_timeline(timeline), m_state(state)
{
    m_view->setMessage(
        tr("Open a trace folder; the flame graph shows the call stacks of the selection "
           "(drag on the ruler), or of the whole run."));
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(120); // a drag's many range changes: one graph
    connect(&m_debounce, &QTimer::timeout, this, &FlameController::refresh);
    connect(m_state, &TimelineState::selectionChanged, &m_debounce, qOverload<>(&QTimer::start));
    connect(m_state, &TimelineState::focusChanged, this, [this] {
        // A diff against the previous selection compared spans of the run that was in focus:
        // its baseline is gone, so it turns itself off and says so.
        const RunId first = m_state->focusRuns().value(0);
        if (first != m_focusRun) {
            m_previous.reset();
            m_shown.reset();
            if (m_view->against() == FlameView::Against::PreviousSelection) {
                m_view->clearAgainst();
                m_diffNote = tr("diff turned off: its previous selection was in another run");
            }
        }
        m_debounce.start();
    });
    connect(m_view, &FlameView::requestChanged, this, [this] {
        m_dirty = true;
        refresh();
    });
    connect(m_view, &FlameView::frameSelected, this,
            [this](int frame) { highlight(frame, false); });
    connect(m_view, &FlameView::showInTimelineRequested, this, [this](int frame) {
        highlight(frame, true);
        Q_EMIT showTimelineRequested();
    });
}

void FlameController::show(const Result &r)
{
    if (!r.graph)
        m_view->setMessage(r.error);
    else if (r.graph->total() == 0 && (!r.graph->isDiff() || r.graph->root().baseTotal == 0))
        m_view->setMessage(
            m_view->metric() == FlameMetric::GpuTime
                ? tr("No GPU work with a recorded launch in %1.").arg(describe(*m_shown))
                : tr("No CPU slices in %1.").arg(describe(*m_shown)));
    else
        m_view->setGraph(r.graph,
                         r.graph->isDiff() && m_base
                             ? tr("%1 against %2 · red: grew, blue: shrank%3")
                                   .arg(describe(*m_shown), describe(*m_base),
                                        spansDiffer(*m_shown, *m_base)
                                            ? tr(" · the spans' lengths differ: totals "
                                                 "include that")
                                            : QString())
                             : describe(*m_shown) + (m_diffNote.isEmpty()
                                                         ? QString()
                                                         : QStringLiteral(" · ") + m_diffNote));
    m_diffNote.clear();
    Q_EMIT computed();
}

FlameController::~FlameController() = default;

void FlameController::setData(std::shared_ptr<const TimelineData> data)
{
    m_data = std::move(data);
    m_shown.reset();
    m_previous.reset();
    QStringList runs;
    for (const RunSummary &r : m_data ? m_data->runs : QList<RunSummary>{})
        if (r.id != kLivePredictionRun && r.slices > 0)
            runs << r.name;
    m_view->setRuns(runs);
    m_dirty = true;
    refresh();
}

std::optional<FlameController::Span> FlameController::currentSpan() const
{
    if (!m_data)
        return std::nullopt;
    const QList<RunId> focus = m_state->focusRuns();
    for (const RunSummary &r : m_data->runs) {
        if (r.slices <= 0 || r.id == kLivePredictionRun ||
            (!focus.isEmpty() && r.id != focus.first()))
            continue;
        Span s{r.id, r.start, r.end};
        if (m_state->hasSelection()) { // view time -> the run's clock
            const TimeNs shift = m_timeline->layout().shiftOfRun(r.id);
            s.t0 = m_state->selectionStart() + shift;
            s.t1 = m_state->selectionEnd() + shift;
        }
        return s;
    }
    return std::nullopt;
}

bool FlameController::spansDiffer(const Span &a, const Span &b)
{
    const double la = double(a.t1 - a.t0), lb = double(b.t1 - b.t0);
    return std::max(la, lb) > 1.1 * std::min(la, lb);
}

QString FlameController::describe(const Span &span) const
{
    const RunSummary *r = m_data ? m_data->run(span.run) : nullptr;
    const TimeNs start = r ? r->start : 0;
    return tr("%1, %2 → %3 (%4)")
        .arg(r ? r->name : QString(), formatDuration(span.t0 - start),
             formatDuration(span.t1 - start), formatDuration(span.t1 - span.t0));
}

void FlameController::refresh()
{
    const auto span = currentSpan();
    if (span != m_shown)
        m_dirty = true;
    if (!m_inView || !m_view->isVisible() || !m_dirty)
        return; // computed when the pane is shown
    if (!span) {
        m_view->setMessage(tr("No run with slices is in focus."));
        return;
    }
    if (m_shown && !(*m_shown == *span))
        m_previous = m_shown;
    m_shown = span;
    m_focusRun = m_state->focusRuns().value(0);
    m_dirty = false;
    FlameRequest request;
    request.run = span->run;
    request.t0 = span->t0;
    request.t1 = span->t1;
    request.metric = m_view->metric();
    // The baseline: the previous selection, or the same span after another run's start.
    std::optional<FlameRequest> base;
    if (m_view->against() == FlameView::Against::PreviousSelection && m_previous) {
        base = request;
        base->run = m_previous->run;
        base->t0 = m_previous->t0;
        base->t1 = m_previous->t1;
    } else if (m_view->against() == FlameView::Against::Run) {
        const RunSummary *shown = m_data->run(span->run),
                         *other = m_data->runNamed(m_view->againstRun());
        if (shown && other) {
            base = request;
            base->run = other->id;
            base->t0 = other->start + (span->t0 - shown->start);
            base->t1 = other->start + (span->t1 - shown->start);
        }
    }
    m_base.reset();
    if (base)
        m_base = Span{base->run, base->t0, base->t1};
    m_view->setMessage(tr("Computing the flame graph of %1…").arg(describe(*span)));
    m_job.start(
        [data = m_data, request, base](const LatestJob<Result>::Context &) {
            Result r;
            std::unique_ptr<Project> project;
            if (request.metric == FlameMetric::GpuTime &&
                !(project = Project::open(data->projectPath, Project::Mode::ReadOnly, &r.error)))
                return r;
            FlameGraph after, before;
            if (!buildFlameGraph(*data, project.get(), request, &after, &r.error) ||
                (base && !buildFlameGraph(*data, project.get(), *base, &before, &r.error)))
                return r;
            r.graph = std::make_shared<const FlameGraph>(base ? FlameGraph::diff(before, after)
                                                              : std::move(after));
            return r;
        },
        [this](Result r) { show(r); }); // a newer request drops this one's result
}

void FlameController::setInView(bool inView)
{
    m_inView = inView;
    if (inView)
        refresh();
}

void FlameController::waitForIdle()
{
    if (m_debounce.isActive()) {
        m_debounce.stop();
        refresh();
    }
    m_job.waitForFinished();
    QCoreApplication::processEvents();
}

void FlameController::highlight(int frame, bool reveal)
{
    const auto &graph = m_view->graph();
    if (!graph || frame <= 0 || size_t(frame) >= graph->frames().size()) {
        m_timeline->setHighlighted({});
        return;
    }
    // The frame's own slices (the first kMaxSlices of them): each call of that path.
    const auto &own = graph->frames()[size_t(frame)].slices;
    const SliceRef first = own.empty() ? SliceRef{} : own.front();
    std::vector<SliceRef> slices(own.begin(), own.end());
    m_timeline->setHighlighted(std::move(slices));
    if (reveal && first.track)
        m_timeline->revealSlice(first, false);
}

void FlameController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this, [this, &session] { setData(session.data()); });
}

} // namespace gml
