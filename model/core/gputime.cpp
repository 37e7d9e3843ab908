// SPDX-License-Identifier: GPL-3.0-or-later
#include "gputime.h"

#include <algorithm>

namespace gml {

Intervals unite(Intervals v)
{
    std::sort(v.begin(), v.end());
    Intervals out;
    for (const auto &iv : v) {
        if (!out.empty() && iv.first <= out.back().second)
            out.back().second = std::max(out.back().second, iv.second);
        else
            out.push_back(iv);
    }
    return out;
}

TimeNs length(const Intervals &u)
{
    TimeNs sum = 0;
    for (const auto &[a, b] : u)
        sum += b - a;
    return sum;
}

TimeNs overlap(const Intervals &x, const Intervals &y)
{
    TimeNs sum = 0;
    for (size_t i = 0, j = 0; i < x.size() && j < y.size();) {
        const TimeNs a = std::max(x[i].first, y[j].first), b = std::min(x[i].second, y[j].second);
        if (b > a)
            sum += b - a;
        if (x[i].second < y[j].second)
            ++i;
        else
            ++j;
    }
    return sum;
}

TimeNs overlap(const Intervals &x, TimeNs a, TimeNs b)
{
    TimeNs sum = 0;
    auto it =
        std::lower_bound(x.begin(), x.end(), a, [](const std::pair<TimeNs, TimeNs> &v, TimeNs t) {
            return v.second <= t;
        });
    for (; it != x.end() && it->first < b; ++it)
        sum += std::min(b, it->second) - std::max(a, it->first);
    return sum;
}

Intervals joined(const Intervals &x, const Intervals &y)
{
    Intervals all = x;
    all.insert(all.end(), y.begin(), y.end());
    return unite(std::move(all));
}

GpuPartition partitionGpuTime(TimeNs window, Intervals compute, Intervals communication,
                              Intervals copies)
{
    compute = unite(std::move(compute));
    communication = unite(std::move(communication));
    copies = unite(std::move(copies));
    const Intervals computeOrComm = joined(compute, communication);
    GpuPartition out;
    out.busy = joined(computeOrComm, copies);
    out.time.window = window;
    out.time.compute = length(compute);
    out.communicationTotal = length(communication);
    out.communicationOverlapped = overlap(communication, compute);
    out.time.communication = out.communicationTotal - out.communicationOverlapped;
    out.time.copies = length(copies) - overlap(copies, computeOrComm);
    out.time.idle = window - length(out.busy);
    return out;
}

} // namespace gml
