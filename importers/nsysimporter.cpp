// SPDX-License-Identifier: GPL-3.0-or-later
#include "nsysimporter.h"

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

namespace {

// NVTX_EVENTS.eventType values (ENUM_NSYS_EVENT_TYPE): marks 34, push/pop ranges 59,
// start/end ranges 60, domain creation 75.
constexpr qint64 kNvtxMark = 34;
constexpr qint64 kNvtxStartEnd = 60;

qint64 pidOf(qint64 global) { return (global >> 24) & 0xFFFFFF; }
qint64 tidOf(qint64 globalTid) { return globalTid & 0xFFFFFF; }

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", as Kineto and the Nsight GUI show them.
std::string apiName(std::string_view name)
{
    const size_t v = name.rfind("_v");
    if (v != std::string_view::npos && v + 2 < name.size() &&
        name.find_first_not_of("0123456789", v + 2) == std::string_view::npos)
        name = name.substr(0, v);
    return std::string(name);
}

class Session
{
public:
    Session(ImportContext &ctx, SqliteDb &db) : m_ctx(ctx), m_db(db), m_w(*ctx.writer)
    {
        m_budget = kBaseSteps + kStepsPerByte * std::max<qint64>(ctx.fileSize, 0);
        sqlite3_progress_handler(m_db.handle(), kStepsPerCall, &Session::onSteps, this);
    }
    ~Session() { sqlite3_progress_handler(m_db.handle(), 0, nullptr, nullptr); }
    // The shared 2.7 MB export takes about 1 million steps (0.4 per byte): the budget is over
    // a hundred times that, and a few seconds of work at most for a file of a few MB.
    static constexpr qint64 kBaseSteps = 50'000'000;
    static constexpr qint64 kStepsPerByte = 50;
    ImportOutcome run();

private:
    bool fail(const SqliteStatement &st, const char *table)
    {
        if (m_error.isEmpty() && m_overBudget)
            m_error = QStringLiteral("reading %1: stopped after %2 million SQLite steps, the "
                                     "budget for an export of this size (%3 MB); a damaged or "
                                     "hand-made export?")
                          .arg(QLatin1String(table))
                          .arg(m_steps / 1'000'000)
                          .arg(double(m_ctx.fileSize) / 1e6, 0, 'f', 1);
        if (m_error.isEmpty() && !st.errorString().isEmpty())
            m_error = QStringLiteral("reading %1: %2").arg(QLatin1String(table), st.errorString());
        return false;
    }
    // SQLite calls this every kStepsPerCall virtual-machine steps: it bounds what one export
    // may cost and lets a cancel stop a long query.
    static constexpr int kStepsPerCall = 10'000;
    static int onSteps(void *self)
    {
        auto *s = static_cast<Session *>(self);
        s->m_steps += kStepsPerCall;
        if (s->m_steps > s->m_budget) {
            s->m_overBudget = true;
            return 1;
        }
        if (s->m_steps % (kStepsPerCall * 100) == 0 && s->m_ctx.progress &&
            !s->m_ctx.progress(double(s->m_stage) / 8.0))
            return 1;
        return 0;
    }
    // Only tables are read: a view of the same name (a join that could take hours) is
    // reported and left out.
    bool has(const char *table, const char *column = nullptr)
    {
        const QString key = QLatin1String(table);
        auto it = m_columns.find(key);
        if (it == m_columns.end()) {
            auto type = m_db.prepare("SELECT type FROM sqlite_master WHERE name = ?");
            type.bind(1, std::string_view(table));
            const QString kind = type.step() ? type.text(0) : QString();
            if (kind == QLatin1String("view"))
                m_warnings.add(QStringLiteral("view ") + key, -1,
                               QStringLiteral("%1 is a view, not a table as Nsight Systems writes "
                                              "it; not read").arg(key));
            it = m_columns.insert(key, kind == QLatin1String("table") ? m_db.columns(table)
                                                                      : QStringList());
        }
        return column ? it->contains(QLatin1String(column)) : !it->isEmpty();
    }
    // The time in column `c` of a row of `table` (its rowid in the last column): a number of
    // ns within the writer's limits, else a warning counted per table and problem, naming the
    // first row, and nothing.
    std::optional<TimeNs> time(const SqliteStatement &st, int c, const char *table, const char *column);
    // [start, end) of a row whose end column may be NULL (an instant), or nothing (warned).
    std::optional<std::pair<TimeNs, TimeNs>> interval(const SqliteStatement &st, const char *table,
                                                      bool openEnd = false);
    qint64 rowId(const SqliteStatement &st) const { return st.int64(st.columnCount() - 1); }
    void rowWarning(const char *table, const QString &problem, qint64 row, const QString &message)
    {
        m_warnings.add(QLatin1String(table) + QLatin1Char(' ') + problem, -1,
                       QStringLiteral("%1 row %2: %3; rows like it were not imported")
                           .arg(QLatin1String(table)).arg(row).arg(message));
    }
    // `column` when the table has it, else `fallback` (an SQL expression).
    std::string col(const char *table, const char *column, const char *fallback = "NULL")
    {
        return has(table, column) ? std::string(column) : std::string(fallback);
    }
    bool progress()
    {
        ++m_stage;
        return !m_ctx.progress || m_ctx.progress(double(m_stage) / 8.0);
    }

    void readStrings();
    void readNames();
    std::string_view text(qint64 stringId) const
    {
        auto it = m_strings.find(stringId);
        return it != m_strings.end() ? std::string_view(it->second) : std::string_view("?");
    }
    // The interned name of a StringIds entry, `transform`ed (e.g. apiName) on first use.
    StringId name(qint64 stringId, std::string (*transform)(std::string_view) = nullptr)
    {
        auto &cache = transform ? m_apiNames : m_names;
        auto it = cache.find(stringId);
        if (it == cache.end()) {
            const std::string_view t = text(stringId);
            it = cache.emplace(stringId, transform ? m_w.intern(transform(t)) : m_w.intern(t)).first;
        }
        return it->second;
    }
    TrackId process(qint64 pid);
    TrackId thread(qint64 globalTid);
    TrackId processAux(qint64 pid, const QString &what, TrackKind kind, qint64 sortKey);
    TrackId stream(qint64 device, qint64 streamId);
    bool readApi(const char *table, const char *category);
    bool readGpu(const char *table, const char *category);
    bool readNvtx();
    bool readSync();

    ImportContext &m_ctx;
    SqliteDb &m_db;
    TraceWriter &m_w;
    WarningLog m_warnings;
    QString m_error;
    int m_stage = 0;
    QHash<QString, QStringList> m_columns;
    std::unordered_map<qint64, std::string> m_strings;
    std::unordered_map<qint64, StringId> m_names, m_apiNames;
    QHash<qint64, QString> m_processNames, m_threadNames, m_gpuNames;
    QHash<qint64, TrackId> m_processes, m_threads, m_gpus, m_streams;
    QHash<QString, TrackId> m_aux;
    std::unordered_map<quint64, SliceId> m_launches; // (pid << 32 | correlationId) -> API call
    qint64 m_unmatched = 0;
    TimeNs m_lastTime = 0;
    qint64 m_steps = 0;
    qint64 m_budget = 0;
    bool m_overBudget = false;
};

void Session::readStrings()
{
    auto st = m_db.prepare("SELECT id, value FROM StringIds");
    while (st.step())
        m_strings.emplace(st.int64(0), std::string(st.textView(1)));
}

void Session::readNames()
{
    if (has("PROCESSES", "pid") && has("PROCESSES", "name")) {
        auto st = m_db.prepare("SELECT pid, name FROM PROCESSES");
        while (st.step())
            m_processNames.insert(st.int64(0), st.text(1));
    }
    if (has("ThreadNames", "nameId") && has("ThreadNames", "globalTid")) {
        auto st = m_db.prepare("SELECT globalTid, nameId FROM ThreadNames");
        while (st.step()) {
            auto it = m_strings.find(st.int64(1));
            if (it != m_strings.end())
                m_threadNames.insert(st.int64(0), QString::fromStdString(it->second));
        }
    }
    // CUDA device id -> GPU model name.
    if (has("TARGET_INFO_GPU", "name") && has("TARGET_INFO_GPU", "id")) {
        QHash<qint64, QString> byGpu;
        auto st = m_db.prepare("SELECT id, name FROM TARGET_INFO_GPU");
        while (st.step())
            byGpu.insert(st.int64(0), st.text(1));
        if (has("TARGET_INFO_CUDA_DEVICE", "cudaId") && has("TARGET_INFO_CUDA_DEVICE", "gpuId")) {
            auto d = m_db.prepare("SELECT cudaId, gpuId FROM TARGET_INFO_CUDA_DEVICE");
            while (d.step())
                if (byGpu.contains(d.int64(1)))
                    m_gpuNames.insert(d.int64(0), byGpu.value(d.int64(1)));
        } else {
            m_gpuNames = byGpu;
        }
    }
}

std::optional<TimeNs> Session::time(const SqliteStatement &st, int c, const char *table,
                                    const char *column)
{
    QString problem;
    auto beyond = [&](const QString &value) {
        return QStringLiteral("'%1' is %2 ns, beyond the limit of ±%3 ns")
            .arg(QLatin1String(column), value)
            .arg(kMaxAbsTimeNs);
    };
    switch (st.columnType(c)) {
    case SQLITE_INTEGER: {
        const TimeNs t = st.int64(c);
        if (t >= -kMaxAbsTimeNs && t <= kMaxAbsTimeNs)
            return t;
        problem = beyond(QString::number(t));
        break;
    }
    case SQLITE_FLOAT: {
        const double t = st.real(c);
        if (std::isfinite(t) && std::abs(t) <= double(kMaxAbsTimeNs))
            return TimeNs(std::llround(t));
        problem = beyond(QString::number(t));
        break;
    }
    case SQLITE_NULL:
        problem = QStringLiteral("'%1' is NULL; expected a time in ns").arg(QLatin1String(column));
        break;
    case SQLITE_TEXT:
        problem = QStringLiteral("'%1' holds text ('%2'); expected a time in ns")
                      .arg(QLatin1String(column), st.text(c).left(40));
        break;
    default:
        problem = QStringLiteral("'%1' holds a blob; expected a time in ns").arg(QLatin1String(column));
        break;
    }
    rowWarning(table, QLatin1String(column) + QString::number(st.columnType(c)), rowId(st), problem);
    return std::nullopt;
}

std::optional<std::pair<TimeNs, TimeNs>> Session::interval(const SqliteStatement &st,
                                                           const char *table, bool openEnd)
{
    const auto start = time(st, 0, table, "start");
    if (!start)
        return std::nullopt;
    if (st.isNull(1))
        return openEnd ? std::make_pair(*start, kMaxAbsTimeNs) : std::make_pair(*start, *start);
    const auto end = time(st, 1, table, "end");
    if (!end)
        return std::nullopt;
    if (*end < *start) {
        rowWarning(table, QStringLiteral("end<start"), rowId(st),
                   QStringLiteral("'end' (%1 ns) is before 'start' (%2 ns)").arg(*end).arg(*start));
        return std::nullopt;
    }
    if (const QString problem = timeRangeProblem(*start, *end - *start); !problem.isEmpty()) {
        rowWarning(table, QStringLiteral("range"), rowId(st), problem);
        return std::nullopt;
    }
    return std::make_pair(*start, *end);
}

TrackId Session::process(qint64 pid)
{
    if (auto it = m_processes.constFind(pid); it != m_processes.constEnd())
        return *it;
    TrackSpec spec;
    spec.kind = TrackKind::Process;
    const QString name = m_processNames.value(pid);
    spec.name = name.isEmpty() ? QStringLiteral("pid %1").arg(pid)
                               : QStringLiteral("%1 (pid %2)").arg(name).arg(pid);
    spec.sortKey = pid;
    spec.pid = QString::number(pid);
    const TrackId id = m_w.addTrack(spec);
    m_processes.insert(pid, id);
    return id;
}

TrackId Session::thread(qint64 globalTid)
{
    if (auto it = m_threads.constFind(globalTid); it != m_threads.constEnd())
        return *it;
    const qint64 pid = pidOf(globalTid), tid = tidOf(globalTid);
    TrackSpec spec;
    spec.parent = process(pid);
    spec.kind = TrackKind::Thread;
    const QString name = m_threadNames.value(globalTid);
    spec.name = name.isEmpty() ? QStringLiteral("thread %1").arg(tid)
                               : QStringLiteral("thread %1 (%2)").arg(tid).arg(name);
    spec.sortKey = tid == pid ? 0 : tid; // the main thread first
    spec.pid = QString::number(pid);
    spec.tid = QString::number(tid);
    const TrackId id = m_w.addTrack(spec);
    m_threads.insert(globalTid, id);
    return id;
}

TrackId Session::processAux(qint64 pid, const QString &what, TrackKind kind, qint64 sortKey)
{
    const QString key = QString::number(pid) + QLatin1Char('\x1f') + what;
    if (auto it = m_aux.constFind(key); it != m_aux.constEnd())
        return *it;
    TrackSpec spec;
    spec.parent = process(pid);
    spec.kind = kind;
    spec.name = what;
    spec.sortKey = sortKey;
    spec.pid = QString::number(pid);
    const TrackId id = m_w.addTrack(spec);
    m_aux.insert(key, id);
    return id;
}

TrackId Session::stream(qint64 device, qint64 streamId)
{
    auto gpu = m_gpus.constFind(device);
    if (gpu == m_gpus.constEnd()) {
        TrackSpec spec;
        spec.kind = TrackKind::Gpu;
        const QString model = m_gpuNames.value(device);
        spec.name = model.isEmpty() ? QStringLiteral("GPU %1").arg(device)
                                    : QStringLiteral("GPU %1 · %2").arg(device).arg(model);
        spec.sortKey = 1'000'000 + device;
        spec.pid = QString::number(device);
        gpu = m_gpus.insert(device, m_w.addTrack(spec));
    }
    const qint64 key = (device << 32) | (streamId & 0xFFFFFFFF);
    if (auto it = m_streams.constFind(key); it != m_streams.constEnd())
        return *it;
    TrackSpec spec;
    spec.parent = *gpu;
    spec.kind = TrackKind::Stream;
    spec.name = QStringLiteral("stream %1").arg(streamId);
    spec.sortKey = streamId;
    spec.pid = QString::number(device);
    spec.tid = QString::number(streamId);
    const TrackId id = m_w.addTrack(spec);
    m_streams.insert(key, id);
    return id;
}

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
               col(table, "gridX") + ", " + col(table, "gridY") + ", " + col(table, "gridZ") + ", " +
               col(table, "blockX") + ", " + col(table, "blockY") + ", " + col(table, "blockZ") + ", " +
               col(table, "registersPerThread") + ", " + col(table, "staticSharedMemory", "0") + " + " +
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
    static const QHash<qint64, QString> shortKinds = {{1, QStringLiteral("HtoD")}, {2, QStringLiteral("DtoH")},
                                                      {8, QStringLiteral("DtoD")}, {9, QStringLiteral("HtoH")},
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
                args.insert(QStringLiteral("grid"), QJsonArray{st.int64(8), st.int64(9), st.int64(10)});
            if (!st.isNull(11))
                args.insert(QStringLiteral("block"), QJsonArray{st.int64(11), st.int64(12), st.int64(13)});
            if (!st.isNull(14))
                args.insert(QStringLiteral("registers per thread"), st.int64(14));
            if (!st.isNull(15))
                args.insert(QStringLiteral("shared memory"), st.int64(15));
            if (!st.isNull(16) && st.int64(16) != 0)
                args.insert(QStringLiteral("CUDA graph id"), st.int64(16));
        } else if (memcpy) {
            const qint64 bytes = st.int64(6);
            const qint64 kind = st.int64(7);
            const QString shortKind = shortKinds.value(kind, copyKinds.value(kind, QStringLiteral("Unknown")));
            QString label = QStringLiteral("Memcpy ") + shortKind;
            if (!st.isNull(8) && !st.isNull(9) && memKinds.contains(st.int64(8)))
                label += QStringLiteral(" (%1 -> %2)").arg(memKinds.value(st.int64(8)), memKinds.value(st.int64(9)));
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
        const SliceId id = m_w.addSlice(stream(device, streamId), start, dur, name, cat, corr, kNoId,
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
    auto st = m_db.prepare(sql.substr(0, sql.find(" FROM ")) + ", e.rowid" + sql.substr(sql.find(" FROM ")));
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
                     start, end - start, labels.value(st.int64(5), fallback), cat,
                     st.int64(4), kNoId, std::string_view(json.constData(), size_t(json.size())));
    }
    return st.errorString().isEmpty() || fail(st, table);
}

ImportOutcome Session::run()
{
    if (!m_db.hasTable("META_DATA_EXPORT"))
        return {ImportOutcome::Status::Failed, -1,
                QStringLiteral("an SQLite database without a META_DATA_EXPORT table: expected an "
                               "'nsys export --type sqlite' file"),
                {}};
    QJsonObject meta;
    {
        auto st = m_db.prepare("SELECT name, value FROM META_DATA_EXPORT");
        while (st.step()) {
            const QString key = st.text(0);
            if (key.startsWith(QLatin1String("EXPORT_SCHEMA_VERSION")) ||
                key == QLatin1String("EXPORT_PRODUCT_VERSION") || key == QLatin1String("EXPORT_HOST") ||
                key.startsWith(QLatin1String("DERIVED_")))
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
    if (!readNvtx() || !readSync())
        return {ImportOutcome::Status::Failed, -1, m_error, {}};
    if (m_unmatched > 0)
        m_warnings.add(QStringLiteral("unmatched"), -1,
                       QStringLiteral("%1 GPU activities have no CUDA API call with their "
                                      "correlationId in the export (the capture or the export "
                                      "window began after the launch); no launch link for them")
                           .arg(m_unmatched));
    // Tables with data this importer does not read, so nobody thinks they were.
    static const QSet<QString> read = {
        QStringLiteral("CUPTI_ACTIVITY_KIND_RUNTIME"), QStringLiteral("CUPTI_ACTIVITY_KIND_DRIVER"),
        QStringLiteral("CUPTI_ACTIVITY_KIND_KERNEL"), QStringLiteral("CUPTI_ACTIVITY_KIND_MEMCPY"),
        QStringLiteral("CUPTI_ACTIVITY_KIND_MEMSET"), QStringLiteral("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"),
        QStringLiteral("NVTX_EVENTS")};
    QJsonArray notRead;
    auto tables = m_db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND "
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

} // namespace

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
        return {ImportOutcome::Status::Failed, -1, QStringLiteral("cannot open as SQLite: ") + error, {}};
    // A file that is not a database fails here, on the first read of its schema.
    auto check = db.prepare("SELECT count(*) FROM sqlite_master");
    if (!check.step())
        return {ImportOutcome::Status::Failed, -1,
                QStringLiteral("not a readable SQLite database (%1); expected an "
                               "'nsys export --type sqlite' file")
                    .arg(check.errorString().isEmpty() ? db.lastError() : check.errorString()),
                {}};
    Session session(ctx, db);
    return session.run();
}

} // namespace gml
