// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QtGlobal>

#include "contenthash.h"

#include <memory>
#include <optional>

namespace gml {

// Reads a file's bytes, gunzipping transparently when the content is gzip (by magic number,
// not by extension). Offsets are positions in the decompressed stream. A plain file is hashed
// (ContentHash) on the way, so an importer that reads it all need not read it twice.
class InputStream
{
public:
    InputStream();
    ~InputStream();
    InputStream(const InputStream &) = delete;
    InputStream &operator=(const InputStream &) = delete;

    [[nodiscard]] bool open(const QString &path);
    void close();
    // From now on a second thread reads (and gunzips) the file a few blocks ahead of read(),
    // so that reading overlaps with what the caller does with the bytes (issue 34: a large
    // file's import in stages). Same bytes, errors and offsets as without.
    void readAhead();

    // Reads up to n bytes; returns the count, 0 at the end, -1 on error (see errorString()).
    qint64 read(char *data, qint64 n);
    bool isCompressed() const { return m_compressed; }
    qint64 fileSize() const { return m_fileSize; }
    // How far into the file (compressed bytes) reading has got, for progress.
    qint64 filePosition() const;
    QString errorString() const { return m_error; }

    // The ContentHash of the whole file (its bytes as stored) when it is not compressed and
    // reading it has not failed: the bytes not read yet are read now. Empty for a gzip file
    // (the caller hashes the file itself, fileHash()) or after an error.
    std::optional<quint64> wholeFileHash();

    // The first `max` decompressed bytes of a file (for sniffing); empty on error.
    static QByteArray head(const QString &path, qint64 max, bool *compressed = nullptr);
    // A whole (decompressed) file of at most `maxBytes`; nullopt with *error otherwise ("read
    // error after byte N: ...", or "`what` over N GiB is not supported"). `contentHash`, when
    // given, gets wholeFileHash() (for ImportContext::contentHash).
    static std::optional<QByteArray> readAll(const QString &path, qint64 maxBytes,
                                             const QString &what, QString *error,
                                             std::optional<quint64> *contentHash = nullptr);

private:
    qint64 readDirect(char *data, qint64 n);
    struct Ahead;
    std::unique_ptr<Ahead> m_ahead;
    void *m_gz = nullptr;  // gzFile, for gzip files
    int m_fd = -1;         // plain files
    qint64 m_position = 0; // plain files: bytes read
    ContentHash m_hash;    // plain files: of the bytes read
    bool m_failed = false;
    bool m_compressed = false;
    qint64 m_fileSize = 0;
    QString m_error;
};

} // namespace gml
