// SPDX-License-Identifier: GPL-3.0-or-later
// The memory report as `grademl memory` prints it (text and JSON), the GPU headlines take, and
// a GPU's peak held against its capacity (memoryreport.cpp reads and accounts the events).
#include "memoryreport.h"

#include "timeformat.h"

#include <QJsonArray>

namespace gml {

namespace {

QJsonArray groupsJson(const std::vector<MemoryGroup> &groups, const QString &key, size_t most)
{
    QJsonArray out;
    for (size_t i = 0; i < groups.size() && i < most; ++i)
        out.append(QJsonObject{{key, groups[i].key},
                               {QStringLiteral("bytes"), groups[i].bytes},
                               {QStringLiteral("count"), groups[i].count}});
    return out;
}

} // namespace

void MemoryReport::boundByCapacity(double capacityBytes, const QString &deviceName)
{
    if (!(capacityBytes > 0))
        return;
    for (auto it = devices.begin(); it != devices.end();) {
        // 1% above: allocators' rounding and a catalog's GB against GiB.
        if (it->isGpu() && it->peakAllocated > capacityBytes * 1.01) {
            warnings << QStringLiteral("%1%2: peak allocated %3 dropped, above the %4 of a %5")
                            .arg(it->device,
                                 it->rank >= 0 ? QStringLiteral(" of rank %1").arg(it->rank)
                                               : QString(),
                                 formatBytes(it->peakAllocated), formatBytes(capacityBytes),
                                 deviceName);
            it = devices.erase(it);
        } else {
            ++it;
        }
    }
}

const DeviceMemory *MemoryReport::highestGpu() const
{
    const DeviceMemory *top = nullptr;
    for (const DeviceMemory &d : devices)
        if (d.isGpu() && (!top || d.peakAllocated > top->peakAllocated))
            top = &d;
    return top;
}

QJsonObject MemoryReport::toJson() const
{
    QJsonArray list;
    for (const DeviceMemory &d : devices) {
        QJsonObject o{{QStringLiteral("device"), d.device},
                      {QStringLiteral("pid"), d.pid},
                      {QStringLiteral("events"), d.events},
                      {QStringLiteral("peak_allocated_bytes"), d.peakAllocated},
                      {QStringLiteral("peak_at_ns"), d.peakAt},
                      {QStringLiteral("peak_at_run_ns"), d.peakAt - runStart},
                      {QStringLiteral("frees_matched_by"),
                       d.byAddress ? QStringLiteral("address") : QStringLiteral("size")},
                      {QStringLiteral("unmatched_frees"), d.unmatchedFrees},
                      {QStringLiteral("unmatched_free_bytes"), d.unmatchedFreeBytes},
                      {QStringLiteral("allocated_before_trace_bytes"), d.allocatedBeforeTrace},
                      {QStringLiteral("never_freed_count"), d.neverFreedCount},
                      {QStringLiteral("never_freed_bytes"), d.neverFreedBytes}};
        o.insert(QStringLiteral("rank"), d.rank >= 0 ? QJsonValue(d.rank) : QJsonValue());
        if (!d.file.isEmpty())
            o.insert(QStringLiteral("file"), d.file);
        o.insert(QStringLiteral("peak_reserved_bytes"),
                 d.peakReserved ? QJsonValue(*d.peakReserved) : QJsonValue());
        o.insert(QStringLiteral("live_at_peak"),
                 groupsJson(d.liveAtPeak, QStringLiteral("op"), 50));
        o.insert(QStringLiteral("live_at_peak_by_path"),
                 groupsJson(d.liveAtPeakByPath, QStringLiteral("path"), 50));
        o.insert(QStringLiteral("never_freed"), groupsJson(d.neverFreed, QStringLiteral("op"), 50));
        o.insert(QStringLiteral("leak_suspects"),
                 groupsJson(d.leakSuspects, QStringLiteral("op"), 50));
        QJsonArray largest;
        for (const MemoryAllocation &a : d.largest)
            largest.append(
                QJsonObject{{QStringLiteral("op"), a.op},
                            {QStringLiteral("path"), a.path},
                            {QStringLiteral("bytes"), a.bytes},
                            {QStringLiteral("at_ns"), a.at},
                            {QStringLiteral("freed_at_ns"),
                             a.freedAt >= 0 ? QJsonValue(a.freedAt) : QJsonValue()},
                            {QStringLiteral("iteration"),
                             a.iteration >= 0 ? QJsonValue(a.iteration) : QJsonValue()}});
        o.insert(QStringLiteral("largest"), largest);
        QJsonArray iterations;
        for (const MemoryIteration &it : d.iterations)
            iterations.append(QJsonObject{{QStringLiteral("start_ns"), it.start},
                                          {QStringLiteral("end_ns"), it.end},
                                          {QStringLiteral("at_start_bytes"), it.atStart},
                                          {QStringLiteral("peak_bytes"), it.peak},
                                          {QStringLiteral("at_end_bytes"), it.atEnd}});
        o.insert(QStringLiteral("iterations"), iterations);
        list.append(o);
    }
    QJsonObject out{{QStringLiteral("devices"), list}};
    if (!problem.isEmpty())
        out.insert(QStringLiteral("problem"), problem);
    if (!warnings.isEmpty())
        out.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(warnings));
    return out;
}

QString MemoryReport::toText() const
{
    if (!problem.isEmpty())
        return QStringLiteral("no memory report: %1\n").arg(problem);
    QString s;
    for (const QString &w : warnings)
        s += QStringLiteral("warning: %1\n").arg(w);
    auto groups = [&](const QString &title, const std::vector<MemoryGroup> &g) {
        if (g.empty())
            return;
        s += QStringLiteral("  %1:\n").arg(title);
        for (size_t i = 0; i < g.size() && i < 8; ++i)
            s += QStringLiteral("    %1  %2 x  %3\n")
                     .arg(formatBytes(g[i].bytes), 10)
                     .arg(g[i].count, 6)
                     .arg(g[i].key);
        if (g.size() > 8)
            s += QStringLiteral("    … and %1 more\n").arg(g.size() - 8);
    };
    for (const DeviceMemory &d : devices) {
        s += QStringLiteral("%1%2 (pid %3%4): peak allocated %5 at %6")
                 .arg(d.device, d.rank >= 0 ? QStringLiteral(" of rank %1").arg(d.rank) : QString(),
                      d.pid, d.file.isEmpty() ? QString() : QStringLiteral(", ") + d.file,
                      formatBytes(d.peakAllocated), formatDuration(d.peakAt - runStart));
        if (d.peakReserved)
            s += QStringLiteral(", peak reserved %1").arg(formatBytes(*d.peakReserved));
        s += QStringLiteral("\n  %1 events; frees matched by %2")
                 .arg(d.events)
                 .arg(d.byAddress ? QStringLiteral("address")
                                  : QStringLiteral("size (this build records no addresses)"));
        if (d.unmatchedFrees)
            s += QStringLiteral("; %1 frees (%2) of memory allocated before the trace")
                     .arg(d.unmatchedFrees)
                     .arg(formatBytes(d.unmatchedFreeBytes));
        s += QLatin1Char('\n');
        groups(QStringLiteral("live at the peak, by operator"), d.liveAtPeak);
        if (d.allocatedBeforeTrace > 0 && d.totalsRecorded)
            s += QStringLiteral("    %1 allocated before the trace\n")
                     .arg(formatBytes(d.allocatedBeforeTrace), 10);
        if (!d.largest.empty()) {
            s += QStringLiteral("  largest allocations:\n");
            for (const MemoryAllocation &a : d.largest)
                s += QStringLiteral("    %1  at %2  %3  %4\n")
                         .arg(formatBytes(a.bytes), 10)
                         .arg(formatDuration(a.at - runStart), 9)
                         .arg(a.freedAt >= 0
                                  ? QStringLiteral("held %1").arg(formatDuration(a.freedAt - a.at))
                                  : QStringLiteral("never freed"),
                              -16)
                         .arg(a.op);
        }
        s += QStringLiteral("  never freed within the trace: %1 allocations, %2\n")
                 .arg(d.neverFreedCount)
                 .arg(formatBytes(d.neverFreedBytes));
        groups(QStringLiteral("leak suspects (never freed, made in a middle iteration)"),
               d.leakSuspects);
        for (size_t k = 0; k < d.iterations.size(); ++k) {
            const MemoryIteration &it = d.iterations[k];
            s += QStringLiteral("  iteration %1: %2 at start, peak %3, %4 at end (%5)\n")
                     .arg(k + 1)
                     .arg(formatBytes(it.atStart), formatBytes(it.peak), formatBytes(it.atEnd),
                          (it.atEnd >= it.atStart ? QStringLiteral("+") : QString()) +
                              formatBytes(it.atEnd - it.atStart));
        }
    }
    return s;
}

} // namespace gml
