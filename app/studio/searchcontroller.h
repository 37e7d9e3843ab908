// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "latestjob.h"
#include "slicequery.h"
#include "timelinedata.h"

#include <QObject>

#include <memory>
#include <vector>

namespace gml {

// Find (slices by name, category or args), the track filter's content match and the range
// aggregate, run off the GUI thread: over paged tracks
// (issue 34) both read slices from the project. A newer request replaces an older one, whose
// result is dropped; each runs one at a time (LatestJob, Overlap::Wait), and the GUI never
// waits for one.
class SearchController : public QObject
{
    Q_OBJECT
public:
    explicit SearchController(QObject *parent = nullptr);
    ~SearchController() override;

    // Searches `all` the slice tracks; the matches on `shown` ones are found's, those on the
    // others (a filter hides them, a group folds them) counted as `hidden`.
    void find(std::shared_ptr<const TimelineData> data, const QList<TrackId> &shown,
              const QList<TrackId> &all, const QString &pattern, bool regex);
    void aggregate(std::shared_ptr<const TimelineData> data,
                   const std::vector<AggregateTrack> &tracks, TimeNs t0, TimeNs t1);
    // The tracks whose slices' names hold `text` (the track filter's content match).
    void holding(std::shared_ptr<const TimelineData> data, const QList<TrackId> &tracks,
                 const QString &text);
    bool isSearching() const { return m_find.isRunning(); }
    // Blocks until both are done and their results delivered (screenshots, tests).
    void waitForIdle();

Q_SIGNALS:
    void found(const std::vector<SliceRef> &matches, qint64 hidden, const QString &error);
    void aggregated(const std::vector<AggregateRow> &rows, TimeNs t0, TimeNs t1,
                    const QString &error);
    void held(const QString &text, const QSet<TrackId> &tracks);

private:
    struct Found
    {
        std::vector<SliceRef> matches;
        qint64 hidden = 0;
        QString error;
    };
    struct Aggregated
    {
        std::vector<AggregateRow> rows;
        TimeNs t0 = 0, t1 = 0;
        QString error;
    };
    struct Held
    {
        QString text;
        QSet<TrackId> tracks;
    };
    using HoldingJob = LatestJob<Held>;
    using FindJob = LatestJob<Found>;
    using AggregateJob = LatestJob<Aggregated>;
    FindJob m_find{this, FindJob::Overlap::Wait};
    AggregateJob m_aggregate{this, AggregateJob::Overlap::Wait};
    HoldingJob m_holding{this, HoldingJob::Overlap::Wait};
};

} // namespace gml
