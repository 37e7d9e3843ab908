// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <initializer_list>
#include <optional>
#include <span>

namespace gml {

// Reads the members of one JSON object of a user's input (a what-if transform, a cluster file,
// a workflow declaration) with their types and ranges checked, so a value of the wrong type or
// out of range is an error that names where it is ("transforms[2].factor: expected a number
// from 0 to 1000000, got \"abc\"") instead of a default taken silently. The first problem is
// kept; later reads return their fallback and keep it.
class JsonFields
{
public:
    // `where` prefixes every message: "transforms[2]", "cluster.json: nodes[0]".
    JsonFields(const QJsonObject &object, QString where);

    bool ok() const { return m_error.isEmpty(); }
    const QString &error() const { return m_error; }
    const QString &where() const { return m_where; }
    bool has(const char *key) const { return m_object.contains(QLatin1String(key)); }

    // An unknown key is a typo that would silently select or change more than meant.
    bool onlyKnown(std::initializer_list<const char *> known);
    bool onlyKnown(std::span<const char *const> known);

    // A finite number in [min, max]; `fallback` when the key is absent.
    double number(const char *key, double fallback, double min, double max);
    // A whole number in [min, max] (a JSON number without a fraction).
    qint64 integer(const char *key, qint64 fallback, qint64 min, qint64 max);
    QString string(const char *key, const QString &fallback = {});
    // An array of strings (empty when absent).
    QStringList strings(const char *key);
    // An object (empty when absent).
    QJsonObject object(const char *key);

    // Records a problem of the caller's own ("from_ns after to_ns") under this object's name.
    void fail(const QString &key, const QString &message);

    // The value as a person reads it in a message: "abc" quoted, numbers as written, {...}.
    static QString show(const QJsonValue &value);

private:
    void failed(const char *key, const QString &expected, const QJsonValue &got);
    // The member under `key`; undefined once an error is kept, so later reads take their fallback.
    QJsonValue member(const char *key) const;

    QJsonObject m_object;
    QString m_where;
    QString m_error;
};

} // namespace gml
