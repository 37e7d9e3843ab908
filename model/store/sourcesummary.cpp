// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourcesummary.h"

#include "chunkformat.h"
#include "project.h"
#include "projecttime.h"
#include "sqlitedb.h"

#include <QCborArray>
#include <QCborMap>
#include <QCborValue>
#include <QHash>

#include <algorithm>
#include <bitset>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

namespace gml {

QByteArray encodeCollectives(const std::vector<CollectiveEnd> &ends)
{
    using namespace slicestore;
    std::string out;
    TimeNs prev = 0;
    for (const CollectiveEnd &c : ends) {
        putVarint(out, quint64(c.op));
        putVarint(out, zigzag(c.start - prev));
        putVarint(out, quint64(c.end - c.start));
        prev = c.start;
    }
    return QByteArray(out.data(), qsizetype(out.size()));
}

bool decodeCollectives(const QByteArray &data, std::vector<CollectiveEnd> &out)
{
    using namespace slicestore;
    auto p = reinterpret_cast<const unsigned char *>(data.constData());
    const unsigned char *e = p + data.size();
    quint64 start = 0; // unsigned: a malformed delta wraps instead of overflowing
    while (p < e) {
        quint64 op, ds, dur;
        if (!getVarint(p, e, op) || !getVarint(p, e, ds) || !getVarint(p, e, dur) ||
            op >= quint64(kMaxCollectiveOps) || dur > quint64(INT64_MAX))
            return false;
        start += quint64(unzigzag(ds));
        const TimeNs s = TimeNs(start), d = TimeNs(dur);
        if (s > INT64_MAX - d)
            return false;
        out.push_back({int(op), s, s + d});
    }
    return true;
}

QByteArray SourceWork::toCbor() const
{
    QCborMap m;
    m.insert(QStringLiteral("nodes"), nodes);
    m.insert(QStringLiteral("origin"), origin);
    m.insert(QStringLiteral("end"), end);
    m.insert(QStringLiteral("flops"), flops);
    m.insert(QStringLiteral("hw_flops"), hardwareFlops);
    m.insert(QStringLiteral("half_ns"), halfPrecisionNs);
    m.insert(QStringLiteral("full_ns"), fullPrecisionNs);
    QCborArray gs;
    for (const Gpu &g : gpus)
        gs.append(QCborArray{g.rank, g.device, g.start, g.end, g.compute, g.communication, g.copies,
                             g.idle, g.communicationTotal, g.activity.from, g.activity.width,
                             g.activity.busy, g.activity.communication});
    m.insert(QStringLiteral("gpus"), gs);
    QCborArray rs;
    for (const Rank &r : ranks) {
        QCborArray its;
        for (const auto &[s, e] : r.iterations) {
            its.append(s);
            its.append(e);
        }
        rs.append(QCborMap{{QStringLiteral("rank"), r.rank},
                           {QStringLiteral("iterations"), its},
                           {QStringLiteral("work_end"), r.workEnd},
                           {QStringLiteral("flops"), r.flops},
                           {QStringLiteral("hw_flops"), r.hardwareFlops}});
    }
    m.insert(QStringLiteral("ranks"), rs);
    QCborArray ms;
    for (const Memory &d : memory) {
        QCborArray its;
        for (const Memory::Iteration &it : d.iterations)
            its.append(QCborArray{it.start, it.end, it.atStart, it.peak, it.atEnd});
        ms.append(QCborArray{d.rank, d.pid, d.device, d.events, d.peakAllocated, d.peakAt,
                             d.peakReserved ? QCborValue(*d.peakReserved) : QCborValue(),
                             d.totalsRecorded, d.byAddress, d.unmatchedFrees, d.unmatchedFreeBytes,
                             its});
    }
    m.insert(QStringLiteral("memory"), ms);
    m.insert(QStringLiteral("collectives"), collectives);
    return m.toCborValue().toCbor();
}

std::optional<SourceWork> SourceWork::fromCbor(const QByteArray &data)
{
    QCborParserError err;
    const QCborValue v = QCborValue::fromCbor(data, &err);
    if (err.error != QCborError::NoError || !v.isMap())
        return std::nullopt;
    const QCborMap m = v.toMap();
    SourceWork s;
    s.nodes = m.value(QStringLiteral("nodes")).toInteger();
    s.origin = m.value(QStringLiteral("origin")).toInteger();
    s.end = m.value(QStringLiteral("end")).toInteger();
    s.flops = m.value(QStringLiteral("flops")).toDouble();
    s.hardwareFlops = m.value(QStringLiteral("hw_flops")).toDouble();
    s.halfPrecisionNs = m.value(QStringLiteral("half_ns")).toInteger();
    s.fullPrecisionNs = m.value(QStringLiteral("full_ns")).toInteger();
    for (const QCborValue &gv : m.value(QStringLiteral("gpus")).toArray()) {
        const QCborArray a = gv.toArray();
        if (a.size() != 13)
            return std::nullopt;
        Gpu g{int(a[0].toInteger()), a[1].toString(),
              a[2].toInteger(),      a[3].toInteger(),
              a[4].toInteger(),      a[5].toInteger(),
              a[6].toInteger(),      a[7].toInteger(),
              a[8].toInteger(),      {}};
        g.activity = {a[9].toInteger(), a[10].toInteger(), a[11].toByteArray(),
                      a[12].toByteArray()};
        if (g.activity.width < 0 || g.activity.busy.size() != g.activity.communication.size())
            return std::nullopt;
        s.gpus.push_back(std::move(g));
    }
    for (const QCborValue &rv : m.value(QStringLiteral("ranks")).toArray()) {
        const QCborMap r = rv.toMap();
        Rank rank;
        rank.rank = int(r.value(QStringLiteral("rank")).toInteger());
        const QCborArray its = r.value(QStringLiteral("iterations")).toArray();
        for (qsizetype k = 0; k + 1 < its.size(); k += 2)
            rank.iterations.emplace_back(its[k].toInteger(), its[k + 1].toInteger());
        rank.workEnd = r.value(QStringLiteral("work_end")).toInteger();
        rank.flops = r.value(QStringLiteral("flops")).toDouble();
        rank.hardwareFlops = r.value(QStringLiteral("hw_flops")).toDouble();
        s.ranks.push_back(std::move(rank));
    }
    for (const QCborValue &mv : m.value(QStringLiteral("memory")).toArray()) {
        const QCborArray a = mv.toArray();
        if (a.size() != 12)
            return std::nullopt;
        Memory d;
        d.rank = int(a[0].toInteger());
        d.pid = a[1].toString();
        d.device = a[2].toString();
        d.events = a[3].toInteger();
        d.peakAllocated = a[4].toDouble();
        d.peakAt = a[5].toInteger();
        if (a[6].isDouble())
            d.peakReserved = a[6].toDouble();
        d.totalsRecorded = a[7].toBool();
        d.byAddress = a[8].toBool();
        d.unmatchedFrees = a[9].toInteger();
        d.unmatchedFreeBytes = a[10].toDouble();
        for (const QCborValue &iv : a[11].toArray()) {
            const QCborArray i = iv.toArray();
            if (i.size() != 5)
                return std::nullopt;
            d.iterations.push_back({i[0].toInteger(), i[1].toInteger(), i[2].toDouble(),
                                    i[3].toDouble(), i[4].toDouble()});
        }
        s.memory.push_back(std::move(d));
    }
    s.collectives = m.value(QStringLiteral("collectives")).toByteArray();
    return s;
}

std::optional<QByteArray> loadSourceBlob(const SqliteDb &db, const char *table, SourceId source,
                                         int version)
{
    auto st = db.prepare(std::string("SELECT data FROM ") + table +
                         " WHERE source_id = ? AND version = ?");
    st.bind(1, source);
    st.bind(2, qint64(version));
    if (!st.step())
        return std::nullopt;
    const std::string_view blob = st.blobView(0);
    return QByteArray(blob.data(), qsizetype(blob.size()));
}

QList<std::pair<QString, int>> staleSourceBlobs(const SqliteDb &db, const char *table, RunId run,
                                                int version)
{
    QList<std::pair<QString, int>> out;
    auto st = db.prepare(std::string("SELECT s.path, f.version FROM ") + table +
                         " f JOIN source s ON s.id = f.source_id WHERE s.run_id = ? AND "
                         "f.version != ? ORDER BY s.path");
    st.bind(1, run);
    st.bind(2, qint64(version));
    while (st.step())
        out.append({st.text(0), int(st.int64(1))});
    return out;
}

bool storeSourceBlob(SqliteDb &db, const char *table, SourceId source, int version,
                     const QByteArray &data, QString *error)
{
    auto st = db.prepare(std::string("INSERT OR REPLACE INTO ") + table +
                         "(source_id, version, data) VALUES (?, ?, ?)");
    st.bind(1, source);
    st.bind(2, qint64(version));
    st.bindBlob(3, std::string_view(data.constData(), size_t(data.size())));
    if (st.exec())
        return true;
    if (error)
        *error = st.errorString();
    return false;
}

bool storeSourceSummary(SqliteDb &db, SourceId source, const SourceWork &summary, QString *error)
{
    return storeSourceBlob(db, "source_summary", source, kSourceSummaryVersion, summary.toCbor(),
                           error);
}

std::optional<SourceWork> loadSourceSummary(const SqliteDb &db, SourceId source)
{
    const auto data = loadSourceBlob(db, "source_summary", source, kSourceSummaryVersion);
    return data ? SourceWork::fromCbor(*data) : std::nullopt;
}

std::vector<WorkTrack> workTracksOfSource(Project &project, SourceId source, QString *error)
{
    std::vector<WorkTrack> tracks;
    // Threads first: the GPU pass needs the launches from inside iterations.
    auto st = project.db().prepare(
        "SELECT t.id, t.kind, coalesce(t.rank, -1), t.pid, t.slice_count, coalesce(p.pid, '') "
        "FROM track t LEFT JOIN track p ON p.id = t.parent_id WHERE t.source_id = ? "
        "AND t.kind IN (?, ?, ?) AND t.slice_count > 0 ORDER BY t.kind <> ?, t.id");
    st.bind(1, source);
    st.bind(2, qint64(TrackKind::Thread));
    st.bind(3, qint64(TrackKind::Gpu));
    st.bind(4, qint64(TrackKind::Stream));
    st.bind(5, qint64(TrackKind::Thread));
    while (st.step()) {
        QString pid = st.text(3), parentPid = st.text(5);
        tracks.push_back({st.int64(0), TrackKind(st.int64(1)) != TrackKind::Thread,
                          int(st.int64(2)), pid, st.int64(4),
                          parentPid.isEmpty() ? pid : parentPid});
    }
    if (!st.errorString().isEmpty() && error)
        *error = st.errorString();
    return tracks;
}

std::vector<std::pair<SourceId, TimeNs>> sourcesWithWork(Project &project, RunId run,
                                                         QString *error)
{
    std::vector<std::pair<SourceId, TimeNs>> sources;
    auto st = project.db().prepare(std::string("SELECT s.id, ") + GML_SOURCE_OFFSET_SQL("s") +
                                   " FROM source s WHERE s.run_id = ? AND EXISTS "
                                   "(SELECT 1 FROM track t WHERE t.source_id = s.id AND t.kind "
                                   "IN (?, ?, ?) AND t.slice_count > 0) ORDER BY s.id");
    st.bind(1, run);
    st.bind(2, qint64(TrackKind::Thread));
    st.bind(3, qint64(TrackKind::Gpu));
    st.bind(4, qint64(TrackKind::Stream));
    while (st.step())
        sources.emplace_back(st.int64(0), st.int64(1));
    if (!st.errorString().isEmpty() && error)
        *error = st.errorString();
    return sources;
}

} // namespace gml
