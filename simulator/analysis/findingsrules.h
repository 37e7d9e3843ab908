// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The rules that read a run's trace (findingsrules.cpp), for findFindings (findings.cpp), which
// adds the rules of monitoring logs. Internal to the analysis room.

#include "findings.h"

#include <QString>

#include <vector>

namespace gml::sim {

// A share as the findings write it: "12%", "3.5%" under a tenth.
inline QString pct(double f)
{
    return QStringLiteral("%1%").arg(f * 100, 0, 'f', f < 0.1 ? 1 : 0);
}

// Each trace rule in turn (input-bound, launch-bound, synchronisation stalls, pageable copies,
// small kernels, FP32 matrix kernels, exposed collectives, a straggler rank, GPU idle), their
// findings appended to `out`. `analysis` has at least one GPU.
void traceFindings(const DependencyGraph &graph, const Analysis &analysis,
                   const DeviceCatalog &catalog, const WhatIfContext &context,
                   std::vector<Finding> &out);

// Memory that grows with every step, per device (memoryreport.h's leak suspects); no fix to
// price: memory, not time.
std::vector<Finding> memoryFindings(const MemoryReport &memory);

} // namespace gml::sim
