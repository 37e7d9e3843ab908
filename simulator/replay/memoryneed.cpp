// SPDX-License-Identifier: GPL-3.0-or-later
#include "memoryneed.h"

#include "dependencygraph.h"
#include "devicecatalog.h"
#include "timeformat.h"

#include <algorithm>

namespace gml::sim {

namespace {

// Whether most of the costed ops' bytes are already moved in half precision (AMP changes
// nothing then).
bool alreadyHalf(const DependencyGraph &g)
{
    double half = 0, all = 0;
    for (const CostedOp &o : g.opCosts()) {
        if (!o.known)
            continue;
        all += o.bytes;
        if (o.half)
            half += o.bytes;
    }
    return all > 0 && half > 0.5 * all;
}

} // namespace

QString MemoryNeed::verdict() const
{
    if (capacity <= 0)
        return {};
    return predicted > capacity ? QStringLiteral("does not fit")
           : high > capacity    ? QStringLiteral("may not fit")
                                : QStringLiteral("fits");
}

QJsonObject MemoryNeed::toJson() const
{
    QJsonObject o{{QStringLiteral("device"), device},
                  {QStringLiteral("measured_bytes"), measured},
                  {QStringLiteral("measured_is_reserved"), reservedRecorded},
                  {QStringLiteral("predicted_bytes"), predicted},
                  {QStringLiteral("predicted_low_bytes"), low},
                  {QStringLiteral("predicted_high_bytes"), high},
                  {QStringLiteral("notes"), QJsonArray::fromStringList(notes)}};
    o.insert(QStringLiteral("target"), target.isEmpty() ? QJsonValue() : QJsonValue(target));
    o.insert(QStringLiteral("capacity_bytes"), capacity > 0 ? QJsonValue(capacity) : QJsonValue());
    o.insert(QStringLiteral("fits"), verdict().isEmpty() ? QJsonValue() : QJsonValue(verdict()));
    return o;
}

QString MemoryNeed::toText() const
{
    QString s =
        QStringLiteral("memory %1: measured peak %2 %3; predicted %4")
            .arg(device, formatBytes(measured),
                 reservedRecorded ? QStringLiteral("reserved") : QStringLiteral("allocated"),
                 formatBytes(predicted));
    if (high > low)
        s += QStringLiteral(" (band %1 to %2)").arg(formatBytes(low), formatBytes(high));
    if (capacity > 0)
        s += QStringLiteral(" of %1 on %2: %3").arg(formatBytes(capacity), target, verdict());
    return s;
}

std::vector<MemoryNeed> memoryNeed(const MemoryReport &memory, const DependencyGraph &graph,
                                   const QList<Transform> &transforms, const WhatIfContext &context)
{
    const DeviceCatalog &catalog = context.catalog ? *context.catalog : DeviceCatalog::builtin();
    // Capacity is checked on a device change only: the measured run fit on its own GPU, whose
    // exact part (an A100 of 40 or 80 GB) the catalog may not tell.
    const Device *target = catalog.device(targetDevice(transforms));
    const bool amp = std::any_of(transforms.begin(), transforms.end(),
                                 [](const Transform &t) { return t.is("amp"); });
    const bool half = amp && alreadyHalf(graph);
    std::vector<MemoryNeed> out;
    for (const DeviceMemory &d : memory.devices) {
        if (!d.isGpu())
            continue;
        MemoryNeed n;
        n.device =
            d.rank >= 0 ? QStringLiteral("%1 of rank %2").arg(d.device).arg(d.rank) : d.device;
        n.reservedRecorded = d.peakReserved.has_value();
        n.measured = d.peakReserved.value_or(d.peakAllocated);
        // What was live at the peak, allocated within the trace: the activations and the
        // gradients being made; the rest (weights, optimizer state) was there before.
        double live = 0;
        for (const MemoryGroup &g : d.liveAtPeak)
            live += g.bytes;
        const double rest = std::max(0.0, d.peakAllocated - live);
        double lowFactor = 1, nominalFactor = 1, highFactor = 1;
        if (amp && !half) {
            lowFactor = nominalFactor = 0.5;
            highFactor = 0.75;
            n.notes << QStringLiteral("mixed precision: the %1 live at the peak stored in 16 bits "
                                      "(x0.5, up to x0.75 for what autocast keeps in FP32 and "
                                      "the FP16 weight copies it caches)")
                           .arg(formatBytes(live));
        } else if (amp) {
            n.notes << QStringLiteral("mixed precision: the run's costed ops are already in half "
                                      "precision; its memory is kept");
        }
        const double allocated[3] = {rest + live * lowFactor, rest + live * nominalFactor,
                                     rest + live * highFactor};
        // The allocator's reserve over the allocated: the measured ratio where recorded.
        const double reserve =
            n.reservedRecorded && d.peakAllocated > 0 ? *d.peakReserved / d.peakAllocated : 1.0;
        n.low = allocated[0] * reserve;
        n.predicted = allocated[1] * reserve;
        n.high = allocated[2] * (n.reservedRecorded ? reserve : 1.25);
        if (!n.reservedRecorded)
            n.notes << QStringLiteral("this build records no Total Reserved: the caching "
                                      "allocator's reserve over what is allocated is unknown "
                                      "(up to +25% in the band)");
        if (!d.totalsRecorded)
            n.notes << QStringLiteral("this build records no Total Allocated: memory allocated "
                                      "before the trace started (weights, optimizer state) is "
                                      "not in these figures");
        if (target && target->memGB > 0) {
            n.target = target->id;
            n.capacity = target->memGB * double(1 << 30);
        }
        out.push_back(std::move(n));
    }
    return out;
}

} // namespace gml::sim
