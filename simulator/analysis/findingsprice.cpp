// SPDX-License-Identifier: GPL-3.0-or-later
// The findings' prices: each one's what-if replayed on the run's graph, against the mean
// iteration of the measured run; then the ranking.
#include "findings.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace gml::sim {

TimeNs meanIteration(const DependencyGraph &graph, const Replay &replay)
{
    const auto its = graph.iterations();
    if (its.empty())
        return replay.makespan();
    // From the first iteration's start to the end of the last one's work, GPU work launched
    // inside the iterations included: with the host running ahead of the GPU (no sync at the
    // step's end) the host's ranges end long before their kernels do.
    const auto &cs = graph.containers();
    TimeNs from = std::numeric_limits<TimeNs>::max(), to = std::numeric_limits<TimeNs>::min();
    std::unordered_map<int, std::vector<std::pair<int, int>>> inside; // resource -> position ranges
    for (int c : its) {
        const auto [s, e] = replay.containerSpan(graph, c);
        from = std::min(from, s);
        to = std::max(to, e);
        if (cs[size_t(c)].first >= 0)
            inside[cs[size_t(c)].resource].emplace_back(graph.position(cs[size_t(c)].first),
                                                        graph.position(cs[size_t(c)].last));
    }
    const auto &nodes = graph.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
        const int l = nodes[i].launcher;
        if (l < 0 || replay.end[i] <= to)
            continue;
        const auto it = inside.find(nodes[size_t(l)].resource);
        if (it == inside.end())
            continue;
        const int pos = graph.position(l);
        for (const auto &[a, b] : it->second)
            if (pos >= a && pos <= b) {
                to = replay.end[i];
                break;
            }
    }
    return (to - from) / TimeNs(its.size());
}

void rankFindings(std::vector<Finding> &findings)
{
    std::stable_sort(findings.begin(), findings.end(), [](const Finding &x, const Finding &y) {
        if (x.priced != y.priced)
            return x.priced;
        if (x.priced && x.gain() != y.gain())
            return x.gain() > y.gain();
        return x.share > y.share;
    });
}

void priceFindings(const std::shared_ptr<const DependencyGraph> &graph, std::vector<Finding> &findings,
                   const WhatIfContext &context, const Replay *identity,
                   const std::function<bool(int done, int total)> &progress)
{
    std::optional<Replay> own;
    if (!identity) {
        own = replay(*graph, ReplayInput::measured(*graph));
        identity = &*own;
    }
    const TimeNs before = meanIteration(*graph, *identity);
    int done = 0;
    for (auto &f : findings) {
        if (!f.fix.isEmpty()) {
            QString error;
            const auto prepared = prepare(graph, f.fix, context, &error);
            if (!prepared) {
                f.priceError = error;
            } else {
                const Replay predicted = replay(*prepared->graph, prepared->input);
                f.before = before;
                f.after = meanIteration(*prepared->graph, predicted);
                f.priced = true;
                f.notes << prepared->notes;
            }
        }
        ++done;
        if (progress && !progress(done, int(findings.size())))
            break;
    }
    rankFindings(findings);
}

} // namespace gml::sim
