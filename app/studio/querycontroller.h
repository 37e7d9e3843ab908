// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "latestjob.h"
#include "timelinedata.h"

#include <QElapsedTimer>
#include <QObject>

#include <memory>

namespace gml {

class ProjectSession;

class QueryView;
class TimelineState;
class TimelineView;

// Runs the Query view's statements off the GUI thread on a read-only connection of its own
// (model/readonlyquery: exactly what `grademl query` allows), the first 500 rows at once and
// 2,000 more each time the grid scrolls to its end; Cancel interrupts a running statement.
// Remembers the last 50 queries (per user). A row activated shows its slice (id and track_id
// columns) or its time (ts, with dur; on the project clock, the run's column putting it in
// focus) in the timeline.
class QueryController : public QObject
{
    Q_OBJECT
public:
    // Takes each project the session opens (projectsession.h).
    void subscribe(const ProjectSession &session);
    QueryController(QueryView *view, TimelineView *timeline, TimelineState *state,
                    QObject *parent = nullptr);
    ~QueryController() override;

    void setProject(const QString &projectPath, std::shared_ptr<const TimelineData> data);
    void run(const QString &sql);
    // Whether the queries run go into the user's history (not a screenshot's).
    void setRemember(bool remember) { m_remember = remember; }
    void waitForIdle(); // tests and screenshots
    // Shows row `row` of the result in the timeline; false when it holds neither a slice nor a
    // time.
    bool reveal(int row);

Q_SIGNALS:
    void showTimelineRequested();
    void finished(); // a query's first rows (or its error) are shown

private:
    struct Cursor; // the connection and the statement, used by one job at a time
    struct Batch
    {
        std::shared_ptr<Cursor> cursor;
        QStringList columns;
        std::vector<QVariantList> rows;
        bool done = false;
        QString error;
        bool first = false;
    };
    void fetchMore();
    void showBatch(Batch b);
    void loadCompletions();

    QueryView *m_view;
    TimelineView *m_timeline;
    TimelineState *m_state;
    QString m_projectPath;
    std::shared_ptr<const TimelineData> m_data;
    std::shared_ptr<Cursor> m_cursor;
    // A query's first page, or the next page of the same cursor; the completion words apart.
    using Job = LatestJob<Batch>;
    using WordsJob = LatestJob<QStringList>;
    Job m_job{this};
    WordsJob m_words{this};
    QElapsedTimer m_clock;
    QString m_sql; // the statement shown
    // A note when `m_sql` reads the slice views across runs of more than one kind (issue 73: a
    // plain sum() over `kernel` added a predicted run to the measured one without a word).
    QString mixedRunsNote() const;
    QStringList m_history;
    bool m_remember = true;
};

} // namespace gml
