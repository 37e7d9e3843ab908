// SPDX-License-Identifier: GPL-3.0-or-later
#include "derivedruns.h"

#include "project.h"
#include "projecttime.h"
#include "sourcerecords.h"

#include <string>

namespace gml {

bool dropDerivedRun(Project &project, const QString &name, const QString &kind, const QString &what,
                    QString *error)
{
    auto &db = project.db();
    const auto existing = project.findRun(name);
    if (!existing)
        return true;
    auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    auto st = db.prepare("SELECT kind FROM run WHERE id = ?");
    st.bind(1, *existing);
    if (st.step() && st.text(0) != kind)
        return fail(QStringLiteral("run '%1' is a %2 run; %3 never replaces one")
                        .arg(name, st.text(0), what));
    std::vector<SourceId> sources;
    auto src = db.prepare("SELECT id FROM source WHERE run_id = ?");
    src.bind(1, *existing);
    while (src.step())
        sources.push_back(src.int64(0));
    QString why;
    for (SourceId s : sources)
        if (!project.deleteSource(s, &why))
            return fail(why);
    auto del = db.prepare("DELETE FROM run WHERE id = ?");
    del.bind(1, *existing);
    if (!del.exec())
        return fail(del.errorString());
    return true;
}

bool setRunKind(Project &project, RunId run, const QString &kind, const QJsonObject &params,
                QString *error)
{
    auto st = project.db().prepare("UPDATE run SET kind = ?, params = ? WHERE id = ?");
    st.bind(1, kind);
    st.bindJson(2, params);
    st.bind(3, run);
    return st.exec(error);
}

SourceId insertDerivedSource(Project &project, RunId run, const QString &path,
                             const QString &format, QString *error)
{
    return insertSideSource(project, run, path, format, error); // the same row: 'failed' until done
}

bool writeRunMetrics(Project &project, RunId run, const QJsonObject &metrics, QString *error)
{
    auto st =
        project.db().prepare("INSERT OR REPLACE INTO run_metrics(run_id, metrics) VALUES(?, ?)");
    st.bind(1, run);
    st.bindJson(2, metrics);
    return st.exec(error);
}

std::vector<TrackTemplate> trackTemplates(Project &project, RunId run)
{
    std::vector<TrackTemplate> out;
    auto st = project.db().prepare(
        "SELECT id, coalesce(parent_id, 0), kind, name, sort_key, coalesce(rank, -1), "
        "coalesce(pid, ''), coalesce(tid, ''), coalesce(unit, '') FROM track WHERE run_id = ?");
    st.bind(1, run);
    while (st.step()) {
        TrackSpec s;
        s.kind = TrackKind(st.int64(2));
        s.name = st.text(3);
        s.sortKey = st.int64(4);
        s.rank = int(st.int64(5));
        s.pid = st.text(6);
        s.tid = st.text(7);
        s.unit = st.text(8);
        out.push_back(TrackTemplate{st.int64(0), st.int64(1), s});
    }
    return out;
}

std::optional<TimeNs> earliestTrackStart(Project &project, const QString &run)
{
    const std::string start =
        std::string("SELECT min(t.start_ns + coalesce(") + GML_SOURCE_OFFSET_SQL("src") +
        ", 0)) FROM track t JOIN run r ON r.id = t.run_id LEFT JOIN source src ON src.id = "
        "t.source_id WHERE ";
    auto st =
        project.db().prepare(start + (run.isEmpty() ? "r.kind != 'simulated'" : "r.name = ?"));
    if (!run.isEmpty())
        st.bind(1, run);
    if (st.step() && !st.isNull(0))
        return st.int64(0);
    return std::nullopt;
}

bool storeScenario(Project &project, RunId run, const QString &name, const QJsonArray &transforms,
                   const QJsonObject &results, QString *error)
{
    auto st = project.db().prepare(
        "INSERT INTO scenario(run_id, name, transforms, results) VALUES(?, ?, ?, ?) "
        "ON CONFLICT(run_id, name) DO UPDATE SET transforms = excluded.transforms, results = "
        "excluded.results");
    st.bind(1, run);
    st.bind(2, name);
    st.bindJson(3, transforms);
    st.bindJson(4, results);
    return st.exec(error);
}

std::optional<ScenarioRow> scenarioRow(Project &project, RunId run, const QString &name)
{
    auto st = project.db().prepare(
        "SELECT transforms, coalesce(results, '{}') FROM scenario WHERE run_id = ? AND name = ?");
    st.bind(1, run);
    st.bind(2, name);
    if (!st.step())
        return std::nullopt;
    return ScenarioRow{name, st.text(0), st.text(1)};
}

QList<ScenarioRow> scenarioRows(Project &project, RunId run)
{
    QList<ScenarioRow> out;
    auto st = project.db().prepare("SELECT name, transforms, coalesce(results, '{}') FROM scenario "
                                   "WHERE run_id = ? ORDER BY name");
    st.bind(1, run);
    while (st.step())
        out.append(ScenarioRow{st.text(0), st.text(1), st.text(2)});
    return out;
}

} // namespace gml
