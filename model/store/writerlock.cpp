// SPDX-License-Identifier: GPL-3.0-or-later
#include "writerlock.h"

#include <QFile>
#include <QThread>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace gml {

WriterLock::~WriterLock()
{
    release();
}

bool WriterLock::acquire(const QString &projectPath, const std::function<bool()> &waiting,
                         QString *error, int pollMs)
{
    release();
    if (projectPath.isEmpty() || projectPath == QLatin1String(":memory:"))
        return true;
    const QString path = lockPath(projectPath);
    // Never through a link: the lock file is ours, beside the project.
    const int fd = ::open(QFile::encodeName(path).constData(),
                          O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        if (error)
            *error = QStringLiteral("%1: cannot make the import lock: %2")
                         .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    for (;;) {
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
            m_fd = fd;
            return true;
        }
        if (errno != EWOULDBLOCK && errno != EINTR) {
            if (error)
                *error = QStringLiteral("%1: cannot take the import lock: %2")
                             .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
            ::close(fd);
            return false;
        }
        if (waiting && !waiting()) {
            if (error)
                *error = QStringLiteral("another import is writing the project (in another window "
                                        "or shell); stopped waiting for it");
            ::close(fd);
            return false;
        }
        QThread::msleep(unsigned(pollMs));
    }
}

void WriterLock::release()
{
    if (m_fd >= 0) {
        ::flock(m_fd, LOCK_UN);
        ::close(m_fd);
        m_fd = -1;
    }
}

} // namespace gml
