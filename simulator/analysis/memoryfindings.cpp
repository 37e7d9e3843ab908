// SPDX-License-Identifier: GPL-3.0-or-later
// The memory rule: memory that grows with every step (memoryreport.h's leak suspects).
#include "findingsrules.h"

#include "timeformat.h"

namespace gml::sim {

std::vector<Finding> memoryFindings(const MemoryReport &memory)
{
    std::vector<Finding> out;
    for (const DeviceMemory &d : memory.devices) {
        if (d.leakSuspects.empty() || d.iterations.size() < 3)
            continue;
        // What the middle steps kept: the growth a step that a loop in a steady state lacks.
        double kept = 0;
        qint64 count = 0;
        for (const MemoryGroup &g : d.leakSuspects) {
            kept += g.bytes;
            count += g.count;
        }
        const double perStep = kept / double(d.iterations.size() - 2);
        const MemoryGroup &top = d.leakSuspects.front();
        Finding f;
        f.rule = QStringLiteral("memory-growth");
        f.title = QStringLiteral("%1 memory grows %2 a step: allocations never freed (%3)")
                      .arg(d.device, formatBytes(perStep), top.key);
        QStringList ops;
        for (size_t i = 0; i < d.leakSuspects.size() && i < 3; ++i)
            ops << QStringLiteral("%1 (%2 in %3 allocations)")
                       .arg(d.leakSuspects[i].key, formatBytes(d.leakSuspects[i].bytes))
                       .arg(d.leakSuspects[i].count);
        f.detail = QStringLiteral(
                       "%1 allocations made in the steps between the trace's first and last "
                       "were never freed within the trace: %2. A training loop in a steady state "
                       "frees what each step allocates; memory that grows with every step runs "
                       "out on a long run (a loss or output kept across steps, a list that "
                       "grows, a tensor held by a hook). Peak allocated %3; never freed in all "
                       "%4. Detach and keep Python numbers (loss.item()) rather than tensors.")
                       .arg(count)
                       .arg(ops.join(QStringLiteral(", ")), formatBytes(d.peakAllocated),
                            formatBytes(d.neverFreedBytes));
        f.noFix = QStringLiteral("memory, not time: nothing to replay");
        for (size_t i = 0; i < d.leakSuspects.size() && f.evidence.size() < 20; ++i) {
            const MemoryAllocation &a = d.leakSuspects[i].largest;
            f.evidence.push_back(
                {QStringLiteral("%1 allocated by %2, never freed").arg(formatBytes(a.bytes), a.op),
                 d.rank, a.at, a.at, a.slice, a.track});
        }
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace gml::sim
