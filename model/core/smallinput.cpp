// SPDX-License-Identifier: GPL-3.0-or-later
#include "smallinput.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gml {

QString byteLimitText(qint64 bytes)
{
    if (bytes >= (1 << 20) && bytes % (1 << 20) == 0)
        return QStringLiteral("%1 MiB").arg(bytes >> 20);
    if (bytes >= 1024 && bytes % 1024 == 0)
        return QStringLiteral("%1 KiB").arg(bytes >> 10);
    return QStringLiteral("%1 bytes").arg(bytes);
}

std::optional<QByteArray> readSmallInput(const QString &path, const QString &what, QString *error,
                                         SmallInputLimits limits)
{
    auto fail = [&](const QString &why) -> std::optional<QByteArray> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, why);
        return std::nullopt;
    };
    auto sysError = [] { return QString::fromLocal8Bit(std::strerror(errno)); };
    if (path.isEmpty())
        return fail(QStringLiteral("no file named for %1").arg(what));
    const QByteArray native = QFile::encodeName(path);
    // A link is followed here (reading through one harms nothing); what it names is checked.
    struct stat st;
    if (::stat(native.constData(), &st) != 0)
        return fail(QStringLiteral("cannot read %1: %2").arg(what, sysError()));
    const bool pipe = S_ISFIFO(st.st_mode);
    if (S_ISDIR(st.st_mode))
        return fail(QStringLiteral("is a folder, not %1").arg(what));
    if (!S_ISREG(st.st_mode) && !pipe)
        return fail(QStringLiteral("is a device or socket, not %1 (only files and pipes are read)")
                        .arg(what));
    auto tooLarge = [&] {
        return fail(QStringLiteral("is larger than the %1 a %2 may hold")
                        .arg(byteLimitText(limits.maxBytes),
                             what.startsWith(QLatin1String("a ")) ? what.mid(2) : what));
    };
    if (!pipe && st.st_size > limits.maxBytes)
        return tooLarge();
    const int fd = ::open(native.constData(), O_RDONLY | O_CLOEXEC | (pipe ? O_NONBLOCK : 0));
    if (fd < 0)
        return fail(QStringLiteral("cannot read %1: %2").arg(what, sysError()));
    struct Closer
    {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    // Checked again on the descriptor: the path may have been replaced since stat().
    struct stat opened;
    if (::fstat(fd, &opened) != 0 || (!S_ISREG(opened.st_mode) && !S_ISFIFO(opened.st_mode)))
        return fail(QStringLiteral("is not a file or a pipe"));
    QByteArray out;
    char buffer[64 * 1024];
    for (;;) {
        if (pipe) {
            pollfd p{fd, POLLIN, 0};
            const int ready = ::poll(&p, 1, limits.pipeTimeoutMs);
            if (ready < 0 && errno == EINTR)
                continue;
            if (ready < 0)
                return fail(QStringLiteral("cannot read %1: %2").arg(what, sysError()));
            if (ready == 0)
                return fail(QStringLiteral("the pipe gave no data for %1 s (is anything writing "
                                           "to it?); %2 is read from a file or a pipe that ends")
                                .arg(limits.pipeTimeoutMs / 1000.0)
                                .arg(what));
        }
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return fail(QStringLiteral("cannot read %1: %2").arg(what, sysError()));
        if (n == 0)
            break;
        if (out.size() + n > limits.maxBytes)
            return tooLarge();
        out.append(buffer, qsizetype(n));
    }
    return out;
}

} // namespace gml
