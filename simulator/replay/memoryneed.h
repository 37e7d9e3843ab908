// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How much GPU memory a what-if scenario needs, and whether the GPU it runs on has it, from the
// run's memory report (model/analysis/memoryreport.h). Mixed precision (Amp) stores what was live
// at the peak, the activations, in 16 bits: x0.5, up to x0.75 for what autocast keeps in FP32
// (softmax, losses, norms' statistics) and the FP16 weight copies it caches; a run whose costed
// ops are already in half precision keeps its memory. A device change keeps the need and
// checks it against the target's memory (its datasheet GB, as GiB of HBM). Where the build
// records no Total Reserved, the caching allocator's reserve over what is allocated is an
// unknown (up to +25%); without Total Allocated, memory allocated before the trace (weights,
// optimizer state) is not in the figure, and the report says so.

#include "memoryreport.h"
#include "transforms.h"

#include <QJsonObject>
#include <QStringList>

#include <vector>

namespace gml::sim {

class DependencyGraph;

struct MemoryNeed
{
    QString device;      // "GPU 0", with its rank
    double measured = 0; // bytes: the peak reserved where recorded, else allocated
    bool reservedRecorded = false;
    double predicted = 0, low = 0, high = 0; // bytes the scenario needs, and its band
    QString target;      // the catalog GPU of a device change (empty: none, or unknown)
    double capacity = 0; // its memory in bytes (0: unknown)
    QStringList notes;
    // "fits", "may not fit" (the band's top does not), "does not fit"; empty: capacity unknown.
    QString verdict() const;
    QJsonObject toJson() const;
    QString toText() const;
};

// One per GPU of the report (CPU memory is left out).
std::vector<MemoryNeed> memoryNeed(const MemoryReport &memory, const DependencyGraph &graph,
                                   const QList<Transform> &transforms,
                                   const WhatIfContext &context);

} // namespace gml::sim
