// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent>

#include <atomic>
#include <functional>
#include <memory>
#include <utility>

namespace gml {

// "The latest background job for this view wins" (KDAB Hotspot's job tracker), written once
// for every controller: start() runs `work` on the thread pool and hands its result to `done`
// on the owner's thread, unless another start() (or cancel()) came since, in which case the
// older result is dropped and its cancel flag is set, so a view only ever shows what it asked
// for last. `work` gets the flag to stop early. The destructor cancels and waits.
template <typename Result> class LatestJob
{
public:
    using Work = std::function<Result(const std::atomic_bool &cancelled)>;
    using Done = std::function<void(Result)>;

    explicit LatestJob(QObject *owner)
    {
        QObject::connect(&m_watcher, &QFutureWatcher<Tagged>::finished, owner, [this] {
            Tagged r = m_watcher.result();
            if (r.first != m_job)
                return; // a newer job replaced it
            m_running = false;
            if (m_done)
                m_done(std::move(r.second));
        });
    }
    ~LatestJob()
    {
        cancel();
        m_watcher.waitForFinished();
    }
    LatestJob(const LatestJob &) = delete;
    LatestJob &operator=(const LatestJob &) = delete;

    void start(Work work, Done done)
    {
        cancel();
        auto flag = std::make_shared<std::atomic_bool>(false);
        m_cancel = flag;
        const quint64 job = ++m_job;
        m_done = std::move(done);
        m_running = true;
        m_watcher.setFuture(QtConcurrent::run(
            [work = std::move(work), flag, job] { return Tagged(job, work(*flag)); }));
    }
    // Drops the running job's result (and tells it to stop).
    void cancel()
    {
        if (m_cancel)
            m_cancel->store(true);
        ++m_job;
        m_running = false;
    }
    bool isRunning() const { return m_running; }
    // Blocks until the job followed now ended (its result is still delivered by the event loop).
    void waitForFinished() { m_watcher.waitForFinished(); }

private:
    using Tagged = std::pair<quint64, Result>; // the job a result is of
    QFutureWatcher<Tagged> m_watcher;
    std::shared_ptr<std::atomic_bool> m_cancel;
    Done m_done;
    quint64 m_job = 0;
    bool m_running = false;
};

} // namespace gml
