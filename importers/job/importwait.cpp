// SPDX-License-Identifier: GPL-3.0-or-later
// ImportJob waiting for the project's other writers: the writer lock held for a whole import
// (writerlock.h), and SQLite's write lock around each transaction, with progress while it waits.
#include "importjob.h"

#include "project.h"
#include "sqlitedb.h"
#include "writerlock.h"

#include <QElapsedTimer>

namespace gml {

bool ImportJob::takeWriterLock(WriterLock &lock, int count, QString *why)
{
    QElapsedTimer waited;
    waited.start();
    return lock.acquire(
        m_project.path(),
        [&] {
            return m_progress ? m_progress(progressAt(0, count, {}, 0.0, true))
                              : waited.elapsed() < 600'000;
        },
        why);
}

bool ImportJob::waitingForLock(const std::function<bool()> &step)
{
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        if (step())
            return true;
        if (!m_project.db().lastErrorWasBusy() || waited.elapsed() >= 600'000)
            return false;
    }
}

bool ImportJob::begin(const ScannedFile &file, int index, int count, QString *error)
{
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        if (m_project.begin(error))
            return true;
        if (!m_project.db().lastErrorWasBusy())
            return false;
        // Each try already waited SQLite's busy timeout (5 s). Without a callback to ask, give
        // up after ten minutes.
        const bool goOn = m_progress ? m_progress(progressAt(index, count, file.path, 0.0, true))
                                     : waited.elapsed() < 600'000;
        if (!goOn) {
            if (error)
                *error = QStringLiteral("another program was writing the project (an import in "
                                        "another window or shell?); stopped waiting after %1 s")
                             .arg(waited.elapsed() / 1000);
            return false;
        }
    }
}

} // namespace gml
