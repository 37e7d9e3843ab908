// SPDX-License-Identifier: GPL-3.0-or-later
#include "memoryreport.h"

#include "jsonfields.h"
#include "physical.h"
#include "project.h"
#include "projectsummary.h"
#include "projecttime.h"
#include "sliceclass.h"
#include "slicestore.h"
#include "sourcerecords.h"
#include "timeformat.h"
#include "trackrecords.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonArray>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>

namespace gml {

QString memoryDeviceLabel(int deviceType, int deviceId)
{
    if (deviceType == 0)
        return QStringLiteral("CPU");
    if (deviceType == 1 || deviceType == 6) // CUDA, HIP
        return QStringLiteral("GPU %1").arg(deviceId);
    return QStringLiteral("device type %1 · %2").arg(deviceType).arg(deviceId);
}

namespace {

// Operators that only carve out a tensor for their caller: an allocation inside one belongs
// to the operator that called it.
bool isAllocatorPrimitive(const QString &name)
{
    static const QStringList names{
        QStringLiteral("aten::empty"),
        QStringLiteral("aten::empty_strided"),
        QStringLiteral("aten::empty_like"),
        QStringLiteral("aten::new_empty"),
        QStringLiteral("aten::new_empty_strided"),
        QStringLiteral("aten::resize_"),
        QStringLiteral("aten::as_strided_"),
        QStringLiteral("aten::set_"),
    };
    return names.contains(name);
}

// One [memory] event, compact (a million of them in a 1 GB trace): NaN marks a total the build
// did not record, kNoAddr an address.
constexpr qint64 kNoAddr = std::numeric_limits<qint64>::min();
struct Event
{
    TimeNs ts = 0;
    SliceId slice = 0;
    TrackId track = 0;
    double bytes = 0;
    qint64 addr = kNoAddr;
    double total = std::numeric_limits<double>::quiet_NaN();
    double reserved = std::numeric_limits<double>::quiet_NaN();
    int device = 0;       // index into the devices being built
    int op = 0, path = 0; // indices into the report's texts
};

// A level over time for a chart (DeviceMemory::curve).
std::vector<std::pair<TimeNs, double>> curveOf(std::span<const Event> events,
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
    std::span<const Event> events;
    const std::vector<QString> &texts;
    const std::vector<std::pair<TimeNs, TimeNs>> &steps;
    std::vector<Alloc> allocs;
    std::vector<double> level;

    MemoryAllocation allocation(const Alloc &x) const
    {
        const Event &e = events[x.event];
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
    for (const Event &e : events)
        lowest = std::min(lowest, sum += e.bytes);
    sum = -lowest;
    size_t peakIndex = size_t(-1);
    d.peakAt = events.empty() ? 0 : events.front().ts;
    for (size_t k = 0; k < events.size(); ++k) {
        const Event &e = events[k];
        const bool addressed = e.addr != kNoAddr;
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
        const Event &e = events[x.event];
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

void iterationLevels(DeviceMemory &d, std::span<const Event> events,
                     const std::vector<double> &level,
                     const std::vector<std::pair<TimeNs, TimeNs>> &steps);

// Allocations matched with their frees, the peak and what was live at it (with Peaks only the
// peaks and the iterations' levels). A breakdown that cannot be right is dropped and said in
// `warnings`.
void account(DeviceMemory &d, std::span<const Event> events, const std::vector<QString> &texts,
             const std::vector<std::pair<TimeNs, TimeNs>> &steps, QStringList &warnings,
             MemoryDetail detail)
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
    std::partial_sort(order.begin(), order.begin() + qsizetype(n), order.end(),
                      [&](quint32 a, quint32 b) {
                          const Event &x = events[allocs[a].event], &y = events[allocs[b].event];
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
void iterationLevels(DeviceMemory &d, std::span<const Event> events,
                     const std::vector<double> &level,
                     const std::vector<std::pair<TimeNs, TimeNs>> &steps)
{
    for (const auto &[start, end] : steps) {
        MemoryIteration it{start, end};
        auto first = std::lower_bound(events.begin(), events.end(), start,
                                      [](const Event &e, TimeNs t) { return e.ts < t; });
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

namespace {

// Reads a run's [memory] events, thread by thread, with the operator and call path around each,
// then accounts each device's (account()).
class MemoryReader
{
public:
    MemoryReader(Project &project, StringId memoryName, MemoryDetail detail)
        : m_project(project), m_reader(project.db()), m_memoryName(memoryName), m_detail(detail)
    {
    }
    bool readTrack(const TrackRow &t, TimeNs offset, QString *error);
    bool empty() const { return m_events.empty(); }
    // Each device's events in time order, accounted; the warnings of what was dropped.
    void finish();
    MemoryReport report;

private:
    struct Name
    {
        QString text;
        bool step = false, primitive = false;
    };
    // Operators and call paths, each text once (events hold their index).
    int intern(const QString &text)
    {
        const auto it = m_textIndex.constFind(text);
        if (it != m_textIndex.constEnd())
            return *it;
        m_texts.push_back(text);
        return *m_textIndex.insert(text, int(m_texts.size()) - 1);
    }
    void onRow(const slicestore::Row &x, const TrackRow &t, const QString &pid, TimeNs offset);
    void nameRows(const TrackRow &t);
    void attributeEvents(size_t firstEvent);

    Project &m_project;
    slicestore::TrackReader m_reader;
    const StringId m_memoryName;
    const MemoryDetail m_detail;
    // A process: its rank, or without one its file (two files without ranks are two
    // processes even when their pids are the same, as in containers).
    static qint64 processGroup(int rank, SourceId source)
    {
        return rank >= 0 ? qint64(rank) : -qint64(source) - 1;
    }
    static qint64 processGroup(const TrackRow &t) { return processGroup(t.rank, t.source); }
    std::map<std::tuple<qint64, QString, int, int>, int> m_deviceIndex; // (group, pid, type, id)
    std::map<int, qint64> m_droppedEvents, m_droppedTotals;             // by device index
    std::vector<Event> m_events;
    std::map<qint64, std::vector<std::pair<TimeNs, TimeNs>>> m_steps; // by process group
    std::unordered_map<StringId, Name> m_names;
    std::vector<QString> m_texts;
    QHash<QString, int> m_textIndex;
    std::vector<NestRow> m_rows; // the track's, nested
    std::vector<int> m_parent;
};

bool MemoryReader::readTrack(const TrackRow &t, TimeNs offset, QString *error)
{
    const QString pid = t.parentPid.isEmpty() ? t.pid : t.parentPid;
    const size_t firstEvent = m_events.size();
    const bool ok = readNestRows(m_reader, t.id, true, offset, m_rows, {},
                                 [&](const slicestore::Row &x) { onRow(x, t, pid, offset); });
    if (!ok) {
        if (error)
            *error = m_reader.errorString();
        return false;
    }
    nameRows(t);
    if (m_detail == MemoryDetail::Full)
        attributeEvents(firstEvent);
    return true;
}

void MemoryReader::onRow(const slicestore::Row &x, const TrackRow &t, const QString &pid,
                         TimeNs offset)
{
    if (x.name != m_memoryName || !x.hasArgs)
        return;
    // The event's six numbers, in one pass over its args.
    static constexpr std::string_view kKeys[] = {"Bytes",           "Device Type",    "Device Id",
                                                 "Total Allocated", "Total Reserved", "Addr"};
    std::array<std::optional<double>, std::size(kKeys)> v;
    m_reader.argNumbers(x, kKeys, v);
    const auto &[bytes, deviceType, deviceId, allocated, reservedTotal, addr] = v;
    if (!bytes)
        return;
    auto small = [](std::optional<double> v, int otherwise) {
        return v && std::isfinite(*v) && std::abs(*v) < 1e6 ? int(*v) : otherwise;
    };
    const int type = small(deviceType, 0);
    const int id = small(deviceId, -1);
    const auto key = std::make_tuple(processGroup(t), pid, type, id);
    auto it = m_deviceIndex.find(key);
    if (it == m_deviceIndex.end()) {
        it = m_deviceIndex.emplace(key, int(report.devices.size())).first;
        DeviceMemory d;
        d.device = memoryDeviceLabel(type, id);
        d.pid = pid;
        d.rank = t.rank;
        d.source = t.source;
        report.devices.push_back(std::move(d));
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
    Event e;
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
    e.track = t.id;
    m_events.push_back(std::move(e));
}

// The track's rows nested, their names read once, its ProfilerStep ranges its rank's steps.
void MemoryReader::nameRows(const TrackRow &t)
{
    nestRows(m_rows, m_parent);
    // The peaks need only the outermost rows' names (the steps).
    const bool rootsOnly = m_detail == MemoryDetail::Peaks;
    std::vector<StringId> unnamed;
    for (size_t i = 0; i < m_rows.size(); ++i)
        if ((!rootsOnly || m_parent[i] < 0) && !m_names.count(m_rows[i].name)) {
            unnamed.push_back(m_rows[i].name);
            m_names.emplace(m_rows[i].name, Name{});
        }
    QHash<StringId, QString> read;
    m_project.strings(unnamed, read);
    for (const StringId id : unnamed) {
        Name &n = m_names[id];
        n.text = read.value(id);
        n.step = isProfilerStep(n.text);
        n.primitive = isAllocatorPrimitive(n.text);
    }
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_parent[i] < 0 && m_names[m_rows[i].name].step)
            m_steps[processGroup(t)].emplace_back(m_rows[i].start, m_rows[i].end);
}

void MemoryReader::attributeEvents(size_t firstEvent)
{
    // Each event's operator: the innermost slice around it (the last to start at or before
    // it, or one it nests in), allocator primitives left for their caller. A row's call
    // path is its parent's and its own name, made once per row.
    std::vector<int> pathOf(m_rows.size(), -1);
    std::function<int(int)> pathOfRow = [&](int r) -> int {
        if (pathOf[size_t(r)] >= 0)
            return pathOf[size_t(r)];
        const Name &n = m_names[m_rows[size_t(r)].name];
        const QString own = n.step ? QStringLiteral("ProfilerStep#*") : n.text;
        const int p = m_parent[size_t(r)];
        return pathOf[size_t(r)] = intern(
                   p < 0 ? own : m_texts[size_t(pathOfRow(p))] + QStringLiteral(" › ") + own);
    };
    for (size_t k = firstEvent; k < m_events.size(); ++k) {
        Event &e = m_events[k];
        auto after = std::upper_bound(m_rows.begin(), m_rows.end(), e.ts,
                                      [](TimeNs t, const NestRow &r) { return t < r.start; });
        int r = int(after - m_rows.begin()) - 1;
        while (r >= 0 && m_rows[size_t(r)].end < e.ts)
            r = m_parent[size_t(r)];
        while (r >= 0 && m_parent[size_t(r)] >= 0 && m_names[m_rows[size_t(r)].name].primitive)
            r = m_parent[size_t(r)];
        if (r < 0) {
            e.op = e.path = intern(QStringLiteral("(outside any operator)"));
            continue;
        }
        e.op = intern(m_names[m_rows[size_t(r)].name].text);
        e.path = pathOfRow(r);
    }
}

void MemoryReader::finish()
{
    // In time order, per device (the slice id keeps the file's order among equal times).
    std::sort(m_events.begin(), m_events.end(), [](const Event &a, const Event &b) {
        return std::tie(a.device, a.ts, a.slice) < std::tie(b.device, b.ts, b.slice);
    });
    for (auto &[rank, s] : m_steps)
        std::sort(s.begin(), s.end());
    QStringList breakdowns; // said after the dropped events, per device
    size_t i = 0;
    while (i < m_events.size()) {
        size_t j = i;
        while (j < m_events.size() && m_events[j].device == m_events[i].device)
            ++j;
        DeviceMemory &d = report.devices[size_t(m_events[i].device)];
        const std::span<const Event> mine(m_events.data() + i, j - i);
        d.events = qint64(mine.size());
        account(d, mine, m_texts, m_steps[processGroup(d.rank, d.source)], breakdowns, m_detail);
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
    std::stable_sort(report.devices.begin(), report.devices.end(),
                     [](const DeviceMemory &a, const DeviceMemory &b) {
                         const bool ga = a.isGpu(), gb = b.isGpu();
                         return std::tie(a.rank, gb, a.device, a.source) <
                                std::tie(b.rank, ga, b.device, b.source);
                     });
}

} // namespace

std::optional<MemoryReport> memoryReport(Project &project, RunId run, QString *error,
                                         MemoryDetail detail)
{
    const StringId memoryName = existingString(project, QStringLiteral("[memory]"));
    MemoryReader reader(project, memoryName, detail);
    MemoryReport &report = reader.report;
    report.runStart = runSpans(project).value(run).first;
    if (!memoryName) {
        report.problem = QStringLiteral("no memory events: record with the PyTorch profiler's "
                                        "profile_memory=True");
        return report;
    }
    QString readError;
    const std::vector<TrackRow> tracks = tracksOfRun(project, run, &readError);
    const auto offsets = sourceOffsets(project, run, &readError);
    if (!readError.isEmpty()) {
        if (error)
            *error = readError;
        return std::nullopt;
    }
    for (const TrackRow &t : tracks) {
        if (t.kind != TrackKind::Thread || t.sliceCount <= 0)
            continue;
        const TimeNs offset = offsets.count(t.source) ? offsets.at(t.source) : 0;
        if (!reader.readTrack(t, offset, error))
            return std::nullopt;
    }
    if (reader.empty()) {
        report.problem = QStringLiteral("no memory events in this run: record with the PyTorch "
                                        "profiler's profile_memory=True");
        return report;
    }
    reader.finish();
    // Devices of processes without a rank, from several files: each says its file.
    std::set<SourceId> rankless;
    for (const DeviceMemory &d : report.devices)
        if (d.rank < 0)
            rankless.insert(d.source);
    if (rankless.size() > 1) {
        const auto paths = sourcePaths(project, run);
        for (DeviceMemory &d : report.devices)
            if (d.rank < 0 && paths.count(d.source))
                d.file = QFileInfo(paths.at(d.source)).fileName();
    }
    return report;
}

} // namespace gml
