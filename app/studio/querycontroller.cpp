// SPDX-License-Identifier: GPL-3.0-or-later
#include "querycontroller.h"

#include "projectsession.h"

#include "project.h"
#include "queryview.h"
#include "readonlyquery.h"
#include "slicequery.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QRegularExpression>
#include <QSettings>
#include <QTableView>

#include <mutex>
#include <set>

namespace gml {

// A running statement and its connection, made on a worker thread; the GUI thread holds it
// from the start, so that Cancel (and a new query, a new project, closing) stops even the
// first page of rows, which ran to its end before.
struct QueryController::Cursor
{
    std::mutex mutex;
    bool cancelled = false;
    std::unique_ptr<Project> project;
    std::unique_ptr<ReadOnlyQuery> query;

    void cancel()
    {
        std::lock_guard lock(mutex);
        cancelled = true;
        if (query)
            query->interrupt();
    }
    // The prepared statement, unless cancelled meanwhile (then false).
    bool adopt(std::unique_ptr<ReadOnlyQuery> q)
    {
        std::lock_guard lock(mutex);
        query = std::move(q);
        if (cancelled)
            query->interrupt();
        return !cancelled;
    }
};

namespace {

constexpr int kFirstRows = 500;
constexpr int kMoreRows = 2000;
constexpr int kHistory = 50;
const QString kHistoryKey = QStringLiteral("query/history");

} // namespace

QueryController::QueryController(QueryView *view, TimelineView *timeline, TimelineState *state,
                                 QObject *parent)
    : QObject(parent), m_view(view), m_timeline(timeline), m_state(state)
{
    m_history = QSettings().value(kHistoryKey).toStringList();
    m_view->setHistory(m_history);
    connect(m_view, &QueryView::runRequested, this, &QueryController::run);
    connect(m_view, &QueryView::cancelRequested, this, [this] {
        if (m_cursor)
            m_cursor->cancel();
    });
    connect(m_view->model(), &QueryModel::moreWanted, this, &QueryController::fetchMore);
    connect(m_view, &QueryView::rowActivated, this, [this](int row) {
        if (reveal(row))
            Q_EMIT showTimelineRequested();
        else
            m_view->setStatus(tr("Row %1 holds no slice (id and track_id columns) and no time "
                                 "(ts): nothing to show "
                                 "in the timeline.")
                                  .arg(row + 1));
    });
}

QueryController::~QueryController()
{
    if (m_cursor)
        m_cursor->cancel();
}

// A page of rows (the first with the columns) or the query's error.
void QueryController::showBatch(Batch b)
{
    m_view->setRunning(false);
    if (b.first) {
        m_cursor = b.cursor;
        m_view->model()->reset(b.columns);
    }
    const qint64 ms = m_clock.elapsed();
    m_view->model()->append(std::move(b.rows), b.done || !b.error.isEmpty());
    const int rows = m_view->model()->rowCount();
    if (!b.error.isEmpty())
        m_view->setStatus(
            b.error.contains(QLatin1String("time limit"))
                ? tr("Error: %1 (the Time limit box sets it; 0 s: no limit)").arg(b.error)
                : tr("Error: %1").arg(b.error));
    else
        m_view->setStatus(
            (b.done ? tr("%n row(s) in %1 ms", nullptr, rows).arg(ms)
                    : tr("%n row(s) so far in %1 ms; more as you scroll", nullptr, rows).arg(ms)) +
            mixedRunsNote());
    if (b.done || !b.error.isEmpty())
        m_cursor.reset(); // the statement and its connection are closed
    if (b.first) {
        m_view->fitColumns();
        Q_EMIT finished();
    }
}

QString QueryController::mixedRunsNote() const
{
    if (!m_data)
        return {};
    int other = 0;
    for (const RunSummary &run : m_data->runs)
        if (!run.kind.isEmpty() && run.kind != QLatin1String("measured"))
            ++other;
    if (other == 0)
        return {};
    static const QRegularExpression views(
        QStringLiteral("\\b(slice_info|kernel|cpu_op|counter_series|slice_abs)\\b"),
        QRegularExpression::CaseInsensitiveOption);
    // Runs told apart: by kind, by a run named or grouped by.
    static const QRegularExpression apart(
        QStringLiteral("\\brun_kind\\b|\\brun(_id)?\\s*(=|in\\b)|group\\s+by[^;]*\\brun(_id)?\\b"),
        QRegularExpression::CaseInsensitiveOption);
    if (!views.match(m_sql).hasMatch() || apart.match(m_sql).hasMatch())
        return {};
    return tr(" · this project also holds %n predicted or simulated run(s), which these views "
              "hold too: add WHERE run_kind = 'measured' (or GROUP BY run) to keep them apart",
              nullptr, other);
}

void QueryController::setProject(const QString &projectPath,
                                 std::shared_ptr<const TimelineData> data)
{
    m_projectPath = projectPath;
    m_data = std::move(data);
    m_job.cancel();
    if (m_cursor)
        m_cursor->cancel();
    m_cursor.reset();
    m_view->model()->reset({});
    m_view->model()->append({}, true);
    loadCompletions();
}

void QueryController::loadCompletions()
{
    // Tables, views and their columns, with the SQL words people type most.
    m_words.start(
        [path = m_projectPath](const WordsJob::Context &) {
            QString error;
            auto project = Project::open(path, Project::Mode::ReadOnly, &error);
            if (!project)
                return QStringList();
            return queryCompletionWords(project->db());
        },
        [this](QStringList words) { m_view->setCompletions(words); });
}

void QueryController::run(const QString &sql)
{
    if (m_projectPath.isEmpty()) {
        m_view->setStatus(tr("Open a trace folder or a project first."));
        return;
    }
    m_history.removeAll(sql);
    m_history.prepend(sql);
    while (m_history.size() > kHistory)
        m_history.removeLast();
    if (m_remember)
        QSettings().setValue(kHistoryKey, m_history);
    m_view->setHistory(m_history);
    if (m_cursor)
        m_cursor->cancel(); // the previous statement stops reading
    m_cursor.reset();
    m_sql = sql;
    m_view->setRunning(true);
    m_view->setStatus(tr("Running…"));
    m_clock.start();
    // Limits as `grademl query` has them, but the time counts per page of rows (the next page is
    // read when the user scrolls) and SQLite's memory is not capped for the whole studio.
    ReadOnlyQuery::Limits limits;
    limits.timeoutMs = qint64(m_view->timeLimitSeconds()) * 1000;
    m_cursor = std::make_shared<Cursor>();
    m_job.start(
        [path = m_projectPath, sql, limits, cursor = m_cursor](const Job::Context &) {
            Batch b;
            b.first = true;
            b.cursor = cursor;
            b.cursor->project = Project::open(path, Project::Mode::ReadOnly, &b.error);
            if (!b.cursor->project)
                return b;
            ReadOnlyQuery::Error why;
            auto query = ReadOnlyQuery::prepare(b.cursor->project->db(), sql, &why, limits);
            if (!query) {
                b.error = why.message;
                return b;
            }
            b.columns = query->columns();
            if (!b.cursor->adopt(std::move(query))) {
                b.error = QStringLiteral("cancelled");
                return b;
            }
            b.cursor->query->fetch(kFirstRows, b.rows, &b.done, &b.error);
            return b;
        },
        [this](Batch b) { showBatch(std::move(b)); });
}

void QueryController::fetchMore()
{
    if (!m_cursor || m_job.isRunning()) // a cursor is read by one job at a time
        return;
    m_view->setRunning(true);
    m_job.start(
        [cursor = m_cursor](const Job::Context &) {
            Batch b;
            cursor->query->restartClock();
            cursor->query->fetch(kMoreRows, b.rows, &b.done, &b.error);
            return b;
        },
        [this](Batch b) { showBatch(std::move(b)); });
}

void QueryController::waitForIdle()
{
    m_job.waitForFinished();
    m_words.waitForFinished();
    QCoreApplication::processEvents();
}

bool QueryController::reveal(int row)
{
    const QueryModel *model = m_view->model();
    if (!m_data || row < 0 || row >= model->rowCount())
        return false;
    const QStringList &cols = model->columns();
    const QVariantList &values = model->row(row);
    auto value = [&](std::initializer_list<const char *> names) -> QVariant {
        for (const char *n : names)
            if (const qsizetype c = cols.indexOf(QLatin1String(n), 0);
                c >= 0 && values.value(c).isValid())
                return values.value(c);
        return {};
    };
    // A slice: its id and its track.
    const QVariant id = value({"id", "slice_id"}), track = value({"track_id"});
    if (id.isValid() && track.isValid())
        if (const auto ref = findSliceRef(*m_data, track.toLongLong(), id.toLongLong())) {
            m_timeline->revealSlice(*ref, false);
            return true;
        }
    // A time (project clock), over its duration if there is one; its run in focus first.
    const QVariant ts = value({"ts", "start_ns"});
    if (!ts.isValid())
        return false;
    const QVariant runId = value({"run_id"}), runName = value({"run"});
    const RunSummary *run = runId.isValid()     ? m_data->run(runId.toLongLong())
                            : runName.isValid() ? m_data->runNamed(runName.toString())
                                                : nullptr;
    const TimeNs t = ts.toLongLong();
    m_timeline->revealTime(run ? run->id : 0, t,
                           t + std::max<qint64>(0, value({"dur", "dur_ns"}).toLongLong()));
    return true;
}

void QueryController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this,
            [this, &session] { setProject(session.path(), session.data()); });
}

} // namespace gml
