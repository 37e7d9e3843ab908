// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One import writes a project at a time. SQLite serialises transactions, but an import is many
// transactions around work done aside (side projects numbered from the project's ids when the
// import starts): two imports started together handed out the same chunk ids, and the second
// failed on a UNIQUE constraint. The writer lock is an advisory lock (flock) on a file beside
// the project (`PROJECT-lock`, as SQLite keeps `-wal` and `-shm` there), held for a whole
// import; a second import waits for it, saying so, or stops when told to. It is released when
// the process ends, however it ends, and its file removed when it is released (a killed
// process leaves the file; the next import takes and removes it).
#include <QByteArray>
#include <QString>

#include <functional>

namespace gml {

class WriterLock
{
public:
    WriterLock() = default;
    ~WriterLock();
    WriterLock(const WriterLock &) = delete;
    WriterLock &operator=(const WriterLock &) = delete;

    // Takes the lock of `projectPath`, waiting while another process holds it; `waiting` is
    // called every `pollMs` while it does (false stops waiting). False with `*error` when the
    // lock file cannot be made or waiting stopped. An in-memory project (empty path or
    // ":memory:") needs none.
    bool acquire(const QString &projectPath, const std::function<bool()> &waiting, QString *error,
                 int pollMs = 500);
    void release();
    bool held() const { return m_fd >= 0; }

    static QString lockPath(const QString &projectPath)
    {
        return projectPath + QStringLiteral("-lock");
    }

private:
    int m_fd = -1;
    QByteArray m_path;
};

} // namespace gml
