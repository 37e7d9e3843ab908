// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 37: predictions that hold on runs the model has never seen, and how far to trust one.
// Waiting is not work: an op that blocks on the GPU shortens with it, a background thread does
// not pin the end. `grademl validate` against pairs the project makes itself: a run against itself
// (every error exactly 0), and a grademl-tracegen job against its twin whose compute kernels take
// half as long (drawn from the same random numbers), which the model predicts exactly; the reported
// errors are checked against figures worked out independently, with SQL over the measured slices.
#include "testutil.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

namespace {

// One thread, two steps; each: aten::mm launching a 500 us gemm, then aten::item waiting for it
// (no synchronising call of its own: it ends 10 us after the gemm), then aten::add launching a
// 15 us kernel. A second thread holds one Python range that only waits, from the start to
// 5 ms, long after the job: a progress-bar monitor.
constexpr char kWaitingTrace[] = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":30},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":10,"args":{"correlation":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::item","pid":1,"tid":1,"ts":50,"dur":495},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":560,"dur":40},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":570,"dur":10,"args":{"correlation":2}},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":1000,"dur":1000},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1010,"dur":30},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1020,"dur":10,"args":{"correlation":3}},
 {"ph":"X","cat":"cpu_op","name":"aten::item","pid":1,"tid":1,"ts":1050,"dur":495},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1560,"dur":40},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1570,"dur":10,"args":{"correlation":4}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":35,"dur":500,"args":{"correlation":1,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":7,"ts":585,"dur":15,"args":{"correlation":2,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1035,"dur":500,"args":{"correlation":3,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":7,"ts":1585,"dur":15,"args":{"correlation":4,"device":0,"stream":7}},
 {"ph":"X","cat":"python_function","name":"threading.py(324): wait","pid":1,"tid":2,"ts":0,"dur":5000}
]})J";

// The same step recorded by two processes (issue 54): Python frames name the objects they were
// called on by address, and the second process's module moved by a line. %1: the address,
// %2: the line of forward.
constexpr char kProcessTrace[] = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":300},
 {"ph":"X","cat":"python_function","name":"model.py(%2): forward","pid":1,"tid":1,"ts":5,"dur":250},
 {"ph":"X","cat":"python_function","name":"<built-in method linear of PyCapsule object at %1>","pid":1,"tid":1,"ts":10,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":15,"dur":90},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":10,"args":{"correlation":1}},
 {"ph":"X","cat":"python_function","name":"<built-in method relu of Tensor object at %1>","pid":1,"tid":1,"ts":120,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":125,"dur":90},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":130,"dur":10,"args":{"correlation":2}},
 {"ph":"X","cat":"kernel","name":"volta_sgemm_128x64_nt","pid":0,"tid":7,"ts":40,"dur":60,"args":{"correlation":1,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"void at::native::vectorized_elementwise_kernel<4, relu>","pid":0,"tid":7,"ts":150,"dur":30,"args":{"correlation":2,"device":0,"stream":7}}
]})J";

QJsonObject json(const gmltest::CliResult &r)
{
    return QJsonDocument::fromJson(r.out).object();
}

double errorOf(const QJsonArray &rows, const QString &what)
{
    for (const auto &v : rows)
        if (v.toObject().value(QStringLiteral("what")).toString() == what)
            return v.toObject().value(QStringLiteral("error")).toDouble();
    qFatal("no row '%s'", qPrintable(what));
}

qint64 sqlNumber(const QString &project, const QString &sql)
{
    const auto r = gmltest::runCli({QStringLiteral("query"), project, sql});
    if (r.code != 0)
        qFatal("query failed: %s", r.err.constData());
    return r.outText().split(QLatin1Char('\n'), Qt::SkipEmptyParts).value(1).toLongLong();
}

// A shared trace folder imported into a project in `dir`; its path.
QString importShared(const QTemporaryDir &dir, const QString &trace)
{
    const QString project = dir.filePath(QStringLiteral("shared.grademl"));
    const auto r = gmltest::runCli({QStringLiteral("import"),
                                    gmltest::sharedTraces() + QLatin1Char('/') + trace,
                                    QStringLiteral("--project"), project});
    if (r.code != 0)
        qFatal("import %s: %s", qPrintable(trace), r.err.constData());
    return project;
}

} // namespace

class TestValidate : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_project;

private Q_SLOTS:
    void initTestCase()
    {
        // Two ranks, 6 steps; the twin on a GPU twice as fast.
        const QString tracegen = QStringLiteral(GRADEML_TRACEGEN);
        for (const auto &[dir, scale] : {std::pair{QStringLiteral("a"), QStringLiteral("1")},
                                         std::pair{QStringLiteral("b"), QStringLiteral("0.5")}}) {
            const auto gen = gmltest::runProgram(
                tracegen, {QStringLiteral("--out"), m_tmp.filePath(dir), QStringLiteral("--steps"),
                           QStringLiteral("6"), QStringLiteral("--layers"), QStringLiteral("8"),
                           QStringLiteral("--seed"), QStringLiteral("7"),
                           QStringLiteral("--kernel-scale"), scale});
            QCOMPARE(gen.code, 0);
        }
        m_project = m_tmp.filePath(QStringLiteral("p.grademl"));
        for (const QString &run : {QStringLiteral("a"), QStringLiteral("b")})
            QCOMPARE(gmltest::runCli({QStringLiteral("import"), m_tmp.filePath(run),
                                      QStringLiteral("--project"), m_project,
                                      QStringLiteral("--run"), run})
                         .code,
                     0);
    }

    // Identity replay is exact: a run against itself, without transforms, has every error 0.
    void aRunAgainstItselfIsExact()
    {
        const auto r = gmltest::runCli(
            {QStringLiteral("validate"), m_project, QStringLiteral("--run"), QStringLiteral("a"),
             QStringLiteral("--against"), QStringLiteral("a"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = json(r);
        QCOMPARE(o.value(QStringLiteral("end_to_end"))
                     .toObject()
                     .value(QStringLiteral("error"))
                     .toDouble(),
                 0.0);
        for (const QString &key :
             {QStringLiteral("iterations"), QStringLiteral("steps"),
              QStringLiteral("kernel_families"), QStringLiteral("operators")}) {
            const QJsonArray rows = o.value(key).toArray();
            QVERIFY2(!rows.isEmpty(), qPrintable(key));
            for (const auto &v : rows)
                QCOMPARE(v.toObject().value(QStringLiteral("predicted_ns")).toInteger(),
                         v.toObject().value(QStringLiteral("measured_ns")).toInteger());
        }
        QCOMPARE(o.value(QStringLiteral("steps_measured")).toInt(), 6);
        // No transform, no unknown: the band is the prediction, and it holds the measurement.
        const QJsonObject e2e = o.value(QStringLiteral("end_to_end")).toObject();
        QCOMPARE(e2e.value(QStringLiteral("predicted_low_ns")).toInteger(),
                 e2e.value(QStringLiteral("predicted_ns")).toInteger());
        QCOMPARE(e2e.value(QStringLiteral("inside_band")).toBool(false), true);
        QCOMPARE(o.value(QStringLiteral("unknowns")).toArray().size(), 0);
    }

    // Another GPU's prediction carries a band; validate says whether the measured twin is
    // inside it, end to end and on the median iteration. The twin (kernels twice as fast) is
    // outside the band of "the same GPU's vendor, host unchanged" predicted as x1 (no change)...
    // and inside the band of a V100 -> A100 move whose band reaches it.
    void validateSaysWhetherTheBandHolds()
    {
        const auto r = gmltest::runCli(
            {QStringLiteral("validate"), m_project, QStringLiteral("--run"), QStringLiteral("a"),
             QStringLiteral("--from-device"), QStringLiteral("V100"), QStringLiteral("--device"),
             QStringLiteral("A100"), QStringLiteral("--against"), QStringLiteral("b"),
             QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = json(r);
        QCOMPARE(o.value(QStringLiteral("unknowns")).toArray().size(), 2);
        const QJsonObject e2e = o.value(QStringLiteral("end_to_end")).toObject();
        const QJsonObject median = o.value(QStringLiteral("iterations")).toArray().at(1).toObject();
        QCOMPARE(median.value(QStringLiteral("what")).toString(),
                 QStringLiteral("median iteration"));
        for (const QJsonObject &row : {e2e, median}) {
            const qint64 lo = row.value(QStringLiteral("predicted_low_ns")).toInteger();
            const qint64 hi = row.value(QStringLiteral("predicted_high_ns")).toInteger();
            const qint64 m = row.value(QStringLiteral("measured_ns")).toInteger();
            QVERIFY(lo < row.value(QStringLiteral("predicted_ns")).toInteger() &&
                    row.value(QStringLiteral("predicted_ns")).toInteger() < hi);
            QVERIFY(row.value(QStringLiteral("inside_band")).isBool());
            QCOMPARE(row.value(QStringLiteral("inside_band")).toBool(), lo <= m && m <= hi);
        }
        const auto text = gmltest::runCli(
            {QStringLiteral("validate"), m_project, QStringLiteral("--run"), QStringLiteral("a"),
             QStringLiteral("--from-device"), QStringLiteral("V100"), QStringLiteral("--device"),
             QStringLiteral("A100"), QStringLiteral("--against"), QStringLiteral("b")});
        QVERIFY(text.out.contains("prediction band (5th to 95th percentile of 40 replays"));
        QVERIFY(text.out.contains("unknown: host CPU of the new machine"));
    }

    // Without a transform, A's replay against the twin: the errors are what the two runs'
    // measured figures say, worked out here from their slices.
    void errorsAreTheMeasuredDifference()
    {
        const auto r = gmltest::runCli(
            {QStringLiteral("validate"), m_project, QStringLiteral("--run"), QStringLiteral("a"),
             QStringLiteral("--against"), QStringLiteral("b"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = json(r);
        // End to end: B as measured, A's identity replay, as `grademl whatif` reports them.
        auto whatif = [&](const QString &run) {
            const auto w =
                gmltest::runCli({QStringLiteral("whatif"), m_project, QStringLiteral("--run"), run,
                                 QStringLiteral("--json")});
            return json(w);
        };
        const qint64 a =
            whatif(QStringLiteral("a")).value(QStringLiteral("identity_ns")).toInteger();
        const qint64 b =
            whatif(QStringLiteral("b")).value(QStringLiteral("measured_ns")).toInteger();
        QVERIFY(a > b && b > 0);
        const QJsonObject e2e = o.value(QStringLiteral("end_to_end")).toObject();
        QCOMPARE(e2e.value(QStringLiteral("measured_ns")).toInteger(), b);
        QCOMPARE(e2e.value(QStringLiteral("predicted_ns")).toInteger(), a);
        QCOMPARE(e2e.value(QStringLiteral("error")).toDouble(),
                 (double(a) - double(b)) / double(b));
        // GEMM time: twice the twin's, to the ns of rounding (each kernel's half rounds down).
        auto gemm = [&](const QString &run) {
            return sqlNumber(
                m_project,
                QStringLiteral(
                    "SELECT sum(dur) FROM kernel WHERE run = '%1' AND name LIKE '%sgemm%'")
                    .arg(run));
        };
        const qint64 ga = gemm(QStringLiteral("a")), gb = gemm(QStringLiteral("b"));
        QVERIFY(std::abs(double(ga) - 2.0 * double(gb)) < 2000);
        QCOMPARE(
            errorOf(o.value(QStringLiteral("kernel_families")).toArray(), QStringLiteral("gemm")),
            (double(ga) - double(gb)) / double(gb));
    }

    // The twin as predicted: the compute kernels at half their time. The generator schedules
    // as the replay does (a kernel starts when its stream and its launch allow, the host waits
    // at its synchronise), so the prediction holds end to end, on the median and p90 step and
    // per family, to rounding.
    void theTwinIsPredicted()
    {
        const auto r = gmltest::runCli(
            {QStringLiteral("validate"), m_project, QStringLiteral("--run"), QStringLiteral("a"),
             QStringLiteral("--against"), QStringLiteral("b"), QStringLiteral("--scale"),
             QStringLiteral("sgemm|SoftMax|multi_tensor_apply=0.5"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = json(r);
        QVERIFY(std::abs(o.value(QStringLiteral("end_to_end"))
                             .toObject()
                             .value(QStringLiteral("error"))
                             .toDouble()) < 1e-4);
        const QJsonArray its = o.value(QStringLiteral("iterations")).toArray();
        for (const QString &what :
             {QStringLiteral("mean iteration"), QStringLiteral("median iteration"),
              QStringLiteral("p90 iteration")})
            QVERIFY2(std::abs(errorOf(its, what)) < 1e-4, qPrintable(what));
        QVERIFY(std::abs(errorOf(o.value(QStringLiteral("kernel_families")).toArray(),
                                 QStringLiteral("gemm"))) < 1e-4);
        QCOMPARE(o.value(QStringLiteral("transforms")).toArray().size(), 1);
        // The text says the same, with the transform it replayed.
        const auto text = gmltest::runCli(
            {QStringLiteral("validate"), m_project, QStringLiteral("--run"), QStringLiteral("a"),
             QStringLiteral("--against"), QStringLiteral("b"), QStringLiteral("--scale"),
             QStringLiteral("sgemm|SoftMax|multi_tensor_apply=0.5")});
        QVERIFY(text.outText().contains(QLatin1String("against measured run b")));
        QVERIFY(text.outText().contains(QLatin1String("median iteration")));
        // Saved as a run, the prediction keeps its ranges' categories (the Compare view's
        // validation finds its operators by them).
        QTemporaryDir copy;
        const QString saved = copy.filePath(QStringLiteral("s.grademl"));
        QVERIFY(QFile::copy(m_project, saved));
        QCOMPARE(gmltest::runCli({QStringLiteral("whatif"), saved, QStringLiteral("--run"),
                                  QStringLiteral("a"), QStringLiteral("--scale"),
                                  QStringLiteral("sgemm=0.5"), QStringLiteral("--save"),
                                  QStringLiteral("p")})
                     .code,
                 0);
        QCOMPARE(sqlNumber(saved, QStringLiteral("SELECT count(*) FROM slice_info WHERE run = 'p' "
                                                 "AND name LIKE 'autograd::engine%' "
                                                 "AND category = 'cpu_op'")),
                 sqlNumber(saved, QStringLiteral("SELECT count(*) FROM slice_info WHERE run = 'a' "
                                                 "AND name LIKE 'autograd::engine%'")));
        // The query views say which runs are predictions, so a total need not mix them with
        // the measurement (docs/query.md): the saved run's kernels are 'predicted', a's
        // 'measured', and the measured total is a's alone.
        QCOMPARE(sqlNumber(saved, QStringLiteral("SELECT count(*) FROM kernel WHERE run = 'p' "
                                                 "AND run_kind <> 'predicted'")),
                 0.0);
        QVERIFY(sqlNumber(saved, QStringLiteral("SELECT count(*) FROM kernel WHERE run = 'p'")) >
                0);
        QCOMPARE(sqlNumber(saved, QStringLiteral("SELECT sum(dur) FROM kernel WHERE run_kind = "
                                                 "'measured' AND run IN ('a', 'p')")),
                 sqlNumber(saved, QStringLiteral("SELECT sum(dur) FROM kernel WHERE run = 'a'")));
        QCOMPARE(sqlNumber(saved, QStringLiteral("SELECT count(DISTINCT run_kind) FROM "
                                                 "counter_series WHERE run_kind IS NULL")),
                 0.0);
    }

    // The monitor thread does not bound the run: measured and identity end with the job, at
    // 1.6 ms, not at 5 ms. aten::item waited for its gemm: with the gemms at half their time it
    // ends 10 us after the shorter gemm, and the job ends at 1.1 ms, as worked out by hand:
    // step 1's gemm [35, 285) us, item to 295, add 310-350 (its kernel to 350); step 2 starts its
    // mm after the measured 410 us gap, at 760, and ends the same way 340 us later.
    void waitingIsNotWork()
    {
        QTemporaryDir dir;
        gmltest::writeFile(dir, QStringLiteral("t/trace.json"), kWaitingTrace);
        const QString project = dir.filePath(QStringLiteral("w.grademl"));
        QCOMPARE(gmltest::runCli({QStringLiteral("import"), dir.filePath(QStringLiteral("t")),
                                  QStringLiteral("--project"), project, QStringLiteral("--run"),
                                  QStringLiteral("w")})
                     .code,
                 0);
        auto whatif = [&](const QStringList &extra) {
            const auto r = gmltest::runCli(
                QStringList{QStringLiteral("whatif"), project, QStringLiteral("--json")} + extra);
            if (r.code != 0)
                qFatal("whatif: %s", r.err.constData());
            return json(r);
        };
        const QJsonObject asMeasured = whatif({});
        QCOMPARE(asMeasured.value(QStringLiteral("measured_ns")).toInteger(), 1'600'000);
        QCOMPARE(asMeasured.value(QStringLiteral("identity_ns")).toInteger(), 1'600'000);
        QCOMPARE(asMeasured.value(QStringLiteral("edges"))
                     .toObject()
                     .value(QStringLiteral("sync"))
                     .toInt(),
                 2);
        const QJsonObject halved =
            whatif({QStringLiteral("--scale"), QStringLiteral("^gemm$=0.5")});
        QCOMPARE(halved.value(QStringLiteral("predicted_ns")).toInteger(), 1'100'000);
        // Iterations: step to step (step 2 keeps its 10 us lead before its mm: it starts at
        // 750), the last to the end of its host step (which keeps its 400 us tail: 1.5 ms).
        const QJsonArray its = halved.value(QStringLiteral("iterations")).toArray();
        QCOMPARE(its.size(), 2);
        QCOMPARE(its[0].toObject().value(QStringLiteral("predicted_ns")).toInteger(), 750'000);
        QCOMPARE(its[1].toObject().value(QStringLiteral("predicted_ns")).toInteger(), 750'000);
    }

    // Another vendor: each launch call gets the difference of the launch overheads, the run's
    // own (its 4 launches take 10 us) against AMD's on this host (10 us x 8/5, the runtimes'
    // typical ratio: 16 us), the host assumed unchanged unless a host factor is given, and the
    // report says which.
    void aVendorChangeIsMoreThanKernels()
    {
        QTemporaryDir dir;
        gmltest::writeFile(dir, QStringLiteral("t/trace.json"), kWaitingTrace);
        const QString project = dir.filePath(QStringLiteral("w.grademl"));
        QCOMPARE(gmltest::runCli({QStringLiteral("import"), dir.filePath(QStringLiteral("t")),
                                  QStringLiteral("--project"), project})
                     .code,
                 0);
        auto whatif = [&](const QStringList &extra) {
            const auto r = gmltest::runCli(
                QStringList{QStringLiteral("whatif"), project, QStringLiteral("--json"),
                            QStringLiteral("--device"), QStringLiteral("MI250"),
                            QStringLiteral("--from-device"), QStringLiteral("V100")} +
                extra);
            if (r.code != 0)
                qFatal("whatif: %s", r.err.constData());
            return json(r);
        };
        const QJsonObject plain = whatif({});
        const QString notes =
            plain.value(QStringLiteral("notes")).toVariant().toStringList().join(QLatin1Char('\n'));
        QVERIFY2(notes.contains(QLatin1String("4 launch calls +3.6 us each (this run's 4 kernel "
                                              "launches took a median 10.0 us; AMD x1.36")),
                 qPrintable(notes));
        QVERIFY(notes.contains(QLatin1String("host CPU assumed unchanged")));
        const QJsonObject faster = whatif({QStringLiteral("--host-factor"), QStringLiteral("2")});
        const QString fasterNotes = faster.value(QStringLiteral("notes"))
                                        .toVariant()
                                        .toStringList()
                                        .join(QLatin1Char('\n'));
        QVERIFY2(fasterNotes.contains(QLatin1String("host CPU 2x faster")),
                 qPrintable(fasterNotes));
        QVERIFY(faster.value(QStringLiteral("predicted_ns")).toInteger() <
                plain.value(QStringLiteral("predicted_ns")).toInteger());
        QCOMPARE(gmltest::runCli({QStringLiteral("whatif"), project,
                                  QStringLiteral("--host-factor"), QStringLiteral("2")})
                     .code,
                 2);
    }

    // DataLoader workers 0 -> N: a queue. The job loads each batch on its main thread (15-30 ms,
    // at the end of each step, for the next); on 2 workers the first step still waits for its
    // batch as measured, later steps wait only when the workers fell behind, so the steps'
    // times spread (p90 above the median) and the mean drops. A run without data loading
    // says so.
    // The measured pair (../shared: the same Qwen1.5-0.5B inference on an H100 and on an
    // MI300X, issue 75): the vendor change predicted from the H100 run against the MI300X run.
    // Its kernels are the part above the H100's floor at the rates' ratio plus MI300X's floor;
    // its launches are the run's own (1,029 launches, median 3.3 us) times the runtimes' ratio,
    // not the catalog's AMD figure taken as it is: +2.0 us a launch, where 8 us made it +4.7
    // and the prediction +12.7% end to end. Measured there: +5.9% end to end, +5.3% on the
    // median iteration, each inside its band.
    void vendorChangeOnTheMeasuredPair()
    {
        const QString pair = QStringLiteral("pytorch_kineto/tracelens_qwen05b_h100_vs_mi300");
        GML_REQUIRE_SHARED(pair);
        QTemporaryDir dir;
        const QString project = importShared(dir, pair);
        const auto r = gmltest::runCli(
            {QStringLiteral("validate"), project, QStringLiteral("--run"),
             QStringLiteral("tracelens_qwen05b_h100_vs_mi300/h100_Qwen_Qwen1"),
             QStringLiteral("--device"), QStringLiteral("MI300X"), QStringLiteral("--against"),
             QStringLiteral("tracelens_qwen05b_h100_vs_mi300/mi300_Qwen_Qwen1"),
             QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject v = json(r);
        const QString assumed = v.value(QStringLiteral("assumptions"))
                                    .toVariant()
                                    .toStringList()
                                    .join(QLatin1Char('\n'));
        QVERIFY2(assumed.contains(QLatin1String("launch calls +1.2 us each (this run's 1029 "
                                                "kernel launches took a median 3.3 us")),
                 qPrintable(assumed));
        // The small kernels: MI300X's floor (4.2 us) decides some. The achievable rates (0.73
        // of peak on H100, 0.47 on MI300X for matrix work) bring GEMMs from -38% by the peaks
        // alone to within 10%, attention from -47% to within 25%; the memory-bound families,
        // x0.63 by the bandwidths alone (-10.6% elementwise, -25.6% reductions), land within
        // 20% with the floor and the achievable bandwidths (+17%, +7%).
        QVERIFY2(assumed.contains(QLatin1String("H100 1.6 us (this run's 1st percentile of 1465 "
                                                "kernels), MI300X 4.2 us")),
                 qPrintable(assumed));
        for (const auto &it : v.value(QStringLiteral("kernel_families")).toArray()) {
            const QJsonObject o = it.toObject();
            const QString family = o.value(QStringLiteral("what")).toString();
            const double error = std::abs(o.value(QStringLiteral("error")).toDouble());
            if (family == QLatin1String("gemm"))
                QVERIFY2(error < 0.1, qPrintable(QString::number(error)));
            if (family == QLatin1String("attention") || family == QLatin1String("elementwise") ||
                family == QLatin1String("reduction"))
                QVERIFY2(error < 0.25, qPrintable(family));
        }
        // End to end and the median iteration within 5%, inside a band whose width is at most
        // a third of the prediction (+4.0%, +3.9%; 46.9 to 60.4 ms around 49.1, 0.27).
        const QJsonObject e2e = v.value(QStringLiteral("end_to_end")).toObject();
        auto check = [](const QJsonObject &o) {
            QVERIFY2(std::abs(o.value(QStringLiteral("error")).toDouble()) < 0.05,
                     qPrintable(QString::number(o.value(QStringLiteral("error")).toDouble())));
            QVERIFY(o.value(QStringLiteral("inside_band")).toBool());
            const double width = double(o.value(QStringLiteral("predicted_high_ns")).toInteger() -
                                        o.value(QStringLiteral("predicted_low_ns")).toInteger());
            QVERIFY2(width <= double(o.value(QStringLiteral("predicted_ns")).toInteger()) / 3,
                     qPrintable(QString::number(width)));
        };
        check(e2e);
        int medians = 0;
        for (const auto &it : v.value(QStringLiteral("iterations")).toArray()) {
            const QJsonObject o = it.toObject();
            if (o.value(QStringLiteral("what")).toString() != QLatin1String("median iteration"))
                continue;
            check(o);
            ++medians;
        }
        QCOMPARE(medians, 1);
    }

    // A ROCm trace names its GPU "AMD Radeon Graphics": the what-if takes it from its compute
    // units and memory for one GCD of an MI250 and says it is a guess (it refused before:
    // "not in the device catalog").
    void aGenericGpuNameIsIdentified()
    {
        const QString trace = QStringLiteral("pytorch_kineto/hta_amd_mi250_rocm62");
        GML_REQUIRE_SHARED(trace);
        QTemporaryDir dir;
        const QString project = importShared(dir, trace);
        const auto r =
            gmltest::runCli({QStringLiteral("whatif"), project, QStringLiteral("--device"),
                             QStringLiteral("H100"), QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QString notes = json(r)
                                  .value(QStringLiteral("notes"))
                                  .toVariant()
                                  .toStringList()
                                  .join(QLatin1Char('\n'));
        QVERIFY2(notes.contains(QLatin1String("the trace names its GPU 'AMD Radeon Graphics'; "
                                              "taken as MI250-GCD from what it records (104 "
                                              "compute units, 64 GiB, warps of 64): a guess")),
                 qPrintable(notes));
        QVERIFY(notes.contains(QLatin1String("MI250-GCD -> H100")));
    }

    void aLoaderIsAQueue()
    {
        const auto r = gmltest::runCli(
            {QStringLiteral("whatif"), m_project, QStringLiteral("--run"), QStringLiteral("a"),
             QStringLiteral("--preset"), QStringLiteral("loader=2"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = json(r);
        const QJsonArray its = o.value(QStringLiteral("iterations")).toArray();
        QCOMPARE(its.size(), 6);
        QCOMPARE(its[0].toObject().value(QStringLiteral("predicted_ns")).toInteger(),
                 its[0].toObject().value(QStringLiteral("measured_ns")).toInteger());
        const QJsonObject mean = o.value(QStringLiteral("mean_iteration")).toObject();
        QVERIFY(mean.value(QStringLiteral("predicted_ns")).toInteger() <
                mean.value(QStringLiteral("measured_ns")).toInteger() * 3 / 4);
        const QJsonObject median = o.value(QStringLiteral("median_iteration")).toObject(),
                          p90 = o.value(QStringLiteral("p90_iteration")).toObject();
        QVERIFY(p90.value(QStringLiteral("predicted_ns")).toInteger() >
                median.value(QStringLiteral("predicted_ns")).toInteger());
        for (const auto &v : its)
            QVERIFY(v.toObject().value(QStringLiteral("predicted_ns")).toInteger() <=
                    v.toObject().value(QStringLiteral("measured_ns")).toInteger());
        const QString notes =
            o.value(QStringLiteral("notes")).toVariant().toStringList().join(QLatin1Char('\n'));
        QVERIFY2(notes.contains(QLatin1String("2 workers per loading thread")), qPrintable(notes));
        // A batch on a worker is not loaded exactly as on the step's thread (issue 75): an
        // unknown, and a band around the prediction.
        const QString unknowns =
            o.value(QStringLiteral("unknowns")).toVariant().toStringList().join(QLatin1Char('\n'));
        QVERIFY2(unknowns.contains(QLatin1String("a batch's loading time on one of 2 DataLoader "
                                                 "workers")),
                 qPrintable(unknowns));
        QVERIFY(o.value(QStringLiteral("predicted_low_ns")).toInteger() <=
                    o.value(QStringLiteral("predicted_ns")).toInteger() &&
                o.value(QStringLiteral("predicted_ns")).toInteger() <
                    o.value(QStringLiteral("predicted_high_ns")).toInteger());
        // The same as JSON.
        const auto j = gmltest::runCli(
            {QStringLiteral("whatif"), m_project, QStringLiteral("--run"), QStringLiteral("a"),
             QStringLiteral("--transforms"), QStringLiteral(R"([{"op": "input", "workers": 2}])"),
             QStringLiteral("--json")});
        QCOMPARE(json(j).value(QStringLiteral("predicted_ns")).toInteger(),
                 o.value(QStringLiteral("predicted_ns")).toInteger());
        QTemporaryDir dir;
        gmltest::writeFile(dir, QStringLiteral("t/trace.json"), kWaitingTrace);
        const QString project = dir.filePath(QStringLiteral("w.grademl"));
        QCOMPARE(gmltest::runCli({QStringLiteral("import"), dir.filePath(QStringLiteral("t")),
                                  QStringLiteral("--project"), project})
                     .code,
                 0);
        const auto none = gmltest::runCli({QStringLiteral("whatif"), project,
                                           QStringLiteral("--preset"), QStringLiteral("loader=2")});
        QCOMPARE(none.code, 1);
        QVERIFY(none.all().contains(QLatin1String("no data loading")));
    }

    // Two processes of one job: every top operator is matched by call path, the Python
    // object addresses and line numbers in its frames notwithstanding.
    void callPathsMatchAcrossProcesses()
    {
        QTemporaryDir dir;
        const QString t = QString::fromLatin1(kProcessTrace);
        gmltest::writeFile(dir, QStringLiteral("a/trace.json"),
                           t.arg(QStringLiteral("0x7f72a8c0d0e0"), QStringLiteral("41")).toUtf8());
        gmltest::writeFile(dir, QStringLiteral("b/trace.json"),
                           t.arg(QStringLiteral("0x7f11bb22ee90"), QStringLiteral("42")).toUtf8());
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        for (const char *run : {"a", "b"})
            QCOMPARE(
                gmltest::runCli({QStringLiteral("import"), dir.filePath(QString::fromLatin1(run)),
                                 QStringLiteral("--project"), project, QStringLiteral("--run"),
                                 QString::fromLatin1(run)})
                    .code,
                0);
        const auto r = gmltest::runCli(
            {QStringLiteral("validate"), project, QStringLiteral("--run"), QStringLiteral("a"),
             QStringLiteral("--against"), QStringLiteral("b"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonArray ops = json(r).value(QStringLiteral("operators")).toArray();
        QCOMPARE(ops.size(), 2);
        for (const auto &v : ops) {
            const QJsonObject o = v.toObject();
            QVERIFY2(!o.value(QStringLiteral("what")).toString().contains(QLatin1String("0x")),
                     qPrintable(o.value(QStringLiteral("what")).toString()));
            QCOMPARE(o.value(QStringLiteral("predicted_ns")).toInteger(),
                     o.value(QStringLiteral("measured_ns")).toInteger());
            QVERIFY(o.value(QStringLiteral("measured_ns")).toInteger() > 0);
        }
    }

    // Calibration from the user's own pair: a hardware change whose truth is known (tracegen:
    // every kernel 5 us longer whatever its size, a floor, then matmuls x0.48 and other
    // kernels x0.8; the host 1.3x slower), predicted as "run on H100" from the A100 the traces
    // name. The models have small kernels (activations of 2-6 us) and large ones. Fitted on
    // one model's pair (8 layers), the lines it fits (a floor and a rate per family) predict
    // another model's, with matmuls 0.3 times as long and 24 layers, to within 3% where the
    // peak-rate prediction misses by over 15%, and the calibrated band holds the measurement;
    // a model whose matmuls are 0.03 times as long (far from the pair) gets a wider band and
    // the note that says why.
    void calibrationFromOnePairPredictsAnotherModel()
    {
        QTemporaryDir dir;
        const QString tracegen = QStringLiteral(GRADEML_TRACEGEN);
        const QString project = dir.filePath(QStringLiteral("c.grademl"));
        const QStringList truth{QStringLiteral("--gemm-scale"),      QStringLiteral("0.6"),
                                QStringLiteral("--kernel-scale"),    QStringLiteral("0.8"),
                                QStringLiteral("--host-scale"),      QStringLiteral("1.3"),
                                QStringLiteral("--kernel-floor-us"), QStringLiteral("5")};
        for (const auto &[model, layers, seed, size] :
             {std::tuple{QStringLiteral("x"), QStringLiteral("8"), QStringLiteral("7"),
                         QStringLiteral("1")},
              std::tuple{QStringLiteral("y"), QStringLiteral("24"), QStringLiteral("11"),
                         QStringLiteral("0.3")},
              std::tuple{QStringLiteral("z"), QStringLiteral("8"), QStringLiteral("5"),
                         QStringLiteral("0.03")}})
            for (const bool after : {false, true}) {
                const QString run = model + (after ? QLatin1Char('b') : QLatin1Char('a'));
                const auto gen = gmltest::runProgram(
                    tracegen,
                    QStringList{QStringLiteral("--out"), dir.filePath(run),
                                QStringLiteral("--steps"), QStringLiteral("6"),
                                QStringLiteral("--layers"), layers, QStringLiteral("--seed"), seed,
                                QStringLiteral("--gemm-size"), size,
                                QStringLiteral("--small-kernels")} +
                        (after ? truth : QStringList{}));
                QCOMPARE(gen.code, 0);
                QCOMPARE(gmltest::runCli({QStringLiteral("import"), dir.filePath(run),
                                          QStringLiteral("--project"), project,
                                          QStringLiteral("--run"), run})
                             .code,
                         0);
            }
        const QString fit = dir.filePath(QStringLiteral("fit.json"));
        auto validate = [&](const QString &model, const QStringList &extra) {
            const auto r = gmltest::runCli(
                QStringList{QStringLiteral("validate"), project, QStringLiteral("--run"),
                            model + QLatin1Char('a'), QStringLiteral("--device"),
                            QStringLiteral("H100"), QStringLiteral("--against"),
                            model + QLatin1Char('b'), QStringLiteral("--json")} +
                extra);
            if (r.code != 0)
                qFatal("validate: %s", r.err.constData());
            return json(r);
        };
        validate(QStringLiteral("x"), {QStringLiteral("--fit"), fit});
        QFile f(fit);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject c = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(c.value(QStringLiteral("format")).toString(),
                 QStringLiteral("grademl_calibration"));
        QVERIFY(c.value(QStringLiteral("families")).toObject().contains(QStringLiteral("gemm")));
        // The floor the model missed, found by the lines of the families (the truth's 5 us,
        // less what the model's own floors already put there).
        for (const QString family : {QStringLiteral("gemm"), QStringLiteral("elementwise")}) {
            const QJsonObject line =
                c.value(QStringLiteral("kernels")).toObject().value(family).toObject();
            QVERIFY2(line.value(QStringLiteral("floor_us")).toDouble() > 3,
                     QJsonDocument(line).toJson().constData());
        }
        // The launch calls, carried apart from the rest of the host path: the generator's 1.3
        // per call (medians, to the rounding of a microsecond trace).
        QVERIFY2(std::abs(c.value(QStringLiteral("launch")).toDouble() - 1.3) < 0.01,
                 qPrintable(QString::number(c.value(QStringLiteral("launch")).toDouble())));
        QVERIFY(c.value(QStringLiteral("host")).toDouble() > 1.0);
        // Data loading is host work the generator scales whole: 1.3, to the ns of rounding.
        QVERIFY(std::abs(c.value(QStringLiteral("loading")).toDouble() - 1.3) < 1e-6);
        auto e2e = [](const QJsonObject &o) {
            return o.value(QStringLiteral("end_to_end")).toObject();
        };
        auto median = [](const QJsonObject &o) {
            return o.value(QStringLiteral("iterations")).toArray().at(1).toObject();
        };
        const QJsonObject plain = validate(QStringLiteral("y"), {});
        const QJsonObject calibrated =
            validate(QStringLiteral("y"), {QStringLiteral("--calibration"), fit});
        for (const QJsonObject &row : {e2e(plain), median(plain)})
            QVERIFY2(std::abs(row.value(QStringLiteral("error")).toDouble()) > 0.15,
                     qPrintable(QString::number(row.value(QStringLiteral("error")).toDouble())));
        auto width = [](const QJsonObject &row) {
            return double(row.value(QStringLiteral("predicted_high_ns")).toInteger() -
                          row.value(QStringLiteral("predicted_low_ns")).toInteger()) /
                   double(row.value(QStringLiteral("predicted_ns")).toInteger());
        };
        const QJsonObject far =
            validate(QStringLiteral("z"), {QStringLiteral("--calibration"), fit});
        const QJsonObject itself =
            validate(QStringLiteral("x"), {QStringLiteral("--calibration"), fit});
        QVERIFY2(
            std::abs(e2e(itself).value(QStringLiteral("error")).toDouble()) < 0.01,
            qPrintable(QString::number(e2e(itself).value(QStringLiteral("error")).toDouble())));
        for (const QJsonObject &row :
             {e2e(calibrated), median(calibrated), e2e(far), median(far)}) {
            QVERIFY2(std::abs(row.value(QStringLiteral("error")).toDouble()) < 0.03,
                     qPrintable(QString::number(row.value(QStringLiteral("error")).toDouble())));
            QVERIFY(row.value(QStringLiteral("inside_band")).toBool());
            QVERIFY2(width(row) > 3 * width(e2e(itself)), qPrintable(QString::number(width(row))));
        }
        QVERIFY2(far.value(QStringLiteral("unknowns"))
                     .toVariant()
                     .toStringList()
                     .join(QLatin1Char('\n'))
                     .contains(QLatin1String("gemm kernels of sizes far from those the pair had")),
                 QJsonDocument(far).toJson().constData());
        const QString assumed = calibrated.value(QStringLiteral("assumptions"))
                                    .toVariant()
                                    .toStringList()
                                    .join(QLatin1Char('\n'));
        QVERIFY2(assumed.contains(QLatin1String("calibrated from run xa with run on H100 "
                                                "against xb")),
                 qPrintable(assumed));
        // whatif applies it the same way; a damaged file is named with the byte at fault.
        const auto w = gmltest::runCli({QStringLiteral("whatif"), project, QStringLiteral("--run"),
                                        QStringLiteral("ya"), QStringLiteral("--device"),
                                        QStringLiteral("H100"), QStringLiteral("--calibration"),
                                        fit, QStringLiteral("--json")});
        QCOMPARE(w.code, 0);
        QCOMPARE(json(w).value(QStringLiteral("predicted_ns")).toInteger(),
                 e2e(calibrated).value(QStringLiteral("predicted_ns")).toInteger());
        // Saved as a run, the prediction keeps what it was calibrated from and its band.
        QCOMPARE(gmltest::runCli({QStringLiteral("whatif"), project, QStringLiteral("--run"),
                                  QStringLiteral("ya"), QStringLiteral("--device"),
                                  QStringLiteral("H100"), QStringLiteral("--calibration"), fit,
                                  QStringLiteral("--save"), QStringLiteral("ya-h100")})
                     .code,
                 0);
        const auto saved =
            gmltest::runCli({QStringLiteral("query"), project,
                             QStringLiteral("SELECT params FROM run WHERE name = 'ya-h100'")});
        QVERIFY2(saved.out.contains("calibrated from run xa with run on H100 against xb"),
                 saved.out.constData());
        QVERIFY(saved.out.contains("predicted_low_ns"));
        gmltest::writeFile(dir, QStringLiteral("bad.json"),
                           "{\"format\": \"grademl_calibration\",");
        const auto bad = gmltest::runCli(
            {QStringLiteral("whatif"), project, QStringLiteral("--run"), QStringLiteral("ya"),
             QStringLiteral("--calibration"), dir.filePath(QStringLiteral("bad.json"))});
        QVERIFY(bad.code != 0);
        QVERIFY2(bad.err.contains("bad.json: at byte"), bad.err.constData());
        gmltest::writeFile(
            dir, QStringLiteral("neg.json"),
            R"({"format": "grademl_calibration", "version": 1, "families": {"gemm": -1}})");
        const auto neg = gmltest::runCli(
            {QStringLiteral("whatif"), project, QStringLiteral("--run"), QStringLiteral("ya"),
             QStringLiteral("--calibration"), dir.filePath(QStringLiteral("neg.json"))});
        QVERIFY(neg.code != 0);
        QVERIFY2(neg.err.contains("families.gemm: expected a factor from 0.05 to 20"),
                 neg.err.constData());
    }

    void badUse()
    {
        auto r = gmltest::runCli(
            {QStringLiteral("validate"), m_project, QStringLiteral("--run"), QStringLiteral("a")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.all().contains(QLatin1String("--against")));
        r = gmltest::runCli({QStringLiteral("validate"), m_project, QStringLiteral("--run"),
                             QStringLiteral("a"), QStringLiteral("--against"),
                             QStringLiteral("nosuch")});
        QVERIFY(r.code != 0);
        QVERIFY(r.all().contains(QLatin1String("nosuch")));
    }
};

QTEST_GUILESS_MAIN(TestValidate)
#include "tst_validate.moc"
