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

} // namespace gml
