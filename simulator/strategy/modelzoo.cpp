// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in layer graphs. Shapes follow the reference implementations layer by layer, so
// that parameter counts are exact and multiply-adds match what profilers count for them
// (convolutions and GEMMs); the element-wise traffic around them is counted in passes over
// their outputs (fp32).
#include "modelzoo.h"

#include <QHash>

#include <algorithm>
#include <cmath>

namespace gml::sim {

qint64 LayerGraph::params() const
{
    qint64 sum = 0;
    for (const Layer &l : layers)
        sum += l.params;
    return sum;
}

double LayerGraph::flops() const
{
    double sum = 0;
    for (const Layer &l : layers)
        sum += l.flops;
    return sum;
}

double LayerGraph::activationBytes() const
{
    double sum = 0;
    for (const Layer &l : layers)
        sum += l.activationBytes;
    return sum;
}

namespace {

constexpr double kFloat = 4; // bytes

// Builds a CNN layer by layer. A tensor is the layers that produce it (several after a
// concatenation) and its shape.
class CnnBuilder
{
public:
    struct T
    {
        std::vector<int> from;
        int c = 0, h = 0, w = 0;
        double bytes() const { return double(c) * h * w * kFloat; }
    };

    explicit CnnBuilder(LayerGraph &g) : m_g(g) {}

    T input(int c, int h, int w) { return {{}, c, h, w}; }

    // Convolution (+ batch norm) (+ ReLU): one layer.
    T conv(const T &in, const QString &name, int cout, int kh, int kw, int stride, int ph, int pw,
           bool bias, bool bn, bool relu)
    {
        const int ho = (in.h + 2 * ph - kh) / stride + 1;
        const int wo = (in.w + 2 * pw - kw) / stride + 1;
        Layer l;
        l.name = name;
        l.kind = QStringLiteral("conv");
        const double outElems = double(cout) * ho * wo;
        l.flops = 2.0 * in.c * kh * kw * outElems;
        l.params = qint64(in.c) * kh * kw * cout + (bias ? cout : 0) + (bn ? 2 * cout : 0);
        l.matBytes = in.bytes() + outElems * kFloat;
        // Batch norm: statistics, then normalise (read, write); ReLU in place (read, write).
        l.elemBytes = outElems * kFloat * ((bn ? 3 : 0) + (relu ? 2 : 0));
        l.activationBytes = outElems * kFloat * (1 + (bn ? 1 : 0));
        l.kernels = 1 + (bn ? 1 : 0) + (relu ? 1 : 0);
        l.inputs = in.from;
        return add(l, cout, ho, wo);
    }
    T conv(const T &in, const QString &name, int cout, int k, int stride = 1, int pad = 0)
    {
        return conv(in, name, cout, k, k, stride, pad, pad, false, true, true);
    }

    // Pooling: folded into the layer that produced its input (one more pass of that layer's
    // kernels), or a layer of its own when its input is a concatenation.
    T pool(const T &in, const QString &name, int k, int stride, int pad)
    {
        const int ho = (in.h + 2 * pad - k) / stride + 1;
        const int wo = (in.w + 2 * pad - k) / stride + 1;
        const double outBytes = double(in.c) * ho * wo * kFloat;
        if (in.from.size() == 1) {
            Layer &l = m_g.layers[size_t(in.from.front())];
            l.elemBytes += in.bytes() + outBytes;
            l.activationBytes += outBytes;
            l.kernels += 1;
            return {in.from, in.c, ho, wo};
        }
        Layer l;
        l.name = name;
        l.kind = QStringLiteral("pool");
        l.elemBytes = in.bytes() + outBytes;
        l.activationBytes = outBytes;
        l.inputs = in.from;
        return add(l, in.c, ho, wo);
    }
    // Global average pooling to 1x1.
    T globalPool(const T &in, const QString &name) { return pool(in, name, in.h, in.h, 0); }

    // A residual sum and ReLU, folded into the later of the two layers that produced its
    // operands (the downsample branch runs after the block's last convolution), which then also
    // reads the other.
    T residual(const T &a, const T &identity)
    {
        const int target = std::max(a.from.front(), identity.from.front());
        const int other = std::min(a.from.front(), identity.from.front());
        Layer &l = m_g.layers[size_t(target)];
        l.elemBytes += a.bytes() * 5; // read both, write; ReLU in place
        l.kernels += 2;
        if (other != target && std::find(l.inputs.begin(), l.inputs.end(), other) == l.inputs.end())
            l.inputs.push_back(other);
        T out = a;
        out.from = {target};
        return out;
    }

    static T concat(const std::vector<T> &parts)
    {
        T out = parts.front();
        out.from.clear();
        out.c = 0;
        for (const T &p : parts) {
            out.from.insert(out.from.end(), p.from.begin(), p.from.end());
            out.c += p.c;
        }
        return out;
    }

    // Fully connected (+ ReLU), on the flattened input.
    T fc(const T &in, const QString &name, int out, bool relu)
    {
        const double inElems = double(in.c) * in.h * in.w;
        Layer l;
        l.name = name;
        l.kind = QStringLiteral("fc");
        l.flops = 2.0 * inElems * out;
        l.params = qint64(inElems) * out + out;
        l.matBytes = (inElems + out) * kFloat;
        l.elemBytes = relu ? out * kFloat * 2 : 0;
        l.activationBytes = out * kFloat;
        l.kernels = relu ? 2 : 1;
        l.inputs = in.from;
        return add(l, out, 1, 1);
    }

private:
    T add(const Layer &l, int c, int h, int w)
    {
        m_g.layers.push_back(l);
        return {{int(m_g.layers.size()) - 1}, c, h, w};
    }
    LayerGraph &m_g;
};

void imageNet(LayerGraph &g, int side)
{
    // ImageNet-1k: 1,281,167 training images, ~110 KB per JPEG on average; the device reads
    // a normalised float tensor; decoding, random-resized cropping and flipping one image takes
    // a few ms of one core (JPEG decode dominates).
    g.epochSamples = 1281167;
    g.sampleBytes = 110e3;
    g.inputBytes = 3.0 * side * side * kFloat;
    g.preprocessNs = 3e6;
}

LayerGraph alexnet()
{
    LayerGraph g;
    g.id = QStringLiteral("alexnet");
    g.name = QStringLiteral("AlexNet");
    g.reference = QStringLiteral(
        "torchvision alexnet: 61,100,840 parameters, 0.71 G multiply-adds at 224x224");
    g.defaultBatch = 128;
    imageNet(g, 224);
    CnnBuilder b(g);
    auto x = b.input(3, 224, 224);
    x = b.conv(x, QStringLiteral("features.0"), 64, 11, 11, 4, 2, 2, true, false, true);
    x = b.pool(x, QStringLiteral("features.2"), 3, 2, 0);
    x = b.conv(x, QStringLiteral("features.3"), 192, 5, 5, 1, 2, 2, true, false, true);
    x = b.pool(x, QStringLiteral("features.5"), 3, 2, 0);
    x = b.conv(x, QStringLiteral("features.6"), 384, 3, 3, 1, 1, 1, true, false, true);
    x = b.conv(x, QStringLiteral("features.8"), 256, 3, 3, 1, 1, 1, true, false, true);
    x = b.conv(x, QStringLiteral("features.10"), 256, 3, 3, 1, 1, 1, true, false, true);
    x = b.pool(x, QStringLiteral("features.12"), 3, 2, 0);
    x = b.fc(x, QStringLiteral("classifier.1"), 4096, true);
    x = b.fc(x, QStringLiteral("classifier.4"), 4096, true);
    b.fc(x, QStringLiteral("classifier.6"), 1000, false);
    return g;
}

LayerGraph vgg(int depth)
{
    LayerGraph g;
    g.id = QStringLiteral("vgg%1").arg(depth);
    g.name = QStringLiteral("VGG-%1").arg(depth);
    g.reference =
        depth == 16
            ? QStringLiteral(
                  "torchvision vgg16: 138,357,544 parameters, 15.47 G multiply-adds at 224x224")
            : QStringLiteral(
                  "torchvision vgg19: 143,667,240 parameters, 19.63 G multiply-adds at 224x224");
    g.defaultBatch = 32;
    imageNet(g, 224);
    const std::vector<int> perStage =
        depth == 16 ? std::vector<int>{2, 2, 3, 3, 3} : std::vector<int>{2, 2, 4, 4, 4};
    const int widths[] = {64, 128, 256, 512, 512};
    CnnBuilder b(g);
    auto x = b.input(3, 224, 224);
    int index = 0;
    for (size_t s = 0; s < perStage.size(); ++s) {
        for (int k = 0; k < perStage[s]; ++k) {
            x = b.conv(x, QStringLiteral("features.%1").arg(index), widths[s], 3, 3, 1, 1, 1, true,
                       false, true);
            index += 2;
        }
        x = b.pool(x, QStringLiteral("features.%1").arg(index), 2, 2, 0);
        index += 1;
    }
    x = b.fc(x, QStringLiteral("classifier.0"), 4096, true);
    x = b.fc(x, QStringLiteral("classifier.3"), 4096, true);
    b.fc(x, QStringLiteral("classifier.6"), 1000, false);
    return g;
}

LayerGraph resnet50()
{
    LayerGraph g;
    g.id = QStringLiteral("resnet50");
    g.name = QStringLiteral("ResNet-50");
    g.reference = QStringLiteral(
        "torchvision resnet50 (v1.5): 25,557,032 parameters, 4.09 G multiply-adds at 224x224");
    g.defaultBatch = 32;
    imageNet(g, 224);
    CnnBuilder b(g);
    auto x = b.input(3, 224, 224);
    x = b.conv(x, QStringLiteral("conv1"), 64, 7, 7, 2, 3, 3, false, true, true);
    x = b.pool(x, QStringLiteral("maxpool"), 3, 2, 1);
    const int blocks[] = {3, 4, 6, 3};
    for (int stage = 0; stage < 4; ++stage) {
        const int planes = 64 << stage;
        for (int k = 0; k < blocks[stage]; ++k) {
            const int stride = (k == 0 && stage > 0) ? 2 : 1;
            const QString p = QStringLiteral("layer%1.%2.").arg(stage + 1).arg(k);
            auto identity = x;
            auto y =
                b.conv(x, p + QStringLiteral("conv1"), planes, 1, 1, 1, 0, 0, false, true, true);
            y = b.conv(y, p + QStringLiteral("conv2"), planes, 3, 3, stride, 1, 1, false, true,
                       true);
            y = b.conv(y, p + QStringLiteral("conv3"), planes * 4, 1, 1, 1, 0, 0, false, true,
                       false);
            if (k == 0)
                identity = b.conv(x, p + QStringLiteral("downsample"), planes * 4, 1, 1, stride, 0,
                                  0, false, true, false);
            x = b.residual(y, identity);
        }
    }
    x = b.globalPool(x, QStringLiteral("avgpool"));
    b.fc(x, QStringLiteral("fc"), 1000, false);
    return g;
}

LayerGraph inception3()
{
    LayerGraph g;
    g.id = QStringLiteral("inception3");
    g.name = QStringLiteral("Inception-v3");
    g.reference = QStringLiteral(
        "torchvision inception_v3 without its auxiliary classifier: 23,834,568 parameters "
        "(27,161,264 with it), 5.71 G multiply-adds at 299x299");
    g.defaultBatch = 32;
    imageNet(g, 299);
    CnnBuilder b(g);
    using T = CnnBuilder::T;
    auto conv = [&](const T &in, const QString &name, int cout, int kh, int kw, int stride, int ph,
                    int pw) {
        return b.conv(in, name, cout, kh, kw, stride, ph, pw, false, true, true);
    };
    auto x = b.input(3, 299, 299);
    x = conv(x, QStringLiteral("Conv2d_1a_3x3"), 32, 3, 3, 2, 0, 0);
    x = conv(x, QStringLiteral("Conv2d_2a_3x3"), 32, 3, 3, 1, 0, 0);
    x = conv(x, QStringLiteral("Conv2d_2b_3x3"), 64, 3, 3, 1, 1, 1);
    x = b.pool(x, QStringLiteral("maxpool1"), 3, 2, 0);
    x = conv(x, QStringLiteral("Conv2d_3b_1x1"), 80, 1, 1, 1, 0, 0);
    x = conv(x, QStringLiteral("Conv2d_4a_3x3"), 192, 3, 3, 1, 0, 0);
    x = b.pool(x, QStringLiteral("maxpool2"), 3, 2, 0);
    auto inceptionA = [&](const T &in, const QString &p, int poolFeatures) {
        const T b1 = conv(in, p + QStringLiteral(".branch1x1"), 64, 1, 1, 1, 0, 0);
        T b5 = conv(in, p + QStringLiteral(".branch5x5_1"), 48, 1, 1, 1, 0, 0);
        b5 = conv(b5, p + QStringLiteral(".branch5x5_2"), 64, 5, 5, 1, 2, 2);
        T b3 = conv(in, p + QStringLiteral(".branch3x3dbl_1"), 64, 1, 1, 1, 0, 0);
        b3 = conv(b3, p + QStringLiteral(".branch3x3dbl_2"), 96, 3, 3, 1, 1, 1);
        b3 = conv(b3, p + QStringLiteral(".branch3x3dbl_3"), 96, 3, 3, 1, 1, 1);
        T bp = b.pool(in, p + QStringLiteral(".avg_pool"), 3, 1, 1);
        bp = conv(bp, p + QStringLiteral(".branch_pool"), poolFeatures, 1, 1, 1, 0, 0);
        return CnnBuilder::concat({b1, b5, b3, bp});
    };
    auto inceptionB = [&](const T &in, const QString &p) {
        const T b3 = conv(in, p + QStringLiteral(".branch3x3"), 384, 3, 3, 2, 0, 0);
        T bd = conv(in, p + QStringLiteral(".branch3x3dbl_1"), 64, 1, 1, 1, 0, 0);
        bd = conv(bd, p + QStringLiteral(".branch3x3dbl_2"), 96, 3, 3, 1, 1, 1);
        bd = conv(bd, p + QStringLiteral(".branch3x3dbl_3"), 96, 3, 3, 2, 0, 0);
        const T bp = b.pool(in, p + QStringLiteral(".max_pool"), 3, 2, 0);
        return CnnBuilder::concat({b3, bd, bp});
    };
    auto inceptionC = [&](const T &in, const QString &p, int c7) {
        const T b1 = conv(in, p + QStringLiteral(".branch1x1"), 192, 1, 1, 1, 0, 0);
        T b7 = conv(in, p + QStringLiteral(".branch7x7_1"), c7, 1, 1, 1, 0, 0);
        b7 = conv(b7, p + QStringLiteral(".branch7x7_2"), c7, 1, 7, 1, 0, 3);
        b7 = conv(b7, p + QStringLiteral(".branch7x7_3"), 192, 7, 1, 1, 3, 0);
        T bd = conv(in, p + QStringLiteral(".branch7x7dbl_1"), c7, 1, 1, 1, 0, 0);
        bd = conv(bd, p + QStringLiteral(".branch7x7dbl_2"), c7, 7, 1, 1, 3, 0);
        bd = conv(bd, p + QStringLiteral(".branch7x7dbl_3"), c7, 1, 7, 1, 0, 3);
        bd = conv(bd, p + QStringLiteral(".branch7x7dbl_4"), c7, 7, 1, 1, 3, 0);
        bd = conv(bd, p + QStringLiteral(".branch7x7dbl_5"), 192, 1, 7, 1, 0, 3);
        T bp = b.pool(in, p + QStringLiteral(".avg_pool"), 3, 1, 1);
        bp = conv(bp, p + QStringLiteral(".branch_pool"), 192, 1, 1, 1, 0, 0);
        return CnnBuilder::concat({b1, b7, bd, bp});
    };
    auto inceptionD = [&](const T &in, const QString &p) {
        T b3 = conv(in, p + QStringLiteral(".branch3x3_1"), 192, 1, 1, 1, 0, 0);
        b3 = conv(b3, p + QStringLiteral(".branch3x3_2"), 320, 3, 3, 2, 0, 0);
        T b7 = conv(in, p + QStringLiteral(".branch7x7x3_1"), 192, 1, 1, 1, 0, 0);
        b7 = conv(b7, p + QStringLiteral(".branch7x7x3_2"), 192, 1, 7, 1, 0, 3);
        b7 = conv(b7, p + QStringLiteral(".branch7x7x3_3"), 192, 7, 1, 1, 3, 0);
        b7 = conv(b7, p + QStringLiteral(".branch7x7x3_4"), 192, 3, 3, 2, 0, 0);
        const T bp = b.pool(in, p + QStringLiteral(".max_pool"), 3, 2, 0);
        return CnnBuilder::concat({b3, b7, bp});
    };
    auto inceptionE = [&](const T &in, const QString &p) {
        const T b1 = conv(in, p + QStringLiteral(".branch1x1"), 320, 1, 1, 1, 0, 0);
        const T b3 = conv(in, p + QStringLiteral(".branch3x3_1"), 384, 1, 1, 1, 0, 0);
        const T b3a = conv(b3, p + QStringLiteral(".branch3x3_2a"), 384, 1, 3, 1, 0, 1);
        const T b3b = conv(b3, p + QStringLiteral(".branch3x3_2b"), 384, 3, 1, 1, 1, 0);
        T bd = conv(in, p + QStringLiteral(".branch3x3dbl_1"), 448, 1, 1, 1, 0, 0);
        bd = conv(bd, p + QStringLiteral(".branch3x3dbl_2"), 384, 3, 3, 1, 1, 1);
        const T bda = conv(bd, p + QStringLiteral(".branch3x3dbl_3a"), 384, 1, 3, 1, 0, 1);
        const T bdb = conv(bd, p + QStringLiteral(".branch3x3dbl_3b"), 384, 3, 1, 1, 1, 0);
        T bp = b.pool(in, p + QStringLiteral(".avg_pool"), 3, 1, 1);
        bp = conv(bp, p + QStringLiteral(".branch_pool"), 192, 1, 1, 1, 0, 0);
        return CnnBuilder::concat({b1, b3a, b3b, bda, bdb, bp});
    };
    x = inceptionA(x, QStringLiteral("Mixed_5b"), 32);
    x = inceptionA(x, QStringLiteral("Mixed_5c"), 64);
    x = inceptionA(x, QStringLiteral("Mixed_5d"), 64);
    x = inceptionB(x, QStringLiteral("Mixed_6a"));
    x = inceptionC(x, QStringLiteral("Mixed_6b"), 128);
    x = inceptionC(x, QStringLiteral("Mixed_6c"), 160);
    x = inceptionC(x, QStringLiteral("Mixed_6d"), 160);
    x = inceptionC(x, QStringLiteral("Mixed_6e"), 192);
    x = inceptionD(x, QStringLiteral("Mixed_7a"));
    x = inceptionE(x, QStringLiteral("Mixed_7b"));
    x = inceptionE(x, QStringLiteral("Mixed_7c"));
    x = b.globalPool(x, QStringLiteral("avgpool"));
    b.fc(x, QStringLiteral("fc"), 1000, false);
    return g;
}

// A transformer: embeddings, per block an attention layer and an MLP layer (each with its
// layer norm and residual), and a head. Forward multiply-adds per sequence follow Narayanan et
// al. (SC'21): 24·s·h² per block for the GEMMs, 4·s²·h for the attention scores and their
// weighted sum, 2·s·h·V for a language-model head.
struct TransformerShape
{
    int layers = 12, hidden = 768, heads = 12, seq = 128, vocab = 30522, positions = 512,
        typeVocab = 0;
    bool lmHead = false;   // a tied language-model head (GPT-2)
    bool pooler = false;   // BERT's pooler and a 2-way classifier
    bool postNorm = false; // BERT: norm after each sublayer, plus the embeddings' norm
};

LayerGraph transformer(const TransformerShape &s)
{
    LayerGraph g;
    const double h = s.hidden, seq = s.seq;
    const double tokenBytes = seq * h * kFloat;
    Layer emb;
    emb.name = QStringLiteral("embeddings");
    emb.kind = QStringLiteral("embedding");
    emb.params =
        qint64(s.vocab + s.positions + s.typeVocab) * s.hidden + (s.postNorm ? 2 * s.hidden : 0);
    emb.elemBytes = tokenBytes * ((s.typeVocab ? 3 : 2) + 1 + (s.postNorm ? 3 : 0));
    emb.activationBytes = tokenBytes;
    emb.kernels = s.postNorm ? 3 : 2;
    g.layers.push_back(emb);
    // Activations kept per block (Korthikanti et al., 2022, fp32 here): 34·s·h + 5·a·s² bytes
    // in half precision, i.e. twice that in fp32 minus the masks.
    const double perBlock = 2.0 * (34.0 * seq * h + 5.0 * s.heads * seq * seq);
    for (int i = 0; i < s.layers; ++i) {
        Layer attn;
        attn.name = QStringLiteral("layer.%1.attention").arg(i);
        attn.kind = QStringLiteral("attention");
        attn.flops = 2.0 * (4 * seq * h * h + 2 * seq * seq * h);
        attn.params = 4 * qint64(s.hidden) * s.hidden + 4 * s.hidden + 2 * s.hidden;
        attn.matBytes = tokenBytes * 5 + 2.0 * s.heads * seq * seq * kFloat;
        // Softmax over the scores (read, write) and dropout on them; norm; residual.
        attn.elemBytes = 3.0 * s.heads * seq * seq * kFloat + tokenBytes * (3 + 3);
        attn.activationBytes = perBlock * 0.6;
        attn.kernels = 9;
        attn.inputs = {int(g.layers.size()) - 1};
        g.layers.push_back(attn);
        Layer mlp;
        mlp.name = QStringLiteral("layer.%1.mlp").arg(i);
        mlp.kind = QStringLiteral("mlp");
        mlp.flops = 2.0 * 8 * seq * h * h;
        mlp.params = 8 * qint64(s.hidden) * s.hidden + 5 * s.hidden + 2 * s.hidden;
        mlp.matBytes = tokenBytes * 2 + tokenBytes * 8;
        mlp.elemBytes = tokenBytes * 4 * 2 + tokenBytes * (3 + 3);
        mlp.activationBytes = perBlock * 0.4;
        mlp.kernels = 5;
        mlp.inputs = {int(g.layers.size()) - 1};
        g.layers.push_back(mlp);
    }
    Layer head;
    head.kind = QStringLiteral("head");
    head.inputs = {int(g.layers.size()) - 1};
    if (s.lmHead) {
        head.name = QStringLiteral("ln_f+lm_head");
        head.params = 2 * s.hidden; // the final norm; the output projection is the tied embedding
        head.flops = 2.0 * seq * h * s.vocab;
        head.matBytes = tokenBytes + seq * s.vocab * kFloat;
        head.elemBytes = 3.0 * seq * s.vocab * kFloat + tokenBytes * 3; // log-softmax and loss
        head.activationBytes = seq * s.vocab * kFloat;
        head.kernels = 4;
    } else {
        head.name = QStringLiteral("pooler+classifier");
        head.params = qint64(s.hidden) * s.hidden + s.hidden + 2 * s.hidden + 2;
        head.flops = 2.0 * (h * h + h * 2);
        head.matBytes = (h * 2 + 2) * kFloat;
        head.activationBytes = h * kFloat;
        head.kernels = 3;
    }
    g.layers.push_back(head);
    return g;
}

LayerGraph bertBase()
{
    TransformerShape s;
    s.typeVocab = 2;
    s.pooler = true;
    s.postNorm = true;
    LayerGraph g = transformer(s);
    g.id = QStringLiteral("bert-base");
    g.name = QStringLiteral("BERT-base");
    g.reference = QStringLiteral(
        "Hugging Face bert-base-uncased for sequence classification (2 labels): 109,483,778 "
        "parameters; forward 24·s·h²·L + 4·s²·h·L multiply-add FLOPs at s = 128 (Narayanan et "
        "al.)");
    g.defaultBatch = 32;
    g.optimizer = QStringLiteral("adam");
    // A tokenised sequence of 128 ids (int64) and its mask; GLUE-sized fine-tuning sets.
    g.sampleBytes = 128 * 8 * 3;
    g.inputBytes = 128 * 8 * 3;
    g.preprocessNs = 20e3;
    g.epochSamples = 392702; // MNLI's training set
    return g;
}

LayerGraph gpt2()
{
    TransformerShape s;
    s.seq = 1024;
    s.vocab = 50257;
    s.positions = 1024;
    s.lmHead = true;
    LayerGraph g = transformer(s);
    g.id = QStringLiteral("gpt2");
    g.name = QStringLiteral("GPT-2 small");
    g.reference =
        QStringLiteral("Hugging Face gpt2: 124,439,808 parameters (tied output embedding); forward "
                       "24·s·h²·L + 4·s²·h·L + 2·s·h·V FLOPs at s = 1,024 (Narayanan et al.)");
    g.defaultBatch = 8;
    g.optimizer = QStringLiteral("adam");
    g.sampleBytes = 1024 * 2; // uint16 token ids, as nanoGPT stores OpenWebText
    g.inputBytes = 1024 * 8 * 2;
    g.preprocessNs = 5e3;
    g.epochSamples = 9'000'000'000 / 1024; // OpenWebText: ~9 B tokens
    return g;
}

} // namespace

QStringList builtinModels()
{
    return {QStringLiteral("alexnet"),  QStringLiteral("vgg16"),      QStringLiteral("vgg19"),
            QStringLiteral("resnet50"), QStringLiteral("inception3"), QStringLiteral("bert-base"),
            QStringLiteral("gpt2")};
}

std::optional<LayerGraph> builtinModel(const QString &id, QString *error)
{
    const QString key = id.toLower().remove(QLatin1Char('_'));
    if (key == QLatin1String("alexnet"))
        return alexnet();
    if (key == QLatin1String("vgg16") || key == QLatin1String("vgg-16"))
        return vgg(16);
    if (key == QLatin1String("vgg19") || key == QLatin1String("vgg-19"))
        return vgg(19);
    if (key == QLatin1String("resnet50") || key == QLatin1String("resnet-50"))
        return resnet50();
    if (key == QLatin1String("inception3") || key == QLatin1String("inceptionv3") ||
        key == QLatin1String("inception-v3"))
        return inception3();
    if (key == QLatin1String("bert-base") || key == QLatin1String("bert") ||
        key == QLatin1String("bertbase"))
        return bertBase();
    if (key == QLatin1String("gpt2") || key == QLatin1String("gpt-2"))
        return gpt2();
    if (error)
        *error = QStringLiteral("unknown model '%1' (built-in: %2)")
                     .arg(id, builtinModels().join(QStringLiteral(", ")));
    return std::nullopt;
}

} // namespace gml::sim
