// SPDX-License-Identifier: GPL-3.0-or-later
// The Chrome trace importer's metadata: the trace's top-level keys (baseTimeNanoseconds,
// distributedInfo, deviceProperties; the rest kept as they are) and its M events (process and
// thread names, labels and sort indexes).
#include "chrometracesession.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace gml::chrometrace {

void Session::topLevel(std::string_view key, std::string_view raw, qint64 offset)
{
    const QString k = QString::fromUtf8(key.data(), qsizetype(key.size()));
    QJsonParseError err;
    const QByteArray bytes(raw.data(), qsizetype(raw.size()));
    const QJsonDocument doc = QJsonDocument::fromJson("[" + bytes + "]", &err);
    if (err.error != QJsonParseError::NoError) {
        m_warnings.add(QStringLiteral("bad top-level value"), offset,
                       QStringLiteral("top-level key '%1' holds invalid JSON (%2); ignored")
                           .arg(k, err.errorString()));
        return;
    }
    const QJsonValue v = doc.array().first();
    m_metadata.insert(k, v);
    if (k == QLatin1String("baseTimeNanoseconds")) {
        json::Value num{Value::Type::Number, false, raw.data(), raw.size(), offset};
        const auto ns = json::toInt64(num);
        if (ns && *ns >= 0 && *ns <= kMaxAbsTimeNs) {
            m_baseTimeNs = *ns;
            m_hasBaseTime = true;
        } else {
            // Not a time since 1970 a project can hold (2^64 - 1 once became an offset of -1 ns).
            m_warnings.add(
                QStringLiteral("bad baseTimeNanoseconds"), offset,
                QStringLiteral(
                    "baseTimeNanoseconds: expected whole nanoseconds from 0 to %1, got %2; "
                    "ignored (the trace's times are placed without it)")
                    .arg(kMaxAbsTimeNs)
                    .arg(QString::fromUtf8(bytes.left(40))));
        }
    } else if (k == QLatin1String("distributedInfo") && v.isObject()) {
        const auto o = v.toObject();
        if (o.contains(QStringLiteral("rank")))
            m_rank = o.value(QStringLiteral("rank")).toInt(-1);
    } else if (k == QLatin1String("deviceProperties") && v.isArray()) {
        for (const auto &d : v.toArray()) {
            const auto o = d.toObject();
            m_deviceNames[o.value(QStringLiteral("id")).toInteger(-1)] =
                o.value(QStringLiteral("name")).toString();
        }
    }
}

void Session::handleMetadata(const TraceEventView &ev)
{
    const std::string kind = keyText(ev.name);
    const std::string pid = keyText(ev.pid);
    auto argText = [&](std::string_view key) -> std::string {
        const Value *v = ev.arg(key);
        return v ? keyText(*v) : std::string();
    };
    if (kind == "process_name" || kind == "process_labels" || kind == "process_sort_index") {
        auto &meta = m_processMeta[pid];
        if (meta.offset < 0)
            meta.offset = ev.offset;
        if (kind == "process_name")
            meta.name = argText("name");
        else if (kind == "process_labels")
            meta.labels = argText("labels");
        else
            meta.sortIndex = argInt(ev, "sort_index");
    } else if (kind == "thread_name" || kind == "thread_sort_index") {
        auto &meta = m_threadMeta[pid + '\x1f' + keyText(ev.tid)];
        if (kind == "thread_name")
            meta.name = argText("name");
        else
            meta.sortIndex = argInt(ev, "sort_index");
    } else {
        m_warnings.add(QStringLiteral("M unknown"), ev.offset,
                       QStringLiteral("metadata event '%1' at byte %2 is not one of "
                                      "process_name/labels/sort_index, thread_name/sort_index; "
                                      "ignored")
                           .arg(q(kind))
                           .arg(ev.offset));
    }
}

} // namespace gml::chrometrace
