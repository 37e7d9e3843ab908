// SPDX-License-Identifier: GPL-3.0-or-later
#include "memoryevents.h"

#include "physical.h"
#include "timeformat.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace gml {

namespace {

std::vector<std::pair<TimeNs, double>> curveOf(std::span<const MemoryEvent> events,
                                               const std::vector<double> &level)
{
    std::vector<std::pair<TimeNs, double>> out;
    if (events.empty())
        return out;
    if (events.size() <= DeviceMemory::kCurvePoints) {
        for (size_t k = 0; k < events.size(); ++k)
            out.emplace_back(events[k].ts, level[k]);
        return out;
    }
    const TimeNs t0 = events.front().ts, t1 = events.back().ts + 1;
    const size_t spans = DeviceMemory::kCurvePoints / 2;
    size_t k = 0;
    for (size_t s = 0; s < spans && k < events.size(); ++s) {
        const TimeNs end = t0 + TimeNs(double(t1 - t0) * double(s + 1) / double(spans));
        size_t lo = k, hi = k;
        for (; k < events.size() && (events[k].ts < end || s + 1 == spans); ++k) {
            if (level[k] < level[lo])
                lo = k;
            if (level[k] > level[hi])
                hi = k;
        }
        if (hi == lo && lo < k) {
            out.emplace_back(events[lo].ts, level[lo]);
        } else if (lo < k) {
            const size_t a = std::min(lo, hi), b = std::max(lo, hi);
            out.emplace_back(events[a].ts, level[a]);
            out.emplace_back(events[b].ts, level[b]);
        }
    }
    return out;
}

// One allocation of a device: its [memory] event, the event that freed it, its iteration.
struct Alloc
{
    quint32 event;               // an index into the device's events
    quint32 freed = quint32(-1); // the event that freed it
    int iteration = -1;
};

// What account() reads: the device's events in time order, the texts their op and path index,
// the allocations found in them and the level after each event.
struct Accounting
{
    std::span<const MemoryEvent> events;
    const std::vector<QString> &texts;
    const std::vector<std::pair<TimeNs, TimeNs>> &steps;
    std::vector<Alloc> allocs;
    std::vector<double> level;

    MemoryAllocation allocation(const Alloc &x) const
    {
        const MemoryEvent &e = events[x.event];
        return MemoryAllocation{e.ts,
                                x.freed == quint32(-1) ? TimeNs(-1) : events[x.freed].ts,
                                e.bytes,
                                texts[size_t(e.op)],
                                texts[size_t(e.path)],
                                e.slice,
                                e.track,
                                x.iteration};
    }
    // Matches each free with its allocation (by address, else by size, the latest first),
    // follows the level and finds the peak; the peak's event index (-1: none).
    size_t matchFrees(DeviceMemory &d);
    // What was live at the peak (by operator and by call path), never freed and the leak
    // suspects (never freed, made in a middle iteration), as groups.
    void group(DeviceMemory &d, size_t peakIndex, QStringList &warnings) const;
};

size_t Accounting::matchFrees(DeviceMemory &d)
{
    std::unordered_map<qint64, quint32> byAddr;
    std::unordered_map<double, std::vector<quint32>> bySize; // unmatched, latest last
    level.assign(events.size(), 0.0);
    // Frees of memory allocated before the trace take the running sum below zero; the least it
    // reaches says that at least that much was allocated when the trace began, so every level
    // is raised by it (a level is never negative). Zero for a trace that saw its allocations.
    double sum = 0, lowest = 0;
    for (const MemoryEvent &e : events)
        lowest = std::min(lowest, sum += e.bytes);
    sum = -lowest;
    size_t peakIndex = size_t(-1);
    d.peakAt = events.empty() ? 0 : events.front().ts;
    for (size_t k = 0; k < events.size(); ++k) {
        const MemoryEvent &e = events[k];
        const bool addressed = e.addr != MemoryEvent::kNoAddr;
        d.byAddress = d.byAddress || addressed;
        d.totalsRecorded = d.totalsRecorded || !std::isnan(e.total);
        if (!std::isnan(e.reserved))
            d.peakReserved = std::max(d.peakReserved.value_or(0.0), e.reserved);
        if (e.bytes > 0) {
            Alloc a{quint32(k)};
            const auto it = std::upper_bound(steps.begin(), steps.end(), e.ts,
                                             [](TimeNs t, const auto &s) { return t < s.first; });
            if (it != steps.begin() && e.ts <= std::prev(it)->second)
                a.iteration = int(std::prev(it) - steps.begin());
            if (addressed)
                byAddr[e.addr] = quint32(allocs.size());
            else
                bySize[e.bytes].push_back(quint32(allocs.size()));
            allocs.push_back(a);
        } else if (e.bytes < 0) {
            quint32 match = quint32(-1);
            if (addressed) {
                if (const auto it = byAddr.find(e.addr); it != byAddr.end()) {
                    match = it->second;
                    byAddr.erase(it);
                }
            } else if (const auto it = bySize.find(-e.bytes);
                       it != bySize.end() && !it->second.empty()) {
                match = it->second.back();
                it->second.pop_back();
            }
            if (match == quint32(-1)) {
                ++d.unmatchedFrees;
                d.unmatchedFreeBytes -= e.bytes;
            } else {
                allocs[match].freed = quint32(k);
            }
        }
        sum += e.bytes;
        level[k] = std::isnan(e.total) ? sum : e.total;
        if (level[k] > d.peakAllocated) {
            d.peakAllocated = level[k];
            d.peakAt = e.ts;
            peakIndex = k;
        }
    }
    return peakIndex;
}

void Accounting::group(DeviceMemory &d, size_t peakIndex, QStringList &warnings) const
{
    // Groups by text index; the text and the largest member's allocation made at the end.
    struct Group
    {
        double bytes = 0;
        int count = 0;
        quint32 largest = 0; // index into allocs
    };
    using Groups = std::unordered_map<int, Group>;
    Groups live, livePaths, never, suspects;
    auto add = [&](Groups &groups, int key, quint32 x) {
        Group &g = groups[key];
        const double bytes = events[allocs[x].event].bytes;
        g.bytes += bytes;
        if (!g.count++ || bytes > events[allocs[g.largest].event].bytes)
            g.largest = x;
    };
    double liveBytes = 0;
    for (quint32 i = 0; i < allocs.size(); ++i) {
        const Alloc &x = allocs[i];
        const MemoryEvent &e = events[x.event];
        if (peakIndex != size_t(-1) && x.event <= peakIndex &&
            (x.freed == quint32(-1) || x.freed > peakIndex)) {
            add(live, e.op, i);
            add(livePaths, e.path, i);
            liveBytes += e.bytes;
        }
        if (x.freed == quint32(-1)) {
            add(never, e.op, i);
            ++d.neverFreedCount;
            d.neverFreedBytes += e.bytes;
            if (steps.size() >= 3 && x.iteration > 0 && x.iteration + 1 < int(steps.size()))
                add(suspects, e.op, i);
        }
    }
    auto sorted = [&](const Groups &groups) {
        std::vector<MemoryGroup> out;
        out.reserve(groups.size());
        for (const auto &[key, g] : groups)
            out.push_back({texts[size_t(key)], g.bytes, g.count, allocation(allocs[g.largest])});
        std::sort(out.begin(), out.end(), [](const MemoryGroup &a, const MemoryGroup &b) {
            return a.bytes != b.bytes ? a.bytes > b.bytes : a.key < b.key;
        });
        return out;
    };
    d.liveAtPeak = sorted(live);
    d.liveAtPeakByPath = sorted(livePaths);
    d.neverFreed = sorted(never);
    d.leakSuspects = sorted(suspects);
    d.allocatedBeforeTrace = std::max(0.0, d.peakAllocated - liveBytes);
    if (liveBytes > d.peakAllocated * (1 + 1e-9) + 1) {
        // What was live cannot sum to more than the peak: the totals the build recorded and the
        // allocations the trace holds disagree (frees matched wrongly by size, a damaged trace).
        warnings << QStringLiteral("%1: what was live at the peak sums to %2, more than the "
                                   "peak's %3: the breakdown by operator is not shown")
                        .arg(d.device, formatBytes(liveBytes), formatBytes(d.peakAllocated));
        d.liveAtPeak.clear();
        d.liveAtPeakByPath.clear();
        d.allocatedBeforeTrace = 0;
    }
}

void iterationLevels(DeviceMemory &d, std::span<const MemoryEvent> events,
                     const std::vector<double> &level,
                     const std::vector<std::pair<TimeNs, TimeNs>> &steps);

// Allocations matched with their frees, the peak and what was live at it (with Peaks only the
// peaks and the iterations' levels). A breakdown that cannot be right is dropped and said in
// `warnings`.
void account(DeviceMemory &d, std::span<const MemoryEvent> events,
             const std::vector<QString> &texts, const std::vector<std::pair<TimeNs, TimeNs>> &steps,
             QStringList &warnings, MemoryDetail detail)
{
    Accounting a{events, texts, steps, {}, {}};
    const size_t peakIndex = a.matchFrees(d);
    if (detail == MemoryDetail::Peaks) {
        iterationLevels(d, events, a.level, steps);
        return;
    }
    a.group(d, peakIndex, warnings);
    const std::vector<Alloc> &allocs = a.allocs;
    const std::vector<double> &level = a.level;
    std::vector<quint32> order(allocs.size());
    for (quint32 i = 0; i < order.size(); ++i)
        order[i] = i;
    const size_t n = std::min(MemoryReport::kLargest, order.size());
    std::partial_sort(
        order.begin(), order.begin() + qsizetype(n), order.end(), [&](quint32 a, quint32 b) {
            const MemoryEvent &x = events[allocs[a].event], &y = events[allocs[b].event];
            return x.bytes != y.bytes ? x.bytes > y.bytes : x.ts < y.ts;
        });
    for (size_t i = 0; i < n; ++i)
        d.largest.push_back(a.allocation(allocs[order[i]]));
    d.curve = curveOf(events, level);
    if (d.peakReserved) {
        std::vector<double> reserved(events.size());
        double r = 0;
        for (size_t k = 0; k < events.size(); ++k)
            reserved[k] = r = std::isnan(events[k].reserved) ? r : events[k].reserved;
        d.reservedCurve = curveOf(events, reserved);
    }
    iterationLevels(d, events, level, steps);
}

// Each iteration: the level before its first event, its highest, the level after its last.
void iterationLevels(DeviceMemory &d, std::span<const MemoryEvent> events,
                     const std::vector<double> &level,
                     const std::vector<std::pair<TimeNs, TimeNs>> &steps)
{
    for (const auto &[start, end] : steps) {
        MemoryIteration it{start, end};
        auto first = std::lower_bound(events.begin(), events.end(), start,
                                      [](const MemoryEvent &e, TimeNs t) { return e.ts < t; });
        size_t k = size_t(first - events.begin());
        it.atStart = k > 0 ? level[k - 1] : 0.0;
        it.peak = it.atStart;
        for (; k < events.size() && events[k].ts <= end; ++k)
            it.peak = std::max(it.peak, level[k]);
        it.atEnd = k > 0 ? level[k - 1] : 0.0;
        d.iterations.push_back(it);
    }
}

} // namespace

void MemoryEvents::keep(slicestore::TrackReader &reader, const slicestore::Row &x,
                        const MemoryThread &t, TimeNs offset)
{
    // The event's six numbers, in one pass over its args.
    static constexpr std::string_view kKeys[] = {"Bytes",           "Device Type",    "Device Id",
                                                 "Total Allocated", "Total Reserved", "Addr"};
    std::array<std::optional<double>, std::size(kKeys)> v;
    reader.argNumbers(x, kKeys, v);
    const auto &[bytes, deviceType, deviceId, allocated, reservedTotal, addr] = v;
    if (!bytes)
        return;
    auto small = [](std::optional<double> v, int otherwise) {
        return v && std::isfinite(*v) && std::abs(*v) < 1e6 ? int(*v) : otherwise;
    };
    const int type = small(deviceType, 0);
    const int id = small(deviceId, -1);
    const auto key = std::make_tuple(processGroup(t.rank, t.source), t.pid, type, id);
    auto it = m_deviceIndex.find(key);
    if (it == m_deviceIndex.end()) {
        it = m_deviceIndex.emplace(key, int(m_devices.size())).first;
        DeviceMemory d;
        d.device = memoryDeviceLabel(type, id);
        d.pid = t.pid;
        d.rank = t.rank;
        d.source = t.source;
        m_devices.push_back(std::move(d));
    }
    // An allocation or free no device could hold is not a measurement: dropped and
    // counted (physical.h); a total outside [0, 4 TiB] is read as not recorded.
    if (!std::isfinite(*bytes) || std::abs(*bytes) > physical::kMaxDeviceBytes) {
        ++m_droppedEvents[it->second];
        return;
    }
    auto inDomain = [&](std::optional<double> v) {
        if (v && (!std::isfinite(*v) || *v < 0 || *v > physical::kMaxDeviceBytes)) {
            ++m_droppedTotals[it->second];
            return std::optional<double>();
        }
        return v;
    };
    MemoryEvent e;
    e.device = it->second;
    e.ts = x.ts + offset;
    e.slice = x.id;
    e.bytes = *bytes;
    if (addr && std::isfinite(*addr) && std::abs(*addr) < 9.2e18)
        e.addr = qint64(*addr);
    if (const auto total = inDomain(allocated))
        e.total = *total;
    if (const auto reserved = inDomain(reservedTotal))
        e.reserved = *reserved;
    e.track = t.track;
    m_events.push_back(std::move(e));
}

void MemoryEvents::finish(MemoryReport &report, const std::vector<QString> &texts)
{
    report.devices = std::move(m_devices);
    m_devices.clear();
    // In time order, per device (the slice id keeps the file's order among equal times);
    // sorted only when not in order already (one thread's events of one device come in order).
    auto before = [](const MemoryEvent &a, const MemoryEvent &b) {
        return std::tie(a.device, a.ts, a.slice) < std::tie(b.device, b.ts, b.slice);
    };
    if (!std::is_sorted(m_events.begin(), m_events.end(), before))
        std::sort(m_events.begin(), m_events.end(), before);
    for (auto &[rank, s] : m_steps)
        std::sort(s.begin(), s.end());
    QStringList breakdowns; // said after the dropped events, per device
    size_t i = 0;
    while (i < m_events.size()) {
        size_t j = i;
        while (j < m_events.size() && m_events[j].device == m_events[i].device)
            ++j;
        DeviceMemory &d = report.devices[size_t(m_events[i].device)];
        const std::span<const MemoryEvent> mine(m_events.data() + i, j - i);
        d.events = qint64(mine.size());
        account(d, mine, texts, m_steps[processGroup(d.rank, d.source)], breakdowns, m_detail);
        i = j;
    }
    for (const auto &[device, count] : m_droppedEvents)
        report.warnings << QStringLiteral("%1: %2 memory event(s) dropped, their bytes not "
                                          "finite or above 4 TiB")
                               .arg(report.devices[size_t(device)].device)
                               .arg(count);
    for (const auto &[device, count] : m_droppedTotals)
        report.warnings << QStringLiteral("%1: %2 recorded total(s) ignored, negative or above "
                                          "4 TiB")
                               .arg(report.devices[size_t(device)].device)
                               .arg(count);
    report.warnings += breakdowns;
    orderMemoryDevices(report.devices);
}

void orderMemoryDevices(std::vector<DeviceMemory> &devices)
{
    std::stable_sort(devices.begin(), devices.end(),
                     [](const DeviceMemory &a, const DeviceMemory &b) {
                         const bool ga = a.isGpu(), gb = b.isGpu();
                         return std::tie(a.rank, gb, a.device, a.source) <
                                std::tie(b.rank, ga, b.device, b.source);
                     });
}

} // namespace gml
