// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// PyTorch's profile_memory events ("[memory]" instants: Bytes, Device Type, Device Id, and in
// newer builds Addr, Total Allocated, Total Reserved) become one memory counter track per
// process and device: "allocated" (the build's Total Allocated, else the running sum of Bytes
// from the trace's start) and "reserved" where the build records it. Values are MiB, the unit
// of nvidia-smi's memory.used and dcgmi's FBUSD, so the three draw on the same scale. The
// events stay slices too: the memory report (model/store/memoryscan.h) reads them there.

#include "types.h"

#include <QString>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gml {
class TraceWriter;
}

namespace gml::chrometrace {

struct MemoryEvent
{
    std::string pid;
    int deviceType = 0; // c10::DeviceType: 0 CPU, 1 CUDA (ROCm builds report 1 too)
    int deviceId = -1;
    TimeNs ts = 0;
    double bytes = 0; // + allocated, - freed
    std::optional<double> totalAllocated, totalReserved;
};

class MemoryCounters
{
public:
    void add(MemoryEvent e) { m_events.push_back(std::move(e)); }
    bool empty() const { return m_events.empty(); }
    // Where a device's counters go: the parent row, and whether that row is the device's own
    // (then the track's name leaves the device out).
    struct Parent
    {
        TrackId track = 0;
        bool deviceRow = false;
    };
    // Writes the counter tracks, each under parentOf(pid, device type, device id).
    void write(TraceWriter &w, int rank,
               const std::function<Parent(const std::string &, int, int)> &parentOf);

private:
    std::vector<MemoryEvent> m_events; // in file order
};

} // namespace gml::chrometrace
