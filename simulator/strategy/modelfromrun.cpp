// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelfromrun.h"

#include "clockalignment.h"
#include "dependencygraph.h"
#include "devicecatalog.h"
#include "project.h"
#include "runrecords.h"
#include "slicequery.h"
#include "transforms.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace gml::sim {

namespace {

enum class Phase { Forward, Backward, Optimizer };

} // namespace

namespace {

// The kernel times of a forward layer, or of backward or the optimizer in all.
struct Acc
{
    TimeNs busy = 0, compute = 0, gap = 0;
};

// The iteration a layer graph is taken from (the run's median), and what its kernels were.
struct StepKernels
{
    const DependencyGraph &g;
    const Container &step;
    const Resource &stepRes;
    QString optimizer; // its name (Adam, SGD) once phaseOf met its step

    // A kernel's phase, by the host op that launched it: the optimizer's step; forward when
    // launched within the step by its own thread outside autograd's backward functions;
    // backward otherwise (autograd's threads, gradient accumulation). Kernels launched before
    // the step are the previous iteration's tail (the GPU lags the host): nullopt.
    std::optional<Phase> phaseOf(const Node &n)
    {
        static const QRegularExpression backwardName(
            QStringLiteral("(?i)backward|evaluate_function"));
        static const QRegularExpression optimizerName(
            QStringLiteral("^Optimizer\\.(step|zero_grad)#(\\w+)"));
        if (n.launcher < 0)
            return std::nullopt;
        const Node &call = g.nodes()[size_t(n.launcher)];
        if (call.start < step.start || call.start >= step.end)
            return std::nullopt;
        bool backward = call.resource != step.resource;
        for (int c = call.container; c >= 0; c = g.containers()[size_t(c)].parent) {
            const QString name = g.name(g.containers()[size_t(c)].name);
            if (const auto m = optimizerName.match(name); m.hasMatch()) {
                optimizer = m.captured(2);
                return Phase::Optimizer;
            }
            if (backwardName.match(name).hasMatch())
                backward = true;
        }
        return backward ? Phase::Backward : Phase::Forward;
    }
    // The top-level operator that launched a kernel (its outermost container under the step).
    int operatorOf(const Node &n) const
    {
        if (n.launcher < 0)
            return -1;
        int best = -1;
        for (int c = g.nodes()[size_t(n.launcher)].container; c >= 0;
             c = g.containers()[size_t(c)].parent) {
            if (isProfilerStep(g.name(g.containers()[size_t(c)].name)))
                break;
            best = c;
        }
        return best;
    }
    // The step's kernels on its rank's GPUs, in start order; the bytes its all-reduces moved.
    std::vector<int> kernels(double &allReduceBytes);
};

std::vector<int> StepKernels::kernels(double &allReduceBytes)
{
    std::vector<int> kernels;
    const int allReduceOp = int(collectiveOperations().indexOf(QStringLiteral("AllReduce")));
    for (size_t i = 0; i < g.nodes().size(); ++i) {
        const Node &n = g.nodes()[i];
        const Resource &r = g.resources()[size_t(n.resource)];
        // The step's kernels may run after it on the host (the GPU lags): a step's length more.
        if (!r.gpu || r.source != stepRes.source || r.rank != stepRes.rank ||
            n.start < step.start || n.start >= step.end + (step.end - step.start))
            continue;
        if (n.kind == NodeKind::Collective && n.collectiveOp == allReduceOp && phaseOf(n))
            allReduceBytes += double(n.bytes); // launched within the step, not the next one's
        if (n.kind == NodeKind::Kernel)
            kernels.push_back(int(i));
    }
    std::sort(kernels.begin(), kernels.end(), [&](int a, int b) {
        return g.nodes()[size_t(a)].start < g.nodes()[size_t(b)].start;
    });
    return kernels;
}

// The batch: the first forward operator's input, else the run's params (0: not recorded).
int measuredBatch(Project &project, const DependencyGraph &g, int firstOperator,
                  const QJsonObject &runParams)
{
    int batch = 0;
    if (firstOperator >= 0)
        if (const auto details =
                sliceDetails(project, g.containers()[size_t(firstOperator)].slice)) {
            const QJsonArray dims = details->args.value(QStringLiteral("Input Dims")).toArray();
            for (const auto &d : dims)
                if (d.toArray().size() >= 2) {
                    batch = d.toArray().first().toInt();
                    break;
                }
        }
    for (const char *key : {"batch_size", "batch", "per_device_train_batch_size"})
        if (batch <= 0 && runParams.contains(QLatin1String(key)))
            batch = runParams.value(QLatin1String(key)).toVariant().toInt();
    return batch;
}

// The forward layers, each with its backward share, gaps, parameters (by its compute share) and
// FLOPs at the catalog peak.
void addLayers(LayerGraph &out, const StepKernels &s, const std::vector<Acc> &forward,
               const std::vector<int> &firstKernel, const Acc &backward, double params,
               const Device *device)
{
    const DependencyGraph &g = s.g;
    TimeNs forwardBusy = 0, computeTotal = 0;
    for (const Acc &a : forward) {
        forwardBusy += a.busy;
        computeTotal += a.compute;
    }
    const double backwardShare = forwardBusy > 0 ? double(backward.busy) / double(forwardBusy) : 2;
    for (size_t i = 0; i < forward.size(); ++i) {
        const Acc &a = forward[i];
        const Node &first = g.nodes()[size_t(firstKernel[i])];
        const int op = s.operatorOf(first);
        Layer l;
        l.kind = QStringLiteral("measured");
        l.name = QStringLiteral("%1 %2").arg(i).arg(
            op >= 0 ? g.name(g.containers()[size_t(op)].name) : g.name(first.name).left(40));
        l.forwardNs = std::max<TimeNs>(1, a.busy);
        l.backwardNs = TimeNs(std::llround(double(a.busy) * backwardShare));
        l.computeShare = a.busy > 0 ? double(a.compute) / double(a.busy) : 0;
        l.forwardGapNs = a.gap;
        l.backwardGapNs =
            forwardBusy > 0
                ? TimeNs(std::llround(double(backward.gap) * double(a.busy) / double(forwardBusy)))
                : 0;
        const double weight = computeTotal > 0 ? double(a.compute) / double(computeTotal)
                                               : double(a.busy) / double(forwardBusy);
        l.params = qint64(std::llround(params * weight));
        // Only the measured time tells the device ratio; FLOPs stand for it at the catalog peak.
        if (device)
            l.flops = double(a.compute) * device->fp32Tflops * 1e3 / out.measuredBatch;
        if (!out.layers.empty())
            l.inputs = {int(out.layers.size()) - 1};
        out.layers.push_back(l);
    }
}

} // namespace

std::optional<LayerGraph> layerGraphFromRun(Project &project, RunId run, QString *error)
{
    auto fail = [&](const QString &why) -> std::optional<LayerGraph> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    QString runName;
    QJsonObject runParams;
    {
        const auto row = runRow(project, run);
        if (!row)
            return fail(QStringLiteral("no run with id %1").arg(run));
        runName = row->name;
        runParams = row->params;
    }
    QString why;
    auto built = DependencyGraph::build(project, run, &why);
    if (!built)
        return fail(QStringLiteral("run '%1': %2").arg(runName, why));
    const DependencyGraph &g = *built;
    const auto its = g.iterations();
    if (its.empty())
        return fail(
            QStringLiteral("run '%1' has no ProfilerStep#N iterations to take a layer graph from")
                .arg(runName));
    // The median iteration.
    std::vector<int> byLength(its.begin(), its.end());
    std::sort(byLength.begin(), byLength.end(), [&](int a, int b) {
        const auto &ca = g.containers()[size_t(a)], &cb = g.containers()[size_t(b)];
        return ca.end - ca.start < cb.end - cb.start;
    });
    const Container &step = g.containers()[size_t(byLength[byLength.size() / 2])];
    const Resource &stepRes = g.resources()[size_t(step.resource)];
    StepKernels sk{g, step, stepRes, {}};
    // The step's kernels on its rank's GPUs, in start order.
    double allReduceBytes = 0;
    const std::vector<int> kernels = sk.kernels(allReduceBytes);
    if (kernels.empty())
        return fail(
            QStringLiteral(
                "run '%1' has no GPU kernels in its iteration %2 to take a layer graph from")
                .arg(runName, g.name(step.name)));
    LayerGraph out;
    out.id = QStringLiteral("run:%1").arg(runName);
    out.name = QStringLiteral("%1 (measured)").arg(runName);
    out.measuredRun = runName;
    const WhatIfContext context = WhatIfContext::forRun(g, runParams);
    const Device *device = DeviceCatalog::builtin().device(context.measuredDevice);
    out.measuredDevice = device ? device->id : QString();
    // Forward layers; backward and optimizer totals.
    Acc backward, optimizerTime;
    std::vector<Acc> forward;
    std::vector<int> firstKernel;
    bool hasCompute = false;
    TimeNs lastEnd = step.start; // the GPU idle before a kernel goes to that kernel's layer
    int firstOperator = -1;
    for (int k : kernels) {
        const Node &n = g.nodes()[size_t(k)];
        const auto detected = sk.phaseOf(n);
        if (!detected) {
            lastEnd = std::max(lastEnd, n.end);
            continue;
        }
        const Phase phase = *detected;
        const TimeNs busy = n.end - n.start;
        const bool compute = classifyKernel(g.name(n.name)) == Bound::Compute;
        const TimeNs gap = std::max<TimeNs>(0, n.start - lastEnd);
        lastEnd = std::max(lastEnd, n.end);
        if (phase == Phase::Forward) {
            if (forward.empty() || (compute && hasCompute)) {
                forward.push_back({});
                firstKernel.push_back(k);
                hasCompute = false;
            }
            forward.back().gap += gap;
            if (firstOperator < 0 && compute)
                firstOperator = sk.operatorOf(n);
            hasCompute = hasCompute || compute;
            forward.back().busy += busy;
            forward.back().compute += compute ? busy : 0;
        } else {
            Acc &a = phase == Phase::Backward ? backward : optimizerTime;
            a.busy += busy;
            a.compute += compute ? busy : 0;
            a.gap += gap;
        }
    }
    if (forward.empty())
        return fail(QStringLiteral("run '%1': no forward kernels in iteration %2 (every kernel was "
                                   "launched by a backward "
                                   "or optimizer op)")
                        .arg(runName, g.name(step.name)));
    TimeNs forwardBusy = 0;
    for (const Acc &a : forward)
        forwardBusy += a.busy;

    // The batch: the first forward operator's input, else the run's params.
    const int batch = measuredBatch(project, g, firstOperator, runParams);
    out.measuredBatch = batch > 0 ? batch : 1;
    out.defaultBatch = out.measuredBatch;
    if (batch <= 0)
        out.name +=
            QStringLiteral(" (batch size not recorded: one sample stands for one measured batch)");
    out.measuredUpdateNs = optimizerTime.busy + optimizerTime.gap;
    out.optimizer = sk.optimizer.contains(QLatin1String("adam"), Qt::CaseInsensitive)
                        ? QStringLiteral("adam")
                        : QStringLiteral("sgd");
    // Parameters: the gradients all-reduced, else what the optimizer's memory traffic implies.
    double params = allReduceBytes / 4;
    QString paramsFrom = QStringLiteral("its gradient all-reduces");
    if (params <= 0 && optimizerTime.busy > 0 && device) {
        params = double(optimizerTime.busy) * device->memBwGBps * 0.8 / out.updateBytesPerParam();
        paramsFrom = QStringLiteral("its optimizer kernels' time");
    }
    const double backwardShare = forwardBusy > 0 ? double(backward.busy) / double(forwardBusy) : 2;
    addLayers(out, sk, forward, firstKernel, backward, params, device);
    // Input: the step's host-to-device copies per sample; no decoding modelled (it was the
    // host's, outside the GPU's timeline).
    double copied = 0;
    for (const Node &n : g.nodes()) {
        const Resource &r = g.resources()[size_t(n.resource)];
        if (r.gpu && r.source == stepRes.source && r.rank == stepRes.rank &&
            n.kind == NodeKind::Memcpy && n.start >= step.start && n.start < step.end &&
            g.name(n.name).contains(QLatin1String("HtoD")))
            copied += double(n.bytes);
    }
    out.inputBytes = copied / out.measuredBatch;
    out.sampleBytes = out.inputBytes;
    out.preprocessNs = 0;
    out.epochSamples = qint64(out.measuredBatch) * 1000;
    out.reference =
        QStringLiteral(
            "%1 layers from %2 of run '%3' on %4, batch %5; %6 M parameters from %7; backward %8x "
            "the forward kernel time")
            .arg(out.layers.size())
            .arg(g.name(step.name), runName,
                 out.measuredDevice.isEmpty() ? QStringLiteral("an unknown GPU")
                                              : out.measuredDevice)
            .arg(out.measuredBatch)
            .arg(params / 1e6, 0, 'f', 2)
            .arg(params > 0 ? paramsFrom
                            : QStringLiteral("nothing (no all-reduce or optimizer kernels found)"))
            .arg(backwardShare, 0, 'f', 2);
    return out;
}

} // namespace gml::sim
