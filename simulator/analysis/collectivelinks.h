// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "collectives.h"

namespace gml::sim {

struct WhatIfContext;

// Each collective's link and peak bus bandwidth (collectivePath, transforms.h: the link the
// context names, else the GPU's peer link within a node and its reference server's network
// across nodes, marked assumed).
void assignLinks(CollectiveReport &report, const WhatIfContext &context);

// The report of `run` (collectiveReport) with its links: the GPU the run's params name, the
// network `network` names (a catalog link id; empty: the run's tag "network", else the GPU's
// reference server's). What `grademl collectives`
// and the studio's Collectives pane show.
std::optional<CollectiveReport> linkedCollectives(Project &project, RunId run,
                                                  const QString &network, QString *error);

} // namespace gml::sim
