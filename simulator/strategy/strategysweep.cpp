// SPDX-License-Identifier: GPL-3.0-or-later
// Sweeps of the strategy simulator: the one-worker baselines a configuration's speedup and
// normalized execution time compare against, the configurations of a sweep, running them on a
// thread pool with progress and cancel, and the names of their saved runs.
#include "strategy.h"

#include <QJsonDocument>
#include <QRunnable>
#include <QThread>
#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <numeric>

namespace gml::sim {

std::optional<SimResult> simulateWithBaselines(const SimConfig &config, BaselineCache *cache,
                                               QString *error)
{
    auto result = simulate(config, error);
    if (!result)
        return std::nullopt;
    // One worker of the same strategy (speedup), and the default strategy (NET), each doing one
    // worker's share of the same work: the same per-worker batch, or the whole global batch.
    auto epochOf = [&](SimConfig one, QString *why) -> TimeNs {
        one.workers = 1;
        if (one.strategy == Strategy::Mirrored || one.strategy == Strategy::MultiWorker)
            one.strategy = Strategy::Default;
        const QString key =
            QStringLiteral("%1|%2|%3")
                .arg(QString::fromUtf8(QJsonDocument(one.toJson()).toJson(QJsonDocument::Compact)),
                     one.model.name)
                .arg(one.model.layers.size());
        if (cache) {
            QMutexLocker lock(&cache->mutex);
            if (auto it = cache->epochNs.constFind(key); it != cache->epochNs.cend())
                return *it;
        }
        auto r = simulate(one, why);
        if (!r)
            return -1;
        if (cache) {
            QMutexLocker lock(&cache->mutex);
            cache->epochNs.insert(key, r->metrics.epochNs);
        }
        return r->metrics.epochNs;
    };
    // A one-worker configuration is its own speedup baseline, and the default strategy's NET
    // baseline is the speedup's whenever one worker of the strategy is the default strategy.
    QString why;
    const bool selfIsOne = config.workers == 1;
    const bool sameBaseline = config.strategy != Strategy::ParameterServer;
    const TimeNs self = selfIsOne ? result->metrics.epochNs : epochOf(config, &why);
    SimConfig plain = config;
    plain.strategy = Strategy::Default;
    const TimeNs base = self < 0 ? -1 : sameBaseline ? self : epochOf(plain, &why);
    if (self < 0 || base < 0) {
        result->warnings << QStringLiteral("no one-worker baseline: %1").arg(why);
        return result;
    }
    SimMetrics &m = result->metrics;
    m.speedup = m.epochNs > 0 ? double(self) / double(m.epochNs) : 0;
    m.scalingEfficiency = m.speedup / config.workers;
    m.normalizedExecution = base > 0 ? double(m.epochNs) / double(base) : 0;
    return result;
}

QList<SimConfig> sweepConfigs(const SimConfig &base, const QList<int> &workers,
                              const QList<int> &batches)
{
    QList<SimConfig> out;
    const QList<int> ws = workers.isEmpty() ? QList<int>{base.workers} : workers;
    const QList<int> bs =
        batches.isEmpty() ? QList<int>{base.globalBatch > 0 ? base.globalBatch : base.batchOf(0)}
                          : batches;
    for (int b : bs)
        for (int w : ws) {
            SimConfig c = base;
            c.workers = w;
            if (c.strategy == Strategy::Default && w > 1)
                c.strategy =
                    c.cluster.gpusPerNode >= w ? Strategy::Mirrored : Strategy::MultiWorker;
            if (base.globalBatch > 0)
                c.globalBatch = b;
            else
                c.batch = b;
            out << c;
        }
    return out;
}

std::optional<QList<int>> parseSweepValues(const QString &text)
{
    QList<int> out;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        if (part.trimmed().isEmpty())
            continue;
        bool ok = false;
        const int v = part.trimmed().toInt(&ok);
        if (!ok || v < 1)
            return std::nullopt;
        if (!out.contains(v))
            out << v;
    }
    if (out.isEmpty())
        return std::nullopt;
    return out;
}

SweepOutcome runSweep(const QList<SimConfig> &configs,
                      const std::function<bool(int, int)> &progress)
{
    SweepOutcome outcome;
    const int total = int(configs.size());
    std::vector<std::optional<SimResult>> results(static_cast<size_t>(total));
    std::vector<QString> errors(static_cast<size_t>(total));
    std::atomic<bool> cancel{false};
    std::atomic<int> done{0};
    BaselineCache cache;
    QThreadPool pool;
    pool.setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
    // The largest first (the job graph grows with the workers): the pool takes them in order,
    // so the longest one is not left to run alone at the end while the other threads idle
    // (longest processing time first; issue 57: a sweep of 8 to 1,024 workers on 2 threads ran
    // 1.13x faster than one after the other, the 1,024 last).
    std::vector<int> order(static_cast<size_t>(total));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return configs[a].workers > configs[b].workers; });
    for (int i : order)
        pool.start(QRunnable::create([&, i] {
            if (cancel.load())
                return;
            QString why;
            results[size_t(i)] = simulateWithBaselines(configs[i], &cache, &why);
            if (!results[size_t(i)])
                errors[size_t(i)] = why;
            ++done;
        }));
    if (!progress)
        pool.waitForDone();
    while (!pool.waitForDone(10))
        if (!cancel.load() && !progress(done.load(), total))
            cancel = true;
    if (progress && !cancel.load() && !progress(total, total))
        cancel = true;
    outcome.cancelled = cancel.load();
    // A cancelled sweep keeps the configurations that finished; those never started are left out.
    for (int i = 0; i < total; ++i) {
        if (results[size_t(i)])
            outcome.results << std::move(*results[size_t(i)]);
        else if (!errors[size_t(i)].isEmpty())
            outcome.errors << QStringLiteral("%1: %2").arg(configs[i].describe(),
                                                           errors[size_t(i)]);
    }
    return outcome;
}

QString simulatedRunName(const SimConfig &c)
{
    QString s =
        QStringLiteral("sim %1 %2 w%3").arg(c.model.id, strategyName(c.strategy)).arg(c.workers);
    if (c.strategy == Strategy::ParameterServer)
        s += QStringLiteral(" s%1%2").arg(c.servers).arg(c.asyncUpdates ? QStringLiteral(" async")
                                                                        : QString());
    if (c.strategy == Strategy::MultiWorker && c.allReduce != QLatin1String("ring"))
        s += QLatin1Char(' ') + c.allReduce;
    s += c.globalBatch > 0 ? QStringLiteral(" gb%1").arg(c.globalBatch)
                           : QStringLiteral(" b%1").arg(c.batchOf(0));
    if (c.criticalPathFirst)
        s += QStringLiteral(" cpf");
    if (c.syntheticData)
        s += QStringLiteral(" synthetic");
    s += QLatin1Char(' ') + c.cluster.id;
    return s;
}

} // namespace gml::sim
