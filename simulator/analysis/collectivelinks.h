// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "collectives.h"

namespace gml::sim {

class DeviceCatalog;
struct Link;
struct WhatIfContext;

// The link each collective crossed and its peak (per direction, the catalog's): a group of at
// most kRanksPerNode ranks stays inside one node, on the measured GPU's peer link (NVLink,
// Infinity Fabric); a wider one crosses the network, the link the run says it measured
// (WhatIfContext::measuredNetwork), else "network" with no peak. A trace does not record its
// host, so the node's size is the common 8-GPU server's, a judgement.
inline constexpr int kRanksPerNode = 8;
// The catalog link a collective of `ranks` ranks crossed (the rule above); null when the
// measured GPU or the network is not known.
const Link *collectiveLink(int ranks, const DeviceCatalog &cat, const WhatIfContext &context);
void assignLinks(CollectiveReport &report, const DeviceCatalog &cat, const WhatIfContext &context);

// The report of `run` (collectiveReport) with its links: the GPU the run's params name, the
// network `network` names (a catalog link id; empty: not known). What `grademl collectives`
// and the studio's Collectives pane show.
std::optional<CollectiveReport> linkedCollectives(Project &project, RunId run,
                                                  const QString &network, QString *error);

} // namespace gml::sim
