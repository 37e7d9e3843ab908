// SPDX-License-Identifier: GPL-3.0-or-later
#include "predictedrun.h"
#include "sourcework.h"

#include "collectiveslices.h"
#include "derivedruns.h"
#include "devicecatalog.h"
#include "project.h"
#include "runrecords.h"
#include "slicetrack.h"
#include "timelinedata.h"
#include "tracewriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <unordered_map>

namespace gml::sim {

namespace {

// What a predicted run shows: per resource, its nodes (those still there) and containers.
struct Placed
{
    int resource;
    TimeNs start;
    TimeNs end;
    SliceId measured; // 0: inserted by a transform
    StringId name;    // graph id (negative: synthetic)
    StringId cat;
    int node = -1; // -1: a container
};

std::vector<Placed> place(const DependencyGraph &g, const Replay &r)
{
    std::vector<Placed> out;
    const auto &nodes = g.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Node &n = nodes[i];
        if (r.end[i] == r.start[i] && n.end > n.start)
            continue; // removed
        out.push_back({n.resource, r.start[i], r.end[i], n.slice, n.name, n.cat, int(i)});
    }
    for (size_t c = 0; c < g.containers().size(); ++c) {
        const Container &con = g.containers()[c];
        const auto [s, e] = r.containerSpan(g, int(c));
        out.push_back({con.resource, s, std::max(s, e), con.slice, con.name, con.cat,
                       -1}); // its category kept
    }
    return out;
}

// A resource added by a transform has no track: it sits beside a GPU stream of its device.
int templateResource(const DependencyGraph &g, int res)
{
    const Resource &r = g.resources()[size_t(res)];
    if (r.track)
        return res;
    for (size_t k = 0; k < g.resources().size(); ++k) {
        const Resource &o = g.resources()[k];
        if (o.track && o.gpu && o.source == r.source && o.rank == r.rank && o.pid == r.pid)
            return int(k);
    }
    return -1;
}

// "rank 0 · GPU 0 · NVIDIA A100-SXM4-40GB" on `device`: "rank 0 · GPU 0 · NVIDIA H100 SXM5".
QString onTarget(const QString &gpuRow, const QString &device)
{
    static const QRegularExpression gpu(QStringLiteral("^(.*\\bGPU \\d+)(?: \u00b7 .*)?$"));
    const auto m = gpu.match(gpuRow);
    if (m.hasMatch())
        return m.captured(1) + QStringLiteral(" \u00b7 ") + device;
    return gpuRow + QStringLiteral(" (") + device + QLatin1Char(')');
}

// The catalog's name of a device change's target (its id when the catalog lacks it); empty
// without one.
QString targetGpuName(const QString &target)
{
    const Device *gpu = target.isEmpty() ? nullptr : DeviceCatalog::builtin().device(target);
    return gpu ? gpu->name : target;
}

} // namespace

std::optional<RunId> savePredictedRun(Project &project, RunId measuredRun,
                                      const WhatIfResult &result,
                                      const QList<Transform> &transforms, const QString &name,
                                      QString *error)
{
    const DependencyGraph &graph = *result.prepared.graph;
    const Replay &predicted = result.predicted;
    auto fail = [&](const QString &why) -> std::optional<RunId> {
        if (error)
            *error = why;
        project.rollback();
        return std::nullopt;
    };
    const QString measuredName = runName(project, measuredRun).value_or(QString());
    QJsonObject params;
    params.insert(QStringLiteral("measured_run"), measuredName);
    params.insert(QStringLiteral("transforms"), transformsToJson(transforms));
    params.insert(QStringLiteral("predicted_ns"), qint64(result.report.predicted));
    QStringList scenario;
    for (const Transform &t : transforms)
        scenario << t.describe();
    const WhatIfReport &report = result.report;
    if (!report.calibration.isEmpty())
        scenario << QStringLiteral("calibrated from %1").arg(report.calibration);
    params.insert(QStringLiteral("scenario"), scenario.join(QStringLiteral("; ")));
    // What it ran on: the target of a device change, else the measured GPUs; the workers a
    // workers change sets; the network the measured run was tagged with. What the analyses of
    // the predicted run (MFU, roofline, the collectives' links) read.
    const QJsonObject measuredParams = runParams(project, measuredRun);
    const QString target = targetDevice(transforms);
    if (!target.isEmpty()) {
        params.insert(QStringLiteral("gpu_models"), QJsonArray{target});
    } else {
        for (const char *key : {"gpu_models", "gpu_properties"})
            if (measuredParams.contains(QLatin1String(key)))
                params.insert(QLatin1String(key), measuredParams.value(QLatin1String(key)));
    }
    int workers = measuredParams.value(QStringLiteral("world_size")).toInt(0);
    bool workersChanged = false;
    for (const Transform &t : transforms)
        if (t.is("workers")) {
            workers = t.workers;
            workersChanged = true;
        }
    if (workers > 0)
        params.insert(QStringLiteral("world_size"), workers);
    const QString network =
        runTags(project, measuredRun).value(QStringLiteral("network")).toString();
    // A collective kernel keeps its recorded args (message, dtype, group; the group's size the
    // workers a workers change sets): the collectives report of the predicted run reads the
    // bytes and ranks the replay costed it with.
    QString argsError;
    std::unordered_map<SliceId, std::string> collectiveArgs;
    for (const CollectiveSlice &c : collectiveSlices(project, measuredRun, &argsError)) {
        if (c.args.isEmpty())
            continue;
        QByteArray args = c.args.toUtf8();
        if (workersChanged) {
            QJsonObject o = QJsonDocument::fromJson(args).object();
            if (o.contains(QStringLiteral("Group size"))) {
                o.insert(QStringLiteral("Group size"), workers);
                args = QJsonDocument(o).toJson(QJsonDocument::Compact);
            }
        }
        collectiveArgs.emplace(c.id, args.toStdString());
    }
    if (report.hasBand()) { // the band it was predicted with, and why
        params.insert(QStringLiteral("predicted_low_ns"), qint64(report.low.predicted));
        params.insert(QStringLiteral("predicted_high_ns"), qint64(report.high.predicted));
        params.insert(QStringLiteral("unknowns"), QJsonArray::fromStringList(report.unknowns));
    }
    if (!project.begin(error))
        return std::nullopt;
    if (QString why; !dropDerivedRun(project, name, QStringLiteral("predicted"),
                                     QStringLiteral("a prediction"), &why))
        return fail(why);
    QString why;
    const RunId run = project.ensureRun(name, &why);
    if (!run)
        return fail(why);
    if (!setRunKind(project, run, QStringLiteral("predicted"), params, &why))
        return fail(why);
    if (!network.isEmpty() &&
        !storeRunTags(project, run, QJsonObject{{QStringLiteral("network"), network}}, &why))
        return fail(why);
    const SourceId source =
        insertDerivedSource(project, run, QStringLiteral("whatif:%1/%2").arg(measuredName, name),
                            QStringLiteral("whatif"), &why);
    if (!source)
        return fail(why);
    // A device change's GPU rows name the GPU it predicts ("GPU 0 · NVIDIA H100 SXM5").
    const QString targetName = targetGpuName(target);
    TraceWriter w(project, run, source);
    // The measured tracks, parents first.
    struct TrackRow
    {
        TrackId parent;
        TrackSpec spec;
    };
    std::unordered_map<TrackId, TrackRow> rows;
    for (const TrackTemplate &t : trackTemplates(project, measuredRun))
        rows.emplace(t.id, TrackRow{t.parent, t.spec});
    std::unordered_map<TrackId, TrackId> copied;
    std::function<TrackId(TrackId)> copy = [&](TrackId old) -> TrackId {
        if (auto it = copied.find(old); it != copied.end())
            return it->second;
        const auto row = rows.find(old);
        if (row == rows.end())
            return 0;
        TrackSpec spec = row->second.spec;
        spec.parent = row->second.parent ? copy(row->second.parent) : 0;
        if (!targetName.isEmpty() && spec.kind == TrackKind::Gpu)
            spec.name = onTarget(spec.name, targetName);
        const TrackId id = w.addTrack(spec);
        copied.emplace(old, id);
        return id;
    };
    std::vector<TrackId> trackOf(graph.resources().size(), 0);
    for (size_t r = 0; r < graph.resources().size(); ++r) {
        const Resource &res = graph.resources()[r];
        if (res.track) {
            trackOf[r] = copy(res.track);
            continue;
        }
        const int t = templateResource(graph, int(r));
        TrackSpec spec;
        spec.kind = TrackKind::Stream;
        spec.name = res.name;
        spec.rank = res.rank;
        spec.pid = res.pid;
        spec.sortKey = std::numeric_limits<int>::max();
        if (t >= 0) {
            const auto row = rows.find(graph.resources()[size_t(t)].track);
            if (row != rows.end() && row->second.parent)
                spec.parent = copy(row->second.parent);
        }
        trackOf[r] = w.addTrack(spec);
    }
    std::unordered_map<int, SliceId> sliceOfNode;
    for (const Placed &p : place(graph, predicted)) {
        const StringId nameId = p.name >= 0 ? p.name : w.intern(graph.name(p.name).toStdString());
        const auto args = p.measured ? collectiveArgs.find(p.measured) : collectiveArgs.end();
        const SliceId id = w.addSlice(trackOf[size_t(p.resource)], p.start, p.end - p.start, nameId,
                                      p.cat > 0 ? p.cat : kNoId, kNoId, kNoId,
                                      args != collectiveArgs.end() ? std::string_view(args->second)
                                                                   : std::string_view());
        if (p.node >= 0)
            sliceOfNode.emplace(p.node, id);
    }
    for (const auto &[node, slice] : sliceOfNode) {
        const int launcher = graph.nodes()[size_t(node)].launcher;
        if (auto l = sliceOfNode.find(launcher); launcher >= 0 && l != sliceOfNode.end())
            w.addFlow(FlowKind::Launch, l->second, slice);
    }
    if (w.failed() || !finishSource(w, {}, &why))
        return fail(w.failed() ? w.errorString() : why);
    if (!project.commit(&why))
        return fail(why);
    return run;
}

std::shared_ptr<const TimelineData>
withPredictedRun(const std::shared_ptr<const TimelineData> &base, RunId measuredRun,
                 const DependencyGraph &graph, const Replay &predicted, const QString &label,
                 const QList<Transform> &transforms)
{
    auto data = std::make_shared<TimelineData>(*base);
    // Drop the previous prediction.
    for (qsizetype i = data->runs.size() - 1; i >= 0; --i)
        if (data->runs[i].id == kLivePredictionRun) {
            for (const auto &t : data->runs[i].tracks)
                data->slices.remove(t.id);
            data->runs.removeAt(i);
        }
    qsizetype measuredAt = -1;
    for (qsizetype i = 0; i < data->runs.size(); ++i)
        if (data->runs[i].id == measuredRun)
            measuredAt = i;
    if (measuredAt < 0)
        return data;
    const RunSummary &measured = data->runs[measuredAt];
    RunSummary run;
    run.id = kLivePredictionRun;
    run.name = label;
    run.kind = QStringLiteral("predicted");
    // Copies of the measured tracks that hold resources, with their ancestors, in tree order.
    QHash<TrackId, TrackId> liveId;
    QHash<TrackId, int> resourceOfTrack;
    for (size_t r = 0; r < graph.resources().size(); ++r)
        if (graph.resources()[r].track)
            resourceOfTrack.insert(graph.resources()[r].track, int(r));
    QHash<TrackId, const TrackSummary *> byId;
    for (const auto &t : measured.tracks)
        byId.insert(t.id, &t);
    QSet<TrackId> needed;
    for (auto it = resourceOfTrack.cbegin(); it != resourceOfTrack.cend(); ++it)
        for (const TrackSummary *t = byId.value(it.key()); t && !needed.contains(t->id);
             t = byId.value(t->parent))
            needed.insert(t->id);
    const QString targetName = targetGpuName(targetDevice(transforms));
    TrackId next = kLivePredictionRun + 1;
    std::vector<TrackId> trackOf(graph.resources().size(), 0);
    for (const auto &t : measured.tracks) {
        if (!needed.contains(t.id))
            continue;
        TrackSummary copy = t;
        if (!targetName.isEmpty() && copy.kind == TrackKind::Gpu)
            copy.name = onTarget(copy.name, targetName); // as a saved prediction's
        copy.id = next++;
        copy.parent = t.parent ? liveId.value(t.parent, 0) : 0;
        copy.counterSamples = 0;
        liveId.insert(t.id, copy.id);
        if (auto r = resourceOfTrack.constFind(t.id); r != resourceOfTrack.cend())
            trackOf[size_t(*r)] = copy.id;
        run.tracks.append(copy);
        // Resources a transform added go after their device's first stream.
        for (size_t r = 0; r < graph.resources().size(); ++r) {
            const Resource &res = graph.resources()[r];
            if (res.track || trackOf[r])
                continue;
            const int tmpl = templateResource(graph, int(r));
            if (tmpl >= 0 && graph.resources()[size_t(tmpl)].track == t.id) {
                TrackSummary added = copy;
                added.id = next++;
                added.name = res.name;
                added.kind = TrackKind::Stream;
                trackOf[r] = added.id;
                run.tracks.append(added);
            }
        }
    }
    // Names of synthetic nodes join the name table.
    QHash<StringId, StringId> synthetic;
    std::vector<std::vector<SliceTrack::Input>> inputs(graph.resources().size());
    run.start = std::numeric_limits<TimeNs>::max();
    run.end = std::numeric_limits<TimeNs>::min();
    for (const Placed &p : place(graph, predicted)) {
        StringId name = p.name;
        if (name < 0) {
            auto it = synthetic.find(name);
            if (it == synthetic.end()) {
                it = synthetic.insert(name, StringId(data->names.size()));
                data->names.push_back(graph.name(name));
            }
            name = *it;
        }
        inputs[size_t(p.resource)].push_back({p.start, p.end - p.start, p.measured, name});
        run.start = std::min(run.start, p.start);
        run.end = std::max(run.end, p.end);
    }
    for (size_t r = 0; r < inputs.size(); ++r) {
        if (!trackOf[r] || inputs[r].empty())
            continue;
        run.slices += qint64(inputs[r].size());
        for (auto &t : run.tracks)
            if (t.id == trackOf[r])
                t.slices = qint64(inputs[r].size());
        data->slices.insert(trackOf[r], std::make_shared<const SliceTrack>(
                                            SliceTrack::build(std::move(inputs[r]))));
    }
    if (run.start > run.end)
        run.start = run.end = 0;
    data->end = std::max(data->end, run.end);
    data->runs.insert(measuredAt + 1, std::move(run));
    return data;
}

bool saveScenario(Project &project, RunId run, const QString &name,
                  const QList<Transform> &transforms, const QJsonObject &results, QString *error)
{
    return storeScenario(project, run, name, transformsToJson(transforms), results, error);
}

static std::optional<ScenarioRecord> scenarioFromRow(const QString &name, const QString &transforms,
                                                     const QString &results, QString *error)
{
    QJsonParseError pe;
    const auto doc = QJsonDocument::fromJson(transforms.toUtf8(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isArray()) {
        if (error)
            *error = QStringLiteral(
                         "scenario '%1': stored transforms are not a JSON array at offset %2: %3")
                         .arg(name)
                         .arg(pe.offset)
                         .arg(pe.errorString());
        return std::nullopt;
    }
    QString why;
    auto list = transformsFromJson(doc.array(), &why);
    if (!list) {
        if (error)
            *error = QStringLiteral("scenario '%1': %2").arg(name, why);
        return std::nullopt;
    }
    return ScenarioRecord{name, *list, QJsonDocument::fromJson(results.toUtf8()).object()};
}

std::optional<ScenarioRecord> loadScenario(Project &project, RunId run, const QString &name,
                                           QString *error)
{
    const auto row = scenarioRow(project, run, name);
    if (!row) {
        if (error)
            *error = QStringLiteral("no scenario '%1' for this run").arg(name);
        return std::nullopt;
    }
    return scenarioFromRow(name, row->transforms, row->results, error);
}

QList<ScenarioRecord> listScenarios(Project &project, RunId run, QString *error)
{
    QList<ScenarioRecord> out;
    for (const ScenarioRow &row : scenarioRows(project, run))
        if (auto s = scenarioFromRow(row.name, row.transforms, row.results, error))
            out.append(*s);
    return out;
}

} // namespace gml::sim
