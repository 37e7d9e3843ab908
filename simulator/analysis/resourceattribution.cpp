// SPDX-License-Identifier: GPL-3.0-or-later
#include "resourceattribution.h"

#include "countertrack.h"
#include "project.h"
#include "timeformat.h"
#include "trackrecords.h"
#include "transforms.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>
#include <map>

namespace gml::sim {

QString metricName(Metric m)
{
    switch (m) {
    case Metric::GpuUtilisation:
        return QStringLiteral("GPU utilisation");
    case Metric::SmActive:
        return QStringLiteral("SM active");
    case Metric::TensorActive:
        return QStringLiteral("tensor pipe active");
    case Metric::MemoryUsed:
        return QStringLiteral("memory used");
    case Metric::MemoryTotal:
        return QStringLiteral("memory total");
    case Metric::Power:
        return QStringLiteral("power");
    case Metric::HostCpu:
        return QStringLiteral("host CPU busy");
    case Metric::HostMemory:
        return QStringLiteral("host memory used");
    }
    return {};
}

QString metricUnit(Metric m)
{
    switch (m) {
    case Metric::GpuUtilisation:
    case Metric::HostCpu:
        return QStringLiteral("%");
    case Metric::SmActive:
    case Metric::TensorActive:
        return QStringLiteral("ratio");
    case Metric::MemoryUsed:
    case Metric::MemoryTotal:
    case Metric::HostMemory:
        return QStringLiteral("MiB");
    case Metric::Power:
        return QStringLiteral("W");
    }
    return {};
}

std::optional<Metric> metricOfTrack(const QString &trackName)
{
    static const std::pair<QRegularExpression, Metric> patterns[] = {
        {QRegularExpression(QStringLiteral("^nvidia-smi · utilization\\.gpu$|^dcgmi · GPUTL\\b")),
         Metric::GpuUtilisation},
        {QRegularExpression(QStringLiteral("^dcgmi · SMACT\\b")), Metric::SmActive},
        {QRegularExpression(QStringLiteral("^dcgmi · TENSO\\b")), Metric::TensorActive},
        {QRegularExpression(QStringLiteral("^nvidia-smi · memory\\.used$|^dcgmi · FBUSD\\b")),
         Metric::MemoryUsed},
        {QRegularExpression(QStringLiteral("^nvidia-smi · memory\\.total$")), Metric::MemoryTotal},
        {QRegularExpression(QStringLiteral("^nvidia-smi · power\\.draw|^dcgmi · POWER\\b")),
         Metric::Power},
        {QRegularExpression(QStringLiteral("^top · CPU busy$")), Metric::HostCpu},
        {QRegularExpression(QStringLiteral("^top · memory used$")), Metric::HostMemory},
    };
    for (const auto &[re, m] : patterns)
        if (re.match(trackName).hasMatch())
            return m;
    return std::nullopt;
}

namespace {

struct Series
{
    QString device;
    QString source;
    Metric metric;
    CounterTrack track;
};

// Over [a, b) ∩ [first sample, last sample]: the time-weighted mean, the largest value in
// effect, the samples inside and the integral (value x seconds); nullopt when they do not meet.
struct Over
{
    double mean = 0;
    double max = 0;
    int samples = 0;
    double integral = 0; // value-seconds
};
std::optional<Over> over(const CounterTrack &c, TimeNs a, TimeNs b)
{
    if (c.isEmpty())
        return std::nullopt;
    const TimeNs lo = std::max(a, c.ts(0));
    const TimeNs hi = std::min(b, c.ts(c.size() - 1));
    Over o;
    if (hi <= lo) {
        // A single sample, or a phase between two samples: the value in effect.
        const qint64 at = c.sampleAt(std::min(std::max(a, c.ts(0)), c.ts(c.size() - 1)));
        if (at < 0 || a > c.ts(c.size() - 1) || b < c.ts(0))
            return std::nullopt;
        o.mean = o.max = c.value(size_t(at));
        o.samples = (c.ts(size_t(at)) >= a && c.ts(size_t(at)) < b) ? 1 : 0;
        return o;
    }
    qint64 i = c.sampleAt(lo);
    o.max = std::numeric_limits<double>::lowest();
    TimeNs t = lo;
    while (t < hi && i >= 0 && size_t(i) < c.size()) {
        const TimeNs next = size_t(i) + 1 < c.size() ? std::min(hi, c.ts(size_t(i) + 1)) : hi;
        o.integral += c.value(size_t(i)) * double(next - t) * 1e-9;
        o.max = std::max(o.max, c.value(size_t(i)));
        t = next;
        ++i;
    }
    for (size_t k = c.lowerBound(a); k < c.size() && c.ts(k) < b; ++k)
        ++o.samples;
    o.mean = o.integral / (double(hi - lo) * 1e-9);
    return o;
}

// The active span cut where the busiest GPU's utilisation drops below half its typical busy
// level and comes back (an epoch's evaluation, a checkpoint, a reshuffle): "busy N" and
// "lull N" phases, when there are two busy stretches or more.
void segment(const std::vector<Series> &series, TimeNs from, TimeNs to, std::vector<Phase> &phases)
{
    const Series *busiest = nullptr;
    double best = 0;
    for (const auto &s : series) {
        if (s.metric != Metric::GpuUtilisation)
            continue;
        const auto o = over(s.track, from, to);
        if (o && o->mean > best) {
            best = o->mean;
            busiest = &s;
        }
    }
    if (!busiest)
        return;
    std::vector<double> positive;
    const CounterTrack &c = busiest->track;
    for (size_t k = c.lowerBound(from); k < c.size() && c.ts(k) < to; ++k)
        if (c.value(k) > 0)
            positive.push_back(c.value(k));
    if (positive.size() < 4)
        return;
    std::nth_element(positive.begin(), positive.begin() + qsizetype(positive.size() / 2),
                     positive.end());
    const double threshold = positive[positive.size() / 2] / 2;
    std::vector<Phase> cut;
    int busy = 0, lull = 0;
    for (size_t k = c.lowerBound(from); k < c.size() && c.ts(k) < to; ++k) {
        const bool high = c.value(k) >= threshold;
        const TimeNs end = k + 1 < c.size() ? std::min(to, c.ts(k + 1)) : to;
        const QString kind = high ? QStringLiteral("busy") : QStringLiteral("lull");
        if (!cut.empty() && cut.back().kind == kind) {
            cut.back().end = end;
            continue;
        }
        cut.push_back({QStringLiteral("%1 %2").arg(kind).arg(high ? ++busy : ++lull),
                       kind,
                       std::max(from, c.ts(k)),
                       end,
                       {}});
    }
    if (busy >= 2)
        phases.insert(phases.end(), cut.begin(), cut.end());
}

} // namespace

PhaseFrame phaseFrame(const DependencyGraph &graph)
{
    PhaseFrame frame;
    frame.origin = graph.origin();
    frame.end = graph.measuredEnd();
    const auto &cs = graph.containers();
    const auto its = graph.iterations();
    if (its.empty())
        return frame;
    for (int c : its)
        frame.iterations.push_back({graph.name(cs[size_t(c)].name),
                                    QStringLiteral("iteration"),
                                    cs[size_t(c)].start,
                                    cs[size_t(c)].end,
                                    {}});
    // Data loading within the iterations, on the lowest rank's threads: one phase over its
    // ranges.
    const int rank = graph.resources()[size_t(cs[size_t(its.front())].resource)].rank;
    const TimeNs first = cs[size_t(its.front())].start, last = cs[size_t(its.back())].end;
    forEachDataLoadingRange(graph, [&](int resource, TimeNs start, TimeNs end) {
        if (graph.resources()[size_t(resource)].rank == rank && start >= first && end <= last)
            frame.dataLoading.emplace_back(start, end);
    });
    std::sort(frame.dataLoading.begin(), frame.dataLoading.end());
    return frame;
}

ResourceAttribution attributeResources(Project &project, RunId run, const DependencyGraph *graph,
                                       QString *error)
{
    if (!graph)
        return attributeResources(project, run, static_cast<const PhaseFrame *>(nullptr), error);
    const PhaseFrame frame = phaseFrame(*graph);
    return attributeResources(project, run, &frame, error);
}

namespace {

// The run's counters that a metric reads (utilisation, memory, power, host CPU), loaded; the
// samples read are added to `samples`.
std::vector<Series> loadSeries(Project &project, RunId run, qint64 &samples, QString *error)
{
    std::vector<std::pair<TrackId, Series>> wanted;
    for (const TrackRow &t : tracksOfRun(project, run, error)) {
        if (t.kind != TrackKind::Counter)
            continue;
        const auto metric = metricOfTrack(t.name);
        if (!metric)
            continue;
        const bool gpu = t.parentKind == TrackKind::Gpu;
        Series s;
        s.device = gpu ? QStringLiteral("GPU %1").arg(t.parentPid) : QStringLiteral("host");
        s.source = t.name.section(QStringLiteral(" · "), 0, 0);
        s.metric = *metric;
        wanted.emplace_back(t.id, std::move(s));
    }
    std::vector<Series> series;
    for (auto &[id, s] : wanted) {
        s.track = CounterTrack::load(project, id, error);
        samples += qint64(s.track.size());
        if (!s.track.isEmpty())
            series.push_back(std::move(s));
    }
    return series;
}

// The devices, GPUs by index then the host; and the series drawn under the table (utilisation,
// power, host CPU), each at most 2,000 points (means of consecutive samples).
void listDevicesAndSeries(const std::vector<Series> &series, ResourceAttribution &out)
{
    std::map<std::pair<int, QString>, int> deviceOrder; // GPUs by index, then the host
    for (const auto &s : series) {
        bool ok = false;
        const int index =
            s.device.startsWith(QLatin1String("GPU ")) ? s.device.mid(4).toInt(&ok) : 0;
        deviceOrder.emplace(std::make_pair(ok ? index : 1 << 20, s.device), 0);
    }
    for (const auto &[key, unused] : deviceOrder)
        out.devices << key.second;
    for (const auto &s : series) {
        if (s.metric != Metric::GpuUtilisation && s.metric != Metric::Power &&
            s.metric != Metric::HostCpu)
            continue;
        CounterSeries cs{s.device, s.source, s.metric, {}};
        const size_t n = s.track.size(), every = (n + 1999) / 2000;
        for (size_t k = 0; k < n; k += every) {
            double sum = 0;
            const size_t e = std::min(n, k + every);
            for (size_t j = k; j < e; ++j)
                sum += s.track.value(j);
            cs.samples.emplace_back(s.track.ts(k), sum / double(e - k));
        }
        out.series.push_back(std::move(cs));
    }
}

// The phases of the execution model: the run, each iteration, and data loading as one phase of
// its spans.
void phasesFromFrame(const PhaseFrame &frame, ResourceAttribution &out)
{
    out.phaseSource = QStringLiteral("the execution model");
    out.phases.push_back({QStringLiteral("run"),
                          QStringLiteral("run"),
                          std::min(frame.origin, frame.iterations.front().start),
                          frame.end,
                          {}});
    out.phases.insert(out.phases.end(), frame.iterations.begin(), frame.iterations.end());
    if (!frame.dataLoading.empty()) {
        Phase loading{QString(), QStringLiteral("data loading"), 0, 0, frame.dataLoading};
        TimeNs total = 0;
        for (const auto &[start, end] : loading.spans)
            total += end - start;
        loading.name = QStringLiteral("data loading (%1 in all)").arg(formatDuration(total));
        loading.start = loading.spans.front().first;
        loading.end = loading.spans.back().second;
        out.phases.push_back(std::move(loading));
    }
}

// Without an execution model: before, during and after the GPUs' activity in the monitoring
// logs, the activity segmented where it changes.
void phasesFromActivity(const std::vector<Series> &series, ResourceAttribution &out)
{
    TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
    for (const auto &s : series) {
        first = std::min(first, s.track.ts(0));
        last = std::max(last, s.track.ts(s.track.size() - 1));
    }
    out.phaseSource = QStringLiteral("GPU activity in the monitoring logs");
    // Busy: a GPU utilisation or SM active sample above zero on any GPU.
    TimeNs busyFrom = std::numeric_limits<TimeNs>::max(),
           busyTo = std::numeric_limits<TimeNs>::min();
    for (const auto &s : series) {
        if (s.metric != Metric::GpuUtilisation && s.metric != Metric::SmActive)
            continue;
        for (size_t k = 0; k < s.track.size(); ++k)
            if (s.track.value(k) > 0) {
                busyFrom = std::min(busyFrom, s.track.ts(k));
                const TimeNs next = k + 1 < s.track.size() ? s.track.ts(k + 1) : s.track.ts(k);
                busyTo = std::max(busyTo, next);
            }
    }
    if (busyFrom >= busyTo) {
        out.phases.push_back(
            {QStringLiteral("run (no GPU activity)"), QStringLiteral("before"), first, last, {}});
    } else {
        if (busyFrom > first)
            out.phases.push_back({QStringLiteral("before the GPU work"),
                                  QStringLiteral("before"),
                                  first,
                                  busyFrom,
                                  {}});
        out.phases.push_back(
            {QStringLiteral("GPU active"), QStringLiteral("active"), busyFrom, busyTo, {}});
        segment(series, busyFrom, busyTo, out.phases);
        if (busyTo < last)
            out.phases.push_back(
                {QStringLiteral("after the GPU work"), QStringLiteral("after"), busyTo, last, {}});
    }
}

// Usage per phase and device; a phase of several spans (data loading) gets their time-weighted
// means, the largest value and the energies added.
void usageByPhase(const std::vector<Series> &series, ResourceAttribution &out)
{
    std::map<std::pair<int, QString>, PhaseUsage> rows;
    std::map<std::pair<int, QString>, std::array<double, kMetrics>> weight;
    for (int p = 0; p < int(out.phases.size()); ++p) {
        const Phase &phase = out.phases[size_t(p)];
        const std::vector<std::pair<TimeNs, TimeNs>> whole{{phase.start, phase.end}};
        for (const auto &[start, end] : phase.spans.empty() ? whole : phase.spans)
            for (const auto &s : series) {
                const auto o = over(s.track, start, end);
                if (!o)
                    continue;
                auto [it, fresh] = rows.try_emplace({p, s.device});
                PhaseUsage &u = it->second;
                if (fresh) {
                    u.phase = p;
                    u.device = s.device;
                    u.mean.fill(std::numeric_limits<double>::quiet_NaN());
                    u.max.fill(std::numeric_limits<double>::quiet_NaN());
                    weight[{p, s.device}].fill(0);
                }
                const size_t m = size_t(s.metric);
                double &w = weight[{p, s.device}][m];
                const double span = double(end - start);
                const double wm = std::isnan(u.mean[m]) ? 0 : u.mean[m];
                u.mean[m] = (wm * w + o->mean * span) / (w + span > 0 ? w + span : 1);
                w += span;
                u.max[m] = std::isnan(u.max[m]) ? o->max : std::max(u.max[m], o->max);
                u.samples[m] += o->samples;
                if (s.metric == Metric::Power)
                    u.energyJ = (std::isnan(u.energyJ) ? 0 : u.energyJ) + o->integral;
            }
    }
    for (auto &[key, u] : rows)
        out.usage.push_back(u);
    std::stable_sort(out.usage.begin(), out.usage.end(),
                     [&](const PhaseUsage &x, const PhaseUsage &y) {
                         if (x.phase != y.phase)
                             return x.phase < y.phase;
                         return out.devices.indexOf(x.device) < out.devices.indexOf(y.device);
                     });
}

} // namespace

ResourceAttribution attributeResources(Project &project, RunId run, const PhaseFrame *frame,
                                       QString *error)
{
    ResourceAttribution out;
    const std::vector<Series> series = loadSeries(project, run, out.samples, error);
    if (series.empty())
        return out;
    listDevicesAndSeries(series, out);
    if (frame && !frame->iterations.empty())
        phasesFromFrame(*frame, out);
    else
        phasesFromActivity(series, out);
    usageByPhase(series, out);
    return out;
}

QJsonObject ResourceAttribution::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("phase_source"), phaseSource);
    o.insert(QStringLiteral("samples"), samples);
    QJsonArray ps;
    for (const auto &p : phases)
        ps.append(QJsonObject{{QStringLiteral("name"), p.name},
                              {QStringLiteral("kind"), p.kind},
                              {QStringLiteral("start_ns"), qint64(p.start)},
                              {QStringLiteral("end_ns"), qint64(p.end)}});
    o.insert(QStringLiteral("phases"), ps);
    QJsonArray us;
    for (const auto &u : usage) {
        QJsonObject r{{QStringLiteral("phase"), u.phase}, {QStringLiteral("device"), u.device}};
        QJsonObject metrics;
        for (int m = 0; m < kMetrics; ++m)
            if (u.has(Metric(m)))
                metrics.insert(metricName(Metric(m)),
                               QJsonObject{{QStringLiteral("mean"), u.mean[size_t(m)]},
                                           {QStringLiteral("max"), u.max[size_t(m)]},
                                           {QStringLiteral("unit"), metricUnit(Metric(m))},
                                           {QStringLiteral("samples"), u.samples[size_t(m)]}});
        r.insert(QStringLiteral("metrics"), metrics);
        if (!std::isnan(u.energyJ))
            r.insert(QStringLiteral("energy_j"), u.energyJ);
        us.append(r);
    }
    o.insert(QStringLiteral("usage"), us);
    return o;
}

QString ResourceAttribution::toText() const
{
    if (isEmpty())
        return {};
    QString t = QStringLiteral("Resources by phase (%1 counter samples; phases from %2):\n")
                    .arg(samples)
                    .arg(phaseSource);
    // GPUs that never ran (utilisation and memory at zero throughout) are named once.
    QStringList idle;
    for (const auto &d : devices) {
        if (!d.startsWith(QLatin1String("GPU ")))
            continue;
        bool ran = false;
        for (const auto &u : usage)
            if (u.device == d &&
                ((u.has(Metric::GpuUtilisation) && u.max[size_t(Metric::GpuUtilisation)] > 0) ||
                 (u.has(Metric::MemoryUsed) && u.max[size_t(Metric::MemoryUsed)] > 1)))
                ran = true;
        if (!ran)
            idle << d;
    }
    if (!idle.isEmpty())
        t += QStringLiteral("  idle throughout (no utilisation, no memory in use): %1\n")
                 .arg(idle.join(QStringLiteral(", ")));
    int shown = -1;
    for (const auto &u : usage) {
        if (idle.contains(u.device))
            continue;
        const Phase &p = phases[size_t(u.phase)];
        if (u.phase != shown) {
            t += QStringLiteral("  %1 [%2 … %3]\n")
                     .arg(p.name, formatDuration(p.start - phases.front().start),
                          formatDuration(p.end - phases.front().start));
            shown = u.phase;
        }
        QStringList parts;
        for (int m = 0; m < kMetrics; ++m) {
            if (!u.has(Metric(m)))
                continue;
            const bool ratio = metricUnit(Metric(m)) == QLatin1String("ratio");
            parts << QStringLiteral("%1 %2%3 (max %4)")
                         .arg(metricName(Metric(m)))
                         .arg(ratio ? u.mean[size_t(m)] : u.mean[size_t(m)], 0, 'f', ratio ? 2 : 1)
                         .arg(ratio ? QString() : QStringLiteral(" ") + metricUnit(Metric(m)))
                         .arg(u.max[size_t(m)], 0, 'f', ratio ? 2 : 1);
        }
        if (!std::isnan(u.energyJ))
            parts << QStringLiteral("energy %1 J").arg(u.energyJ, 0, 'f', 1);
        t += QStringLiteral("    %1: %2\n").arg(u.device, parts.join(QStringLiteral(" · ")));
    }
    return t;
}

} // namespace gml::sim
