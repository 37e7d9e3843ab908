// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "replay.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace gml::sim {

class DeviceCatalog;
struct Device;
struct Link;

// Which nodes a transform touches. Every set criterion must hold; an empty selector selects
// every node the transform applies to.
struct Selector
{
    QString name;   // regex on the slice name
    QString track;  // regex on the resource (thread or stream) name
    QString within; // regex on an enclosing slice (an annotation, a layer, ProfilerStep#3); GPU
                    // work is within what encloses the call that launched it
    quint8 kinds = 0; // bit (1 << NodeKind); 0: any
    int rank = -1;
    std::optional<TimeNs> from; // measured start, relative to the run's first node
    std::optional<TimeNs> to;

    bool isEmpty() const;
    QJsonObject toJson() const;
    static std::optional<Selector> fromJson(const QJsonObject &o, QString *error);
    QString describe() const;
};

// One change to a run. Scenarios are lists of these, stored as JSON in the project.
struct Transform
{
    enum class Op {
        Scale,    // work x factor (0 removes the work and the gap before it)
        Remove,   // no work, no gap
        SetDuration, // work = duration
        Insert,   // a new slice of `duration` named `name` after each selected one, same resource
        Fuse,     // runs of adjacent selected nodes on a resource become one: the first gets the
                  // summed work (or `duration`), the others and their launch calls vanish
        Device,   // run on catalog device `target` instead of the measured one
        Amp,      // mixed precision: compute-bound kernels / 3, memory-bound / 2 (Daydream)
        Compute,  // compute-bound kernels `factor` times faster (a sustained-FLOP/s slider)
        Memory,   // memory-bound kernels, memsets and device copies `factor` times faster
        Input,    // data loading `factor` times faster (0: free)
        Link,     // `link` "network" (collectives) or "host" (host<->device copies): new
                  // bandwidth and/or latency
        Workers,  // N-way data parallel: a run with collectives has them rescaled by the ring
                  // factor; one without gets an all-reduce per gradient bucket after the
                  // backward kernel that completes it, over the measured network link
    };
    Op op = Op::Scale;
    Selector select;
    double factor = 1;
    TimeNs duration = 0;
    QString name;   // Insert: the new slices' name
    QString target; // Device: catalog id
    QString link = QStringLiteral("network");
    double bandwidthGBps = 0; // Link: 0 keeps the measured link's
    double latencyUs = -1;    // Link: < 0 keeps the measured link's
    int workers = 1;
    double gradMB = 0;        // Workers: gradient size (0: estimated from the optimizer)
    double bucketMB = 25;     // Workers: DDP's bucket size

    QJsonObject toJson() const;
    static std::optional<Transform> fromJson(const QJsonObject &o, QString *error);
    QString describe() const;

    static Transform scale(QString regex, double factor);
    static Transform amp();
    static Transform fusedAdam();
    static Transform input(double speedup);
    static Transform device(QString id);
    static Transform network(double gbps, double latencyUs = -1);
    static Transform dataParallel(int n);
};

QJsonArray transformsToJson(const QList<Transform> &transforms);
std::optional<QList<Transform>> transformsFromJson(const QJsonArray &a, QString *error);

// "REGEX=FACTOR" (the last '=' separates them); nullopt with the reason in `error`.
std::optional<Transform> parseScale(const QString &text, QString *error);
// A named preset: amp, fusedadam, input=N (N times faster), input=free, nvlink, ...
std::optional<Transform> parsePreset(const QString &text, QString *error);
QStringList presetNames();

// What the transforms need to know of the measured run.
struct WhatIfContext
{
    const DeviceCatalog *catalog = nullptr; // builtin() when null
    QString measuredDevice; // the run's GPU model as recorded (deviceProperties)
    QString measuredNetwork; // link id the collectives ran over; empty: the device's peer link
    int measuredWorkers = 1; // ranks in the run
    // The GPU model (run params gpu_models) and the ranks of a measured run.
    static WhatIfContext forRun(const DependencyGraph &graph, const QJsonObject &runParams);
};

// The link collectives (network true) or host copies ran over when measured: the context's
// measuredNetwork, else the catalog's peer or host link of the measured GPU; null with the
// reason in `error` when the GPU is not known.
const Link *measuredLink(const WhatIfContext &context, bool network, QString *error);

// The graph and inputs a scenario replays: the measured graph itself, or a copy with the
// nodes that structural transforms added (Insert, Workers on a run without collectives).
struct Prepared
{
    std::shared_ptr<const DependencyGraph> graph;
    ReplayInput input;
    QStringList notes; // what the model assumed ("gradients 97.7 MB in 4 buckets, estimated ...")
};

// Applies `transforms` in order. `structureCache` (optional) holds the last structural copy,
// reused while the structural transforms are unchanged (a slider that only scales).
struct StructureCache
{
    QByteArray key;
    std::shared_ptr<const DependencyGraph> graph;
    QStringList notes;
};
std::optional<Prepared> prepare(const std::shared_ptr<const DependencyGraph> &graph,
                                const QList<Transform> &transforms, const WhatIfContext &context,
                                QString *error, StructureCache *structureCache = nullptr);

// Ring collectives move this many times the message over each link (NCCL's bus factor):
// all-reduce 2(n-1)/n, all-gather / reduce-scatter / all-to-all (n-1)/n, broadcast/reduce 1.
double ringFactor(const QString &operation, int n);
// latency x steps + factor x bytes / bandwidth.
TimeNs collectiveTime(const QString &operation, qint64 bytes, int n, double bwGBps, double latencyUs);

} // namespace gml::sim
