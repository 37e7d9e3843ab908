// SPDX-License-Identifier: GPL-3.0-or-later
#include "selectioncontroller.h"

#include "aggregatemodel.h"
#include "detailspanel.h"
#include "project.h"
#include "projectsession.h"
#include "timeformat.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QTableView>
#include <QtConcurrent>

#include <algorithm>

namespace gml {

SelectionController::SelectionController(const Widgets &w, const ProjectSession &session,
                                         QObject *parent)
    : QObject(parent), m_state(w.state), m_timeline(w.timeline), m_details(w.details),
      m_aggregateModel(w.aggregateModel), m_aggregateView(w.aggregateView),
      m_aggregateTitle(w.aggregateTitle), m_findLabel(w.findLabel), m_session(session),
      m_aggregateTimer(new QTimer(this))
{
    connect(m_state, &TimelineState::selectedSliceChanged, this,
            &SelectionController::onSelectedSliceChanged);
    m_aggregateTimer->setSingleShot(true);
    m_aggregateTimer->setInterval(60); // coalesce a drag's many range changes into one pass
    connect(m_aggregateTimer, &QTimer::timeout, this, &SelectionController::updateAggregate);
    connect(&m_search, &SearchController::aggregated, this, &SelectionController::onAggregated);
    connect(&m_search, &SearchController::found, this, &SelectionController::onFound);
    // The track filter keeps the tracks holding a slice named like its text too.
    connect(m_timeline, &TimelineView::trackFilterTextChanged, this, [this](const QString &text) {
        if (m_timeline->data() && !text.isEmpty())
            m_search.holding(m_timeline->data(), m_timeline->focusedSliceTracks(), text);
    });
    connect(&m_search, &SearchController::held, m_timeline, &TimelineView::setTrackFilterHolding);
    connect(m_state, &TimelineState::selectionChanged, m_aggregateTimer,
            qOverload<>(&QTimer::start));
    // Find's matches were the tracks of the runs in focus: another focus searches again.
    connect(m_state, &TimelineState::focusChanged, this, [this] {
        m_matches.clear();
        m_hiddenMatches = 0;
        m_matchIndex = -1;
        m_findPending = false;
        m_timeline->setHighlighted({});
        if (!m_matchPattern.isEmpty())
            m_findLabel->setText(tr("other runs: Enter searches them"));
    });
    connect(m_timeline, &TimelineView::layoutChanged, m_aggregateTimer,
            qOverload<>(&QTimer::start));
}

SelectionController::~SelectionController()
{
    // A slice's self time being computed holds a pointer to this controller: it ends first.
    m_selfTime.waitForFinished();
}

void SelectionController::reset()
{
    m_matches.clear();
    m_hiddenMatches = 0;
    m_matchIndex = -1;
}

void SelectionController::waitForSearch()
{
    m_search.waitForIdle();
    m_selfTime.waitForFinished();
    QCoreApplication::sendPostedEvents(); // the self time, queued to this thread
}

void SelectionController::onSelectedSliceChanged()
{
    const SliceId id = m_state->selectedSlice();
    const auto data = m_timeline->data();
    if (!id || !data || !m_session.readProject()) {
        m_timeline->setLinks({});
        m_details->showMessage(tr("No slice selected."));
        return;
    }
    QString error;
    const auto details = sliceDetails(*m_session.readProject(), id, &error);
    if (!details) {
        m_details->showMessage(tr("Slice %1 is not in the project: %2").arg(id).arg(error));
        return;
    }
    const auto links = linkedSlices(*m_session.readProject(), id);
    m_timeline->setLinks(links);
    // Self time from the slice's children: a held track has them; a paged one reads the slice's
    // own span (a summary on screen holds only the longest slices), off the GUI thread: the span
    // of an outer slice can be most of a track of millions.
    const auto selfTime = [data, id, d = *details]() -> TimeNs {
        if (const auto s = data->slicesIn(d.track, d.start, d.start + d.duration + 1)) {
            const qint64 idx = s->find(id, d.start);
            if (idx >= 0)
                return s->selfTime(size_t(idx));
        }
        return d.duration;
    };
    const auto trackName = [data](TrackId t) { return data->trackPath(t); };
    const QString path = data->trackPath(details->track);
    // Times from the axis origin, on the slice's own run's clock.
    const TimeNs origin = m_state->traceStart() + m_timeline->layout().shiftOf(details->track);
    if (data->slices.contains(details->track)) {
        m_details->showSlice(*details, path, origin, selfTime(), links, trackName);
    } else {
        m_details->showSlice(*details, path, origin, std::nullopt, links, trackName);
        QPointer<SelectionController> self(this);
        m_selfTime = QtConcurrent::run(
            [self, selfTime, id, d = *details, path, links, trackName, data, origin] {
                const TimeNs t = selfTime();
                if (!self)
                    return;
                QMetaObject::invokeMethod(
                    self,
                    [self, t, id, d, path, links, trackName, data, origin] {
                        if (self && self->m_state->selectedSlice() == id &&
                            self->m_timeline->data() == data)
                            self->m_details->showSlice(d, path, origin, t, links, trackName);
                    },
                    Qt::QueuedConnection);
            });
    }
}

void SelectionController::updateAggregate()
{
    const auto data = m_timeline->data();
    if (!data || !m_state->hasSelection()) {
        m_aggregateModel->setRows(data, {});
        m_aggregateTitle->setText(
            tr("Select a range (drag on the ruler) to aggregate its slices."));
        return;
    }
    m_search.aggregate(data, m_timeline->layout().aggregateTracks(), m_state->selectionStart(),
                       m_state->selectionEnd());
}

void SelectionController::onAggregated(const std::vector<AggregateRow> &found, TimeNs t0, TimeNs t1,
                                       const QString &error)
{
    const auto data = m_timeline->data();
    if (!data || !m_state->hasSelection() || t0 != m_state->selectionStart() ||
        t1 != m_state->selectionEnd())
        return; // a newer range is on its way
    auto rows = found;
    qint64 total = 0;
    for (const auto &r : rows)
        total += r.count;
    m_aggregateModel->setRows(data, std::move(rows));
    const auto *header = m_aggregateView->horizontalHeader();
    m_aggregateModel->sort(header->sortIndicatorSection(), header->sortIndicatorOrder());
    m_aggregateTitle->setText(
        tr("%1 slices in %2 (%3 → %4)")
            .arg(total)
            .arg(formatDuration(m_state->selectionEnd() - m_state->selectionStart()),
                 formatDuration(m_state->selectionStart() - m_state->traceStart()),
                 formatDuration(m_state->selectionEnd() - m_state->traceStart())) +
        (error.isEmpty() ? QString() : tr(" — some tracks could not be read: %1").arg(error)));
}

void SelectionController::find(const QString &pattern, bool regex, bool backwards)
{
    const auto data = m_timeline->data();
    if (!data || pattern.isEmpty()) {
        m_findLabel->clear();
        m_timeline->setHighlighted({});
        return;
    }
    if (pattern != m_matchPattern || regex != m_matchRegex || m_matches.empty()) {
        m_matchPattern = pattern;
        m_matchRegex = regex;
        m_matchIndex = -1;
        m_matches.clear();
        m_hiddenMatches = 0;
        m_findPending = true;
        m_findBackwards = backwards;
        m_findLabel->setText(tr("searching…"));
        // Every track of the runs in focus, so that matches a filter hides are counted.
        m_search.find(data, m_timeline->layout().sliceTracks(), m_timeline->focusedSliceTracks(),
                      pattern, regex);
        return;
    }
    stepMatch(backwards);
}

void SelectionController::onFound(const std::vector<SliceRef> &matches, qint64 hidden,
                                  const QString &error)
{
    if (!m_findPending)
        return;
    m_findPending = false;
    m_matches = matches;
    m_hiddenMatches = hidden;
    if (!error.isEmpty()) {
        m_matches.clear();
        m_hiddenMatches = 0;
        m_findLabel->setText(error);
        return;
    }
    stepMatch(m_findBackwards);
}

void SelectionController::stepMatch(bool backwards)
{
    if (m_matches.empty()) {
        m_findLabel->setText(
            m_hiddenMatches > 0
                ? tr("no match shown; %1 on hidden or folded tracks").arg(m_hiddenMatches)
                : tr("no match"));
        m_timeline->setHighlighted({});
        return;
    }
    const int n = int(m_matches.size());
    if (m_matchIndex < 0) {
        // Start from the window: the first match at or after its start (or before its end).
        const TimeNs from = m_state->windowStart();
        const auto it = std::lower_bound(m_matches.begin(), m_matches.end(), from,
                                         [](const SliceRef &m, TimeNs t) { return m.start < t; });
        m_matchIndex =
            backwards ? (int(it - m_matches.begin()) - 1 + n) % n : int(it - m_matches.begin()) % n;
    } else {
        m_matchIndex = (m_matchIndex + (backwards ? n - 1 : 1)) % n;
    }
    const auto &m = m_matches[size_t(m_matchIndex)];
    m_timeline->setHighlighted({m});
    m_timeline->revealSlice(m, false);
    m_findLabel->setText(m_hiddenMatches > 0 ? tr("%1 of %2 (+%3 on hidden tracks)")
                                                   .arg(m_matchIndex + 1)
                                                   .arg(n)
                                                   .arg(m_hiddenMatches)
                                             : tr("%1 of %2").arg(m_matchIndex + 1).arg(n));
}

} // namespace gml
