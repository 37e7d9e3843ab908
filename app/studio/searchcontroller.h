// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slicequery.h"
#include "timelinedata.h"

#include <QFutureWatcher>
#include <QObject>

#include <memory>
#include <vector>

namespace gml {

// Find (slices by name) and the range aggregate, run off the GUI thread: over paged tracks
// (issue 34) both read slices from the project. A newer request replaces an older one, whose
// result is dropped.
class SearchController : public QObject
{
    Q_OBJECT
public:
    explicit SearchController(QObject *parent = nullptr);
    ~SearchController() override;

    void find(std::shared_ptr<const TimelineData> data, const QList<TrackId> &tracks,
              const QString &pattern, bool regex);
    void aggregate(std::shared_ptr<const TimelineData> data,
                   const std::vector<AggregateTrack> &tracks, TimeNs t0, TimeNs t1);
    bool isSearching() const { return m_find.isRunning(); }
    // Blocks until both are done and their results delivered (screenshots, tests).
    void waitForIdle();

Q_SIGNALS:
    void found(const std::vector<SliceRef> &matches, const QString &error);
    void aggregated(const std::vector<AggregateRow> &rows, TimeNs t0, TimeNs t1,
                    const QString &error);

private:
    struct Found
    {
        quint64 serial = 0;
        std::vector<SliceRef> matches;
        QString error;
    };
    struct Aggregated
    {
        quint64 serial = 0;
        std::vector<AggregateRow> rows;
        TimeNs t0 = 0, t1 = 0;
        QString error;
    };
    QFutureWatcher<Found> m_find;
    QFutureWatcher<Aggregated> m_aggregate;
    quint64 m_findSerial = 0, m_aggregateSerial = 0;
};

} // namespace gml
