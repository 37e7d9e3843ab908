// SPDX-License-Identifier: GPL-3.0-or-later
// Transforms as people type them (REGEX=FACTOR, reschedule, the named presets of the CLI and
// the studio) and the constructors of the common ones; JSON and describe(): transformformat.cpp.
#include "transformsinternal.h"

#include <QJsonDocument>
#include <QRegularExpression>

#include <cmath>

namespace gml::sim {

using namespace detail;

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
    t.op = QStringLiteral("amp");
    return t;
}

Transform Transform::fusedAdam()
{
    Transform t;
    t.op = QStringLiteral("fuse");
    t.select.within = optimizerPattern();
    t.select.kinds = bit(NodeKind::Kernel);
    t.model = QStringLiteral("overhead");
    return t;
}

Transform Transform::input(double speedup)
{
    Transform t;
    t.op = QStringLiteral("input");
    t.factor = speedup;
    return t;
}

Transform Transform::host(double speedup)
{
    Transform t;
    t.op = QStringLiteral("host");
    t.factor = speedup;
    return t;
}

Transform Transform::unsync()
{
    Transform t;
    t.op = QStringLiteral("unsync");
    return t;
}

Transform Transform::device(QString id)
{
    Transform t;
    t.op = QStringLiteral("device");
    t.target = std::move(id);
    return t;
}

Transform Transform::network(double gbps, double latencyUs)
{
    Transform t;
    t.op = QStringLiteral("link");
    t.bandwidthGBps = gbps;
    t.latencyUs = latencyUs;
    return t;
}

Transform Transform::dataParallel(int n)
{
    Transform t;
    t.op = QStringLiteral("workers");
    t.workers = n;
    return t;
}

namespace {

// "REGEX=VALUE", split at the last '=': the regex checked, the value a number of 0 or more
// (`whole`: a whole number, any sign).
std::optional<std::pair<QString, double>> regexAndValue(const QString &text, bool whole,
                                                        QString *error)
{
    const qsizetype eq = text.lastIndexOf(QLatin1Char('='));
    bool ok = false;
    const double value = eq > 0 ? text.mid(eq + 1).toDouble(&ok) : 0;
    if (eq <= 0 || !ok || !std::isfinite(value) ||
        (whole ? value != std::trunc(value) || std::abs(value) > 1e6 : value < 0)) {
        if (error)
            *error = whole
                         ? QStringLiteral("'%1' is not REGEX=PRIORITY with a whole-number priority")
                               .arg(text)
                         : QStringLiteral("'%1' is not REGEX=FACTOR with a factor of 0 or more")
                               .arg(text);
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
            *error =
                QStringLiteral("not a JSON object (offset %1: %2)")
                    .arg(pe.offset)
                    .arg(pe.error != QJsonParseError::NoError ? pe.errorString()
                                                              : QStringLiteral("expected '{'"));
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
    t.op = QStringLiteral("reschedule");
    t.select.name = rv->first;
    t.priority = int(rv->second);
    return t;
}

QStringList presetNames()
{
    return {QStringLiteral("amp"),        QStringLiteral("fusedadam"), QStringLiteral("input=N"),
            QStringLiteral("input=free"), QStringLiteral("loader=N"),  QStringLiteral("host=N"),
            QStringLiteral("host=free"),  QStringLiteral("unsync")};
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
    if (p == QLatin1String("host=free"))
        return Transform::host(0);
    if (p == QLatin1String("unsync"))
        return Transform::unsync();
    if (p.startsWith(QLatin1String("loader="))) { // DataLoader workers 0 -> N: a queue
        bool ok = false;
        const int n = p.mid(7).toInt(&ok);
        if (ok && n >= 2 && n <= 1024) {
            Transform t = Transform::input(1);
            t.workers = n;
            return t;
        }
    }
    for (const auto &[prefix, make] : {std::pair{QLatin1String("input="), &Transform::input},
                                       std::pair{QLatin1String("host="), &Transform::host}})
        if (p.startsWith(prefix)) {
            bool ok = false;
            const double n = p.mid(prefix.size()).toDouble(&ok);
            if (ok && n > 0 && std::isfinite(n))
                return make(n);
        }
    if (error)
        *error = QStringLiteral("unknown preset '%1' (%2)")
                     .arg(text, presetNames().join(QStringLiteral(", ")));
    return std::nullopt;
}

} // namespace gml::sim
