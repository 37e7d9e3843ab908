// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dependencygraph.h"

#include <QJsonObject>
#include <QString>

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace gml::sim {

// Resource attribution (Grade10): the coarse counters of the monitoring logs (nvidia-smi, dcgmi,
// top) attributed to the phases of the run. Phases come from the execution model when the run
// has one (its iterations, and data loading against the rest of them); a run with only
// monitoring logs gets them from the GPUs' own activity: before the first sample with the
// GPU busy, from there to the last busy sample, and after it.
//
// A phase's value of a counter is the time-weighted mean of its samples over the phase (each
// sample holds until the next, as the timeline draws counters); energy is power integrated
// over the phase. Samples a second apart cannot resolve phases shorter than that: `samples`
// says how many samples fell inside the phase.
enum class Metric : uint8_t {
    GpuUtilisation, // % of time a kernel ran (nvidia-smi utilization.gpu, dcgmi GPUTL)
    SmActive,       // ratio (dcgmi SMACT)
    TensorActive,   // ratio (dcgmi TENSO)
    MemoryUsed,     // MiB (nvidia-smi memory.used)
    MemoryTotal,    // MiB (nvidia-smi memory.total)
    Power,          // W (nvidia-smi power.draw, dcgmi POWER)
    HostCpu,        // % busy (top)
    HostMemory,     // MiB used (top)
};
constexpr int kMetrics = 8;
QString metricName(Metric m); // "GPU utilisation", ...
QString metricUnit(Metric m);

// The metric a counter track carries, from its name ("nvidia-smi · utilization.gpu").
std::optional<Metric> metricOfTrack(const QString &trackName);

struct Phase
{
    QString name; // "ProfilerStep#5", "data loading", "GPU active", ...
    QString kind; // "iteration", "data loading", "compute", "before", "active", "after"
    TimeNs start = 0;
    TimeNs end = 0;
    // The ranges it covers when not the whole of [start, end) (data loading: each loading
    // range; empty: [start, end)).
    std::vector<std::pair<TimeNs, TimeNs>> spans;
};

// One device's (a GPU, or "host") counters over one phase; NaN where the metric is not sampled.
struct PhaseUsage
{
    int phase = 0;  // index into ResourceAttribution::phases
    QString device; // "GPU 0", "host"
    std::array<double, kMetrics> mean{};
    std::array<double, kMetrics> max{};
    std::array<int, kMetrics> samples{};
    double energyJ = std::numeric_limits<double>::quiet_NaN(); // power integrated over the phase
    bool has(Metric m) const { return !std::isnan(mean[size_t(m)]); }
};

// A counter over time for the charts: a device's metric, at most 2,000 samples (bucket means
// when it had more), on the project clock.
struct CounterSeries
{
    QString device;
    QString source; // the tool that sampled it: "nvidia-smi", "dcgmi", "top"
    Metric metric = Metric::GpuUtilisation;
    std::vector<std::pair<TimeNs, double>> samples;
};

struct ResourceAttribution
{
    QString phaseSource; // "the execution model" or "GPU activity in the monitoring logs"
    std::vector<Phase> phases;
    std::vector<PhaseUsage> usage;     // by phase, then device
    QStringList devices;               // the devices with counters, GPUs first
    qint64 samples = 0;                // counter samples read
    std::vector<CounterSeries> series; // GPU utilisation and power, host CPU, over time
    bool isEmpty() const { return usage.empty(); }
    QJsonObject toJson() const;
    QString toText() const;
};

// What the phases of a run with a kernel trace come from: its work's span (the first node's
// start to the last one's end), the iterations of its lowest rank that has them (by start) and
// that rank's data loading within them (sorted).
struct PhaseFrame
{
    TimeNs origin = 0;
    TimeNs end = 0;
    std::vector<Phase> iterations;
    std::vector<std::pair<TimeNs, TimeNs>> dataLoading;
};
PhaseFrame phaseFrame(const DependencyGraph &graph);

// The counters of `run` attributed to its phases; `frame` (null for a run without a kernel
// trace, or one without iterations) gives the iterations and data loading. Empty when the run
// has no recognised counters.
ResourceAttribution attributeResources(Project &project, RunId run, const PhaseFrame *frame,
                                       QString *error);
ResourceAttribution attributeResources(Project &project, RunId run, const DependencyGraph *graph,
                                       QString *error);

} // namespace gml::sim
