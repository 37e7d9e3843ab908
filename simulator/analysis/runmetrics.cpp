// SPDX-License-Identifier: GPL-3.0-or-later
#include "runmetrics.h"

#include "analysis.h"
#include "dependencygraph.h"
#include "findings.h"
#include "project.h"
#include "replay.h"
#include "resourceattribution.h"
#include "runcatalog.h"
#include "transforms.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace gml::sim {

// Each iteration's time: from its start to the next one's; the last one to the end of the
// run's iteration work (meanIteration's end), so that the times add up to meanIteration x N.
static std::vector<TimeNs> iterationTimes(const DependencyGraph &graph, TimeNs mean)
{
    const auto its = graph.iterations();
    std::vector<TimeNs> out;
    if (its.empty())
        return out;
    const auto &cs = graph.containers();
    const TimeNs from = cs[size_t(its.front())].start;
    for (size_t i = 0; i + 1 < its.size(); ++i)
        out.push_back(cs[size_t(its[i + 1])].start - cs[size_t(its[i])].start);
    const TimeNs lastStart = cs[size_t(its.back())].start;
    const TimeNs last = from + mean * TimeNs(its.size()) - lastStart;
    out.push_back(last > 0 ? last : cs[size_t(its.back())].end - lastStart);
    return out;
}

// The last value of each MLflow metric of the run (its counter tracks under the run's track).
static QJsonObject lastMlflowMetrics(Project &project, RunId run)
{
    QJsonObject out;
    auto st = project.db().prepare(
        "SELECT t.name, (SELECT k.value FROM counter k WHERE k.track_id = t.id ORDER BY k.ts DESC, "
        "k.step DESC LIMIT 1) FROM track t JOIN source s ON s.id = t.source_id "
        "WHERE t.run_id = ? AND s.format = 'mlflow-run' AND t.kind = ?");
    st.bind(1, run);
    st.bind(2, qint64(TrackKind::Counter));
    while (st.step())
        if (!st.isNull(1))
            out.insert(st.text(0), st.real(1));
    return out;
}

QJsonObject stepStatistics(const std::vector<TimeNs> &times)
{
    QJsonObject m;
    if (times.empty())
        return m;
    double sum = 0, sq = 0;
    TimeNs lo = times.front(), hi = times.front();
    QJsonArray list;
    for (TimeNs t : times) {
        sum += double(t);
        lo = std::min(lo, t);
        hi = std::max(hi, t);
        if (list.size() < 5000)
            list.append(qint64(t));
    }
    const double avg = sum / double(times.size());
    for (TimeNs t : times)
        sq += (double(t) - avg) * (double(t) - avg);
    m.insert(QStringLiteral("iterations"), qint64(times.size()));
    m.insert(QStringLiteral("step_mean_ns"), qint64(std::llround(avg)));
    m.insert(QStringLiteral("step_sd_ns"), times.size() > 1 ? qint64(std::llround(std::sqrt(sq / double(times.size() - 1)))) : qint64(0));
    m.insert(QStringLiteral("step_min_ns"), qint64(lo));
    m.insert(QStringLiteral("step_max_ns"), qint64(hi));
    m.insert(QStringLiteral("step_times_ns"), list);
    return m;
}

std::optional<QJsonObject> computeRunMetrics(Project &project, RunId run, QString *error)
{
    QJsonObject m;
    QString why;
    {
        // A simulated run carries its metrics, as the simulator measured them.
        auto st = project.db().prepare("SELECT kind, params FROM run WHERE id = ?");
        st.bind(1, run);
        if (st.step() && st.text(0) == QLatin1String("simulated")) {
            const QJsonObject params = QJsonDocument::fromJson(st.text(1).toUtf8()).object();
            if (params.contains(QStringLiteral("headline")))
                return params.value(QStringLiteral("headline")).toObject();
        }
    }
    std::optional<DependencyGraph> graph = DependencyGraph::build(project, run, &why);
    // A graph of neither GPU work nor iterations (an MLflow run's own span) has no step time.
    if (graph && graph->iterations().empty() && graph->gpuDevices().empty())
        graph.reset();
    QString counterError;
    const ResourceAttribution resources = attributeResources(project, run, graph ? &*graph : nullptr, &counterError);
    if (!counterError.isEmpty()) {
        if (error)
            *error = counterError;
        return std::nullopt;
    }
    if (graph) {
        const Analysis analysis = analyze(*graph, {});
        const Replay identity = replay(*graph, ReplayInput::measured(*graph));
        const TimeNs mean = meanIteration(*graph, identity);
        const WhatIfContext context = WhatIfContext::forRun(*graph, project, run);
        const RunSummary summary = summarize(&*graph, &analysis, resources, context, recordedFlops(*graph), mean);
        const std::vector<TimeNs> times = iterationTimes(*graph, mean);
        if (!times.empty()) {
            const QJsonObject stats = stepStatistics(times);
            for (auto it = stats.begin(); it != stats.end(); ++it)
                m.insert(it.key(), it.value());
        } else if (mean > 0) {
            m.insert(QStringLiteral("step_mean_ns"), qint64(mean)); // the whole run, as one step
        }
        GpuTime total;
        for (const GpuBreakdown &g : analysis.gpus) {
            total.window += g.time.window;
            total.compute += g.time.compute;
            total.communication += g.time.communication;
            total.copies += g.time.copies;
            total.idle += g.time.idle;
        }
        if (total.window > 0) {
            const double w = double(total.window);
            m.insert(QStringLiteral("gpu_busy"), double(total.busy()) / w);
            m.insert(QStringLiteral("compute"), double(total.compute) / w);
            m.insert(QStringLiteral("communication"), double(total.communication) / w);
            m.insert(QStringLiteral("copies"), double(total.copies) / w);
            m.insert(QStringLiteral("idle"), double(total.idle) / w);
        }
        if (summary.mfu >= 0)
            m.insert(QStringLiteral("mfu"), summary.mfu);
        if (!summary.device.isEmpty())
            m.insert(QStringLiteral("device"), summary.device);
        m.insert(QStringLiteral("gpus"), qint64(analysis.gpus.size()));
        if (!analysis.ranks.empty())
            m.insert(QStringLiteral("ranks"), qint64(analysis.ranks.size()));
        if (summary.gpuUtilisation >= 0)
            m.insert(QStringLiteral("gpu_utilisation"), summary.gpuUtilisation);
        if (summary.energyPerIterationJ >= 0)
            m.insert(QStringLiteral("energy_per_iteration_j"), summary.energyPerIterationJ);
    } else if (!resources.isEmpty()) {
        const RunSummary summary = summarize(nullptr, nullptr, resources, {}, 0, 0);
        if (summary.gpuUtilisation >= 0)
            m.insert(QStringLiteral("gpu_utilisation"), summary.gpuUtilisation);
    }
    // Energy: the GPUs' power integrated over the iterations (or the active span of a run with
    // only monitoring logs).
    bool hasIterations = false;
    for (const Phase &p : resources.phases)
        hasIterations = hasIterations || p.kind == QLatin1String("iteration");
    double energy = 0;
    bool energyKnown = false;
    for (const PhaseUsage &u : resources.usage) {
        const Phase &p = resources.phases[size_t(u.phase)];
        const bool counted = hasIterations ? p.kind == QLatin1String("iteration") : p.kind == QLatin1String("active");
        if (counted && u.device != QLatin1String("host") && !std::isnan(u.energyJ)) {
            energy += u.energyJ;
            energyKnown = true;
        }
    }
    if (energyKnown)
        m.insert(QStringLiteral("energy_j"), energy);
    {
        auto st = project.db().prepare("SELECT kind, params FROM run WHERE id = ?");
        st.bind(1, run);
        if (st.step() && st.text(0) == QLatin1String("predicted")) {
            const QJsonObject params = QJsonDocument::fromJson(st.text(1).toUtf8()).object();
            if (params.contains(QStringLiteral("predicted_ns")))
                m.insert(QStringLiteral("predicted_ns"), params.value(QStringLiteral("predicted_ns")));
        }
    }
    const QJsonObject last = lastMlflowMetrics(project, run);
    if (!last.isEmpty())
        m.insert(QStringLiteral("last_metrics"), last);
    m.insert(QStringLiteral("version"), kRunMetricsVersion);
    return m;
}

bool updateRunMetrics(Project &project, const QList<RunId> &runs, QStringList *errors,
                      const std::function<bool(int, int, const QString &)> &progress)
{
    auto nameOf = project.db().prepare("SELECT name FROM run WHERE id = ?");
    for (int i = 0; i < runs.size(); ++i) {
        nameOf.reset();
        nameOf.bind(1, runs[i]);
        const QString name = nameOf.step() ? nameOf.text(0) : QString();
        if (name.isEmpty())
            continue; // gone since
        if (progress && !progress(i, int(runs.size()), name))
            return false;
        QString why;
        const auto metrics = computeRunMetrics(project, runs[i], &why);
        if (!metrics) {
            if (errors)
                errors->append(QStringLiteral("run '%1': headline metrics not computed: %2").arg(name, why));
            continue;
        }
        // Another program writing the project for longer than SQLite's busy timeout (a second
        // import) is not an error: the metrics are computed again by whoever lists the runs.
        if (!storeRunMetrics(project, runs[i], *metrics, &why) && errors && !project.db().lastErrorWasBusy())
            errors->append(QStringLiteral("run '%1': headline metrics not stored: %2").arg(name, why));
    }
    if (progress)
        progress(int(runs.size()), int(runs.size()), QString());
    return true;
}

} // namespace gml::sim
