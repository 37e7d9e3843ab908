// SPDX-License-Identifier: GPL-3.0-or-later
// CI gates (issue 59): `grademl compare FILE BASE NEW --gate ...` parses gates, judges medians,
// flags differences within the runs' spread, exits 1 on a failed gate and writes JUnit XML and
// Markdown (the JUnit validated against tests/schema/junit.xsd); on a measured run against its
// saved prediction and on two shared-trace runs.
#include "gate.h"
#include "testutil.h"

#include <QFile>
#include <QJsonArray>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace gml;
using namespace gml::sim;
using gmltest::runCli;

namespace {

CatalogRun runWithSteps(const QString &name, const QList<double> &stepsMs, double gpuBusy)
{
    CatalogRun r;
    r.name = name;
    QJsonArray times;
    double sum = 0;
    for (double ms : stepsMs) {
        times.append(ms * 1e6);
        sum += ms * 1e6;
    }
    r.metrics.insert(QStringLiteral("step_times_ns"), times);
    r.metrics.insert(QStringLiteral("step_mean_ns"), sum / double(stepsMs.size()));
    r.metrics.insert(QStringLiteral("gpu_busy"), gpuBusy);
    r.hasMetrics = true;
    return r;
}

// The JUnit file read back: test cases and failures, checked to be well-formed XML.
struct JUnit
{
    int cases = 0, failures = 0;
    int declaredTests = -1, declaredFailures = -1;
    QStringList names;
};
JUnit readJUnit(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    QXmlStreamReader xml(&f);
    JUnit j;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (xml.name() == QLatin1String("testsuite")) {
            j.declaredTests = xml.attributes().value(QLatin1String("tests")).toInt();
            j.declaredFailures = xml.attributes().value(QLatin1String("failures")).toInt();
        } else if (xml.name() == QLatin1String("testcase")) {
            ++j.cases;
            j.names << xml.attributes().value(QLatin1String("name")).toString();
        } else if (xml.name() == QLatin1String("failure")) {
            ++j.failures;
        }
    }
    if (xml.hasError())
        qFatal("%s is not well-formed XML: %s", qPrintable(path), qPrintable(xml.errorString()));
    return j;
}

// `path` validated by xmllint against tests/schema/junit.xsd; skipped (with why) when xmllint
// is not installed (install-deps.sh test installs libxml2-utils).
void validateJUnit(const QString &path)
{
    const QString xmllint = QStandardPaths::findExecutable(QStringLiteral("xmllint"));
    if (xmllint.isEmpty()) {
        qWarning("xmllint is not installed (bash packaging/install-deps.sh test installs it): %s "
                 "was not validated against its schema",
                 qPrintable(path));
        return;
    }
    const auto r = gmltest::runProgram(
        xmllint, {QStringLiteral("--noout"), QStringLiteral("--schema"),
                  QStringLiteral(GRADEML_SOURCE_DIR "/tests/schema/junit.xsd"), path});
    QVERIFY2(r.code == 0, qPrintable(r.all()));
}

} // namespace

class TestGate : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;

private Q_SLOTS:
    void parsesGates()
    {
        QString why;
        auto g = parseGate(QStringLiteral("step_time<+5%"), &why);
        QVERIFY(g);
        QCOMPARE(g->metric, QStringLiteral("step_time"));
        QVERIFY(g->below);
        QCOMPARE(g->limit, 5.0);
        QVERIFY(g->unit == Gate::Unit::Percent);
        g = parseGate(QStringLiteral("gpu_busy > -2pt"), &why);
        QVERIFY(g && !g->below && g->limit == -2.0 && g->unit == Gate::Unit::Points);
        g = parseGate(QStringLiteral("step_time<+2s"), &why); // into ms
        QVERIFY(g && g->unit == Gate::Unit::Absolute && g->limit == 2000.0);
        g = parseGate(QStringLiteral("peak_memory<+512MiB"), &why);
        QVERIFY(g && g->limit == 0.5);
        QVERIFY(!parseGate(QStringLiteral("step_time<=5%"), &why));
        QVERIFY(why.contains(QLatin1String("METRIC<CHANGE")));
        QVERIFY(!parseGate(QStringLiteral("latency<+5%"), &why));
        QVERIFY2(why.contains(QLatin1String("gates know: step_time")), qPrintable(why));
        QVERIFY(!parseGate(QStringLiteral("step_time<+2pt"), &why)); // points are for shares
        QVERIFY(!parseGate(QStringLiteral("energy<+5ms"), &why));
        QVERIFY(why.contains(QLatin1String("energy is in J")));
    }

    // Medians, not means: one slow iteration does not fail the gate; a difference inside the
    // runs' median deviation is flagged as likely noise when the gate fails.
    void judgesMediansAndNoise()
    {
        QString why;
        const CatalogRun base = runWithSteps(QStringLiteral("base"), {100, 101, 99, 100, 100}, 0.5);
        const CatalogRun spike =
            runWithSteps(QStringLiteral("spike"), {100, 101, 99, 100, 400}, 0.49);
        auto r = judgeGates({*parseGate(QStringLiteral("step_time<+5%"), &why),
                             *parseGate(QStringLiteral("gpu_busy>-2pt"), &why)},
                            base, spike);
        QCOMPARE(r.size(), 2);
        QVERIFY(r[0].known && r[0].passed); // median 100 against 100
        QCOMPARE(r[0].baseSamples, 5);
        QVERIFY(r[1].passed); // -1 point
        QCOMPARE(r[1].change, -1.0 + 0.0);
        const CatalogRun noisy =
            runWithSteps(QStringLiteral("noisy"), {80, 120, 90, 110, 100}, 0.5);
        const CatalogRun shifted =
            runWithSteps(QStringLiteral("shifted"), {86, 126, 96, 116, 106}, 0.5);
        r = judgeGates({*parseGate(QStringLiteral("step_time<+5%"), &why)}, noisy, shifted);
        QVERIFY(!r[0].passed); // +6%
        QVERIFY(r[0].withinSpread);
        QVERIFY(r[0].summary().contains(QLatin1String("likely noise")));
        // A metric a run lacks fails the gate, naming the run.
        r = judgeGates({*parseGate(QStringLiteral("mfu>-1pt"), &why)}, base, spike);
        QVERIFY(!r[0].known && !r[0].passed);
        QVERIFY(r[0].why.contains(QLatin1String("'base' and 'spike' have no mfu")) ||
                r[0].why.contains(QLatin1String("run 'base' and 'spike' has no mfu")));
    }

    // The bundled demo against its prediction with every op 20% slower: the step gate fails
    // (exit 1) with what grew; a loose gate passes (exit 0); JUnit and Markdown written.
    void measuredAgainstItsPrediction()
    {
        const QString project = m_tmp.filePath(QStringLiteral("demo.grademl"));
        QCOMPARE(runCli({QStringLiteral("import"), QStringLiteral(GRADEML_DEMO),
                         QStringLiteral("--project"), project})
                     .code,
                 0);
        auto r = runCli({QStringLiteral("whatif"), project, QStringLiteral("--run"),
                         QStringLiteral("demo"), QStringLiteral("--scale"), QStringLiteral(".=1.2"),
                         QStringLiteral("--save"), QStringLiteral("slower")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QString junit = m_tmp.filePath(QStringLiteral("gates.xml"));
        const QString markdown = m_tmp.filePath(QStringLiteral("gates.md"));
        r = runCli({QStringLiteral("compare"), project, QStringLiteral("demo"),
                    QStringLiteral("slower"), QStringLiteral("--gate"),
                    QStringLiteral("step_time<+5%"), QStringLiteral("--gate"),
                    QStringLiteral("gpu_busy>-2pt"), QStringLiteral("--junit"), junit,
                    QStringLiteral("--markdown"), markdown});
        QCOMPARE(r.code, 1);
        const QString text = r.outText();
        QVERIFY2(text.contains(QLatin1String("step_time<+5%: FAIL")), qPrintable(text));
        QVERIFY(text.contains(QLatin1String("gpu_busy>-2pt: pass")));
        QVERIFY(text.contains(QLatin1String("what grew most per aligned iteration:")));
        QVERIFY(text.contains(QLatin1String("1 of 2 gates failed")));
        validateJUnit(junit);
        const JUnit j = readJUnit(junit);
        QCOMPARE(j.cases, 2);
        QCOMPARE(j.failures, 1);
        QCOMPARE(j.declaredTests, 2);
        QCOMPARE(j.declaredFailures, 1);
        QVERIFY(j.names.contains(QStringLiteral("step_time<+5%")));
        QFile md(markdown);
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QString m = QString::fromUtf8(md.readAll());
        QVERIFY(m.contains(QLatin1String("| `step_time<+5%` |")));
        QVERIFY(m.contains(QLatin1String("**FAIL**")));
        qInfo().noquote() << m;
        // A gate loose enough passes.
        r = runCli({QStringLiteral("compare"), project, QStringLiteral("demo"),
                    QStringLiteral("slower"), QStringLiteral("--gate"),
                    QStringLiteral("step_time<+25%")});
        QVERIFY2(r.code == 0, r.out.constData());
        // Usage errors: exit 2.
        QCOMPARE(runCli({QStringLiteral("compare"), project, QStringLiteral("demo"),
                         QStringLiteral("slower"), QStringLiteral("--gate"),
                         QStringLiteral("latency<+5%")})
                     .code,
                 2);
        QCOMPARE(runCli({QStringLiteral("compare"), project, QStringLiteral("demo"),
                         QStringLiteral("slower"), QStringLiteral("--junit"), junit})
                     .code,
                 2);
    }

    // A prediction compared with its measured run like for like: end_to_end is the replayed
    // time against the work's span (the measured run's span holds the monitoring samples a
    // replay has not: an unchanged prediction read -3.3%), and a prediction has an MFU, the
    // measured run's FLOPs in its own time (it had none, so an mfu gate failed as unknown).
    void predictionComparesLikeForLike()
    {
        const QString project = m_tmp.filePath(QStringLiteral("like.grademl"));
        QCOMPARE(runCli({QStringLiteral("import"), QStringLiteral(GRADEML_DEMO),
                         QStringLiteral("--project"), project})
                     .code,
                 0);
        for (const auto &[name, scale] :
             {std::pair{QStringLiteral("same"), QStringLiteral(".=1")},
              std::pair{QStringLiteral("half"), QStringLiteral(".=0.5")}}) {
            const auto r = runCli({QStringLiteral("whatif"), project, QStringLiteral("--run"),
                                   QStringLiteral("demo"), QStringLiteral("--scale"), scale,
                                   QStringLiteral("--save"), name});
            QVERIFY2(r.code == 0, r.err.constData());
        }
        auto r = runCli({QStringLiteral("compare"), project, QStringLiteral("demo"),
                         QStringLiteral("same"), QStringLiteral("--gate"),
                         QStringLiteral("end_to_end<+0.5%"), QStringLiteral("--gate"),
                         QStringLiteral("end_to_end>-0.5%"), QStringLiteral("--gate"),
                         QStringLiteral("mfu>-0.01pt")});
        QVERIFY2(r.code == 0, r.out.constData());
        // Every op twice as fast: about half the time, about twice the MFU.
        r = runCli({QStringLiteral("compare"), project, QStringLiteral("demo"),
                    QStringLiteral("half"), QStringLiteral("--gate"),
                    QStringLiteral("end_to_end<-40%"), QStringLiteral("--gate"),
                    QStringLiteral("mfu>+80%")});
        QVERIFY2(r.code == 0, r.out.constData());
        qInfo().noquote() << r.outText();
    }

    // Two shared-trace runs in one project: the gate is judged on their real metrics, its
    // exit code agrees with the JUnit file.
    void twoSharedTraceRuns()
    {
        const QString a = QStringLiteral("pytorch_kineto/hta_2022_format_a100_rank3of8");
        const QString b = QStringLiteral("pytorch_kineto/hta_nccl_allreduce_rank0of2_a100");
        GML_REQUIRE_SHARED(a);
        GML_REQUIRE_SHARED(b);
        const QString project = m_tmp.filePath(QStringLiteral("two.grademl"));
        for (const auto &[trace, run] :
             {std::pair{a, QStringLiteral("base")}, std::pair{b, QStringLiteral("new")}})
            QCOMPARE(runCli({QStringLiteral("import"),
                             gmltest::sharedTraces() + QLatin1Char('/') + trace,
                             QStringLiteral("--project"), project, QStringLiteral("--run"), run})
                         .code,
                     0);
        const QString junit = m_tmp.filePath(QStringLiteral("two.xml"));
        const auto r = runCli({QStringLiteral("compare"), project, QStringLiteral("base"),
                               QStringLiteral("new"), QStringLiteral("--gate"),
                               QStringLiteral("step_time<+5%"), QStringLiteral("--gate"),
                               QStringLiteral("gpu_busy>-2pt"), QStringLiteral("--junit"), junit});
        qInfo().noquote() << r.outText();
        QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
        validateJUnit(junit);
        const JUnit j = readJUnit(junit);
        QCOMPARE(j.cases, 2);
        QCOMPARE(j.failures > 0, r.code == 1);
        QCOMPARE(r.outText().count(QLatin1String(": FAIL")), j.failures);
    }
};

QTEST_MAIN(TestGate)
#include "tst_gate.moc"
