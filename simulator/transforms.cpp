// SPDX-License-Identifier: GPL-3.0-or-later
#include "transforms.h"

#include "clockalignment.h"
#include "devicecatalog.h"
#include "timeformat.h"

#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>

namespace gml::sim {

namespace {

constexpr quint8 bit(NodeKind k)
{
    return quint8(1u << unsigned(k));
}

const char *const kKindNames[] = {"cpu", "runtime", "kernel", "collective", "memcpy", "memset"};

struct OpName
{
    Transform::Op op;
    const char *name;
};
const OpName kOps[] = {{Transform::Op::Scale, "scale"},   {Transform::Op::Remove, "remove"},
                       {Transform::Op::SetDuration, "set"}, {Transform::Op::Insert, "insert"},
                       {Transform::Op::Fuse, "fuse"},     {Transform::Op::Device, "device"},
                       {Transform::Op::Amp, "amp"},       {Transform::Op::Compute, "compute"},
                       {Transform::Op::Memory, "memory"}, {Transform::Op::Input, "input"},
                       {Transform::Op::Link, "link"},     {Transform::Op::Workers, "workers"},
                       {Transform::Op::Reschedule, "reschedule"}};

QString opName(Transform::Op op)
{
    for (const auto &o : kOps)
        if (o.op == op)
            return QString::fromLatin1(o.name);
    return {};
}

// Data loading, as PyTorch's profiler labels it.
const QString kInputPattern = QStringLiteral("(?i)dataloader|data_load|__next__|_next_data|fetch");
const QString kBackwardPattern = QStringLiteral("(?i)backward|evaluate_function");
const QString kOptimizerPattern = QStringLiteral("^Optimizer\\.step#");

double bytesPerParameter(const QString &optimizer)
{
    // Memory traffic of one update per fp32 parameter: Adam reads p, g, m, v and writes p, m, v;
    // SGD with momentum, Adagrad and RMSprop read p, g, one state and write p and it.
    if (optimizer.contains(QLatin1String("adam"), Qt::CaseInsensitive) ||
        optimizer.contains(QLatin1String("lamb"), Qt::CaseInsensitive))
        return 28;
    return 20;
}

bool isHostCopy(const QString &name)
{
    return name.contains(QLatin1String("HtoD")) || name.contains(QLatin1String("DtoH")) ||
           name.contains(QLatin1String("Host"));
}

// The per-transform selection over a graph's nodes.
class Selection
{
public:
    Selection(const DependencyGraph &g, const Selector &s, quint8 defaultKinds, QString *error)
    {
        const auto &nodes = g.nodes();
        m_on.assign(nodes.size(), 1);
        const quint8 kinds = s.kinds ? s.kinds : defaultKinds;
        auto regex = [&](const QString &p) -> std::optional<QRegularExpression> {
            QRegularExpression re(p);
            if (!re.isValid()) {
                *error = QStringLiteral("'%1': %2 at offset %3").arg(p, re.errorString()).arg(re.patternErrorOffset());
                return std::nullopt;
            }
            return re;
        };
        std::optional<QRegularExpression> name, track, category, device;
        if (!s.name.isEmpty() && !(name = regex(s.name)))
            return;
        if (!s.track.isEmpty() && !(track = regex(s.track)))
            return;
        if (!s.category.isEmpty() && !(category = regex(s.category)))
            return;
        if (!s.device.isEmpty() && !(device = regex(s.device)))
            return;
        std::vector<char> inside;
        if (!s.within.isEmpty()) {
            const auto within = regex(s.within);
            if (!within)
                return;
            inside.assign(nodes.size(), 0);
            QHash<StringId, bool> memo;
            for (const auto &c : g.containers()) {
                auto it = memo.find(c.name);
                if (it == memo.end())
                    it = memo.insert(c.name, within->match(g.name(c.name)).hasMatch());
                if (!*it)
                    continue;
                const auto &order = g.resources()[size_t(c.resource)].nodes;
                for (int k = g.position(c.first); k <= g.position(c.last); ++k)
                    inside[size_t(order[size_t(k)])] = 1;
            }
            for (size_t i = 0; i < nodes.size(); ++i)
                if (!inside[i] && nodes[i].launcher >= 0 && inside[size_t(nodes[i].launcher)])
                    inside[i] = 1;
        }
        // Regex results memoised per string id and per resource.
        QHash<StringId, bool> nameMemo, categoryMemo;
        std::vector<signed char> trackMemo(g.resources().size(), -1), deviceMemo(g.resources().size(), -1);
        auto byString = [&](QHash<StringId, bool> &memo, const QRegularExpression &re, StringId id) {
            auto it = memo.find(id);
            if (it == memo.end())
                it = memo.insert(id, re.match(g.name(id)).hasMatch());
            return *it;
        };
        auto byResource = [&](std::vector<signed char> &memo, int resource, auto &&test) {
            auto &m = memo[size_t(resource)];
            if (m < 0)
                m = test(g.resources()[size_t(resource)]) ? 1 : 0;
            return m == 1;
        };
        for (size_t i = 0; i < nodes.size(); ++i) {
            const Node &n = nodes[i];
            bool on = kinds & bit(n.kind);
            if (on && name)
                on = byString(nameMemo, *name, n.name);
            if (on && category)
                on = byString(categoryMemo, *category, n.cat);
            if (on && track)
                on = byResource(trackMemo, n.resource, [&](const Resource &r) { return track->match(r.name).hasMatch(); });
            if (on && device)
                on = byResource(deviceMemo, n.resource,
                                [&](const Resource &r) { return r.gpu && device->match(r.pid).hasMatch(); });
            if (on && s.rank >= 0)
                on = g.resources()[size_t(n.resource)].rank == s.rank;
            if (on && !inside.empty())
                on = inside[i];
            if (on && s.from)
                on = n.start - g.origin() >= *s.from;
            if (on && s.to)
                on = n.start - g.origin() < *s.to;
            m_on[i] = on;
        }
        m_valid = true;
    }
    bool valid() const { return m_valid; }
    bool operator[](size_t i) const { return m_on[i]; }

private:
    std::vector<char> m_on;
    bool m_valid = false;
};

TimeNs scaled(TimeNs t, double f)
{
    return TimeNs(std::llround(double(t) * f));
}

const Device *measuredDevice(const WhatIfContext &ctx, const DeviceCatalog &cat, QString *error)
{
    const Device *d = ctx.measuredDevice.isEmpty() ? nullptr : cat.device(ctx.measuredDevice);
    if (!d) {
        QStringList ids;
        for (const auto &x : cat.devices())
            ids << x.id;
        *error = ctx.measuredDevice.isEmpty()
                     ? QStringLiteral("the run does not record its GPU model (deviceProperties); name it "
                                      "(one of %1)")
                           .arg(ids.join(QStringLiteral(", ")))
                     : QStringLiteral("the run's GPU '%1' is not in the device catalog; name the closest of %2")
                           .arg(ctx.measuredDevice, ids.join(QStringLiteral(", ")));
    }
    return d;
}

Selector withinSelector(const QString &pattern)
{
    Selector s;
    s.within = pattern;
    return s;
}

struct Structural
{
    std::shared_ptr<DependencyGraph> graph;
    QStringList notes;
};

// Inserts the all-reduce of each gradient bucket after the backward kernel that completes it,
// on a new communication stream per rank; the first kernel after backward waits for the last.
bool insertDataParallel(Structural &s, const Transform &t, const WhatIfContext &ctx, const DeviceCatalog &cat,
                        QString *error)
{
    DependencyGraph &g = *s.graph;
    const int n = t.workers;
    // The all-reduces run over the measured network link; a Link transform rescales them.
    const Link *link = measuredLink(ctx, true, error);
    if (!link) {
        *error = QStringLiteral("the link between workers is unknown (%1); name the measured one (--measured-link)")
                     .arg(*error);
        return false;
    }
    const double bw = link->bwGBps;
    const double lat = link->latencyUs;
    // Compute stream per (source, rank): the GPU resource with the most kernel work.
    std::map<std::pair<SourceId, int>, std::pair<int, TimeNs>> compute;
    std::vector<TimeNs> busy(g.resources().size(), 0);
    for (const auto &node : g.nodes())
        if (node.kind == NodeKind::Kernel)
            busy[size_t(node.resource)] += node.end - node.start;
    for (size_t r = 0; r < g.resources().size(); ++r) {
        const Resource &res = g.resources()[r];
        if (!res.gpu || !busy[r])
            continue;
        auto &best = compute[{res.source, res.rank}];
        if (busy[r] > best.second)
            best = {int(r), busy[r]};
    }
    if (compute.empty()) {
        *error = QStringLiteral("data parallelism needs GPU kernels to hang gradient all-reduces on");
        return false;
    }
    const Selection backward(g, withinSelector(kBackwardPattern), bit(NodeKind::Kernel), error);
    const Selection optimizer(g, withinSelector(kOptimizerPattern), bit(NodeKind::Kernel), error);
    static const QRegularExpression optName(QStringLiteral("^Optimizer\\.step#(\\w+)"));
    const QString algorithm = t.algorithm.isEmpty() ? ctx.measuredAlgorithm : t.algorithm;
    const StringId commName =
        g.syntheticName(QStringLiteral("ncclKernel_AllReduce_%1 (predicted)").arg(algorithm.toUpper()));
    const int allReduce = int(collectiveOperations().indexOf(QStringLiteral("AllReduce")));
    int inserted = 0;
    for (const auto &[key, best] : compute) {
        const int stream = best.first;
        // Iteration windows: this rank's ProfilerStep#N; else from one optimizer step to the
        // next; else the whole run.
        std::vector<std::pair<TimeNs, TimeNs>> windows, optimizerSteps;
        QString optimizerName;
        for (const auto &c : g.containers()) {
            const Resource &r = g.resources()[size_t(c.resource)];
            if (r.source != key.first || r.rank != key.second)
                continue;
            const QString name = g.name(c.name);
            if (isProfilerStep(name))
                windows.emplace_back(c.start, c.end);
            if (const auto m = optName.match(name); m.hasMatch()) {
                optimizerName = m.captured(1);
                optimizerSteps.emplace_back(c.start, c.end);
            }
        }
        std::sort(windows.begin(), windows.end());
        std::sort(optimizerSteps.begin(), optimizerSteps.end());
        if (windows.empty()) {
            TimeNs from = std::numeric_limits<TimeNs>::min();
            for (const auto &o : optimizerSteps) {
                windows.emplace_back(from, o.second);
                from = o.second;
            }
        }
        if (windows.empty())
            windows.emplace_back(std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::max());
        const std::vector<int> order = g.resources()[size_t(stream)].nodes; // a copy: resources grow
        auto launchedIn = [&](int node, const std::pair<TimeNs, TimeNs> &w) {
            const Node &x = g.nodes()[size_t(node)];
            const TimeNs at = x.launcher >= 0 ? g.nodes()[size_t(x.launcher)].start : x.start;
            return at >= w.first && at < w.second;
        };
        // Gradient size: given, or from the optimizer's memory traffic at 70% of peak bandwidth.
        double gradBytes = t.gradMB * 1e6;
        if (gradBytes <= 0) {
            TimeNs optTime = 0;
            for (int k : order)
                if (optimizer[size_t(k)])
                    optTime += g.nodes()[size_t(k)].work;
            const int stepsWithOpt = optTime > 0 ? int(optimizerSteps.size()) : 0;
            const Device *dev = measuredDevice(ctx, cat, error);
            if (!stepsWithOpt || !dev) {
                *error = QStringLiteral("cannot estimate the gradient size (%1); give it with --grad-mb")
                             .arg(stepsWithOpt ? *error : QStringLiteral("no Optimizer.step kernels in the trace"));
                return false;
            }
            const double perParam = bytesPerParameter(optimizerName);
            gradBytes = double(optTime) / stepsWithOpt * 1e-9 * dev->memBwGBps * 1e9 * kAchieved / perParam * 4;
            s.notes << QStringLiteral("gradients %1 MB per step, estimated from %2 of %3 kernels per step at 70% of "
                                      "%4 GB/s (%5 bytes of traffic per fp32 parameter)")
                           .arg(gradBytes / 1e6, 0, 'f', 1)
                           .arg(formatDuration(optTime / stepsWithOpt),
                                optimizerName.isEmpty() ? QStringLiteral("optimizer") : optimizerName)
                           .arg(dev->memBwGBps)
                           .arg(perParam);
        }
        const int buckets = std::max(1, int(std::ceil(gradBytes / (t.bucketMB * 1e6))));
        const qint64 bucketBytes = qint64(gradBytes / buckets);
        const TimeNs commWork = collectiveTime(QStringLiteral("AllReduce"), bucketBytes, n, algorithm, bw, lat);
        Resource comm = g.resources()[size_t(stream)];
        comm.track = 0;
        comm.name = QStringLiteral("all-reduce (predicted, %1 workers)").arg(n);
        const int commRes = g.addResource(comm);
        int lastComm = -1;
        for (const auto &w : windows) {
            std::vector<int> back;
            for (int k : order)
                if (backward[size_t(k)] && launchedIn(k, w))
                    back.push_back(k);
            if (back.empty())
                continue;
            TimeNs total = 0;
            for (int k : back)
                total += g.nodes()[size_t(k)].work;
            TimeNs acc = 0;
            size_t at = 0;
            int last = -1;
            for (int b = 0; b < buckets; ++b) {
                const double threshold = double(total) * (b + 1) / buckets;
                while (at + 1 < back.size() && double(acc + g.nodes()[size_t(back[at])].work) < threshold)
                    acc += g.nodes()[size_t(back[at++])].work;
                const int after = back[at];
                Node node;
                node.name = commName;
                node.resource = commRes;
                node.kind = NodeKind::Collective;
                node.collectiveOp = allReduce;
                node.bytes = bucketBytes;
                node.start = node.end = g.nodes()[size_t(after)].end;
                node.work = commWork;
                last = g.insertNode(node, lastComm);
                lastComm = last;
                g.addEdge({after, last, EdgeKind::StreamWait, true, false, 0});
                ++inserted;
            }
            // The first kernel after backward (the optimizer) waits for the gradients.
            const int pos = g.position(back.back()) + 1;
            if (pos < int(order.size()) && launchedIn(order[size_t(pos)], w))
                g.addEdge({last, order[size_t(pos)], EdgeKind::StreamWait, true, false, 0});
        }
        s.notes << QStringLiteral("rank %1: %2 buckets of %3 MB per step, each all-reduce %4 "
                                  "(%5, %6 workers, %7 GB/s, %8 us latency)")
                       .arg(std::max(key.second, 0))
                       .arg(buckets)
                       .arg(double(bucketBytes) / 1e6, 0, 'f', 1)
                       .arg(formatDuration(commWork), algorithm)
                       .arg(n)
                       .arg(bw)
                       .arg(lat);
    }
    if (!inserted) {
        *error = QStringLiteral("no backward kernels found (launched within 'autograd::engine::evaluate_function' "
                                "or '*Backward*' ops) to hang gradient all-reduces on");
        return false;
    }
    return true;
}

bool graphHasCollectives(const DependencyGraph &g)
{
    return std::any_of(g.nodes().begin(), g.nodes().end(),
                       [](const Node &n) { return n.kind == NodeKind::Collective; });
}

// `hasCollectives`: of the measured graph (graphHasCollectives), read once per prepare().
bool isStructural(const Transform &t, bool hasCollectives)
{
    return t.op == Transform::Op::Insert || (t.op == Transform::Op::Workers && t.workers > 1 && !hasCollectives);
}

} // namespace

const Link *measuredLink(const WhatIfContext &ctx, bool network, QString *error)
{
    const DeviceCatalog &cat = ctx.catalog ? *ctx.catalog : DeviceCatalog::builtin();
    if (network && !ctx.measuredNetwork.isEmpty()) {
        if (const Link *l = cat.link(ctx.measuredNetwork))
            return l;
        *error = QStringLiteral("no link '%1' in the catalog").arg(ctx.measuredNetwork);
        return nullptr;
    }
    const Device *d = measuredDevice(ctx, cat, error);
    if (!d)
        return nullptr;
    return cat.link(network ? d->peerLink : d->hostLink);
}

bool Selector::isEmpty() const
{
    return name.isEmpty() && track.isEmpty() && within.isEmpty() && category.isEmpty() && device.isEmpty() && !kinds &&
           rank < 0 && !from && !to;
}

QJsonObject Selector::toJson() const
{
    QJsonObject o;
    if (!name.isEmpty())
        o.insert(QStringLiteral("name"), name);
    if (!track.isEmpty())
        o.insert(QStringLiteral("track"), track);
    if (!within.isEmpty())
        o.insert(QStringLiteral("within"), within);
    if (!category.isEmpty())
        o.insert(QStringLiteral("category"), category);
    if (!device.isEmpty())
        o.insert(QStringLiteral("device"), device);
    if (kinds) {
        QJsonArray k;
        for (int i = 0; i < 6; ++i)
            if (kinds & (1u << i))
                k.append(QString::fromLatin1(kKindNames[i]));
        o.insert(QStringLiteral("kind"), k);
    }
    if (rank >= 0)
        o.insert(QStringLiteral("rank"), rank);
    if (from)
        o.insert(QStringLiteral("from_ns"), qint64(*from));
    if (to)
        o.insert(QStringLiteral("to_ns"), qint64(*to));
    return o;
}

std::optional<Selector> Selector::fromJson(const QJsonObject &o, QString *error)
{
    Selector s;
    s.name = o.value(QStringLiteral("name")).toString();
    s.track = o.value(QStringLiteral("track")).toString();
    s.within = o.value(QStringLiteral("within")).toString();
    s.category = o.value(QStringLiteral("category")).toString();
    s.device = o.value(QStringLiteral("device")).toString();
    for (const auto &k : o.value(QStringLiteral("kind")).toArray()) {
        int found = -1;
        for (int i = 0; i < 6; ++i)
            if (k.toString() == QLatin1String(kKindNames[i]))
                found = i;
        if (found < 0) {
            *error = QStringLiteral("unknown node kind '%1' (cpu, runtime, kernel, collective, memcpy, memset)")
                         .arg(k.toString());
            return std::nullopt;
        }
        s.kinds |= quint8(1u << found);
    }
    s.rank = o.value(QStringLiteral("rank")).toInt(-1);
    if (o.contains(QStringLiteral("from_ns")))
        s.from = o.value(QStringLiteral("from_ns")).toInteger();
    if (o.contains(QStringLiteral("to_ns")))
        s.to = o.value(QStringLiteral("to_ns")).toInteger();
    return s;
}

QString Selector::describe() const
{
    QStringList parts;
    if (!name.isEmpty())
        parts << QStringLiteral("/%1/").arg(name);
    if (kinds) {
        QStringList k;
        for (int i = 0; i < 6; ++i)
            if (kinds & (1u << i))
                k << QString::fromLatin1(kKindNames[i]);
        parts << k.join(QLatin1Char('|'));
    }
    if (!category.isEmpty())
        parts << QStringLiteral("category /%1/").arg(category);
    if (!track.isEmpty())
        parts << QStringLiteral("on /%1/").arg(track);
    if (!device.isEmpty())
        parts << QStringLiteral("on GPU /%1/").arg(device);
    if (rank >= 0)
        parts << QStringLiteral("rank %1").arg(rank);
    if (!within.isEmpty())
        parts << QStringLiteral("within /%1/").arg(within);
    if (from || to)
        parts << QStringLiteral("in [%1, %2)")
                     .arg(from ? formatDuration(*from) : QStringLiteral("start"),
                          to ? formatDuration(*to) : QStringLiteral("end"));
    return parts.join(QLatin1Char(' '));
}

QJsonObject Transform::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("op"), opName(op));
    if (!select.isEmpty())
        o.insert(QStringLiteral("select"), select.toJson());
    switch (op) {
    case Op::Scale:
    case Op::Compute:
    case Op::Memory:
    case Op::Input: o.insert(QStringLiteral("factor"), factor); break;
    case Op::SetDuration: o.insert(QStringLiteral("duration_ns"), qint64(duration)); break;
    case Op::Insert:
        o.insert(QStringLiteral("name"), name);
        if (duration > 0 || (flops <= 0 && bytes <= 0)) {
            o.insert(QStringLiteral("duration_ns"), qint64(duration));
            break;
        }
        if (flops > 0)
            o.insert(QStringLiteral("flops"), flops);
        if (bytes > 0)
            o.insert(QStringLiteral("bytes"), bytes);
        o.insert(QStringLiteral("precision"), precision);
        break;
    case Op::Fuse:
        if (duration > 0) {
            o.insert(QStringLiteral("duration_ns"), qint64(duration));
            break;
        }
        o.insert(QStringLiteral("model"), model);
        if (model == QLatin1String("overhead") && overhead >= 0)
            o.insert(QStringLiteral("overhead_ns"), qint64(overhead));
        break;
    case Op::Reschedule: o.insert(QStringLiteral("priority"), priority); break;
    case Op::Device: o.insert(QStringLiteral("target"), target); break;
    case Op::Link:
    case Op::Workers:
        if (op == Op::Link)
            o.insert(QStringLiteral("link"), link);
        else {
            o.insert(QStringLiteral("workers"), workers);
            if (gradMB > 0)
                o.insert(QStringLiteral("grad_mb"), gradMB);
            o.insert(QStringLiteral("bucket_mb"), bucketMB);
        }
        if (op == Op::Link && bandwidthGBps > 0)
            o.insert(QStringLiteral("bandwidth_gbps"), bandwidthGBps);
        if (op == Op::Link && latencyUs >= 0)
            o.insert(QStringLiteral("latency_us"), latencyUs);
        if (!algorithm.isEmpty())
            o.insert(QStringLiteral("algorithm"), algorithm);
        break;
    case Op::Remove:
    case Op::Amp: break;
    }
    return o;
}

std::optional<Transform> Transform::fromJson(const QJsonObject &o, QString *error)
{
    Transform t;
    const QString op = o.value(QStringLiteral("op")).toString();
    bool known = false;
    for (const auto &x : kOps)
        if (op == QLatin1String(x.name)) {
            t.op = x.op;
            known = true;
        }
    if (!known) {
        QStringList names;
        for (const auto &x : kOps)
            names << QString::fromLatin1(x.name);
        *error = QStringLiteral("unknown transform '%1' (%2)").arg(op, names.join(QStringLiteral(", ")));
        return std::nullopt;
    }
    const auto sel = Selector::fromJson(o.value(QStringLiteral("select")).toObject(), error);
    if (!sel)
        return std::nullopt;
    t.select = *sel;
    t.factor = o.value(QStringLiteral("factor")).toDouble(1);
    t.duration = o.value(QStringLiteral("duration_ns")).toInteger(0);
    t.name = o.value(QStringLiteral("name")).toString(QStringLiteral("inserted"));
    t.target = o.value(QStringLiteral("target")).toString();
    t.link = o.value(QStringLiteral("link")).toString(QStringLiteral("network"));
    t.bandwidthGBps = o.value(QStringLiteral("bandwidth_gbps")).toDouble(0);
    t.latencyUs = o.value(QStringLiteral("latency_us")).toDouble(-1);
    t.workers = o.value(QStringLiteral("workers")).toInt(1);
    t.gradMB = o.value(QStringLiteral("grad_mb")).toDouble(0);
    t.bucketMB = o.value(QStringLiteral("bucket_mb")).toDouble(25);
    t.flops = o.value(QStringLiteral("flops")).toDouble(0);
    t.bytes = o.value(QStringLiteral("bytes")).toDouble(0);
    t.precision = o.value(QStringLiteral("precision")).toString(QStringLiteral("fp32"));
    t.model = o.value(QStringLiteral("model")).toString(QStringLiteral("sum"));
    t.overhead = o.value(QStringLiteral("overhead_ns")).toInteger(-1);
    t.priority = o.value(QStringLiteral("priority")).toInt(1);
    t.algorithm = o.value(QStringLiteral("algorithm")).toString();
    auto bad = [&](const QString &why) -> std::optional<Transform> {
        *error = QStringLiteral("%1: %2").arg(op, why);
        return std::nullopt;
    };
    if (!std::isfinite(t.factor) || t.factor < 0)
        return bad(QStringLiteral("factor must be 0 or more"));
    if ((t.op == Op::Compute || t.op == Op::Memory) && t.factor <= 0)
        return bad(QStringLiteral("factor must be above 0"));
    if (t.duration < 0)
        return bad(QStringLiteral("duration must be 0 or more"));
    if (t.op == Op::Device && !DeviceCatalog::builtin().device(t.target))
        return bad(QStringLiteral("no device '%1' in the catalog").arg(t.target));
    if (t.op == Op::Link && t.link != QLatin1String("network") && t.link != QLatin1String("host"))
        return bad(QStringLiteral("link must be 'network' or 'host'"));
    if (t.op == Op::Link && t.bandwidthGBps <= 0 && t.latencyUs < 0 && t.algorithm.isEmpty())
        return bad(QStringLiteral("give a bandwidth, a latency, an algorithm or some of them"));
    if (!t.algorithm.isEmpty() && !collectiveAlgorithms().contains(t.algorithm))
        return bad(QStringLiteral("algorithm must be 'ring' or 'tree'"));
    if (!std::isfinite(t.flops) || !std::isfinite(t.bytes) || t.flops < 0 || t.bytes < 0)
        return bad(QStringLiteral("flops and bytes must be 0 or more"));
    if (t.precision != QLatin1String("fp32") && t.precision != QLatin1String("fp16"))
        return bad(QStringLiteral("precision must be 'fp32' or 'fp16'"));
    if (t.model != QLatin1String("sum") && t.model != QLatin1String("overhead"))
        return bad(QStringLiteral("model must be 'sum' or 'overhead'"));
    if (t.op == Op::Workers && (t.workers < 1 || t.bucketMB <= 0))
        return bad(QStringLiteral("need 1 or more workers and a positive bucket size"));
    return t;
}

QString Transform::describe() const
{
    const QString sel = select.isEmpty() ? QString() : QStringLiteral(" ") + select.describe();
    switch (op) {
    case Op::Scale: return QStringLiteral("scale%1 x%2").arg(sel).arg(factor);
    case Op::Remove: return QStringLiteral("remove%1").arg(sel);
    case Op::SetDuration: return QStringLiteral("set%1 to %2").arg(sel, formatDuration(duration));
    case Op::Insert: {
        QString cost = formatDuration(duration);
        if (duration <= 0 && (flops > 0 || bytes > 0))
            cost = QStringLiteral("%1 GFLOP %2, %3 MB by the roofline")
                       .arg(flops / 1e9, 0, 'g', 4)
                       .arg(precision)
                       .arg(bytes / 1e6, 0, 'g', 4);
        return QStringLiteral("insert '%1' (%2) after%3").arg(name, cost, sel);
    }
    case Op::Fuse: {
        QString cost = QStringLiteral("summed time");
        if (duration > 0)
            cost = formatDuration(duration);
        else if (model == QLatin1String("overhead"))
            cost = overhead >= 0 ? QStringLiteral("summed time less %1 per kernel").arg(formatDuration(overhead))
                                 : QStringLiteral("summed time less the per-kernel fixed cost");
        return QStringLiteral("fuse%1 into one (%2)").arg(sel, cost);
    }
    case Op::Reschedule: return QStringLiteral("priority %1 on its resource for%2").arg(priority).arg(sel);
    case Op::Device: return QStringLiteral("run on %1%2").arg(target, sel);
    case Op::Amp: return QStringLiteral("AMP: compute-bound kernels /3, memory-bound /2%1").arg(sel);
    case Op::Compute: return QStringLiteral("compute-bound kernels %1x faster%2").arg(factor).arg(sel);
    case Op::Memory: return QStringLiteral("memory-bound kernels and copies %1x faster%2").arg(factor).arg(sel);
    case Op::Input:
        return factor == 0 ? QStringLiteral("input pipeline free%1").arg(sel)
                           : QStringLiteral("input pipeline %1x faster%2").arg(factor).arg(sel);
    case Op::Link: {
        QStringList p;
        if (bandwidthGBps > 0)
            p << QStringLiteral("%1 GB/s").arg(bandwidthGBps);
        if (latencyUs >= 0)
            p << QStringLiteral("%1 us latency").arg(latencyUs);
        if (!algorithm.isEmpty())
            p << QStringLiteral("%1 collectives").arg(algorithm);
        return QStringLiteral("%1 link %2").arg(link, p.join(QStringLiteral(", ")));
    }
    case Op::Workers:
        return QStringLiteral("%1-way data parallel%2%3")
            .arg(workers)
            .arg(gradMB > 0 ? QStringLiteral(", %1 MB gradients").arg(gradMB) : QString(),
                 algorithm.isEmpty() ? QString() : QStringLiteral(", %1 all-reduce").arg(algorithm));
    }
    return {};
}

Transform Transform::scale(QString regex, double factor)
{
    Transform t;
    t.select.name = std::move(regex);
    t.factor = factor;
    return t;
}

Transform Transform::amp()
{
    Transform t;
    t.op = Op::Amp;
    return t;
}

Transform Transform::fusedAdam()
{
    Transform t;
    t.op = Op::Fuse;
    t.select.within = kOptimizerPattern;
    t.select.kinds = bit(NodeKind::Kernel);
    t.model = QStringLiteral("overhead");
    return t;
}

Transform Transform::input(double speedup)
{
    Transform t;
    t.op = Op::Input;
    t.factor = speedup;
    return t;
}

Transform Transform::device(QString id)
{
    Transform t;
    t.op = Op::Device;
    t.target = std::move(id);
    return t;
}

Transform Transform::network(double gbps, double latencyUs)
{
    Transform t;
    t.op = Op::Link;
    t.bandwidthGBps = gbps;
    t.latencyUs = latencyUs;
    return t;
}

Transform Transform::dataParallel(int n)
{
    Transform t;
    t.op = Op::Workers;
    t.workers = n;
    return t;
}

QJsonArray transformsToJson(const QList<Transform> &transforms)
{
    QJsonArray a;
    for (const auto &t : transforms)
        a.append(t.toJson());
    return a;
}

std::optional<QList<Transform>> transformsFromJson(const QJsonArray &a, QString *error)
{
    QList<Transform> out;
    for (const auto &v : a) {
        auto t = Transform::fromJson(v.toObject(), error);
        if (!t)
            return std::nullopt;
        out.append(*t);
    }
    return out;
}

namespace {

// "REGEX=VALUE", split at the last '=': the regex checked, the value a number of 0 or more
// (`whole`: a whole number, any sign).
std::optional<std::pair<QString, double>> regexAndValue(const QString &text, bool whole, QString *error)
{
    const qsizetype eq = text.lastIndexOf(QLatin1Char('='));
    bool ok = false;
    const double value = eq > 0 ? text.mid(eq + 1).toDouble(&ok) : 0;
    if (eq <= 0 || !ok || !std::isfinite(value) || (whole ? value != std::trunc(value) || std::abs(value) > 1e6 : value < 0)) {
        if (error)
            *error = whole ? QStringLiteral("'%1' is not REGEX=PRIORITY with a whole-number priority").arg(text)
                           : QStringLiteral("'%1' is not REGEX=FACTOR with a factor of 0 or more").arg(text);
        return std::nullopt;
    }
    const QRegularExpression re(text.left(eq));
    if (!re.isValid()) {
        if (error)
            *error = QStringLiteral("'%1': %2 at offset %3")
                         .arg(text.left(eq), re.errorString())
                         .arg(re.patternErrorOffset());
        return std::nullopt;
    }
    return std::make_pair(text.left(eq), value);
}

} // namespace

std::optional<Transform> parseScale(const QString &text, QString *error)
{
    const auto rv = regexAndValue(text, false, error);
    if (!rv)
        return std::nullopt;
    return Transform::scale(rv->first, rv->second);
}

std::optional<Transform> parseTransform(const QString &text, QString *error)
{
    if (!text.trimmed().startsWith(QLatin1Char('{')))
        return parseScale(text, error);
    QJsonParseError pe;
    const auto doc = QJsonDocument::fromJson(text.trimmed().toUtf8(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
        if (error)
            *error = QStringLiteral("not a JSON object (offset %1: %2)")
                         .arg(pe.offset)
                         .arg(pe.error != QJsonParseError::NoError ? pe.errorString() : QStringLiteral("expected '{'"));
        return std::nullopt;
    }
    QString why;
    auto t = Transform::fromJson(doc.object(), &why);
    if (!t && error)
        *error = why;
    return t;
}

std::optional<Transform> parseReschedule(const QString &text, QString *error)
{
    const auto rv = regexAndValue(text, true, error);
    if (!rv)
        return std::nullopt;
    Transform t;
    t.op = Transform::Op::Reschedule;
    t.select.name = rv->first;
    t.priority = int(rv->second);
    return t;
}

const QString &inputPattern()
{
    return kInputPattern;
}

QStringList presetNames()
{
    return {QStringLiteral("amp"), QStringLiteral("fusedadam"), QStringLiteral("input=N"),
            QStringLiteral("input=free")};
}

std::optional<Transform> parsePreset(const QString &text, QString *error)
{
    const QString p = text.toLower();
    if (p == QLatin1String("amp"))
        return Transform::amp();
    if (p == QLatin1String("fusedadam") || p == QLatin1String("fused-adam"))
        return Transform::fusedAdam();
    if (p == QLatin1String("input=free"))
        return Transform::input(0);
    if (p.startsWith(QLatin1String("input="))) {
        bool ok = false;
        const double n = p.mid(6).toDouble(&ok);
        if (ok && n > 0 && std::isfinite(n))
            return Transform::input(n);
    }
    if (error)
        *error = QStringLiteral("unknown preset '%1' (%2)").arg(text, presetNames().join(QStringLiteral(", ")));
    return std::nullopt;
}

WhatIfContext WhatIfContext::forRun(const DependencyGraph &graph, const QJsonObject &runParams)
{
    WhatIfContext c;
    const auto models = runParams.value(QStringLiteral("gpu_models")).toArray();
    if (!models.isEmpty())
        c.measuredDevice = models.first().toString();
    QSet<int> ranks;
    for (const auto &r : graph.resources())
        if (r.rank >= 0)
            ranks.insert(r.rank);
    c.measuredWorkers = std::max<int>(1, int(ranks.size()));
    c.measuredWorkers = std::max(c.measuredWorkers, runParams.value(QStringLiteral("world_size")).toInt(1));
    return c;
}

QStringList collectiveAlgorithms()
{
    return {QStringLiteral("ring"), QStringLiteral("tree")};
}

CollectiveCost collectiveCost(const QString &operation, int n, const QString &algorithm)
{
    if (n <= 1)
        return {};
    const bool allReduce = operation == QLatin1String("AllReduce");
    const bool rooted = operation == QLatin1String("Broadcast") || operation == QLatin1String("Reduce");
    if (algorithm == QLatin1String("tree") && (allReduce || rooted)) {
        const int depth = int(std::ceil(std::log2(double(n))));
        return allReduce ? CollectiveCost{2.0, 2 * depth} : CollectiveCost{1.0, depth};
    }
    if (allReduce)
        return {2.0 * (n - 1) / n, 2 * (n - 1)};
    if (rooted)
        return {1.0, n - 1};
    return {double(n - 1) / n, n - 1};
}

TimeNs collectiveTime(const QString &operation, qint64 bytes, int n, const QString &algorithm, double bwGBps,
                      double latencyUs)
{
    const CollectiveCost c = collectiveCost(operation, n, algorithm);
    return TimeNs(std::llround(c.steps * latencyUs * 1e3 + c.busFactor * double(bytes) / bwGBps));
}

TimeNs rooflineTime(const Device &device, double flops, double bytes, bool halfPrecision)
{
    const double peak = (halfPrecision ? device.fp16Tflops : device.fp32Tflops) * 1e12 * kAchieved;
    const double bw = device.memBwGBps * 1e9 * kAchieved;
    const double seconds = std::max(peak > 0 ? flops / peak : 0.0, bw > 0 ? bytes / bw : 0.0);
    return TimeNs(std::llround(seconds * 1e9));
}

namespace {

// The GPU the kernels run on after the transforms: the last Device transform's, else the
// measured one.
const Device *deviceInEffect(const QList<Transform> &transforms, const WhatIfContext &ctx, const DeviceCatalog &cat,
                             QString *error)
{
    for (auto it = transforms.rbegin(); it != transforms.rend(); ++it)
        if (it->op == Transform::Op::Device)
            if (const Device *d = cat.device(it->target))
                return d;
    return measuredDevice(ctx, cat, error);
}

// The shortest measured work of each node kind on each GPU (all its streams) or CPU thread.
class ShortestWork
{
public:
    explicit ShortestWork(const DependencyGraph &g) : m_group(g.resources().size())
    {
        QHash<QString, int> gpuGroup; // source/device -> group
        int groups = 0;
        for (size_t r = 0; r < g.resources().size(); ++r) {
            const Resource &res = g.resources()[r];
            if (!res.gpu) {
                m_group[r] = groups++;
                continue;
            }
            const QString key = QStringLiteral("%1/%2").arg(res.source).arg(res.pid);
            auto it = gpuGroup.find(key);
            if (it == gpuGroup.end())
                it = gpuGroup.insert(key, groups++);
            m_group[r] = *it;
        }
        m_shortest.assign(size_t(groups) * kKinds, std::numeric_limits<TimeNs>::max());
        for (const auto &n : g.nodes())
            if (n.slice != 0 && n.work > 0)
                slot(n) = std::min(slot(n), n.work);
    }
    // 0 when no measured node of its kind has work there.
    TimeNs of(const Node &n) const
    {
        const TimeNs v = m_shortest[index(n)];
        return v == std::numeric_limits<TimeNs>::max() ? 0 : v;
    }

private:
    static constexpr size_t kKinds = 6;
    size_t index(const Node &n) const { return size_t(m_group[size_t(n.resource)]) * kKinds + size_t(n.kind); }
    TimeNs &slot(const Node &n) { return m_shortest[index(n)]; }

    std::vector<int> m_group; // per resource
    std::vector<TimeNs> m_shortest; // per group and kind
};

// How the collectives' network changes: each selected collective's ranks, algorithm and link
// as the Workers and Link transforms leave them, applied in one rescale from the state it was
// measured (or inserted) in, so the order of the transforms does not matter.
class NetworkChange
{
public:
    struct State
    {
        int ranks = 2;
        QString algorithm;
        double bwGBps = 0; // 0: unknown (then only the ranks and algorithm rescale)
        double latencyUs = 0;
        bool operator==(const State &o) const
        {
            return ranks == o.ranks && algorithm == o.algorithm && bwGBps == o.bwGBps && latencyUs == o.latencyUs;
        }
    };

    NetworkChange(const DependencyGraph &g, const QList<Transform> &transforms, const WhatIfContext &ctx,
                  bool hasCollectives)
        : m_graph(g)
    {
        QString unknown;
        const Link *link = measuredLink(ctx, true, &unknown);
        m_measured = {std::max(2, ctx.measuredWorkers), ctx.measuredAlgorithm, link ? link->bwGBps : 0,
                      link ? link->latencyUs : 0};
        m_inserted = m_measured;
        for (const auto &t : transforms)
            if (isStructural(t, hasCollectives) && t.op == Transform::Op::Workers) {
                m_inserted.ranks = t.workers;
                if (!t.algorithm.isEmpty())
                    m_inserted.algorithm = t.algorithm;
                break;
            }
    }

    int measuredRanks() const { return m_measured.ranks; }

    void apply(const Transform &t, const Selection &sel)
    {
        const auto &nodes = m_graph.nodes();
        for (size_t i = 0; i < nodes.size(); ++i) {
            if (!sel[i] || nodes[i].kind != NodeKind::Collective)
                continue;
            auto it = m_state.find(int(i));
            if (it == m_state.end())
                it = m_state.insert(int(i), initial(i));
            State &s = *it;
            if (t.op == Transform::Op::Workers)
                s.ranks = t.workers;
            if (!t.algorithm.isEmpty())
                s.algorithm = t.algorithm;
            if (t.op == Transform::Op::Link && t.bandwidthGBps > 0)
                s.bwGBps = t.bandwidthGBps;
            if (t.op == Transform::Op::Link && t.latencyUs >= 0)
                s.latencyUs = t.latencyUs;
        }
    }

    // latency x steps + the bandwidth part x (bus factor and bandwidth ratios); one rank has
    // no collective at all (no work, no gap before it).
    void rescale(std::vector<TimeNs> &work, std::vector<TimeNs> &slack) const
    {
        const auto &ops = collectiveOperations();
        for (auto it = m_state.begin(); it != m_state.end(); ++it) {
            const size_t i = size_t(it.key());
            const State a = initial(i);
            const State &b = *it;
            if (a == b)
                continue;
            const Node &n = m_graph.nodes()[i];
            const QString op = n.collectiveOp >= 0 ? ops[n.collectiveOp] : QString();
            const CollectiveCost ca = collectiveCost(op, a.ranks, a.algorithm);
            const CollectiveCost cb = collectiveCost(op, b.ranks, b.algorithm);
            if (cb.steps == 0) {
                work[i] = slack[i] = 0;
                continue;
            }
            const TimeNs rest = std::max<TimeNs>(0, work[i] - TimeNs(std::llround(ca.steps * a.latencyUs * 1e3)));
            double f = ca.busFactor > 0 ? cb.busFactor / ca.busFactor : 1;
            if (a.bwGBps > 0 && b.bwGBps > 0)
                f *= a.bwGBps / b.bwGBps;
            work[i] = TimeNs(std::llround(cb.steps * b.latencyUs * 1e3)) + scaled(rest, f);
        }
    }

private:
    State initial(size_t i) const { return m_graph.nodes()[i].slice == 0 ? m_inserted : m_measured; }

    const DependencyGraph &m_graph;
    State m_measured, m_inserted;
    QHash<int, State> m_state;
};

} // namespace

std::optional<Prepared> prepare(const std::shared_ptr<const DependencyGraph> &measured,
                                const QList<Transform> &transforms, const WhatIfContext &context,
                                QString *error, StructureCache *cache)
{
    const DeviceCatalog &cat = context.catalog ? *context.catalog : DeviceCatalog::builtin();
    QString err;
    auto fail = [&](const Transform &t) -> std::optional<Prepared> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(t.describe(), err);
        return std::nullopt;
    };
    Prepared out;
    const bool hasCollectives = graphHasCollectives(*measured);
    // Structural transforms first: a copy of the graph with their nodes.
    QJsonArray structural;
    for (const auto &t : transforms)
        if (isStructural(t, hasCollectives))
            structural.append(t.toJson());
    const QByteArray key = QJsonDocument(structural).toJson(QJsonDocument::Compact);
    if (structural.isEmpty()) {
        out.graph = measured;
    } else if (cache && cache->key == key && cache->graph) {
        out.graph = cache->graph;
        out.notes = cache->notes;
    } else {
        Structural s;
        s.graph = std::make_shared<DependencyGraph>(*measured);
        for (const auto &t : transforms) {
            if (!isStructural(t, hasCollectives))
                continue;
            if (t.op == Transform::Op::Workers) {
                if (!insertDataParallel(s, t, context, cat, &err))
                    return fail(t);
                continue;
            }
            const Selection sel(*s.graph, t.select, 0xff, &err);
            if (!sel.valid())
                return fail(t);
            TimeNs duration = t.duration;
            if (duration <= 0 && (t.flops > 0 || t.bytes > 0)) {
                const Device *dev = deviceInEffect(transforms, context, cat, &err);
                if (!dev)
                    return fail(t);
                duration = rooflineTime(*dev, t.flops, t.bytes, t.precision == QLatin1String("fp16"));
                s.notes << QStringLiteral("insert '%1': %2 on %3 (roofline at %4% of peak)")
                               .arg(t.name, formatDuration(duration), dev->id)
                               .arg(kAchieved * 100);
            }
            const StringId name = s.graph->syntheticName(t.name);
            const size_t n = measured->nodes().size();
            for (size_t i = 0; i < n; ++i) {
                if (!sel[i])
                    continue;
                Node node = s.graph->nodes()[i];
                node.slice = 0;
                node.cat = 0;
                node.name = name;
                node.launcher = -1;
                node.collectiveOp = -1;
                node.bytes = 0;
                node.kind = s.graph->resources()[size_t(node.resource)].gpu ? NodeKind::Kernel : NodeKind::Cpu;
                node.start = node.end;
                node.slack = 0;
                node.work = duration;
                s.graph->insertNode(node, int(i));
            }
        }
        s.graph->reorder();
        if (s.graph->hasCycle()) { // a structural edit that waits on itself: nothing to replay
            if (error)
                *error = QStringLiteral("the transforms make the dependency graph wait on itself (%1 of %2 time "
                                        "points are on or after a cycle)")
                             .arg(2 * s.graph->nodes().size() - s.graph->order().size())
                             .arg(2 * s.graph->nodes().size());
            return std::nullopt;
        }
        out.graph = s.graph;
        out.notes = s.notes;
        if (cache) {
            cache->key = key;
            cache->graph = out.graph;
            cache->notes = out.notes;
        }
    }
    const DependencyGraph &g = *out.graph;
    out.input = ReplayInput::measured(g);
    auto &work = out.input.work;
    auto &slack = out.input.slack;
    const auto &nodes = g.nodes();
    // Collectives over the network: the ranks, algorithm and link each one ran with, and what
    // the Workers and Link transforms make of them; rescaled once, at the end (network()).
    NetworkChange net(g, transforms, context, hasCollectives);
    for (const auto &t : transforms) {
        if (isStructural(t, hasCollectives))
            continue; // applied to the graph above
        quint8 kinds = 0xff;
        switch (t.op) {
        case Transform::Op::Device: kinds = bit(NodeKind::Kernel) | bit(NodeKind::Memset) | bit(NodeKind::Memcpy); break;
        case Transform::Op::Amp:
        case Transform::Op::Compute: kinds = bit(NodeKind::Kernel); break;
        case Transform::Op::Memory: kinds = bit(NodeKind::Kernel) | bit(NodeKind::Memset) | bit(NodeKind::Memcpy); break;
        case Transform::Op::Input: kinds = bit(NodeKind::Cpu) | bit(NodeKind::Runtime); break;
        case Transform::Op::Link:
            kinds = t.link == QLatin1String("host") ? bit(NodeKind::Memcpy) : bit(NodeKind::Collective);
            break;
        case Transform::Op::Workers: kinds = bit(NodeKind::Collective); break;
        case Transform::Op::Fuse:
        case Transform::Op::Reschedule:
        case Transform::Op::Scale:
        case Transform::Op::Remove:
        case Transform::Op::SetDuration:
        case Transform::Op::Insert: break;
        }
        Selector select = t.select;
        if (t.op == Transform::Op::Input && select.name.isEmpty() && select.within.isEmpty())
            select.within = kInputPattern;
        const Selection sel(g, select, kinds, &err);
        if (!sel.valid())
            return fail(t);
        switch (t.op) {
        case Transform::Op::Scale:
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i]) {
                    work[i] = scaled(work[i], t.factor);
                    if (t.factor == 0)
                        slack[i] = 0;
                }
            break;
        case Transform::Op::Remove:
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i])
                    work[i] = slack[i] = 0;
            break;
        case Transform::Op::SetDuration:
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i])
                    work[i] = t.duration;
            break;
        case Transform::Op::Fuse: {
            std::vector<int> kept(nodes.size(), 0); // per launcher: launched nodes that remain
            std::vector<char> removed(nodes.size(), 0);
            int fused = 0;
            const bool overheadModel = t.duration <= 0 && t.model == QLatin1String("overhead");
            const std::optional<ShortestWork> shortest =
                overheadModel && t.overhead < 0 ? std::optional<ShortestWork>(std::in_place, g) : std::nullopt;
            TimeNs saved = 0;
            for (const auto &r : g.resources()) {
                for (size_t k = 0; k < r.nodes.size();) {
                    if (!sel[size_t(r.nodes[k])]) {
                        ++k;
                        continue;
                    }
                    size_t e = k;
                    TimeNs sum = 0, longest = 0;
                    while (e < r.nodes.size() && sel[size_t(r.nodes[e])]) {
                        longest = std::max(longest, work[size_t(r.nodes[e])]);
                        sum += work[size_t(r.nodes[e++])];
                    }
                    if (e - k >= 2) {
                        TimeNs w = t.duration > 0 ? t.duration : sum;
                        if (overheadModel) {
                            // Each kernel pays a fixed cost (launch ramp, tail) whatever its
                            // work; the fused one pays it once.
                            const TimeNs o = t.overhead >= 0 ? t.overhead : shortest->of(nodes[size_t(r.nodes[k])]);
                            w = std::max(longest, sum - TimeNs(e - k - 1) * o);
                            saved += sum - w;
                        }
                        work[size_t(r.nodes[k])] = w;
                        for (size_t j = k + 1; j < e; ++j) {
                            const auto x = size_t(r.nodes[j]);
                            work[x] = slack[x] = 0;
                            removed[x] = 1;
                        }
                        ++fused;
                    }
                    k = e;
                }
            }
            for (size_t i = 0; i < nodes.size(); ++i)
                if (nodes[i].launcher >= 0 && !removed[i])
                    ++kept[size_t(nodes[i].launcher)];
            for (size_t i = 0; i < nodes.size(); ++i)
                if (removed[i] && nodes[i].launcher >= 0 && !kept[size_t(nodes[i].launcher)])
                    work[size_t(nodes[i].launcher)] = slack[size_t(nodes[i].launcher)] = 0;
            out.notes << (overheadModel ? QStringLiteral("fuse: %1 groups of adjacent slices fused, %2 of per-kernel fixed "
                                                         "cost saved (%3)")
                                              .arg(fused)
                                              .arg(formatDuration(saved),
                                                   t.overhead >= 0 ? QStringLiteral("%1 each").arg(formatDuration(t.overhead))
                                                                   : QStringLiteral("each the shortest kernel of its GPU"))
                                        : QStringLiteral("fuse: %1 groups of adjacent slices fused").arg(fused));
            break;
        }
        case Transform::Op::Device:
        case Transform::Op::Amp:
        case Transform::Op::Compute:
        case Transform::Op::Memory: {
            double computeFp32 = 1.0 / 3, computeFp16 = 1.0 / 3, memory = 0.5;
            if (t.op == Transform::Op::Compute || t.op == Transform::Op::Memory) {
                const double f = t.factor > 0 ? 1.0 / t.factor : 1.0;
                computeFp32 = computeFp16 = t.op == Transform::Op::Compute ? f : 1.0;
                memory = t.op == Transform::Op::Memory ? f : 1.0;
            }
            if (t.op == Transform::Op::Device) {
                const Device *from = measuredDevice(context, cat, &err);
                if (!from)
                    return fail(t);
                const Device *to = cat.device(t.target);
                if (!to) {
                    err = QStringLiteral("no device '%1' in the catalog").arg(t.target);
                    return fail(t);
                }
                computeFp32 = from->fp32Tflops / to->fp32Tflops;
                computeFp16 = from->fp16Tflops / to->fp16Tflops;
                memory = from->memBwGBps / to->memBwGBps;
                out.notes << QStringLiteral("%1 -> %2: compute-bound kernels x%3 (fp32) / x%4 (fp16), memory-bound "
                                            "x%5")
                                 .arg(from->id, to->id)
                                 .arg(computeFp32, 0, 'f', 3)
                                 .arg(computeFp16, 0, 'f', 3)
                                 .arg(memory, 0, 'f', 3);
            }
            QHash<StringId, double> factorOf;
            for (size_t i = 0; i < nodes.size(); ++i) {
                if (!sel[i] || nodes[i].slice == 0)
                    continue; // inserted nodes keep the duration given or modelled
                const Node &n = nodes[i];
                if (n.kind == NodeKind::Memcpy && isHostCopy(g.name(n.name)))
                    continue; // over the host link, not device memory
                auto it = factorOf.find(n.name);
                if (it == factorOf.end()) {
                    const QString name = g.name(n.name);
                    double f = memory;
                    if (n.kind == NodeKind::Kernel && classifyKernel(name) == Bound::Compute)
                        f = usesHalfPrecision(name) || t.op == Transform::Op::Amp ? computeFp16 : computeFp32;
                    it = factorOf.insert(n.name, f);
                }
                work[i] = scaled(work[i], *it);
            }
            break;
        }
        case Transform::Op::Input:
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i]) {
                    const double f = t.factor > 0 ? 1.0 / t.factor : 0.0;
                    work[i] = scaled(work[i], f);
                    slack[i] = scaled(slack[i], f);
                }
            break;
        case Transform::Op::Link: {
            const bool network = t.link != QLatin1String("host");
            const Link *m = measuredLink(context, network, &err);
            if (!m)
                return fail(t);
            if (network) {
                net.apply(t, sel);
                out.notes << QStringLiteral("network link: measured over %1 (%2 GB/s, %3 us, %4 collectives)")
                                 .arg(m->name)
                                 .arg(m->bwGBps)
                                 .arg(m->latencyUs)
                                 .arg(context.measuredAlgorithm);
                break;
            }
            const double bw = t.bandwidthGBps > 0 ? t.bandwidthGBps : m->bwGBps;
            const double lat = t.latencyUs >= 0 ? t.latencyUs : m->latencyUs;
            for (size_t i = 0; i < nodes.size(); ++i) {
                if (!sel[i] || !isHostCopy(g.name(nodes[i].name)))
                    continue;
                // One latency + the bandwidth part of the measured time at the new bandwidth.
                const TimeNs oldLat = TimeNs(m->latencyUs * 1e3);
                const TimeNs rest = std::max<TimeNs>(0, work[i] - oldLat);
                work[i] = TimeNs(lat * 1e3) + scaled(rest, m->bwGBps / bw);
            }
            out.notes << QStringLiteral("host link: measured over %1 (%2 GB/s, %3 us)")
                             .arg(m->name)
                             .arg(m->bwGBps)
                             .arg(m->latencyUs);
            break;
        }
        case Transform::Op::Workers:
            net.apply(t, sel);
            out.notes << QStringLiteral("workers: measured collectives of %1 ranks (%2) rescaled to %3 (%4)")
                             .arg(net.measuredRanks())
                             .arg(context.measuredAlgorithm)
                             .arg(t.workers)
                             .arg(t.algorithm.isEmpty() ? context.measuredAlgorithm : t.algorithm);
            break;
        case Transform::Op::Reschedule:
            if (out.input.priority.empty())
                out.input.priority.assign(nodes.size(), 0);
            for (size_t i = 0; i < nodes.size(); ++i)
                if (sel[i])
                    out.input.priority[i] = t.priority;
            break;
        case Transform::Op::Insert: break;
        }
    }
    net.rescale(work, slack);
    return out;
}

} // namespace gml::sim
