// SPDX-License-Identifier: GPL-3.0-or-later
// The link each collective of a report crossed, from the catalog (collectivelinks.h).
#include "collectivelinks.h"

#include "devicecatalog.h"
#include "runrecords.h"
#include "transforms.h"

namespace gml::sim {

void assignLinks(CollectiveReport &report, const DeviceCatalog &cat, const WhatIfContext &context)
{
    const Device *device =
        context.measuredDevice.isEmpty() ? nullptr : cat.device(context.measuredDevice);
    for (Collective &c : report.collectives) {
        const bool inside = c.groupSize <= kRanksPerNode;
        const QString id =
            inside ? (device ? device->peerLink : QString()) : context.measuredNetwork;
        const Link *link = id.isEmpty() ? nullptr : cat.link(id);
        c.link = link ? link->id : inside ? QStringLiteral("peer link") : QStringLiteral("network");
        c.linkPeakGBps = link ? link->bwGBps : 0;
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
    context.measuredNetwork = network;
    assignLinks(*report, DeviceCatalog::builtin(), context);
    return report;
}

} // namespace gml::sim
