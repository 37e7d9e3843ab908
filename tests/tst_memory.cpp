// SPDX-License-Identifier: GPL-3.0-or-later
// Memory from PyTorch's profile_memory events: the importer's counter tracks and the memory
// report (memoryreport.h, grademl memory), on the shared ResNet-50 trace against the running
// sum of its raw events worked out here, and on a generated trace whose allocation pattern
// (and leak) and FLOPs are known.
#include "dependencygraph.h"
#include "findings.h"
#include "gziputil.h"
#include "importutil.h"
#include "memorymodels.h"
#include "memoryreport.h"
#include "project.h"
#include "runmetrics.h"
#include "sourcework.h"
#include "testutil.h"
#include "trackrecords.h"
#include "whatif.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>

using namespace gml;

namespace {

const QString kResnet = QStringLiteral(
    "pytorch_kineto/kineto_tbplugin_2021_resnet50_v100/worker0.1623143089861.pt.trace.json.gz");
constexpr double kMiB = 1024.0 * 1024.0;

const DeviceMemory *device(const MemoryReport &r, const QString &name)
{
    for (const auto &d : r.devices)
        if (d.device == name)
            return &d;
    return nullptr;
}

const MemoryGroup *group(const std::vector<MemoryGroup> &groups, const QString &key)
{
    for (const auto &g : groups)
        if (g.key == key)
            return &g;
    return nullptr;
}

// The largest value of the run's counter track whose name ends with `suffix` under a track
// named `parent` (empty: any), and when it was first reached.
std::pair<double, TimeNs> counterPeak(Project &project, RunId run, const QString &name)
{
    for (const TrackRow &t : tracksOfRun(project, run)) {
        if (t.kind != TrackKind::Counter || t.name != name)
            continue;
        std::pair<double, TimeNs> best{-1, 0};
        for (const CounterPoint &p : counterPoints(project, t.id))
            if (p.value > best.first)
                best = {p.value, p.ts};
        return best;
    }
    return {-1, 0};
}

// `peaks` has `full`'s devices, in its order, with the same peaks and iteration levels, and
// none of what only the full report works out.
void checkPeaks(const MemoryReport &peaks, const MemoryReport &full)
{
    QCOMPARE(peaks.devices.size(), full.devices.size());
    QCOMPARE(peaks.runStart, full.runStart);
    for (size_t i = 0; i < full.devices.size(); ++i) {
        const DeviceMemory &a = full.devices[i], &b = peaks.devices[i];
        QCOMPARE(b.device, a.device);
        QCOMPARE(b.pid, a.pid);
        QCOMPARE(b.rank, a.rank);
        QCOMPARE(b.source, a.source);
        QCOMPARE(b.file, a.file);
        QCOMPARE(b.events, a.events);
        QCOMPARE(b.peakAllocated, a.peakAllocated);
        QCOMPARE(b.peakAt, a.peakAt);
        QCOMPARE(b.peakReserved, a.peakReserved);
        QCOMPARE(b.totalsRecorded, a.totalsRecorded);
        QCOMPARE(b.byAddress, a.byAddress);
        QCOMPARE(b.unmatchedFrees, a.unmatchedFrees);
        QCOMPARE(b.unmatchedFreeBytes, a.unmatchedFreeBytes);
        QCOMPARE(b.iterations.size(), a.iterations.size());
        for (size_t k = 0; k < a.iterations.size(); ++k) {
            const MemoryIteration &x = a.iterations[k], &y = b.iterations[k];
            QVERIFY(x.start == y.start && x.end == y.end && x.atStart == y.atStart &&
                    x.peak == y.peak && x.atEnd == y.atEnd);
        }
        QVERIFY(b.liveAtPeak.empty() && b.largest.empty() && b.curve.empty());
    }
}

// The run metrics' report has the full report's peaks: worked out from the threads with
// MemoryDetail::Peaks, and from the sources' summaries (memoryPeaks(), which the run metrics
// read), where they hold every device (`fromSummaries`) or the threads are read again.
void checkPeaksAsFull(Project &project, RunId run, const MemoryReport &full,
                      bool fromSummaries = true)
{
    QString error;
    const auto peaks = memoryReport(project, run, &error, MemoryDetail::Peaks);
    QVERIFY2(peaks, qPrintable(error));
    checkPeaks(*peaks, full);
    const auto sources = runSourceWork(project, run, &error);
    QVERIFY2(sources, qPrintable(error));
    size_t summarised = 0;
    for (const RunSourceWork &s : *sources)
        summarised += s.work.memory.size();
    if (fromSummaries)
        QCOMPARE(summarised, full.devices.size());
    QCOMPARE(rankThreadsSpanSources(project, run), !fromSummaries);
    const auto merged = memoryPeaks(project, run, *sources, &error);
    QVERIFY2(merged, qPrintable(error));
    checkPeaks(*merged, full);
}

} // namespace

class TestMemory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // ResNet-50 (V100, 2021, no addresses or totals recorded): the peak allocated per device is
    // the peak of the running sum of the raw events' Bytes on that device from the trace's
    // start, worked out here from the JSON; the counter track draws the same peak at the same
    // time; every free finds its allocation, so what was live at the GPU's peak adds up to it.
    void resnetPeakIsTheRunningSumOfItsEvents()
    {
        GML_REQUIRE_SHARED(kResnet);
        const QString path = gmltest::sharedTraces() + QLatin1Char('/') + kResnet;
        const QJsonArray events = gmltest::traceEvents(path);
        QVERIFY(!events.isEmpty());
        std::map<std::pair<int, int>, std::vector<std::pair<qint64, double>>> byDevice;
        for (const auto &v : events) {
            const QJsonObject e = v.toObject();
            if (e[QStringLiteral("name")].toString() != QLatin1String("[memory]"))
                continue;
            const QJsonObject a = e[QStringLiteral("args")].toObject();
            byDevice[{a[QStringLiteral("Device Type")].toInt(),
                      a[QStringLiteral("Device Id")].toInt()}]
                .emplace_back(qint64(e[QStringLiteral("ts")].toDouble()),
                              a[QStringLiteral("Bytes")].toDouble());
        }
        QCOMPARE(byDevice.size(), size_t(2));
        std::map<std::pair<int, int>, double> rawPeak;
        for (auto &[dev, list] : byDevice) {
            std::stable_sort(list.begin(), list.end(),
                             [](const auto &a, const auto &b) { return a.first < b.first; });
            double sum = 0, peak = 0;
            for (const auto &[ts, bytes] : list)
                peak = std::max(peak, sum += bytes);
            rawPeak[dev] = peak;
        }
        const double gpuPeak = rawPeak[std::make_pair(1, 0)];
        QCOMPARE(gpuPeak, 2791636480.0);

        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {QFileInfo(path).absolutePath()});
        const auto run = project->findRun(QStringLiteral("kineto_tbplugin_2021_resnet50_v100"));
        QVERIFY(run);
        QString error;
        const auto report = memoryReport(*project, *run, &error);
        QVERIFY2(report, qPrintable(error));
        checkPeaksAsFull(*project, *run, *report);
        QVERIFY(report->problem.isEmpty());
        QCOMPARE(report->devices.size(), size_t(2));
        const DeviceMemory *gpu = device(*report, QStringLiteral("GPU 0"));
        const DeviceMemory *cpu = device(*report, QStringLiteral("CPU"));
        QVERIFY(gpu && cpu);
        QCOMPARE(gpu->peakAllocated, gpuPeak);
        QCOMPARE(cpu->peakAllocated, rawPeak[std::make_pair(0, -1)]);
        QCOMPARE(gpu->events, qint64(byDevice[std::make_pair(1, 0)].size()));
        QVERIFY(!gpu->byAddress && !gpu->totalsRecorded && !gpu->peakReserved);
        // The counter track under the GPU's row: the same peak in MiB, at the same time.
        const auto [counterMiB, counterAt] =
            counterPeak(*project, *run, QStringLiteral("memory allocated · PyTorch profiler"));
        QCOMPARE(counterMiB, gpu->peakAllocated / kMiB);
        QCOMPARE(counterAt, gpu->peakAt);
        // Every free matched: the live allocations add up to the peak.
        QCOMPARE(gpu->unmatchedFrees, qint64(0));
        double live = 0;
        for (const auto &g : gpu->liveAtPeak)
            live += g.bytes;
        QCOMPARE(live, gpu->peakAllocated);
        QCOMPARE(gpu->allocatedBeforeTrace, 0.0);
        QCOMPARE(gpu->liveAtPeak.front().key, QStringLiteral("aten::cudnn_convolution"));
        QCOMPARE(gpu->iterations.size(), size_t(6));
        for (const auto &it : gpu->iterations)
            QVERIFY(it.peak <= gpu->peakAllocated && it.atStart >= 0);
    }

    // Two files without ranks in one run are two processes, even with the same pid (two
    // machines, two containers): the same Qwen trace twice (the second a byte longer, so
    // not the same file) gives each GPU the one file's peak and iterations, each named by its
    // file; before, their events were one device's (frees matched across them, 21 GB never
    // freed, the breakdown refused).
    void filesWithoutRanksAreProcessesOfTheirOwn()
    {
        const QString path = gmltest::sharedTraces() +
                             QStringLiteral("/pytorch_kineto/tracelens_qwen05b_h100_vs_mi300/"
                                            "h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
        if (!QFileInfo::exists(path))
            QSKIP("../shared/traces/pytorch_kineto is absent (real traces from public projects)");
        QTemporaryDir dir, other;
        auto one = gmltest::newProject(dir);
        gmltest::importInto(*one, {path}, QStringLiteral("r"));
        QString error;
        const auto alone = memoryReport(*one, *one->findRun(QStringLiteral("r")), &error);
        QVERIFY2(alone, qPrintable(error));
        const DeviceMemory *gpu = device(*alone, QStringLiteral("GPU 0"));
        QVERIFY(gpu && gpu->rank < 0 && gpu->file.isEmpty());

        const QString folder = dir.filePath(QStringLiteral("two"));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(path, folder + QStringLiteral("/a.json.gz")));
        QFile b(folder + QStringLiteral("/b.json"));
        QVERIFY(b.open(QIODevice::WriteOnly));
        QFile in(path);
        QVERIFY(in.open(QIODevice::ReadOnly));
        b.write(gmltest::gunzip(in.readAll()) + ' ');
        b.close();
        auto two = gmltest::newProject(other);
        for (const auto &r : gmltest::importInto(*two, {folder}, QStringLiteral("r")))
            QCOMPARE(r.status, SourceReport::Status::Imported);
        const auto report = memoryReport(*two, *two->findRun(QStringLiteral("r")), &error);
        QVERIFY2(report, qPrintable(error));
        checkPeaksAsFull(*two, *two->findRun(QStringLiteral("r")), *report);
        QVERIFY2(report->warnings.isEmpty(), qPrintable(report->warnings.join(u'\n')));
        QCOMPARE(report->devices.size(), 2 * alone->devices.size());
        QStringList files;
        for (const DeviceMemory &d : report->devices) {
            if (!d.isGpu())
                continue;
            files << d.file;
            QCOMPARE(d.pid, gpu->pid);
            QCOMPARE(d.peakAllocated, gpu->peakAllocated);
            QCOMPARE(d.events, gpu->events);
            QCOMPARE(d.neverFreedBytes, gpu->neverFreedBytes);
            QCOMPARE(d.iterations.size(), gpu->iterations.size());
        }
        files.sort();
        QCOMPARE(files, QStringList({QStringLiteral("a.json.gz"), QStringLiteral("b.json")}));
        QVERIFY(report->toText().contains(QLatin1String(", b.json): peak allocated")));
    }

    // A rank whose threads are in two files (the same rank written twice, as a restarted
    // job's profiler does) is one process: its events are one device's, accounted together,
    // so the run metrics cannot merge the files' peaks and read the threads again.
    void aRankInTwoFilesIsOneProcess()
    {
        QTemporaryDir dir, one, two;
        const QString job = gmltest::generateJob(dir, 2, 3, 0, {QStringLiteral("--memory")});
        auto single = gmltest::newProject(one);
        gmltest::importInto(*single, {job});
        QString error;
        const auto alone = memoryReport(*single, *single->findRun(QStringLiteral("job")), &error);
        QVERIFY2(alone, qPrintable(error));
        QFile in(job + QStringLiteral("/rank0.pt.trace.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QFile again(job + QStringLiteral("/rank0-again.pt.trace.json"));
        QVERIFY(again.open(QIODevice::WriteOnly));
        again.write(in.readAll() + ' ');
        again.close();
        auto twice = gmltest::newProject(two);
        gmltest::importInto(*twice, {job});
        const RunId run = *twice->findRun(QStringLiteral("job"));
        const auto report = memoryReport(*twice, run, &error);
        QVERIFY2(report, qPrintable(error));
        QCOMPARE(report->devices.size(), alone->devices.size());
        for (size_t i = 0; i < report->devices.size(); ++i)
            QCOMPARE(report->devices[i].events,
                     alone->devices[i].events * (report->devices[i].rank == 0 ? 2 : 1));
        checkPeaksAsFull(*twice, run, *report, false);
    }

    // A generated job whose allocation pattern is known (tracegen --memory): forward layer l
    // keeps (l + 1) MiB until its backward, a backward op holds a 2 MiB workspace, and the loss
    // leaks 256 KiB a step. The report gives the pattern back exactly, and the graph the FLOPs
    // the generator recorded.
    void generatedPatternComesBackExactly()
    {
        QTemporaryDir dir;
        const int steps = 4, layers = 6;
        const QString job = gmltest::generateJob(
            dir, 1, steps, 0,
            {QStringLiteral("--memory"), QStringLiteral("--layers"), QString::number(layers)});
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {job});
        const auto run = project->findRun(QStringLiteral("job"));
        QVERIFY(run);
        QString error;
        const auto report = memoryReport(*project, *run, &error);
        QVERIFY2(report, qPrintable(error));
        checkPeaksAsFull(*project, *run, *report);
        QCOMPARE(report->devices.size(), size_t(1));
        const DeviceMemory &d = report->devices.front();
        QCOMPARE(d.device, QStringLiteral("GPU 0"));
        QVERIFY(d.byAddress && d.totalsRecorded);
        const double activations = layers * (layers + 1) / 2 * kMiB, leak = 256 * 1024.0,
                     workspace = 2 * kMiB;
        QCOMPARE(d.peakAllocated, activations + steps * leak + workspace);
        QCOMPARE(d.peakReserved.value_or(-1), 40 * kMiB); // 24 MiB rounded up to 20 MiB
        QCOMPARE(d.events, qint64(steps * (layers + 1 + 3 * layers)));
        QCOMPARE(d.unmatchedFrees, qint64(0));
        // Live at the peak (the first backward op of the last step).
        QCOMPARE(d.liveAtPeak.size(), size_t(3));
        QCOMPARE(group(d.liveAtPeak, QStringLiteral("aten::addmm"))->bytes, activations);
        QCOMPARE(group(d.liveAtPeak, QStringLiteral("aten::addmm"))->count, layers);
        QCOMPARE(group(d.liveAtPeak, QStringLiteral("aten::mm"))->bytes, workspace);
        QCOMPARE(group(d.liveAtPeak, QStringLiteral("aten::log_softmax"))->count, steps);
        QCOMPARE(d.allocatedBeforeTrace, 0.0);
        const MemoryGroup *path = group(
            d.liveAtPeakByPath, QStringLiteral("ProfilerStep#* › aten::linear › aten::addmm"));
        QVERIFY(path);
        QCOMPARE(path->bytes, activations);
        // The leak: never freed, one per step; the middle steps' are the suspects.
        QCOMPARE(d.neverFreedCount, qint64(steps));
        QCOMPARE(d.neverFreedBytes, steps * leak);
        QCOMPARE(d.neverFreed.size(), size_t(1));
        QCOMPARE(d.leakSuspects.size(), size_t(1));
        QCOMPARE(d.leakSuspects.front().key, QStringLiteral("aten::log_softmax"));
        QCOMPARE(d.leakSuspects.front().count, steps - 2);
        QCOMPARE(d.iterations.size(), size_t(steps));
        for (int k = 0; k < steps; ++k) {
            const MemoryIteration &it = d.iterations[size_t(k)];
            QCOMPARE(it.atStart, k * leak);
            QCOMPARE(it.atEnd, (k + 1) * leak);
            QCOMPARE(it.peak, activations + (k + 1) * leak + workspace);
        }
        QCOMPARE(d.largest.front().bytes, layers * kMiB);
        QCOMPARE(d.largest.front().op, QStringLiteral("aten::addmm"));
        // The Memory page's tables are models of the same report: the leak suspect first and
        // marked, each row carrying the allocation it shows in the timeline.
        MemoryTableModel never(MemoryTableModel::Table::NeverFreed);
        QAbstractItemModelTester neverTester(
            &never, QAbstractItemModelTester::FailureReportingMode::QtTest);
        never.setDevice(d, 0);
        QCOMPARE(never.rowCount(), 2); // the suspect, then the group by operator
        QVERIFY(never.index(0, 2).data().toString().startsWith(QLatin1String("aten::log_softmax")));
        QVERIFY(never.index(0, 2).data(Qt::ForegroundRole).isValid());
        const auto leakAt = never.rowData(never.index(0, 0)).value<sim::Evidence>();
        QCOMPARE(leakAt.start, d.leakSuspects.front().largest.at);
        MemoryTableModel live(MemoryTableModel::Table::Live);
        QAbstractItemModelTester liveTester(&live,
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
        live.setDevice(d, 0, true);
        QCOMPARE(live.rowCount(), int(d.liveAtPeakByPath.size()));
        MemoryTableModel largest(MemoryTableModel::Table::Largest);
        largest.setDevice(d, 0);
        QCOMPARE(largest.index(0, 3).data().toString(), QStringLiteral("aten::addmm"));
        QCOMPARE(largest.index(0, 0).data(RowsModel::SortRole).toDouble(), layers * kMiB);
        // The Runs pane's and Compare's metrics: the peak, and the peak of each iteration.
        const auto metrics = sim::computeRunMetrics(*project, *run, &error);
        QVERIFY2(metrics, qPrintable(error));
        QCOMPARE((*metrics)[QStringLiteral("peak_memory_bytes")].toDouble(), d.peakAllocated);
        const QJsonArray peaks = (*metrics)[QStringLiteral("memory_peaks_bytes")].toArray();
        QCOMPARE(peaks.size(), steps);
        for (int k = 0; k < steps; ++k)
            QCOMPARE(peaks[k].toDouble(), d.iterations[size_t(k)].peak);
        // The reserved counter is drawn too.
        const auto [reservedMiB, at] =
            counterPeak(*project, *run, QStringLiteral("memory reserved · PyTorch profiler"));
        QCOMPARE(reservedMiB, 40.0);
        Q_UNUSED(at);

        // FLOPs: what the generator recorded on its matmuls, summed from the raw file.
        double written = 0;
        for (const auto &v : gmltest::traceEvents(job + QStringLiteral("/rank0.pt.trace.json")))
            written +=
                v.toObject()[QStringLiteral("args")].toObject()[QStringLiteral("flops")].toDouble();
        QVERIFY(written > 0);
        const auto g = sim::DependencyGraph::build(*project, *run, &error);
        QVERIFY2(g, qPrintable(error));
        double recorded = 0;
        for (const auto &x : g->recordedFlops())
            recorded += x.count;
        QCOMPARE(recorded, written);
    }

    // What-if memory on the generated job (Total Reserved recorded, fp32 matmuls): mixed
    // precision halves what was live at the peak (up to x0.75), scaled by the measured reserve
    // over allocated (40 over 24 MiB); a device change checks the need against the target's
    // memory; a prediction without a device change names no capacity.
    void whatIfSaysWhatMemoryItNeeds()
    {
        QTemporaryDir dir;
        const QString job = gmltest::generateJob(dir, 1, 4, 0, {QStringLiteral("--memory")});
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {job});
        const auto run = project->findRun(QStringLiteral("job"));
        QVERIFY(run);
        QString error;
        auto built = sim::DependencyGraph::build(*project, *run, &error);
        QVERIFY2(built, qPrintable(error));
        const auto graph = std::make_shared<const sim::DependencyGraph>(std::move(*built));
        sim::WhatIfContext context = sim::WhatIfContext::forRun(*graph, *project, *run);
        context.readMemory(*project, *run);
        QVERIFY(context.memory);
        sim::Transform amp;
        amp.op = QStringLiteral("amp");
        const auto a = sim::whatIf(graph, {amp}, context, &error);
        QVERIFY2(a, qPrintable(error));
        QCOMPARE(a->report.memory.size(), size_t(1));
        const sim::MemoryNeed &m = a->report.memory.front();
        QVERIFY(m.reservedRecorded);
        QCOMPARE(m.measured, 40 * kMiB);
        QCOMPARE(m.predicted, 20 * kMiB); // 24 MiB live x0.5 x 40/24
        QCOMPARE(m.low, 20 * kMiB);
        QCOMPARE(m.high, 30 * kMiB); // x0.75
        QVERIFY(m.target.isEmpty() && m.verdict().isEmpty());
        QVERIFY(a->report.toJson().contains(QStringLiteral("memory")));

        sim::Transform device;
        device.op = QStringLiteral("device");
        device.target = QStringLiteral("RTX2080Ti");
        const auto d = sim::whatIf(graph, {device}, context, &error);
        QVERIFY2(d, qPrintable(error));
        const sim::MemoryNeed &n = d->report.memory.front();
        QCOMPARE(n.predicted, 40 * kMiB);
        QCOMPARE(n.capacity, 11.0 * (1 << 30));
        QCOMPARE(n.verdict(), QStringLiteral("fits"));
        sim::MemoryNeed big = n;
        big.predicted = big.low = 10.0 * (1 << 30);
        big.high = 12.0 * (1 << 30);
        QCOMPARE(big.verdict(), QStringLiteral("may not fit"));
        big.predicted = 11.5 * (1 << 30);
        QCOMPARE(big.verdict(), QStringLiteral("does not fit"));
    }

    // `grademl memory --json` carries the fields the issue names; a run without memory events
    // says why, with an exit status of 0.
    void cliJson()
    {
        QTemporaryDir dir;
        const QString job = gmltest::generateJob(dir, 1, 3, 0, {QStringLiteral("--memory")});
        const QString file = dir.filePath(QStringLiteral("m.grademl"));
        QCOMPARE(
            gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                {QStringLiteral("import"), job, QStringLiteral("--project"), file})
                .code,
            0);
        const auto out =
            gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                {QStringLiteral("memory"), file, QStringLiteral("--json")});
        QCOMPARE(out.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(out.out).object();
        const QJsonArray devices = o[QStringLiteral("devices")].toArray();
        QCOMPARE(devices.size(), 1);
        const QJsonObject d = devices[0].toObject();
        for (const char *key : {"device", "peak_allocated_bytes", "peak_reserved_bytes",
                                "peak_at_ns", "live_at_peak"})
            QVERIFY2(d.contains(QLatin1String(key)), key);
        const QJsonObject top = d[QStringLiteral("live_at_peak")].toArray()[0].toObject();
        QCOMPARE(top[QStringLiteral("op")].toString(), QStringLiteral("aten::addmm"));
        QVERIFY(top[QStringLiteral("bytes")].toDouble() > 0 &&
                top[QStringLiteral("count")].toInt() > 0);

        const QString plain = gmltest::generateJob(dir, 1, 2);
        const QString file2 = dir.filePath(QStringLiteral("p.grademl"));
        QCOMPARE(
            gmltest::runProgram(QStringLiteral(GRADEML_CLI), {QStringLiteral("import"), plain,
                                                              QStringLiteral("--project"), file2})
                .code,
            0);
        const auto none =
            gmltest::runProgram(QStringLiteral(GRADEML_CLI), {QStringLiteral("memory"), file2});
        QCOMPARE(none.code, 0);
        QVERIFY2(none.out.contains("profile_memory=True"), none.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestMemory)
#include "tst_memory.moc"
