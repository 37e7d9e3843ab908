// SPDX-License-Identifier: GPL-3.0-or-later
#include "kerneltaxonomy.h"

#include <QHash>
#include <QRegularExpression>

#include <mutex>
#include <shared_mutex>
#include <vector>

namespace gml {

namespace {

using Family = KernelKind::Family;
using Precision = KernelKind::Precision;

struct Rule
{
    Family family;
    Bound bound;
    QRegularExpression re;
};

QRegularExpression re(const char *pattern)
{
    return QRegularExpression(QLatin1String(pattern), QRegularExpression::CaseInsensitiveOption);
}

// In order: the first rule that matches decides. `(?<![a-z])` starts a word even after an
// underscore or a digit ("loop_add_fusion", "sm80_xmma"), which \b does not.
const std::vector<Rule> &rules()
{
    static const std::vector<Rule> r{
        // Copies: the profilers' memcpy/memset rows, ROCm's blit kernels.
        {Family::Copy, Bound::Memory,
         re("^(memcpy|memset)|__amd_rocclr_(copy|fill)buffer|(?<![a-z])(memcpy|memset)")},
        // Collectives. Triton kernels named after the op they were fused near are not.
        {Family::Communication, Bound::Memory,
         re("^(?!triton_)(?:.*(nccl|rccl|msccl|(?<![a-z])all[-_]?reduce|(?<![a-z])all[-_]?gather|"
            "reduce[-_]?scatter|all[-_]?to[-_]?all|collective[-_]permute|cross_device_reduce|"
            "sendrecv))")},
        {Family::Attention, Bound::Compute,
         re("flash|fmha|attention|(?<![a-z])attn|sdpa|_mha|(?<![a-z])mha_(fwd|bwd|varlen)|"
            "paged_?attention")},
        {Family::Normalization, Bound::Memory,
         re("batch_?norm|layer_?norm|rms_?norm|group_?norm|instance_?norm|(?<![a-z])bn_(fw|bw)|"
            "cudnn::bn|miopenbatchnorm|miopenlayernorm|welford|l2norm|(?<![a-z])norm_kernel|"
            "gammabeta")},
        {Family::Softmax, Bound::Memory, re("softmax")},
        // Layout transforms and cuDNN's helpers move data; im2col is a convolution's, memory
        // bound.
        {Family::Elementwise, Bound::Memory,
         re("nchwtonhwc|nhwctonchw|transpose_nchw|cudnn::ops::|batched_transpose")},
        // im2col and cuDNN's offset tables (cask) prepare a convolution: memory bound.
        {Family::Convolution, Bound::Memory, re("im2col|col2im|cask_cudnn|computeoffsets")},
        {Family::Convolution, Bound::Compute,
         re("conv(?!ert)|winograd|implicit_?gemm|(?<![a-z])[wd]grad|fprop|miopencv|"
            "igemm_(fwd|bwd|wrw)|gridwise_convolution|sp3asm|cudnn")},
        // cuBLAS's split-K reduction finishes a GEMM, moving its partial sums.
        {Family::Gemm, Bound::Memory, re("splitkreduce")},
        {Family::Gemm, Bound::Compute,
         re("gemm|gemv|matmul|cublas|cutlass|xmma|wgmma|hmma|(?<![a-z])bmm|nvjet|"
            "(?<![a-z])[sdhcz]?(884|1688|16816)|_mma|cijk_|rocblas|hipblaslt|tensile|wvsplitk|"
            "(?<![a-z])dot([._]|$)|_mm_|(?<![a-z])(mm|addmm)(_|$)|fmoe|moe_?gemm|"
            "^(sm\\d+|ampere|volta|turing|hopper|maxwell|kepler)_")},
        // Inductor names its pointwise kernels so, whatever ops they fused.
        {Family::Elementwise, Bound::Memory, re("^triton_poi_")},
        {Family::Optimizer, Bound::Memory,
         re("multi_tensor_apply|(?<![a-z])adam|(?<![a-z])sgd(?![a-z])|(?<![a-z])lamb(?![a-z])|"
            "adagrad|rmsprop|optimizer|_foreach_")},
        {Family::Indexing, Bound::Memory,
         re("embedding|index_?select|index_put|indexing_backward|gather|scatter|(?<![a-z])take|"
            "radix_?sort|(?<![a-z])sort|unique|linearize_index|compute_grad_weight|"
            "moe_(align|sorting)|moesorting|topk_?gating|bincount|histogram|nonzero|"
            "pooled_embs|(?<![a-z])embs|bounds_check_indices|searchsorted|to_dense")},
        // Pooling and losses reduce windows or rows.
        {Family::Reduction, Bound::Memory, re("pool|criterion|nll_?loss|cross_?entropy")},
        {Family::Reduction, Bound::Memory,
         re("reduc|(?<![a-z])sum(_|$)|mean_|argmax|argmin|top_?k|(?<![a-z])scan|cumsum|cumprod|"
            "cub::|hipcub|rocprim|(?<![a-z])(max|min)_kernel|input_fusion|triton_(red|per)_")},
        {Family::Elementwise, Bound::Memory,
         re("elementwise|vectorized|unrolled|pointwise|copy_kernel|direct_copy|fill|relu|gelu|"
            "silu|swish|sigmoid|tanh|dropout|(?<![a-z])(add|mul|div|sub|neg|abs|exp|log|pow|"
            "sqrt|rsqrt|where|cast|clamp|threshold)|triton_poi_|fusion|(?<![a-z])copy|"
            "catarraybatchedcopy|(?<![a-z])cat_|rotary|(?<![a-z])rope|quant|miopenneuron")},
    };
    return r;
}

// The library a kernel comes from, by the marks of its name.
QLatin1String libraryOf(const QString &name)
{
    static const std::vector<std::pair<const char *, QRegularExpression>> libraries{
        {"Tensile", re("^cijk_")},
        {"hipBLASLt", re("hipblaslt")},
        {"rocBLAS", re("rocblas")},
        {"MIOpen", re("miopen|igemm_(fwd|bwd|wrw)|naive_conv|gridwise_convolution|gcnasm|"
                      "sp3asm|batched_transpose")},
        {"composable_kernel", re("ck::|ck_tile|kernel_gemm_xdl|device_gemm|device_grouped")},
        {"aiter", re("aiter")},
        {"RCCL", re("rccl")},
        {"NCCL", re("nccl")},
        {"cuDNN", re("cudnn|scudnn|^(sm\\d+|ampere|volta|turing|hopper)_.*(fprop|dgrad|wgrad)")},
        {"CUTLASS", re("cutlass")},
        {"cuBLAS", re("cublas|nvjet|splitkreduce|^(sm\\d+|ampere|volta|turing|hopper|maxwell|"
                      "kepler)_|gemv2?[nt]_kernel|gemmk1_kernel")},
        {"FlashAttention", re("flash")},
        {"Triton", re("^triton_|triton")},
        {"ROCm runtime", re("__amd_rocclr")},
        {"CUB", re("cub::|hipcub|rocprim")},
        {"PyTorch", re("at::native|at::cuda|c10::|cunn_|(?<![a-z])at::")},
        {"XLA", re("fusion|^(dot|convolution|reduce|copy|transpose|all-reduce|all-gather|"
                   "reduce-scatter|all-to-all)[._]")},
    };
    for (const auto &[library, pattern] : libraries)
        if (pattern.match(name).hasMatch())
            return QLatin1String(library);
    return {};
}

// Tensile's and hipBLASLt's names carry the problem type third: Cijk_Ailk_Bljk_HHS_BH_...
// (half in, half out, single compute), SB (single), BBS (bfloat16), DB (double), I8..., F8...
Precision tensilePrecision(const QString &name)
{
    static const QRegularExpression type(
        QStringLiteral("^Cijk_[A-Za-z]+_[A-Za-z]+_([A-Za-z0-9]+)"));
    const auto m = type.match(name);
    if (!m.hasMatch())
        return Precision::Unknown;
    const QString t = m.captured(1);
    if (t.startsWith(QLatin1String("4xi8")) || t.startsWith(QLatin1String("I8")))
        return Precision::Int8;
    if (t.startsWith(QLatin1String("F8")) || t.startsWith(QLatin1String("B8")))
        return Precision::Fp8;
    switch (t.front().toLatin1()) {
    case 'H':
    case 'B':
        return Precision::Half;
    case 'S':
    case 'C':
        return Precision::Fp32;
    case 'X':
        return Precision::Tf32;
    case 'D':
    case 'Z':
        return Precision::Fp64;
    default:
        return Precision::Unknown;
    }
}

Precision precisionOf(const QString &name)
{
    if (const Precision p = tensilePrecision(name); p != Precision::Unknown)
        return p;
    static const std::pair<Precision, QRegularExpression> marks[] = {
        {Precision::Fp8, re("e4m3|e5m2|fp8|f8f6f4|mxfp|_f8_")},
        {Precision::Int8, re("int8|i8i8|imma|s8s8|u8s8|_i8_")},
        {Precision::Tf32, re("tf32|xf32")},
        {Precision::Half, re("h884|h1688|h16816|s884|s1688|s16816|hmma|f16|fp16|bf16|bfloat16|"
                             "half|tensorop|_h_|884|1688|16816")},
        {Precision::Fp64, re("dgemm|zgemm|double|fp64|f64")},
        {Precision::Fp32, re("sgemm|cgemm|scudnn|simt|fp32|f32|<float|\\(float|float,|_float")},
    };
    for (const auto &[precision, pattern] : marks)
        if (pattern.match(name).hasMatch())
            return precision;
    return Precision::Unknown;
}

// The first rule that matches, else none.
const Rule *ruleOf(const QString &name)
{
    for (const Rule &r : rules())
        if (r.re.match(name).hasMatch())
            return &r;
    return nullptr;
}

} // namespace

namespace {

KernelKind matchKernelKind(const QString &name)
{
    KernelKind k;
    if (const Rule *r = ruleOf(name)) {
        k.family = r->family;
        k.bound = r->bound;
    }
    k.precision = precisionOf(name);
    k.library = libraryOf(name);
    return k;
}

// Every name classified once per process (issue 74: each file of a parallel import and each
// consumer of a run matched the same kernel names against the rules again, 170 M instructions
// on 32 rank files). Bounded: a job of more distinct names than this starts over.
struct KindCache
{
    std::shared_mutex lock;
    QHash<QString, KernelKind> kinds;
    static constexpr qsizetype kMax = 1 << 16;
};

KindCache &kindCache()
{
    static KindCache cache;
    return cache;
}

} // namespace

KernelKind kernelKind(const QString &name)
{
    KindCache &c = kindCache();
    {
        const std::shared_lock read(c.lock);
        const auto it = c.kinds.constFind(name);
        if (it != c.kinds.constEnd())
            return *it;
    }
    const KernelKind k = matchKernelKind(name);
    const std::unique_lock write(c.lock);
    if (c.kinds.size() >= KindCache::kMax)
        c.kinds.clear();
    c.kinds.insert(name, k);
    return k;
}

QLatin1String familyName(KernelKind::Family family)
{
    switch (family) {
    case Family::Gemm:
        return QLatin1String("gemm");
    case Family::Convolution:
        return QLatin1String("convolution");
    case Family::Attention:
        return QLatin1String("attention");
    case Family::Normalization:
        return QLatin1String("normalization");
    case Family::Softmax:
        return QLatin1String("softmax");
    case Family::Reduction:
        return QLatin1String("reduction");
    case Family::Elementwise:
        return QLatin1String("elementwise");
    case Family::Indexing:
        return QLatin1String("indexing");
    case Family::Optimizer:
        return QLatin1String("optimizer");
    case Family::Copy:
        return QLatin1String("copy");
    case Family::Communication:
        return QLatin1String("communication");
    case Family::Other:
        break;
    }
    return QLatin1String("other");
}

QLatin1String precisionName(KernelKind::Precision precision)
{
    switch (precision) {
    case Precision::Fp64:
        return QLatin1String("fp64");
    case Precision::Fp32:
        return QLatin1String("fp32");
    case Precision::Tf32:
        return QLatin1String("tf32");
    case Precision::Half:
        return QLatin1String("fp16/bf16");
    case Precision::Fp8:
        return QLatin1String("fp8");
    case Precision::Int8:
        return QLatin1String("int8");
    case Precision::Unknown:
        break;
    }
    return {};
}

Bound classifyKernel(const QString &name)
{
    return kernelKind(name).bound;
}

bool usesHalfPrecision(const QString &name)
{
    switch (kernelKind(name).precision) {
    case Precision::Half:
    case Precision::Fp8:
    case Precision::Int8:
    case Precision::Tf32:
        return true;
    default:
        return false;
    }
}

} // namespace gml
