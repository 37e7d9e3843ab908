// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the files of the what-if transforms (nodeselection.cpp, transforms.cpp,
// transformformat.cpp, transformnetwork.cpp); not part of the simulator's interface.
#pragma once

#include "transforms.h"

#include <QHash>

#include <memory>
#include <optional>

namespace gml::sim::detail {

constexpr quint8 bit(NodeKind k)
{
    return quint8(1u << unsigned(k));
}

// What encloses an optimizer step's work, as PyTorch's profiler labels it.
const QString &optimizerPattern();
TimeNs scaled(TimeNs t, double f);
bool isHostCopy(const QString &name);
// The catalog entry of the run's GPU; null with the reason in `error` when it is not known.
const Device *measuredDevice(const WhatIfContext &ctx, const DeviceCatalog &cat, QString *error);

struct Structural
{
    std::shared_ptr<DependencyGraph> graph;
    QStringList notes;
};

// Inserts the all-reduce of each gradient bucket after the backward kernel that completes it,
// on a new communication stream per rank; the first kernel after backward waits for the last.
bool insertDataParallel(Structural &s, const Transform &t, const WhatIfContext &ctx,
                        const DeviceCatalog &cat, QString *error);

// transformloader.cpp: the input transform with workers > 1. A data-loading range of a CPU
// thread (the outermost, forEachDataLoadingRange) with the positions of the thread's nodes in it.
struct LoadingRange
{
    int resource = 0;
    int first = 0; // positions in the resource's order
    int last = 0;
    TimeNs start = 0;
    TimeNs end = 0;
};
std::vector<LoadingRange> loadingRanges(const DependencyGraph &g);
// Adds the workers (per loading thread, `t.workers` CPU resources), a node per batch on them
// and the edges of the queue.
bool insertLoaderWorkers(Structural &s, const Transform &t, QString *error);
// On the loading threads, the ranges' own work becomes waiting for the batch (their nodes no
// work, no gaps inside); the count changed.
qint64 waitForLoaderWorkers(const DependencyGraph &g, std::vector<TimeNs> &work,
                            std::vector<TimeNs> &slack);

bool graphHasCollectives(const DependencyGraph &g);
// `hasCollectives`: of the measured graph (graphHasCollectives), read once per prepare().
bool isStructural(const Transform &t, bool hasCollectives);

// How the collectives' network changes: each selected collective's ranks, algorithm and link
// as the Workers and Link transforms leave them, applied in one rescale from the state it was
// measured (or inserted) in, so the order of the transforms does not matter.
class NetworkChange
{
public:
    struct State
    {
        int ranks = 2;
        QString algorithm;
        double bwGBps = 0; // 0: unknown (then only the ranks and algorithm rescale)
        double latencyUs = 0;
        bool operator==(const State &o) const
        {
            return ranks == o.ranks && algorithm == o.algorithm && bwGBps == o.bwGBps &&
                   latencyUs == o.latencyUs;
        }
    };

    NetworkChange(const DependencyGraph &g, const QList<Transform> &transforms,
                  const WhatIfContext &ctx, bool hasCollectives);
    int measuredRanks() const { return m_measured.ranks; }
    void apply(const Transform &t, const NodeSelection &sel);
    // latency x steps + the bandwidth part x (bus factor and bandwidth ratios); one rank has
    // no collective at all (no work, no gap before it).
    void rescale(std::vector<TimeNs> &work, std::vector<TimeNs> &slack) const;

private:
    State initial(size_t i) const
    {
        return m_graph.nodes()[i].slice == 0 ? m_inserted : m_measured;
    }

    const DependencyGraph &m_graph;
    State m_measured, m_inserted;
    QHash<int, State> m_state;
};

// transformtiming.cpp: the transforms that change the nodes' times, not the graph, applied one
// after the other to a prepared input (its graph final). Network changes are gathered in `net`;
// the caller rescales the collectives once, after the last transform.
// What a host node is to the host-path transforms: on a thread that launches GPU work and
// neither data loading nor waiting for the GPU (the launch path), data loading (inputPattern),
// or neither.
enum class HostRole : uint8_t { None, LaunchPath, Loading };
std::optional<std::vector<HostRole>> hostRoles(const DependencyGraph &g, QString *error);

class TimingChange
{
public:
    // `explicitHostLink`: a host link transform is among the transforms (it, not a device
    // change, sets the host copies).
    TimingChange(Prepared &out, const WhatIfContext &context, const DeviceCatalog &cat,
                 NetworkChange &net, bool explicitHostLink);
    // False with *error (the reason, without the transform's description) when it cannot apply.
    bool apply(const Transform &t, QString *error);

private:
    // What a kernel's work is multiplied by, by its bound and precision.
    struct Factors
    {
        double computeFp32 = 1.0 / 3;
        double computeFp16 = 1.0 / 3;
        double memory = 0.5;
        // Device: the target is of the same vendor (the kernels' efficiency band); unset for
        // the other transforms.
        std::optional<bool> sameVendor;
    };
    // Where in the band of what the model does not know this preparation sits.
    bool banded() const { return m_context.bound != WhatIfContext::Bound::Nominal; }
    bool slow() const { return m_context.bound == WhatIfContext::Bound::High; }
    void fuse(const Transform &t, const NodeSelection &sel);
    bool rescaleWork(const Transform &t, const NodeSelection &sel, QString *error);
    bool changeDevice(const Transform &t, const NodeSelection &sel, Factors &f, QString *error);
    void noteEfficiencyBand(const Device &from, const Device &to);
    void changeLaunchCost(const Device &from, const Device &to, const NodeSelection &sel);
    void changeHostLink(const Device &from, const Device &to, const NodeSelection &sel);
    bool speedUpHost(const Transform &t, const NodeSelection &sel, QString *error);
    std::optional<qint64> speedUpHostPath(const NodeSelection &sel, double factor, QString *error);
    void unsync(const NodeSelection &sel);
    bool changeLink(const Transform &t, const NodeSelection &sel, QString *error);

    const DependencyGraph &m_g;
    const std::vector<Node> &m_nodes;
    Prepared &m_out;
    std::vector<TimeNs> &m_work;
    std::vector<TimeNs> &m_slack;
    const WhatIfContext &m_context;
    const DeviceCatalog &m_cat;
    NetworkChange &m_net;
    const bool m_explicitHostLink;
};

} // namespace gml::sim::detail
