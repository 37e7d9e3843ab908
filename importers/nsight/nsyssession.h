// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the Nsight Systems importer: one import's state (Session), reading the export's
// string and name tables and its tracks (nsystracks.cpp), then its API, GPU, NVTX and sync
// tables (nsysimporter.cpp).

#include "nsysimporter.h"
#include "sqlitedb.h"
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <memory>
#include <optional>
#include <sqlite3.h>
#include <string>
#include <unordered_map>

namespace gml::nsys {

// NVTX_EVENTS.eventType values (ENUM_NSYS_EVENT_TYPE): marks 34, push/pop ranges 59,
// start/end ranges 60, domain creation 75.
constexpr qint64 kNvtxMark = 34;
constexpr qint64 kNvtxStartEnd = 60;

inline qint64 pidOf(qint64 global)
{
    return (global >> 24) & 0xFFFFFF;
}
inline qint64 tidOf(qint64 globalTid)
{
    return globalTid & 0xFFFFFF;
}

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", as Kineto and the Nsight GUI show them.
inline std::string apiName(std::string_view name)
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
                                              "it; not read")
                                   .arg(key));
            it = m_columns.insert(key, kind == QLatin1String("table") ? m_db.columns(table)
                                                                      : QStringList());
        }
        return column ? it->contains(QLatin1String(column)) : !it->isEmpty();
    }
    // The time in column `c` of a row of `table` (its rowid in the last column): a number of
    // ns within the writer's limits, else a warning counted per table and problem, naming the
    // first row, and nothing.
    std::optional<TimeNs> time(const SqliteStatement &st, int c, const char *table,
                               const char *column);
    // [start, end) of a row whose end column may be NULL (an instant), or nothing (warned).
    std::optional<std::pair<TimeNs, TimeNs>> interval(const SqliteStatement &st, const char *table,
                                                      bool openEnd = false);
    qint64 rowId(const SqliteStatement &st) const { return st.int64(st.columnCount() - 1); }
    void rowWarning(const char *table, const QString &problem, qint64 row, const QString &message)
    {
        m_warnings.add(QLatin1String(table) + QLatin1Char(' ') + problem, -1,
                       QStringLiteral("%1 row %2: %3; rows like it were not imported")
                           .arg(QLatin1String(table))
                           .arg(row)
                           .arg(message));
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
            if (!m_strings.count(stringId)) {
                // A reference into StringIds that is not there (a damaged or hand-edited export):
                // named by its id, and said, rather than "?".
                m_warnings.add(
                    QStringLiteral("dangling string"), -1,
                    QStringLiteral(
                        "string id %1 is used by an event but is not in StringIds (the export "
                        "is damaged); such names read 'string ID'")
                        .arg(stringId));
                it =
                    cache.emplace(stringId, m_w.intern("string " + std::to_string(stringId))).first;
                return it->second;
            }
            const std::string_view t = text(stringId);
            it =
                cache.emplace(stringId, transform ? m_w.intern(transform(t)) : m_w.intern(t)).first;
        }
        return it->second;
    }
    TrackId process(qint64 pid);
    TrackId thread(qint64 globalTid);
    TrackId processAux(qint64 pid, const QString &what, TrackKind kind, qint64 sortKey);
    TrackId gpu(qint64 device);
    TrackId stream(qint64 device, qint64 streamId);
    bool readMemory();
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

} // namespace gml::nsys
