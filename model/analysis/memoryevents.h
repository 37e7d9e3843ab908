// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run's or a source's [memory] events, gathered as a pass reads its CPU threads, and each
// device's memory accounted from them (memoryreport.h says what is worked out). Two passes
// gather them: the memory report's over a run's threads, and the source summary's over one
// source's threads at import (sourcework.h), which keeps each device's peaks so that the run
// metrics need not read the threads again.

#include "memoryreport.h"
#include "slicestore.h"
#include "types.h"

#include <QString>

#include <limits>
#include <map>
#include <span>
#include <tuple>
#include <vector>

namespace gml {

// One [memory] event, compact (a million of them in a 1 GB trace): NaN marks a total the build
// did not record, kNoAddr an address.
struct MemoryEvent
{
    static constexpr qint64 kNoAddr = std::numeric_limits<qint64>::min();
    TimeNs ts = 0;
    SliceId slice = 0;
    TrackId track = 0;
    double bytes = 0;
    qint64 addr = kNoAddr;
    double total = std::numeric_limits<double>::quiet_NaN();
    double reserved = std::numeric_limits<double>::quiet_NaN();
    int device = 0;       // index into the devices being built
    int op = 0, path = 0; // indices into the texts the report is accounted with
};

// The thread a row was read from: its track, rank (-1: none), file and process (the pid of
// its parent process track, else its own).
struct MemoryThread
{
    TrackId track = 0;
    int rank = -1;
    SourceId source = 0;
    QString pid;
};

class MemoryEvents
{
public:
    MemoryEvents(StringId memoryName, MemoryDetail detail)
        : m_memoryName(memoryName), m_detail(detail)
    {
    }
    // A row of thread `t` as the reader passed it (an instant): kept when it is a [memory]
    // event with Bytes, its time moved by `offset`; its device made when first met.
    void onRow(slicestore::TrackReader &reader, const slicestore::Row &x, const MemoryThread &t,
               TimeNs offset)
    {
        if (x.name == m_memoryName && x.hasArgs)
            keep(reader, x, t, offset);
    }
    // An outermost ProfilerStep range of one of thread `t`'s process's threads: an iteration of
    // its devices.
    void addStep(const MemoryThread &t, TimeNs start, TimeNs end)
    {
        m_steps[processGroup(t.rank, t.source)].emplace_back(start, end);
    }
    size_t size() const { return m_events.size(); }
    std::span<MemoryEvent> eventsFrom(size_t first)
    {
        return std::span<MemoryEvent>(m_events).subspan(first);
    }
    // Each device's events in time order, accounted into `report` (its devices and warnings;
    // `texts` are what the events' op and path index, empty for the peaks).
    void finish(MemoryReport &report, const std::vector<QString> &texts);

private:
    // A process: its rank, or without one its file (two files without ranks are two
    // processes even when their pids are the same, as in containers).
    static qint64 processGroup(int rank, SourceId source)
    {
        return rank >= 0 ? qint64(rank) : -qint64(source) - 1;
    }
    void keep(slicestore::TrackReader &reader, const slicestore::Row &x, const MemoryThread &t,
              TimeNs offset);

    const StringId m_memoryName;
    const MemoryDetail m_detail;
    std::vector<DeviceMemory> m_devices;
    std::map<std::tuple<qint64, QString, int, int>, int> m_deviceIndex; // (group, pid, type, id)
    std::map<int, qint64> m_droppedEvents, m_droppedTotals;             // by device index
    std::vector<MemoryEvent> m_events;
    std::map<qint64, std::vector<std::pair<TimeNs, TimeNs>>> m_steps; // by process group
};

// A report's devices in the order it lists them: by rank, GPUs first, by name, by file (stable:
// devices otherwise alike keep the order their first events were met in).
void orderMemoryDevices(std::vector<DeviceMemory> &devices);

} // namespace gml
