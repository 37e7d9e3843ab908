// SPDX-License-Identifier: GPL-3.0-or-later
#include "opcost.h"

#include "physical.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace gml {

namespace {

const QHash<QString, OpClass> &classes()
{
    static const QHash<QString, OpClass> map = [] {
        QHash<QString, OpClass> m;
        auto add = [&](OpClass c, std::initializer_list<const char *> names) {
            for (const char *n : names)
                m.insert(QString::fromLatin1(n), c);
        };
        add(OpClass::Matmul,
            {"mm", "addmm", "addmm_", "bmm", "baddbmm", "baddbmm_", "addbmm", "_scaled_mm"});
        add(OpClass::Convolution,
            {"conv1d", "conv2d", "conv3d", "convolution", "_convolution", "cudnn_convolution",
             "miopen_convolution", "mkldnn_convolution", "convolution_overrideable",
             "_slow_conv2d_forward", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
             "cudnn_convolution_transpose", "miopen_convolution_transpose"});
        add(OpClass::ConvBackward, {"convolution_backward", "convolution_backward_overrideable",
                                    "cudnn_convolution_backward", "miopen_convolution_backward",
                                    "mkldnn_convolution_backward", "_slow_conv2d_backward"});
        add(OpClass::ConvBackwardPart,
            {"cudnn_convolution_backward_input", "cudnn_convolution_backward_weight",
             "miopen_convolution_backward_input", "miopen_convolution_backward_weight"});
        add(OpClass::Attention,
            {"scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
             "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
             "_flash_attention_forward", "_efficient_attention_forward"});
        add(OpClass::AttentionBackward,
            {"_scaled_dot_product_flash_attention_backward",
             "_scaled_dot_product_efficient_attention_backward",
             "_scaled_dot_product_cudnn_attention_backward", "_flash_attention_backward",
             "_efficient_attention_backward"});
        add(OpClass::Normalization,
            {"batch_norm", "_batch_norm_impl_index", "cudnn_batch_norm", "native_batch_norm",
             "miopen_batch_norm", "layer_norm", "native_layer_norm", "group_norm",
             "native_group_norm", "rms_norm", "_fused_rms_norm", "cudnn_batch_norm_backward",
             "native_batch_norm_backward", "miopen_batch_norm_backward",
             "native_layer_norm_backward", "native_group_norm_backward"});
        add(OpClass::Softmax, {"softmax", "_softmax", "log_softmax", "_log_softmax",
                               "_softmax_backward_data", "_log_softmax_backward_data"});
        add(OpClass::Elementwise, {"add",
                                   "add_",
                                   "sub",
                                   "sub_",
                                   "mul",
                                   "mul_",
                                   "div",
                                   "div_",
                                   "relu",
                                   "relu_",
                                   "clamp_min",
                                   "clamp_min_",
                                   "threshold_backward",
                                   "gelu",
                                   "gelu_backward",
                                   "silu",
                                   "silu_",
                                   "silu_backward",
                                   "sigmoid",
                                   "sigmoid_",
                                   "sigmoid_backward",
                                   "tanh",
                                   "tanh_backward",
                                   "exp",
                                   "pow",
                                   "sqrt",
                                   "rsqrt",
                                   "addcmul_",
                                   "addcdiv_",
                                   "lerp_",
                                   "neg",
                                   "where",
                                   "native_dropout",
                                   "native_dropout_backward",
                                   "hardtanh",
                                   "hardtanh_",
                                   "leaky_relu",
                                   "leaky_relu_"});
        add(OpClass::Reduction, {"sum", "mean", "amax", "amin", "max", "min", "norm",
                                 "linalg_vector_norm", "argmax", "cumsum", "var_mean"});
        return m;
    }();
    return map;
}

// In double: a product of dimensions never wraps (parse() bounds each tensor to 2^48 elements,
// but a convolution's spatial extents times its kernel's are products of several).
double numel(const Dims &d)
{
    double n = 1;
    for (const qint64 x : d)
        n *= double(std::max<qint64>(x, 0));
    return n;
}

// A list value of "Concrete Inputs" ("[2, 2]" or "2"), as numbers; empty when not one.
std::vector<qint64> listOf(const QString &text)
{
    QString t = text.trimmed();
    if (t.startsWith(QLatin1Char('[')))
        t = t.mid(1, t.size() - 2);
    std::vector<qint64> out;
    for (const QString &part : t.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qint64 v = part.trimmed().toLongLong(&ok);
        if (!ok || v < -qint64(physical::kMaxDimension) || v > qint64(physical::kMaxDimension))
            return {};
        out.push_back(v);
    }
    return out;
}

// The value of the `k`-th Bool argument ("True"/"False" in "Concrete Inputs").
std::optional<bool> nthBool(const OpInputs &in, int k)
{
    for (qsizetype i = 0; i < in.types.size(); ++i)
        if (in.types[i] == QLatin1String("Bool") && k-- == 0) {
            if (i >= in.concrete.size() || in.concrete[i].isEmpty())
                return std::nullopt;
            return in.concrete[i] == QLatin1String("True");
        }
    return std::nullopt;
}

int elementBytes(const OpInputs &in, qsizetype arg)
{
    return arg < in.types.size() ? dtypeBytes(in.types[arg]) : 0;
}

bool tensorAt(const OpInputs &in, qsizetype arg, size_t rank)
{
    return arg < qsizetype(in.dims.size()) && in.dims[size_t(arg)].size() == rank;
}

OpCost missing(const QString &why)
{
    OpCost c;
    c.missing = why;
    return c;
}

OpCost matmul(QStringView name, const OpInputs &in)
{
    // mm, _scaled_mm (A, B); addmm (C, A, B); bmm (A, B); baddbmm, addbmm (C, A, B).
    const bool withC = name.startsWith(QLatin1String("addmm")) ||
                       name.startsWith(QLatin1String("baddbmm")) || name == QLatin1String("addbmm");
    const qsizetype a = withC ? 1 : 0, b = a + 1;
    const bool batched = name.contains(QLatin1String("bmm"));
    const size_t rank = batched ? 3 : 2;
    if (!tensorAt(in, a, rank) || !tensorAt(in, b, rank))
        return missing(QStringLiteral("the two matrices' shapes"));
    const Dims &x = in.dims[size_t(a)], &y = in.dims[size_t(b)];
    const qint64 batch = batched ? x[0] : 1;
    const qint64 m = x[rank - 2], k = x[rank - 1], n = y[rank - 1];
    OpCost c;
    c.known = true;
    c.flops = 2.0 * double(batch) * double(m) * double(n) * double(k);
    const int es = std::max(elementBytes(in, a), 1);
    c.bytes = double(es) * (numel(x) + numel(y) + double(batch) * double(m) * double(n));
    c.halfPrecision = es <= 2;
    return c;
}

// Output spatial size from "Concrete Inputs" (stride, padding, dilation at their positions).
std::optional<Dims> convOutputOf(QStringView name, const OpInputs &in)
{
    qsizetype strideAt = -1;
    if (name == QLatin1String("conv1d") || name == QLatin1String("conv2d") ||
        name == QLatin1String("conv3d") || name == QLatin1String("convolution") ||
        name == QLatin1String("_convolution"))
        strideAt = 3; // (input, weight, bias, stride, padding, dilation, ...)
    if (strideAt < 0 || in.concrete.size() <= strideAt + 2)
        return std::nullopt;
    const Dims &x = in.dims[0], &w = in.dims[1];
    const size_t sp = x.size() - 2;
    auto expand = [&](std::vector<qint64> v) {
        if (v.size() == 1)
            v.assign(sp, v[0]);
        return v;
    };
    const auto stride = expand(listOf(in.concrete[strideAt]));
    const auto pad = expand(listOf(in.concrete[strideAt + 1]));
    const auto dil = expand(listOf(in.concrete[strideAt + 2]));
    if (stride.size() != sp || pad.size() != sp || dil.size() != sp)
        return std::nullopt;
    Dims out{x[0], w[0]};
    for (size_t i = 0; i < sp; ++i) {
        if (stride[i] <= 0 || pad[i] < 0 || dil[i] <= 0)
            return std::nullopt;
        // In double: dilation times the kernel's extent can pass 2^63 on a hostile shape.
        const double extent = std::floor((double(x[2 + i]) + 2.0 * double(pad[i]) -
                                          double(dil[i]) * (double(w[2 + i]) - 1.0) - 1.0) /
                                         double(stride[i])) +
                              1.0;
        if (!(extent >= 1) || extent > physical::kMaxDimension)
            return std::nullopt;
        out.push_back(qint64(extent));
    }
    return out;
}

OpCost convolution(QStringView name, const OpInputs &in, const Dims *given)
{
    if (name.contains(QLatin1String("transpose")))
        return missing(QStringLiteral("a transposed convolution (not costed)"));
    if (in.dims.size() < 2 || in.dims[0].size() < 3 || in.dims[1].size() != in.dims[0].size())
        return missing(QStringLiteral("the input and weight shapes"));
    std::optional<Dims> out =
        given && given->size() == in.dims[0].size() ? std::optional(*given) : std::nullopt;
    if (!out)
        out = convOutputOf(name, in);
    if (!out)
        return missing(QStringLiteral("the output size (no stride and padding recorded, and no "
                                      "backward of the same shapes)"));
    const Dims &x = in.dims[0], &w = in.dims[1];
    Dims spatial(out->begin() + 2, out->end());
    Dims kernel(w.begin() + 1, w.end()); // C/groups and the kernel's extent
    OpCost c;
    c.known = true;
    c.flops = 2.0 * double(x[0]) * double(w[0]) * double(numel(spatial)) * double(numel(kernel));
    const int es = std::max(elementBytes(in, 0), 1);
    c.bytes = double(es) * (double(numel(x)) + double(numel(w)) + double(numel(*out)));
    c.halfPrecision = es <= 2;
    return c;
}

OpCost convBackward(QStringView name, const OpInputs &in, int parts)
{
    // convolution_backward(grad_output, input, weight, ...); the vendors' (input, grad_output,
    // weight, ...).
    const bool generic = name.startsWith(QLatin1String("convolution_backward"));
    const qsizetype g = generic ? 0 : 1, x = generic ? 1 : 0;
    if (in.dims.size() < 3 || in.dims[size_t(g)].size() < 3 ||
        in.dims[size_t(x)].size() != in.dims[size_t(g)].size() ||
        in.dims[2].size() != in.dims[size_t(g)].size())
        return missing(QStringLiteral("the grad output, input and weight shapes"));
    const Dims &gout = in.dims[size_t(g)], &input = in.dims[size_t(x)], &w = in.dims[2];
    if (generic && !in.concrete.isEmpty()) { // output_mask, the last argument
        const auto mask = in.concrete.last();
        if (mask.startsWith(QLatin1Char('['))) {
            const auto bits = mask.mid(1, mask.size() - 2).split(QLatin1Char(','));
            if (bits.size() >= 2)
                parts = int(bits[0].trimmed() == QLatin1String("True")) +
                        int(bits[1].trimmed() == QLatin1String("True"));
        }
    }
    Dims spatial(gout.begin() + 2, gout.end());
    Dims kernel(w.begin() + 1, w.end());
    OpCost c;
    c.known = true;
    const double part =
        2.0 * double(gout[0]) * double(gout[1]) * double(numel(spatial)) * double(numel(kernel));
    c.flops = double(parts) * part;
    const int es = std::max(elementBytes(in, g), 1);
    c.bytes = double(parts) * double(es) *
              (double(numel(gout)) + double(numel(input)) + double(numel(w)));
    c.halfPrecision = es <= 2;
    return c;
}

OpCost attention(QStringView name, const OpInputs &in, bool backward)
{
    // forward (query, key, value, ...); backward (grad_out, query, key, value, ...).
    const qsizetype q = backward ? 1 : 0;
    if (!tensorAt(in, q, 4) || !tensorAt(in, q + 1, 4) || !tensorAt(in, q + 2, 4))
        return missing(QStringLiteral("the query, key and value shapes"));
    const Dims &qd = in.dims[size_t(q)], &kd = in.dims[size_t(q + 1)], &vd = in.dims[size_t(q + 2)];
    const double b = double(qd[0]), h = double(qd[1]), l = double(qd[2]), e = double(qd[3]);
    const double s = double(kd[2]), ev = double(vd[3]);
    // Q·Kᵀ and P·V; the backward runs five such products to the forward's two (2.5x).
    double flops = 2.0 * b * h * l * s * e + 2.0 * b * h * l * s * ev;
    const int causalBool = name.contains(QLatin1String("efficient")) && !backward ? 1 : 0;
    const bool causal = nthBool(in, causalBool).value_or(false);
    if (causal)
        flops *= 0.5;
    OpCost c;
    c.known = true;
    c.flops = backward ? 2.5 * flops : flops;
    const int es = std::max(elementBytes(in, q), 1);
    const double io = double(numel(qd) + numel(kd) + numel(vd)) + b * h * l * ev;
    c.bytes = double(es) * (backward ? 2 * io : io);
    c.halfPrecision = es <= 2;
    return c;
}

// Bytes-only classes: every tensor argument read, an output the size of the largest written
// (in place: into the first); FLOPs per element of the largest (1 elementwise and reduction,
// 5 normalisation and softmax: mean, variance or max, subtract, scale or exp, shift or divide).
OpCost bytesOnly(OpClass cls, const OpInputs &in)
{
    double read = 0;
    double largest = 0;
    int es = 0;
    for (size_t i = 0; i < in.dims.size(); ++i) {
        const int s = elementBytes(in, qsizetype(i));
        if (s <= 0)
            continue;
        const double n = numel(in.dims[i]);
        read += double(n) * s;
        if (n > largest) {
            largest = n;
            es = s;
        }
    }
    if (largest == 0)
        return missing(QStringLiteral("the tensor shapes"));
    OpCost c;
    c.known = true;
    const bool reduction = cls == OpClass::Reduction;
    c.bytes = read + (reduction ? 0.0 : largest * es);
    const double perElement = cls == OpClass::Normalization || cls == OpClass::Softmax ? 5.0 : 1.0;
    c.flops = perElement * largest;
    c.halfPrecision = es <= 2;
    return c;
}

} // namespace

std::optional<OpInputs> OpInputs::parse(std::string_view dims, std::string_view types,
                                        std::string_view concrete, QString *outside)
{
    OpInputs in;
    auto array = [](std::string_view text) {
        return QJsonDocument::fromJson(QByteArray(text.data(), qsizetype(text.size()))).array();
    };
    if (!dims.empty()) {
        const QJsonDocument doc =
            QJsonDocument::fromJson(QByteArray(dims.data(), qsizetype(dims.size())));
        if (!doc.isArray())
            return std::nullopt;
        for (const auto &v : doc.array()) {
            Dims d;
            double elements = 1;
            if (v.isArray())
                for (const auto &x : v.toArray()) {
                    if (!x.isDouble())
                        return std::nullopt;
                    // Checked before the conversion: 1e308 or 2^64 as a qint64 is undefined,
                    // and a wrapped dimension gave negative FLOPs.
                    const double value = x.toDouble();
                    if (!(value >= 0) || value > physical::kMaxDimension ||
                        value != std::floor(value)) {
                        if (outside)
                            *outside = QStringLiteral("dimension %1 (a dimension is a whole number "
                                                      "from 0 to 2^48)")
                                           .arg(value, 0, 'g', 17);
                        return std::nullopt;
                    }
                    elements *= value;
                    d.push_back(qint64(value));
                }
            if (elements > physical::kMaxTensorElements) {
                if (outside)
                    *outside = QStringLiteral("a tensor of %1 elements (more than 2^48)")
                                   .arg(elements, 0, 'g', 4);
                return std::nullopt;
            }
            in.dims.push_back(std::move(d));
        }
    }
    if (!types.empty())
        for (const auto &v : array(types))
            in.types << v.toString();
    if (!concrete.empty())
        for (const auto &v : array(concrete))
            in.concrete << v.toString();
    return in;
}

OpClass opClass(QStringView name)
{
    if (!name.startsWith(QLatin1String("aten::")))
        return OpClass::None;
    return classes().value(name.mid(6).toString(), OpClass::None);
}

QStringList costedOpNames()
{
    QStringList out;
    for (auto it = classes().begin(); it != classes().end(); ++it)
        out << QStringLiteral("aten::") + it.key();
    out.sort();
    return out;
}

bool isModelFlops(OpClass c)
{
    return c == OpClass::Matmul || c == OpClass::Convolution || c == OpClass::ConvBackward ||
           c == OpClass::Attention || c == OpClass::AttentionBackward;
}

QLatin1String opClassName(OpClass c)
{
    switch (c) {
    case OpClass::Matmul:
        return QLatin1String("matmul");
    case OpClass::Convolution:
    case OpClass::ConvBackward:
    case OpClass::ConvBackwardPart:
        return QLatin1String("convolution");
    case OpClass::Attention:
    case OpClass::AttentionBackward:
        return QLatin1String("attention");
    case OpClass::Normalization:
        return QLatin1String("normalization");
    case OpClass::Softmax:
        return QLatin1String("softmax");
    case OpClass::Elementwise:
        return QLatin1String("elementwise");
    case OpClass::Reduction:
        return QLatin1String("reduction");
    case OpClass::None:
        break;
    }
    return QLatin1String("other");
}

int dtypeBytes(QStringView t)
{
    static const QHash<QString, int> sizes = {
        {QStringLiteral("float"), 4},
        {QStringLiteral("double"), 8},
        {QStringLiteral("c10::Half"), 2},
        {QStringLiteral("c10::BFloat16"), 2},
        {QStringLiteral("half"), 2},
        {QStringLiteral("bfloat16"), 2},
        {QStringLiteral("long int"), 8},
        {QStringLiteral("int"), 4},
        {QStringLiteral("short int"), 2},
        {QStringLiteral("signed char"), 1},
        {QStringLiteral("unsigned char"), 1},
        {QStringLiteral("bool"), 1},
        {QStringLiteral("c10::Float8_e4m3fn"), 1},
        {QStringLiteral("c10::Float8_e5m2"), 1},
        {QStringLiteral("c10::complex<float>"), 8},
        {QStringLiteral("c10::complex<double>"), 16},
    };
    return sizes.value(t.toString(), 0);
}

namespace {

OpCost costOf(QStringView name, const OpInputs &in, const Dims *convOutput, int parts)
{
    const OpClass c = opClass(name);
    const QStringView op = name.mid(6); // without "aten::"
    switch (c) {
    case OpClass::None:
    case OpClass::ConvBackwardPart:
        return missing(QStringLiteral("not a costed operator"));
    case OpClass::Matmul:
        return matmul(op, in);
    case OpClass::Convolution:
        return convolution(op, in, convOutput);
    case OpClass::ConvBackward:
        return convBackward(op, in, parts);
    case OpClass::Attention:
        return attention(op, in, false);
    case OpClass::AttentionBackward:
        return attention(op, in, true);
    case OpClass::Normalization:
    case OpClass::Softmax:
    case OpClass::Elementwise:
    case OpClass::Reduction:
        return bytesOnly(c, in);
    }
    return {};
}

} // namespace

OpCost opCost(QStringView name, const OpInputs &in, const Dims *convOutput, int parts)
{
    OpCost c = costOf(name, in, convOutput, parts);
    // A 16-bit op whose tensors are bfloat16 runs at the bf16 peak, which some GPUs do not
    // share with fp16 (no bf16 tensor cores before Ampere).
    if (c.halfPrecision)
        for (const QString &t : in.types)
            if (t == QLatin1String("c10::BFloat16") || t == QLatin1String("bfloat16")) {
                c.bf16 = true;
                break;
            }
    return c;
}

} // namespace gml
