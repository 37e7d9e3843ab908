// SPDX-License-Identifier: GPL-3.0-or-later
#include "outputfile.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gml {

namespace {

bool startsLikeSqlite(const QString &path)
{
    // Read through a descriptor opened without following links or blocking (the path was
    // checked to be a regular file, but may have changed since).
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    char head[16];
    const ssize_t n = ::read(fd, head, sizeof head);
    ::close(fd);
    return n == 16 && std::memcmp(head, "SQLite format 3\0", 16) == 0;
}

QString kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return QStringLiteral("it is a folder");
    if (S_ISLNK(mode))
        return QStringLiteral("it is a symbolic link (outputs are never written through a link; "
                              "name the file itself)");
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return QStringLiteral("it is a device, not a file");
    if (S_ISFIFO(mode))
        return QStringLiteral("it is a FIFO, not a file");
    if (S_ISSOCK(mode))
        return QStringLiteral("it is a socket, not a file");
    return QStringLiteral("it is not a regular file");
}

} // namespace

QString outputRefusal(const QString &path, const QStringList &protect)
{
    if (path.isEmpty())
        return QStringLiteral("no output path given");
    const QByteArray native = QFile::encodeName(path);
    static const char *const kSidecars[] = {"-wal", "-shm", "-journal", "-lock"};
    // SQLite's files beside a project are the project too.
    for (const char *suffix : kSidecars)
        if (path.endsWith(QLatin1String(suffix))) {
            const QString stem = path.chopped(qsizetype(std::strlen(suffix)));
            if (stem.endsWith(QLatin1String(".grademl")) || startsLikeSqlite(stem))
                return QStringLiteral("it belongs to the SQLite database %1 (its %2 file)")
                    .arg(stem, QLatin1String(suffix + 1));
        }
    if (path.endsWith(QLatin1String(".grademl")) || path.endsWith(QLatin1String(".grademl/")))
        return QStringLiteral("it is a GradeML project (.grademl); outputs never replace one");
    struct stat target;
    const bool exists = ::lstat(native.constData(), &target) == 0;
    if (!exists && errno != ENOENT)
        return QString::fromLocal8Bit(std::strerror(errno));
    for (const QString &p : protect) {
        struct stat prot;
        if (exists && !p.isEmpty() && ::stat(QFile::encodeName(p).constData(), &prot) == 0 &&
            prot.st_dev == target.st_dev && prot.st_ino == target.st_ino)
            return QStringLiteral("it is the project this command reads");
    }
    if (!exists)
        return {};
    if (!S_ISREG(target.st_mode))
        return kindOf(target.st_mode);
    if (startsLikeSqlite(path))
        return QStringLiteral("it is an SQLite database (a project?); outputs never replace one");
    return {};
}

OutputFile::OutputFile(QString path, QStringList protect)
    : m_path(std::move(path)), m_protect(std::move(protect))
{
}

OutputFile::~OutputFile()
{
    cancel();
}

bool OutputFile::open()
{
    if (const QString why = outputRefusal(m_path, m_protect); !why.isEmpty()) {
        m_error = QStringLiteral("%1: refused as an output: %2").arg(m_path, why);
        return false;
    }
    m_file = std::make_unique<QSaveFile>(m_path);
    if (!m_file->open(QIODevice::WriteOnly)) {
        m_error = QStringLiteral("%1: cannot write: %2").arg(m_path, m_file->errorString());
        m_file.reset();
        return false;
    }
    m_failed = false;
    return true;
}

bool OutputFile::write(QByteArrayView bytes)
{
    if (!m_file || m_failed)
        return false;
    if (m_file->write(bytes.data(), bytes.size()) != bytes.size()) {
        m_failed = true;
        m_error = QStringLiteral("%1: cannot write: %2").arg(m_path, m_file->errorString());
        return false;
    }
    return true;
}

QIODevice *OutputFile::device()
{
    return m_file.get();
}

bool OutputFile::commit()
{
    if (!m_file) {
        if (m_error.isEmpty())
            m_error = QStringLiteral("%1: not open").arg(m_path);
        return false;
    }
    // The target may have been replaced by a link or a project while we wrote.
    if (const QString why = outputRefusal(m_path, m_protect); !why.isEmpty()) {
        m_error = QStringLiteral("%1: refused as an output: %2").arg(m_path, why);
        cancel();
        return false;
    }
    if (m_failed || m_file->error() != QFileDevice::NoError) {
        if (m_error.isEmpty())
            m_error = QStringLiteral("%1: cannot write: %2").arg(m_path, m_file->errorString());
        cancel();
        return false;
    }
    if (!m_file->commit()) { // flush (ENOSPC shows here), fsync, rename
        m_error = QStringLiteral("%1: cannot write: %2").arg(m_path, m_file->errorString());
        m_file.reset();
        return false;
    }
    m_file.reset();
    return true;
}

void OutputFile::cancel()
{
    if (m_file) {
        m_file->cancelWriting();
        m_file.reset(); // QSaveFile removes its temporary file
    }
}

bool writeOutput(const QString &path, QByteArrayView bytes, QString *error,
                 const QStringList &protect)
{
    OutputFile out(path, protect);
    if (out.open() && out.write(bytes) && out.commit())
        return true;
    if (error)
        *error = out.error();
    return false;
}

} // namespace gml
