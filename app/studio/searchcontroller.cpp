// SPDX-License-Identifier: GPL-3.0-or-later
#include "searchcontroller.h"

#include <QCoreApplication>
#include <QtConcurrent/QtConcurrentRun>

namespace gml {

SearchController::SearchController(QObject *parent) : QObject(parent)
{
    connect(&m_find, &QFutureWatcher<Found>::finished, this, [this] {
        const Found f = m_find.result();
        if (f.serial == m_findSerial)
            Q_EMIT found(f.matches, f.error);
    });
    connect(&m_aggregate, &QFutureWatcher<Aggregated>::finished, this, [this] {
        const Aggregated a = m_aggregate.result();
        if (a.serial == m_aggregateSerial)
            Q_EMIT aggregated(a.rows, a.t0, a.t1, a.error);
    });
}

SearchController::~SearchController()
{
    m_find.disconnect(this);
    m_aggregate.disconnect(this);
    m_find.waitForFinished();
    m_aggregate.waitForFinished();
}

void SearchController::find(std::shared_ptr<const TimelineData> data, const QList<TrackId> &tracks,
                            const QString &pattern, bool regex)
{
    const quint64 serial = ++m_findSerial;
    m_find.waitForFinished(); // one at a time; the stale one's result is dropped
    m_find.setFuture(QtConcurrent::run([=] {
        Found f;
        f.serial = serial;
        f.matches = findSlices(*data, tracks, pattern, regex, &f.error);
        return f;
    }));
}

void SearchController::aggregate(std::shared_ptr<const TimelineData> data,
                                 const std::vector<AggregateTrack> &tracks, TimeNs t0, TimeNs t1)
{
    const quint64 serial = ++m_aggregateSerial;
    m_aggregate.waitForFinished();
    m_aggregate.setFuture(QtConcurrent::run([=] {
        Aggregated a;
        a.serial = serial;
        a.t0 = t0;
        a.t1 = t1;
        a.rows = aggregateSlices(*data, tracks, t0, t1, &a.error);
        return a;
    }));
}

void SearchController::waitForIdle()
{
    while (m_find.isRunning() || m_aggregate.isRunning()) {
        m_find.waitForFinished();
        m_aggregate.waitForFinished();
        QCoreApplication::processEvents(); // deliver the results
    }
    QCoreApplication::processEvents();
}

} // namespace gml
