// SPDX-License-Identifier: GPL-3.0-or-later
// gzip and gunzip in memory, and a trace file's events, for tests and the fuzzers' seeds that make
// compressed traces.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <zlib.h>

namespace gmltest {

inline QByteArray gzip(const QByteArray &data)
{
    z_stream zs{};
    deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY); // +16: gzip wrapper
    QByteArray out(int(deflateBound(&zs, uLong(data.size()))) + 32, Qt::Uninitialized);
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.constData()));
    zs.avail_in = uInt(data.size());
    zs.next_out = reinterpret_cast<Bytef *>(out.data());
    zs.avail_out = uInt(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(qsizetype(zs.total_out));
    deflateEnd(&zs);
    return out;
}

// The data of a gzip member; empty when it is not one or is cut short.
inline QByteArray gunzip(const QByteArray &in)
{
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return {};
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
    z.avail_in = uInt(in.size());
    QByteArray out;
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef *>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, qsizetype(sizeof buf - z.avail_out));
    }
    inflateEnd(&z);
    return rc == Z_STREAM_END ? out : QByteArray();
}

// The traceEvents of a Chrome trace file (gzipped or not) read whole with Qt's JSON parser,
// independently of the importer: what tests work expected figures out from. Empty when the
// file cannot be read.
inline QJsonArray traceEvents(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QByteArray data = f.readAll();
    if (path.endsWith(QLatin1String(".gz")))
        data = gunzip(data);
    return QJsonDocument::fromJson(data).object()[QStringLiteral("traceEvents")].toArray();
}

} // namespace gmltest
