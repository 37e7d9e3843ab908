// SPDX-License-Identifier: GPL-3.0-or-later
// The automated analyses (issue 16), checked against computations done here from the raw
// slices: GPU busy and idle time, the straggler of each collective, the kernel time by family.
#include "analysis.h"
#include "dependencygraph.h"
#include "durationsketch.h"
#include "importutil.h"
#include "iterations.h"
#include "project.h"
#include "rankoverview.h"
#include "testutil.h"

#include <QCborArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <map>
#include <random>

using namespace gml;
using namespace gml::sim;

namespace {

using Intervals = std::vector<std::pair<TimeNs, TimeNs>>;

// The GPU slices of a run straight from the project, per device (source, rank, device index):
// every slice of a GPU or stream track with a duration, on the project clock, except Kineto's
// cuda_sync markers, the ranges the profiler draws on the GPU timeline (gpu_user_annotation,
// which span the gaps between their kernels) and the profiler's own span (not GPU work).
std::map<QString, Intervals> gpuSlices(Project &project, const QString &run)
{
    std::map<QString, Intervals> out;
    auto st = project.db().prepare(
        "SELECT t.source_id || '/' || coalesce(t.rank, -1) || '/' || t.pid, s.ts + "
        "src.clock_offset_ns + src.align_ns, "
        "s.dur FROM slice s JOIN track t ON t.id = s.track_id JOIN source src ON src.id = "
        "t.source_id "
        "JOIN run r ON r.id = t.run_id LEFT JOIN string c ON c.id = s.cat_id JOIN string n ON n.id "
        "= s.name_id "
        "WHERE r.name = ? AND t.kind IN (?, ?) AND s.dur > 0 AND coalesce(c.value, '') NOT IN "
        "('cuda_sync', 'Trace', 'gpu_user_annotation') "
        "AND n.value NOT LIKE 'PyTorch Profiler (%'");
    st.bind(1, run);
    st.bind(2, qint64(TrackKind::Gpu));
    st.bind(3, qint64(TrackKind::Stream));
    while (st.step())
        out[st.text(0)].emplace_back(st.int64(1), st.int64(1) + st.int64(2));
    return out;
}

// Busy time: the slices sorted and merged, by hand.
TimeNs busyOf(Intervals v)
{
    std::sort(v.begin(), v.end());
    TimeNs busy = 0, runStart = 0, runEnd = std::numeric_limits<TimeNs>::min();
    for (const auto &[a, b] : v) {
        if (a > runEnd) {
            if (runEnd > runStart)
                busy += runEnd - runStart;
            runStart = a;
            runEnd = b;
        } else {
            runEnd = std::max(runEnd, b);
        }
    }
    if (runEnd > runStart)
        busy += runEnd - runStart;
    return busy;
}

std::shared_ptr<const DependencyGraph> graphOf(Project &project, const QString &run)
{
    QString error;
    auto g = DependencyGraph::build(project, *project.findRun(run), &error);
    if (!g)
        qFatal("graph: %s", qPrintable(error));
    return std::make_shared<const DependencyGraph>(std::move(*g));
}

} // namespace

class TestAnalysis : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void gpuBusyAndIdleMatchTheSlices_data()
    {
        QTest::addColumn<QString>("folder");
        const QStringList folders = gmltest::sharedGpuTraces()
                                    << QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100");
        for (const QString &f : folders)
            QTest::newRow(qPrintable(f)) << f;
    }

    void gpuBusyAndIdleMatchTheSlices()
    {
        QFETCH(QString, folder);
        GML_REQUIRE_SHARED(folder);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {gmltest::sharedTraces() + QLatin1Char('/') + folder},
                            QStringLiteral("r"));
        const auto g = graphOf(*project, QStringLiteral("r"));
        const Analysis a = analyze(*g);
        const auto slices = gpuSlices(*project, QStringLiteral("r"));
        QCOMPARE(a.gpus.size(), slices.size());
        // Each GPU: its window is its first slice's start to its last slice's end; busy is the
        // union of its slices, idle the rest, to the nanosecond; the parts add up.
        std::map<std::pair<TimeNs, TimeNs>, TimeNs> expected; // window -> busy
        for (const auto &[device, list] : slices) {
            TimeNs a0 = std::numeric_limits<TimeNs>::max(), b0 = std::numeric_limits<TimeNs>::min();
            for (const auto &[s, e] : list) {
                a0 = std::min(a0, s);
                b0 = std::max(b0, e);
            }
            expected[{a0, b0}] = busyOf(list);
        }
        for (const GpuBreakdown &b : a.gpus) {
            const auto it = expected.find({b.start, b.end});
            QVERIFY2(it != expected.end(), qPrintable(b.device));
            QCOMPARE(b.time.busy(), it->second);
            QCOMPARE(b.time.window - b.time.busy(), b.time.idle);
            QCOMPARE(b.time.compute + b.time.communication + b.time.copies + b.time.idle,
                     b.time.window);
            const IdleSplit &s = b.idle;
            QCOMPARE(s.host() + s.otherStream + s.gpu + s.unattributed, b.time.idle);
            QVERIFY(b.communicationOverlapped <= b.communicationTotal);
        }
        // The kernel families hold every GPU node's time once.
        TimeNs families = 0, nodes = 0;
        for (const auto &f : a.families)
            families += f.time;
        for (const auto &n : g->nodes())
            if (g->resources()[size_t(n.resource)].gpu)
                nodes += n.end - n.start;
        QCOMPARE(families, nodes);
    }

    void dlrmStragglers()
    {
        const QString folder = QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100");
        GML_REQUIRE_SHARED(folder);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {gmltest::sharedTraces() + QLatin1Char('/') + folder},
                            QStringLiteral("dlrm"));
        const auto g = graphOf(*project, QStringLiteral("dlrm"));
        const Analysis a = analyze(*g);
        // Independently: each rank's NCCL kernels of an operation in start order; the k-th of
        // every rank is one collective (all-to-all as SendRecv too: 5 of them, then 3
        // all-reduces), and the rank whose k-th starts last is its straggler.
        std::map<std::pair<QString, int>, std::map<int, TimeNs>> starts; // (op, k) -> rank -> start
        std::map<std::pair<QString, int>, int> seen;
        auto st = project->db().prepare(
            "SELECT t.rank, s.ts + src.clock_offset_ns + src.align_ns, n.value FROM slice s JOIN "
            "track t ON t.id = s.track_id "
            "JOIN source src ON src.id = t.source_id JOIN string n ON n.id = s.name_id "
            "WHERE t.kind IN (?, ?) AND n.value LIKE 'ncclKernel_%' ORDER BY 2");
        st.bind(1, qint64(TrackKind::Gpu));
        st.bind(2, qint64(TrackKind::Stream));
        while (st.step()) {
            const int rank = int(st.int64(0));
            const QString op = st.text(2).section(QLatin1Char('_'), 1, 1);
            starts[{op, seen[{op, rank}]++}][rank] = st.int64(1);
        }
        QCOMPARE(starts.size(), size_t(8));
        QCOMPARE(a.stragglers.size(), size_t(8));
        // The analysis orders them by first arrival.
        std::vector<std::pair<TimeNs, std::pair<QString, int>>> order;
        for (const auto &[key, ranks] : starts) {
            QCOMPARE(ranks.size(), size_t(8));
            TimeNs first = std::numeric_limits<TimeNs>::max();
            for (const auto &[rank, t] : ranks)
                first = std::min(first, t);
            order.push_back({first, key});
        }
        std::sort(order.begin(), order.end());
        for (size_t k = 0; k < order.size(); ++k) {
            const auto &ranks = starts[order[k].second];
            int last = -1;
            TimeNs lastStart = std::numeric_limits<TimeNs>::min();
            for (const auto &[rank, t] : ranks)
                if (t > lastStart) {
                    lastStart = t;
                    last = rank;
                }
            const Straggler &s = a.stragglers[k];
            QCOMPARE(s.operation, order[k].second.first);
            QCOMPARE(s.ranks, 8);
            QCOMPARE(s.lastRank, last);
            QCOMPARE(s.lastArrival, lastStart);
            QCOMPARE(s.late(), lastStart - order[k].first);
            QVERIFY2(s.before.startsWith(QStringLiteral("host: ")) ||
                         s.before.startsWith(QStringLiteral("GPU: ")),
                     qPrintable(s.before));
        }
        // Eight ranks, their loads, and the imbalance as max / mean.
        QCOMPARE(a.ranks.size(), size_t(8));
        TimeNs sum = 0, most = 0;
        for (const auto &r : a.ranks) {
            sum += r.communication;
            most = std::max(most, r.communication);
        }
        QVERIFY(qAbs(a.communicationImbalance - double(most) * 8.0 / double(sum)) < 1e-9);
        QVERIFY(a.computeImbalance >= 1.0);
        // One iteration per rank and GPU, inside the rank's window.
        QCOMPARE(a.iterations.size(), size_t(8));
        // Per rank: only that rank's GPU, iteration and kernels.
        AnalysisScope rank3;
        rank3.rank = 3;
        const Analysis r3 = analyze(*g, rank3);
        QCOMPARE(r3.gpus.size(), size_t(1));
        QCOMPARE(r3.gpus.front().rank, 3);
        QCOMPARE(r3.iterations.size(), size_t(1));
        // A range halves the window and keeps the parts adding up.
        AnalysisScope range;
        const GpuBreakdown &whole = a.gpus.front();
        range.range = std::make_pair(whole.start, whole.start + whole.time.window / 2);
        const Analysis half = analyze(*g, range);
        QCOMPARE(half.gpus.front().time.window, whole.time.window / 2);
        QCOMPARE(half.gpus.front().time.compute + half.gpus.front().time.communication +
                     half.gpus.front().time.copies + half.gpus.front().time.idle,
                 whole.time.window / 2);
    }

    void kernelFamilies()
    {
        QCOMPARE(kernelFamily(QStringLiteral("volta_sgemm_128x32_nt"), NodeKind::Kernel),
                 QStringLiteral("gemm"));
        QCOMPARE(kernelFamily(
                     QStringLiteral("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn"),
                     NodeKind::Kernel),
                 QStringLiteral("gemm"));
        QCOMPARE(kernelFamily(QStringLiteral("void cudnn::cnn::implicit_convolve_sgemm<float>"),
                              NodeKind::Kernel),
                 QStringLiteral("convolution"));
        QCOMPARE(kernelFamily(QStringLiteral(
                                  "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits>"),
                              NodeKind::Kernel),
                 QStringLiteral("attention"));
        QCOMPARE(kernelFamily(QStringLiteral("void at::native::vectorized_elementwise_kernel<4, "
                                             "at::native::FillFunctor<float>>"),
                              NodeKind::Kernel),
                 QStringLiteral("elementwise"));
        QCOMPARE(kernelFamily(QStringLiteral("void at::native::reduce_kernel<512, 1>"),
                              NodeKind::Kernel),
                 QStringLiteral("reduction"));
        QCOMPARE(kernelFamily(QStringLiteral("ncclKernel_AllReduce_RING_LL_Sum_float"),
                              NodeKind::Collective),
                 QStringLiteral("communication"));
        QCOMPARE(kernelFamily(QStringLiteral("Memcpy HtoD (Pageable -> Device)"), NodeKind::Memcpy),
                 QStringLiteral("copy"));
        QCOMPARE(
            kernelFamily(QStringLiteral("void linearize_index_kernel<long>"), NodeKind::Kernel),
            QStringLiteral("indexing"));
        QCOMPARE(kernelFamily(QStringLiteral("void my_custom_kernel<int>"), NodeKind::Kernel),
                 QStringLiteral("other"));
    }

    void generatedJobIdleIsExplained()
    {
        // A generated 2-rank job: its GPUs idle only while the host launches or loads data, or
        // between kernels, never for unknown reasons inside the window.
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 2, 6);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces});
        const auto g = graphOf(*project, QStringLiteral("job"));
        const Analysis a = analyze(*g);
        QCOMPARE(a.gpus.size(), size_t(2));
        for (const auto &b : a.gpus) {
            QVERIFY(b.time.compute > 0 && b.time.communication > 0);
            QCOMPARE(b.idle.unattributed, 0);
            QVERIFY(b.idle.host() > 0);
        }
        QCOMPARE(a.iterations.size(), size_t(2 * 6));
        QCOMPARE(a.stragglers.size(), size_t(6)); // one all-reduce per step
    }

    // The durations a shard keeps of a kernel (issue 74): exact up to kExact values, then
    // buckets whose percentiles stay within 0.5% of the sorted list's, merged across shards as
    // if one shard had them all, kept through CBOR; damaged ones refused.
    void durationsMergeAcrossShards()
    {
        const auto nearest = [](const std::vector<TimeNs> &sorted, double p) {
            return sorted[std::min(sorted.size() - 1, size_t(p * double(sorted.size() - 1) + 0.5))];
        };
        std::mt19937 rng(7);
        std::lognormal_distribution<double> spread(12.0, 0.8); // about 160 us, a long tail
        std::vector<TimeNs> all, shards[3];
        for (int i = 0; i < 3000; ++i) {
            const TimeNs d = i % 500 == 0 ? 0 : TimeNs(spread(rng));
            all.push_back(d);
            shards[i % 3].push_back(d);
        }
        std::sort(all.begin(), all.end());
        DurationSketch merged;
        for (auto &s : shards) {
            std::sort(s.begin(), s.end());
            merged.merge(DurationSketch::fromSorted(s));
        }
        const DurationSketch whole = DurationSketch::fromSorted(all);
        QCOMPARE(merged.count(), qint64(all.size()));
        QCOMPARE(merged.max(), all.back());
        QVERIFY(!merged.isExact());
        for (double p : {0.0, 0.01, 0.5, 0.9, 0.99, 1.0}) {
            const TimeNs want = nearest(all, p);
            QCOMPARE(merged.quantile(p), whole.quantile(p));
            QVERIFY2(
                std::abs(double(merged.quantile(p) - want)) <= 0.005 * double(want),
                qPrintable(
                    QStringLiteral("p%1: %2 against %3").arg(p).arg(merged.quantile(p)).arg(want)));
        }
        // Few values stay exact, merged too.
        DurationSketch few = DurationSketch::fromSorted({10, 20, 30});
        few.merge(DurationSketch::fromSorted({15, 25, 40}));
        QVERIFY(few.isExact());
        QCOMPARE(few.max(), TimeNs(40));
        QCOMPARE(few.quantile(0.5), TimeNs(25)); // of 10 15 20 25 30 40: rank round(2.5)
        QCOMPARE(few.quantile(1.0), TimeNs(40));
        DurationSketch grown = few; // exact, then past kExact: the max of every part kept
        grown.merge(DurationSketch::fromSorted(std::vector<TimeNs>(DurationSketch::kExact, 12)));
        QVERIFY(!grown.isExact());
        QCOMPARE(grown.max(), TimeNs(40));
        QCOMPARE(grown.quantile(1.0), TimeNs(40));
        for (const DurationSketch &s : {merged, few}) {
            const auto back = DurationSketch::fromCbor(s.toCbor());
            QVERIFY(back);
            QCOMPARE(back->count(), s.count());
            QCOMPARE(back->quantile(0.9), s.quantile(0.9));
        }
        QCborArray counted = merged.toCbor().toArray();
        counted[0] = merged.count() + 1; // says more values than its buckets hold
        QVERIFY(!DurationSketch::fromCbor(counted));
        QVERIFY(!DurationSketch::fromCbor(QCborArray{3, 10, 5, QCborArray{10, 20, 30}}));
        QVERIFY(!DurationSketch::fromCbor(QCborValue(QStringLiteral("sketch"))));
        QCOMPARE(DurationSketch().quantile(0.5), TimeNs(0));
    }

    // Steady state (issue 73): warm-up is the leading iterations over 1.5x the median, at most
    // half; a slow step later stays in. A generated job whose first step compiles for 1.3 s
    // reports the mean of the other nine as its step time, says it left one out, and gives the
    // mean with it; the Runs pane's step metrics agree, from their own per-iteration times.
    void warmUpIsLeftOutOfTheStepTime()
    {
        QCOMPARE(warmupIterations({1'300, 32, 33, 31, 32}), 1);
        QCOMPARE(warmupIterations({32, 100, 33, 31, 32}), 0);
        QCOMPARE(warmupIterations({900, 100, 30, 30, 31, 30}), 2);
        QCOMPARE(warmupIterations({100, 100, 100, 30}), 0); // the median is 100
        QCOMPARE(warmupIterations({1'000, 30}), 0);
        QTemporaryDir dir;
        const QString traces = dir.filePath(QStringLiteral("j"));
        const auto gen = gmltest::runProgram(
            QStringLiteral(GRADEML_TRACEGEN),
            {QStringLiteral("--out"), traces, QStringLiteral("--ranks"), QStringLiteral("2"),
             QStringLiteral("--steps"), QStringLiteral("10"), QStringLiteral("--layers"),
             QStringLiteral("4"), QStringLiteral("--healthy"), QStringLiteral("--warmup-ms"),
             QStringLiteral("1300")});
        QCOMPARE(gen.code, 0);
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        QCOMPARE(gmltest::runCli(
                     {QStringLiteral("import"), traces, QStringLiteral("--project"), project})
                     .code,
                 0);
        const auto runs =
            gmltest::runCli({QStringLiteral("runs"), project, QStringLiteral("--json")});
        QCOMPARE(runs.code, 0);
        const QJsonObject metrics = QJsonDocument::fromJson(runs.out)
                                        .object()
                                        .value(QStringLiteral("runs"))
                                        .toArray()
                                        .first()
                                        .toObject()
                                        .value(QStringLiteral("metrics"))
                                        .toObject();
        const QJsonArray times = metrics.value(QStringLiteral("step_times_ns")).toArray();
        QCOMPARE(times.size(), 10);
        QVERIFY(times[0].toDouble() > 1.3e9);
        double steady = 0, all = 0;
        for (qsizetype k = 0; k < times.size(); ++k) {
            all += times[k].toDouble();
            if (k > 0)
                steady += times[k].toDouble();
        }
        steady /= 9;
        all /= 10;
        QCOMPARE(metrics.value(QStringLiteral("warmup_iterations")).toInt(), 1);
        QVERIFY(std::abs(metrics.value(QStringLiteral("step_mean_ns")).toDouble() - steady) < 1);
        QVERIFY(std::abs(metrics.value(QStringLiteral("step_mean_all_ns")).toDouble() - all) < 1);
        const auto r =
            gmltest::runCli({QStringLiteral("analyze"), project, QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject summary =
            QJsonDocument::fromJson(r.out).object().value(QStringLiteral("summary")).toObject();
        QCOMPARE(summary.value(QStringLiteral("warmup_iterations")).toInt(), 1);
        QVERIFY2(
            std::abs(summary.value(QStringLiteral("step_time_ns")).toDouble() - steady) < 1e3,
            qPrintable(QString::number(summary.value(QStringLiteral("step_time_ns")).toDouble())));
        QVERIFY(summary.value(QStringLiteral("step_time_all_ns")).toDouble() > 20 * steady);
        const auto text = gmltest::runCli({QStringLiteral("analyze"), project});
        QVERIFY2(text.out.contains("1 warm-up of 10 iterations left out"), text.out.constData());
        // The findings are priced against the same steady step (they were against the mean
        // with warm-up: "-0.4% per iteration (131.575 ms -> ...)").
        int priced = 0;
        for (const auto &f :
             QJsonDocument::fromJson(r.out).object().value(QStringLiteral("findings")).toArray()) {
            const QJsonObject o = f.toObject();
            if (!o.contains(QStringLiteral("iteration_before_ns")))
                continue;
            ++priced;
            QVERIFY(std::abs(o.value(QStringLiteral("iteration_before_ns")).toDouble() -
                             summary.value(QStringLiteral("step_time_ns")).toDouble()) < 1e3);
        }
        QVERIFY(priced > 0);
        // So is the what-if's mean iteration.
        const auto whatif =
            gmltest::runCli({QStringLiteral("whatif"), project, QStringLiteral("--preset"),
                             QStringLiteral("host=2"), QStringLiteral("--json")});
        QCOMPARE(whatif.code, 0);
        const QJsonObject mean = QJsonDocument::fromJson(whatif.out)
                                     .object()
                                     .value(QStringLiteral("mean_iteration"))
                                     .toObject();
        QCOMPARE(mean.value(QStringLiteral("warmup_iterations")).toInt(), 1);
        QVERIFY(std::abs(mean.value(QStringLiteral("measured_ns")).toDouble() - steady) < 1e3);
        // And the rank overview opens on the steady state: its window starts where the last
        // rank's first steady iteration does, and ranks by the waits there.
        QString error;
        auto p = Project::open(project, Project::Mode::ReadOnly, &error);
        QVERIFY2(p, qPrintable(error));
        const auto overview = loadRankOverview(*p, RunId(1), &error);
        QVERIFY2(overview, qPrintable(error));
        QCOMPARE(overview->lanes.size(), size_t(2));
        QCOMPARE(overview->warmup, 1);
        TimeNs steadyFrom = 0;
        for (const RankLane &l : overview->lanes) {
            QCOMPARE(l.iterations.size(), size_t(10));
            steadyFrom = std::max(steadyFrom, l.iterations[1].first);
            QVERIFY(l.steadyCommunication >= 0 &&
                    l.steadyCommunication <= l.end - std::max(l.start, overview->steadyFrom));
        }
        QCOMPARE(overview->steadyFrom, steadyFrom);
        // past the 1.3 s first step
        QVERIFY(overview->steadyFrom - overview->lanes.front().iterations.front().first >
                1'300'000'000);
    }

    void cli()
    {
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 2, 3);
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        auto run = [](const QStringList &args) {
            const auto r = gmltest::runCli(args);
            return std::make_pair(r.code, r.all());
        };
        auto r = run({QStringLiteral("import"), traces, QStringLiteral("--project"), project});
        QVERIFY2(r.first == 0, qPrintable(r.second));
        r = run({QStringLiteral("analyze"), project, QStringLiteral("--json")});
        QVERIFY2(r.first == 0, qPrintable(r.second));
        const QJsonObject o = QJsonDocument::fromJson(r.second.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("gpus")).toArray().size(), 2);
        QCOMPARE(o.value(QStringLiteral("stragglers")).toArray().size(), 3);
        r = run(
            {QStringLiteral("analyze"), project, QStringLiteral("--rank"), QStringLiteral("1")});
        QVERIFY2(r.first == 0 && r.second.contains(QStringLiteral("rank 1 · GPU")) &&
                     !r.second.contains(QStringLiteral("rank 0 · GPU")),
                 qPrintable(r.second));
        r = run({QStringLiteral("analyze"), project, QStringLiteral("--range"),
                 QStringLiteral("0:5ms")});
        QVERIFY2(r.first == 0 && r.second.contains(QStringLiteral("GPU time")),
                 qPrintable(r.second));
        r = run({QStringLiteral("analyze"), project, QStringLiteral("--range"),
                 QStringLiteral("5ms:1ms")});
        QCOMPARE(r.first, 2);
        QVERIFY2(r.second.contains(QStringLiteral("--range expects START:END")),
                 qPrintable(r.second));
        r = run(
            {QStringLiteral("analyze"), project, QStringLiteral("--rank"), QStringLiteral("7")});
        QCOMPARE(r.first, 1);
        QVERIFY2(r.second.contains(QStringLiteral("no GPU work on rank 7")), qPrintable(r.second));
    }
};

QTEST_GUILESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
