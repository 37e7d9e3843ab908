// SPDX-License-Identifier: GPL-3.0-or-later
// Transforms as JSON and as text (describe); typed forms and presets: transformpresets.cpp.
#include "transformsinternal.h"

#include "jsonfields.h"
#include "tracewriter.h"

#include "devicecatalog.h"
#include "timeformat.h"

#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace gml::sim {

using namespace detail;

namespace {

const char *const kKindNames[] = {"cpu", "runtime", "kernel", "collective", "memcpy", "memset"};

struct OpName
{
    Transform::Op op;
    const char *name;
};
const OpName kOps[] = {{Transform::Op::Scale, "scale"},
                       {Transform::Op::Remove, "remove"},
                       {Transform::Op::SetDuration, "set"},
                       {Transform::Op::Insert, "insert"},
                       {Transform::Op::Fuse, "fuse"},
                       {Transform::Op::Device, "device"},
                       {Transform::Op::Amp, "amp"},
                       {Transform::Op::Compute, "compute"},
                       {Transform::Op::Memory, "memory"},
                       {Transform::Op::Input, "input"},
                       {Transform::Op::Link, "link"},
                       {Transform::Op::Workers, "workers"},
                       {Transform::Op::Reschedule, "reschedule"},
                       {Transform::Op::Host, "host"},
                       {Transform::Op::Unsync, "unsync"}};

QString opName(Transform::Op op)
{
    for (const auto &o : kOps)
        if (o.op == op)
            return QString::fromLatin1(o.name);
    return {};
}

} // namespace

bool Selector::isEmpty() const
{
    return name.isEmpty() && track.isEmpty() && within.isEmpty() && category.isEmpty() &&
           device.isEmpty() && !kinds && rank < 0 && !from && !to;
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

namespace {

// The limits of what a transform may ask for: beyond them a prediction means nothing, and the
// arithmetic of the replay could overflow.
constexpr double kMaxFactor = 1e6;        // a million times slower (scale, host, input: 0 is free)
constexpr double kMinRate = 1e-6;         // the least speed-up, bandwidth or bucket size (not 0)
constexpr double kMaxBandwidthGBps = 1e6; // 1 PB/s
constexpr double kMaxLatencyUs = 1e9;     // 1,000 s
constexpr qint64 kMaxWorkers = 1'000'000;
constexpr double kMaxMB = 1e9; // 1 PB of gradients or buckets
constexpr double kMaxFlops = 1e24;
constexpr double kMaxBytes = 1e18;
constexpr qint64 kMaxPriority = 1'000'000;
constexpr qint64 kMaxRank = 1'000'000;

} // namespace

std::optional<Selector> Selector::fromJson(const QJsonObject &o, QString *error,
                                           const QString &where)
{
    JsonFields f(o, where);
    f.onlyKnown(
        {"name", "track", "within", "category", "device", "kind", "rank", "from_ns", "to_ns"});
    Selector s;
    s.name = f.string("name");
    s.track = f.string("track");
    s.within = f.string("within");
    s.category = f.string("category");
    s.device = f.string("device");
    for (const QString &k : f.strings("kind")) {
        int found = -1;
        for (int i = 0; i < 6; ++i)
            if (k == QLatin1String(kKindNames[i]))
                found = i;
        if (found < 0) {
            f.fail(QStringLiteral("kind"),
                   QStringLiteral(
                       "unknown node kind '%1' (cpu, runtime, kernel, collective, memcpy, memset)")
                       .arg(k));
            break;
        }
        s.kinds |= quint8(1u << found);
    }
    s.rank = int(f.integer("rank", -1, 0, kMaxRank));
    if (f.has("from_ns"))
        s.from = f.integer("from_ns", 0, -kMaxAbsTimeNs, kMaxAbsTimeNs);
    if (f.has("to_ns"))
        s.to = f.integer("to_ns", 0, -kMaxAbsTimeNs, kMaxAbsTimeNs);
    if (f.ok() && s.from && s.to && *s.from > *s.to)
        f.fail(QStringLiteral("to_ns"),
               QStringLiteral("%1 is before from_ns %2: the range is inverted")
                   .arg(*s.to)
                   .arg(*s.from));
    if (!f.ok()) {
        *error = f.error();
        return std::nullopt;
    }
    return s;
}

QString Selector::describe() const
{
    QStringList parts;
    // A long regex (the names a finding selects) is cut for reading; toJson keeps it whole.
    auto cut = [](const QString &re) {
        return re.size() > 60 ? re.left(57) + QStringLiteral("...") : re;
    };
    if (!name.isEmpty())
        parts << QStringLiteral("/%1/").arg(cut(name));
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
    case Op::Input:
        o.insert(QStringLiteral("factor"), factor);
        if (workers > 1)
            o.insert(QStringLiteral("workers"), workers);
        break;
    case Op::Host:
        o.insert(QStringLiteral("factor"), factor);
        break;
    case Op::SetDuration:
        o.insert(QStringLiteral("duration_ns"), qint64(duration));
        break;
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
    case Op::Reschedule:
        o.insert(QStringLiteral("priority"), priority);
        break;
    case Op::Device:
        o.insert(QStringLiteral("target"), target);
        if (hostFactor > 0)
            o.insert(QStringLiteral("host_factor"), hostFactor);
        break;
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
    case Op::Amp:
    case Op::Unsync:
        break;
    }
    return o;
}

std::optional<Transform> Transform::fromJson(const QJsonObject &o, QString *error,
                                             const QString &where)
{
    Transform t;
    const QJsonValue opValue = o.value(QStringLiteral("op"));
    const QString op = opValue.toString();
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
        const QString what =
            opValue.isString()
                ? QStringLiteral("unknown transform '%1'").arg(op)
                : QStringLiteral("expected an op, got %1").arg(JsonFields::show(opValue));
        *error = (where.isEmpty() ? QString() : where + QStringLiteral(".op: ")) + what +
                 QStringLiteral(" (%1)").arg(names.join(QStringLiteral(", ")));
        return std::nullopt;
    }
    JsonFields f(o, where.isEmpty() ? op : where);
    f.onlyKnown({"op",      "select",      "factor",         "duration_ns", "name",
                 "target",  "link",        "bandwidth_gbps", "latency_us",  "workers",
                 "grad_mb", "bucket_mb",   "flops",          "bytes",       "precision",
                 "model",   "overhead_ns", "priority",       "algorithm",   "host_factor"});
    const QJsonObject select = f.object("select");
    if (!f.ok()) {
        *error = f.error();
        return std::nullopt;
    }
    const auto sel = Selector::fromJson(select, error, f.where() + QStringLiteral(".select"));
    if (!sel)
        return std::nullopt;
    t.select = *sel;
    // Compute and memory are speed-ups (a factor of 0 would be infinitely fast); the others
    // take 0 for "free" (scale removes, input and host free).
    t.factor = t.op == Op::Compute || t.op == Op::Memory
                   ? f.number("factor", 1, kMinRate, kMaxFactor)
                   : f.number("factor", 1, 0, kMaxFactor);
    t.duration = f.integer("duration_ns", 0, 0, kMaxAbsTimeNs);
    t.name = f.string("name", QStringLiteral("inserted"));
    t.target = f.string("target");
    t.link = f.string("link", QStringLiteral("network"));
    t.bandwidthGBps = f.number("bandwidth_gbps", 0, kMinRate, kMaxBandwidthGBps);
    t.latencyUs = f.number("latency_us", -1, 0, kMaxLatencyUs);
    t.workers = int(f.integer("workers", 1, 1, kMaxWorkers));
    t.gradMB = f.number("grad_mb", 0, 0, kMaxMB);
    t.bucketMB = f.number("bucket_mb", 25, kMinRate, kMaxMB);
    t.flops = f.number("flops", 0, 0, kMaxFlops);
    t.bytes = f.number("bytes", 0, 0, kMaxBytes);
    t.precision = f.string("precision", QStringLiteral("fp32"));
    t.model = f.string("model", QStringLiteral("sum"));
    t.overhead = f.integer("overhead_ns", -1, 0, kMaxAbsTimeNs);
    t.priority = int(f.integer("priority", 1, -kMaxPriority, kMaxPriority));
    t.algorithm = f.string("algorithm");
    t.hostFactor = f.number("host_factor", 0, 0, kMaxFactor);
    if (!f.ok()) {
        *error = f.error();
        return std::nullopt;
    }
    auto bad = [&](const QString &why) -> std::optional<Transform> {
        *error = QStringLiteral("%1: %2").arg(f.where(), why);
        return std::nullopt;
    };
    if (t.op == Op::Device && !DeviceCatalog::builtin().device(t.target))
        return bad(QStringLiteral("no device '%1' in the catalog").arg(t.target));
    if (t.op == Op::Link && t.link != QLatin1String("network") && t.link != QLatin1String("host"))
        return bad(QStringLiteral("link must be 'network' or 'host'"));
    if (t.op == Op::Link && t.bandwidthGBps <= 0 && t.latencyUs < 0 && t.algorithm.isEmpty())
        return bad(QStringLiteral("give a bandwidth, a latency, an algorithm or some of them"));
    if (!t.algorithm.isEmpty() && !collectiveAlgorithms().contains(t.algorithm))
        return bad(QStringLiteral("algorithm must be 'ring' or 'tree'"));
    if (t.precision != QLatin1String("fp32") && t.precision != QLatin1String("fp16"))
        return bad(QStringLiteral("precision must be 'fp32' or 'fp16'"));
    if (t.model != QLatin1String("sum") && t.model != QLatin1String("overhead"))
        return bad(QStringLiteral("model must be 'sum' or 'overhead'"));
    return t;
}

QString Transform::describe() const
{
    const QString sel = select.isEmpty() ? QString() : QStringLiteral(" ") + select.describe();
    switch (op) {
    case Op::Scale:
        return QStringLiteral("scale%1 x%2").arg(sel).arg(factor);
    case Op::Remove:
        return QStringLiteral("remove%1").arg(sel);
    case Op::SetDuration:
        return QStringLiteral("set%1 to %2").arg(sel, formatDuration(duration));
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
            cost =
                overhead >= 0
                    ? QStringLiteral("summed time less %1 per kernel").arg(formatDuration(overhead))
                    : QStringLiteral("summed time less the per-kernel fixed cost");
        return QStringLiteral("fuse%1 into one (%2)").arg(sel, cost);
    }
    case Op::Reschedule:
        return QStringLiteral("priority %1 on its resource for%2").arg(priority).arg(sel);
    case Op::Device:
        return QStringLiteral("run on %1%2%3")
            .arg(target,
                 hostFactor > 0 ? QStringLiteral(", host CPU %1x faster").arg(hostFactor)
                                : QString(),
                 sel);
    case Op::Amp:
        return QStringLiteral("AMP: compute-bound kernels /3, memory-bound /2%1").arg(sel);
    case Op::Compute:
        return QStringLiteral("compute-bound kernels %1x faster%2").arg(factor).arg(sel);
    case Op::Memory:
        return QStringLiteral("memory-bound kernels and copies %1x faster%2").arg(factor).arg(sel);
    case Op::Input:
        if (workers > 1)
            return QStringLiteral("input pipeline on %1 loader workers%2%3")
                .arg(workers)
                .arg(factor != 1 ? QStringLiteral(", each %1x faster").arg(factor) : QString())
                .arg(sel);
        return factor == 0 ? QStringLiteral("input pipeline free%1").arg(sel)
                           : QStringLiteral("input pipeline %1x faster%2").arg(factor).arg(sel);
    case Op::Host:
        return factor == 0 ? QStringLiteral("host launch path free%1").arg(sel)
                           : QStringLiteral("host launch path %1x faster%2").arg(factor).arg(sel);
    case Op::Unsync:
        return QStringLiteral("synchronising calls do not wait for the GPU%1").arg(sel);
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
                 algorithm.isEmpty() ? QString()
                                     : QStringLiteral(", %1 all-reduce").arg(algorithm));
    }
    return {};
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
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString where = QStringLiteral("transforms[%1]").arg(i);
        if (!a.at(i).isObject()) {
            *error = QStringLiteral("%1: expected a transform object, got %2")
                         .arg(where, JsonFields::show(a.at(i)));
            return std::nullopt;
        }
        auto t = Transform::fromJson(a.at(i).toObject(), error, where);
        if (!t)
            return std::nullopt;
        out.append(*t);
    }
    return out;
}

} // namespace gml::sim
