// SPDX-License-Identifier: GPL-3.0-or-later
// The link each collective of a report crossed, from the catalog (collectivelinks.h).
#include "collectivelinks.h"

#include "devicecatalog.h"
#include "runrecords.h"
#include "transforms.h"

namespace gml::sim {

const Link *collectiveLink(int ranks, const DeviceCatalog &cat, const WhatIfContext &context)
{
    QString id = context.measuredNetwork;
    if (ranks <= kRanksPerNode) {
        const Device *device =
            context.measuredDevice.isEmpty() ? nullptr : cat.device(context.measuredDevice);
        id = device ? device->peerLink : QString();
    }
    return id.isEmpty() ? nullptr : cat.link(id);
}

void assignLinks(CollectiveReport &report, const DeviceCatalog &cat, const WhatIfContext &context)
{
    for (Collective &c : report.collectives) {
        const Link *link = collectiveLink(c.groupSize, cat, context);
        c.link = link                           ? link->id
                 : c.groupSize <= kRanksPerNode ? QStringLiteral("peer link")
                                                : QStringLiteral("network");
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
