// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a GPU kernel is, from its name: one taxonomy for NVIDIA (CUDA libraries, PyTorch, Triton),
// AMD (Tensile/hipBLASLt, rocBLAS, MIOpen, composable_kernel, aiter, Triton on ROCm, RCCL) and
// XLA (GPU fusions, TPU ops), used by the analysis's kernel families, the what-if (how a kernel's
// time scales on other hardware), the findings, validate and Compare (issue 54). No trace
// carries a kernel's FLOPs or bytes, so the name is what there is; a name no rule knows is
// `Family::Other`, which the analysis counts and lists instead of hiding (docs/analysis.md).

#include <QLatin1String>
#include <QString>

#include <cstdint>

namespace gml {

// How a kernel's time would change on other hardware: compute-bound kernels (GEMM,
// convolution, attention) scale with peak FLOP/s, the others with memory bandwidth.
enum class Bound : uint8_t { Compute, Memory };

struct KernelKind
{
    enum class Family : uint8_t {
        Gemm,          // matrix multiplies: cuBLAS(Lt), CUTLASS, Tensile, hipBLASLt, CK, XLA dot
        Convolution,   // cuDNN, MIOpen, implicit GEMM, im2col
        Attention,     // FlashAttention, fmha, paged and unified attention
        Normalization, // batch, layer, RMS, group norm
        Softmax,
        Reduction,     // sums, means, arg-max, top-k, scans, XLA input fusions
        Elementwise,   // pointwise math, activations, casts, layout copies, XLA loop fusions
        Indexing,      // embeddings, gather/scatter, sorts, MoE routing
        Optimizer,     // fused and multi-tensor optimizer updates
        Copy,          // memcpy/memset and the runtimes' copy kernels
        Communication, // NCCL, RCCL, XLA collectives
        Other,         // no rule knows the name
    };
    enum class Precision : uint8_t { Unknown, Fp64, Fp32, Tf32, Half, Fp8, Int8 };

    Family family = Family::Other;
    Bound bound = Bound::Memory;
    Precision precision = Precision::Unknown;
    QLatin1String library; // "Tensile", "cuDNN", "Triton", ...; empty when none is recognised
};

// The kind of the kernel `name` (a demangled or raw kernel name, an XLA op): a few regular
// expressions the first time a name is met in the process, a hash lookup after (thread-safe).
KernelKind kernelKind(const QString &name);
// "gemm", "convolution", ..., "communication", "copy", "other".
QLatin1String familyName(KernelKind::Family family);
// "fp64", "fp32", "tf32", "fp16/bf16", "fp8", "int8"; empty when unknown.
QLatin1String precisionName(KernelKind::Precision precision);

// kernelKind(name).bound.
Bound classifyKernel(const QString &name);
// A kernel that runs on tensor or matrix cores below FP32 (FP16, BF16, FP8, INT8, TF32): it
// scales with the catalog's fp16 rate, other compute-bound kernels with fp32.
bool usesHalfPrecision(const QString &name);

} // namespace gml
