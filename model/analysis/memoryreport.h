// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where a run's memory goes, from PyTorch's profile_memory events ("[memory]" instants on the
// CPU threads: Bytes > 0 an allocation, < 0 a free; Device Type/Id; newer builds add Addr,
// Total Allocated and Total Reserved). Per device: the peak allocated (the build's Total
// Allocated, else the running sum of Bytes from the trace's start, as the importer's counter
// track draws it) and reserved, when it happened, what was live at that moment by the operator
// (and call path) that allocated it, the largest allocations, what was never freed within the
// trace, and each iteration's memory. A free is matched to its allocation by address where the
// build records one, else to the latest unmatched allocation of the same size on the device
// (PyTorch's allocator frees a block whole; the report says which rule it used).

#include "types.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace gml {

class Project;
struct RunSourceWork;

// "GPU 0", "CPU", "device type 12 · 0": a c10::DeviceType and index as the reports and the
// importer's counter tracks name it (ROCm builds report their GPUs as CUDA, type 1).
QString memoryDeviceLabel(int deviceType, int deviceId);

struct MemoryAllocation
{
    TimeNs at = 0;       // project clock
    TimeNs freedAt = -1; // -1: not freed within the trace
    double bytes = 0;
    QString op;         // the operator that allocated it (allocator primitives skipped)
    QString path;       // its call path, outermost first, " › " between names
    SliceId slice = 0;  // the [memory] event
    TrackId track = 0;  // its thread's
    int iteration = -1; // index into DeviceMemory::iterations, -1: outside every one
};

struct MemoryGroup
{
    QString key; // an operator, or a call path
    double bytes = 0;
    int count = 0;
    MemoryAllocation largest; // its largest member (what "show in the timeline" shows)
};

struct MemoryIteration
{
    TimeNs start = 0, end = 0;
    double atStart = 0, peak = 0, atEnd = 0; // allocated bytes
};

struct DeviceMemory
{
    QString device; // memoryDeviceLabel()
    bool isGpu() const { return device != QLatin1String("CPU"); }
    QString pid;
    int rank = -1;
    SourceId source = 0; // the file of its first event
    // Without a rank, in a run whose rank-less processes come from several files: the file's
    // name (two processes of different machines may have the same pid); else empty.
    QString file;
    qint64 events = 0;
    double peakAllocated = 0;
    TimeNs peakAt = 0; // project clock
    std::optional<double> peakReserved;
    bool totalsRecorded = false; // the events carry Total Allocated
    bool byAddress = false;      // frees matched by Addr (else by size)
    // Frees whose allocation the trace did not see (made before it started).
    qint64 unmatchedFrees = 0;
    double unmatchedFreeBytes = 0;
    // Live at the peak, allocations made within the trace, largest first; the peak less their
    // sum was allocated before the trace (known only where the build records totals).
    std::vector<MemoryGroup> liveAtPeak, liveAtPeakByPath;
    double allocatedBeforeTrace = 0;
    std::vector<MemoryAllocation> largest; // the kLargest largest allocations
    std::vector<MemoryGroup> neverFreed;   // by operator, largest first
    qint64 neverFreedCount = 0;
    double neverFreedBytes = 0;
    // Never freed, made in an iteration that is neither the trace's first nor its last: a loop
    // in a steady state frees what each step allocates, so these grow with every step.
    std::vector<MemoryGroup> leakSuspects;
    std::vector<MemoryIteration> iterations;
    // The allocated level over time for a chart: every change when there are at most
    // kCurvePoints, else the lowest and highest level of each of kCurvePoints / 2 equal spans
    // (the peak always among them). `reserved` likewise where the build records it.
    static constexpr size_t kCurvePoints = 4000;
    std::vector<std::pair<TimeNs, double>> curve, reservedCurve;
};

struct MemoryReport
{
    static constexpr size_t kLargest = 10;
    std::vector<DeviceMemory> devices;
    QString problem; // why there is nothing to report
    TimeNs runStart = 0;
    // What was dropped as outside physical bounds (physical.h): events whose bytes or totals no
    // device holds, a device whose peak passes its capacity, a live-at-peak breakdown that sums
    // to more than the peak. Each names the device and how much.
    QStringList warnings;

    // Drops every GPU whose peak passes `capacityBytes` (the memory of `deviceName`, the run's
    // GPU model from the catalog), with a warning: a 1 PiB peak on a 40 GB GPU is not a
    // measurement. The caller knows the device; the store does not.
    void boundByCapacity(double capacityBytes, const QString &deviceName);

    QJsonObject toJson() const;
    QString toText() const;
    // The GPU that peaked highest (what headlines show); null when only the CPU allocated.
    const DeviceMemory *highestGpu() const;
};

// What memoryReport() works out: everything, or only each device's peaks (peak allocated and
// when, peak reserved, each iteration's levels), which the run metrics take at every import.
// The peaks are the same either way; with Peaks the breakdowns, largest allocations, curves
// and their warnings are left empty.
enum class MemoryDetail { Full, Peaks };

// The report of `run`; nullopt with *error on a read error.
std::optional<MemoryReport> memoryReport(Project &project, RunId run, QString *error,
                                         MemoryDetail detail = MemoryDetail::Full);

// memoryReport(project, run, error, MemoryDetail::Peaks) without reading the threads again:
// each device's peaks as the summaries of the run's sources hold them (`sources`, from
// runSourceWork(); sourcework.h), where every process's threads are in one source. A run with a
// rank whose threads are in several files is read from its threads. The warnings of events
// dropped are the threads' report's alone.
std::optional<MemoryReport> memoryPeaks(Project &project, RunId run,
                                        const std::vector<RunSourceWork> &sources, QString *error);

} // namespace gml
