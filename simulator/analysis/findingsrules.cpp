// SPDX-License-Identifier: GPL-3.0-or-later
#include "findingsrules.h"

#include "devicecatalog.h"
#include "timeformat.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <map>
#include <numeric>

namespace gml::sim {

namespace {

// The thresholds of the rules (docs/analysis.md, "Findings").
constexpr double kInputShare = 0.05;  // GPU idle while the host loads data
constexpr double kLaunchShare = 0.10; // GPU idle while the host launches
constexpr TimeNs kShallowQueue =
    1'000'000;                        // launch-to-start median under which the queue is shallow
constexpr double kSyncShare = 0.05;   // GPU idle while the host is blocked in a synchronising call
constexpr double kIdleShare = 0.15;   // GPU idle, all causes
constexpr double kCopyShare = 0.005;  // pageable copies' time
constexpr double kShortKernels = 0.5; // kernels under 10 us, of all kernels
constexpr qint64 kShortKernelCount = 1000;
constexpr double kShortLaunchShare = 0.05; // ... while the GPU waits for launches
constexpr double kFp32Share = 0.20;        // FP32 matrix kernels, of the GPU's compute time
constexpr TimeNs kShortKernel = 10'000;

// The evidence of the idle gaps with one of `causes`, longest first, from every GPU.
std::vector<Evidence> gapEvidence(const DependencyGraph &g, const Analysis &a,
                                  std::initializer_list<IdleCause> causes)
{
    std::vector<Evidence> out;
    std::vector<std::pair<IdleGap, const GpuBreakdown *>> gaps;
    for (const auto &gpu : a.gpus)
        for (const auto &gap : gpu.longestGaps)
            if (std::find(causes.begin(), causes.end(), gap.cause) != causes.end())
                gaps.emplace_back(gap, &gpu);
    std::sort(gaps.begin(), gaps.end(),
              [](const auto &x, const auto &y) { return x.first.length() > y.first.length(); });
    for (const auto &[gap, gpu] : gaps) {
        if (out.size() == 20)
            break;
        Evidence e;
        e.rank = gpu->rank;
        e.start = gap.start;
        e.end = gap.end;
        QString before;
        if (gap.work >= 0) {
            const Node &n = g.nodes()[size_t(gap.work)];
            e.slice = n.slice;
            e.track = g.resources()[size_t(n.resource)].track;
            before = QStringLiteral(" before %1").arg(g.name(n.name).left(80));
        }
        e.what =
            QStringLiteral("%1 idle %2%3 (%4)")
                .arg(gpu->device, formatDuration(gap.length()), before, idleCauseName(gap.cause));
        out.push_back(e);
    }
    return out;
}

// The 20 longest nodes that pass `test`, as evidence.
template <typename Test> std::vector<Evidence> longestNodes(const DependencyGraph &g, Test &&test)
{
    std::vector<int> picked;
    for (size_t i = 0; i < g.nodes().size(); ++i)
        if (test(g.nodes()[i]))
            picked.push_back(int(i));
    auto length = [&](int i) { return g.nodes()[size_t(i)].end - g.nodes()[size_t(i)].start; };
    const size_t n = std::min<size_t>(20, picked.size());
    std::partial_sort(picked.begin(), picked.begin() + qsizetype(n), picked.end(),
                      [&](int x, int y) { return length(x) > length(y); });
    std::vector<Evidence> out;
    for (size_t k = 0; k < n; ++k) {
        const Node &node = g.nodes()[size_t(picked[k])];
        out.push_back({QStringLiteral("%1 %2").arg(g.name(node.name).left(80),
                                                   formatDuration(length(picked[k]))),
                       g.resources()[size_t(node.resource)].rank, node.start, node.end, node.slice,
                       g.resources()[size_t(node.resource)].track});
    }
    return out;
}

// A compute-bound kernel that says it runs in FP32 on the CUDA cores: cuBLAS/cuDNN's sgemm and
// scudnn kernels, cutlass simt, or a float template argument; never one that names half
// precision, tensor cores or TF32, nor FlashAttention (FP16/BF16 only).
bool isFp32Matmul(const QString &name)
{
    static const QRegularExpression fp32(
        QStringLiteral("sgemm|scudnn|simt|fp32|f32|<float|\\(float|float,"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression other(QStringLiteral("flash|tf32|xf32|wmma|mma"),
                                          QRegularExpression::CaseInsensitiveOption);
    return !usesHalfPrecision(name) && fp32.match(name).hasMatch() && !other.match(name).hasMatch();
}

TraceRun traceRunOf(const DependencyGraph &g, const Analysis &a, const DeviceCatalog &catalog,
                    const WhatIfContext &context)
{
    TraceRun r{g, a, catalog, context, 0, 0, 0, 0, IdleSplit{}, 1, 0};
    for (const auto &gpu : a.gpus) {
        r.window += gpu.time.window;
        r.idle += gpu.time.idle;
        r.compute += gpu.time.compute;
        r.exposed += gpu.time.communication;
        r.split.launch += gpu.idle.launch;
        r.split.dataLoading += gpu.idle.dataLoading;
        r.split.sync += gpu.idle.sync;
        r.split.otherStream += gpu.idle.otherStream;
        r.split.gpu += gpu.idle.gpu;
        r.split.unattributed += gpu.idle.unattributed;
    }
    for (const auto &s : a.kernels)
        if (s.kind == NodeKind::Kernel)
            r.kernels += s.count;
    r.W = double(std::max<TimeNs>(1, r.window));
    return r;
}

// Input-bound.
void inputBound(const TraceRun &r, std::vector<Finding> &out)
{
    const DependencyGraph &g = r.g;
    const Analysis &a = r.a;
    const IdleSplit &split = r.split;
    const double W = r.W;
    if (const double s = double(split.dataLoading) / W; s >= kInputShare) {
        Finding f;
        f.rule = QStringLiteral("input-bound");
        f.share = s;
        f.title = QStringLiteral("Input-bound: the GPUs wait %1 of their time for data loading")
                      .arg(pct(s));
        f.detail = QStringLiteral(
                       "%1 of GPU idle time ended with work launched right after the host loaded a "
                       "batch (DataLoader __next__ on the launching thread). Load in background "
                       "workers (DataLoader num_workers > 0, pin_memory=True, prefetch_factor) so "
                       "the next batch is ready when the step ends.")
                       .arg(formatDuration(split.dataLoading));
        f.evidence = gapEvidence(g, a, {IdleCause::DataLoading});
        f.fix = {Transform::input(0)};
        out.push_back(std::move(f));
    }
}

// Launch-bound.
void launchBound(const TraceRun &r, std::vector<Finding> &out)
{
    const DependencyGraph &g = r.g;
    const Analysis &a = r.a;
    const IdleSplit &split = r.split;
    const double W = r.W;
    if (const double s = double(split.launch) / W;
        s >= kLaunchShare && a.launch.delayP50 < kShallowQueue) {
        Finding f;
        f.rule = QStringLiteral("launch-bound");
        f.share = s;
        f.title = QStringLiteral(
                      "Launch-bound: the GPUs wait %1 of their time for the host to launch work")
                      .arg(pct(s));
        f.detail =
            QStringLiteral(
                "Work starts a median %1 after its launch call: the GPU queue is nearly empty, "
                "so each kernel waits for the host to issue it (%2 launches, %3 in launch "
                "calls). Capture the step in a CUDA graph (torch.cuda.graphs, torch.compile "
                "mode=\"reduce-overhead\"), fuse small ops, or give the GPU larger batches.")
                .arg(formatDuration(a.launch.delayP50))
                .arg(a.launch.launches)
                .arg(formatDuration(a.launch.callTime));
        f.evidence = gapEvidence(g, a, {IdleCause::Launch});
        f.fix = {Transform::host(0)};
        out.push_back(std::move(f));
    }
}

// Synchronisation stalls.
void syncStalls(const TraceRun &r, std::vector<Finding> &out)
{
    const DependencyGraph &g = r.g;
    const Analysis &a = r.a;
    const IdleSplit &split = r.split;
    const double W = r.W;
    if (const double s = double(split.sync) / W; s >= kSyncShare) {
        QMap<QString, std::pair<qint64, TimeNs>> calls;
        for (const Node &n : g.nodes())
            if (n.synchronising) {
                auto &c = calls[g.name(n.name)];
                ++c.first;
                c.second += n.end - n.start;
            }
        QStringList which;
        for (auto it = calls.begin(); it != calls.end(); ++it)
            which << QStringLiteral("%1 x%2 (%3)")
                         .arg(it.key())
                         .arg(it->first)
                         .arg(formatDuration(it->second));
        Finding f;
        f.rule = QStringLiteral("sync-stall");
        f.share = s;
        f.title =
            QStringLiteral(
                "Synchronisation stalls: the GPUs idle %1 of their time after the host waited "
                "for them")
                .arg(pct(s));
        f.detail =
            QStringLiteral(
                "The host blocks until the GPU drains, then the GPU waits for the next launch: "
                "%1. Avoid .item(), .cpu(), printing tensors and explicit synchronize in "
                "the step; log every N steps; use non_blocking copies.")
                .arg(which.join(QStringLiteral(", ")));
        f.evidence = gapEvidence(g, a, {IdleCause::Sync});
        f.fix = {Transform::unsync()};
        out.push_back(std::move(f));
    }
}

// Pageable and synchronous copies.
void pageableCopies(const TraceRun &r, std::vector<Finding> &out)
{
    const DependencyGraph &g = r.g;
    const double W = r.W;
    const std::vector<KernelStat> &names = r.a.kernels;
    const WhatIfContext &context = r.context;
    {
        qint64 count = 0, bytes = 0;
        TimeNs time = 0;
        for (const auto &s : names)
            if (s.kind == NodeKind::Memcpy && s.name.contains(QLatin1String("Pageable"))) {
                count += s.count;
                time += s.total;
                bytes += s.bytes;
            }
        if (const double s = double(time) / W; count > 0 && s >= kCopyShare) {
            Finding f;
            f.rule = QStringLiteral("pageable-memcpy");
            f.share = s;
            f.title = QStringLiteral("Pageable memory copies: %1 copies take %2 of the GPUs' time")
                          .arg(count)
                          .arg(pct(s));
            f.detail = QStringLiteral(
                "Copies from pageable host memory are staged through a driver buffer at a "
                "fraction of the link's bandwidth and block the host. Pin the memory "
                "(DataLoader pin_memory=True, tensor.pin_memory()) and copy with "
                "non_blocking=True.");
            QString why;
            const Link *link = measuredLink(context, false, &why);
            const double achieved = time > 0 ? double(bytes) / double(time) : 0; // GB/s
            if (!link) {
                f.noFix = QStringLiteral("the host link's bandwidth is unknown: %1").arg(why);
            } else if (bytes <= 0) {
                f.noFix = QStringLiteral("the trace records no bytes for these copies");
            } else if (achieved >= link->bwGBps * kAchieved) {
                f.noFix = QStringLiteral("they already run at %1 GB/s, near %2's %3 GB/s")
                              .arg(achieved, 0, 'f', 1)
                              .arg(link->name)
                              .arg(link->bwGBps);
            } else {
                Transform t = Transform::scale(QStringLiteral("Pageable"),
                                               achieved / (link->bwGBps * kAchieved));
                t.select.kinds = kindBit(NodeKind::Memcpy);
                f.fix = {t};
                f.notes << QStringLiteral(
                               "pinned copies at 70% of %1's %2 GB/s, against the %3 GB/s measured")
                               .arg(link->name)
                               .arg(link->bwGBps)
                               .arg(achieved, 0, 'f', 1);
            }
            f.evidence = longestNodes(g, [&](const Node &n) {
                return n.kind == NodeKind::Memcpy &&
                       g.name(n.name).contains(QLatin1String("Pageable"));
            });
            out.push_back(std::move(f));
        }
    }
}

// Small kernels.
void smallKernels(const TraceRun &r, std::vector<Finding> &out)
{
    const DependencyGraph &g = r.g;
    const Analysis &a = r.a;
    const IdleSplit &split = r.split;
    const double W = r.W;
    const std::vector<KernelStat> &names = r.a.kernels;
    const qint64 kernels = r.kernels;
    if (kernels > 0 && a.launch.shortKernels >= kShortKernelCount &&
        double(a.launch.shortKernels) >= kShortKernels * double(kernels) &&
        double(split.launch) / W >= kShortLaunchShare) {
        QStringList shortNames;
        std::vector<const KernelStat *> byCount;
        for (const auto &s : names)
            if (s.kind == NodeKind::Kernel && s.p50 < kShortKernel)
                byCount.push_back(&s);
        std::sort(byCount.begin(), byCount.end(),
                  [](auto *x, auto *y) { return x->count > y->count; });
        for (size_t k = 0; k < byCount.size() && k < 200; ++k)
            shortNames << byCount[k]->name;
        Finding f;
        f.rule = QStringLiteral("small-kernels");
        f.share = double(a.launch.shortKernelTime) / W;
        f.title = QStringLiteral("Small kernels: %1 of %2 kernels run under 10 µs")
                      .arg(a.launch.shortKernels)
                      .arg(kernels);
        f.detail = QStringLiteral(
            "Each pays a launch and a ramp-up that dwarf its work, while the GPU waits for the "
            "host to launch the next. Fuse them (torch.compile, fused optimizers, "
            "apex/transformer-engine kernels) or batch the work they do.");
        Transform t;
        t.op = QStringLiteral("fuse");
        t.model = QStringLiteral("overhead");
        t.select.name = regexOfNames(shortNames);
        t.select.kinds = kindBit(NodeKind::Kernel);
        f.fix = {t};
        f.evidence = gapEvidence(g, a, {IdleCause::Launch});
        f.notes << QStringLiteral(
                       "adjacent kernels of the %1 names with a median under 10 µs fused, each "
                       "fused "
                       "kernel saving the shortest kernel of its GPU per kernel it absorbs")
                       .arg(shortNames.size());
        out.push_back(std::move(f));
    }
}

// FP32 matrix kernels where tensor cores could run.
void fp32Matmul(const TraceRun &r, std::vector<Finding> &out)
{
    const DependencyGraph &g = r.g;
    const TimeNs compute = r.compute;
    const double W = r.W;
    const std::vector<KernelStat> &names = r.a.kernels;
    const DeviceCatalog &catalog = r.catalog;
    const WhatIfContext &context = r.context;
    {
        TimeNs fp32 = 0;
        std::vector<const KernelStat *> which;
        for (const auto &s : names) {
            if (s.kind != NodeKind::Kernel || classifyKernel(s.name) != Bound::Compute ||
                !isFp32Matmul(s.name))
                continue;
            fp32 += s.total;
            which.push_back(&s);
        }
        const Device *dev =
            context.measuredDevice.isEmpty() ? nullptr : catalog.device(context.measuredDevice);
        const bool tensorCores = !dev || dev->fp16Tflops >= 2 * dev->fp32Tflops;
        if (const double s = compute > 0 ? double(fp32) / double(compute) : 0.0;
            s >= kFp32Share && tensorCores) {
            std::sort(which.begin(), which.end(),
                      [](auto *x, auto *y) { return x->total > y->total; });
            Finding f;
            f.rule = QStringLiteral("fp32-matmul");
            f.share = double(fp32) / W;
            f.title =
                QStringLiteral("FP32 matrix kernels: %1 of GPU compute could run on tensor cores")
                    .arg(pct(s));
            QStringList top;
            for (size_t k = 0; k < which.size() && k < 3; ++k)
                top << which[k]->name.left(60);
            f.detail =
                QStringLiteral(
                    "GEMM and convolution kernels run in FP32 (%1)%2. Train with automatic "
                    "mixed "
                    "precision (torch.autocast with bfloat16 or float16) or allow TF32 "
                    "(torch.backends.cuda.matmul.allow_tf32).")
                    .arg(top.join(QStringLiteral("; ")),
                         dev ? QStringLiteral(" on a %1 with %2 FP16 TFLOP/s against %3 FP32")
                                   .arg(dev->name)
                                   .arg(dev->fp16Tflops)
                                   .arg(dev->fp32Tflops)
                             : QString());
            f.fix = {Transform::amp()};
            QSet<QString> fp32Names;
            for (const auto *w : which)
                fp32Names.insert(w->name);
            f.evidence = longestNodes(g, [&](const Node &n) {
                return n.kind == NodeKind::Kernel && fp32Names.contains(g.name(n.name));
            });
            out.push_back(std::move(f));
        }
    }
}

// GPU idle, all causes.
void gpuIdle(const TraceRun &r, std::vector<Finding> &out)
{
    const DependencyGraph &g = r.g;
    const Analysis &a = r.a;
    const TimeNs idle = r.idle;
    const IdleSplit &split = r.split;
    const double W = r.W;
    if (const double s = double(idle) / W; s >= kIdleShare) {
        Finding f;
        f.rule = QStringLiteral("gpu-idle");
        f.share = s;
        f.title = QStringLiteral("GPU idle %1 of the time").arg(pct(s));
        QStringList parts;
        for (const auto &[cause, t] :
             {std::pair{IdleCause::DataLoading, split.dataLoading},
              std::pair{IdleCause::Launch, split.launch}, std::pair{IdleCause::Sync, split.sync},
              std::pair{IdleCause::OtherStream, split.otherStream},
              std::pair{IdleCause::Gpu, split.gpu},
              std::pair{IdleCause::Unattributed, split.unattributed}})
            if (t > 0)
                parts << QStringLiteral("%1 %2").arg(idleCauseName(cause), pct(double(t) / W));
        f.detail = QStringLiteral("Idle by what ended each gap: %1 (%2 gaps).")
                       .arg(parts.join(QStringLiteral(", ")))
                       .arg(std::accumulate(
                           a.gpus.begin(), a.gpus.end(), qint64(0),
                           [](qint64 n, const GpuBreakdown &b) { return n + b.idleGaps; }));
        f.noFix = QStringLiteral(
            "its causes are priced by their own findings where they pass their thresholds");
        f.evidence = gapEvidence(g, a,
                                 {IdleCause::Launch, IdleCause::DataLoading, IdleCause::Sync,
                                  IdleCause::OtherStream, IdleCause::Gpu, IdleCause::Unattributed});
        out.push_back(std::move(f));
    }
}

} // namespace

void traceFindings(const DependencyGraph &graph, const Analysis &analysis,
                   const DeviceCatalog &catalog, const WhatIfContext &context,
                   std::vector<Finding> &out)
{
    const TraceRun run = traceRunOf(graph, analysis, catalog, context);
    inputBound(run, out);
    launchBound(run, out);
    syncStalls(run, out);
    pageableCopies(run, out);
    smallKernels(run, out);
    fp32Matmul(run, out);
    exposedCollectives(run, out);
    stragglerRank(run, out);
    slowCollectives(run, out);
    gpuIdle(run, out);
}

} // namespace gml::sim
