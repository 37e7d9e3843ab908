// SPDX-License-Identifier: GPL-3.0-or-later
#include "sideproject.h"

#include "tracewriter.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <string>
#include <vector>

namespace gml {

bool attachSide(Project &into, const QString &path, QString *error)
{
    auto st = into.db().prepare("ATTACH DATABASE ? AS side");
    st.bind(1, path);
    if (st.exec())
        return true;
    if (error)
        *error = QStringLiteral("cannot read the side project %1: %2").arg(path, st.errorString());
    return false;
}

void detachSide(Project &into)
{
    (void)into.db().exec("DETACH DATABASE side;");
}

// The columns of `table` in the side project, as a list, with `replace` giving the expression
// for some of them (the rest are copied as they are). Columns named in `drop` are left out
// (the project assigns them).
static std::string columns(SqliteDb &db, const char *table,
                           const std::vector<std::pair<std::string, std::string>> &replace,
                           const std::vector<std::string> &drop, std::string *names)
{
    auto info = db.prepare(std::string("PRAGMA side.table_info(") + table + ")");
    std::string select;
    while (info.step()) {
        const std::string name(info.textView(1));
        if (std::find(drop.begin(), drop.end(), name) != drop.end())
            continue;
        std::string expr = name;
        for (const auto &[column, e] : replace)
            if (column == name)
                expr = e;
        if (!select.empty()) {
            select += ", ";
            *names += ", ";
        }
        select += expr;
        *names += name;
    }
    return select;
}

bool copySideSource(Project &into, SourceId from, RunId run, SourceId to, bool *conflict,
                    QString *error)
{
    auto &db = into.db();
    *conflict = false;
    auto fail = [&](const QString &what) {
        if (error)
            *error = what;
        return false;
    };
    // Ids another program took since the job started: the copy would not mean the same.
    if (db.scalar("SELECT EXISTS (SELECT 1 FROM side.slice_chunk s JOIN main.slice_chunk m "
                  "ON m.id = s.id)") != 0) {
        *conflict = true;
        return fail(QStringLiteral("slice ids taken meanwhile"));
    }
    if (!db.exec("INSERT OR IGNORE INTO main.string(id, value) SELECT id, value FROM side.string;",
                 error))
        return false;
    if (db.scalar("SELECT EXISTS (SELECT 1 FROM side.string s LEFT JOIN main.string m "
                  "ON m.id = s.id WHERE m.value IS NOT s.value)") != 0) {
        *conflict = true;
        return fail(QStringLiteral("string ids taken meanwhile"));
    }
    const qint64 offset = db.scalar("SELECT coalesce(max(id), 0) FROM main.track");
    const std::string off = std::to_string(offset);
    struct Copy
    {
        const char *table;
        std::vector<std::pair<std::string, std::string>> replace;
        std::vector<std::string> drop;
        std::string where;
    };
    const std::string src = std::to_string(from);
    const std::vector<Copy> copies = {
        // Parents before children (a parent's id is always the smaller).
        {"track",
         {{"id", "id + " + off},
          {"run_id", std::to_string(run)},
          {"source_id", std::to_string(to)},
          {"parent_id", "parent_id + " + off}},
         {},
         " WHERE source_id = " + src + " ORDER BY id"},
        {"slice_chunk", {{"track_id", "track_id + " + off}}, {}, " ORDER BY id"},
        {"slice_lod", {{"track_id", "track_id + " + off}}, {"id"}, " ORDER BY id"},
        {"counter_chunk", {{"track_id", "track_id + " + off}}, {"id"}, " ORDER BY id"},
        {"flow_chunk",
         {{"source_id", std::to_string(to)}},
         {"id"},
         " WHERE source_id = " + src + " ORDER BY id"},
        {"source_summary", {{"source_id", std::to_string(to)}}, {}, " WHERE source_id = " + src},
    };
    for (const Copy &c : copies) {
        std::string names;
        const std::string select = columns(db, c.table, c.replace, c.drop, &names);
        if (select.empty())
            return fail(
                QStringLiteral("the side project has no table %1").arg(QLatin1String(c.table)));
        const std::string sql = std::string("INSERT INTO main.") + c.table + "(" + names +
                                ") SELECT " + select + " FROM side." + c.table + c.where + ";";
        if (!db.exec(sql, error))
            return false;
    }
    auto counts = db.prepare(
        "UPDATE main.source SET (status, error, slices, counter_samples, flows, clock_offset_ns, "
        "metadata, warnings) = (SELECT status, error, slices, counter_samples, flows, "
        "clock_offset_ns, metadata, warnings FROM side.source WHERE id = ?1) WHERE id = ?2");
    counts.bind(1, from);
    counts.bind(2, to);
    if (!counts.exec())
        return fail(counts.errorString());
    // The run params the source merged into its run (kept in its metadata by TraceWriter).
    auto meta =
        db.prepare("SELECT json_extract(metadata, '$.run_params') FROM side.source WHERE id = ?");
    meta.bind(1, from);
    if (meta.step() && !meta.isNull(0) &&
        !mergeIntoRunParams(db, run, QJsonDocument::fromJson(meta.text(0).toUtf8()).object(),
                            error))
        return false;
    return true;
}

} // namespace gml
