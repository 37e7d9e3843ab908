// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeformat.h"

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

QString formatDuration(TimeNs ns, int precision)
{
    const double a = std::abs(double(ns));
    const Unit &u = unitFor(a);
    if (u.ns == 1)
        return QString::number(ns) + QStringView(u.name);
    return trimZeros(QString::number(double(ns) / u.ns, 'f', precision)) + QStringView(u.name);
}

TimeNs niceStep(double minimum)
{
    if (minimum <= 1)
        return 1;
    double p = std::pow(10.0, std::floor(std::log10(minimum)));
    for (;;) {
        for (double m : {1.0, 2.0, 5.0})
            if (m * p >= minimum)
                return TimeNs(m * p);
        p *= 10;
    }
}

QString formatTick(TimeNs t, TimeNs step)
{
    const Unit &u = unitFor(double(std::max<TimeNs>(step, 1)) * 10);
    int decimals = 0;
    for (double s = double(step) / u.ns; s < 0.999 && decimals < 9; s *= 10)
        ++decimals;
    if (u.ns == 1)
        return QString::number(t) + QStringView(u.name);
    return QString::number(double(t) / u.ns, 'f', decimals) + QStringView(u.name);
}

} // namespace gml
