// SPDX-License-Identifier: GPL-3.0-or-later
#include "trackrecords.h"

#include "project.h"
#include "projecttime.h"

#include <string>

namespace gml {

std::vector<TrackRow> tracksOfRun(Project &project, RunId run, QString *error)
{
    std::vector<TrackRow> out;
    auto st = project.db().prepare(
        "SELECT t.id, t.kind, t.name, coalesce(t.rank, -1), t.pid, t.source_id, t.slice_count, "
        "t.counter_count, p.kind, p.pid, coalesce(t.unit, ''), coalesce(p.name, ''), "
        "coalesce(s.format, ''), coalesce(t.tid, ''), coalesce(t.parent_id, 0), t.sort_key "
        "FROM track t LEFT JOIN track p ON p.id = t.parent_id "
        "LEFT JOIN source s ON s.id = t.source_id WHERE t.run_id = ? ORDER BY t.id");
    st.bind(1, run);
    while (st.step()) {
        TrackRow r;
        r.id = st.int64(0);
        r.kind = TrackKind(st.int64(1));
        r.name = st.text(2);
        r.rank = int(st.int64(3));
        r.pid = st.text(4);
        r.source = st.int64(5);
        r.sliceCount = st.int64(6);
        r.counterCount = st.int64(7);
        if (!st.isNull(8))
            r.parentKind = TrackKind(st.int64(8));
        r.parentPid = st.text(9);
        r.unit = st.text(10);
        r.parentName = st.text(11);
        r.format = st.text(12);
        r.tid = st.text(13);
        r.parent = st.int64(14);
        r.sortKey = st.int64(15);
        out.push_back(std::move(r));
    }
    if (error && !st.errorString().isEmpty())
        *error = st.errorString();
    return out;
}

std::vector<int> ranksOfRun(Project &project, RunId run)
{
    std::vector<int> out;
    auto st = project.db().prepare(
        "SELECT DISTINCT rank FROM track WHERE run_id = ? AND rank IS NOT NULL ORDER BY rank");
    st.bind(1, run);
    while (st.step())
        out.push_back(int(st.int64(0)));
    return out;
}

QList<SourceId> sourcesOfRank(Project &project, RunId run, int rank)
{
    QList<SourceId> out;
    auto st = project.db().prepare("SELECT DISTINCT source_id FROM track WHERE run_id = ? AND "
                                   "rank = ? AND source_id IS NOT NULL");
    st.bind(1, run);
    st.bind(2, qint64(rank));
    while (st.step())
        out.append(st.int64(0));
    return out;
}

bool rankThreadsSpanSources(Project &project, RunId run, QString *error)
{
    auto st = project.db().prepare(
        "SELECT 1 FROM track WHERE run_id = ? AND kind = ? AND slice_count > 0 AND rank IS NOT "
        "NULL GROUP BY rank HAVING count(DISTINCT source_id) > 1 LIMIT 1");
    st.bind(1, run);
    st.bind(2, qint64(TrackKind::Thread));
    const bool found = st.step();
    if (!st.errorString().isEmpty() && error)
        *error = st.errorString();
    return found;
}

std::optional<int> lowestRank(Project &project, RunId run)
{
    auto st = project.db().prepare("SELECT min(rank) FROM track WHERE run_id = ? AND rank >= 0");
    st.bind(1, run);
    if (!st.step() || st.isNull(0))
        return std::nullopt;
    return int(st.int64(0));
}

std::vector<CounterPoint> counterPoints(Project &project, TrackId track)
{
    std::vector<CounterPoint> out;
    auto st =
        project.db().prepare(std::string("SELECT k.ts + coalesce(") + GML_SOURCE_OFFSET_SQL("s") +
                             ", 0), k.value, k.step FROM counter k JOIN track t ON t.id = "
                             "k.track_id LEFT JOIN source s ON s.id = t.source_id WHERE "
                             "k.track_id = ? ORDER BY k.ts, k.step");
    st.bind(1, track);
    while (st.step())
        out.push_back({st.int64(0), st.real(1), st.isNull(2) ? -1 : st.int64(2)});
    return out;
}

bool runHasSlices(Project &project, RunId run)
{
    auto st = project.db().prepare(
        "SELECT EXISTS (SELECT 1 FROM track WHERE run_id = ? AND slice_count > 0)");
    st.bind(1, run);
    return !st.step() || st.int64(0) != 0;
}

StringId existingString(Project &project, const QString &text)
{
    return existingStrings(project, {text}).front();
}

std::vector<StringId> existingStrings(Project &project, const QStringList &texts)
{
    std::vector<StringId> ids;
    ids.reserve(size_t(texts.size()));
    auto st = project.db().prepare("SELECT id FROM string WHERE value = ?");
    for (const QString &text : texts) {
        st.bind(1, text);
        ids.push_back(st.step() ? st.int64(0) : 0);
        st.reset();
    }
    return ids;
}

} // namespace gml
