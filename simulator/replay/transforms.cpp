// SPDX-License-Identifier: GPL-3.0-or-later
#include "transformkind.h"

#include "calibration.h"

#include "clockalignment.h"
#include "devicecatalog.h"
#include "timeformat.h"
#include "tracewriter.h"

#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>

namespace gml::sim {

using namespace detail;

namespace {

// Data loading, as PyTorch's profiler labels it.
const QString kInputPattern = QStringLiteral("(?i)dataloader|data_load|__next__|_next_data|fetch");

} // namespace

namespace detail {

bool isHostCopy(const QString &name)
{
    return name.contains(QLatin1String("HtoD")) || name.contains(QLatin1String("DtoH")) ||
           name.contains(QLatin1String("Host"));
}

TimeNs scaled(TimeNs t, double f)
{
    // Saturated at the project's time limit: a long run scaled a million times must not wrap
    // to a negative time (llround of a double past 2^63 is undefined).
    const double v = double(t) * f;
    if (!(v > -double(kMaxAbsTimeNs)))
        return std::isnan(v) ? 0 : -kMaxAbsTimeNs;
    if (!(v < double(kMaxAbsTimeNs)))
        return kMaxAbsTimeNs;
    return TimeNs(std::llround(v));
}

const Device *measuredDevice(const WhatIfContext &ctx, const DeviceCatalog &cat, QString *error)
{
    const Device *d = ctx.measuredDevice.isEmpty() ? nullptr : cat.device(ctx.measuredDevice);
    if (!d)
        *error =
            ctx.measuredDevice.isEmpty()
                ? QStringLiteral(
                      "the run does not record its GPU model (deviceProperties); name it "
                      "(one of %1)")
                      .arg(cat.deviceIds())
                : QStringLiteral(
                      "the run's GPU '%1' is not in the device catalog; name the closest of %2")
                      .arg(ctx.measuredDevice, cat.deviceIds());
    return d;
}

bool graphHasCollectives(const DependencyGraph &g)
{
    return std::any_of(g.nodes().begin(), g.nodes().end(),
                       [](const Node &n) { return n.kind == NodeKind::Collective; });
}

} // namespace detail

const QString &inputPattern()
{
    return kInputPattern;
}

void forEachDataLoadingRange(
    const DependencyGraph &g,
    const std::function<void(int resource, TimeNs start, TimeNs end)> &visit)
{
    const QRegularExpression input(kInputPattern);
    QHash<StringId, bool> memo;
    auto named = [&](StringId id) {
        auto it = memo.find(id);
        if (it == memo.end())
            it = memo.insert(id, input.match(g.name(id)).hasMatch());
        return *it;
    };
    for (const Container &c : g.containers())
        if (!g.resources()[size_t(c.resource)].gpu && named(c.name))
            visit(c.resource, c.start, c.end);
    for (const Node &n : g.nodes())
        if (n.kind == NodeKind::Cpu && named(n.name))
            visit(n.resource, n.start, n.end);
}

namespace {

// A copy of the measured graph with the structural transforms' nodes and edges. Nullopt with
// *error (naming the transform) when one cannot apply or the result waits on itself.
std::optional<Structural> buildStructure(const DependencyGraph &measured,
                                         const QList<Transform> &transforms,
                                         const std::vector<const TransformKind *> &kinds,
                                         const WhatIfContext &context, const DeviceCatalog &cat,
                                         bool hasCollectives, QString *error)
{
    Structural s;
    s.graph = std::make_shared<DependencyGraph>(measured);
    StructureStep step{s, measured, transforms, context, cat};
    QString err;
    for (qsizetype i = 0; i < transforms.size(); ++i) {
        const Transform &t = transforms[i];
        const TransformKind *kind = kinds[size_t(i)];
        if (!kind->structural(t, hasCollectives))
            continue;
        if (!kind->build(step, t, &err)) {
            if (error)
                *error = QStringLiteral("%1: %2").arg(t.describe(), err);
            return std::nullopt;
        }
    }
    s.graph->reorder();
    if (s.graph->hasCycle()) { // a structural edit that waits on itself: nothing to replay
        if (error)
            *error = QStringLiteral(
                         "the transforms make the dependency graph wait on itself (%1 of %2 time "
                         "points are on or after a cycle)")
                         .arg(s.graph->points() - s.graph->order().size())
                         .arg(s.graph->points());
        return std::nullopt;
    }
    return s;
}

// Every node one after the other is the longest a replay can take: a sum within the project's
// time limit keeps every time the replay computes in range, so no prediction can overflow into
// a negative time. Past it, the transforms are refused.
bool withinTimeLimit(const ReplayInput &input, QString *error)
{
    long double total = 0;
    for (size_t i = 0; i < input.work.size(); ++i)
        total += (long double)std::max<TimeNs>(input.work[i], 0) +
                 (long double)std::max<TimeNs>(input.slack[i], 0);
    if (total <= (long double)kMaxAbsTimeNs)
        return true;
    if (error)
        *error = QStringLiteral(
                     "the transforms would make the run's work add up to %1 days, past the %2 days "
                     "a "
                     "project's times can hold: a factor or duration that large predicts nothing")
                     .arg(double(total / 86'400e9L), 0, 'g', 3)
                     .arg(double(kMaxAbsTimeNs) / 86'400e9, 0, 'f', 0);
    return false;
}

// The kind of each transform; nullopt with *error naming the first whose op has none (a
// transform made in code, not read from JSON).
std::optional<std::vector<const TransformKind *>> kindsOf(const QList<Transform> &transforms,
                                                          QString *error)
{
    std::vector<const TransformKind *> kinds;
    for (const auto &t : transforms) {
        kinds.push_back(transformKind(t.op));
        if (!kinds.back()) {
            if (error)
                *error = QStringLiteral("unknown transform '%1' (%2)")
                             .arg(t.op, transformOps().join(QStringLiteral(", ")));
            return std::nullopt;
        }
    }
    return kinds;
}

} // namespace

std::optional<Prepared> prepare(const std::shared_ptr<const DependencyGraph> &measured,
                                const QList<Transform> &transforms, const WhatIfContext &context,
                                QString *error, StructureCache *cache)
{
    const DeviceCatalog &cat = context.catalog ? *context.catalog : DeviceCatalog::builtin();
    const auto kinds = kindsOf(transforms, error);
    if (!kinds)
        return std::nullopt;
    Prepared out;
    const bool hasCollectives = graphHasCollectives(*measured);
    // Structural transforms first: a copy of the graph with their nodes.
    QJsonArray structural;
    for (qsizetype i = 0; i < transforms.size(); ++i)
        if ((*kinds)[size_t(i)]->structural(transforms[i], hasCollectives))
            structural.append(transforms[i].toJson());
    const QByteArray key = QJsonDocument(structural).toJson(QJsonDocument::Compact);
    if (structural.isEmpty()) {
        out.graph = measured;
    } else if (cache && cache->key == key && cache->graph) {
        out.graph = cache->graph;
        out.notes = cache->notes;
    } else {
        auto s = buildStructure(*measured, transforms, *kinds, context, cat, hasCollectives, error);
        if (!s)
            return std::nullopt;
        out.graph = s->graph;
        out.notes = s->notes;
        if (cache) {
            cache->key = key;
            cache->graph = out.graph;
            cache->notes = out.notes;
        }
    }
    const DependencyGraph &g = *out.graph;
    out.input = ReplayInput::measured(g);
    // Collectives over the network: the ranks, algorithm and link each one ran with, and what
    // the workers and link transforms make of them; rescaled once, at the end (network()).
    NetworkChange net(g, transforms, *kinds, context, hasCollectives);
    const bool explicitHostLink =
        std::any_of(transforms.begin(), transforms.end(), [](const Transform &t) {
            return t.is("link") && t.link == QLatin1String("host");
        });
    // A calibration replaces the transforms' unknowns with its own: they run at the prediction.
    WhatIfContext timingContext = context;
    if (context.calibration)
        timingContext.bound = WhatIfContext::Bound::Nominal;
    TimingStep timing(out, timingContext, cat, net, explicitHostLink);
    for (qsizetype i = 0; i < transforms.size(); ++i) {
        const Transform &t = transforms[i];
        const TransformKind *kind = (*kinds)[size_t(i)];
        if (kind->structural(t, hasCollectives)) { // applied to the graph above
            kind->afterBuild(timing, t);
            continue;
        }
        QString err;
        const NodeSelection sel(g, kind->selector(t), kind->nodeKinds(t), &err);
        if (!sel.valid() || !kind->changeTimes(timing, t, sel, &err)) {
            if (error)
                *error = QStringLiteral("%1: %2").arg(t.describe(), err);
            return std::nullopt;
        }
    }
    if (context.calibration) {
        QStringList described;
        for (const auto &t : transforms)
            described << t.describe();
        if (!detail::applyCalibration(*context.calibration, described, context, cat, out, error))
            return std::nullopt;
    }
    net.rescale(out.input.work, out.input.slack);
    if (!withinTimeLimit(out.input, error))
        return std::nullopt;
    return out;
}

QString targetDevice(const QList<Transform> &transforms)
{
    for (auto it = transforms.rbegin(); it != transforms.rend(); ++it)
        if (it->is("device"))
            return it->target;
    return {};
}

} // namespace gml::sim

namespace gml::sim {

namespace {

quint64 splitmix(quint64 x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// A standard normal deviate of (sample, key), the same on every machine: FNV-1a of the key's
// UTF-16 units mixed with the sample number, two uniforms, Box-Muller.
double normalDeviate(quint64 sample, const QString &key)
{
    quint64 h = 0xcbf29ce484222325ULL;
    for (const QChar c : key)
        h = (h ^ c.unicode()) * 0x100000001b3ULL;
    const quint64 a = splitmix(h ^ splitmix(sample));
    const quint64 b = splitmix(a);
    const double u1 = (double(a >> 11) + 0.5) / 9007199254740992.0; // (0, 1)
    const double u2 = double(b >> 11) / 9007199254740992.0;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

} // namespace

double WhatIfContext::vary(const QString &key, double low, double nominal, double high) const
{
    switch (bound) {
    case Bound::Nominal:
        return nominal;
    case Bound::Low:
        return low;
    case Bound::High:
        return high;
    case Bound::Sample:
        break;
    }
    if (!(low > 0) || !(nominal > 0) || !(high > 0))
        return nominal;
    // The range's ends are the 5th and 95th percentiles: 1.645 standard deviations.
    const double z = normalDeviate(sample, key);
    const double side = z < 0 ? std::log(nominal / low) : std::log(high / nominal);
    const double x = nominal * std::exp(z * side / kZ95);
    return std::isfinite(x) ? x : nominal;
}

} // namespace gml::sim
