// SPDX-License-Identifier: GPL-3.0-or-later
// The gml_slice and gml_flow SQLite virtual tables: the chunks read as rows, so `grademl query`
// and every SQL reader see slices and flows as tables.
#include "chunkformat.h"
#include "vtabmodule.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace gml::slicestore {

// --- the gml_slice virtual table ----------------------------------------------------------

namespace {

using namespace vtab;

enum Column {
    ColId,
    ColTrack,
    ColTs,
    ColDur,
    ColName,
    ColCat,
    ColCorrelation,
    ColExternal,
    ColArgs
};
enum Plan { ScanAll = 0, ById = 1, ByTrack = 2 };
// Added to the plan when the statement reads `args`: otherwise the args blobs (most of a
// chunk's bytes) are not read at all.
constexpr int kWithArgs = 4;

struct Cursor : sqlite3_vtab_cursor
{
    sqlite3_stmt *chunks = nullptr;
    int preparedPlan = -1; // the plan `chunks` was prepared for
    bool pending = false;  // `chunks` holds a row not read yet (next track's first chunk)
    TrackId track = 0;
    std::vector<Row> rows;
    // The args blobs of the chunks in `rows` (Row::argsChunk indexes this), read only when the
    // statement uses args; a row's args are decoded when asked for.
    std::vector<std::unique_ptr<ChunkArgs>> args;
    std::string json; // the args text of the current row
    size_t pos = 0;
    size_t end = 0; // rows[pos, end) are the result
    bool withArgs = false;
    // By id: `rows` hold all of chunk `chunk` and rowAt[r] is where its row r is, so the next
    // lookup in the same chunk (a join walks ids in order) reads nothing.
    qint64 chunk = 0;
    std::vector<int> rowAt;

    size_t size() const { return end; }

    ~Cursor() { sqlite3_finalize(chunks); }
};

constexpr char kSliceColumns[] =
    "CREATE TABLE x(id INTEGER, track_id INTEGER, ts INTEGER, dur INTEGER, name_id INTEGER, "
    "cat_id INTEGER, correlation INTEGER, external_id INTEGER, args TEXT)";
constexpr char kFlowColumns[] = "CREATE TABLE x(id INTEGER, source_id INTEGER, kind INTEGER, "
                                "from_slice INTEGER, to_slice INTEGER)";

// ORDER BY terms that the cursor's order (track, ts, dur descending, id) satisfies. With one
// track, terms on track_id are trivially satisfied.
bool orderSatisfied(const sqlite3_index_info *info, bool oneTrack)
{
    static constexpr struct
    {
        int column;
        bool desc;
    } kOrder[] = {{ColTrack, false}, {ColTs, false}, {ColDur, true}, {ColId, false}};
    size_t next = 0;
    for (int i = 0; i < info->nOrderBy; ++i) {
        const auto &o = info->aOrderBy[i];
        const int column = o.iColumn < 0 ? ColId : o.iColumn;
        if (oneTrack && column == ColTrack)
            continue;
        if (oneTrack && next == 0)
            next = 1;
        if (next >= std::size(kOrder) || kOrder[next].column != column ||
            kOrder[next].desc != bool(o.desc))
            return false;
        ++next;
    }
    return true;
}

int bestIndex(sqlite3_vtab *, sqlite3_index_info *info)
{
    int idEq = -1, trackEq = -1;
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto &c = info->aConstraint[i];
        if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ)
            continue;
        if (c.iColumn == ColId || c.iColumn < 0)
            idEq = i;
        else if (c.iColumn == ColTrack)
            trackEq = i;
    }
    if (idEq >= 0) {
        info->idxNum = ById;
        info->aConstraintUsage[idEq].argvIndex = 1;
        info->aConstraintUsage[idEq].omit = 1;
        info->estimatedCost = 20;
        info->estimatedRows = 1;
        info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
        info->orderByConsumed = 1;
    } else if (trackEq >= 0) {
        info->idxNum = ByTrack;
        info->aConstraintUsage[trackEq].argvIndex = 1;
        info->aConstraintUsage[trackEq].omit = 1;
        info->estimatedCost = 2000;
        info->estimatedRows = 10000;
        info->orderByConsumed = orderSatisfied(info, true);
    } else {
        info->idxNum = ScanAll;
        info->estimatedCost = 2e7;
        info->estimatedRows = 1000000;
        info->orderByConsumed = orderSatisfied(info, false);
    }
    if (info->colUsed & (sqlite3_uint64(1) << ColArgs))
        info->idxNum |= kWithArgs;
    return SQLITE_OK;
}

// Appends the chunk under `chunks` (columns id, track_id, data, args) to the cursor's rows.
int readChunk(Cursor *c)
{
    sqlite3_stmt *st = c->chunks;
    const qint64 chunk = sqlite3_column_int64(st, 0);
    const void *data = sqlite3_column_blob(st, 2);
    const int dataSize = sqlite3_column_bytes(st, 2);
    auto malformed = [c, chunk] { return malformedChunk(c->pVtab, "slice", chunk); };
    // Without the args column the blob is not read, and the rows' args offsets go unused.
    qint64 recordsSize = std::numeric_limits<qint64>::max();
    const auto argsChunk = quint32(c->args.size());
    const bool legacy = isLegacyChunk(data, dataSize);
    if (c->withArgs) {
        recordsSize = -1; // no blob: no row may have args
        if (const auto *blob = static_cast<const char *>(sqlite3_column_blob(st, 3))) {
            auto args = std::make_unique<ChunkArgs>();
            if (!args->load(std::string_view(blob, size_t(sqlite3_column_bytes(st, 3))), legacy))
                return malformed();
            recordsSize = qint64(args->tables.records.size());
            c->args.push_back(std::move(args));
        }
    }
    if (!decode(chunk, data, dataSize, recordsSize, argsChunk, c->rows, true))
        return malformed();
    return SQLITE_OK;
}

// Reads every chunk of the next track into the cursor, in (ts, dur descending, id) order.
int loadTrack(Cursor *c)
{
    if (!c->pending) {
        c->pos = c->end; // no more rows (those held stay cached for a lookup by id)
        return SQLITE_OK;
    }
    c->rows.clear();
    c->args.clear();
    c->chunk = 0;
    c->track = sqlite3_column_int64(c->chunks, 1);
    bool sorted = true;
    int rc;
    do {
        const size_t first = c->rows.size();
        if ((rc = readChunk(c)) != SQLITE_OK)
            return rc;
        if (first > 0 && first < c->rows.size() && before(c->rows[first], c->rows[first - 1]))
            sorted = false;
        rc = sqlite3_step(c->chunks);
        c->pending = rc == SQLITE_ROW;
    } while (c->pending && sqlite3_column_int64(c->chunks, 1) == c->track);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return setError(c->pVtab, rc, sqlite3_errmsg(tableOf(c)->db));
    if (!sorted)
        std::sort(c->rows.begin(), c->rows.end(), before);
    c->pos = 0;
    c->end = c->rows.size();
    return SQLITE_OK;
}

// Points the cursor at slice `id`, reading its chunk unless it is the one already held.
int findById(Cursor *c, qint64 id)
{
    const qint64 chunk = id >> kChunkRowBits;
    c->pos = c->end = 0;
    if (chunk != c->chunk || c->chunk == 0) {
        c->rows.clear();
        c->args.clear();
        c->chunk = 0;
        sqlite3_bind_int64(c->chunks, 1, chunk);
        const int rc = sqlite3_step(c->chunks);
        if (rc == SQLITE_DONE)
            return SQLITE_OK; // no such chunk
        if (rc != SQLITE_ROW)
            return setError(c->pVtab, rc, sqlite3_errmsg(tableOf(c)->db));
        c->track = sqlite3_column_int64(c->chunks, 1);
        if (const int read = readChunk(c); read != SQLITE_OK)
            return read;
        c->chunk = chunk;
        c->rowAt.assign(kChunkRows, -1);
        for (size_t i = 0; i < c->rows.size(); ++i)
            c->rowAt[c->rows[i].id & (kChunkRows - 1)] = int(i);
    }
    if (const int at = c->rowAt[id & (kChunkRows - 1)]; at >= 0) {
        c->pos = size_t(at);
        c->end = c->pos + 1;
    }
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor *cur, int idxNum, const char *, int argc, sqlite3_value **argv)
{
    auto *c = static_cast<Cursor *>(cur);
    Table *t = tableOf(cur);
    const int plan = idxNum & ~kWithArgs;
    c->pending = false;
    c->pos = c->end = 0;
    if (c->preparedPlan != idxNum)
        c->chunk = 0; // rows held were read for another plan (or without args)
    c->withArgs = idxNum & kWithArgs;
    const std::string from = std::string("SELECT id, track_id, data, ") +
                             (c->withArgs ? "args" : "NULL") + " FROM \"" + t->schema +
                             "\".slice_chunk";
    if (const int rc = prepareFor(cur->pVtab, c->chunks, c->preparedPlan, idxNum,
                                  from + (plan == ById      ? " WHERE id = ?"
                                          : plan == ByTrack ? " WHERE track_id = ? ORDER BY id"
                                                            : " ORDER BY track_id, id"));
        rc != SQLITE_OK)
        return rc;
    if (plan != ScanAll) {
        if (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_INTEGER)
            return SQLITE_OK; // NULL, text or a fraction matches no integer id: no rows
        const qint64 key = sqlite3_value_int64(argv[0]);
        if (plan == ById)
            return findById(c, key);
        sqlite3_bind_int64(c->chunks, 1, key);
    }
    const int rc = sqlite3_step(c->chunks);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return setError(cur->pVtab, rc, sqlite3_errmsg(t->db));
    c->pending = rc == SQLITE_ROW;
    return loadTrack(c);
}

int column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    auto *c = static_cast<Cursor *>(cur);
    const Row &r = c->rows[c->pos];
    auto optional = [ctx](qint64 v) { resultOrNull(ctx, v, kNull); };
    switch (col) {
    case ColId:
        sqlite3_result_int64(ctx, r.id);
        break;
    case ColTrack:
        sqlite3_result_int64(ctx, c->track);
        break;
    case ColTs:
        sqlite3_result_int64(ctx, r.ts);
        break;
    case ColDur:
        sqlite3_result_int64(ctx, r.dur);
        break;
    case ColName:
        sqlite3_result_int64(ctx, r.name);
        break;
    case ColCat:
        optional(r.cat == 0 ? kNull : r.cat);
        break;
    case ColCorrelation:
        optional(r.correlation);
        break;
    case ColExternal:
        optional(r.externalId);
        break;
    case ColArgs: {
        if (!r.hasArgs || r.argsChunk >= c->args.size()) {
            sqlite3_result_null(ctx);
            break;
        }
        const ChunkArgs &chunkArgs = *c->args[r.argsChunk];
        const ArgsTables &tables = chunkArgs.tables;
        if (chunkArgs.legacy) {
            const std::string_view text = tables.records.substr(r.argsOffset, r.argsSize);
            sqlite3_result_text(ctx, text.data(), int(text.size()), SQLITE_TRANSIENT);
            break;
        }
        c->json.clear();
        if (!appendArgsJson(tables.records.substr(r.argsOffset, r.argsSize), tables, c->json)) {
            const std::string msg = "slice chunk " + std::to_string(r.id >> kChunkRowBits) +
                                    " is malformed (args of slice " + std::to_string(r.id) + ")";
            sqlite3_result_error(ctx, msg.c_str(), -1);
            return SQLITE_CORRUPT;
        }
        sqlite3_result_text(ctx, c->json.data(), int(c->json.size()), SQLITE_TRANSIENT);
        break;
    }
    default:
        sqlite3_result_null(ctx);
    }
    return SQLITE_OK;
}

// --- the gml_flow virtual table -----------------------------------------------------------

enum FlowColumn { FlowId, FlowSource, FlowKind, FlowFrom, FlowTo };
enum FlowPlan { FlowScanAll = 0, FlowById = 1, FlowBySource = 2, FlowByFrom = 3, FlowByTo = 4 };

struct FlowCursor : sqlite3_vtab_cursor
{
    sqlite3_stmt *chunks = nullptr; // id, source_id, data
    int preparedPlan = -1;          // the plan `chunks` was prepared for
    int plan = FlowScanAll;
    qint64 key = 0;
    std::vector<FlowRow> rows;
    size_t pos = 0;

    size_t size() const { return rows.size(); }

    ~FlowCursor() { sqlite3_finalize(chunks); }
};

int flowBestIndex(sqlite3_vtab *, sqlite3_index_info *info)
{
    int use[5] = {-1, -1, -1, -1, -1};
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto &c = info->aConstraint[i];
        if (c.usable && c.op == SQLITE_INDEX_CONSTRAINT_EQ)
            use[c.iColumn < 0 ? FlowId : c.iColumn] = i;
    }
    // Most selective first. A lookup by slice reads every flow of the slice's run, so it is
    // priced well above a lookup by source, which reads one source's flows.
    static constexpr struct
    {
        int column;
        FlowPlan plan;
        double cost;
        double rows;
    } kPlans[] = {
        {FlowId, FlowById, 20, 1},
        {FlowFrom, FlowByFrom, 1e5, 4},
        {FlowTo, FlowByTo, 1e5, 4},
        {FlowSource, FlowBySource, 5e4, 1e5},
    };
    for (const auto &p : kPlans) {
        if (use[p.column] < 0)
            continue;
        info->idxNum = p.plan;
        info->aConstraintUsage[use[p.column]].argvIndex = 1;
        info->aConstraintUsage[use[p.column]].omit = 1;
        info->estimatedCost = p.cost;
        info->estimatedRows = sqlite3_int64(p.rows);
        if (p.plan == FlowById)
            info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
        return SQLITE_OK;
    }
    info->idxNum = FlowScanAll;
    info->estimatedCost = 1e6;
    info->estimatedRows = 1000000;
    return SQLITE_OK;
}

// Reads chunks until one has rows for the plan, or none is left.
int flowLoad(FlowCursor *c)
{
    c->rows.clear();
    c->pos = 0;
    if (!c->chunks)
        return SQLITE_OK;
    const qint64 key = c->key;
    int rc = SQLITE_DONE;
    while (c->rows.empty() && (rc = sqlite3_step(c->chunks)) == SQLITE_ROW) {
        const qint64 chunk = sqlite3_column_int64(c->chunks, 0);
        const qint64 source = sqlite3_column_int64(c->chunks, 1);
        const void *data = sqlite3_column_blob(c->chunks, 2);
        const int size = sqlite3_column_bytes(c->chunks, 2);
        const int plan = c->plan;
        const bool ok =
            decodeFlows(chunk, source, data, size, c->rows, [plan, key](const FlowRow &r) {
                return plan == FlowById     ? r.id == key
                       : plan == FlowByFrom ? r.from == key
                       : plan == FlowByTo   ? r.to == key
                                            : true;
            });
        if (!ok)
            return malformedChunk(c->pVtab, "flow", chunk);
    }
    if (c->rows.empty() && rc != SQLITE_DONE)
        return setError(c->pVtab, rc, sqlite3_errmsg(tableOf(c)->db));
    return SQLITE_OK;
}

int flowFilter(sqlite3_vtab_cursor *cur, int plan, const char *, int argc, sqlite3_value **argv)
{
    auto *c = static_cast<FlowCursor *>(cur);
    Table *t = tableOf(cur);
    c->plan = plan;
    c->rows.clear();
    if (plan != FlowScanAll && (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_INTEGER))
        return SQLITE_OK; // no integer key: no rows
    c->key = plan == FlowScanAll ? 0 : sqlite3_value_int64(argv[0]);
    const std::string s = "\"" + t->schema + "\".";
    std::string sql = "SELECT id, source_id, data FROM " + s + "flow_chunk";
    if (plan == FlowById)
        sql += " WHERE id = ?1";
    else if (plan == FlowBySource)
        sql += " WHERE source_id = ?1 ORDER BY id";
    else if (plan == FlowByFrom || plan == FlowByTo)
        sql += " WHERE source_id IN (SELECT src.id FROM " + s +
               "source src WHERE src.run_id = "
               "(SELECT t.run_id FROM " +
               s + "slice_chunk k JOIN " + s +
               "track t ON t.id = k.track_id "
               "WHERE k.id = ?1)) ORDER BY id";
    else
        sql += " ORDER BY id";
    if (const int rc = prepareFor(cur->pVtab, c->chunks, c->preparedPlan, plan, sql);
        rc != SQLITE_OK)
        return rc;
    if (plan != FlowScanAll)
        sqlite3_bind_int64(c->chunks, 1, plan == FlowBySource ? c->key : c->key >> kChunkRowBits);
    return flowLoad(c);
}

int flowColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    auto *c = static_cast<FlowCursor *>(cur);
    const FlowRow &r = c->rows[c->pos];
    const qint64 values[] = {r.id, r.source, r.kind, r.from, r.to};
    if (col >= 0 && col < int(std::size(values)))
        sqlite3_result_int64(ctx, values[col]);
    else
        sqlite3_result_null(ctx);
    return SQLITE_OK;
}

} // namespace

bool registerModule(sqlite3 *db, QString *error)
{
    static const sqlite3_module slices =
        makeModule<Cursor, kSliceColumns, bestIndex, filter, loadTrack, column>();
    static const sqlite3_module flows =
        makeModule<FlowCursor, kFlowColumns, flowBestIndex, flowFilter, flowLoad, flowColumn>();
    return registerAs(db, "gml_slice", slices, error) && registerAs(db, "gml_flow", flows, error);
}

} // namespace gml::slicestore
