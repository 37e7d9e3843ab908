// SPDX-License-Identifier: GPL-3.0-or-later
// FLOPs and bytes from recorded shapes (opcost.h), the graph's costed operators, MFU and the
// roofline (roofline.h, grademl roofline): by hand on each class, and on the shared ResNet-50
// trace against FLOPs worked out here from its raw JSON.
#include "analysischarts.h"
#include "dependencygraph.h"
#include "devicecatalog.h"
#include "findings.h"
#include "gziputil.h"
#include "importutil.h"
#include "opcost.h"
#include "project.h"
#include "roofline.h"
#include "testutil.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace gml;

namespace {

const QString kResnet = QStringLiteral(
    "pytorch_kineto/kineto_tbplugin_2021_resnet50_v100/worker0.1623143089861.pt.trace.json.gz");

OpInputs inputs(const char *dims, const char *types, const char *concrete = "")
{
    auto in = OpInputs::parse(dims, types, concrete);
    if (!in)
        qFatal("bad dims %s", dims);
    return *in;
}

} // namespace

class TestRoofline : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Issue 73: a MIG instance is what its rank sees, a slice of the GPU (the NVIDIA MIG user
    // guide's profiles), not the whole board: MFU, the roofline and what-if ratios of a run on
    // "NVIDIA A100-SXM4-40GB MIG 3g.20gb" are against 3/7 of the compute and 4/8 of the memory.
    void migInstanceIsASliceOfItsGpu()
    {
        const auto &cat = sim::DeviceCatalog::builtin();
        const sim::Device *a100 = cat.device(QStringLiteral("A100"));
        const sim::Device *slice = cat.device(QStringLiteral("NVIDIA A100-SXM4-40GB MIG 3g.20gb"));
        QVERIFY(a100 && slice && slice != a100);
        QCOMPARE(slice->id, QStringLiteral("A100-MIG-3g.20gb"));
        QVERIFY(qFuzzyCompare(slice->fp16Tflops, 312.0 * 3 / 7));
        QVERIFY(qFuzzyCompare(slice->fp32Tflops, 19.5 * 3 / 7));
        QVERIFY(qFuzzyCompare(slice->memBwGBps, a100->memBwGBps * 4 / 8));
        QCOMPARE(slice->memGB, 20.0);
        QCOMPARE(slice->cus, 46); // 108 x 3/7
        // The same instance, asked again or by its id: one device.
        QCOMPARE(cat.device(QStringLiteral("NVIDIA A100-SXM4-40GB MIG 3g.20gb")), slice);
        QCOMPARE(cat.device(QStringLiteral("A100-MIG-3g.20gb")), slice);
        // An H100 80GB's smallest instance: 1/7 of the compute, 1/8 of the memory.
        const sim::Device *h1 = cat.device(QStringLiteral("NVIDIA H100 80GB HBM3 MIG 1g.10gb"));
        QVERIFY(h1);
        QVERIFY(qFuzzyCompare(h1->fp16Tflops, 989.4 / 7));
        QVERIFY(qFuzzyCompare(h1->memBwGBps, 3350.0 / 8));
        // A whole GPU is still itself.
        QCOMPARE(cat.device(QStringLiteral("NVIDIA A100-SXM4-40GB")), a100);
    }

    void matmulsAreTwoMNK()
    {
        const OpCost mm =
            opCost(u"aten::mm", inputs("[[32, 1000], [1000, 2048]]", R"(["float", "float"])"));
        QVERIFY(mm.known);
        QCOMPARE(mm.flops, 2.0 * 32 * 1000 * 2048);
        QCOMPARE(mm.bytes, 4.0 * (32 * 1000 + 1000 * 2048 + 32 * 2048));
        QVERIFY(!mm.halfPrecision);
        const OpCost addmm = opCost(
            u"aten::addmm", inputs("[[1000], [32, 2048], [2048, 1000], [], []]",
                                   R"(["c10::Half", "c10::Half", "c10::Half", "Int", "Int"])"));
        QCOMPARE(addmm.flops, 2.0 * 32 * 2048 * 1000);
        QVERIFY(addmm.halfPrecision);
        QVERIFY(!addmm.bf16);
        // bfloat16 is 16-bit too, with its own peak where the GPU has one (issue 75).
        const OpCost bf = opCost(u"aten::mm", inputs("[[32, 1000], [1000, 2048]]",
                                                     R"(["c10::BFloat16", "c10::BFloat16"])"));
        QVERIFY(bf.halfPrecision && bf.bf16);
        QCOMPARE(bf.bytes, 2.0 * (32 * 1000 + 1000 * 2048 + 32 * 2048));
        const OpCost bmm =
            opCost(u"aten::bmm", inputs("[[8, 128, 64], [8, 64, 256]]", R"(["float", "float"])"));
        QCOMPARE(bmm.flops, 2.0 * 8 * 128 * 256 * 64);
        // A composite is not costed itself; missing shapes are said, not guessed.
        QCOMPARE(opClass(u"aten::linear"), OpClass::None);
        const OpCost none = opCost(u"aten::mm", inputs("[[], []]", R"(["float", "float"])"));
        QVERIFY(!none.known);
        QVERIFY(none.missing.contains(QLatin1String("shapes")));
    }

    void convolutionsNeedTheirOutput()
    {
        // 7x7 stride 2 padding 3 on 224x224: 112x112 out.
        const char *dims = "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], []]";
        const char *types =
            R"(["float", "float", "", "GenericList", "GenericList", "GenericList", "Int"])";
        const double expected = 2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7;
        const OpCost without = opCost(u"aten::conv2d", inputs(dims, types));
        QVERIFY(!without.known);
        QVERIFY(without.missing.contains(QLatin1String("output size")));
        const OpCost concrete =
            opCost(u"aten::conv2d",
                   inputs(dims, types, R"(["", "", "", "[2, 2]", "[3, 3]", "[1, 1]", "1"])"));
        QVERIFY(concrete.known);
        QCOMPARE(concrete.flops, expected);
        const Dims out{32, 64, 112, 112};
        QCOMPARE(opCost(u"aten::conv2d", inputs(dims, types), &out).flops, expected);
        // Grouped (depthwise): the weight's second dimension is C / groups.
        const Dims dwOut{8, 32, 56, 56};
        QCOMPARE(opCost(u"aten::conv2d",
                        inputs("[[8, 32, 56, 56], [32, 1, 3, 3]]", R"(["float", "float"])"), &dwOut)
                     .flops,
                 2.0 * 8 * 32 * 56 * 56 * 1 * 3 * 3);
        // Backward: grad input and grad weight each cost the forward; one part when one ran.
        const auto bwd = inputs("[[32, 512, 7, 7], [32, 2048, 7, 7], [2048, 512, 1, 1]]",
                                R"(["float", "float", "float"])");
        const double fwd = 2.0 * 32 * 2048 * 7 * 7 * 512;
        QCOMPARE(opCost(u"aten::cudnn_convolution_backward", bwd).flops, 2 * fwd);
        QCOMPARE(opCost(u"aten::cudnn_convolution_backward", bwd, nullptr, 1).flops, fwd);
        // The generic op's output_mask decides.
        const auto generic =
            inputs("[[32, 2048, 7, 7], [32, 512, 7, 7], [2048, 512, 1, 1], [], [], [], [], [], [], "
                   "[], []]",
                   R"(["float", "float", "float", "", "", "", "", "", "", "", ""])",
                   R"(["", "", "", "", "", "", "", "", "", "", "[False, True, False]"])");
        QCOMPARE(opCost(u"aten::convolution_backward", generic).flops, fwd);
    }

    void attentionAndBytes()
    {
        const char *qkv = "[[4, 16, 1024, 64], [4, 16, 1024, 64], [4, 16, 1024, 64], [], []]";
        const double full = 4.0 * 4 * 16 * 1024 * 1024 * 64;
        const OpCost a = opCost(
            u"aten::_scaled_dot_product_flash_attention",
            inputs(qkv, R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Double", "Bool"])",
                   R"(["", "", "", "0.", "False"])"));
        QCOMPARE(a.flops, full);
        QVERIFY(a.halfPrecision);
        const OpCost causal = opCost(
            u"aten::_scaled_dot_product_flash_attention",
            inputs(qkv, R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Double", "Bool"])",
                   R"(["", "", "", "0.", "True"])"));
        QCOMPARE(causal.flops, full / 2);
        // A bytes-only op: what it reads and writes.
        const OpCost relu = opCost(u"aten::relu_", inputs("[[32, 64, 112, 112]]", R"(["float"])"));
        QVERIFY(relu.known);
        QCOMPARE(relu.bytes, 2.0 * 4 * 32 * 64 * 112 * 112);
        QCOMPARE(dtypeBytes(u"c10::Half"), 2);
        QCOMPARE(dtypeBytes(u"Int"), 0);
        QVERIFY(isModelFlops(OpClass::Matmul) && !isModelFlops(OpClass::Elementwise));
    }

    // ResNet-50 (V100, 2021): every aten::addmm and aten::mm the graph costs has the 2·M·N·K
    // of its recorded dims, worked out here from the raw JSON; convolutions are costed (their
    // output from the backward of the same shapes); MFU is between 0 and 1; the roofline puts
    // the convolutions against the V100's fp32 peak.
    void resnetFromItsRawJson()
    {
        GML_REQUIRE_SHARED(kResnet);
        const QString path = gmltest::sharedTraces() + QLatin1Char('/') + kResnet;
        const QJsonArray events = gmltest::traceEvents(path);
        QVERIFY(!events.isEmpty());
        QList<double> raw;
        for (const auto &v : events) {
            const QJsonObject e = v.toObject();
            const QString name = e[QStringLiteral("name")].toString();
            if (name != QLatin1String("aten::addmm") && name != QLatin1String("aten::mm"))
                continue;
            const QJsonArray d =
                e[QStringLiteral("args")].toObject()[QStringLiteral("Input Dims")].toArray();
            const int a = name == QLatin1String("aten::addmm") ? 1 : 0;
            const QJsonArray x = d[a].toArray(), y = d[a + 1].toArray();
            raw << 2.0 * x[0].toDouble() * x[1].toDouble() * y[1].toDouble();
        }
        QCOMPARE(raw.size(), 18);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {QFileInfo(path).absolutePath()});
        const auto run = project->findRun(QStringLiteral("kineto_tbplugin_2021_resnet50_v100"));
        QVERIFY(run);
        QString error;
        const auto g = sim::DependencyGraph::build(*project, *run, &error);
        QVERIFY2(g, qPrintable(error));
        QList<double> costed;
        qint64 convs = 0, convsKnown = 0;
        for (const auto &o : g->opCosts()) {
            const QString name = g->name(o.name);
            if (name == QLatin1String("aten::addmm") || name == QLatin1String("aten::mm")) {
                QVERIFY(o.known && !o.recorded);
                costed << o.flops;
            }
            if (o.cls == OpClass::Convolution) {
                ++convs;
                convsKnown += o.known;
            }
        }
        std::sort(raw.begin(), raw.end());
        std::sort(costed.begin(), costed.end());
        QCOMPARE(costed, raw);
        QCOMPARE(convs, 318);      // aten::conv2d, outermost of its four nested ops
        QCOMPARE(convsKnown, 318); // each output found from its backward
        const sim::Roofline r = sim::roofline(*g, QStringLiteral("Tesla V100-DGXS-32GB"),
                                              sim::DeviceCatalog::builtin());
        QVERIFY2(r.problem().isEmpty(), qPrintable(r.problem()));
        QCOMPARE(r.catalogId, QStringLiteral("V100"));
        const auto conv = std::find_if(r.ops.begin(), r.ops.end(), [](const sim::RooflineOp &o) {
            return o.name == QLatin1String("aten::conv2d");
        });
        QVERIFY(conv != r.ops.end());
        QCOMPARE(conv->bound, QStringLiteral("compute"));
        QVERIFY(conv->achievedTflops() > 0 && conv->achievedTflops() <= r.peakTflops);
        for (const auto &o : r.ops)
            QVERIFY2(o.achievedTflops() <= (o.half ? r.peakTflopsHalf : r.peakTflops),
                     qPrintable(o.name));
        // The Roofline tab's chart: a point per op with FLOPs and bytes, the V100's two roofs.
        const RooflineChart chart = rooflineChart(r);
        QVERIFY(chart.why.isEmpty() && !chart.isEmpty());
        QCOMPARE(chart.roofs.size(), size_t(2));
        QCOMPARE(chart.peakGbps, 900.0);
        double shares = 0;
        for (const auto &p : chart.points) {
            const sim::RooflineOp &op = r.ops[p.op];
            QCOMPARE(p.y, op.achievedTflops());
            QCOMPARE(p.color, boundColour(op.bound));
            QVERIFY(op.slice != 0 && op.track != 0 && op.sliceEnd > op.sliceStart);
            shares += p.share;
        }
        QVERIFY(std::abs(shares - 1) < 1e-9);
        // MFU in grademl analyze, and grademl roofline's JSON.
        project.reset();
        const QString file = dir.filePath(QStringLiteral("p.grademl"));
        const auto analyze =
            gmltest::runCli({QStringLiteral("analyze"), file, QStringLiteral("--json")});
        QCOMPARE(analyze.code, 0);
        const QJsonObject summary =
            QJsonDocument::fromJson(analyze.out).object()[QStringLiteral("summary")].toObject();
        const double mfu = summary[QStringLiteral("mfu")].toDouble(-1);
        QVERIFY2(mfu > 0 && mfu < 1, qPrintable(QString::number(mfu)));
        // HFU counts every costed op (batch norm, elementwise too): above MFU, below 1, and its
        // FLOPs above the model's by what those ops did.
        const double hfu = summary[QStringLiteral("hfu")].toDouble(-1);
        QVERIFY2(hfu > mfu && hfu < 1, qPrintable(QString::number(hfu)));
        QVERIFY(summary[QStringLiteral("hardware_flops")].toDouble() >
                summary[QStringLiteral("flops")].toDouble());
        QCOMPARE(hfu / mfu, summary[QStringLiteral("hardware_flops")].toDouble() /
                                summary[QStringLiteral("flops")].toDouble());
        const auto cli =
            gmltest::runCli({QStringLiteral("roofline"), file, QStringLiteral("--json")});
        QCOMPARE(cli.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(cli.out).object();
        QCOMPARE(o[QStringLiteral("peak_tflops")].toDouble(), 15.7);
        QCOMPARE(o[QStringLiteral("peak_gbps")].toDouble(), 900.0);
        // --device (issue 73): the peaks of the GPU named, for a trace whose GPU the catalog
        // does not know (or to see the same work against another's); an unknown one refused.
        const auto a100 =
            gmltest::runCli({QStringLiteral("roofline"), file, QStringLiteral("--device"),
                             QStringLiteral("A100"), QStringLiteral("--json")});
        QCOMPARE(a100.code, 0);
        QCOMPARE(QJsonDocument::fromJson(a100.out).object()[QStringLiteral("peak_gbps")].toDouble(),
                 2039.0);
        QCOMPARE(gmltest::runCli({QStringLiteral("roofline"), file, QStringLiteral("--device"),
                                  QStringLiteral("TPUv9")})
                     .code,
                 2);
        const QJsonObject first = o[QStringLiteral("ops")].toArray().first().toObject();
        for (const char *key : {"name", "calls", "time_ns", "flops", "bytes", "achieved_tflops",
                                "achieved_gbps", "bound"})
            QVERIFY2(first.contains(QLatin1String(key)), key);
        // ResNet-50's convolutions run at 72-79% of the fp32 peak: no compute-efficiency
        // finding.
        const QJsonArray findings =
            QJsonDocument::fromJson(analyze.out).object()[QStringLiteral("findings")].toArray();
        for (const auto &f : findings)
            QVERIFY(f.toObject()[QStringLiteral("rule")].toString() !=
                    QLatin1String("compute-efficiency"));
    }

    // The measured pair's Qwen1.5-0.5B runs in bfloat16: its matrix ops are labelled bf16, not
    // fp16, against the bf16 peak (on an H100 the fp16 one; on a V100, which has no bf16 unit,
    // its fp32 rate).
    void bf16WorkIsLabelledBf16()
    {
        const QString pair = QStringLiteral("pytorch_kineto/tracelens_qwen05b_h100_vs_mi300");
        GML_REQUIRE_SHARED(pair);
        QTemporaryDir dir;
        auto p = gmltest::newProject(dir);
        gmltest::importInto(*p, {gmltest::sharedTraces() + QLatin1Char('/') + pair});
        const auto run =
            p->findRun(QStringLiteral("tracelens_qwen05b_h100_vs_mi300/h100_Qwen_Qwen1"));
        QVERIFY(run);
        QString error;
        const auto g = sim::DependencyGraph::build(*p, *run, &error);
        QVERIFY2(g, qPrintable(error));
        const auto &cat = sim::DeviceCatalog::builtin();
        const sim::Roofline r = sim::roofline(*g, QStringLiteral("NVIDIA H100 80GB HBM3"), cat);
        QCOMPARE(r.peakTflopsBf16, 989.4);
        const auto mm = std::find_if(r.ops.begin(), r.ops.end(), [](const sim::RooflineOp &o) {
            return o.name == QLatin1String("aten::mm");
        });
        QVERIFY(mm != r.ops.end());
        QCOMPARE(mm->precision(), QStringLiteral("bf16"));
        QCOMPARE(mm->peakTflops, 989.4);
        QCOMPARE(cat.device(QStringLiteral("V100"))->bf16Tflops, 15.7);
        QCOMPARE(cat.device(QStringLiteral("MI300X"))->bf16Tflops, 1307.4);
    }

    // The 8-rank DLRM trace's matmuls (recorded shapes) are tiny: the roofline finds them
    // latency-bound, and the finding says so, with nothing to price (a faster kernel would not
    // help), its share their part of the kernels' time.
    void latencyBoundMatrixWorkIsAFinding()
    {
        const QString dlrm = QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100");
        GML_REQUIRE_SHARED(dlrm);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {gmltest::sharedTraces() + QLatin1Char('/') + dlrm});
        const auto run = project->findRun(QStringLiteral("param_dlrm_8rank_v100"));
        QVERIFY(run);
        QString error;
        const auto report = sim::analyzeRun(*project, *run, QStringLiteral("dlrm"), {}, &error);
        QVERIFY2(report, qPrintable(error));
        QVERIFY(report->roofline);
        const sim::Finding *found = nullptr;
        for (const auto &f : report->findings)
            if (f.rule == QLatin1String("compute-efficiency"))
                found = &f;
        QVERIFY(found);
        QVERIFY(found->fix.isEmpty() && !found->noFix.isEmpty());
        QVERIFY2(found->detail.contains(QStringLiteral("Latency-bound")) &&
                     found->detail.contains(QStringLiteral("aten::mm")),
                 qPrintable(found->detail));
        // The share: the matrix ops' GPU time over all kernels', from the roofline itself.
        TimeNs matrix = 0;
        for (const auto &o : report->roofline->ops)
            if (o.opClass == QLatin1String("matmul") || o.opClass == QLatin1String("convolution") ||
                o.opClass == QLatin1String("attention"))
                if (o.flops > 0)
                    matrix += o.time;
        QCOMPARE(found->share, double(matrix) / double(report->roofline->kernelTime));
        QVERIFY(found->title.contains(QStringLiteral("V100")));
    }
};

QTEST_GUILESS_MAIN(TestRoofline)
#include "tst_roofline.moc"
