// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeformat.h"

#include <QDateTime>
#include <QTimeZone>

#include <cmath>
#include <cstdlib>

namespace gml {

namespace {

struct Unit
{
    double ns;
    const char16_t *name;
};
constexpr Unit kUnits[] = {{1e9, u" s"}, {1e6, u" ms"}, {1e3, u" µs"}, {1, u" ns"}};

const Unit &unitFor(double magnitude)
{
    for (const auto &u : kUnits)
        if (magnitude >= u.ns)
            return u;
    return kUnits[3];
}

QString trimZeros(QString s)
{
    if (s.contains(QLatin1Char('.'))) {
        while (s.endsWith(QLatin1Char('0')))
            s.chop(1);
        if (s.endsWith(QLatin1Char('.')))
            s.chop(1);
    }
    return s;
}

} // namespace

QString formatSignedDuration(TimeNs ns)
{
    return (ns < 0 ? QStringLiteral("-") : QStringLiteral("+")) + formatDuration(ns < 0 ? -ns : ns);
}

QString formatUtc(TimeNs t)
{
    return QDateTime::fromMSecsSinceEpoch(t / 1'000'000, QTimeZone::utc())
        .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss 'UTC'"));
}

QString formatBytes(double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = std::abs(bytes);
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    const QString sign = bytes < 0 ? QStringLiteral("-") : QString();
    if (u == 0)
        return sign + QString::number(qint64(std::llround(v))) + QStringLiteral(" B");
    return sign +
           QString::number(v, 'f',
                           v >= 100  ? 0
                           : v >= 10 ? 1
                                     : 2) +
           QLatin1Char(' ') + QLatin1String(units[u]);
}

QString formatQuantity(double value, const QString &unit)
{
    static const std::pair<const char *, double> sizes[] = {{"B", 1},
                                                            {"bytes", 1},
                                                            {"KiB", 1024.0},
                                                            {"MiB", 1024.0 * 1024},
                                                            {"GiB", 1024.0 * 1024 * 1024}};
    for (const auto &[name, scale] : sizes)
        if (unit == QLatin1String(name))
            return formatBytes(value * scale);
    const double a = std::abs(value);
    QString text = a >= 1e4 || a == 0 ? QString::number(std::llround(value))
                   : a >= 1e-3        ? QString::number(value, 'g', 4)
                                      : QString::number(value, 'e', 2);
    return unit.isEmpty() ? text : text + QLatin1Char(' ') + unit;
}

QString formatDuration(TimeNs ns, int precision)
{
    const double a = std::abs(double(ns));
    // Spans of hours and days (a workflow of jobs run over weeks) in hours and days, not in
    // ten-digit seconds.
    if (a >= 2 * 86400e9)
        return trimZeros(QString::number(double(ns) / 86400e9, 'f', 2)) + QStringLiteral(" d");
    if (a >= 2 * 3600e9)
        return trimZeros(QString::number(double(ns) / 3600e9, 'f', 2)) + QStringLiteral(" h");
    const Unit &u = unitFor(a);
    if (u.ns == 1)
        return QString::number(ns) + QStringView(u.name);
    return trimZeros(QString::number(double(ns) / u.ns, 'f', precision)) + QStringView(u.name);
}

TimeNs niceStep(double minimum)
{
    if (minimum <= 1)
        return 1;
    constexpr TimeNs kS = 1'000'000'000, kMin = 60 * kS, kH = 3600 * kS, kD = 86400 * kS,
                     kY = 365 * kD;
    if (minimum <= double(10 * kS)) {
        double p = std::pow(10.0, std::floor(std::log10(minimum)));
        for (;;) {
            for (double m : {1.0, 2.0, 5.0})
                if (m * p >= minimum)
                    return TimeNs(m * p);
            p *= 10;
        }
    }
    static constexpr TimeNs kClock[] = {
        15 * kS,   30 * kS, kMin,    2 * kMin, 5 * kMin, 10 * kMin, 15 * kMin,
        30 * kMin, kH,      2 * kH,  3 * kH,   6 * kH,   12 * kH,   kD,
        2 * kD,    5 * kD,  10 * kD, 20 * kD,  50 * kD,  100 * kD,  200 * kD,
        kY,        2 * kY,  5 * kY,  10 * kY,  20 * kY,  50 * kY,   100 * kY};
    for (TimeNs step : kClock)
        if (double(step) >= minimum)
            return step;
    return 100 * kY;
}

QString formatTick(TimeNs t, TimeNs step)
{
    constexpr double kMinNs = 60e9, kHNs = 3600e9, kDNs = 86400e9, kYNs = 365 * kDNs;
    // Minutes and more: the step's own unit, as many decimals as it needs.
    static const std::pair<double, const char16_t *> kLong[] = {
        {kYNs, u" y"}, {kDNs, u" d"}, {kHNs, u" h"}, {kMinNs, u" min"}};
    for (const auto &[ns, name] : kLong) {
        if (double(step) < ns)
            continue;
        int decimals = 0;
        for (double s = double(step) / ns; s - std::floor(s) > 1e-9 && decimals < 3; s *= 10)
            ++decimals;
        return QString::number(double(t) / ns, 'f', decimals) + QStringView(name);
    }
    const Unit &u = unitFor(double(std::max<TimeNs>(step, 1)) * 10);
    int decimals = 0;
    for (double s = double(step) / u.ns; s < 0.999 && decimals < 9; s *= 10)
        ++decimals;
    if (u.ns == 1)
        return QString::number(t) + QStringView(u.name);
    return QString::number(double(t) / u.ns, 'f', decimals) + QStringView(u.name);
}

QString formatOffset(TimeNs t, TimeNs resolution)
{
    const Unit &u = unitFor(std::abs(double(t)));
    if (u.ns == 1)
        return QString::number(t) + QStringView(u.name);
    int decimals = 0;
    for (double r = double(std::max<TimeNs>(resolution, 1)) / u.ns; r < 0.999 && decimals < 9;
         r *= 10)
        ++decimals;
    return trimZeros(QString::number(double(t) / u.ns, 'f', decimals)) + QStringView(u.name);
}

std::optional<TimeNs> parseDuration(const QString &text)
{
    static const std::pair<QLatin1StringView, double> units[] = {
        {QLatin1StringView("ns"), 1.0},    {QLatin1StringView("us"), 1e3},
        {QLatin1StringView("\xb5s"), 1e3}, {QLatin1StringView("ms"), 1e6},
        {QLatin1StringView("s"), 1e9},
    };
    QString t = text.trimmed();
    t.replace(QChar(0x03bc), QChar(0xb5)); // Greek mu for micro
    double scale = 1;
    for (const auto &[name, factor] : units) {
        if (t.endsWith(QString(name))) {
            t.chop(QString(name).size());
            scale = factor;
            break;
        }
    }
    bool ok = false;
    const double v = t.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(v) || std::abs(v * scale) > 9.2e18)
        return std::nullopt;
    return TimeNs(std::llround(v * scale));
}

} // namespace gml
