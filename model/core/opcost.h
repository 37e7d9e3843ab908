// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What an operator costs, from the shapes the profiler recorded (record_shapes: "Input Dims",
// "Input type", and in newer builds "Concrete Inputs"): its FLOPs and the bytes it moves, for
// the operators that carry the work. The roofline, MFU and the analysis read it (issue 55).
// Pure functions on parsed arguments: no trace, no project.

#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>
#include <string_view>
#include <vector>

namespace gml {

using Dims = std::vector<qint64>;

// The recorded arguments of one op.
struct OpInputs
{
    std::vector<Dims> dims; // per argument; empty for a scalar or a list
    QStringList types;      // "float", "c10::Half", "GenericList", ...
    QStringList concrete;   // the values of scalar and list arguments, as text ("[2, 2]")
    // From the raw JSON texts of the three args (empty views: not recorded); nullopt when the
    // dims are not an array of arrays of whole numbers, or when a dimension or a tensor's size
    // lies outside physical bounds (negative, above physical.h's; `outside` then says which:
    // such a shape is dropped and counted, never costed).
    static std::optional<OpInputs> parse(std::string_view dims, std::string_view types,
                                         std::string_view concrete, QString *outside = nullptr);
};

// The operators costed. An op inside another costed op is part of it (aten::conv2d holds
// aten::convolution, aten::cudnn_convolution): the outermost is costed. Composite matmuls
// (aten::linear, aten::matmul, aten::einsum) are not costed themselves: the mm, addmm, bmm or
// baddbmm they call is.
enum class OpClass : uint8_t {
    None,
    Matmul,            // mm, addmm, bmm, baddbmm, _scaled_mm: 2·M·N·K (per batch)
    Convolution,       // conv1d/2d/3d, convolution, cudnn/miopen/mkldnn convolution
    ConvBackward,      // convolution_backward and the vendors' (grad input and grad weight)
    ConvBackwardPart,  // cudnn_convolution_backward_input / _weight: which parts ran
    Attention,         // scaled_dot_product_attention and the flash / efficient kernels' ops
    AttentionBackward, // their backward
    Normalization,     // batch, layer, group, RMS norm (and backward): bytes
    Softmax,           // softmax, log_softmax (and backward): bytes
    Elementwise,       // pointwise math and activations (and their backward): bytes
    Reduction,         // sum, mean, max, norm reductions: bytes
};
OpClass opClass(QStringView name);
// Every costed name, with "aten::" ("aten::mm", ...).
QStringList costedOpNames();
// Matmul, convolution and attention: the work MFU counts (model FLOPs).
bool isModelFlops(OpClass c);
// "matmul", "convolution", ...
QLatin1String opClassName(OpClass c);

// The size of one element of a recorded dtype ("float" 4, "c10::Half" 2, "double" 8, ...);
// 0 for what is not a tensor type.
int dtypeBytes(QStringView type);

struct OpCost
{
    double flops = 0;   // floating-point operations (0 for a bytes-only class)
    double bytes = 0;   // the tensors read and written, at their dtypes
    bool known = false; // false: the shapes needed are missing (`missing` says which)
    QString missing;
    bool halfPrecision = false; // its tensors are 16-bit or narrower (the fp16 peak applies)
    bool bf16 = false;          // ... and bfloat16 (the bf16 peak applies)
};

// The cost of `name` with `in`. A forward convolution needs its output's spatial size:
// `convOutput` (the output dims, found elsewhere: a backward op of the same shapes) or the
// stride/padding/dilation of "Concrete Inputs"; a convolution backward `parts` of grad input
// and grad weight (2 when not known); attention is causal when "Concrete Inputs" says so.
// `name` is the op's full name ("aten::addmm").
OpCost opCost(QStringView name, const OpInputs &in, const Dims *convOutput = nullptr,
              int parts = 2);

} // namespace gml
