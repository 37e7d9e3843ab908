// SPDX-License-Identifier: GPL-3.0-or-later
#include "searchcontroller.h"

#include <QCoreApplication>

namespace gml {

SearchController::SearchController(QObject *parent) : QObject(parent) {}

SearchController::~SearchController() = default;

void SearchController::find(std::shared_ptr<const TimelineData> data, const QList<TrackId> &shown,
                            const QList<TrackId> &all, const QString &pattern, bool regex)
{
    m_find.start(
        [=](const FindJob::Context &) {
            Found f;
            const QSet<TrackId> visible(shown.begin(), shown.end());
            for (const SliceRef &m : findSlices(*data, all, pattern, regex, &f.error)) {
                if (visible.contains(m.track))
                    f.matches.push_back(m);
                else
                    ++f.hidden;
            }
            return f;
        },
        [this](Found f) { Q_EMIT found(f.matches, f.hidden, f.error); });
}

void SearchController::aggregate(std::shared_ptr<const TimelineData> data,
                                 const std::vector<AggregateTrack> &tracks, TimeNs t0, TimeNs t1)
{
    m_aggregate.start(
        [=](const AggregateJob::Context &) {
            Aggregated a;
            a.t0 = t0;
            a.t1 = t1;
            a.rows = aggregateSlices(*data, tracks, t0, t1, &a.error);
            return a;
        },
        [this](Aggregated a) { Q_EMIT aggregated(a.rows, a.t0, a.t1, a.error); });
}

void SearchController::holding(std::shared_ptr<const TimelineData> data,
                               const QList<TrackId> &tracks, const QString &text)
{
    m_holding.start(
        [=](const HoldingJob::Context &c) {
            return Held{text, tracksHolding(*data, tracks, text, [&c] { return c.cancelled(); })};
        },
        [this](Held h) { Q_EMIT held(h.text, h.tracks); });
}

void SearchController::waitForIdle()
{
    while (m_find.isRunning() || m_aggregate.isRunning() || m_holding.isRunning()) {
        m_find.waitForFinished();
        m_aggregate.waitForFinished();
        m_holding.waitForFinished();
        QCoreApplication::processEvents(); // deliver the results (and start a waiting one)
    }
    QCoreApplication::processEvents();
}

} // namespace gml
