// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dependencygraph.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <map>

namespace gml::sim {

class DeviceCatalog;

// How close to the hardware each operator ran (Nsight Compute's and TraceLens's roofline): per
// operator name, its costed calls' FLOPs and bytes (opcost.h, from recorded shapes), the GPU
// time of the kernels they launched, the achieved TFLOP/s and GB/s, the arithmetic intensity,
// and what bounds it against the catalog's peaks for the run's GPU at the op's precision:
//   latency  its ideal time on the roofline is under kLatencyNs a call (too little work to fill
//            the GPU: a kernel's fixed cost dominates);
//   compute  intensity at or above the ridge (peak FLOP/s / peak bandwidth);
//   memory   below it.
constexpr TimeNs kLatencyNs = 5'000;

struct RooflineOp
{
    QString name;
    QString opClass; // matmul, convolution, attention, normalization, ...
    qint64 calls = 0;
    qint64 kernels = 0;
    TimeNs time = 0; // GPU time of the kernels its calls launched
    double flops = 0;
    double bytes = 0;
    bool half = false;         // 16-bit or narrower: the fp16 peak applies
    bool bf16 = false;         // half, bfloat16: the bf16 peak applies
    QString precision() const; // "fp32", "fp16", "bf16"
    double achievedTflops() const;
    double achievedGbps() const;
    double intensity() const; // FLOPs per byte
    QString bound;            // latency, compute, memory
    double peakTflops = 0;    // the ceiling at its precision
    // Its longest call (what a click on its point shows in the timeline).
    SliceId slice = 0;
    TrackId track = 0;
    int rank = -1;
    TimeNs sliceStart = 0;
    TimeNs sliceEnd = 0;
};

struct Roofline
{
    QString device; // the run's GPU as recorded; empty: not known
    QString catalogId;
    double peakTflops = 0;     // fp32
    double peakTflopsHalf = 0; // dense fp16 tensor
    double peakTflopsBf16 = 0; // dense bf16 tensor (the fp32 rate where the GPU has none)
    double peakGbps = 0;
    QList<RooflineOp> ops;   // by GPU time, largest first
    qint64 costedCalls = 0;  // calls with FLOPs and bytes known
    qint64 unknownCalls = 0; // costed ops whose shapes were missing
    std::map<QString, qint64> unknownWhy;
    TimeNs kernelTime = 0;     // all kernels' GPU time
    TimeNs attributedTime = 0; // of kernels launched inside a costed op
    QJsonObject toJson() const;
    QString toText() const;
    // The reason no roofline can be drawn; empty when one can.
    QString problem() const;
};

Roofline roofline(const DependencyGraph &g, const QString &device, const DeviceCatalog &catalog);

} // namespace gml::sim
