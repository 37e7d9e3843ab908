// SPDX-License-Identifier: GPL-3.0-or-later
#include "chromememory.h"

#include "memoryreport.h"
#include "tracewriter.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gml::chrometrace {

void MemoryCounters::write(TraceWriter &w, int rank,
                           const std::function<Parent(const std::string &, int, int)> &parentOf)
{
    // Per process and device, in time order (file order among equal times: an allocation and
    // its free at the same microsecond keep their order).
    std::stable_sort(m_events.begin(), m_events.end(), [](const auto &a, const auto &b) {
        return std::tie(a.pid, a.deviceType, a.deviceId, a.ts) <
               std::tie(b.pid, b.deviceType, b.deviceId, b.ts);
    });
    constexpr double kMiB = 1024.0 * 1024.0;
    size_t i = 0;
    while (i < m_events.size()) {
        size_t j = i;
        bool reserved = false;
        while (j < m_events.size() && m_events[j].pid == m_events[i].pid &&
               m_events[j].deviceType == m_events[i].deviceType &&
               m_events[j].deviceId == m_events[i].deviceId) {
            reserved = reserved || m_events[j].totalReserved.has_value();
            ++j;
        }
        const MemoryEvent &first = m_events[i];
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
            const MemoryEvent &e = m_events[k];
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
        i = j;
    }
}

} // namespace gml::chrometrace
