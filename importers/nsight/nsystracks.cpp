// SPDX-License-Identifier: GPL-3.0-or-later
// The Nsight Systems importer's names and tracks: the export's string and name tables, and
// the process, thread, stream and per-process tracks made from them.
#include "nsyssession.h"

namespace gml::nsys {

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
        problem =
            QStringLiteral("'%1' holds a blob; expected a time in ns").arg(QLatin1String(column));
        break;
    }
    rowWarning(table, QLatin1String(column) + QString::number(st.columnType(c)), rowId(st),
               problem);
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

TrackId Session::gpu(qint64 device)
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
    return *gpu;
}

TrackId Session::stream(qint64 device, qint64 streamId)
{
    const TrackId parent = gpu(device);
    const qint64 key = (device << 32) | (streamId & 0xFFFFFFFF);
    if (auto it = m_streams.constFind(key); it != m_streams.constEnd())
        return *it;
    TrackSpec spec;
    spec.parent = parent;
    spec.kind = TrackKind::Stream;
    spec.name = QStringLiteral("stream %1").arg(streamId);
    spec.sortKey = streamId;
    spec.pid = QString::number(device);
    spec.tid = QString::number(streamId);
    const TrackId id = m_w.addTrack(spec);
    m_streams.insert(key, id);
    return id;
}

} // namespace gml::nsys
