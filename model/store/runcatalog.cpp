// SPDX-License-Identifier: GPL-3.0-or-later
#include "runcatalog.h"

#include "project.h"
#include "projectsummary.h"
#include "runrecords.h"
#include "timeformat.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <functional>

#include <algorithm>

namespace gml {

static QJsonObject parseObject(const QString &text)
{
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

static QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

static QString valueText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 12);
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    if (v.isObject())
        return compact(v.toObject());
    return {};
}

double CatalogRun::metric(const QString &key, double fallback) const
{
    const QJsonValue v = metrics.value(key);
    return v.isDouble() ? v.toDouble() : fallback;
}

QString CatalogRun::param(const QString &key) const
{
    if (params.contains(key))
        return valueText(params.value(key));
    const QJsonObject mlflow = params.value(QStringLiteral("mlflow.params")).toObject();
    if (mlflow.contains(key))
        return valueText(mlflow.value(key));
    return {};
}

const CatalogRun *RunCatalog::run(const QString &name) const
{
    for (const auto &r : runs)
        if (r.name == name)
            return &r;
    return nullptr;
}

const CatalogRun *RunCatalog::run(RunId id) const
{
    for (const auto &r : runs)
        if (r.id == id)
            return &r;
    return nullptr;
}

const CatalogWorkload *RunCatalog::workload(qint64 id) const
{
    for (const auto &w : workloads)
        if (w.id == id)
            return &w;
    return nullptr;
}

const CatalogExperiment *RunCatalog::experiment(qint64 id) const
{
    for (const auto &e : experiments)
        if (e.id == id)
            return &e;
    return nullptr;
}

QString RunCatalog::placeOf(const CatalogRun &r) const
{
    const CatalogWorkload *w = workload(r.workloadId);
    if (!w)
        return {};
    const CatalogExperiment *e = experiment(w->experimentId);
    return e ? e->name + QStringLiteral(" / ") + w->name : w->name;
}

QStringList RunCatalog::paramKeys() const
{
    QSet<QString> keys;
    for (const auto &r : runs) {
        for (auto it = r.params.begin(); it != r.params.end(); ++it)
            if (!it.value().isObject() && !it.value().isArray())
                keys.insert(it.key());
        const QJsonObject mlflow = r.params.value(QStringLiteral("mlflow.params")).toObject();
        for (auto it = mlflow.begin(); it != mlflow.end(); ++it)
            keys.insert(it.key());
    }
    QStringList out(keys.begin(), keys.end());
    out.sort();
    return out;
}

std::optional<RunCatalog> loadRunCatalog(Project &project, QString *error)
{
    auto &db = project.db();
    RunCatalog c;
    auto fail = [&](const SqliteStatement &st) -> std::optional<RunCatalog> {
        if (error)
            *error = st.errorString();
        return std::nullopt;
    };
    {
        auto st = db.prepare("SELECT id, name, params, tags FROM experiment ORDER BY name");
        while (st.step())
            c.experiments.append(
                {st.int64(0), st.text(1), parseObject(st.text(2)), parseObject(st.text(3))});
        if (!st.errorString().isEmpty())
            return fail(st);
    }
    {
        auto st =
            db.prepare("SELECT id, coalesce(experiment_id, 0), name FROM workload ORDER BY name");
        while (st.step())
            c.workloads.append({st.int64(0), st.int64(1), st.text(2)});
    }
    QHash<RunId, int> index;
    {
        auto st =
            db.prepare("SELECT id, name, kind, params, tags, coalesce(workload_id, 0), created_at "
                       "FROM run ORDER BY name");
        while (st.step()) {
            CatalogRun r;
            r.id = st.int64(0);
            r.name = st.text(1);
            r.kind = st.text(2);
            r.params = parseObject(st.text(3));
            r.tags = parseObject(st.text(4));
            r.workloadId = st.int64(5);
            r.createdAt = st.text(6);
            r.status = QStringLiteral("ok");
            if (r.kind == QLatin1String("predicted")) {
                r.measuredRun = r.params.value(QStringLiteral("measured_run")).toString();
                r.scenario = r.params.value(QStringLiteral("scenario")).toString();
            }
            index.insert(r.id, int(c.runs.size()));
            c.runs.append(r);
        }
        if (!st.errorString().isEmpty())
            return fail(st);
    }
    for (auto &r : c.runs)
        if (const CatalogWorkload *w = c.workload(r.workloadId))
            r.experimentId = w->experimentId;
    {
        auto st =
            db.prepare("SELECT run_id, count(*), sum(status = 'failed'), sum(status = 'imported') "
                       "FROM source GROUP BY run_id");
        while (st.step()) {
            auto it = index.constFind(st.int64(0));
            if (it == index.constEnd())
                continue;
            CatalogRun &r = c.runs[*it];
            r.sources = st.int64(1);
            const qint64 failed = st.int64(2);
            if (failed == 0 && st.int64(3) == 0 && r.kind == QLatin1String("measured"))
                r.status = QStringLiteral("no data (files skipped)");
            else if (failed > 0 && r.kind == QLatin1String("measured"))
                r.status = st.int64(3) == 0
                               ? QStringLiteral("failed")
                               : QStringLiteral("%1 of %2 files failed").arg(failed).arg(r.sources);
        }
    }
    for (auto &r : c.runs) {
        const QString mlflow = r.params.value(QStringLiteral("mlflow.status")).toString();
        if (!mlflow.isEmpty() && r.status == QLatin1String("ok"))
            r.status = mlflow.toLower();
    }
    const auto spans = runSpans(project);
    for (auto it = spans.begin(); it != spans.end(); ++it)
        if (auto i = index.constFind(it.key()); i != index.constEnd()) {
            c.runs[*i].start = it->first;
            c.runs[*i].end = it->second;
        }
    if (project.schemaVersion() >= 6) {
        auto st = db.prepare("SELECT run_id, metrics FROM run_metrics");
        while (st.step()) {
            auto it = index.constFind(st.int64(0));
            if (it == index.constEnd())
                continue;
            c.runs[*it].metrics = parseObject(st.text(1));
            c.runs[*it].hasMetrics = true;
        }
    }
    // A "run" whose every file was skipped (an MLflow experiment's own meta.yaml, a folder of
    // notes) holds nothing to browse or compare; the Sources panel still lists its files.
    c.runs.removeIf(
        [](const CatalogRun &r) { return r.status == QLatin1String("no data (files skipped)"); });
    return c;
}

static bool inTransaction(Project &project, QString *error,
                          const std::function<bool(QString *)> &body)
{
    if (project.isReadOnly()) {
        if (error)
            *error = QStringLiteral("the project is open read-only");
        return false;
    }
    if (!project.begin(error))
        return false;
    if (!body(error) || !project.commit(error)) {
        project.rollback();
        return false;
    }
    return true;
}

// The id of a named row, inserted when missing (an experiment, or a workload of one).
static qint64 ensureExperiment(SqliteDb &db, const QString &name, QString *error)
{
    auto find = db.prepare("SELECT id FROM experiment WHERE name = ?");
    find.bind(1, name);
    if (find.step())
        return find.int64(0);
    auto add = db.prepare("INSERT INTO experiment(name) VALUES(?)");
    add.bind(1, name);
    if (!add.exec()) {
        if (error)
            *error = add.errorString();
        return 0;
    }
    return db.lastInsertRowId();
}

static qint64 ensureWorkload(SqliteDb &db, qint64 experiment, const QString &name, QString *error)
{
    // experiment_id IS ?: a NULL experiment matches NULL (UNIQUE does not guard NULLs).
    auto find = db.prepare("SELECT id FROM workload WHERE experiment_id IS ?1 AND name = ?2");
    if (experiment)
        find.bind(1, experiment);
    else
        find.bindNull(1);
    find.bind(2, name);
    if (find.step())
        return find.int64(0);
    auto add = db.prepare("INSERT INTO workload(experiment_id, name) VALUES(?, ?)");
    if (experiment)
        add.bind(1, experiment);
    else
        add.bindNull(1);
    add.bind(2, name);
    if (!add.exec()) {
        if (error)
            *error = add.errorString();
        return 0;
    }
    return db.lastInsertRowId();
}

bool assignRuns(Project &project, const QList<RunId> &runs, const QString &experiment,
                const QString &workload, QString *error)
{
    return inTransaction(project, error, [&](QString *why) {
        auto &db = project.db();
        qint64 wl = 0;
        if (!workload.trimmed().isEmpty()) {
            const qint64 exp = experiment.trimmed().isEmpty()
                                   ? 0
                                   : ensureExperiment(db, experiment.trimmed(), why);
            if (!experiment.trimmed().isEmpty() && !exp)
                return false;
            if (!(wl = ensureWorkload(db, exp, workload.trimmed(), why)))
                return false;
        }
        auto st = db.prepare("UPDATE run SET workload_id = ? WHERE id = ?");
        for (RunId r : runs) {
            st.reset();
            if (wl)
                st.bind(1, wl);
            else
                st.bindNull(1);
            st.bind(2, r);
            if (!st.exec()) {
                if (why)
                    *why = st.errorString();
                return false;
            }
        }
        // Workloads and experiments left empty by the move go (not those made empty elsewhere).
        return db.exec("DELETE FROM workload WHERE NOT EXISTS (SELECT 1 FROM run WHERE workload_id "
                       "= workload.id);"
                       "DELETE FROM experiment WHERE NOT EXISTS (SELECT 1 FROM workload WHERE "
                       "experiment_id = experiment.id);",
                       why);
    });
}

bool setRunTags(Project &project, RunId run, const QJsonObject &tags, QString *error)
{
    return inTransaction(project, error,
                         [&](QString *why) { return storeRunTags(project, run, tags, why); });
}

bool storeRunMetrics(Project &project, RunId run, const QJsonObject &metrics, QString *error)
{
    return inTransaction(project, error, [&](QString *why) {
        auto st = project.db().prepare(
            "INSERT OR REPLACE INTO run_metrics(run_id, metrics) VALUES(?, ?)");
        st.bind(1, run);
        st.bind(2, compact(metrics));
        if (!st.exec()) {
            if (why)
                *why = st.errorString();
            return false;
        }
        return true;
    });
}

QList<RunId> runsWithoutMetrics(Project &project, int version)
{
    QList<RunId> out;
    if (project.schemaVersion() < 6)
        return out;
    auto st = project.db().prepare(
        "SELECT id FROM run WHERE id NOT IN (SELECT run_id FROM run_metrics WHERE "
        "json_extract(metrics, '$.version') = ?) ORDER BY id");
    st.bind(1, qint64(version));
    while (st.step())
        out.append(st.int64(0));
    return out;
}

bool runMatches(const RunCatalog &catalog, const CatalogRun &r, const QString &filter)
{
    if (filter.isEmpty())
        return true;
    const auto has = [&](const QString &text) {
        return text.contains(filter, Qt::CaseInsensitive);
    };
    if (has(r.name) || has(r.kind) || has(r.status) || has(catalog.placeOf(r)))
        return true;
    // "key=value" matches a param or tag exactly; anything else, any text of them.
    const int eq = filter.indexOf(QLatin1Char('='));
    if (eq > 0) {
        const QString key = filter.left(eq).trimmed(), value = filter.mid(eq + 1).trimmed();
        if (r.param(key) == value || valueText(r.tags.value(key)) == value)
            return true;
    }
    return has(compact(r.params)) || has(compact(r.tags));
}

static QString metricText(const CatalogRun &r)
{
    if (!r.hasMetrics)
        return QStringLiteral("(metrics not computed)");
    QStringList parts;
    const double step = r.metric(QStringLiteral("step_mean_ns"));
    if (step > 0) {
        const qint64 n = qint64(r.metric(QStringLiteral("iterations"), 0));
        parts << (n > 1
                      ? QStringLiteral("step %1 ± %2 (%3 iterations)")
                            .arg(formatDuration(TimeNs(step)),
                                 formatDuration(TimeNs(r.metric(QStringLiteral("step_sd_ns"), 0))))
                            .arg(n)
                      : QStringLiteral("step %1 (%2)")
                            .arg(formatDuration(TimeNs(step)),
                                 n == 1 ? QStringLiteral("1 iteration")
                                        : QStringLiteral("the whole run")));
    }
    if (const double busy = r.metric(QStringLiteral("gpu_busy")); busy >= 0)
        parts << QStringLiteral("GPU busy %1%").arg(busy * 100, 0, 'f', 1);
    else if (const double util = r.metric(QStringLiteral("gpu_utilisation")); util >= 0)
        parts << QStringLiteral("GPU util %1%").arg(util, 0, 'f', 1);
    if (const double mfu = r.metric(QStringLiteral("mfu")); mfu >= 0)
        parts << QStringLiteral("MFU %1%, HFU %2%")
                     .arg(mfu * 100, 0, 'f', 1)
                     .arg(r.metric(QStringLiteral("hfu"), mfu) * 100, 0, 'f', 1);
    if (const double mem = r.metric(QStringLiteral("peak_memory_bytes")); mem >= 0)
        parts << QStringLiteral("peak memory %1").arg(formatBytes(mem));
    if (const double e = r.metric(QStringLiteral("energy_j")); e >= 0)
        parts << QStringLiteral("energy %1 J").arg(e, 0, 'f', 0);
    const QJsonObject last = r.metrics.value(QStringLiteral("last_metrics")).toObject();
    for (auto it = last.begin(); it != last.end(); ++it)
        parts << QStringLiteral("%1 %2 (last)").arg(it.key()).arg(it.value().toDouble(), 0, 'g', 5);
    return parts.isEmpty() ? QStringLiteral("(no headline metric)")
                           : parts.join(QStringLiteral(", "));
}

static QString startText(TimeNs start)
{
    return start > 0 ? formatUtc(start) : QStringLiteral("-");
}

QString catalogToText(const RunCatalog &c, const QString &filter)
{
    QString out;
    int shown = 0;
    auto runLine = [&](const CatalogRun &r, const QString &indent) {
        out += QStringLiteral("%1%2  [%3, %4]  start %5, duration %6\n")
                   .arg(indent, r.name, r.kind, r.status, startText(r.start),
                        r.duration() > 0 ? formatDuration(r.duration()) : QStringLiteral("-"));
        out += indent + QStringLiteral("    ") + metricText(r) + QLatin1Char('\n');
        if (!r.measuredRun.isEmpty())
            out += indent +
                   QStringLiteral("    predicted from '%1': %2\n").arg(r.measuredRun, r.scenario);
        if (!r.tags.isEmpty()) {
            QStringList tags;
            for (auto it = r.tags.begin(); it != r.tags.end(); ++it) {
                QString v = valueText(it.value()).simplified();
                if (v.size() > 40)
                    v = v.left(39) + QChar(0x2026);
                tags << it.key() + QLatin1Char('=') + v;
            }
            out += indent + QStringLiteral("    tags: ") + tags.join(QStringLiteral(", ")) +
                   QLatin1Char('\n');
        }
        ++shown;
    };
    auto runsOf = [&](qint64 workload) {
        QList<const CatalogRun *> out;
        for (const auto &r : c.runs)
            if (r.workloadId == workload && runMatches(c, r, filter))
                out.append(&r);
        return out;
    };
    auto workloadBlock = [&](const CatalogWorkload &w, const QString &indent) {
        const auto runs = runsOf(w.id);
        if (runs.isEmpty())
            return;
        out += QStringLiteral("%1workload %2 (%3 run%4)\n")
                   .arg(indent, w.name)
                   .arg(runs.size())
                   .arg(runs.size() == 1 ? QString() : QStringLiteral("s"));
        for (const CatalogRun *r : runs)
            runLine(*r, indent + QStringLiteral("  "));
    };
    for (const auto &e : c.experiments) {
        const qsizetype before = out.size();
        out += QStringLiteral("experiment %1\n").arg(e.name);
        const qsizetype header = out.size();
        for (const auto &w : c.workloads)
            if (w.experimentId == e.id)
                workloadBlock(w, QStringLiteral("  "));
        if (out.size() == header)
            out.truncate(before);
    }
    for (const auto &w : c.workloads)
        if (w.experimentId == 0)
            workloadBlock(w, QString());
    const auto loose = runsOf(0);
    if (!loose.isEmpty()) {
        out += QStringLiteral("runs in no workload (%1)\n").arg(loose.size());
        for (const CatalogRun *r : loose)
            runLine(*r, QStringLiteral("  "));
    }
    out += QStringLiteral("%1 of %2 run%3 shown\n")
               .arg(shown)
               .arg(c.runs.size())
               .arg(c.runs.size() == 1 ? QString() : QStringLiteral("s"));
    return out;
}

QJsonObject catalogToJson(const RunCatalog &c, const QString &filter)
{
    QJsonArray experiments, workloads, runs;
    for (const auto &e : c.experiments)
        experiments.append(QJsonObject{{QStringLiteral("id"), e.id},
                                       {QStringLiteral("name"), e.name},
                                       {QStringLiteral("params"), e.params},
                                       {QStringLiteral("tags"), e.tags}});
    for (const auto &w : c.workloads) {
        QJsonObject o{{QStringLiteral("id"), w.id}, {QStringLiteral("name"), w.name}};
        if (const CatalogExperiment *e = c.experiment(w.experimentId))
            o.insert(QStringLiteral("experiment"), e->name);
        workloads.append(o);
    }
    for (const auto &r : c.runs) {
        if (!runMatches(c, r, filter))
            continue;
        QJsonObject o{{QStringLiteral("id"), r.id},
                      {QStringLiteral("name"), r.name},
                      {QStringLiteral("kind"), r.kind},
                      {QStringLiteral("status"), r.status},
                      {QStringLiteral("params"), r.params},
                      {QStringLiteral("tags"), r.tags},
                      {QStringLiteral("start_ns"), qint64(r.start)},
                      {QStringLiteral("duration_ns"), qint64(r.duration())},
                      {QStringLiteral("sources"), r.sources}};
        if (const CatalogWorkload *w = c.workload(r.workloadId)) {
            o.insert(QStringLiteral("workload"), w->name);
            if (const CatalogExperiment *e = c.experiment(w->experimentId))
                o.insert(QStringLiteral("experiment"), e->name);
        }
        if (r.hasMetrics)
            o.insert(QStringLiteral("metrics"), r.metrics);
        if (!r.measuredRun.isEmpty()) {
            o.insert(QStringLiteral("measured_run"), r.measuredRun);
            o.insert(QStringLiteral("scenario"), r.scenario);
        }
        runs.append(o);
    }
    return QJsonObject{{QStringLiteral("experiments"), experiments},
                       {QStringLiteral("workloads"), workloads},
                       {QStringLiteral("runs"), runs}};
}

} // namespace gml
