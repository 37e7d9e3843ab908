// SPDX-License-Identifier: GPL-3.0-or-later
// The kernel taxonomy (model/core/kerneltaxonomy.h) on kernel names as the libraries write
// them (cuBLAS, cuDNN, CUTLASS, PyTorch, Triton/Inductor, NCCL; Tensile, hipBLASLt, rocBLAS,
// MIOpen, composable_kernel, aiter, RCCL, the ROCm runtime; XLA on GPU and TPU), and on the
// real AMD and NVIDIA traces of ../shared/traces: no GEMM of either vendor is "other".
#include "analysis.h"
#include "dependencygraph.h"
#include "importutil.h"
#include "kerneltaxonomy.h"
#include "project.h"
#include "sliceclass.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QTest>

using namespace gml;
using Family = KernelKind::Family;
using Precision = KernelKind::Precision;

Q_DECLARE_METATYPE(KernelKind::Family)
Q_DECLARE_METATYPE(KernelKind::Precision)
Q_DECLARE_METATYPE(gml::Bound)

class TestKernelTaxonomy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void names_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<Family>("family");
        QTest::addColumn<Bound>("bound");
        QTest::addColumn<Precision>("precision");
        QTest::addColumn<QString>("library");
        auto row = [](const char *tag, const char *name, Family f, Bound b, Precision p,
                      const char *lib) {
            QTest::newRow(tag) << QString::fromLatin1(name) << f << b << p
                               << QString::fromLatin1(lib);
        };
        const Bound C = Bound::Compute, M = Bound::Memory;
        // NVIDIA: cuBLAS, cuBLASLt, CUTLASS, cuDNN, PyTorch, FlashAttention, NCCL, Triton.
        row("cublas sgemm", "volta_sgemm_128x64_nt", Family::Gemm, C, Precision::Fp32, "cuBLAS");
        row("cublas hmma", "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn",
            Family::Gemm, C, Precision::Half, "cuBLAS");
        row("cublas sm90",
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
            "execute_segment_k_off_kernel__5x_cublas",
            Family::Gemm, C, Precision::Half, "cuBLAS");
        row("cublaslt nvjet", "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT", Family::Gemm, C,
            Precision::Half, "cuBLAS");
        row("cublas splitk", "void splitKreduce_kernel<32, 16, int, float, float, float, float>",
            Family::Gemm, M, Precision::Fp32, "cuBLAS");
        row("cutlass",
            "void cutlass::Kernel<cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_nn_"
            "align8>(Params)",
            Family::Gemm, C, Precision::Half, "CUTLASS");
        row("cudnn implicit", "void cudnn::cnn::implicit_convolve_sgemm<float, float, 1024, 5>",
            Family::Convolution, C, Precision::Fp32, "cuDNN");
        row("cudnn xmma fprop",
            "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x64",
            Family::Convolution, C, Precision::Half, "cuDNN");
        row("cudnn scudnn", "cudnn_train_volta_scudnn_128x128_stridedB_splitK_medium_nn_v1",
            Family::Convolution, C, Precision::Fp32, "cuDNN");
        row("cudnn offsets", "void cask_cudnn_infer::computeOffsetsKernel<false, false>",
            Family::Convolution, M, Precision::Unknown, "cuDNN");
        row("torch max pool",
            "void at::native::(anonymous namespace)::max_pool_forward_nchw<float>",
            Family::Reduction, M, Precision::Fp32, "PyTorch");
        row("torch nll", "void cunn_ClassNLLCriterion_updateOutput_kernel<float, float>",
            Family::Reduction, M, Precision::Fp32, "PyTorch");
        row("fbgemm pooled embeddings", "void permute_pooled_embs_kernel<float>", Family::Indexing,
            M, Precision::Fp32, "");
        row("cudnn bn", "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512>",
            Family::Normalization, M, Precision::Fp32, "cuDNN");
        row("cudnn layout", "void cudnn::ops::nchwToNhwcKernel<__half, __half, float, false>",
            Family::Elementwise, M, Precision::Half, "cuDNN");
        row("torch softmax",
            "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float>",
            Family::Softmax, M, Precision::Fp32, "PyTorch");
        row("torch fill",
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
            Family::Elementwise, M, Precision::Fp32, "PyTorch");
        row("torch reduce", "void at::native::reduce_kernel<512, 1>", Family::Reduction, M,
            Precision::Unknown, "PyTorch");
        row("torch layer norm",
            "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16>",
            Family::Normalization, M, Precision::Half, "PyTorch");
        row("torch index", "void at::native::(anonymous namespace)::indexSelectLargeIndex<float>",
            Family::Indexing, M, Precision::Fp32, "PyTorch");
        row("torch embedding bwd", "void linearize_index_kernel<long>", Family::Indexing, M,
            Precision::Unknown, "");
        row("torch adam",
            "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<TensorListMetadata"
            "<4>, FusedAdamMathFunctor<float, 4>>",
            Family::Optimizer, M, Precision::Fp32, "PyTorch");
        row("flash", "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>, true>",
            Family::Attention, C, Precision::Unknown, "FlashAttention");
        row("nccl", "ncclKernel_AllReduce_RING_LL_Sum_float", Family::Communication, M,
            Precision::Fp32, "NCCL");
        row("nccl devkernel", "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096>)",
            Family::Communication, M, Precision::Unknown, "NCCL");
        row("inductor pointwise", "triton_poi_fused_add_mul_0", Family::Elementwise, M,
            Precision::Unknown, "Triton");
        row("inductor reduction", "triton_red_fused_sum_1", Family::Reduction, M,
            Precision::Unknown, "Triton");
        row("inductor norm", "triton_per_fused_native_layer_norm_2", Family::Normalization, M,
            Precision::Unknown, "Triton");
        row("inductor mm template", "triton_tem_fused_mm_3", Family::Gemm, C, Precision::Unknown,
            "Triton");
        row("inductor near a collective", "triton_poi_fused_all_reduce_4", Family::Elementwise, M,
            Precision::Unknown, "Triton");
        row("memcpy", "Memcpy HtoD (Pageable -> Device)", Family::Copy, M, Precision::Unknown, "");
        // AMD: Tensile and hipBLASLt (problem type third), rocBLAS, MIOpen, composable_kernel,
        // aiter, RCCL, the ROCm runtime's blit kernels.
        row("tensile fp32 (shared MI250 trace)",
            "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_"
            "AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1",
            Family::Gemm, C, Precision::Fp32, "Tensile");
        row("tensile half", "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_GRVW8_ISA942",
            Family::Gemm, C, Precision::Half, "Tensile");
        row("hipblaslt bf16",
            "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_LDSB1_ISA942",
            Family::Gemm, C, Precision::Half, "Tensile");
        row("tensile double", "Cijk_Ailk_Bljk_DB_MT64x64x8_SN_ISA90a", Family::Gemm, C,
            Precision::Fp64, "Tensile");
        row("rocblas gemv", "void rocblas_gemvn_kernel<64, 16, int, float, float const*>",
            Family::Gemm, C, Precision::Fp32, "rocBLAS");
        row("miopen bn", "MIOpenBatchNormFwdTrainSpatial", Family::Normalization, M,
            Precision::Unknown, "MIOpen");
        row("miopen naive conv", "naive_conv_fwd_nchw_float_double_float", Family::Convolution, C,
            Precision::Fp64, "MIOpen");
        row("miopen igemm", "igemm_fwd_gtcx_nchw_fp32_bx0_ex1_bt128x128x16_wt32x32x2",
            Family::Convolution, C, Precision::Fp32, "MIOpen");
        row("miopen asm conv", "miopenSp3AsmConv_v21_1_3_gfx9_fp32_stride1", Family::Convolution, C,
            Precision::Fp32, "MIOpen");
        row("ck gemm",
            "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<ck::half_t>>",
            Family::Gemm, C, Precision::Half, "composable_kernel");
        row("ck fmha", "void ck_tile::kentry<ck_tile::FmhaFwdKernel<ck_tile::bf16_t>>",
            Family::Attention, C, Precision::Half, "composable_kernel");
        row("aiter rmsnorm", "void aiter::rmsnorm2d_fwd_kernel<__hip_bfloat16>",
            Family::Normalization, M, Precision::Half, "aiter");
        row("rccl", "rcclGenericKernel<1, false>", Family::Communication, M, Precision::Unknown,
            "RCCL");
        row("rocm blit", "__amd_rocclr_copyBuffer", Family::Copy, M, Precision::Unknown,
            "ROCm runtime");
        row("rocm fill", "__amd_rocclr_fillBufferAligned", Family::Copy, M, Precision::Unknown,
            "ROCm runtime");
        // XLA: GPU fusions and thunks, TPU ops.
        row("xla loop fusion", "loop_add_fusion", Family::Elementwise, M, Precision::Unknown,
            "XLA");
        row("xla fusion", "fusion.12", Family::Elementwise, M, Precision::Unknown, "XLA");
        row("xla input fusion", "input_reduce_fusion_3", Family::Reduction, M, Precision::Unknown,
            "XLA");
        row("xla gemm fusion", "gemm_fusion_dot.1", Family::Gemm, C, Precision::Unknown, "XLA");
        row("tpu dot", "dot.7", Family::Gemm, C, Precision::Unknown, "XLA");
        row("tpu convolution", "convolution.4", Family::Convolution, C, Precision::Unknown, "XLA");
        row("tpu all-reduce", "all-reduce.1", Family::Communication, M, Precision::Unknown, "XLA");
        // Nobody's.
        row("unknown", "void my_custom_kernel<int>", Family::Other, M, Precision::Unknown, "");
    }

    void names()
    {
        QFETCH(QString, name);
        QFETCH(Family, family);
        QFETCH(Bound, bound);
        QFETCH(Precision, precision);
        QFETCH(QString, library);
        const KernelKind k = kernelKind(name);
        QCOMPARE(QString(familyName(k.family)), QString(familyName(family)));
        QCOMPARE(k.bound == Bound::Compute, bound == Bound::Compute);
        QCOMPARE(QString(precisionName(k.precision)), QString(precisionName(precision)));
        QCOMPARE(QString(k.library), library);
        QCOMPARE(classifyKernel(name) == Bound::Compute, bound == Bound::Compute);
    }

    void halfPrecisionScalesWithTheFp16Rate()
    {
        QVERIFY(usesHalfPrecision(QStringLiteral("ampere_fp16_s16816gemm_fp16_128x128_tn")));
        QVERIFY(usesHalfPrecision(QStringLiteral("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_ISA942")));
        QVERIFY(!usesHalfPrecision(QStringLiteral("volta_sgemm_128x64_nt")));
        QVERIFY(!usesHalfPrecision(QStringLiteral("Cijk_Alik_Bljk_SB_Bias_MT64x16x32_ISA90a")));
    }

    // Call-path parts as they stay across processes (sliceclass.h): no object addresses, no
    // line numbers; other hex (a kernel's template argument) and names kept.
    void stableNames()
    {
        QCOMPARE(stableName(QStringLiteral("<built-in method add of Tensor object at 0x7f72a8c0>")),
                 QStringLiteral("<built-in method add of Tensor object>"));
        QCOMPARE(stableName(QStringLiteral("torch/nn/modules/module.py(1501): _call_impl")),
                 QStringLiteral("torch/nn/modules/module.py: _call_impl"));
        QCOMPARE(stableName(QStringLiteral("void k<0x10>(int)")),
                 QStringLiteral("void k<0x10>(int)"));
        QCOMPARE(stableName(QStringLiteral("aten::linear")), QStringLiteral("aten::linear"));
    }

    // On the real traces: the AMD MI250 run's Tensile GEMMs and an NVIDIA run's cuBLAS GEMMs
    // are "gemm", and neither run has a GEMM-like name left in "other".
    void realTracesHaveNoGemmInOther_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::newRow("amd mi250") << QStringLiteral("pytorch_kineto/hta_amd_mi250_rocm62");
        QTest::newRow("nvidia a100") << QStringLiteral("pytorch_kineto/hta_alexnet_a100");
        QTest::newRow("nvidia v100")
            << QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100");
    }

    void realTracesHaveNoGemmInOther()
    {
        QFETCH(QString, folder);
        GML_REQUIRE_SHARED(folder);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {gmltest::sharedTraces() + QLatin1Char('/') + folder});
        const auto run = project->findRun(QFileInfo(folder).fileName());
        QVERIFY(run);
        QString error;
        const auto g = sim::DependencyGraph::build(*project, *run, &error);
        QVERIFY2(g, qPrintable(error));
        const sim::Analysis a = sim::analyze(*g);
        TimeNs gemm = 0;
        for (const auto &f : a.families)
            if (f.family == QLatin1String("gemm"))
                gemm += f.time;
        QVERIFY2(gemm > 0, "no GEMM time");
        const QRegularExpression gemmLike(QStringLiteral("(?i)gemm|cijk_|matmul|xmma|nvjet"));
        for (const auto &k : a.kernels)
            if (k.family == QLatin1String("other"))
                QVERIFY2(!gemmLike.match(k.name).hasMatch(), qPrintable(k.name));
        // Unrecognised names are listed, with their time.
        const QJsonObject unknown =
            a.toJson().value(QStringLiteral("unrecognised_kernels")).toObject();
        QVERIFY(unknown.contains(QStringLiteral("count")));
        QVERIFY(unknown.value(QStringLiteral("time_ns")).toDouble() >= 0);
    }
};

QTEST_GUILESS_MAIN(TestKernelTaxonomy)
#include "tst_kerneltaxonomy.moc"
