// SPDX-License-Identifier: GPL-3.0-or-later
// The findings' prices: each one's what-if replayed on the run's graph, against the mean
// steady iteration of the measured run (its warm-up left out); then the ranking.
#include "findings.h"

#include <algorithm>

namespace gml::sim {

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

void priceFindings(const std::shared_ptr<const DependencyGraph> &graph,
                   std::vector<Finding> &findings, const WhatIfContext &context,
                   const Replay *identity, const std::function<bool(int done, int total)> &progress)
{
    std::optional<Replay> own;
    if (!identity) {
        own = replay(*graph, ReplayInput::measured(*graph));
        identity = &*own;
    }
    // Against the steady iterations, as the step time: the measured run's warm-up is left out
    // of the mean before and after (a fix does not change which steps are warm-up).
    const int warmup = measuredIterations(*graph).warmup();
    const TimeNs before = steadyIteration(*graph, *identity, warmup);
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
                f.after = steadyIteration(*prepared->graph, predicted, warmup);
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
