// SPDX-License-Identifier: GPL-3.0-or-later
#include "nsysimporter.h"

#include "nsyssession.h"

#include <map>

#include "sqlitedb.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <sqlite3.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace gml {

namespace nsys {

bool Session::readApi(const char *table, const char *category)
{
    if (!has(table))
        return true;
    const StringId cat = m_w.intern(category);
    const std::string sql = "SELECT start, end, globalTid, correlationId, nameId, " +
                            col(table, "returnValue") + ", rowid FROM " + table + " ORDER BY start";
    auto st = m_db.prepare(sql);
    while (st.step()) {
        const auto span = interval(st, table);
        if (!span)
            continue;
        const auto [start, end] = *span;
        const qint64 gtid = st.int64(2);
        const qint64 corr = st.int64(3);
        std::string args;
        if (!st.isNull(5) && st.int64(5) != 0)
            args = "{\"return value\": " + std::to_string(st.int64(5)) + "}";
        const SliceId id = m_w.addSlice(thread(gtid), start, end - start,
                                        name(st.int64(4), apiName), cat, corr, kNoId, args);
        m_launches[(quint64(pidOf(gtid)) << 32) | quint64(corr & 0xFFFFFFFF)] = id;
        m_lastTime = std::max(m_lastTime, end);
    }
    return st.errorString().isEmpty() || fail(st, table);
}

bool Session::readGpu(const char *table, const char *category)
{
    if (!has(table))
        return true;
    const StringId cat = m_w.intern(category);
    const bool kernel = std::string_view(table) == "CUPTI_ACTIVITY_KIND_KERNEL";
    const bool memcpy = std::string_view(table) == "CUPTI_ACTIVITY_KIND_MEMCPY";
    std::string sql = "SELECT start, end, deviceId, streamId, correlationId, globalPid";
    if (kernel)
        sql += ", " + col(table, "demangledName") + ", " + col(table, "shortName") + ", " +
               col(table, "gridX") + ", " + col(table, "gridY") + ", " + col(table, "gridZ") +
               ", " + col(table, "blockX") + ", " + col(table, "blockY") + ", " +
               col(table, "blockZ") + ", " + col(table, "registersPerThread") + ", " +
               col(table, "staticSharedMemory", "0") + " + " +
               col(table, "dynamicSharedMemory", "0") + ", " + col(table, "graphId");
    else if (memcpy)
        sql += ", bytes, " + col(table, "copyKind") + ", " + col(table, "srcKind") + ", " +
               col(table, "dstKind");
    else
        sql += ", bytes, " + col(table, "value");
    sql += std::string(", rowid FROM ") + table + " ORDER BY start";
    auto st = m_db.prepare(sql);
    // Enum labels from the export itself ("Host-to-Device", "Pageable").
    QHash<qint64, QString> copyKinds, memKinds;
    if (memcpy) {
        if (has("ENUM_CUDA_MEMCPY_OPER", "label")) {
            auto e = m_db.prepare("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER");
            while (e.step())
                copyKinds.insert(e.int64(0), e.text(1));
        }
        if (has("ENUM_CUDA_MEM_KIND", "label")) {
            auto e = m_db.prepare("SELECT id, label FROM ENUM_CUDA_MEM_KIND");
            while (e.step())
                memKinds.insert(e.int64(0), e.text(1));
        }
    }
    static const QHash<qint64, QString> shortKinds = {{1, QStringLiteral("HtoD")},
                                                      {2, QStringLiteral("DtoH")},
                                                      {8, QStringLiteral("DtoD")},
                                                      {9, QStringLiteral("HtoH")},
                                                      {10, QStringLiteral("PtoP")}};
    const StringId memsetName = m_w.intern("Memset (Device)");
    while (st.step()) {
        const auto span = interval(st, table);
        if (!span)
            continue;
        const auto [start, end] = *span;
        const TimeNs dur = end - start;
        const qint64 device = st.int64(2), streamId = st.int64(3), corr = st.int64(4);
        const qint64 pid = pidOf(st.int64(5));
        QJsonObject args;
        args.insert(QStringLiteral("device"), device);
        args.insert(QStringLiteral("stream"), streamId);
        args.insert(QStringLiteral("correlation"), corr);
        StringId name = memsetName;
        if (kernel) {
            name = this->name(st.isNull(6) ? st.int64(7) : st.int64(6));
            if (!st.isNull(7))
                args.insert(QStringLiteral("short name"), QString::fromUtf8(text(st.int64(7))));
            if (!st.isNull(8))
                args.insert(QStringLiteral("grid"),
                            QJsonArray{st.int64(8), st.int64(9), st.int64(10)});
            if (!st.isNull(11))
                args.insert(QStringLiteral("block"),
                            QJsonArray{st.int64(11), st.int64(12), st.int64(13)});
            if (!st.isNull(14))
                args.insert(QStringLiteral("registers per thread"), st.int64(14));
            if (!st.isNull(15))
                args.insert(QStringLiteral("shared memory"), st.int64(15));
            if (!st.isNull(16) && st.int64(16) != 0)
                args.insert(QStringLiteral("CUDA graph id"), st.int64(16));
        } else if (memcpy) {
            const qint64 bytes = st.int64(6);
            const qint64 kind = st.int64(7);
            const QString shortKind =
                shortKinds.value(kind, copyKinds.value(kind, QStringLiteral("Unknown")));
            QString label = QStringLiteral("Memcpy ") + shortKind;
            if (!st.isNull(8) && !st.isNull(9) && memKinds.contains(st.int64(8)))
                label += QStringLiteral(" (%1 -> %2)")
                             .arg(memKinds.value(st.int64(8)), memKinds.value(st.int64(9)));
            name = m_w.intern(label.toStdString());
            args.insert(QStringLiteral("bytes"), bytes);
            if (dur > 0)
                args.insert(QStringLiteral("memory bandwidth (GB/s)"), double(bytes) / double(dur));
            if (copyKinds.contains(kind))
                args.insert(QStringLiteral("copy kind"), copyKinds.value(kind));
        } else {
            args.insert(QStringLiteral("bytes"), st.int64(6));
            if (!st.isNull(7))
                args.insert(QStringLiteral("value"), st.int64(7));
        }
        const QByteArray json = QJsonDocument(args).toJson(QJsonDocument::Compact);
        const SliceId id =
            m_w.addSlice(stream(device, streamId), start, dur, name, cat, corr, kNoId,
                         std::string_view(json.constData(), size_t(json.size())));
        auto launch = m_launches.find((quint64(pid) << 32) | quint64(corr & 0xFFFFFFFF));
        if (launch != m_launches.end())
            m_w.addFlow(FlowKind::Launch, launch->second, id);
        else
            ++m_unmatched;
        m_lastTime = std::max(m_lastTime, end);
    }
    return st.errorString().isEmpty() || fail(st, table);
}

bool Session::readNvtx()
{
    const char *table = "NVTX_EVENTS";
    if (!has(table))
        return true;
    // Domain names come from the domain-create events.
    QHash<qint64, StringId> domains;
    const bool hasDomain = has(table, "domainId");
    const bool hasTextId = has(table, "textId");
    const std::string text = hasTextId ? "coalesce(e.text, s.value)" : "e.text";
    if (hasDomain) {
        auto d = m_db.prepare("SELECT e.domainId, " + text + " FROM NVTX_EVENTS e " +
                              (hasTextId ? "LEFT JOIN StringIds s ON s.id = e.textId " : "") +
                              "WHERE e.eventType = 75"); // NvtxDomainCreate
        while (d.step())
            if (!d.isNull(1))
                domains.insert(d.int64(0), m_w.intern(d.textView(1)));
    }
    const StringId nvtx = m_w.intern("nvtx");
    const std::string sql = "SELECT e.start, e.end, e.eventType, e.globalTid, " + text + ", " +
                            (hasDomain ? "e.domainId" : "0") + " FROM NVTX_EVENTS e " +
                            (hasTextId ? "LEFT JOIN StringIds s ON s.id = e.textId " : "") +
                            "WHERE e.eventType IN (34, 59, 60) ORDER BY e.start";
    auto st = m_db.prepare(sql.substr(0, sql.find(" FROM ")) + ", e.rowid" +
                           sql.substr(sql.find(" FROM ")));
    const StringId unnamed = m_w.intern("(unnamed NVTX range)");
    while (st.step()) {
        const qint64 type = st.int64(2);
        const qint64 gtid = st.int64(3);
        const auto span = interval(st, table, type != kNvtxMark);
        if (!span)
            continue;
        const TimeNs start = span->first;
        TimeNs end = start;
        if (type != kNvtxMark) {
            if (span->second == kMaxAbsTimeNs) { // no end
                m_warnings.add(QStringLiteral("nvtx open"), -1,
                               QStringLiteral("NVTX range starting at %1 ns has no end (still open "
                                              "when the capture stopped); it is drawn to the last "
                                              "event of the export")
                                   .arg(start));
                end = std::max(m_lastTime, start);
            } else {
                end = span->second;
            }
        }
        const StringId name = st.isNull(4) ? unnamed : m_w.intern(st.textView(4));
        const StringId cat = domains.value(st.int64(5), nvtx);
        const TrackId track = type == kNvtxStartEnd
                                  ? processAux(pidOf(gtid), QStringLiteral("NVTX start/end ranges"),
                                               TrackKind::Async, 1'000'000)
                                  : thread(gtid);
        m_w.addSlice(track, start, end - start, name, cat);
    }
    return st.errorString().isEmpty() || fail(st, table);
}

// CUDA memory operations (nsys --cuda-memory-usage=true): each GPU's device memory allocated,
// the running sum of its allocations less its frees, as a counter in MiB beside nvidia-smi's
// memory.used and the PyTorch profiler's; memory of other kinds (pinned, managed) is left out.
bool Session::readMemory()
{
    const char *table = "CUDA_GPU_MEMORY_USAGE_EVENTS";
    if (!has(table))
        return true;
    auto st = m_db.prepare("SELECT start, NULL, deviceId, bytes, memoryOperationType, " +
                           col(table, "memKind", "2") + ", rowid FROM " + table +
                           " ORDER BY start, rowid");
    std::map<qint64, std::pair<TrackId, double>> byDevice;
    qint64 other = 0;
    while (st.step()) {
        const auto span = interval(st, table);
        if (!span)
            continue;
        const qint64 kind = st.int64(5);
        if (kind != 2 && kind != 3) { // device, array
            ++other;
            continue;
        }
        const qint64 op = st.int64(4);
        if (op != 0 && op != 1) {
            rowWarning(table, QStringLiteral("operation"), rowId(st),
                       QStringLiteral("memoryOperationType %1 is neither 0 (allocation) nor 1 "
                                      "(deallocation)")
                           .arg(op));
            continue;
        }
        const qint64 device = st.int64(2);
        auto it = byDevice.find(device);
        if (it == byDevice.end()) {
            TrackSpec spec;
            spec.parent = gpu(device);
            spec.kind = TrackKind::Counter;
            spec.name = QStringLiteral("memory allocated · Nsight Systems");
            spec.unit = QStringLiteral("MiB");
            it = byDevice.emplace(device, std::make_pair(m_w.addTrack(spec), 0.0)).first;
        }
        it->second.second += double(st.int64(3)) * (op == 0 ? 1 : -1);
        m_w.addCounter(it->second.first, span->first, it->second.second / (1024.0 * 1024.0));
    }
    if (other > 0)
        m_warnings.add(QStringLiteral("memory kinds"), -1,
                       QStringLiteral("%1 CUDA memory operations on host (pageable, pinned) or "
                                      "managed memory are not in the GPUs' memory counters")
                           .arg(other));
    return st.errorString().isEmpty() || fail(st, table);
}

bool Session::readSync()
{
    const char *table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    if (!has(table))
        return true;
    QHash<qint64, StringId> labels;
    if (has("ENUM_CUPTI_SYNC_TYPE", "label")) {
        auto e = m_db.prepare("SELECT id, label FROM ENUM_CUPTI_SYNC_TYPE");
        while (e.step())
            labels.insert(e.int64(0), m_w.intern(e.textView(1)));
    }
    const StringId cat = m_w.intern("cuda_sync");
    const StringId fallback = m_w.intern("CUDA synchronization");
    auto st = m_db.prepare("SELECT start, end, globalPid, streamId, correlationId, " +
                           col(table, "syncType") + ", " + col(table, "eventId") +
                           ", rowid FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ORDER BY start");
    while (st.step()) {
        const auto span = interval(st, table);
        if (!span)
            continue;
        const auto [start, end] = *span;
        QJsonObject args;
        args.insert(QStringLiteral("stream"), st.int64(3));
        if (!st.isNull(6) && st.int64(6) != 0xFFFFFFFF)
            args.insert(QStringLiteral("event id"), st.int64(6));
        const QByteArray json = QJsonDocument(args).toJson(QJsonDocument::Compact);
        m_w.addSlice(processAux(pidOf(st.int64(2)), QStringLiteral("CUDA synchronization"),
                                TrackKind::Async, 1'000'001),
                     start, end - start, labels.value(st.int64(5), fallback), cat, st.int64(4),
                     kNoId, std::string_view(json.constData(), size_t(json.size())));
    }
    return st.errorString().isEmpty() || fail(st, table);
}

ImportOutcome Session::run()
{
    if (!m_db.hasTable("META_DATA_EXPORT"))
        return {ImportOutcome::Status::Failed,
                -1,
                QStringLiteral("an SQLite database without a META_DATA_EXPORT table: expected an "
                               "'nsys export --type sqlite' file"),
                {}};
    QJsonObject meta;
    {
        auto st = m_db.prepare("SELECT name, value FROM META_DATA_EXPORT");
        while (st.step()) {
            const QString key = st.text(0);
            if (key.startsWith(QLatin1String("EXPORT_SCHEMA_VERSION")) ||
                key == QLatin1String("EXPORT_PRODUCT_VERSION") ||
                key == QLatin1String("EXPORT_HOST") || key.startsWith(QLatin1String("DERIVED_")))
                meta.insert(key, st.text(1));
        }
    }
    if (m_db.hasTable("TARGET_INFO_SESSION_START_TIME") &&
        has("TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) {
        auto st = m_db.prepare("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1");
        if (st.step()) {
            m_w.setClockOffset(st.int64(0));
            meta.insert(QStringLiteral("session_start_utc_ns"), st.int64(0));
        }
    } else {
        m_warnings.add(QStringLiteral("no start"), -1,
                       QStringLiteral("no TARGET_INFO_SESSION_START_TIME: times stay relative to "
                                      "the session start and will not line up with other files"));
    }
    readStrings();
    readNames();
    if (!progress())
        return {ImportOutcome::Status::Cancelled, -1, {}, {}};
    struct Step
    {
        bool (Session::*fn)(const char *, const char *);
        const char *table;
        const char *category;
    };
    const Step steps[] = {
        {&Session::readApi, "CUPTI_ACTIVITY_KIND_RUNTIME", "cuda_runtime"},
        {&Session::readApi, "CUPTI_ACTIVITY_KIND_DRIVER", "cuda_driver"},
        {&Session::readGpu, "CUPTI_ACTIVITY_KIND_KERNEL", "kernel"},
        {&Session::readGpu, "CUPTI_ACTIVITY_KIND_MEMCPY", "gpu_memcpy"},
        {&Session::readGpu, "CUPTI_ACTIVITY_KIND_MEMSET", "gpu_memset"},
    };
    for (const auto &s : steps) {
        if (!(this->*s.fn)(s.table, s.category))
            return {ImportOutcome::Status::Failed, -1, m_error, {}};
        if (!progress())
            return {ImportOutcome::Status::Cancelled, -1, {}, {}};
    }
    if (!readNvtx() || !readSync() || !readMemory())
        return {ImportOutcome::Status::Failed, -1, m_error, {}};
    if (m_unmatched > 0)
        m_warnings.add(QStringLiteral("unmatched"), -1,
                       QStringLiteral("%1 GPU activities have no CUDA API call with their "
                                      "correlationId in the export (the capture or the export "
                                      "window began after the launch); no launch link for them")
                           .arg(m_unmatched));
    // Tables with data this importer does not read, so nobody thinks they were.
    static const QSet<QString> read = {QStringLiteral("CUPTI_ACTIVITY_KIND_RUNTIME"),
                                       QStringLiteral("CUPTI_ACTIVITY_KIND_DRIVER"),
                                       QStringLiteral("CUPTI_ACTIVITY_KIND_KERNEL"),
                                       QStringLiteral("CUPTI_ACTIVITY_KIND_MEMCPY"),
                                       QStringLiteral("CUPTI_ACTIVITY_KIND_MEMSET"),
                                       QStringLiteral("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"),
                                       QStringLiteral("CUDA_GPU_MEMORY_USAGE_EVENTS"),
                                       QStringLiteral("NVTX_EVENTS")};
    QJsonArray notRead;
    auto tables =
        m_db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND "
                     "(name LIKE 'CUPTI_ACTIVITY_KIND_%' OR name LIKE 'OSRT_%' OR "
                     "name LIKE 'CUDNN_%' OR name LIKE 'CUBLAS_%' OR name LIKE 'GPU_METRICS%' "
                     "OR name LIKE 'MPI_%' OR name LIKE 'NCCL_%' OR name = 'SCHED_EVENTS' "
                     "OR name = 'COMPOSITE_EVENTS')");
    while (tables.step()) {
        const QString t = tables.text(0);
        if (read.contains(t))
            continue;
        if (m_db.scalar(("SELECT count(*) FROM \"" + t.toStdString() + "\"")) > 0)
            notRead.append(t);
    }
    if (!notRead.isEmpty())
        meta.insert(QStringLiteral("tables_not_imported"), notRead);
    if (m_overBudget) {
        SqliteStatement none;
        fail(none, "the export");
        return {ImportOutcome::Status::Failed, -1, m_error, {}};
    }
    m_w.setSourceMetadata(meta);
    ImportOutcome outcome;
    outcome.warnings = m_warnings.list();
    return outcome;
}

} // namespace nsys

SniffResult NsysSqliteImporter::sniff(const QString &path, const QByteArray &head) const
{
    if (!head.startsWith(QByteArrayLiteral("SQLite format 3\0")))
        return {};
    // The schema may lie beyond the first bytes: ask the database itself.
    SqliteDb db;
    if (!db.openImmutable(path, nullptr))
        return {60, {}}; // let the import say what is wrong with it
    auto st = db.prepare("SELECT name FROM sqlite_master WHERE name IN ('META_DATA_EXPORT', "
                         "'TARGET_INFO_SESSION_START_TIME')");
    if (st.step())
        return {95, {}};
    if (!st.errorString().isEmpty())
        return {60, {}}; // a damaged database: the import reports it

    return {0, QStringLiteral("an SQLite database that is not an Nsight Systems export (no "
                              "META_DATA_EXPORT table)")};
}

ImportOutcome NsysSqliteImporter::import(ImportContext &ctx) const
{
    SqliteDb db;
    QString error;
    if (!db.openImmutable(ctx.path, &error))
        return {ImportOutcome::Status::Failed,
                -1,
                QStringLiteral("cannot open as SQLite: ") + error,
                {}};
    // A file that is not a database fails here, on the first read of its schema.
    auto check = db.prepare("SELECT count(*) FROM sqlite_master");
    if (!check.step())
        return {ImportOutcome::Status::Failed,
                -1,
                QStringLiteral("not a readable SQLite database (%1); expected an "
                               "'nsys export --type sqlite' file")
                    .arg(check.errorString().isEmpty() ? db.lastError() : check.errorString()),
                {}};
    nsys::Session session(ctx, db);
    return session.run();
}

} // namespace gml
