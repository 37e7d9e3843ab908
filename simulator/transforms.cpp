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
                       {Transform::Op::Link, "link"},     {Transform::Op::Workers, "workers"}};

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
        std::optional<QRegularExpression> name, track;
        if (!s.name.isEmpty() && !(name = regex(s.name)))
            return;
        if (!s.track.isEmpty() && !(track = regex(s.track)))
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
        QHash<StringId, bool> nameMemo;
        std::vector<signed char> trackMemo(g.resources().size(), -1);
        for (size_t i = 0; i < nodes.size(); ++i) {
            const Node &n = nodes[i];
            bool on = kinds & bit(n.kind);
            if (on && name) {
                auto it = nameMemo.find(n.name);
                if (it == nameMemo.end())
                    it = nameMemo.insert(n.name, name->match(g.name(n.name)).hasMatch());
                on = *it;
            }
            if (on && track) {
                auto &m = trackMemo[size_t(n.resource)];
                if (m < 0)
                    m = track->match(g.resources()[size_t(n.resource)].name).hasMatch() ? 1 : 0;
                on = m;
            }
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
    static const QRegularExpression step(QStringLiteral("^ProfilerStep#\\d+$"));
    static const QRegularExpression optName(QStringLiteral("^Optimizer\\.step#(\\w+)"));
    const StringId commName = g.syntheticName(QStringLiteral("ncclKernel_AllReduce_RING (predicted)"));
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
            if (step.match(name).hasMatch())
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
            gradBytes = double(optTime) / stepsWithOpt * 1e-9 * dev->memBwGBps * 1e9 * 0.7 / perParam * 4;
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
        const TimeNs commWork = collectiveTime(QStringLiteral("AllReduce"), bucketBytes, n, bw, lat);
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
                                  "(ring, %5 workers, %6 GB/s, %7 us latency)")
                       .arg(std::max(key.second, 0))
                       .arg(buckets)
                       .arg(double(bucketBytes) / 1e6, 0, 'f', 1)
                       .arg(formatDuration(commWork))
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
    return name.isEmpty() && track.isEmpty() && within.isEmpty() && !kinds && rank < 0 && !from && !to;
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
    if (!track.isEmpty())
        parts << QStringLiteral("on /%1/").arg(track);
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
        o.insert(QStringLiteral("duration_ns"), qint64(duration));
        o.insert(QStringLiteral("name"), name);
        break;
    case Op::Fuse:
        if (duration > 0)
            o.insert(QStringLiteral("duration_ns"), qint64(duration));
        break;
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
    if (t.op == Op::Link && t.bandwidthGBps <= 0 && t.latencyUs < 0)
        return bad(QStringLiteral("give a bandwidth, a latency or both"));
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
    case Op::Insert: return QStringLiteral("insert '%1' (%2) after%3").arg(name, formatDuration(duration), sel);
    case Op::Fuse:
        return QStringLiteral("fuse%1 into one (%2)")
            .arg(sel, duration > 0 ? formatDuration(duration) : QStringLiteral("summed time"));
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
        return QStringLiteral("%1 link %2").arg(link, p.join(QStringLiteral(", ")));
    }
    case Op::Workers:
        return QStringLiteral("%1-way data parallel%2")
            .arg(workers)
            .arg(gradMB > 0 ? QStringLiteral(", %1 MB gradients").arg(gradMB) : QString());
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

std::optional<Transform> parseScale(const QString &text, QString *error)
{
    const qsizetype eq = text.lastIndexOf(QLatin1Char('='));
    bool ok = false;
    const double factor = eq > 0 ? text.mid(eq + 1).toDouble(&ok) : 0;
    if (eq <= 0 || !ok || !std::isfinite(factor) || factor < 0) {
        if (error)
            *error = QStringLiteral("'%1' is not REGEX=FACTOR with a factor of 0 or more").arg(text);
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
    return Transform::scale(text.left(eq), factor);
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

double ringFactor(const QString &operation, int n)
{
    if (n <= 1)
        return 0;
    if (operation == QLatin1String("AllReduce"))
        return 2.0 * (n - 1) / n;
    if (operation == QLatin1String("AllGather") || operation == QLatin1String("ReduceScatter") ||
        operation == QLatin1String("AllToAll"))
        return double(n - 1) / n;
    return 1;
}

TimeNs collectiveTime(const QString &operation, qint64 bytes, int n, double bwGBps, double latencyUs)
{
    if (n <= 1)
        return 0;
    const int steps = operation == QLatin1String("AllReduce") ? 2 * (n - 1)
                      : (operation == QLatin1String("Broadcast") || operation == QLatin1String("Reduce")) ? 1
                                                                                                          : n - 1;
    return TimeNs(std::llround(steps * latencyUs * 1e3 + ringFactor(operation, n) * double(bytes) / bwGBps));
}

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
                node.work = t.duration;
                s.graph->insertNode(node, int(i));
            }
        }
        s.graph->reorder();
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
    // Collective latency steps follow the worker count: measured, or the last Workers transform.
    int workersNow = context.measuredWorkers;
    for (const auto &t : transforms)
        if (t.op == Transform::Op::Workers)
            workersNow = t.workers;
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
        default: break;
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
            for (const auto &r : g.resources()) {
                for (size_t k = 0; k < r.nodes.size();) {
                    if (!sel[size_t(r.nodes[k])]) {
                        ++k;
                        continue;
                    }
                    size_t e = k;
                    TimeNs sum = 0;
                    while (e < r.nodes.size() && sel[size_t(r.nodes[e])])
                        sum += work[size_t(r.nodes[e++])];
                    if (e - k >= 2) {
                        work[size_t(r.nodes[k])] = t.duration > 0 ? t.duration : sum;
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
            out.notes << QStringLiteral("fuse: %1 groups of adjacent slices fused").arg(fused);
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
                if (!sel[i])
                    continue;
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
            const double bw = t.bandwidthGBps > 0 ? t.bandwidthGBps : m->bwGBps;
            const double lat = t.latencyUs >= 0 ? t.latencyUs : m->latencyUs;
            for (size_t i = 0; i < nodes.size(); ++i) {
                if (!sel[i] || (!network && !isHostCopy(g.name(nodes[i].name))))
                    continue;
                // latency + the bandwidth part of the measured time at the new bandwidth.
                const int steps = network ? 2 * std::max(1, workersNow - 1) : 1;
                const TimeNs oldLat = TimeNs(steps * m->latencyUs * 1e3);
                const TimeNs rest = std::max<TimeNs>(0, work[i] - oldLat);
                work[i] = TimeNs(steps * lat * 1e3) + scaled(rest, m->bwGBps / bw);
            }
            out.notes << QStringLiteral("%1 link: measured over %2 (%3 GB/s, %4 us)")
                             .arg(t.link, m->name)
                             .arg(m->bwGBps)
                             .arg(m->latencyUs);
            break;
        }
        case Transform::Op::Workers: {
            const auto &ops = collectiveOperations();
            const int from = std::max(2, context.measuredWorkers);
            for (size_t i = 0; i < nodes.size(); ++i) {
                if (!sel[i] || nodes[i].slice == 0)
                    continue; // inserted all-reduces already have the model's time
                const QString op = nodes[i].collectiveOp >= 0 ? ops[nodes[i].collectiveOp] : QString();
                if (t.workers <= 1) {
                    work[i] = slack[i] = 0;
                    continue;
                }
                work[i] = scaled(work[i], ringFactor(op, t.workers) / ringFactor(op, from));
            }
            out.notes << QStringLiteral("workers: measured collectives of %1 ranks rescaled by the ring factor to %2")
                             .arg(from)
                             .arg(t.workers);
            break;
        }
        case Transform::Op::Insert: break;
        }
    }
    return out;
}

} // namespace gml::sim
