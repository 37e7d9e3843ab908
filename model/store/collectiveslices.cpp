// SPDX-License-Identifier: GPL-3.0-or-later
// The collective kernels of a run, read for the collectives report (model/analysis).
#include "collectiveslices.h"

#include "clusterproject.h"
#include "project.h"

namespace gml {

std::vector<CollectiveSlice> collectiveSlices(Project &project, RunId run, QString *error)
{
    std::vector<CollectiveSlice> out;
    if (cluster::isClusterProject(project)) {
        if (error)
            *error = QStringLiteral("a cluster project keeps its slices in its shards: open a "
                                    "shard, or the ranks' own project, for its collectives");
        return out;
    }
    auto st = project.db().prepare(
        "SELECT s.id, t.id, t.rank, s.ts + coalesce(src.clock_offset_ns + src.align_ns, 0), "
        "s.dur, n.value, s.args FROM track t JOIN slice s ON s.track_id = t.id "
        "JOIN string n ON n.id = s.name_id LEFT JOIN source src ON src.id = t.source_id "
        "WHERE t.run_id = ?1 AND t.kind = ?2 AND n.value LIKE '%ccl%'");
    st.bind(1, qint64(run));
    st.bind(2, qint64(TrackKind::Stream));
    while (st.step())
        out.push_back({st.int64(0), TrackId(st.int64(1)), st.isNull(2) ? -1 : int(st.int64(2)),
                       st.int64(3), st.int64(4), st.text(5),
                       st.isNull(6) ? QString() : st.text(6)});
    if (!st.errorString().isEmpty() && error)
        *error = st.errorString();
    return out;
}

} // namespace gml
