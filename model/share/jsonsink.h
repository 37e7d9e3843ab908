// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writing a large JSON file a piece at a time (the Chrome trace export, chromeexport.cpp): a
// buffer flushed, through gzip when asked, into an OutputFile, and the pieces JSON needs written
// exactly (strings, times in exact decimal microseconds).
#include "outputfile.h"
#include "types.h"

#include <QString>

#include <zlib.h>

#include <string>
#include <string_view>

namespace gml {

// The bytes of the file, through gzip when asked, into an OutputFile (whole or nothing; never
// the project, a link or a device).
class JsonSink
{
public:
    JsonSink(const QString &path, bool gzip, const QString &project)
        : m_file(path, {project}), m_gzip(gzip)
    {
    }
    JsonSink(const JsonSink &) = delete;
    JsonSink &operator=(const JsonSink &) = delete;
    ~JsonSink()
    {
        if (m_zInit)
            deflateEnd(&m_z);
    }
    bool open(QString *error)
    {
        if (!m_file.open()) {
            *error = m_file.error();
            return false;
        }
        if (m_gzip) {
            m_z = {};
            // 15 + 16: a gzip stream (header and CRC), which gunzip and every viewer read.
            if (deflateInit2(&m_z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
                *error = QStringLiteral("cannot start gzip compression");
                return false;
            }
            m_zInit = true;
        }
        return true;
    }
    std::string &buffer() { return m_buf; }
    // Writes the buffer out once it is large (or always, with `force`).
    bool flush(bool force, QString *error)
    {
        if (!force && m_buf.size() < (1u << 20))
            return true;
        if (!m_gzip)
            return writeOut(m_buf.data(), m_buf.size(), error) && (m_buf.clear(), true);
        m_z.next_in = reinterpret_cast<Bytef *>(m_buf.data());
        m_z.avail_in = uInt(m_buf.size());
        char out[1 << 16];
        int rc = Z_OK;
        do {
            m_z.next_out = reinterpret_cast<Bytef *>(out);
            m_z.avail_out = sizeof out;
            rc = deflate(&m_z, force && m_finishing ? Z_FINISH : Z_NO_FLUSH);
            if (rc == Z_STREAM_ERROR) {
                *error = QStringLiteral("gzip compression failed");
                return false;
            }
            if (!writeOut(out, sizeof out - m_z.avail_out, error))
                return false;
        } while (m_z.avail_out == 0 || (m_finishing && rc != Z_STREAM_END));
        m_buf.clear();
        return true;
    }
    bool commit(QString *error)
    {
        m_finishing = true;
        if (!flush(true, error))
            return false;
        if (!m_file.commit()) {
            *error = m_file.error();
            return false;
        }
        return true;
    }
    qint64 written() const { return m_written; }

private:
    bool writeOut(const char *data, size_t size, QString *error)
    {
        if (size && !m_file.write(QByteArrayView(data, qsizetype(size)))) {
            *error = m_file.error();
            return false;
        }
        m_written += qint64(size);
        return true;
    }
    OutputFile m_file;
    bool m_gzip = false;
    bool m_zInit = false;
    bool m_finishing = false;
    z_stream m_z{};
    std::string m_buf;
    qint64 m_written = 0;
};

// `text` as a JSON string, quotes included.
void appendJsonString(std::string &out, std::string_view text);
void appendJsonString(std::string &out, const QString &text);
// Nanoseconds as microseconds in exact decimals ("12.345", "-0.002").
void appendMicros(std::string &out, TimeNs ns);

} // namespace gml
