// SPDX-License-Identifier: GPL-3.0-or-later
#include "steadystate.h"

#include <algorithm>

namespace gml {

int warmupIterations(const std::vector<TimeNs> &times)
{
    if (times.size() < 3)
        return 0;
    // The median (the mean of the middle two for an even count).
    std::vector<TimeNs> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    const double median = (double(sorted[(n - 1) / 2]) + double(sorted[n / 2])) / 2;
    const double limit = kWarmupFactor * median;
    int warm = 0;
    while (size_t(warm) < n / 2 && double(times[size_t(warm)]) > limit)
        ++warm;
    return warm;
}

} // namespace gml
