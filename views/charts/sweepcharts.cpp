// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweepcharts.h"

#include "strategy.h"

#include <algorithm>
#include <map>
#include <set>

namespace gml {

int SweepPoint::workers() const
{
    return config.value(QStringLiteral("workers")).toInt(1);
}

bool SweepPoint::globalBatch() const
{
    return config.value(QStringLiteral("global_batch")).toInt() > 0;
}

int SweepPoint::batch() const
{
    return globalBatch() ? config.value(QStringLiteral("global_batch")).toInt()
                         : config.value(QStringLiteral("batch")).toInt();
}

QString SweepPoint::model() const
{
    const QString from = config.value(QStringLiteral("from_run")).toString();
    return from.isEmpty() ? config.value(QStringLiteral("model")).toString()
                          : QStringLiteral("from '%1'").arg(from);
}

QString SweepPoint::strategy() const
{
    QString s = config.value(QStringLiteral("strategy")).toString();
    if (s == QLatin1String("ps")) {
        const int servers = config.value(QStringLiteral("servers")).toInt(1);
        s +=
            servers == 1 ? QStringLiteral(" 1 server") : QStringLiteral(" %1 servers").arg(servers);
        if (config.value(QStringLiteral("updates")).toString() == QLatin1String("async"))
            s += QStringLiteral(" async");
    } else if (s == QLatin1String("multiworker")) {
        s += QLatin1Char(' ') +
             config.value(QStringLiteral("allreduce")).toString(QStringLiteral("ring"));
    }
    return s;
}

QString SweepPoint::cluster() const
{
    const QJsonObject c = config.value(QStringLiteral("cluster")).toObject();
    const QString id = c.value(QStringLiteral("id")).toString();
    return id.isEmpty() ? c.value(QStringLiteral("name")).toString() : id;
}

SweepPoint sweepPoint(const sim::SimResult &result, const QString &run)
{
    return {run, result.config.toJson(), result.metrics.toJson()};
}

QList<SweepPoint> sweepPoints(const QList<CatalogRun> &runs)
{
    QList<SweepPoint> out;
    for (const CatalogRun &r : runs)
        if (r.kind == QLatin1String("simulated") &&
            r.params.value(QStringLiteral("simulated")).isObject())
            out.append({r.name, r.params, r.params.value(QStringLiteral("simulated")).toObject()});
    // A sweep's runs together, by workers then batch (names sort w16 before w2).
    std::stable_sort(out.begin(), out.end(), [](const SweepPoint &a, const SweepPoint &b) {
        return std::tuple(a.model(), a.strategy(), a.cluster(), a.workers(), a.batch()) <
               std::tuple(b.model(), b.strategy(), b.cluster(), b.workers(), b.batch());
    });
    return out;
}

namespace {

// What a line of the sweep is: everything about a configuration but its key.
struct LineKey
{
    QString model, strategy, cluster, batch, data;
    auto tie() const { return std::tie(model, strategy, cluster, batch, data); }
    bool operator<(const LineKey &o) const { return tie() < o.tie(); }
};

LineKey lineKeyOf(const SweepPoint &p, bool byWorkers)
{
    LineKey k;
    k.model = p.model();
    k.strategy = p.strategy();
    k.cluster = p.cluster();
    if (byWorkers)
        k.batch = (p.globalBatch() ? QStringLiteral("global batch %1") : QStringLiteral("batch %1"))
                      .arg(p.batch());
    else
        k.batch = p.workers() == 1 ? QStringLiteral("1 worker")
                                   : QStringLiteral("%1 workers").arg(p.workers());
    QStringList data;
    if (p.config.value(QStringLiteral("synthetic_data")).toBool())
        data << QStringLiteral("synthetic data");
    if (p.config.value(QStringLiteral("scheduling")).toString() == QLatin1String("critical-path"))
        data << QStringLiteral("critical path first");
    k.data = data.join(QStringLiteral(", "));
    return k;
}

// A line's name: the parts in which the lines differ (all of them but the cluster and data
// when there is a single line).
QString lineName(const LineKey &k, const std::set<LineKey> &all)
{
    auto differs = [&](QString LineKey::*part) {
        for (const LineKey &o : all)
            if (o.*part != k.*part)
                return true;
        return false;
    };
    QStringList parts;
    const bool single = all.size() == 1;
    for (QString LineKey::*part :
         {&LineKey::model, &LineKey::strategy, &LineKey::batch, &LineKey::cluster, &LineKey::data})
        if ((single &&
             (part == &LineKey::model || part == &LineKey::strategy || part == &LineKey::batch)) ||
            differs(part))
            if (!(k.*part).isEmpty())
                parts << k.*part;
    return parts.join(QStringLiteral(" \u00b7 "));
}

} // namespace

SweepCharts sweepCharts(const QList<SweepPoint> &points)
{
    SweepCharts out;
    std::set<int> workers, batches;
    for (const SweepPoint &p : points) {
        workers.insert(p.workers());
        batches.insert(p.batch());
    }
    const bool byWorkers = workers.size() > 1 || batches.size() <= 1;
    out.key = byWorkers ? QStringLiteral("workers") : QStringLiteral("batch");
    // Lines of points. One device (the default strategy) is where every all-reduce line
    // starts, so it joins each mirrored or multi-worker line of the same model, batch and
    // cluster; it is a line of its own only where there is none.
    std::map<LineKey, std::vector<const SweepPoint *>> lines;
    std::vector<std::pair<LineKey, const SweepPoint *>> singles;
    for (const SweepPoint &p : points) {
        const LineKey k = lineKeyOf(p, byWorkers);
        if (byWorkers && k.strategy == QLatin1String("default"))
            singles.emplace_back(k, &p);
        else
            lines[k].push_back(&p);
    }
    for (const auto &[single, p] : singles) {
        bool joined = false;
        for (auto &[k, members] : lines) {
            const bool allReduce = k.strategy == QLatin1String("mirrored") ||
                                   k.strategy.startsWith(QLatin1String("multiworker"));
            LineKey as = single;
            as.strategy = k.strategy;
            if (allReduce && !(as < k) && !(k < as)) {
                members.push_back(p);
                joined = true;
            }
        }
        if (!joined)
            lines[single].push_back(p);
    }
    std::set<LineKey> keys;
    for (const auto &entry : lines)
        keys.insert(entry.first);

    const QString keyLabel =
        byWorkers ? QStringLiteral("workers (GPUs)")
                  : (points.value(0).globalBatch() ? QStringLiteral("global batch")
                                                   : QStringLiteral("batch per worker"));
    auto chart = [&](TimeChart &c, const QString &title, const QString &unit) {
        c.title = title;
        c.valueLabel = unit;
        c.keyLabel = keyLabel;
        c.steps = false;
        c.markers = true;
    };
    chart(out.speedup, QStringLiteral("Speedup over one worker"),
          QStringLiteral("speedup (\u00d7)"));
    chart(out.net, QStringLiteral("Normalized execution time (epoch time / one device's)"),
          QStringLiteral("NET"));
    chart(out.usage, QStringLiteral("Device usage: workers' GPUs computing"),
          QStringLiteral("% of the run"));
    chart(out.energy, QStringLiteral("Energy per iteration (all devices)"), QStringLiteral("J"));
    double lo = 0, hi = 0;
    int k = 0;
    for (const auto &[key, members] : lines) {
        auto sorted = members;
        std::stable_sort(
            sorted.begin(), sorted.end(), [&](const SweepPoint *a, const SweepPoint *b) {
                return byWorkers ? a->workers() < b->workers() : a->batch() < b->batch();
            });
        const QString name = lineName(key, keys);
        const QColor colour = chartColour(k++);
        TimeChart::Line speedup{name, colour, {}, {}}, net = speedup, usage = speedup,
                                                       energy = speedup;
        for (const SweepPoint *p : sorted) {
            const double x = byWorkers ? p->workers() : p->batch();
            lo = lo == 0 ? x : std::min(lo, x);
            hi = std::max(hi, x);
            auto add = [&](TimeChart::Line &l, const char *metric, double scale) {
                const QJsonValue v = p->metrics.value(QLatin1String(metric));
                if (v.isDouble() && v.toDouble() > 0) {
                    l.x.push_back(x);
                    l.y.push_back(v.toDouble() * scale);
                }
            };
            add(speedup, "speedup", 1);
            add(net, "normalized_execution_time", 1);
            add(usage, "device_usage", 100);
            add(energy, "energy_per_iteration_j", 1);
        }
        for (auto [target, line] : {std::pair(&out.speedup, &speedup), std::pair(&out.net, &net),
                                    std::pair(&out.usage, &usage), std::pair(&out.energy, &energy)})
            if (!line->x.empty())
                target->lines.push_back(std::move(*line));
    }
    out.lines = int(lines.size());
    if (byWorkers && hi > lo && !out.speedup.lines.empty()) {
        // Linear speedup, the bound no data-parallel configuration passes.
        TimeChart::Line ideal{
            QStringLiteral("ideal (linear)"), QColor(0x88, 0x88, 0x88), {}, {}, true};
        for (int w : workers) // each worker count: straight on a linear axis and on a log one
            ideal.x.push_back(w), ideal.y.push_back(w);
        out.speedup.lines.push_back(std::move(ideal));
    }
    for (TimeChart *c : {&out.speedup, &out.net, &out.usage, &out.energy})
        c->logKey = lo > 0 && hi / lo >= 8;
    // Speedup against workers on log-log axes: linear scaling is the diagonal at any scale.
    out.speedup.logValue = byWorkers && out.speedup.logKey;
    return out;
}

} // namespace gml
