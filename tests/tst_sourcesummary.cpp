// SPDX-License-Identifier: GPL-3.0-or-later
// Summaries written at import (model/store/sourcesummary.h) and the headline metrics merged from
// them (issue 34): the same numbers as the analysis of the whole execution model, on real traces
// and generated jobs; written by every import path; made later for projects written before them;
// the rank overview drawn from them.
#include "findings.h"
#include "importutil.h"
#include "rankoverview.h"
#include "runcatalog.h"
#include "runmetrics.h"
#include "sourcesummary.h"
#include "sourcework.h"
#include "testutil.h"

#include <QJsonArray>
#include <QtTest>

#include <cmath>

using namespace gml;

namespace {

QList<RunId> runsOf(Project &p)
{
    QList<RunId> out;
    auto st = p.db().prepare("SELECT id FROM run ORDER BY id");
    while (st.step())
        out << st.int64(0);
    return out;
}

// The stored summaries, by source id.
std::map<SourceId, QByteArray> storedSummaries(Project &p)
{
    std::map<SourceId, QByteArray> out;
    auto st = p.db().prepare("SELECT source_id, data FROM source_summary ORDER BY source_id");
    while (st.step()) {
        const auto blob = st.blobView(1);
        out.emplace(st.int64(0), QByteArray(blob.data(), qsizetype(blob.size())));
    }
    return out;
}

// The headline metrics of every run of `p` against the analysis of its execution model.
void compareWithAnalysis(Project &p, const QString &what)
{
    for (const RunId run : runsOf(p)) {
        QString error;
        const auto m = sim::computeRunMetrics(p, run, &error);
        QVERIFY2(m, qPrintable(what + QStringLiteral(": ") + error));
        const auto report = sim::analyzeRun(p, run, QStringLiteral("run"), {}, &error);
        if (!report) { // neither a kernel trace nor counters: no step time either
            QVERIFY2(!m->contains(QStringLiteral("step_mean_ns")), qPrintable(what));
            continue;
        }
        const QString where = QStringLiteral("%1, run %2").arg(what).arg(run);
        if (!report->analysis) {
            QVERIFY2(!m->contains(QStringLiteral("gpus")), qPrintable(where));
            continue;
        }
        QCOMPARE(m->value(QStringLiteral("step_mean_ns")).toInteger(), report->summary.stepTime);
        QCOMPARE(m->value(QStringLiteral("iterations")).toInteger(), report->summary.iterations);
        QCOMPARE(m->value(QStringLiteral("gpus")).toInteger(),
                 qint64(report->analysis->gpus.size()));
        GpuTime total;
        for (const auto &g : report->analysis->gpus) {
            total.window += g.time.window;
            total.compute += g.time.compute;
            total.communication += g.time.communication;
            total.copies += g.time.copies;
            total.idle += g.time.idle;
        }
        if (total.window > 0) {
            const double w = double(total.window);
            QVERIFY2(std::abs(m->value(QStringLiteral("gpu_busy")).toDouble() -
                              double(total.busy()) / w) < 1e-12,
                     qPrintable(where));
            QVERIFY2(std::abs(m->value(QStringLiteral("compute")).toDouble() -
                              double(total.compute) / w) < 1e-12,
                     qPrintable(where));
            QVERIFY2(std::abs(m->value(QStringLiteral("communication")).toDouble() -
                              double(total.communication) / w) < 1e-12,
                     qPrintable(where));
            QVERIFY2(std::abs(m->value(QStringLiteral("copies")).toDouble() -
                              double(total.copies) / w) < 1e-12,
                     qPrintable(where));
        }
        if (report->summary.mfu >= 0)
            QVERIFY2(std::abs(m->value(QStringLiteral("mfu")).toDouble() - report->summary.mfu) <
                         1e-12 * report->summary.mfu,
                     qPrintable(where));
        else
            QVERIFY2(!m->contains(QStringLiteral("mfu")), qPrintable(where));
        if (report->summary.energyPerIterationJ >= 0)
            QVERIFY2(std::abs(m->value(QStringLiteral("energy_per_iteration_j")).toDouble() -
                              report->summary.energyPerIterationJ) < 1e-6,
                     qPrintable(where));
        if (!report->analysis->ranks.empty())
            QCOMPARE(m->value(QStringLiteral("ranks")).toInteger(),
                     qint64(report->analysis->ranks.size()));
    }
}

} // namespace

class TestSourceSummary : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Every shared GPU trace (Kineto from A100, V100, H100, MI250, RTX; Nsight Systems): the
    // merged summaries give the analysis's step time, iterations, GPU split, MFU and GPU count.
    void metricsMatchTheAnalysisOnRealTraces_data()
    {
        QTest::addColumn<QString>("trace");
        for (const QString &t : gmltest::sharedGpuTraces())
            QTest::newRow(qPrintable(t)) << t;
        QTest::newRow("dlrm 8 ranks") << QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100");
    }
    void metricsMatchTheAnalysisOnRealTraces()
    {
        QFETCH(QString, trace);
        GML_REQUIRE_SHARED(trace);
        QTemporaryDir dir;
        auto p = gmltest::newProject(dir);
        gmltest::importInto(*p, {gmltest::sharedTraces() + QLatin1Char('/') + trace});
        QVERIFY(!storedSummaries(*p).empty());
        compareWithAnalysis(*p, trace);
    }

    // A generated 4-rank job with monitoring logs and clocks 3 ms apart: iterations of the lowest
    // rank, energy over them, ranks and GPUs, on the aligned clock.
    void metricsMatchTheAnalysisOnAGeneratedJob()
    {
        QTemporaryDir dir;
        const QString job = gmltest::generateJob(dir, 4, 8, 3000, {QStringLiteral("--monitor")});
        auto p = gmltest::newProject(dir);
        gmltest::importInto(*p, {job});
        compareWithAnalysis(*p, QStringLiteral("generated job"));
        QString error;
        const auto m = sim::computeRunMetrics(*p, runsOf(*p).front(), &error);
        QVERIFY2(m, qPrintable(error));
        QCOMPARE(m->value(QStringLiteral("ranks")).toInt(), 4);
        QCOMPARE(m->value(QStringLiteral("iterations")).toInt(), 8);
        QVERIFY(m->contains(QStringLiteral("energy_j")));
    }

    // The rank overview: a lane per GPU by rank, its activity adding up to the GPU's busy and
    // communication time (to the rounding of one 255th of a bucket), its rank's iterations, and
    // the lanes ranked by their own work.
    void rankOverviewFromTheSummaries_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("iterations");
        QTest::newRow("generated 4 ranks") << QString() << 4 << 8;
        QTest::newRow("dlrm 8 ranks")
            << QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100") << 8 << -1;
    }

    void rankOverviewFromTheSummaries()
    {
        QFETCH(QString, folder);
        QFETCH(int, ranks);
        QFETCH(int, iterations);
        QTemporaryDir dir;
        QString traces;
        if (folder.isEmpty()) {
            traces = gmltest::generateJob(dir, ranks, iterations, 3000);
        } else {
            GML_REQUIRE_SHARED(folder);
            traces = gmltest::sharedTraces() + QLatin1Char('/') + folder;
        }
        auto p = gmltest::newProject(dir);
        gmltest::importInto(*p, {traces});
        QString error;
        const RunId run = runsOf(*p).front();
        const auto o = loadRankOverview(*p, run, &error);
        QVERIFY2(o, qPrintable(error));
        QCOMPARE(int(o->lanes.size()), ranks);
        const auto works = runSourceWork(*p, run, &error);
        QVERIFY2(works, qPrintable(error));
        TimeNs busyAll = 0;
        for (int k = 0; k < ranks; ++k) {
            const RankLane &lane = o->lanes[size_t(k)];
            QCOMPARE(lane.rank, k);
            QVERIFY(lane.start >= o->origin && lane.end <= o->end && lane.start < lane.end);
            if (iterations > 0)
                QCOMPARE(int(lane.iterations.size()), iterations);
            const SourceWork::Gpu *gpu = nullptr;
            TimeNs offset = 0;
            for (const auto &w : *works)
                for (const auto &g : w.work.gpus)
                    if (w.source == lane.source && g.device == lane.device && g.rank == lane.rank) {
                        gpu = &g;
                        offset = w.offset;
                    }
            QVERIFY(gpu);
            QCOMPARE(lane.start, gpu->start + offset);
            const auto &a = lane.activity;
            QVERIFY(a.width > 0 && (a.width & (a.width - 1)) == 0);
            QVERIFY(a.busy.size() <= kActivityBuckets && a.busy.size() == a.communication.size());
            QVERIFY(a.from <= lane.start && a.from + a.width * a.busy.size() >= lane.end);
            double busy = 0, comm = 0;
            for (qsizetype b = 0; b < a.busy.size(); ++b) {
                busy += quint8(a.busy[b]) * double(a.width) / 255.0;
                comm += quint8(a.communication[b]) * double(a.width) / 255.0;
                QVERIFY(quint8(a.communication[b]) <= quint8(a.busy[b]) + 1);
            }
            const double tolerance = double(a.busy.size()) * double(a.width) / 510.0 + 1;
            const TimeNs busyNs = gpu->end - gpu->start - gpu->idle;
            QVERIFY2(std::abs(busy - double(busyNs)) <= tolerance,
                     qPrintable(QStringLiteral("lane %1: %2 vs %3").arg(k).arg(busy).arg(busyNs)));
            QVERIFY2(std::abs(comm - double(gpu->communicationTotal)) <= tolerance,
                     qPrintable(QStringLiteral("lane %1").arg(k)));
            busyAll += busyNs;
            // One column over the lane's own window: its busy share.
            float b1 = 0, c1 = 0;
            RankOverview::shares(lane, lane.start, lane.end, 1, &b1, &c1);
            QVERIFY(std::abs(double(b1) - double(busyNs) / double(lane.end - lane.start)) < 0.02);
            // Columns outside the activity hold none.
            float b3[3], c3[3];
            RankOverview::shares(lane, a.from - 10 * a.width, a.from - a.width, 3, b3, c3);
            QCOMPARE(b3[0], -1.0f);
            QCOMPARE(b3[2], -1.0f);
        }
        QVERIFY(busyAll > 0);
        const auto order = o->byWork();
        QCOMPARE(int(order.size()), ranks);
        for (size_t k = 1; k < order.size(); ++k)
            QVERIFY(o->lanes[size_t(order[k - 1])].work >= o->lanes[size_t(order[k])].work);
    }

    // Files read aside on worker threads carry their summaries into the project: the same bytes
    // as a one-thread import.
    void writtenByEveryImportPath()
    {
        QTemporaryDir dir;
        const QString job = gmltest::generateJob(dir, 4, 5);
        std::map<SourceId, QByteArray> one, two;
        for (int threads : {1, 2}) {
            QTemporaryDir pd;
            auto p = gmltest::newProject(pd);
            QStringList errors;
            ImportJob importJob(*p);
            importJob.setThreads(threads);
            const auto reports = importJob.run(scanInputs({job}, {}, &errors));
            QCOMPARE(reports.size(), 4);
            (threads == 1 ? one : two) = storedSummaries(*p);
        }
        QCOMPARE(one.size(), size_t(4));
        QCOMPARE(two.size(), one.size());
        for (const auto &[source, data] : one)
            QCOMPARE(two.at(source), data);
        const auto s = SourceWork::fromCbor(one.begin()->second);
        QVERIFY(s);
        QCOMPARE(s->ranks.size(), size_t(1));
        QCOMPARE(s->ranks.front().iterations.size(), size_t(5));
        QVERIFY(!s->gpus.empty());
        QCOMPARE(s->toCbor(), one.begin()->second);
    }

    // A project written before summaries (or by an older program): its sources are summarised
    // when its metrics are first computed, kept where the project is writable, and the metrics
    // are the same.
    void olderProjectsAreSummarisedOnce()
    {
        QTemporaryDir dir;
        const QString job = gmltest::generateJob(dir, 2, 6);
        const QString path = dir.filePath(QStringLiteral("p.grademl"));
        QJsonObject before;
        {
            auto p = gmltest::newProject(dir);
            gmltest::importInto(*p, {job});
            QString error;
            before = *sim::computeRunMetrics(*p, runsOf(*p).front(), &error);
            QVERIFY(p->db().exec("DELETE FROM source_summary"));
        }
        QString error;
        {
            auto ro = Project::open(path, Project::Mode::ReadOnly, &error);
            QVERIFY2(ro, qPrintable(error));
            const auto m = sim::computeRunMetrics(*ro, runsOf(*ro).front(), &error);
            QVERIFY2(m, qPrintable(error));
            QCOMPARE(*m, before);
            QCOMPARE(gmltest::scalar(*ro, "SELECT count(*) FROM source_summary"), 0);
        }
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(*sim::computeRunMetrics(*p, runsOf(*p).front(), &error), before);
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM source_summary"), 2);
        // A summary of another version is not read: it is made again.
        QVERIFY(p->db().exec("UPDATE source_summary SET version = version - 1, data = x'00'"));
        QCOMPARE(*sim::computeRunMetrics(*p, runsOf(*p).front(), &error), before);
        QCOMPARE(gmltest::scalar(
                     *p, QStringLiteral("SELECT count(*) FROM source_summary WHERE version = %1")
                             .arg(kSourceSummaryVersion)
                             .toUtf8()
                             .constData()),
                 2);
    }
};

QTEST_GUILESS_MAIN(TestSourceSummary)
#include "tst_sourcesummary.moc"
