// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The rules that read a run's trace (findingsrules.cpp), for findFindings (findings.cpp), which
// adds the rules of monitoring logs. Internal to the analysis room.

#include "findings.h"

#include <QRegularExpression>
#include <QString>

#include <vector>

namespace gml::sim {

// A share as the findings write it: "12%", "3.5%" under a tenth.
inline QString pct(double f)
{
    return QStringLiteral("%1%").arg(f * 100, 0, 'f', f < 0.1 ? 1 : 0);
}

constexpr quint8 kindBit(NodeKind k)
{
    return quint8(1u << unsigned(k));
}

// A regex matching exactly one of `names`.
inline QString regexOfNames(const QStringList &names)
{
    QStringList escaped;
    for (const auto &n : names)
        escaped << QRegularExpression::escape(n);
    return QStringLiteral("^(?:%1)$").arg(escaped.join(QLatin1Char('|')));
}

// The run as the trace rules read it: its graph and analysis, and the GPU time summed over its
// GPUs (window, idle and its causes, compute, exposed communication), with the kernel count.
struct TraceRun
{
    const DependencyGraph &g;
    const Analysis &a;
    const DeviceCatalog &catalog;
    const WhatIfContext &context;
    TimeNs window = 0, idle = 0, compute = 0, exposed = 0;
    IdleSplit split;
    double W = 1; // the window as a divisor (at least 1 ns)
    qint64 kernels = 0;
};

// The rules of several ranks (findingsranks.cpp): collectives not overlapped with compute, a
// straggler rank.
void exposedCollectives(const TraceRun &run, std::vector<Finding> &out);
void stragglerRank(const TraceRun &run, std::vector<Finding> &out);
// Collectives whose bus bandwidth is under half their link's peak.
void slowCollectives(const TraceRun &run, std::vector<Finding> &out);

// Each trace rule in turn (input-bound, launch-bound, synchronisation stalls, pageable copies,
// small kernels, FP32 matrix kernels, exposed collectives, a straggler rank, GPU idle), their
// findings appended to `out`. `analysis` has at least one GPU.
void traceFindings(const DependencyGraph &graph, const Analysis &analysis,
                   const DeviceCatalog &catalog, const WhatIfContext &context,
                   std::vector<Finding> &out);

// Memory that grows with every step, per device (memoryreport.h's leak suspects); no fix to
// price: memory, not time.
std::vector<Finding> memoryFindings(const MemoryReport &memory);

// Matrix work (matmuls, convolutions, attention) far from the GPU's peak, from the roofline:
// priced as those ops' kernels reaching 60% of it; latency-bound ones named apart.
std::vector<Finding> rooflineFindings(const Roofline &roofline);

} // namespace gml::sim
