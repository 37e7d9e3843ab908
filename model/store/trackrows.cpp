// SPDX-License-Identifier: GPL-3.0-or-later
#include "trackrows.h"

#include "project.h"
#include "projecttime.h"

#include <string>

namespace gml {

SliceRowReader::SliceRowReader(Project &project)
    : m_st(project.db().prepare(std::string("SELECT s.ts + coalesce(") +
                                GML_SOURCE_OFFSET_SQL("src") +
                                ", 0), s.dur, s.id, s.name_id FROM slice s JOIN track t ON t.id = "
                                "s.track_id LEFT JOIN source src ON src.id = t.source_id WHERE "
                                "s.track_id = ? ORDER BY s.ts"))
{
}

bool SliceRowReader::read(TrackId track, std::vector<TimelineSlice> &out, QString *error)
{
    out.clear();
    if (!m_st.isValid()) {
        if (error)
            *error = m_st.errorString();
        return false;
    }
    m_st.reset();
    m_st.bind(1, track);
    while (m_st.step())
        out.push_back({m_st.int64(0), m_st.int64(1), m_st.int64(2), m_st.int64(3)});
    return true;
}

SliceRecordReader::SliceRecordReader(Project &project)
    : m_st(project.db().prepare(
          std::string("SELECT s.ts + coalesce(") + GML_SOURCE_OFFSET_SQL("src") +
          ", 0), s.dur, s.id, s.name_id, coalesce(s.cat_id, 0), s.args, s.correlation, "
          "s.external_id FROM slice s JOIN track t "
          "ON t.id = s.track_id LEFT JOIN source src ON src.id = t.source_id WHERE s.track_id = ? "
          "ORDER BY s.ts, s.dur DESC, s.id"))
{
}

bool SliceRecordReader::read(TrackId track, const std::function<void(const SliceRecord &)> &visit,
                             QString *error)
{
    if (!m_st.isValid()) {
        if (error)
            *error = m_st.errorString();
        return false;
    }
    m_st.reset();
    m_st.bind(1, track);
    while (m_st.step()) {
        SliceRecord r;
        r.start = m_st.int64(0);
        r.duration = m_st.int64(1);
        r.id = m_st.int64(2);
        r.name = m_st.int64(3);
        r.category = m_st.int64(4);
        if (!m_st.isNull(5))
            r.args = m_st.textView(5);
        if (!m_st.isNull(6))
            r.correlation = m_st.int64(6);
        if (!m_st.isNull(7))
            r.externalId = m_st.int64(7);
        visit(r);
    }
    if (const QString why = m_st.errorString(); !why.isEmpty()) {
        if (error)
            *error = why;
        return false;
    }
    return true;
}

CounterRowReader::CounterRowReader(Project &project, Mode mode)
    : m_mode(mode),
      // After: the track's clock offset is one number, read first: the index on (track_id,
      // ts) then finds the new rows.
      m_st(project.db().prepare(
          mode == Mode::All
              ? std::string("SELECT k.ts + coalesce(") + GML_SOURCE_OFFSET_SQL("src") +
                    ", 0), k.value FROM counter k JOIN track t ON t.id = k.track_id LEFT JOIN "
                    "source src ON src.id = t.source_id WHERE k.track_id = ? ORDER BY k.ts"
              : std::string("SELECT k.ts + o.off, k.value FROM (SELECT coalesce((SELECT ") +
                    GML_SOURCE_OFFSET_SQL("src") +
                    " FROM track t LEFT JOIN source src ON src.id = t.source_id WHERE t.id = "
                    "?1), 0) AS off) o CROSS JOIN counter k WHERE k.track_id = ?1 AND k.ts > ?2 "
                    "- o.off ORDER BY k.ts"))
{
}

bool CounterRowReader::read(TrackId track, std::vector<std::pair<TimeNs, double>> &out,
                            QString *error, TimeNs after)
{
    out.clear();
    if (!m_st.isValid()) {
        if (error)
            *error = m_st.errorString();
        return false;
    }
    m_st.reset();
    m_st.bind(1, track);
    if (m_mode == Mode::After)
        m_st.bind(2, after);
    while (m_st.step())
        out.emplace_back(m_st.int64(0), m_st.real(1));
    if (m_mode == Mode::After && !m_st.errorString().isEmpty()) {
        if (error)
            *error = m_st.errorString();
        return false;
    }
    return true;
}

std::vector<std::pair<StringId, QString>> allStrings(Project &project)
{
    std::vector<std::pair<StringId, QString>> out;
    auto st = project.db().prepare("SELECT id, value FROM string");
    while (st.step())
        out.emplace_back(st.int64(0), st.text(1));
    return out;
}

std::vector<SummarizedTrack> summarizedTracks(Project &project, QString *error)
{
    std::vector<SummarizedTrack> out;
    if (project.schemaVersion() < 7)
        return out;
    const bool sharded = project.schemaVersion() >= 12;
    auto st = project.db().prepare(
        std::string("SELECT t.id, t.max_depth, coalesce(") + GML_SOURCE_OFFSET_SQL("src") +
        ", 0), t.start_ns, t.end_ns, t.slice_count, " +
        (sharded ? "sh.id, t.id - sh.track_base FROM track t LEFT JOIN source src ON src.id = "
                   "t.source_id LEFT JOIN shard sh ON sh.id = src.shard_id AND sh.status = "
                   "'merged' "
                 : "NULL, NULL FROM track t LEFT JOIN source src ON src.id = t.source_id ") +
        "WHERE t.max_depth IS NOT NULL AND t.start_ns IS NOT NULL AND t.slice_count > 0");
    while (st.step()) {
        SummarizedTrack t;
        t.id = st.int64(0);
        t.maxDepth = st.int64(1);
        t.offset = st.int64(2);
        t.start = st.int64(3);
        t.end = st.int64(4);
        t.slices = st.int64(5);
        t.shard = st.isNull(6) ? 0 : st.int64(6);
        t.storedId = st.isNull(7) ? 0 : st.int64(7);
        out.push_back(t);
    }
    if (error && !st.errorString().isEmpty())
        *error = st.errorString();
    return out;
}

std::vector<std::pair<TrackId, int>> summaryLevels(Project &project, QString *error)
{
    std::vector<std::pair<TrackId, int>> out;
    auto levels = project.db().prepare(
        "SELECT DISTINCT track_id, shift FROM slice_lod ORDER BY track_id, shift");
    while (levels.step())
        out.emplace_back(levels.int64(0), int(levels.int64(1)));
    if (error && !levels.errorString().isEmpty())
        *error = levels.errorString();
    return out;
}

qint64 slicesInWindow(Project &project, TrackId track, TimeNs t0, TimeNs t1)
{
    auto count = project.db().prepare("SELECT coalesce(sum(count), 0) FROM slice_chunk WHERE "
                                      "track_id = ?1 AND min_ts < ?2 AND max_end >= ?3");
    count.bind(1, track);
    count.bind(2, t1);
    count.bind(3, t0);
    return count.step() ? count.int64(0) : 0;
}

bool flowsOfSource(Project &project, SourceId source, std::initializer_list<FlowKind> kinds,
                   std::vector<FlowRow> &out, QString *error)
{
    std::string sql =
        "SELECT from_slice, to_slice, kind FROM flow WHERE source_id = ? AND kind IN (";
    for (size_t i = 0; i < kinds.size(); ++i)
        sql += i ? ", ?" : "?";
    auto st = project.db().prepare(sql + ")");
    st.bind(1, source);
    int at = 2;
    for (FlowKind k : kinds)
        st.bind(at++, qint64(k));
    while (st.step())
        out.push_back({st.int64(0), st.int64(1), FlowKind(st.int64(2))});
    if (!st.errorString().isEmpty()) {
        if (error)
            *error = st.errorString();
        return false;
    }
    return true;
}

} // namespace gml
