// SPDX-License-Identifier: GPL-3.0-or-later
// The gml_counter SQLite virtual table: counter chunks read as the rows of the `counter` table
// they replaced (counterstore.h), so `grademl query`, the views and every SQL reader see the
// samples as before.
#include "counterstore.h"
#include "vtabmodule.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace gml::counterstore {

namespace {

using namespace vtab;

enum Column { ColTrack, ColTs, ColValue, ColStep };
// idxNum: the plan's bits, each adding one argument in this order.
constexpr int kByTrack = 1; // track_id = ?
constexpr int kFrom = 2;    // ts >, >= ? (the chunks ending before are skipped)
constexpr int kTo = 4;      // ts <, <= ?
constexpr int kAt = 8;      // ts = ? (both of the above)

constexpr char kColumns[] =
    "CREATE TABLE x(track_id INTEGER, ts INTEGER, value REAL, step INTEGER)";

struct ChunkInfo
{
    qint64 id = 0;
    TrackId track = 0;
    TimeNs minTs = 0;
    TimeNs maxTs = 0;
};

struct CounterRow
{
    TimeNs ts = 0;
    double value = 0;
    qint64 step = kNoStep;
    qint64 id = 0; // the rowid: chunk << kChunkRowBits | place in the chunk
};

struct Cursor : sqlite3_vtab_cursor
{
    sqlite3_stmt *chunks = nullptr; // the plan's chunks: id, track_id, min_ts, max_ts
    int preparedPlan = -1;
    sqlite3_stmt *blob = nullptr; // one chunk's data by id
    std::vector<ChunkInfo> infos; // the chunks the plan reads, by track then id
    size_t nextChunk = 0;         // the next of `infos` to read
    size_t trackEnd = 0;          // where the current track's chunks end in `infos`
    bool streaming = false;       // the track's chunks follow one another in time: one at a time
    TrackId track = 0;
    TimeNs from = std::numeric_limits<TimeNs>::min(); // rows outside [from, to] are skipped
    TimeNs to = std::numeric_limits<TimeNs>::max();
    std::vector<Sample> samples; // a chunk decoded
    std::vector<CounterRow> rows;
    size_t pos = 0;

    size_t size() const { return rows.size(); }

    ~Cursor()
    {
        sqlite3_finalize(chunks);
        sqlite3_finalize(blob);
    }
};

// ORDER BY terms that the cursor's order (track, ts, rowid) satisfies. With one track, terms
// on track_id are trivially satisfied.
bool orderSatisfied(const sqlite3_index_info *info, bool oneTrack)
{
    constexpr int kRowid = -1;
    static constexpr int kOrder[] = {ColTrack, ColTs, kRowid};
    size_t next = 0;
    for (int i = 0; i < info->nOrderBy; ++i) {
        const auto &o = info->aOrderBy[i];
        if (o.desc)
            return false;
        if (oneTrack && o.iColumn == ColTrack)
            continue;
        if (oneTrack && next == 0)
            next = 1;
        if (next >= std::size(kOrder) || kOrder[next] != (o.iColumn < 0 ? kRowid : o.iColumn))
            return false;
        ++next;
    }
    return true;
}

int bestIndex(sqlite3_vtab *, sqlite3_index_info *info)
{
    int track = -1, from = -1, to = -1, at = -1;
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto &c = info->aConstraint[i];
        if (!c.usable)
            continue;
        if (c.iColumn == ColTrack && c.op == SQLITE_INDEX_CONSTRAINT_EQ)
            track = i;
        else if (c.iColumn == ColTs && c.op == SQLITE_INDEX_CONSTRAINT_EQ)
            at = i;
        else if (c.iColumn == ColTs &&
                 (c.op == SQLITE_INDEX_CONSTRAINT_GT || c.op == SQLITE_INDEX_CONSTRAINT_GE))
            from = i;
        else if (c.iColumn == ColTs &&
                 (c.op == SQLITE_INDEX_CONSTRAINT_LT || c.op == SQLITE_INDEX_CONSTRAINT_LE))
            to = i;
    }
    if (at >= 0)
        from = to = -1;
    int plan = 0, argument = 0;
    // The time constraints only skip chunks; SQLite still checks each row against them (not
    // omitted), so a bound that is not an integer can be widened to one.
    auto use = [&](int constraint, int bit, bool omit) {
        if (constraint < 0)
            return;
        plan |= bit;
        info->aConstraintUsage[constraint].argvIndex = ++argument;
        info->aConstraintUsage[constraint].omit = omit;
    };
    use(track, kByTrack, true);
    use(from, kFrom, false);
    use(to, kTo, false);
    use(at, kAt, false);
    const bool bounded = plan & (kFrom | kTo | kAt);
    info->idxNum = plan;
    info->estimatedCost = (plan & kByTrack ? 2000 : 2e7) / (bounded ? 10 : 1);
    info->estimatedRows = (plan & kByTrack ? 10000 : 1000000) / (bounded ? 10 : 1);
    info->orderByConsumed = orderSatisfied(info, plan & kByTrack);
    return SQLITE_OK;
}

// The integer bound that keeps every row SQLite's own comparison with `v` could keep: none
// (nullopt) for a value that is not a number.
std::optional<TimeNs> bound(sqlite3_value *v, bool lower)
{
    if (sqlite3_value_type(v) == SQLITE_INTEGER)
        return sqlite3_value_int64(v);
    if (sqlite3_value_type(v) != SQLITE_FLOAT)
        return std::nullopt;
    const double d =
        lower ? std::floor(sqlite3_value_double(v)) : std::ceil(sqlite3_value_double(v));
    if (!(d > -9.2e18 && d < 9.2e18))
        return std::nullopt;
    return TimeNs(d);
}

// Appends the rows of infos[i] within [from, to] to the cursor's rows.
int readChunk(Cursor *c, size_t i)
{
    const ChunkInfo &info = c->infos[i];
    sqlite3_reset(c->blob);
    sqlite3_bind_int64(c->blob, 1, info.id);
    const int rc = sqlite3_step(c->blob);
    if (rc == SQLITE_DONE)
        return SQLITE_OK; // deleted since the plan read its chunks
    if (rc != SQLITE_ROW)
        return setError(c->pVtab, rc, sqlite3_errmsg(tableOf(c)->db));
    const auto *data = static_cast<const char *>(sqlite3_column_blob(c->blob, 0));
    c->samples.clear();
    if (!decode(std::string_view(data, size_t(sqlite3_column_bytes(c->blob, 0))), c->samples))
        return malformedChunk(c->pVtab, "counter", info.id);
    for (size_t j = 0; j < c->samples.size(); ++j) {
        const Sample &s = c->samples[j];
        if (s.ts >= c->from && s.ts <= c->to)
            c->rows.push_back({s.ts, s.value, s.step, (info.id << kChunkRowBits) | qint64(j)});
    }
    return SQLITE_OK;
}

// Fills the cursor's rows with the next rows in (track, ts, rowid) order: the next chunk of a
// track whose chunks follow one another in time, or else all of the next track's chunks,
// sorted. No rows at the end.
int load(Cursor *c)
{
    c->rows.clear();
    c->pos = 0;
    while (c->rows.empty()) {
        if (c->streaming && c->nextChunk < c->trackEnd) {
            if (const int rc = readChunk(c, c->nextChunk++); rc != SQLITE_OK)
                return rc;
            continue;
        }
        if (c->nextChunk >= c->infos.size())
            return SQLITE_OK;
        const size_t first = c->nextChunk;
        c->track = c->infos[first].track;
        size_t end = first + 1;
        bool inTime = true;
        for (; end < c->infos.size() && c->infos[end].track == c->track; ++end)
            inTime = inTime && c->infos[end].minTs >= c->infos[end - 1].maxTs;
        c->trackEnd = end;
        c->streaming = inTime;
        if (inTime)
            continue;
        for (size_t i = first; i < end; ++i)
            if (const int rc = readChunk(c, i); rc != SQLITE_OK)
                return rc;
        c->nextChunk = end;
        std::sort(c->rows.begin(), c->rows.end(), [](const CounterRow &a, const CounterRow &b) {
            return a.ts != b.ts ? a.ts < b.ts : a.id < b.id;
        });
    }
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor *cur, int plan, const char *, int argc, sqlite3_value **argv)
{
    auto *c = static_cast<Cursor *>(cur);
    Table *t = tableOf(cur);
    c->infos.clear();
    c->rows.clear();
    c->pos = 0;
    c->nextChunk = c->trackEnd = 0;
    c->streaming = false;
    c->from = std::numeric_limits<TimeNs>::min();
    c->to = std::numeric_limits<TimeNs>::max();
    const std::string table = "\"" + t->schema + "\".counter_chunk";
    if (!c->blob &&
        sqlite3_prepare_v2(t->db, ("SELECT data FROM " + table + " WHERE id = ?").c_str(), -1,
                           &c->blob, nullptr) != SQLITE_OK)
        return setError(cur->pVtab, SQLITE_ERROR, sqlite3_errmsg(t->db));
    int argument = 0;
    std::optional<TrackId> track;
    if (plan & kByTrack) {
        sqlite3_value *v = argument < argc ? argv[argument++] : nullptr;
        if (!v || sqlite3_value_type(v) != SQLITE_INTEGER)
            return SQLITE_OK; // NULL, text or a fraction matches no track id: no rows
        track = sqlite3_value_int64(v);
    }
    auto narrow = [&](bool lower, bool upper) {
        sqlite3_value *v = argument < argc ? argv[argument++] : nullptr;
        if (!v)
            return;
        if (lower)
            if (const auto b = bound(v, true))
                c->from = *b;
        if (upper)
            if (const auto b = bound(v, false))
                c->to = *b;
    };
    if (plan & kFrom)
        narrow(true, false);
    if (plan & kTo)
        narrow(false, true);
    if (plan & kAt)
        narrow(true, true);
    const std::string sql = "SELECT id, track_id, min_ts, max_ts FROM " + table +
                            (track ? " WHERE track_id = ?1 AND max_ts >= ?2 AND min_ts <= ?3 "
                                     "ORDER BY id"
                                   : " WHERE max_ts >= ?2 AND min_ts <= ?3 ORDER BY track_id, id");
    if (const int rc = prepareFor(cur->pVtab, c->chunks, c->preparedPlan, track ? 1 : 0, sql);
        rc != SQLITE_OK)
        return rc;
    if (track)
        sqlite3_bind_int64(c->chunks, 1, *track);
    sqlite3_bind_int64(c->chunks, 2, c->from);
    sqlite3_bind_int64(c->chunks, 3, c->to);
    int rc;
    while ((rc = sqlite3_step(c->chunks)) == SQLITE_ROW)
        c->infos.push_back({sqlite3_column_int64(c->chunks, 0), sqlite3_column_int64(c->chunks, 1),
                            sqlite3_column_int64(c->chunks, 2),
                            sqlite3_column_int64(c->chunks, 3)});
    if (rc != SQLITE_DONE)
        return setError(cur->pVtab, rc, sqlite3_errmsg(t->db));
    return load(c);
}

int column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    auto *c = static_cast<Cursor *>(cur);
    const CounterRow &r = c->rows[c->pos];
    switch (col) {
    case ColTrack:
        sqlite3_result_int64(ctx, c->track);
        break;
    case ColTs:
        sqlite3_result_int64(ctx, r.ts);
        break;
    case ColValue:
        sqlite3_result_double(ctx, r.value);
        break;
    case ColStep:
        resultOrNull(ctx, r.step, kNoStep);
        break;
    default:
        sqlite3_result_null(ctx);
    }
    return SQLITE_OK;
}

} // namespace

bool registerModule(sqlite3 *db, QString *error)
{
    static const sqlite3_module counters =
        makeModule<Cursor, kColumns, bestIndex, filter, load, column>();
    return registerAs(db, "gml_counter", counters, error);
}

} // namespace gml::counterstore
