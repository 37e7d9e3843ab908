// SPDX-License-Identifier: GPL-3.0-or-later
#include "steadystate.h"

#include <algorithm>
#include <cmath>

namespace gml {

TimeNs quantile(std::vector<TimeNs> values, double q)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const double at = std::clamp(q, 0.0, 1.0) * double(values.size() - 1);
    const size_t below = size_t(std::floor(at));
    const size_t above = std::min(values.size() - 1, below + 1);
    const double t = at - double(below);
    return TimeNs(std::llround(double(values[below]) + t * double(values[above] - values[below])));
}

int warmupIterations(const std::vector<TimeNs> &times)
{
    if (times.size() < 3)
        return 0;
    const double limit = kWarmupFactor * double(quantile(times, 0.5));
    int warm = 0;
    while (size_t(warm) < times.size() / 2 && double(times[size_t(warm)]) > limit)
        ++warm;
    return warm;
}

} // namespace gml
