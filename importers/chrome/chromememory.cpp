// SPDX-License-Identifier: GPL-3.0-or-later
#include "chromememory.h"

#include "memoryreport.h"
#include "tracewriter.h"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <tuple>

namespace gml::chrometrace {

namespace {

// The events' indices per process and device (in that order), each device's in time order (file
// order among equal times: an allocation and its free at the same microsecond keep their
// order); device d's are at [start[d], start[d + 1]). By index: sorting the events themselves
// moved a process-id string each and cost more than writing the counters (a million events in
// a 1 GB trace), and most files hold each device's events in time order already.
std::vector<quint32> byDeviceThenTime(const std::vector<MemoryEvent> &events,
                                      std::vector<size_t> &start)
{
    std::vector<std::tuple<std::string_view, int, int>> devices; // in order of first appearance
    std::vector<quint32> deviceOf(events.size());
    for (size_t k = 0; k < events.size(); ++k) {
        const MemoryEvent &e = events[k];
        const auto key = std::make_tuple(std::string_view(e.pid), e.deviceType, e.deviceId);
        if (k > 0 && key == devices[deviceOf[k - 1]]) {
            deviceOf[k] = deviceOf[k - 1];
            continue;
        }
        const auto it = std::find(devices.begin(), devices.end(), key);
        deviceOf[k] = quint32(it - devices.begin());
        if (it == devices.end())
            devices.push_back(key);
    }
    std::vector<quint32> rankOf(devices.size()); // a device's place in key order
    {
        std::vector<quint32> byKey(devices.size());
        std::iota(byKey.begin(), byKey.end(), 0);
        std::sort(byKey.begin(), byKey.end(),
                  [&](quint32 a, quint32 b) { return devices[a] < devices[b]; });
        for (size_t r = 0; r < byKey.size(); ++r)
            rankOf[byKey[r]] = quint32(r);
    }
    // Counting sort by device (stable), then each device's events by time where they are not.
    start.assign(devices.size() + 1, 0);
    for (quint32 d : deviceOf)
        ++start[rankOf[d] + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    std::vector<quint32> order(events.size());
    {
        std::vector<size_t> next(start.begin(), start.end() - 1);
        for (size_t k = 0; k < events.size(); ++k)
            order[next[rankOf[deviceOf[k]]]++] = quint32(k);
    }
    auto byTime = [&events](quint32 a, quint32 b) { return events[a].ts < events[b].ts; };
    for (size_t d = 0; d < devices.size(); ++d)
        if (!std::is_sorted(order.begin() + qsizetype(start[d]),
                            order.begin() + qsizetype(start[d + 1]), byTime))
            std::stable_sort(order.begin() + qsizetype(start[d]),
                             order.begin() + qsizetype(start[d + 1]), byTime);
    return order;
}

} // namespace

void MemoryCounters::write(TraceWriter &w, int rank,
                           const std::function<Parent(const std::string &, int, int)> &parentOf)
{
    std::vector<size_t> start;
    const std::vector<quint32> order = byDeviceThenTime(m_events, start);
    constexpr double kMiB = 1024.0 * 1024.0;
    for (size_t d = 0; d + 1 < start.size(); ++d) {
        const size_t i = start[d], j = start[d + 1];
        bool reserved = false;
        for (size_t k = i; k < j; ++k)
            reserved = reserved || m_events[order[k]].totalReserved.has_value();
        const MemoryEvent &first = m_events[order[i]];
        const QString device = memoryDeviceLabel(first.deviceType, first.deviceId);
        const Parent parent = parentOf(first.pid, first.deviceType, first.deviceId);
        auto track = [&](const QString &what) {
            TrackSpec spec;
            spec.parent = parent.track;
            spec.kind = TrackKind::Counter;
            // Named for what it is first (labels are elided at the end), then its source.
            spec.name = (parent.deviceRow ? QString() : device + QLatin1Char(' ')) +
                        QStringLiteral("memory %1 · PyTorch profiler").arg(what);
            spec.unit = QStringLiteral("MiB");
            spec.rank = rank;
            return w.addTrack(spec);
        };
        const TrackId allocated = track(QStringLiteral("allocated"));
        const TrackId reservedTrack = reserved ? track(QStringLiteral("reserved")) : 0;
        double sum = 0;
        // A sample only where the value changes: the reserved total moves a few hundred times in
        // a million events, and a counter holds its value until the next sample anyway.
        std::optional<double> lastAllocated, lastReserved;
        for (size_t k = i; k < j; ++k) {
            const MemoryEvent &e = m_events[order[k]];
            sum += e.bytes;
            // A build that records the allocator's total is right from the first event; the
            // running sum only counts what the trace saw.
            const double a = e.totalAllocated.value_or(sum);
            if (a != lastAllocated) {
                w.addCounter(allocated, e.ts, a / kMiB);
                lastAllocated = a;
            }
            if (reservedTrack && e.totalReserved && *e.totalReserved != lastReserved) {
                w.addCounter(reservedTrack, e.ts, *e.totalReserved / kMiB);
                lastReserved = e.totalReserved;
            }
        }
    }
}

} // namespace gml::chrometrace
