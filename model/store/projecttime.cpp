// SPDX-License-Identifier: GPL-3.0-or-later
#include "projecttime.h"

#include "project.h"

#include <string>

namespace gml {

std::unordered_map<SourceId, TimeNs> sourceOffsets(Project &project, RunId run, QString *error)
{
    std::unordered_map<SourceId, TimeNs> out;
    auto st = project.db().prepare(std::string("SELECT id, ") + kSourceOffsetSql + " FROM source" +
                                   (run ? " WHERE run_id = ?" : ""));
    if (run)
        st.bind(1, run);
    while (st.step())
        out.emplace(st.int64(0), st.int64(1));
    if (error && !st.errorString().isEmpty())
        *error = st.errorString();
    return out;
}

TimeNs sourceOffset(Project &project, SourceId source)
{
    auto st = project.db().prepare(std::string("SELECT coalesce(") + kSourceOffsetSql +
                                   ", 0) FROM source WHERE id = ?");
    st.bind(1, source);
    return st.step() ? st.int64(0) : 0;
}

std::vector<std::pair<SourceId, TimeNs>> importedSourceOffsets(Project &project, RunId run,
                                                               QString *error)
{
    std::vector<std::pair<SourceId, TimeNs>> out;
    auto st = project.db().prepare(std::string("SELECT id, ") + kSourceOffsetSql +
                                   " FROM source WHERE run_id = ? AND status = 'imported' "
                                   "ORDER BY id");
    st.bind(1, run);
    while (st.step())
        out.emplace_back(st.int64(0), st.int64(1));
    if (error && !st.errorString().isEmpty())
        *error = st.errorString();
    return out;
}

std::optional<TimeNs> sourceOffsetOfPath(Project &project, const QString &path)
{
    auto st = project.db().prepare(std::string("SELECT ") + kSourceOffsetSql +
                                   " FROM source WHERE path = ?");
    st.bind(1, path);
    if (!st.step())
        return std::nullopt;
    return st.int64(0);
}

std::optional<std::pair<QString, TimeNs>> rankSourceOffset(Project &project, RunId run, int rank)
{
    auto src = project.db().prepare(std::string("SELECT s.path, ") + GML_SOURCE_OFFSET_SQL("s") +
                                    " FROM source s JOIN track t ON t.source_id = s.id WHERE "
                                    "t.run_id = ? AND t.rank = ? LIMIT 1");
    src.bind(1, run);
    src.bind(2, qint64(rank));
    if (!src.step())
        return std::nullopt;
    return std::make_pair(src.text(0), TimeNs(src.int64(1)));
}

} // namespace gml
