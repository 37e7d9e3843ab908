// SPDX-License-Identifier: GPL-3.0-or-later
#include "writerlock.h"

#include <QFile>
#include <QThread>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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
    const QByteArray native = QFile::encodeName(path);
    auto fail = [&](const QString &what, int fd) {
        if (error)
            *error = QStringLiteral("%1: %2: %3")
                         .arg(path, what, QString::fromLocal8Bit(std::strerror(errno)));
        if (fd >= 0)
            ::close(fd);
        return false;
    };
    int fd = -1;
    for (;;) {
        if (fd < 0) {
            // Never through a link: the lock file is ours, beside the project.
            fd = ::open(native.constData(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
            if (fd < 0)
                return fail(QStringLiteral("cannot make the import lock"), -1);
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
            // The holder before us removed the file as it let go (release()): a lock on that
            // file is no lock on the path any more, so take a new one.
            struct stat held, named;
            if (::fstat(fd, &held) == 0 && ::stat(native.constData(), &named) == 0 &&
                held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
                m_fd = fd;
                m_path = native;
                return true;
            }
            ::close(fd);
            fd = -1;
            continue;
        }
        if (errno != EWOULDBLOCK && errno != EINTR)
            return fail(QStringLiteral("cannot take the import lock"), fd);
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
        // Removed while still held, so that no file is left beside the project and a waiter
        // that then gets the lock on the removed file knows to take a new one.
        ::unlink(m_path.constData());
        ::flock(m_fd, LOCK_UN);
        ::close(m_fd);
        m_fd = -1;
    }
}

} // namespace gml
