// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourcerecords.h"

#include "project.h"

#include <string>

namespace gml {

SourceId insertFailedSource(Project &project, const NewSource &s, QString *error)
{
    auto st = project.db().prepare(
        "INSERT INTO source(run_id, path, format, size, mtime_ns, hash, importer_version, "
        "status, error) VALUES(?,?,?,?,?,?,?,'failed',?)");
    st.bind(1, s.run);
    st.bind(2, s.path);
    st.bind(3, s.format);
    st.bind(4, s.size);
    st.bind(5, s.mtimeNs);
    st.bind(6, s.hash);
    st.bind(7, qint64(s.importerVersion));
    st.bind(8, s.error);
    if (!st.exec(error))
        return 0;
    return project.db().lastInsertRowId();
}

bool insertSkippedSource(Project &project, RunId run, const QString &path, qint64 size,
                         qint64 mtimeNs, const QString &reason, QString *error)
{
    auto st = project.db().prepare("INSERT INTO source(run_id, path, format, size, mtime_ns, "
                                   "status, error) VALUES(?,?,'unknown',?,?,'skipped',?)");
    st.bind(1, run);
    st.bind(2, path);
    st.bind(3, size);
    st.bind(4, mtimeNs);
    st.bind(5, reason);
    return st.exec(error);
}

SourceId insertSideSource(Project &side, RunId run, const QString &path, const QString &format,
                          QString *error)
{
    auto st = side.db().prepare(
        "INSERT INTO source(run_id, path, format, status) VALUES(?,?,?,'failed')");
    st.bind(1, run);
    st.bind(2, path);
    st.bind(3, format);
    if (!st.exec(error))
        return 0;
    return side.db().lastInsertRowId();
}

bool setSourceError(Project &project, SourceId source, const QString &text, QString *error)
{
    auto st = project.db().prepare("UPDATE source SET error=? WHERE id=?");
    st.bind(1, text);
    st.bind(2, source);
    return st.exec(error);
}

bool setSourceHash(Project &project, SourceId source, const QString &hash, QString *error)
{
    auto st = project.db().prepare("UPDATE source SET hash = ? WHERE id = ?");
    st.bind(1, hash);
    st.bind(2, source);
    return st.exec(error);
}

bool setSourcePath(Project &project, SourceId source, const QString &path, QString *error)
{
    auto st = project.db().prepare("UPDATE source SET path = ? WHERE id = ?");
    st.bind(1, path);
    st.bind(2, source);
    return st.exec(error);
}

bool relinkSource(Project &project, SourceId source, const QString &path, qint64 mtimeNs,
                  QString *error)
{
    auto st = project.db().prepare("UPDATE source SET path = ?, mtime_ns = ? WHERE id = ?");
    st.bind(1, path);
    st.bind(2, mtimeNs);
    st.bind(3, source);
    return st.exec(error);
}

bool anySourceOfSize(Project &project, qint64 size)
{
    auto st = project.db().prepare("SELECT 1 FROM source WHERE size = ? LIMIT 1");
    st.bind(1, size);
    return st.step();
}

QList<SourceRecord> importedSourcesOfSize(Project &project, qint64 size, const QString &format,
                                          const QString &hash)
{
    QList<SourceRecord> out;
    auto st = project.db().prepare("SELECT id, run_id, path, hash FROM source WHERE size = ? AND "
                                   "hash = ? AND format = ? AND status = 'imported' ORDER BY id");
    st.bind(1, size);
    st.bind(2, hash);
    st.bind(3, format);
    while (st.step()) {
        SourceRecord r;
        r.id = st.int64(0);
        r.runId = st.int64(1);
        r.path = st.text(2);
        r.format = format;
        r.size = size;
        r.hash = st.text(3);
        r.status = QStringLiteral("imported");
        out.append(r);
    }
    return out;
}

bool setSourceUserOffset(Project &project, SourceId source, TimeNs offset, QString *error)
{
    auto st =
        project.db().prepare("UPDATE source SET align_user_ns = ?1, align_ns = ?1 WHERE id = ?2");
    st.bind(1, qint64(offset));
    st.bind(2, source);
    return st.exec(error);
}

std::optional<ImportedSource> importedSource(Project &project, SourceId source)
{
    auto q = project.db().prepare(
        "SELECT importer_version, metadata, json_extract(metadata, '$.time_zone'), "
        "slices, counter_samples, flows FROM source WHERE id = ?");
    q.bind(1, source);
    if (!q.step())
        return std::nullopt;
    ImportedSource out;
    out.importerVersion = int(q.int64(0));
    out.metadata = q.text(1);
    if (!q.isNull(2))
        out.timeZone = q.text(2);
    out.slices = q.int64(3);
    out.counterSamples = q.int64(4);
    out.flows = q.int64(5);
    return out;
}

bool setSourceTail(Project &project, SourceId source, qint64 size, qint64 mtimeNs,
                   const QString &hash, const QString &tailJson, QString *error)
{
    auto st = project.db().prepare("UPDATE source SET size = ?, mtime_ns = ?, hash = ?, "
                                   "metadata = json_set(metadata, '$.tail', json(?)) WHERE id = ?");
    st.bind(1, size);
    st.bind(2, mtimeNs);
    st.bind(3, hash);
    st.bind(4, tailJson);
    st.bind(5, source);
    return st.exec(error);
}

QList<SourceTail> sourceTails(Project &project)
{
    QList<SourceTail> out;
    auto st = project.db().prepare(
        "SELECT path, json_extract(metadata, '$.tail.offset'), json_extract(metadata, "
        "'$.tail.line') FROM source WHERE json_extract(metadata, '$.tail.offset') IS NOT NULL "
        "ORDER BY path");
    while (st.step())
        out.append(SourceTail{st.text(0), st.int64(1), st.int64(2)});
    return out;
}

std::optional<qint64> tailOffsetOf(Project &project, const QString &path)
{
    auto st = project.db().prepare(
        "SELECT json_extract(metadata, '$.tail.offset') FROM source WHERE path = ?");
    st.bind(1, path);
    if (!st.step() || st.isNull(0))
        return std::nullopt;
    return st.int64(0);
}

QList<SourceId> sourcesMatchingPath(Project &project, RunId run, const QString &path)
{
    QList<SourceId> out;
    auto st = project.db().prepare(
        "SELECT id FROM source WHERE run_id = ? AND (path = ? OR path LIKE ?)");
    st.bind(1, run);
    st.bind(2, path);
    st.bind(3, QStringLiteral("%/") + path);
    while (st.step())
        out.append(st.int64(0));
    return out;
}

std::unordered_map<SourceId, QString> sourcePaths(Project &project, RunId run)
{
    std::unordered_map<SourceId, QString> out;
    auto st = project.db().prepare("SELECT id, path FROM source WHERE run_id = ?");
    st.bind(1, run);
    while (st.step())
        out.emplace(st.int64(0), st.text(1));
    return out;
}

QList<std::pair<QString, QString>> failedSources(Project &project, RunId run)
{
    QList<std::pair<QString, QString>> out;
    auto failed =
        project.db().prepare(std::string("SELECT path, coalesce(error, '') FROM source WHERE ") +
                             (run ? "run_id = ? AND " : "") + "status = 'failed' ORDER BY path");
    if (run)
        failed.bind(1, run);
    while (failed.step())
        out.append({failed.text(0), failed.text(1)});
    return out;
}

QList<LinkedSource> importedSourcesWithRuns(Project &project)
{
    QList<LinkedSource> out;
    auto st = project.db().prepare(
        "SELECT s.path, s.format, r.name, json_extract(s.metadata, '$.matched_operators'), "
        "json_extract(s.metadata, '$.pid') FROM source s JOIN run r ON r.id = s.run_id "
        "WHERE s.status = 'imported' ORDER BY s.id");
    while (st.step()) {
        LinkedSource s{st.text(0), st.text(1), st.text(2), {}, {}};
        if (!st.isNull(3))
            s.matchedOperators = st.int64(3);
        if (!st.isNull(4))
            s.pid = st.int64(4);
        out.append(s);
    }
    return out;
}

bool runHasProcess(Project &project, const QString &runName, qint64 pid)
{
    // The pid is bound as text, as the importers stored it in some projects.
    auto st = project.db().prepare("SELECT 1 FROM track t JOIN run r ON r.id = t.run_id "
                                   "WHERE r.name = ?1 AND t.pid = ?2 LIMIT 1");
    st.bind(1, runName);
    st.bind(2, QString::number(pid));
    return st.step();
}

} // namespace gml
