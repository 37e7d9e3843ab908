// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace gml {

// "The latest background job for this view wins" (KDAB Hotspot's job tracker), written once
// for every controller: start() runs `work` on the thread pool and hands its result to `done`
// on the owner's thread, unless another start() (or cancel()) came since, in which case the
// older result is dropped and its cancel flag is set, so a view only ever shows what it asked
// for last. The work sees a Context: whether to stop, and post() to run something on the
// owner's thread while it is still the latest (progress, a partial result).
//
// Overlap::Run starts a new job at once, beside the older one told to stop (cheap reads).
// Overlap::Wait starts it when the older one has ended (a heavy analysis or model build: two at
// once would only share the cores); only the last of the jobs started meanwhile runs.
// Overlap::Coalesce lets the running job finish and hands its result over too, then runs the
// last of the jobs started meanwhile (a dragged what-if slider shows each replay that finished
// and never queues stale ones).
// The destructor cancels and waits for every job still running, so none outlives its owner.
template <typename Result> class LatestJob
{
public:
    enum class Overlap { Run, Wait, Coalesce };

    class Context
    {
    public:
        bool cancelled() const { return m_flag->load(); }
        // Runs `fn` on the owner's thread, unless a newer job was started (or this one
        // cancelled) by the time it gets there.
        void post(std::function<void()> fn) const
        {
            QMetaObject::invokeMethod(
                m_owner,
                [current = m_current, job = m_job, fn = std::move(fn)] {
                    if (current->load() == job)
                        fn();
                },
                Qt::QueuedConnection);
        }

    private:
        friend class LatestJob;
        std::shared_ptr<std::atomic_bool> m_flag;
        QObject *m_owner = nullptr;
        std::shared_ptr<std::atomic<quint64>> m_current;
        quint64 m_job = 0;
    };
    using Work = std::function<Result(const Context &)>;
    using Done = std::function<void(Result)>;

    explicit LatestJob(QObject *owner, Overlap overlap = Overlap::Run)
        : m_owner(owner), m_overlap(overlap)
    {
        QObject::connect(&m_watcher, &QFutureWatcher<Tagged>::finished, owner, [this] {
            m_inFlight = false;
            Tagged r = m_watcher.result();
            // Taken out first: the next job sets a new m_done, and so may `done` (it may start
            // one).
            Done done = std::exchange(m_done, {});
            const bool current = r.first == m_current->load(); // else replaced or cancelled
            if (m_pending) { // the job asked for meanwhile starts now
                auto next = std::move(*m_pending);
                m_pending.reset();
                launch(std::move(next.first), std::move(next.second));
            } else if (current) {
                m_running = false;
            }
            if (current && done)
                done(std::move(r.second));
        });
    }
    ~LatestJob()
    {
        cancel();
        m_watcher.waitForFinished();
        for (auto &f : m_older)
            f.waitForFinished();
    }
    LatestJob(const LatestJob &) = delete;
    LatestJob &operator=(const LatestJob &) = delete;

    void start(Work work, Done done)
    {
        if (m_overlap == Overlap::Coalesce && m_inFlight) {
            m_pending.emplace(std::move(work), std::move(done)); // replaces an older one waiting
            m_running = true;
            return;
        }
        cancel();
        m_running = true;
        if (m_overlap == Overlap::Wait && m_inFlight) {
            m_pending.emplace(std::move(work), std::move(done));
            return;
        }
        launch(std::move(work), std::move(done));
    }
    // Drops the running job's result (and tells it to stop).
    void cancel()
    {
        stop();
        m_current->fetch_add(1);
        m_pending.reset();
        m_running = false;
    }
    // Tells the running job to stop and still hands over what it returns (an import cancelled
    // halfway shows what was imported).
    void stop()
    {
        if (m_flag)
            m_flag->store(true);
    }
    // From start() until its result was handed over, dropped or cancelled.
    bool isRunning() const { return m_running; }
    // Blocks until the job followed now ended (its result is still delivered by the event loop;
    // with Overlap::Wait a job waiting for it starts there).
    void waitForFinished() { m_watcher.waitForFinished(); }

private:
    using Tagged = std::pair<quint64, Result>; // the job a result is of

    void launch(Work work, Done done)
    {
        if (m_watcher.isRunning()) // Overlap::Run: the older one ends on its own
            m_older.push_back(m_watcher.future());
        std::erase_if(m_older, [](const QFuture<Tagged> &f) { return f.isFinished(); });
        Context ctx;
        ctx.m_flag = m_flag = std::make_shared<std::atomic_bool>(false);
        ctx.m_owner = m_owner;
        ctx.m_current = m_current;
        ctx.m_job = m_current->fetch_add(1) + 1;
        m_done = std::move(done);
        m_running = true;
        m_inFlight = true;
        m_watcher.setFuture(QtConcurrent::run(
            [work = std::move(work), ctx] { return Tagged(ctx.m_job, work(ctx)); }));
    }

    QObject *m_owner;
    const Overlap m_overlap;
    QFutureWatcher<Tagged> m_watcher;
    std::vector<QFuture<Tagged>> m_older;
    std::shared_ptr<std::atomic_bool> m_flag;
    std::shared_ptr<std::atomic<quint64>> m_current = std::make_shared<std::atomic<quint64>>(0);
    std::optional<std::pair<Work, Done>> m_pending;
    Done m_done;
    bool m_running = false;
    bool m_inFlight = false; // from launch until its finished signal is handled
};

} // namespace gml
