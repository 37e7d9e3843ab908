// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the project's SQLite virtual tables (gml_slice and gml_flow in slicevtab.cpp, gml_counter
// in countervtab.cpp) share: the table and its connection, the cursor's life and walk, a
// statement prepared once per plan, and the module made of a cursor type's functions. A cursor
// type C has `rows` (each with an `id`, the rowid), `pos` and `size()`. Internal to the store.

#include <QString>

#include <sqlite3.h>

#include <string>

namespace gml::vtab {

struct Table : sqlite3_vtab
{
    sqlite3 *db = nullptr;
    std::string schema; // the database the table is in ("main", an attached shard's name)
};

inline Table *tableOf(sqlite3_vtab_cursor *c)
{
    return static_cast<Table *>(c->pVtab);
}

inline int setError(sqlite3_vtab *vt, int rc, const char *message)
{
    sqlite3_free(vt->zErrMsg);
    vt->zErrMsg = sqlite3_mprintf("%s", message);
    return rc;
}

// SQLITE_CORRUPT, the table's error naming the damaged chunk ("<kind> chunk N is malformed").
inline int malformedChunk(sqlite3_vtab *vt, const char *kind, long long chunk)
{
    sqlite3_free(vt->zErrMsg);
    vt->zErrMsg = sqlite3_mprintf("%s chunk %lld is malformed", kind, chunk);
    return SQLITE_CORRUPT;
}

// An integer column that `none` (the chunks' null) leaves NULL.
inline void resultOrNull(sqlite3_context *ctx, long long v, long long none)
{
    if (v == none)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_int64(ctx, v);
}

template <const char *Columns>
int connect(sqlite3 *db, void *, int, const char *const *argv, sqlite3_vtab **out, char **)
{
    const int rc = sqlite3_declare_vtab(db, Columns);
    if (rc != SQLITE_OK)
        return rc;
    auto *t = new Table;
    *static_cast<sqlite3_vtab *>(t) = {};
    t->db = db;
    t->schema = argv[1];
    *out = t;
    return SQLITE_OK;
}

inline int disconnect(sqlite3_vtab *vt)
{
    delete static_cast<Table *>(vt);
    return SQLITE_OK;
}

template <typename C> int openCursor(sqlite3_vtab *, sqlite3_vtab_cursor **out)
{
    auto *c = new C;
    *static_cast<sqlite3_vtab_cursor *>(c) = {};
    *out = c;
    return SQLITE_OK;
}

template <typename C> int closeCursor(sqlite3_vtab_cursor *cur)
{
    delete static_cast<C *>(cur);
    return SQLITE_OK;
}

// Moves to the next row; `load` fetches the next batch when the current one is used up, and
// leaves no rows at the end.
template <typename C, int (*load)(C *)> int next(sqlite3_vtab_cursor *cur)
{
    auto *c = static_cast<C *>(cur);
    if (++c->pos < c->size())
        return SQLITE_OK;
    return load(c);
}

template <typename C> int eof(sqlite3_vtab_cursor *cur)
{
    auto *c = static_cast<C *>(cur);
    return c->pos >= c->size();
}

template <typename C> int rowid(sqlite3_vtab_cursor *cur, sqlite_int64 *out)
{
    auto *c = static_cast<C *>(cur);
    *out = c->rows[c->pos].id;
    return SQLITE_OK;
}

// Prepares `sql` into `stmt`, or keeps the statement already there for the same plan: inside a
// join, a cursor is filtered once per outer row.
inline int prepareFor(sqlite3_vtab *vt, sqlite3_stmt *&stmt, int &preparedPlan, int plan,
                      const std::string &sql)
{
    Table *t = static_cast<Table *>(vt);
    if (stmt && preparedPlan == plan) {
        sqlite3_reset(stmt);
        return SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    stmt = nullptr;
    preparedPlan = plan;
    if (sqlite3_prepare_v2(t->db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
        return setError(vt, SQLITE_ERROR, sqlite3_errmsg(t->db));
    return SQLITE_OK;
}

// A read-only module (no xUpdate: writing to the table fails) of cursor type C.
template <typename C, const char *Columns, auto bestIndex, auto filter, int (*load)(C *),
          auto column>
sqlite3_module makeModule()
{
    sqlite3_module m{};
    m.iVersion = 1;
    m.xCreate = connect<Columns>;
    m.xConnect = connect<Columns>;
    m.xBestIndex = bestIndex;
    m.xDisconnect = disconnect;
    m.xDestroy = disconnect;
    m.xOpen = openCursor<C>;
    m.xClose = closeCursor<C>;
    m.xFilter = filter;
    m.xNext = next<C, load>;
    m.xEof = eof<C>;
    m.xColumn = column;
    m.xRowid = rowid<C>;
    return m;
}

// Registers `module` as `name` on `db`; false (and `error`) when SQLite refuses.
inline bool registerAs(sqlite3 *db, const char *name, const sqlite3_module &module, QString *error)
{
    const int rc = sqlite3_create_module_v2(db, name, &module, nullptr, nullptr);
    if (rc != SQLITE_OK && error)
        *error = QString::fromUtf8(sqlite3_errmsg(db));
    return rc == SQLITE_OK;
}

} // namespace gml::vtab
