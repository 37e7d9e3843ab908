// SPDX-License-Identifier: GPL-3.0-or-later
// Transforms as JSON and as text (describe); typed forms and presets: transformpresets.cpp.
#include "transformkind.h"

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
constexpr qint64 kMaxRank = 1'000'000;

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
    o.insert(QStringLiteral("op"), op);
    if (!select.isEmpty())
        o.insert(QStringLiteral("select"), select.toJson());
    if (const TransformKind *kind = transformKind(op))
        kind->write(*this, o);
    return o;
}

std::optional<Transform> Transform::fromJson(const QJsonObject &o, QString *error,
                                             const QString &where)
{
    const QJsonValue opValue = o.value(QStringLiteral("op"));
    const QString op = opValue.toString();
    const TransformKind *kind = opValue.isString() ? transformKind(op) : nullptr;
    if (!kind) {
        const QString what =
            opValue.isString()
                ? QStringLiteral("unknown transform '%1'").arg(op)
                : QStringLiteral("expected an op, got %1").arg(JsonFields::show(opValue));
        *error = (where.isEmpty() ? QString() : where + QStringLiteral(".op: ")) + what +
                 QStringLiteral(" (%1)").arg(transformOps().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    JsonFields f(o, where.isEmpty() ? op : where);
    std::vector<const char *> known = {"op", "select"};
    for (const char *k : kind->keys())
        known.push_back(k);
    f.onlyKnown(known);
    const QJsonObject select = f.object("select");
    if (!f.ok()) {
        *error = f.error();
        return std::nullopt;
    }
    const auto sel = Selector::fromJson(select, error, f.where() + QStringLiteral(".select"));
    if (!sel)
        return std::nullopt;
    Transform t;
    t.op = op;
    t.select = *sel;
    kind->read(f, t);
    if (!f.ok()) {
        *error = f.error();
        return std::nullopt;
    }
    if (const QString why = kind->invalid(t); !why.isEmpty()) {
        *error = QStringLiteral("%1: %2").arg(f.where(), why);
        return std::nullopt;
    }
    return t;
}

QString Transform::describe() const
{
    const QString sel = select.isEmpty() ? QString() : QStringLiteral(" ") + select.describe();
    if (const TransformKind *kind = transformKind(op))
        return kind->describe(*this, sel);
    return QStringLiteral("%1 (an unknown transform)%2").arg(op, sel);
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
