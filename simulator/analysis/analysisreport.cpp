// SPDX-License-Identifier: GPL-3.0-or-later
// The analyses as JSON (grademl analyze --json) and as text.
#include "analysis.h"

#include "kerneltaxonomy.h"
#include "timeformat.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <span>

namespace gml::sim {

namespace {

QJsonObject gpuTimeJson(const GpuTime &t)
{
    return {{QStringLiteral("window_ns"), t.window},
            {QStringLiteral("compute_ns"), t.compute},
            {QStringLiteral("communication_ns"), t.communication},
            {QStringLiteral("copies_ns"), t.copies},
            {QStringLiteral("idle_ns"), t.idle},
            {QStringLiteral("busy_ns"), t.busy()}};
}

QString percent(TimeNs part, TimeNs whole)
{
    return whole > 0 ? QStringLiteral("%1%").arg(100.0 * double(part) / double(whole), 0, 'f', 1)
                     : QStringLiteral("-");
}

constexpr size_t kTopKernels = 15; // the kernels the report lists

} // namespace

QString idleCauseName(IdleCause cause)
{
    switch (cause) {
    case IdleCause::Launch:
        return QStringLiteral("host launching");
    case IdleCause::DataLoading:
        return QStringLiteral("host data loading");
    case IdleCause::Sync:
        return QStringLiteral("host synchronising");
    case IdleCause::OtherStream:
        return QStringLiteral("other stream or rank");
    case IdleCause::Gpu:
        return QStringLiteral("GPU-side");
    case IdleCause::Unattributed:
        break;
    }
    return QStringLiteral("unattributed");
}

// Counted and named, so a library the taxonomy lacks shows instead of hiding in "other".
Analysis::Unrecognised Analysis::unrecognised(size_t top) const
{
    Unrecognised u;
    for (const auto &k : kernels)
        if (k.family == familyName(KernelKind::Family::Other)) {
            ++u.names;
            u.count += k.count;
            u.time += k.total;
            if (u.top.size() < top)
                u.top.push_back(&k);
        }
    return u;
}

QJsonObject Analysis::toJson() const
{
    QJsonArray gpuArray;
    for (const auto &b : gpus) {
        QJsonArray streamArray;
        for (const auto &s : b.streams)
            streamArray.append(
                QJsonObject{{QStringLiteral("name"), s.name}, {QStringLiteral("busy_ns"), s.busy}});
        QJsonObject o = gpuTimeJson(b.time);
        o.insert(QStringLiteral("device"), b.device);
        o.insert(QStringLiteral("rank"), b.rank);
        o.insert(QStringLiteral("start_ns"), b.start);
        o.insert(QStringLiteral("end_ns"), b.end);
        o.insert(QStringLiteral("idle_gaps"), b.idleGaps);
        o.insert(QStringLiteral("idle_split"),
                 QJsonObject{{QStringLiteral("host_launch_ns"), b.idle.launch},
                             {QStringLiteral("host_data_loading_ns"), b.idle.dataLoading},
                             {QStringLiteral("host_sync_ns"), b.idle.sync},
                             {QStringLiteral("other_stream_or_rank_ns"), b.idle.otherStream},
                             {QStringLiteral("gpu_ns"), b.idle.gpu},
                             {QStringLiteral("unattributed_ns"), b.idle.unattributed}});
        o.insert(QStringLiteral("communication_total_ns"), b.communicationTotal);
        o.insert(QStringLiteral("communication_overlapped_ns"), b.communicationOverlapped);
        o.insert(QStringLiteral("overlap_ratio"), b.overlapRatio());
        o.insert(QStringLiteral("streams"), streamArray);
        gpuArray.append(o);
    }
    QJsonArray iterationArray;
    for (const auto &it : iterations) {
        QJsonObject o = gpuTimeJson(it.time);
        o.insert(QStringLiteral("name"), it.name);
        o.insert(QStringLiteral("device"), it.device);
        o.insert(QStringLiteral("rank"), it.rank);
        o.insert(QStringLiteral("start_ns"), it.start);
        o.insert(QStringLiteral("end_ns"), it.end);
        iterationArray.append(o);
    }
    QJsonArray familyArray;
    for (const auto &f : families)
        familyArray.append(QJsonObject{{QStringLiteral("family"), f.family},
                                       {QStringLiteral("count"), f.count},
                                       {QStringLiteral("time_ns"), f.time}});
    QJsonArray kernelArray;
    for (const auto &k : std::span(kernels).first(std::min<size_t>(kTopKernels, kernels.size())))
        kernelArray.append(QJsonObject{{QStringLiteral("name"), k.name},
                                       {QStringLiteral("family"), k.family},
                                       {QStringLiteral("count"), k.count},
                                       {QStringLiteral("total_ns"), k.total},
                                       {QStringLiteral("p50_ns"), k.p50},
                                       {QStringLiteral("p90_ns"), k.p90},
                                       {QStringLiteral("max_ns"), k.max}});
    QJsonArray stragglerArray;
    for (const auto &s : stragglers)
        stragglerArray.append(QJsonObject{{QStringLiteral("index"), s.index},
                                          {QStringLiteral("operation"), s.operation},
                                          {QStringLiteral("ranks"), s.ranks},
                                          {QStringLiteral("first_arrival_ns"), s.firstArrival},
                                          {QStringLiteral("last_arrival_ns"), s.lastArrival},
                                          {QStringLiteral("last_rank"), s.lastRank},
                                          {QStringLiteral("late_ns"), s.late()},
                                          {QStringLiteral("late_vs_median_ns"), s.lateVsMedian},
                                          {QStringLiteral("before"), s.before}});
    QJsonArray rankArray;
    for (const auto &r : ranks)
        rankArray.append(QJsonObject{{QStringLiteral("rank"), r.rank},
                                     {QStringLiteral("compute_ns"), r.compute},
                                     {QStringLiteral("communication_ns"), r.communication},
                                     {QStringLiteral("last_arrivals"), r.lastArrivals}});
    const Unrecognised unknown = unrecognised(kTopKernels);
    QJsonArray unknownNames;
    for (const KernelStat *k : unknown.top)
        unknownNames.append(QJsonObject{{QStringLiteral("name"), k->name},
                                        {QStringLiteral("count"), k->count},
                                        {QStringLiteral("time_ns"), k->total}});
    QJsonObject o{{QStringLiteral("gpus"), gpuArray},
                  {QStringLiteral("iterations"), iterationArray},
                  {QStringLiteral("kernel_families"), familyArray},
                  {QStringLiteral("unrecognised_kernels"),
                   QJsonObject{{QStringLiteral("count"), unknown.count},
                               {QStringLiteral("time_ns"), unknown.time},
                               {QStringLiteral("names"), unknownNames}}},
                  {QStringLiteral("top_kernels"), kernelArray},
                  {QStringLiteral("launch"),
                   QJsonObject{{QStringLiteral("launches"), launch.launches},
                               {QStringLiteral("calls"), launch.calls},
                               {QStringLiteral("call_time_ns"), launch.callTime},
                               {QStringLiteral("gpu_time_ns"), launch.gpuTime},
                               {QStringLiteral("delay_p50_ns"), launch.delayP50},
                               {QStringLiteral("delay_p90_ns"), launch.delayP90},
                               {QStringLiteral("delay_max_ns"), launch.delayMax},
                               {QStringLiteral("short_kernels"), launch.shortKernels},
                               {QStringLiteral("short_kernel_time_ns"), launch.shortKernelTime}}},
                  {QStringLiteral("stragglers"), stragglerArray},
                  {QStringLiteral("ranks"), rankArray},
                  {QStringLiteral("compute_imbalance"), computeImbalance},
                  {QStringLiteral("communication_imbalance"), communicationImbalance}};
    if (scope.rank >= 0)
        o.insert(QStringLiteral("rank"), scope.rank);
    if (scope.range)
        o.insert(QStringLiteral("range_ns"), QJsonArray{scope.range->first, scope.range->second});
    return o;
}

QString Analysis::toText() const
{
    QString t;
    t += QStringLiteral("GPU time (compute, then communication, then copies; idle split by what "
                        "ended each gap):\n");
    for (const auto &b : gpus) {
        const TimeNs w = b.time.window;
        t += QStringLiteral("  %1: %2 window · compute %3 (%4) · communication %5 (%6) · copies %7 "
                            "(%8) · idle %9 (%10)\n")
                 .arg(b.device, formatDuration(w), formatDuration(b.time.compute),
                      percent(b.time.compute, w), formatDuration(b.time.communication),
                      percent(b.time.communication, w), formatDuration(b.time.copies),
                      percent(b.time.copies, w))
                 .arg(formatDuration(b.time.idle), percent(b.time.idle, w));
        t += QStringLiteral("    idle: host launching %1 · host data loading %2 · host "
                            "synchronising %3 · other stream "
                            "or rank %4 · GPU-side %5 · unattributed %6 (%7 gaps)\n")
                 .arg(formatDuration(b.idle.launch), formatDuration(b.idle.dataLoading),
                      formatDuration(b.idle.sync), formatDuration(b.idle.otherStream),
                      formatDuration(b.idle.gpu), formatDuration(b.idle.unattributed))
                 .arg(b.idleGaps);
        if (b.communicationTotal > 0)
            t += QStringLiteral("    communication %1, %2 of it overlapped with compute\n")
                     .arg(formatDuration(b.communicationTotal),
                          percent(b.communicationOverlapped, b.communicationTotal));
        for (const auto &s : b.streams)
            t += QStringLiteral("    %1: busy %2 (%3)\n")
                     .arg(s.name, formatDuration(s.busy), percent(s.busy, w));
    }
    if (!iterations.empty()) {
        t += QStringLiteral("Iterations:\n");
        for (const auto &it : iterations)
            t += QStringLiteral(
                     "  %1 on %2: %3 · compute %4 · communication %5 · copies %6 · idle %7\n")
                     .arg(it.name, it.device, formatDuration(it.time.window),
                          percent(it.time.compute, it.time.window),
                          percent(it.time.communication, it.time.window),
                          percent(it.time.copies, it.time.window),
                          percent(it.time.idle, it.time.window));
    }
    TimeNs kernelTime = 0;
    for (const auto &f : families)
        kernelTime += f.time;
    t += QStringLiteral("Kernel families:\n");
    for (const auto &f : families)
        t += QStringLiteral("  %1: %2 (%3) in %4 kernels\n")
                 .arg(f.family, formatDuration(f.time), percent(f.time, kernelTime))
                 .arg(f.count);
    const Unrecognised unknown = unrecognised(kTopKernels);
    QStringList unknownNames;
    for (const KernelStat *k : unknown.top)
        if (unknownNames.size() < 5)
            unknownNames << k->name.left(80);
    if (unknown.count > 0)
        t += QStringLiteral("Unrecognised kernels (family \"other\"): %1 kernels, %2: %3\n")
                 .arg(unknown.count)
                 .arg(formatDuration(unknown.time), unknownNames.join(QStringLiteral(" · ")));
    t += QStringLiteral("Top kernels:\n");
    for (const auto &k : std::span(kernels).first(std::min<size_t>(kTopKernels, kernels.size())))
        t += QStringLiteral("  %1 [%2]: %3 in %4 · p50 %5 · p90 %6 · max %7\n")
                 .arg(k.name.left(100), k.family, formatDuration(k.total))
                 .arg(k.count)
                 .arg(formatDuration(k.p50), formatDuration(k.p90), formatDuration(k.max));
    t += QStringLiteral("Launches: %1 GPU nodes from %2 calls; calls %3, launched work %4; launch "
                        "to start p50 %5, "
                        "p90 %6, max %7; %8 kernels under 10 µs (%9)\n")
             .arg(launch.launches)
             .arg(launch.calls)
             .arg(formatDuration(launch.callTime), formatDuration(launch.gpuTime),
                  formatDuration(launch.delayP50), formatDuration(launch.delayP90),
                  formatDuration(launch.delayMax))
             .arg(launch.shortKernels)
             .arg(formatDuration(launch.shortKernelTime));
    if (!stragglers.empty()) {
        t += QStringLiteral("Stragglers (last rank to arrive at each collective):\n");
        for (const auto &s : stragglers)
            t +=
                QStringLiteral("  #%1 %2 (%3 ranks): rank %4 last, %5 after the first, %6 after "
                               "the median%7\n")
                    .arg(s.index)
                    .arg(s.operation)
                    .arg(s.ranks)
                    .arg(s.lastRank)
                    .arg(formatDuration(s.late()), formatDuration(s.lateVsMedian),
                         s.before.isEmpty() ? QString() : QStringLiteral(" · before: ") + s.before);
    }
    if (ranks.size() >= 2) {
        t += QStringLiteral(
                 "Ranks (compute imbalance %1, communication imbalance %2; max / mean):\n")
                 .arg(computeImbalance, 0, 'f', 3)
                 .arg(communicationImbalance, 0, 'f', 3);
        for (const auto &r : ranks)
            t += QStringLiteral(
                     "  rank %1: compute %2 · communication %3 · last to arrive %4 times\n")
                     .arg(r.rank)
                     .arg(formatDuration(r.compute), formatDuration(r.communication))
                     .arg(r.lastArrivals);
    }
    return t;
}

} // namespace gml::sim
