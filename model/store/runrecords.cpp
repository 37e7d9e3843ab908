// SPDX-License-Identifier: GPL-3.0-or-later
#include "runrecords.h"

#include "project.h"

#include <QJsonDocument>

namespace gml {

namespace {

bool forEachRun(Project &project, const char *sql, const QList<RunId> &runs, QString *error)
{
    auto st = project.db().prepare(sql);
    for (RunId run : runs) {
        st.reset();
        st.bind(1, run);
        if (!st.exec(error))
            return false;
    }
    return true;
}

} // namespace

std::optional<QString> runName(Project &project, RunId run)
{
    auto name = project.db().prepare("SELECT name FROM run WHERE id = ?");
    name.bind(1, run);
    if (!name.step())
        return std::nullopt;
    return name.text(0);
}

QList<std::pair<RunId, QString>> runNames(Project &project)
{
    QList<std::pair<RunId, QString>> out;
    auto st = project.db().prepare("SELECT id, name FROM run ORDER BY id");
    while (st.step())
        out.append({st.int64(0), st.text(1)});
    return out;
}

QStringList runNamesOfKind(Project &project, const QString &kind)
{
    QStringList out;
    auto st = project.db().prepare("SELECT name FROM run WHERE kind = ? ORDER BY id");
    st.bind(1, kind);
    while (st.step())
        out << st.text(0);
    return out;
}

std::optional<RunRow> runRow(Project &project, RunId run)
{
    auto st = project.db().prepare("SELECT name, kind, params FROM run WHERE id = ?");
    st.bind(1, run);
    if (!st.step())
        return std::nullopt;
    return RunRow{run, st.text(0), st.text(1),
                  QJsonDocument::fromJson(st.text(2).toUtf8()).object()};
}

QList<RunPlacement> runPlacements(Project &project)
{
    QList<RunPlacement> out;
    auto q = project.db().prepare("SELECT r.name, r.workload_id, w.experiment_id FROM run r "
                                  "LEFT JOIN workload w ON w.id = r.workload_id");
    while (q.step()) {
        RunPlacement p{q.text(0), {}, {}};
        if (!q.isNull(1))
            p.workload = q.int64(1);
        if (!q.isNull(2))
            p.experiment = q.int64(2);
        out.append(p);
    }
    return out;
}

QJsonObject lastCounterValues(Project &project, RunId run, const QString &format)
{
    QJsonObject out;
    auto st = project.db().prepare(
        "SELECT t.name, (SELECT k.value FROM counter k WHERE k.track_id = t.id ORDER BY k.ts DESC, "
        "k.step DESC LIMIT 1) FROM track t JOIN source s ON s.id = t.source_id "
        "WHERE t.run_id = ? AND s.format = ? AND t.kind = ?");
    st.bind(1, run);
    st.bind(2, format);
    st.bind(3, qint64(TrackKind::Counter));
    while (st.step())
        if (!st.isNull(1))
            out.insert(st.text(0), st.real(1));
    return out;
}

bool dropRunMetrics(Project &project, const QList<RunId> &runs, QString *error)
{
    if (project.schemaVersion() < 6) // no stored metrics before schema 6
        return true;
    return forEachRun(project, "DELETE FROM run_metrics WHERE run_id = ?", runs, error);
}

bool dropEmptyRuns(Project &project, const QList<RunId> &runs, QString *error)
{
    return forEachRun(project,
                      "DELETE FROM run WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM source WHERE "
                      "run_id = ?1) AND NOT EXISTS (SELECT 1 FROM track WHERE run_id = ?1)",
                      runs, error);
}

PlacedSourceReader::PlacedSourceReader(Project &project)
    : m_read(project.db().prepare(
          "SELECT s.id, s.run_id, r.name, s.format, json_extract(s.metadata, "
          "'$.distributedInfo.rank'), "
          "json_extract(s.metadata, '$.distributedInfo.world_size'), "
          "(SELECT max(t.rank) FROM track t WHERE t.source_id = s.id), "
          "(SELECT min(t.start_ns) FROM track t WHERE t.source_id = s.id) + s.clock_offset_ns, "
          "(SELECT max(t.end_ns) FROM track t WHERE t.source_id = s.id) + s.clock_offset_ns "
          "FROM source s JOIN run r ON r.id = s.run_id WHERE s.path = ? AND s.status = 'imported'"))
{
}

std::optional<PlacedSource> PlacedSourceReader::at(const QString &path)
{
    SqliteStatement &read = m_read;
    read.reset();
    read.bind(1, path);
    if (!read.step())
        return std::nullopt;
    PlacedSource s;
    s.id = read.int64(0);
    s.run = read.int64(1);
    s.runName = read.text(2);
    s.format = read.text(3);
    auto optInt = [&](int c) {
        return read.isNull(c) ? std::nullopt : std::optional<int>(int(read.int64(c)));
    };
    s.rank = optInt(4);
    s.worldSize = optInt(5);
    s.trackRank = optInt(6);
    if (!read.isNull(7))
        s.start = read.int64(7);
    if (!read.isNull(8))
        s.end = read.int64(8);
    return s;
}

bool moveSource(Project &project, SourceId source, RunId run, QString *error)
{
    for (const char *sql : {"UPDATE source SET run_id = ?1 WHERE id = ?2",
                            "UPDATE track SET run_id = ?1 WHERE source_id = ?2"}) {
        auto st = project.db().prepare(sql);
        st.bind(1, run);
        st.bind(2, source);
        if (!st.exec(error))
            return false;
    }
    return true;
}

QList<std::optional<QJsonObject>> sourceRunParams(Project &project, RunId run)
{
    QList<std::optional<QJsonObject>> out;
    auto st = project.db().prepare("SELECT json_extract(metadata, '$.run_params') FROM source "
                                   "WHERE run_id = ? AND status = 'imported'");
    st.bind(1, run);
    while (st.step())
        out.append(st.isNull(0)
                       ? std::nullopt
                       : std::optional(QJsonDocument::fromJson(st.text(0).toUtf8()).object()));
    return out;
}

QJsonObject runParams(Project &project, RunId run)
{
    auto st = project.db().prepare("SELECT params FROM run WHERE id = ?");
    st.bind(1, run);
    return st.step() ? QJsonDocument::fromJson(st.text(0).toUtf8()).object() : QJsonObject();
}

QJsonObject runTags(Project &project, RunId run)
{
    auto st = project.db().prepare("SELECT tags FROM run WHERE id = ?");
    st.bind(1, run);
    return st.step() ? QJsonDocument::fromJson(st.text(0).toUtf8()).object() : QJsonObject();
}

bool storeRunTags(Project &project, RunId run, const QJsonObject &tags, QString *error)
{
    auto st = project.db().prepare("UPDATE run SET tags = ? WHERE id = ?");
    st.bindJson(1, tags);
    st.bind(2, run);
    return st.exec(error);
}

bool setRunParams(Project &project, RunId run, const QJsonObject &params, QString *error)
{
    auto st = project.db().prepare("UPDATE run SET params = ? WHERE id = ?");
    st.bindJson(1, params);
    st.bind(2, run);
    return st.exec(error);
}

bool joinWorkloadByName(Project &project, const QString &run, const QString &workload,
                        QString *error)
{
    auto &db = project.db();
    auto find = db.prepare(
        "SELECT id FROM workload WHERE name = ? ORDER BY experiment_id IS NOT NULL LIMIT 1");
    find.bind(1, workload);
    qint64 wl = 0;
    if (find.step()) {
        wl = find.int64(0);
    } else {
        auto add = db.prepare("INSERT INTO workload(experiment_id, name) VALUES(NULL, ?)");
        add.bind(1, workload);
        if (!add.exec(error))
            return false;
        wl = db.lastInsertRowId();
    }
    auto link =
        db.prepare("UPDATE run SET workload_id = ?1 WHERE name = ?2 AND workload_id IS NULL");
    link.bind(1, wl);
    link.bind(2, run);
    return link.exec(error);
}

bool placeInExperiment(Project &project, RunId run, const QString &name, const QJsonObject &params,
                       const QJsonObject &tags, QString *error)
{
    auto &db = project.db();
    auto e = db.prepare("INSERT INTO experiment(name, params) VALUES(?, ?) "
                        "ON CONFLICT(name) DO UPDATE SET params = excluded.params");
    e.bind(1, name);
    e.bindJson(2, params);
    auto wl = db.prepare("INSERT OR IGNORE INTO workload(experiment_id, name) "
                         "SELECT id, name FROM experiment WHERE name = ?");
    wl.bind(1, name);
    auto link = db.prepare("UPDATE run SET workload_id = (SELECT wl.id FROM workload wl JOIN "
                           "experiment x ON x.id = wl.experiment_id WHERE x.name = ?1 AND "
                           "wl.name = ?1), tags = ?2 WHERE id = ?3");
    link.bind(1, name);
    link.bindJson(2, tags);
    link.bind(3, run);
    if (e.exec() && wl.exec() && link.exec())
        return true;
    if (error)
        *error = db.lastError();
    return false;
}

std::vector<ProcessOp> processOps(Project &project, RunId run, qint64 pid, StringId category)
{
    // The pid is bound as text, as the importers stored it in some projects.
    auto st =
        project.db().prepare("SELECT s.id, s.track_id, s.ts, s.dur, s.name_id, s.external_id, "
                             "json_extract(s.args, '$.\"Record function id\"') FROM slice s JOIN "
                             "track t ON t.id = s.track_id "
                             "WHERE t.run_id = ?1 AND t.pid = ?2 AND s.cat_id = ?3 ORDER BY "
                             "s.track_id, s.ts, s.dur DESC");
    st.bind(1, run);
    st.bind(2, QString::number(pid));
    st.bind(3, category);
    std::vector<ProcessOp> out;
    while (st.step()) {
        ProcessOp op;
        op.id = st.int64(0);
        op.track = st.int64(1);
        op.ts = st.int64(2);
        op.dur = st.int64(3);
        op.name = st.int64(4);
        if (!st.isNull(5))
            op.external = st.int64(5);
        if (!st.isNull(6))
            op.recordFunction = st.int64(6);
        out.push_back(op);
    }
    return out;
}

QStringList importedPathsOfRunFamily(Project &project, const QString &run)
{
    auto st = project.db().prepare(
        "SELECT s.path FROM source s JOIN run r ON r.id = s.run_id WHERE s.status = 'imported' "
        "AND (r.name = ?1 OR substr(r.name, 1, length(?1) + 1) = ?1 || '/') ORDER BY s.path");
    st.bind(1, run);
    QStringList out;
    while (st.step())
        out.append(st.text(0));
    return out;
}

QStringList importedPaths(Project &project, RunId run, const QString &format, int limit)
{
    auto st = project.db().prepare("SELECT path FROM source WHERE run_id = ? AND format = ? "
                                   "AND status = 'imported' ORDER BY path LIMIT ?");
    st.bind(1, run);
    st.bind(2, format);
    st.bind(3, qint64(limit));
    QStringList out;
    while (st.step())
        out.append(st.text(0));
    return out;
}

QList<std::pair<RunId, QString>> measuredRunsWithProcess(Project &project, qint64 pid, RunId except)
{
    auto st = project.db().prepare(
        "SELECT DISTINCT t.run_id, r.name FROM track t JOIN run r ON r.id = t.run_id "
        "WHERE t.pid = ?1 AND t.run_id != ?2 AND r.kind = 'measured' ORDER BY t.run_id");
    st.bind(1, QString::number(pid));
    st.bind(2, except);
    QList<std::pair<RunId, QString>> out;
    while (st.step())
        out.append({st.int64(0), st.text(1)});
    return out;
}

} // namespace gml
