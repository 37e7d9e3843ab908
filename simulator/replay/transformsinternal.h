// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the files of the what-if transforms (nodeselection.cpp, transforms.cpp,
// transformformat.cpp, transformnetwork.cpp and the kinds in transforms/); not part of the
// simulator's interface.
#pragma once

#include "transforms.h"

#include <QHash>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

namespace gml::sim::detail {

class TransformKind;

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

bool graphHasCollectives(const DependencyGraph &g);

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
        // The link's rate and latency a link transform set (the peer link's within a node,
        // a NIC's across); 0 and < 0: the path's at these ranks (collectivePath).
        double bwGBps = 0;
        double latencyUs = -1;
        bool operator==(const State &o) const
        {
            return ranks == o.ranks && algorithm == o.algorithm && bwGBps == o.bwGBps &&
                   latencyUs == o.latencyUs;
        }
    };

    // `kinds`: of each of `transforms` (transformKind()).
    NetworkChange(const DependencyGraph &g, const QList<Transform> &transforms,
                  const std::vector<const TransformKind *> &kinds, const WhatIfContext &ctx,
                  bool hasCollectives);
    int measuredRanks() const { return m_measured.ranks; }
    // `change` applied to the state of each selected collective.
    void apply(const NodeSelection &sel, const std::function<void(State &)> &change);
    // latency x steps + the bandwidth part x (bus factor and peak bus bandwidth ratios, the
    // peaks collectivePath's); one rank has no collective at all (no work, no gap before it).
    // A path whose rate is not known rescales by the ranks and algorithm alone.
    void rescale(std::vector<TimeNs> &work, std::vector<TimeNs> &slack) const;

private:
    State initial(size_t i) const
    {
        return m_graph.nodes()[i].slice == 0 ? m_inserted : m_measured;
    }

    // The bus bandwidth peak and latency of `op` in state `s` (0: not known), looked up in the
    // catalog once per operation and state: a run's collectives share a handful of both.
    std::pair<double, double> path(int op, const State &s) const;

    const DependencyGraph &m_graph;
    const WhatIfContext &m_context;
    State m_measured, m_inserted;
    QHash<int, State> m_state;
    mutable std::map<std::tuple<int, int, double, double>, std::pair<double, double>> m_paths;
};

// What a host node is to the host-path transforms: on a thread that launches GPU work and
// neither data loading nor waiting for the GPU (the launch path), data loading (inputPattern),
// or neither.
enum class HostRole : uint8_t { None, LaunchPath, Loading };
std::optional<std::vector<HostRole>> hostRoles(const DependencyGraph &g, QString *error);

} // namespace gml::sim::detail
