// SPDX-License-Identifier: GPL-3.0-or-later
// One what-if transform is one TransformKind: it reads and writes its JSON keys, describes
// itself, says which nodes it selects, builds what it adds to the graph (a structural
// transform) and changes the nodes' times. Each kind lives in a file of its own in this folder
// and is listed once in registry.cpp; prepare() (transforms.cpp), the JSON format
// (transformformat.cpp), the CLI and the What-if panel find it there by its op name.
#pragma once

#include "devicecatalog.h"
#include "transformsinternal.h"

#include <QJsonObject>

#include <vector>

namespace gml {
class JsonFields;
} // namespace gml

namespace gml::sim::detail {

// The limits of what a transform may ask for: beyond them a prediction means nothing, and the
// arithmetic of the replay could overflow.
namespace limits {
constexpr double kMaxFactor = 1e6;        // a million times slower (scale, host, input: 0 is free)
constexpr double kMinRate = 1e-6;         // the least speed-up, bandwidth or bucket size (not 0)
constexpr double kMaxBandwidthGBps = 1e6; // 1 PB/s
constexpr double kMaxLatencyUs = 1e9;     // 1,000 s
constexpr qint64 kMaxWorkers = 1'000'000;
constexpr double kMaxMB = 1e9; // 1 PB of gradients or buckets
constexpr double kMaxFlops = 1e24;
constexpr double kMaxBytes = 1e18;
constexpr qint64 kMaxPriority = 1'000'000;
} // namespace limits

// What a kind's structural step works on: the copy of the measured graph being built.
struct StructureStep
{
    Structural &s;
    const DependencyGraph &measured;
    const QList<Transform> &transforms; // all of the scenario's, in order
    const WhatIfContext &context;
    const DeviceCatalog &cat;
};

// What a kind's timing step works on: the prepared input of the scenario, its graph final.
// Network changes are gathered in `net` and rescaled once, after the last transform.
struct TimingStep
{
    TimingStep(Prepared &out, const WhatIfContext &context, const DeviceCatalog &cat,
               NetworkChange &net, bool explicitHostLink);

    const DependencyGraph &g;
    const std::vector<Node> &nodes;
    Prepared &out;
    std::vector<TimeNs> &work;
    std::vector<TimeNs> &slack;
    const WhatIfContext &context;
    const DeviceCatalog &cat;
    NetworkChange &net;
    // A host link transform is among the transforms: it, not a device change, sets the host
    // copies.
    const bool explicitHostLink;

    // The unknown `key`'s value in this preparation (WhatIfContext::vary); records the key
    // among the preparation's unknowns.
    double vary(const QString &key, double low, double nominal, double high)
    {
        return out.vary(context, key, low, nominal, high);
    }
    // A factor of nominal 1 in the range `r` (devicecatalog.h).
    double vary(const QString &key, Range r) { return vary(key, r.low, 1.0, r.high); }
};

class TransformKind
{
public:
    virtual ~TransformKind() = default;
    // Its "op" in JSON.
    virtual QString op() const = 0;
    // The JSON keys it reads besides op and select.
    virtual std::vector<const char *> keys() const { return {}; }
    // Reads its keys (each checked for type and range by `f`) into `t`.
    virtual void read(JsonFields &f, Transform &t) const
    {
        Q_UNUSED(f);
        Q_UNUSED(t);
    }
    // Why `t`'s values do not go together (empty: they do); after read().
    virtual QString invalid(const Transform &t) const
    {
        Q_UNUSED(t);
        return {};
    }
    virtual void write(const Transform &t, QJsonObject &o) const
    {
        Q_UNUSED(t);
        Q_UNUSED(o);
    }
    // `sel`: the selector described, with a leading space, or empty.
    virtual QString describe(const Transform &t, const QString &sel) const = 0;
    // The node kinds (bits 1 << NodeKind) it selects unless its selector names them.
    virtual quint8 nodeKinds(const Transform &t) const
    {
        Q_UNUSED(t);
        return 0xff;
    }
    // The selector it applies with (the input transform: data loading unless told otherwise).
    virtual Selector selector(const Transform &t) const { return t.select; }
    // It adds nodes or edges to the graph (of the measured graph: `hasCollectives`).
    virtual bool structural(const Transform &t, bool hasCollectives) const
    {
        Q_UNUSED(t);
        Q_UNUSED(hasCollectives);
        return false;
    }
    // The ranks and algorithm of the collectives it inserts (a structural data-parallel
    // change), from the measured ones; nullopt: it inserts none.
    virtual std::optional<NetworkChange::State>
    insertedCollectives(const Transform &t, const NetworkChange::State &measured) const
    {
        Q_UNUSED(t);
        Q_UNUSED(measured);
        return std::nullopt;
    }
    // Adds its nodes and edges (structural() true); false with *error when it cannot.
    virtual bool build(StructureStep &step, const Transform &t, QString *error) const
    {
        Q_UNUSED(step);
        Q_UNUSED(t);
        Q_UNUSED(error);
        return true;
    }
    // After build() (structural() true), in the timing pass: what the change leaves to the
    // nodes' times (data loading moved to workers leaves its ranges waiting for their batches).
    // No node selection is made for it.
    virtual void afterBuild(TimingStep &step, const Transform &t) const
    {
        Q_UNUSED(step);
        Q_UNUSED(t);
    }
    // Not structural: changes the times of the nodes `sel` picks; false with *error (the
    // reason, without the transform's description) when it cannot apply. A kind that is always
    // structural (insert) keeps this default.
    virtual bool changeTimes(TimingStep &step, const Transform &t, const NodeSelection &sel,
                             QString *error) const
    {
        Q_UNUSED(step);
        Q_UNUSED(t);
        Q_UNUSED(sel);
        Q_UNUSED(error);
        return true;
    }
};

// Every kind, in the order of the reference (docs/whatif.md).
const std::vector<const TransformKind *> &transformKinds();
// The kind of an op; null when none has it.
const TransformKind *transformKind(const QString &op);

// Shared by the kinds that change kernels' times by their bound (kernelrates.cpp): what a
// kernel's work is multiplied by, by its bound and precision.
struct KernelFactors
{
    double computeFp32 = 1.0 / 3;
    double computeFp16 = 1.0 / 3;
    double memory = 0.5;
    bool allHalf = false; // every compute-bound kernel at the fp16 factor (mixed precision)
    // A device change: the target is of the same vendor (the kernels' efficiency band); unset
    // for the other transforms.
    std::optional<bool> sameVendor;
    // A device change: each kernel's time is the target's floor plus the part of its measured
    // time above the source's floor at the factor (kernel_floor_us, devices.json); 0: no floor.
    TimeNs floorFrom = 0;
    TimeNs floorTo = 0;
};
// Each selected measured kernel, memset and device copy by the factor of its bound; copies
// over the host link are left to the link. With floors, a kernel is its part above the source's
// floor scaled, plus the target's floor; returns how many kernels the floor decides (more than
// half of their new time) and their new time.
struct FloorShare
{
    qint64 kernels = 0, decided = 0;
    TimeNs decidedTime = 0, kernelTime = 0;
};
FloorShare rescaleKernels(TimingStep &step, const NodeSelection &sel, const KernelFactors &f);

// The kinds whose one key is `factor`, from minFactor() to limits::kMaxFactor (scale, host;
// compute and memory below).
class FactorTransform : public TransformKind
{
public:
    std::vector<const char *> keys() const override { return {"factor"}; }
    void read(JsonFields &f, Transform &t) const override;
    void write(const Transform &t, QJsonObject &o) const override;

protected:
    virtual double minFactor() const { return 0; } // 0: free (scale: removed)
};

// compute and memory: the kernels of one bound `factor` times faster (kernelrates.cpp); a
// speed-up, so a factor of 0 (infinitely fast) is refused.
class KernelRateTransform : public FactorTransform
{
public:
    bool changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                     QString *error) const override;

protected:
    double minFactor() const override { return limits::kMinRate; }
    // The factors of a speed-up of `x` (the work times 1/x) of its bound.
    virtual KernelFactors factors(double x) const = 0;
};

// host.cpp: the host's launch path `factor` times faster (0: free): on the threads that
// launch GPU work, the work and the gap before it of what `sel` picks, less data loading and
// what waits for the GPU (hostRoles). The count changed; nullopt with *error on a bad pattern.
std::optional<qint64> speedUpHostPath(TimingStep &step, const NodeSelection &sel, double factor,
                                      QString *error);

} // namespace gml::sim::detail
