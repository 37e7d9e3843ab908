// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonfields.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace gml {

namespace {

QString numberText(double v)
{
    return QString::number(v, 'g', 12);
}

} // namespace

JsonFields::JsonFields(const QJsonObject &object, QString where)
    : m_object(object), m_where(std::move(where))
{
}

QString JsonFields::show(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::String: {
        QString s = v.toString();
        if (s.size() > 40)
            s = s.left(37) + QStringLiteral("...");
        return QLatin1Char('"') + s + QLatin1Char('"');
    }
    case QJsonValue::Double:
        return numberText(v.toDouble());
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

void JsonFields::fail(const QString &key, const QString &message)
{
    if (!m_error.isEmpty())
        return;
    const QString at = m_where.isEmpty() ? key
                       : key.isEmpty()   ? m_where
                                         : m_where + QLatin1Char('.') + key;
    m_error = at.isEmpty() ? message : at + QStringLiteral(": ") + message;
}

void JsonFields::failed(const char *key, const QString &expected, const QJsonValue &got)
{
    fail(QString::fromLatin1(key), QStringLiteral("expected %1, got %2").arg(expected, show(got)));
}

QJsonValue JsonFields::member(const char *key) const
{
    return ok() ? m_object.value(QLatin1String(key)) : QJsonValue(QJsonValue::Undefined);
}

bool JsonFields::onlyKnown(std::initializer_list<const char *> known)
{
    return onlyKnown(std::span<const char *const>(known.begin(), known.size()));
}

bool JsonFields::onlyKnown(std::span<const char *const> known)
{
    for (auto it = m_object.begin(); it != m_object.end(); ++it)
        if (std::none_of(known.begin(), known.end(),
                         [&](const char *k) { return it.key() == QLatin1String(k); })) {
            QStringList names;
            for (const char *k : known)
                names << QString::fromLatin1(k);
            fail(QString(), QStringLiteral("unknown key '%1' (expected %2)")
                                .arg(it.key(), names.join(QStringLiteral(", "))));
            return false;
        }
    return true;
}

double JsonFields::number(const char *key, double fallback, double min, double max)
{
    const QJsonValue v = member(key);
    if (v.isUndefined())
        return fallback;
    const double d = v.toDouble(std::nan(""));
    if (!v.isDouble() || !std::isfinite(d) || d < min || d > max) {
        failed(key,
               min > 0 && min < 1
                   ? QStringLiteral("a number above 0, from %1 to %2")
                         .arg(numberText(min), numberText(max))
                   : QStringLiteral("a number from %1 to %2").arg(numberText(min), numberText(max)),
               v);
        return fallback;
    }
    return d;
}

qint64 JsonFields::integer(const char *key, qint64 fallback, qint64 min, qint64 max)
{
    const QJsonValue v = member(key);
    if (v.isUndefined())
        return fallback;
    const double d = v.toDouble(std::nan(""));
    // Doubles hold whole numbers exactly up to 2^53; the limits here are far below that.
    if (!v.isDouble() || !std::isfinite(d) || d != std::floor(d) || d < double(min) ||
        d > double(max)) {
        failed(key, QStringLiteral("a whole number from %1 to %2").arg(min).arg(max), v);
        return fallback;
    }
    return v.toInteger(qint64(d));
}

QString JsonFields::string(const char *key, const QString &fallback)
{
    const QJsonValue v = member(key);
    if (v.isUndefined())
        return fallback;
    if (!v.isString()) {
        failed(key, QStringLiteral("a string"), v);
        return fallback;
    }
    return v.toString();
}

QStringList JsonFields::strings(const char *key)
{
    const QJsonValue v = member(key);
    if (v.isUndefined())
        return {};
    QStringList out;
    if (v.isArray()) {
        const QJsonArray a = v.toArray();
        for (const QJsonValue &x : a) {
            if (!x.isString()) {
                failed(key, QStringLiteral("an array of strings"), x);
                return {};
            }
            out << x.toString();
        }
        return out;
    }
    failed(key, QStringLiteral("an array of strings"), v);
    return {};
}

QJsonObject JsonFields::object(const char *key)
{
    const QJsonValue v = member(key);
    if (v.isUndefined())
        return {};
    if (!v.isObject()) {
        failed(key, QStringLiteral("an object"), v);
        return {};
    }
    return v.toObject();
}

} // namespace gml
