// SPDX-License-Identifier: GPL-3.0-or-later
#include "schema.h"

#include "counterstore.h"
#include "slicelod.h"
#include "slicestore.h"

#include <map>
#include <unordered_map>

namespace gml::schema {

// Version 1. Notes on choices:
// - slice.ts / counter.ts are nanoseconds on the SOURCE's clock; project time is
//   ts + source.clock_offset_ns, so re-aligning a source never rewrites its rows
//   (see the *_abs views).
// - slice nesting depth is not stored: SliceTrack computes it when a track loads.
// - slice, counter and flow rows carry no foreign keys (bulk-insert speed); they are deleted
//   with their source by Project::deleteSourceData(), inside the importing transaction.
static constexpr std::string_view kV1 = R"SQL(
CREATE TABLE string(
  id INTEGER PRIMARY KEY,
  value TEXT NOT NULL UNIQUE
);
CREATE TABLE experiment(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  params TEXT NOT NULL DEFAULT '{}',
  tags TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE workload(
  id INTEGER PRIMARY KEY,
  experiment_id INTEGER REFERENCES experiment(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  UNIQUE(experiment_id, name)
);
CREATE TABLE run(
  id INTEGER PRIMARY KEY,
  workload_id INTEGER REFERENCES workload(id) ON DELETE SET NULL,
  name TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL DEFAULT 'measured',
  params TEXT NOT NULL DEFAULT '{}',
  tags TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE source(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  path TEXT NOT NULL UNIQUE,
  format TEXT NOT NULL,
  size INTEGER NOT NULL DEFAULT 0,
  mtime_ns INTEGER NOT NULL DEFAULT 0,
  hash TEXT,
  importer_version INTEGER NOT NULL DEFAULT 0,
  clock_offset_ns INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL CHECK (status IN ('imported', 'failed', 'skipped')),
  error TEXT,
  warnings TEXT NOT NULL DEFAULT '[]',
  slices INTEGER NOT NULL DEFAULT 0,
  counter_samples INTEGER NOT NULL DEFAULT 0,
  flows INTEGER NOT NULL DEFAULT 0,
  metadata TEXT NOT NULL DEFAULT '{}',
  imported_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE INDEX source_run ON source(run_id);
CREATE TABLE track(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  source_id INTEGER REFERENCES source(id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES track(id) ON DELETE CASCADE,
  kind INTEGER NOT NULL,
  name TEXT NOT NULL,
  sort_key INTEGER NOT NULL DEFAULT 0,
  rank INTEGER,
  pid TEXT,
  tid TEXT,
  unit TEXT,
  start_ns INTEGER,
  end_ns INTEGER,
  slice_count INTEGER NOT NULL DEFAULT 0,
  counter_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX track_run ON track(run_id);
CREATE INDEX track_source ON track(source_id);
CREATE INDEX track_parent ON track(parent_id);
CREATE TABLE slice(
  id INTEGER PRIMARY KEY,
  track_id INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  cat_id INTEGER,
  correlation INTEGER,
  external_id INTEGER,
  args TEXT
);
CREATE INDEX slice_track_ts ON slice(track_id, ts);
CREATE TABLE counter(
  track_id INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  value REAL NOT NULL
);
CREATE INDEX counter_track_ts ON counter(track_id, ts);
CREATE TABLE flow(
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  from_slice INTEGER NOT NULL,
  to_slice INTEGER NOT NULL
);
CREATE INDEX flow_from ON flow(from_slice);
CREATE INDEX flow_to ON flow(to_slice);
CREATE INDEX flow_source ON flow(source_id);
CREATE TABLE scenario(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  transforms TEXT NOT NULL DEFAULT '[]',
  results TEXT,
  UNIQUE(run_id, name)
);
CREATE VIEW slice_abs AS
  SELECT s.id, s.track_id, t.run_id, s.ts + src.clock_offset_ns AS ts, s.dur,
         n.value AS name, c.value AS category, s.correlation, s.external_id, s.args
  FROM slice s JOIN track t ON t.id = s.track_id
  LEFT JOIN source src ON src.id = t.source_id
  LEFT JOIN string n ON n.id = s.name_id
  LEFT JOIN string c ON c.id = s.cat_id;
CREATE VIEW counter_abs AS
  SELECT k.track_id, t.run_id, t.name AS track, t.unit, k.ts + src.clock_offset_ns AS ts, k.value
  FROM counter k JOIN track t ON t.id = k.track_id
  LEFT JOIN source src ON src.id = t.source_id;
)SQL";

// Version 2: clock alignment of ranks (model/store/clockalignment.h). Project time becomes
//   ts + source.clock_offset_ns + source.align_ns
// where clock_offset_ns is the importer's (the file's own clock anchor) and align_ns the
// correction that aligns a rank to its run's reference rank: the user's align_user_ns when set,
// else the computed offset when it is significant, else 0. `alignment` holds what the last
// computation found (JSON), for `grademl info` and the GUI.
static constexpr std::string_view kV2 = R"SQL(
ALTER TABLE source ADD COLUMN align_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE source ADD COLUMN align_user_ns INTEGER;
ALTER TABLE source ADD COLUMN alignment TEXT;
DROP VIEW slice_abs;
DROP VIEW counter_abs;
CREATE VIEW slice_abs AS
  SELECT s.id, s.track_id, t.run_id, s.ts + src.clock_offset_ns + src.align_ns AS ts, s.dur,
         n.value AS name, c.value AS category, s.correlation, s.external_id, s.args
  FROM slice s JOIN track t ON t.id = s.track_id
  LEFT JOIN source src ON src.id = t.source_id
  LEFT JOIN string n ON n.id = s.name_id
  LEFT JOIN string c ON c.id = s.cat_id;
CREATE VIEW counter_abs AS
  SELECT k.track_id, t.run_id, t.name AS track, t.unit,
         k.ts + src.clock_offset_ns + src.align_ns AS ts, k.value
  FROM counter k JOIN track t ON t.id = k.track_id
  LEFT JOIN source src ON src.id = t.source_id;
)SQL";

// Version 3: slices and flows are stored in chunks (model/store/slicestore.h); `slice` and `flow`
// become virtual tables over them with the same columns. One insert per chunk instead of one
// per row (and no per-row indexes to maintain) is what lets import keep up with parsing. Slice
// ids change (chunk id << 12 | row), so migrateData() rewrites the old slice rows and the flows
// with their endpoints remapped, then replaces the tables by the virtual tables (the views over
// `slice` keep working: they name the table, not its kind).
static constexpr std::string_view kV3 = R"SQL(
CREATE TABLE slice_chunk(
  id INTEGER PRIMARY KEY,
  track_id INTEGER NOT NULL,
  count INTEGER NOT NULL,
  min_ts INTEGER NOT NULL,
  max_end INTEGER NOT NULL,
  data BLOB NOT NULL,
  args BLOB
);
CREATE INDEX slice_chunk_track ON slice_chunk(track_id);
CREATE TABLE flow_chunk(
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL,
  count INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX flow_chunk_source ON flow_chunk(source_id);
)SQL";

// Version 4: a slice chunk's args are records over per-chunk tables of keys and repeated values
// (slicestore::ArgsEncoder) instead of the JSON texts one after another; the chunk's format
// byte says which. The args were most of a project's bytes, and every byte is written twice
// (WAL, then checkpoint). migrateData() re-encodes the chunks; ids and rows do not change.
static constexpr std::string_view kV4 = R"SQL(
-- slice_chunk.data format 2, args blob format 1 (model/slicestore.h)
)SQL";

// Version 5: workflows declared in a trace folder's grademl.json
// (model/store/workflowdeclaration.h), kept as written; their steps are matched with runs when the
// workflow is shown, so runs imported later join it.
static constexpr std::string_view kV5 = R"SQL(
CREATE TABLE workflow(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  definition TEXT NOT NULL,
  imported_at TEXT NOT NULL DEFAULT (datetime('now'))
);
)SQL";

// Version 6: runs browsed and compared (model/store/runcatalog.h).
// - counter.step: the step an MLflow metric point was logged at (NULL for sampled counters),
//   so runs compare at a chosen step, not only at a time.
// - run_metrics: each run's headline metrics (mean and spread of the iteration time, GPU busy,
//   energy, ...) as JSON, computed once after the run changes (simulator/runmetrics.h) so a
//   project with thousands of runs lists them without analysing any. An import deletes the
//   row of every run it changes.
static constexpr std::string_view kV6 = R"SQL(
ALTER TABLE counter ADD COLUMN step INTEGER;
CREATE TABLE run_metrics(
  run_id INTEGER PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
  metrics TEXT NOT NULL,
  computed_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE INDEX run_workload ON run(workload_id);
)SQL";

// Version 7: level-of-detail summaries of slice tracks (model/store/slicelod.h), so that opening a
// project and painting a viewport read what the viewport shows instead of every slice (issue
// 34). track.max_depth is set with them (the timeline's row height before any slice is read);
// NULL means not summarised. migrateData() summarises every slice track of an older project.
static constexpr std::string_view kV7 = R"SQL(
CREATE TABLE slice_lod(
  id INTEGER PRIMARY KEY,
  track_id INTEGER NOT NULL,
  shift INTEGER NOT NULL,
  count INTEGER NOT NULL,
  min_ts INTEGER NOT NULL,
  max_end INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX slice_lod_track ON slice_lod(track_id, shift, min_ts);
ALTER TABLE track ADD COLUMN max_depth INTEGER;
)SQL";

// Version 8: a summary of each source's slices (model/store/sourcesummary.h: its GPUs' time split,
// its ranks' iterations, recorded FLOPs), written when the source is imported, so that a run's
// headline metrics merge them instead of reading every slice again (issue 34). A source
// imported before has none: it is summarised the first time its run's metrics are computed.
static constexpr std::string_view kV8 = R"SQL(
CREATE TABLE source_summary(
  source_id INTEGER PRIMARY KEY REFERENCES source(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  data BLOB NOT NULL
);
)SQL";

// Version 9: what the studio remembers of a project across sessions (model/store/viewstate.h: the
// runs last in focus), as keyed JSON texts. Never needed to read the data.
static constexpr std::string_view kV9 = R"SQL(
CREATE TABLE view_state(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
)SQL";

// Version 10: views that make queries natural (the Query view, grademl query; docs/query.md).
// `slice` stays the raw table (source clock, interned names).
// - slice_info: each slice on the project clock (ts, dur, end_ts) with its name, category,
//   track (id, name, kind), run (id, name) and rank;
// - kernel: the GPU work on the streams (kernels, copies, sets, collectives; not the
//   profiler's gpu_user_annotation ranges);
// - cpu_op: the operators on the CPU threads (category cpu_op, or operator);
// - counter_series: each counter sample on the project clock with its series, unit, run, rank.
static constexpr std::string_view kV10 = R"SQL(
CREATE VIEW slice_info AS
  SELECT s.id, s.ts + coalesce(src.clock_offset_ns + src.align_ns, 0) AS ts, s.dur,
         s.ts + coalesce(src.clock_offset_ns + src.align_ns, 0) + s.dur AS end_ts,
         n.value AS name, c.value AS category, s.track_id, t.name AS track, t.kind AS track_kind,
         t.run_id, r.name AS run, t.rank, s.correlation, s.external_id, s.args
  FROM slice s JOIN track t ON t.id = s.track_id
  JOIN run r ON r.id = t.run_id
  LEFT JOIN source src ON src.id = t.source_id
  LEFT JOIN string n ON n.id = s.name_id
  LEFT JOIN string c ON c.id = s.cat_id;
CREATE VIEW kernel AS
  SELECT * FROM slice_info WHERE track_kind = 5 AND coalesce(category, '') <> 'gpu_user_annotation';
CREATE VIEW cpu_op AS
  SELECT * FROM slice_info WHERE track_kind = 3 AND category IN ('cpu_op', 'operator');
CREATE VIEW counter_series AS
  SELECT k.track_id, t.name AS series, t.unit, t.run_id, r.name AS run, t.rank,
         k.ts + coalesce(src.clock_offset_ns + src.align_ns, 0) AS ts, k.value
  FROM counter k JOIN track t ON t.id = k.track_id
  JOIN run r ON r.id = t.run_id
  LEFT JOIN source src ON src.id = t.source_id;
)SQL";

// Version 11: notes on a time, a range or a slice, and bookmarks 1-9 (model/store/notes.h). A note
// names its run (and a slice note its slice and track) instead of pointing at their rows, so
// re-importing a run keeps its notes.
static constexpr std::string_view kV11 = R"SQL(
CREATE TABLE note(
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('time', 'range', 'slice')),
  run TEXT NOT NULL DEFAULT '',
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  slice_id INTEGER,
  track_id INTEGER,
  slice_name TEXT,
  track_name TEXT,
  text TEXT NOT NULL,
  bookmark INTEGER CHECK (bookmark BETWEEN 1 AND 9),
  created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE UNIQUE INDEX note_bookmark ON note(bookmark) WHERE bookmark IS NOT NULL;
)SQL";

// Version 12: jobs imported in shards (issue 39; model/store/clusterproject.h).
// - rank_facts: what a cross-rank analysis needs of a source beyond its summary (its collectives
//   with their arrival and end and what ran before them, its kernel families), written by the
//   shard import (simulator/cluster/rankfacts.h) so that a cluster project reduces them;
// - shard: in a cluster project, the shard projects it references (a path relative to it), how
//   their import went, and the offsets that made their source and track ids the cluster's;
// - source.shard_id / shard_source_id: in a cluster project, the shard holding the source's
//   detail and the source's id there (NULL in any other project).
static constexpr std::string_view kV12 = R"SQL(
CREATE TABLE rank_facts(
  source_id INTEGER PRIMARY KEY REFERENCES source(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE TABLE shard(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('merged', 'failed', 'missing')),
  error TEXT,
  files TEXT NOT NULL DEFAULT '[]',
  bytes INTEGER NOT NULL DEFAULT 0,
  sources INTEGER NOT NULL DEFAULT 0,
  source_base INTEGER NOT NULL DEFAULT 0, -- cluster id = shard id + base
  track_base INTEGER NOT NULL DEFAULT 0
);
ALTER TABLE source ADD COLUMN shard_id INTEGER; -- shard(id)
ALTER TABLE source ADD COLUMN shard_source_id INTEGER;
)SQL";

// Version 13: shard identities (issue 56). A shard project says which job it belongs to (a
// hash of the job's file list, the same in every shard of one import), which shard of how many
// it is, and a stamp drawn anew at each import of it; a cluster project keeps each shard's
// identity as it merged it, so that merge refuses shards of another job or given twice, and a
// reader refuses a shard swapped, replaced or imported again since the merge.
static constexpr std::string_view kV13 = R"SQL(
CREATE TABLE shard_identity(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  job TEXT NOT NULL,
  shard_index INTEGER NOT NULL CHECK (shard_index >= 0),
  shard_count INTEGER NOT NULL CHECK (shard_count > shard_index),
  stamp TEXT NOT NULL
);
ALTER TABLE shard ADD COLUMN job TEXT;
ALTER TABLE shard ADD COLUMN shard_index INTEGER;
ALTER TABLE shard ADD COLUMN shard_count INTEGER;
ALTER TABLE shard ADD COLUMN stamp TEXT;
)SQL";

// Version 14: the query views carry the run's kind (issue 58: after "Save as Run…", totals over
// `kernel` added the predicted run to the measured one): slice_info, kernel, cpu_op and
// counter_series gain `run_kind` (measured, predicted, simulated) after `run`.
static constexpr std::string_view kV14 = R"SQL(
DROP VIEW kernel;
DROP VIEW cpu_op;
DROP VIEW slice_info;
DROP VIEW counter_series;
CREATE VIEW slice_info AS
  SELECT s.id, s.ts + coalesce(src.clock_offset_ns + src.align_ns, 0) AS ts, s.dur,
         s.ts + coalesce(src.clock_offset_ns + src.align_ns, 0) + s.dur AS end_ts,
         n.value AS name, c.value AS category, s.track_id, t.name AS track, t.kind AS track_kind,
         t.run_id, r.name AS run, r.kind AS run_kind, t.rank, s.correlation, s.external_id, s.args
  FROM slice s JOIN track t ON t.id = s.track_id
  JOIN run r ON r.id = t.run_id
  LEFT JOIN source src ON src.id = t.source_id
  LEFT JOIN string n ON n.id = s.name_id
  LEFT JOIN string c ON c.id = s.cat_id;
CREATE VIEW kernel AS
  SELECT * FROM slice_info WHERE track_kind = 5 AND coalesce(category, '') <> 'gpu_user_annotation';
CREATE VIEW cpu_op AS
  SELECT * FROM slice_info WHERE track_kind = 3 AND category IN ('cpu_op', 'operator');
CREATE VIEW counter_series AS
  SELECT k.track_id, t.name AS series, t.unit, t.run_id, r.name AS run, r.kind AS run_kind, t.rank,
         k.ts + coalesce(src.clock_offset_ns + src.align_ns, 0) AS ts, k.value
  FROM counter k JOIN track t ON t.id = k.track_id
  JOIN run r ON r.id = t.run_id
  LEFT JOIN source src ON src.id = t.source_id;
)SQL";

// Version 15: sources found by their size and content hash (issue 74). An import looks for a
// file's copies among the sources of its size (content identity, issue 73); without an index
// that was a scan of the whole source table, whose rows carry each trace's metadata (21 KB a
// rank's deviceProperties and distributed info): 22-45 ms a file at 4,096 ranks, the import's
// time growing with the square of its files. By size alone, the ~400 generated ranks of one
// size were still read whole (6 ms); by size and hash, only copies are.
static constexpr std::string_view kV15 = R"SQL(
CREATE INDEX IF NOT EXISTS source_size ON source(size, hash);
)SQL";

// Version 16: counter samples are stored in chunks (model/store/counterstore.h): `counter` becomes
// a virtual table over `counter_chunk` with the same columns, its rows read in the order the
// (track_id, ts) index gave them. A row and an index entry per sample cost about 5,000
// instructions (issue 74: a million samples in a 1 GB trace with memory events); a chunk is
// one insert for up to 4,096. migrateData() chunks the old rows, then replaces the table.
static constexpr std::string_view kV16 = R"SQL(
CREATE TABLE counter_chunk(
  id INTEGER PRIMARY KEY,
  track_id INTEGER NOT NULL,
  count INTEGER NOT NULL,
  min_ts INTEGER NOT NULL,
  max_ts INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX counter_chunk_track ON counter_chunk(track_id);
)SQL";

const std::vector<std::string_view> &migrations()
{
    static const std::vector<std::string_view> all = {
        kV1, kV2, kV3, kV4, kV5, kV6, kV7, kV8, kV9, kV10, kV11, kV12, kV13, kV14, kV15, kV16};
    return all;
}

// Rewrites every format-1 slice chunk (args as JSON texts) in the current format.
static bool encodeChunkArgs(SqliteDb &db, QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = QStringLiteral("migrating slice args to records: ") + why;
        return false;
    };
    auto get = db.prepare("SELECT id, data, args FROM slice_chunk ORDER BY id");
    auto put = db.prepare("UPDATE slice_chunk SET data = ?, args = ? WHERE id = ?");
    std::vector<slicestore::Row> rows;
    std::string records, data, args;
    slicestore::ArgsEncoder encoder;
    while (get.step()) {
        const qint64 chunk = get.int64(0);
        const std::string_view oldData = get.blobView(1);
        if (!slicestore::isLegacyChunk(oldData.data(), qint64(oldData.size())))
            continue; // written in the current format (a v2 project migrated by v3)
        const std::string_view texts = get.blobView(2);
        rows.clear();
        if (!slicestore::decode(chunk, oldData.data(), qint64(oldData.size()),
                                get.isNull(2) ? -1 : qint64(texts.size()), 0, rows, true))
            return fail(QStringLiteral("slice chunk %1 is malformed").arg(chunk));
        records.clear();
        encoder.clear();
        for (slicestore::Row &r : rows)
            if (r.hasArgs)
                encoder.add(texts.substr(r.argsOffset, r.argsSize), records, r);
        slicestore::encode(rows, records, encoder, data, args);
        put.bindBlob(1, data);
        if (args.empty())
            put.bindNull(2);
        else
            put.bindBlob(2, args);
        put.bind(3, chunk);
        if (!put.exec())
            return fail(put.errorString());
    }
    if (!get.errorString().isEmpty())
        return fail(get.errorString());
    return true;
}

bool migrateData(int version, SqliteDb &db, QString *error,
                 const std::function<bool(int, int)> &progress)
{
    if (version == 4)
        return encodeChunkArgs(db, error);
    if (version == 7)
        return lod::summarizeAll(db, error, progress);
    if (version == 16)
        return counterstore::migrateRows(db, error);
    if (version != 3)
        return true;
    auto fail = [error](const QString &why) {
        if (error)
            *error = QStringLiteral("migrating slices to chunks: ") + why;
        return false;
    };
    std::unordered_map<SliceId, SliceId> newId;
    {
        slicestore::ChunkWriter chunks(db);
        auto st = db.prepare("SELECT id, track_id, ts, dur, name_id, cat_id, correlation, "
                             "external_id, args FROM slice ORDER BY track_id, ts, dur DESC, id");
        auto optional = [&st](int column) {
            return st.isNull(column) ? slicestore::kNull : st.int64(column);
        };
        while (st.step()) {
            const std::string_view args = st.textView(8);
            newId.emplace(st.int64(0), chunks.add(st.int64(1), st.int64(2), st.int64(3),
                                                  st.int64(4), st.isNull(5) ? 0 : st.int64(5),
                                                  optional(6), optional(7), args, !st.isNull(8)));
        }
        if (!st.errorString().isEmpty())
            return fail(st.errorString());
        if (!chunks.flush())
            return fail(chunks.errorString());
    }
    std::map<qint64, std::vector<slicestore::Flow>> flowsOf; // by source
    {
        auto get = db.prepare("SELECT source_id, from_slice, to_slice, kind FROM flow");
        auto mapped = [&newId](SliceId id) {
            const auto it = newId.find(id);
            return it == newId.end() ? id : it->second;
        };
        while (get.step())
            flowsOf[get.int64(0)].push_back(
                {mapped(get.int64(1)), mapped(get.int64(2)), get.int64(3)});
        if (!get.errorString().isEmpty())
            return fail(get.errorString());
    }
    for (auto &[source, flows] : flowsOf) {
        QString why;
        if (!slicestore::writeFlows(db, source, flows, &why))
            return fail(why);
    }
    return db.exec("DROP TABLE slice; DROP TABLE flow;"
                   "CREATE VIRTUAL TABLE slice USING gml_slice;"
                   "CREATE VIRTUAL TABLE flow USING gml_flow;",
                   error);
}

} // namespace gml::schema
