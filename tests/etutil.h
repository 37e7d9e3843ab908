// SPDX-License-Identifier: GPL-3.0-or-later
// An independent reading of a flat (schema 1.0.1) PyTorch execution trace, for the tests that
// check the importers against it: the top-level operators and the tensors of a value.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QMap>
#include <QSet>
#include <QString>

namespace gmltest {

// An operator, not an annotation ("## name ##", a "[...]" root, a record_function scope 7).
inline bool isEtOperator(const QJsonObject &n)
{
    const QString name = n.value(QStringLiteral("name")).toString();
    return !name.isEmpty() && n.value(QStringLiteral("scope")).toInt() != 7 &&
           !name.startsWith(QLatin1String("##")) && !name.startsWith(QLatin1Char('['));
}

// The operators whose parent is not an operator, by rf_id (record order).
inline QMap<qint64, QJsonObject> topLevelEtOperators(const QJsonObject &root)
{
    QMap<qint64, QJsonObject> byId;
    const QJsonArray nodes = root.value(QStringLiteral("nodes")).toArray();
    for (const auto &n : nodes)
        byId.insert(n.toObject().value(QStringLiteral("id")).toInteger(), n.toObject());
    QMap<qint64, QJsonObject> top;
    for (const auto &n : std::as_const(byId)) {
        const qint64 parent = n.value(QStringLiteral("parent")).toInteger();
        if (isEtOperator(n) && !(byId.contains(parent) && isEtOperator(byId[parent])))
            top.insert(n.value(QStringLiteral("rf_id")).toInteger(), n);
    }
    return top;
}

// The tensors of a value, [id, storage, offset, numel, itemsize, device] possibly inside
// lists, as "id/storage".
inline void collectEtTensors(const QJsonValue &v, QSet<QString> &out)
{
    const QJsonArray a = v.toArray();
    if (a.size() == 6 && a[0].isDouble() && a[5].isString())
        out.insert(QStringLiteral("%1/%2").arg(a[0].toInteger()).arg(a[1].toInteger()));
    else
        for (const auto &e : a)
            collectEtTensors(e, out);
}

} // namespace gmltest
