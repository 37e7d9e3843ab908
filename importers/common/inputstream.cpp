// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputstream.h"

#include <QFile>
#include <QFileInfo>

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace gml {

// The reading thread of readAhead(): blocks of the stream in order, at most kDepth ahead.
// Blocks are taken again once the consumer has moved past them and are never zero-filled
// (read() writes the bytes that are used): a new block of 1 MiB for each MiB of the file was
// a fresh mapping zeroed and faulted in, page by page, on the reading thread (issue 74).
struct InputStream::Ahead
{
    static constexpr qint64 kBlock = qint64(1) << 20;
    static constexpr size_t kDepth = 4;
    struct Block
    {
        std::unique_ptr<char[]> data;
        size_t size = 0;     // bytes held
        size_t capacity = 0; // bytes allocated
    };
    std::thread thread;
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Block> ready;  // under mutex
    std::vector<Block> spare; // under mutex: blocks handed out and done with
    bool done = false;        // under mutex: the end or an error was reached
    bool failed = false;      // under mutex: an error (m_error says which)
    bool stop = false;        // under mutex
    std::atomic<qint64> filePosition{0};
    Block current; // the consumer's block
    size_t at = 0;
};

void InputStream::readAhead()
{
    if (m_ahead || (m_fd < 0 && !m_gz))
        return;
    m_ahead = std::make_unique<Ahead>();
    Ahead &a = *m_ahead;
    a.filePosition = filePosition();
    a.thread = std::thread([this, &a] {
        for (;;) {
            // A plain file's block is at most what is left of it (and one byte more, to see
            // its end): a small file's reading zeroed two blocks of 1 MiB (issue 74).
            qint64 size = Ahead::kBlock;
            if (m_fd >= 0)
                size = std::clamp<qint64>(m_fileSize - m_position + 1, 4096, Ahead::kBlock);
            Ahead::Block block;
            {
                std::lock_guard lock(a.mutex);
                if (!a.spare.empty() && a.spare.back().capacity >= size_t(size)) {
                    block = std::move(a.spare.back());
                    a.spare.pop_back();
                }
            }
            if (block.capacity < size_t(size)) {
                block.data.reset(new char[size_t(size)]); // not zeroed: read() fills it
                block.capacity = size_t(size);
            }
            const qint64 n = readDirect(block.data.get(), size);
            const qint64 position =
                m_fd >= 0 ? m_position : qint64(gzoffset(static_cast<gzFile>(m_gz)));
            std::unique_lock lock(a.mutex);
            a.filePosition = position;
            if (n > 0) {
                block.size = size_t(n);
                a.ready.push_back(std::move(block));
            } else {
                a.done = true;
                a.failed = n < 0;
            }
            a.changed.notify_all();
            if (a.done)
                return;
            a.changed.wait(lock, [&] { return a.stop || a.ready.size() < Ahead::kDepth; });
            if (a.stop)
                return;
        }
    });
}

InputStream::InputStream() = default;

InputStream::~InputStream()
{
    close();
}

bool InputStream::open(const QString &path)
{
    close();
    QFileInfo info(path);
    if (!info.exists() || !info.isFile()) {
        m_error = QStringLiteral("no such file");
        return false;
    }
    m_fileSize = info.size();
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            m_error = f.errorString();
            return false;
        }
        const QByteArray magic = f.read(2);
        m_compressed = magic.size() == 2 && uchar(magic[0]) == 0x1f && uchar(magic[1]) == 0x8b;
    }
    const QByteArray name = QFile::encodeName(path);
    if (!m_compressed) {
        m_fd = ::open(name.constData(), O_RDONLY | O_CLOEXEC);
        if (m_fd < 0) {
            m_error = QStringLiteral("cannot open file: %1")
                          .arg(QString::fromLocal8Bit(std::strerror(errno)));
            return false;
        }
        ::posix_fadvise(m_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        m_hash = ContentHash();
        return true;
    }
    m_gz = gzopen(name.constData(), "rb");
    if (!m_gz) {
        m_error = QStringLiteral("cannot open file");
        return false;
    }
    gzbuffer(static_cast<gzFile>(m_gz), 1 << 18);
    return true;
}

void InputStream::close()
{
    if (m_ahead) {
        {
            std::lock_guard lock(m_ahead->mutex);
            m_ahead->stop = true;
            m_ahead->changed.notify_all();
        }
        m_ahead->thread.join();
        m_ahead.reset();
    }
    if (m_gz) {
        gzclose_r(static_cast<gzFile>(m_gz));
        m_gz = nullptr;
    }
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    m_position = 0;
    m_failed = false;
}

qint64 InputStream::read(char *data, qint64 n)
{
    if (!m_ahead)
        return readDirect(data, n);
    Ahead &a = *m_ahead;
    qint64 total = 0;
    while (total < n) {
        if (a.at == a.current.size) {
            std::unique_lock lock(a.mutex);
            a.changed.wait(lock, [&] { return !a.ready.empty() || a.done; });
            if (a.ready.empty()) // the end, or the error after the bytes handed out
                return a.failed && total == 0 ? -1 : total;
            if (a.current.capacity > 0)
                a.spare.push_back(std::move(a.current));
            a.current = std::move(a.ready.front());
            a.ready.pop_front();
            a.at = 0;
            a.changed.notify_all();
        }
        const size_t take = size_t(std::min<qint64>(n - total, qint64(a.current.size - a.at)));
        std::memcpy(data + total, a.current.data.get() + a.at, take);
        a.at += take;
        total += qint64(take);
    }
    return total;
}

qint64 InputStream::readDirect(char *data, qint64 n)
{
    if (m_fd >= 0) {
        qint64 total = 0;
        while (total < n) {
            const ssize_t got =
                ::read(m_fd, data + total, size_t(std::min<qint64>(n - total, 1 << 30)));
            if (got < 0) {
                if (errno == EINTR)
                    continue;
                m_error = QString::fromLocal8Bit(std::strerror(errno));
                m_failed = true;
                return -1;
            }
            if (got == 0)
                break;
            m_hash.add(data + total, size_t(got));
            total += got;
        }
        m_position += total;
        return total;
    }
    if (!m_gz)
        return -1;
    auto *gz = static_cast<gzFile>(m_gz);
    if (m_failed)
        return -1; // the error found after the bytes handed out last time
    // Small pieces, so the bytes before a damaged spot are handed out and the error's offset
    // (the caller's position when read() fails) is within 64 KiB of it.
    qint64 total = 0;
    auto failAt = [&](const char *msg) -> qint64 {
        m_failed = true;
        m_error = QStringLiteral("gzip data is corrupt or cut short at compressed byte %1 of %2, "
                                 "after %3 bytes of data (%4)")
                      .arg(qint64(gzoffset(gz)))
                      .arg(m_fileSize)
                      .arg(m_position + total)
                      .arg(QString::fromUtf8(msg ? msg : "unknown zlib error"));
        m_position += total;
        return total > 0 ? total : -1;
    };
    while (total < n) {
        const unsigned chunk = unsigned(std::min<qint64>(n - total, 1 << 16));
        const int got = gzread(gz, data + total, chunk);
        if (got < 0) {
            int code = 0;
            return failAt(gzerror(gz, &code));
        }
        if (got == 0) {
            int code = 0;
            const char *msg = gzerror(gz, &code);
            if (code != Z_OK && code != Z_STREAM_END)
                return failAt(msg);
            break;
        }
        total += got;
    }
    m_position += total;
    return total;
}

std::optional<quint64> InputStream::wholeFileHash()
{
    if (m_fd < 0)
        return std::nullopt;
    char rest[1 << 16];
    for (qint64 got; (got = read(rest, sizeof rest)) != 0;)
        if (got < 0)
            return std::nullopt;
    // At the end the reading thread, if any, has stopped: its hash and state are final.
    if (m_failed)
        return std::nullopt;
    return m_hash.digest();
}

qint64 InputStream::filePosition() const
{
    if (m_ahead)
        return m_ahead->filePosition;
    if (m_fd >= 0)
        return m_position;
    return m_gz ? qint64(gzoffset(static_cast<gzFile>(m_gz))) : 0;
}

QByteArray InputStream::head(const QString &path, qint64 max, bool *compressed)
{
    InputStream in;
    if (!in.open(path))
        return {};
    QByteArray out(max, Qt::Uninitialized);
    const qint64 got = in.read(out.data(), max);
    if (compressed)
        *compressed = in.isCompressed();
    // A cut gzip still yields its first bytes; sniffing only needs those.
    out.resize(std::max<qint64>(0, got < 0 ? 0 : got));
    return out;
}

std::optional<QByteArray> InputStream::readAll(const QString &path, qint64 maxBytes,
                                               const QString &what, QString *error,
                                               std::optional<quint64> *contentHash)
{
    InputStream in;
    if (!in.open(path)) {
        *error = in.errorString();
        return std::nullopt;
    }
    QByteArray buf;
    // An uncompressed file over the limit is refused before a byte is read, and one under it
    // read into a buffer of its size: growing the buffer as it filled took twice the limit
    // (about 2 GB for a log over 1 GiB) before refusing it (issue 56).
    if (!in.isCompressed()) {
        const qint64 size = QFileInfo(path).size();
        if (size > maxBytes) {
            *error = QStringLiteral("%1 over %2 GiB is not supported (this one is %3 bytes)")
                         .arg(what)
                         .arg(maxBytes >> 30)
                         .arg(size);
            return std::nullopt;
        }
        buf.reserve(qsizetype(size));
    }
    char chunk[1 << 16];
    for (;;) {
        const qint64 n = in.read(chunk, sizeof chunk);
        if (n < 0) {
            *error = QStringLiteral("read error after byte %1: %2")
                         .arg(buf.size())
                         .arg(in.errorString());
            return std::nullopt;
        }
        if (n == 0) {
            if (contentHash)
                *contentHash = in.wholeFileHash();
            return buf;
        }
        buf.append(chunk, n);
        if (buf.size() > maxBytes) {
            *error =
                QStringLiteral("%1 over %2 GiB is not supported").arg(what).arg(maxBytes >> 30);
            return std::nullopt;
        }
    }
}

} // namespace gml
