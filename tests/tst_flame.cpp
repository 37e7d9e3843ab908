// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 36: flame graphs of a range (model/read/flamegraph.h) and `grademl flame`.
#include "flamegraph.h"
#include "handtrace.h"
#include "importutil.h"
#include "project.h"
#include "testutil.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <map>

using namespace gml;

namespace {

constexpr TimeNs us(double v)
{
    return TimeNs(v * 1000);
}

std::map<QString, QString> lines(const QByteArray &folded)
{
    std::map<QString, QString> out;
    for (const QByteArray &line : folded.split('\n')) {
        if (line.isEmpty())
            continue;
        const QString text = QString::fromUtf8(line);
        // The stack is everything before the weights (names may hold spaces).
        QStringList parts = text.split(QLatin1Char(' '));
        QStringList weights;
        while (parts.size() > 1 && (weights.size() < 2) && !parts.last().isEmpty() &&
               std::all_of(parts.last().begin(), parts.last().end(),
                           [](QChar c) { return c.isDigit(); }))
            weights.prepend(parts.takeLast());
        out[parts.join(QLatin1Char(' '))] = weights.join(QLatin1Char(' '));
    }
    return out;
}

} // namespace

class TestFlame : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_file;

    FlameGraph build(const TimelineData &data, Project *project, FlameMetric metric, TimeNs a = 0,
                     TimeNs b = 0)
    {
        FlameRequest r;
        r.metric = metric;
        if (b > a) {
            r.t0 = data.runs.front().start + a;
            r.t1 = data.runs.front().start + b;
        }
        FlameGraph g;
        QString error;
        if (!buildFlameGraph(data, project, r, &g, &error))
            qWarning() << error;
        return g;
    }

private Q_SLOTS:
    void initTestCase()
    {
        gmltest::writeFile(m_dir, QStringLiteral("hand/hand.json"), gmltest::kHandTrace);
        auto project = gmltest::newProject(m_dir);
        gmltest::importInto(*project, {m_dir.filePath(QStringLiteral("hand"))});
        m_file = project->path();
    }

    // Self time by stack, whole and clipped to a range; the step number folded so iterations
    // merge; the weights add up to the time a slice covered the thread.
    void cpuSelfTimeByStack()
    {
        QString error;
        const auto data = loadTimelineData(m_file, &error);
        QVERIFY2(data, qPrintable(error));
        const FlameGraph whole = build(*data, nullptr, FlameMetric::CpuSelf);
        const auto all = lines(whole.folded());
        QCOMPARE(all.size(), size_t(4));
        QCOMPARE(all.at(QStringLiteral("ProfilerStep#*")), QString::number(us(80)));
        QCOMPARE(all.at(QStringLiteral("ProfilerStep#*;aten::linear")), QString::number(us(40)));
        QCOMPARE(all.at(QStringLiteral("ProfilerStep#*;aten::linear;aten::mm")),
                 QString::number(us(60)));
        QCOMPARE(all.at(QStringLiteral("ProfilerStep#*;aten::linear;aten::mm;cudaLaunchKernel")),
                 QString::number(us(20)));
        QCOMPARE(whole.total(), us(200));
        // Frames keep their slices for the timeline: the two steps, the two launches.
        const auto &frames = whole.frames();
        QCOMPARE(frames[size_t(whole.root().children.front())].slices.size(), size_t(2));
        QCOMPARE(frames[size_t(whole.root().children.front())].count, 2);
        // [50, 150) µs: step 1 keeps [50, 100), step 2 [100, 150); everything clipped.
        const FlameGraph part = build(*data, nullptr, FlameMetric::CpuSelf, us(50), us(150));
        const auto some = lines(part.folded());
        QCOMPARE(some.at(QStringLiteral("ProfilerStep#*")), QString::number(us(50)));
        QCOMPARE(some.at(QStringLiteral("ProfilerStep#*;aten::linear")), QString::number(us(20)));
        QCOMPARE(some.at(QStringLiteral("ProfilerStep#*;aten::linear;aten::mm")),
                 QString::number(us(20)));
        QCOMPARE(some.at(QStringLiteral("ProfilerStep#*;aten::linear;aten::mm;cudaLaunchKernel")),
                 QString::number(us(10)));
        QCOMPARE(part.total(), us(100));
        // JSON: the same tree, totals included.
        const QJsonObject o = whole.toJson();
        QCOMPARE(o[QStringLiteral("name")].toString(), QStringLiteral("all"));
        QCOMPARE(o[QStringLiteral("total_ns")].toInteger(), us(200));
        QCOMPARE(o[QStringLiteral("children")]
                     .toArray()
                     .first()
                     .toObject()[QStringLiteral("total_ns")]
                     .toInteger(),
                 us(200));
    }

    // GPU time under the call stacks that launched it.
    void gpuTimeUnderItsLaunch()
    {
        QString error;
        const auto data = loadTimelineData(m_file, &error);
        QVERIFY2(data, qPrintable(error));
        auto project = Project::open(m_file, Project::Mode::ReadOnly, &error);
        QVERIFY2(project, qPrintable(error));
        const auto all = lines(build(*data, project.get(), FlameMetric::GpuTime).folded());
        QCOMPARE(all.size(), size_t(1));
        QCOMPARE(
            all.at(QStringLiteral("ProfilerStep#*;aten::linear;aten::mm;cudaLaunchKernel;gemm")),
            QString::number(us(130)));
        // In [50, 150): the first gemm's [50, 95); the second starts at 150.
        const FlameGraph part = build(*data, project.get(), FlameMetric::GpuTime, us(50), us(150));
        QCOMPARE(part.total(), us(45));
        // Without the project there are no launch flows to read.
        FlameGraph none;
        FlameRequest gpu;
        gpu.metric = FlameMetric::GpuTime;
        QVERIFY(!buildFlameGraph(*data, nullptr, gpu, &none, &error));
    }

    // The CLI: folded by default, JSON, a differential graph of two ranges; bad options named.
    void cli()
    {
        auto run = [&](const QStringList &args) {
            return gmltest::runCli(QStringList{QStringLiteral("flame"), m_file} + args);
        };
        auto r = run({});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("ProfilerStep#*;aten::linear;aten::mm 60000\n"), r.out.constData());
        r = run({QStringLiteral("--range"), QStringLiteral("100us:200us"),
                 QStringLiteral("--diff-range"), QStringLiteral("0us:100us")});
        QCOMPARE(r.code, 0);
        const auto diff = lines(r.out);
        QCOMPARE(diff.at(QStringLiteral("ProfilerStep#*")), QStringLiteral("50000 30000"));
        QCOMPARE(diff.at(QStringLiteral("ProfilerStep#*;aten::linear;aten::mm")),
                 QStringLiteral("20000 40000"));
        r = run({QStringLiteral("--gpu"), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o[QStringLiteral("metric")].toString(), QStringLiteral("gpu_time"));
        QCOMPARE(o[QStringLiteral("total_ns")].toInteger(), us(130));
        r = run({QStringLiteral("--range"), QStringLiteral("5:1")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--range expects START:END"), r.err.constData());
        r = run({QStringLiteral("--format"), QStringLiteral("svg")});
        QCOMPARE(r.code, 2);
        r = run({QStringLiteral("--range"), QStringLiteral("1s:2s")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no CPU slices in the range"), r.err.constData());
        // Issue 56: a diff against an empty side, a negative start, a rank that is not there.
        r = run({QStringLiteral("--range"), QStringLiteral("0us:100us"),
                 QStringLiteral("--diff-range"), QStringLiteral("1s:2s")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("the baseline: run 'hand' has no CPU slices in the range"),
                 r.err.constData());
        r = run({QStringLiteral("--range"), QStringLiteral("1s:2s"), QStringLiteral("--diff-range"),
                 QStringLiteral("0us:100us")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("run 'hand' has no CPU slices in the range"), r.err.constData());
        r = run({QStringLiteral("--range"), QStringLiteral("-10us:100us")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("0 <= START < END"), r.err.constData());
        r = run({QStringLiteral("--rank"), QStringLiteral("99")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("has no rank 99"), r.err.constData());
    }

    // The shared ResNet-50 trace: in a range, the folded weights add up to the CPU self time in
    // it, computed here independently: per thread, the time covered by at least one slice in
    // the range (the profiler's own span left out), from the slices as SQL gives them.
    void foldedWeightsSumToCpuSelfTime()
    {
        const QString folder = QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100");
        GML_REQUIRE_SHARED(folder);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {gmltest::sharedTraces() + QLatin1Char('/') + folder},
                            QStringLiteral("r"));
        const QString file = project->path();
        project.reset();
        const auto r = gmltest::runCli({QStringLiteral("flame"), file, QStringLiteral("--range"),
                                        QStringLiteral("100ms:600ms")});
        QCOMPARE(r.code, 0);
        qint64 folded = 0;
        for (const auto &[stack, weight] : lines(r.out))
            folded += weight.toLongLong();
        QString error;
        project = Project::open(file, Project::Mode::ReadOnly, &error);
        QVERIFY2(project, qPrintable(error));
        // The run's start as the timeline has it (the range is after it).
        const auto data = loadTimelineData(file, &error);
        QVERIFY2(data && data->runs.size() == 1, qPrintable(error));
        const TimeNs t0 = data->runs.front().start + 100'000'000,
                     t1 = data->runs.front().start + 600'000'000;
        auto rows = project->db().prepare(
            "SELECT s.track_id, s.ts, s.ts + s.dur FROM slice_abs s JOIN track t ON t.id = "
            "s.track_id "
            "WHERE t.kind = ? AND s.name NOT LIKE 'PyTorch Profiler%' ORDER BY s.track_id, s.ts");
        rows.bind(1, qint64(TrackKind::Thread));
        qint64 covered = 0, track = -1;
        TimeNs openEnd = 0;
        while (rows.step()) {
            const TimeNs a = std::max(rows.int64(1), t0), b = std::min(rows.int64(2), t1);
            if (rows.int64(0) != track) {
                track = rows.int64(0);
                openEnd = t0;
            }
            if (b <= a)
                continue;
            covered += std::max<TimeNs>(0, b - std::max(a, openEnd));
            openEnd = std::max(openEnd, b);
        }
        QVERIFY(covered > 100'000'000); // the range is mostly busy
        QCOMPARE(folded, covered);
    }
};

QTEST_GUILESS_MAIN(TestFlame)
#include "tst_flame.moc"
