// SPDX-License-Identifier: GPL-3.0-or-later
// The link each collective of a report crossed, from the catalog (collectivelinks.h).
#include "collectivelinks.h"

#include "runrecords.h"
#include "transforms.h"

namespace gml::sim {

void assignLinks(CollectiveReport &report, const WhatIfContext &context)
{
    for (Collective &c : report.collectives) {
        const CollectivePath path = collectivePath(c.operation, c.groupSize, context);
        c.link = path.label();
        c.linkPeakGBps = path.peakGBps;
        c.linkAssumed = path.assumed;
    }
}

std::optional<CollectiveReport> linkedCollectives(Project &project, RunId run,
                                                  const QString &network, QString *error)
{
    auto report = collectiveReport(project, run, error);
    if (!report)
        return std::nullopt;
    WhatIfContext context;
    context.measuredDevice = WhatIfContext::deviceOf(runParams(project, run));
    context.measuredNetwork = network.isEmpty() ? WhatIfContext::networkOf(project, run) : network;
    assignLinks(*report, context);
    return report;
}

} // namespace gml::sim
