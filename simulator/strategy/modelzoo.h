// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace gml::sim {

// One unit of a training job's layer graph: a convolution or GEMM with the normalisation,
// activation, pooling and residual work that follows it (what a framework runs back to back
// on one stream), or a block of a transformer. Per sample, forward pass; a backward pass is
// twice the work of its forward (the gradients of the input and of the weights).
struct Layer
{
    QString name;
    QString kind;         // conv, fc, pool, embedding, attention, mlp, head, measured
    double flops = 0;     // multiply-adds count 2
    double matBytes = 0;  // memory traffic of the conv/GEMM part: its input read, output written
    double elemBytes = 0; // memory traffic of the element-wise part (norm, activation, pool, add)
    qint64 params = 0;
    double activationBytes = 0; // what the backward pass keeps of it
    int kernels = 1;            // GPU kernels a forward pass launches (backward: twice as many)
    std::vector<int> inputs;    // the layers it reads, earlier in the list; empty: the model input
    // A layer taken from a measured run: its measured times at the graph's measured batch on
    // the measured device (then flops and bytes only say how it scales elsewhere).
    TimeNs forwardNs = 0;
    TimeNs backwardNs = 0;
    double computeShare = 1; // of its measured time, the part in compute-bound kernels
    // The time its measured pass left the GPU idle between its kernels (waiting for the host
    // to launch them): kept as measured, whatever the batch or device.
    TimeNs forwardGapNs = 0;
    TimeNs backwardGapNs = 0;
};

// A training job's layer graph (the application model of the thesis): layers in the order a
// depth-first walk from the input visits them, which is the order TensorFlow and PyTorch issue
// them on one device.
struct LayerGraph
{
    QString id;
    QString name;
    QString reference; // the published totals the layers add up to
    std::vector<Layer> layers;
    int defaultBatch = 32;
    double sampleBytes = 0;  // one sample as stored (a JPEG, a token sequence)
    double inputBytes = 0;   // one sample as the device reads it (a float tensor, token ids)
    double preprocessNs = 0; // CPU time to decode and augment one sample on one core
    qint64 epochSamples = 0; // samples in one epoch of its usual dataset
    QString optimizer = QStringLiteral("sgd"); // sgd (with momentum) or adam
    // Measured graphs: the batch and device (catalog id) its times were measured at, and the
    // run they came from.
    int measuredBatch = 0;
    QString measuredDevice;
    QString measuredRun;
    TimeNs measuredUpdateNs = 0; // the optimizer's kernels and the GPU idle between them

    qint64 params() const;
    double flops() const;           // forward, per sample
    double activationBytes() const; // per sample
    // Memory traffic of one optimizer update, per parameter (fp32): SGD with momentum reads
    // weight, gradient and momentum and writes weight and momentum; Adam also reads and writes
    // its second moment.
    double updateBytesPerParam() const { return optimizer == QLatin1String("adam") ? 28 : 20; }
    // Bytes of optimizer state per parameter beside the weight and its gradient.
    double stateBytesPerParam() const { return optimizer == QLatin1String("adam") ? 8 : 4; }
};

// The built-in models, with published layer shapes (torchvision's AlexNet, VGG-16/19,
// ResNet-50 v1.5 and Inception-v3 at their usual input sizes; BERT-base at 128 tokens and
// GPT-2 small at 1,024, as Hugging Face defines them).
QStringList builtinModels(); // ids: alexnet, vgg16, vgg19, resnet50, inception3, bert-base, gpt2
std::optional<LayerGraph> builtinModel(const QString &id, QString *error);

} // namespace gml::sim
