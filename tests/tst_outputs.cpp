// SPDX-License-Identifier: GPL-3.0-or-later
// Hardening, round four (issue 70), through the CLI as a user (or a campaign) would: outputs
// that never replace a project or write through a link, MLflow write-back that stays in its run,
// small inputs with a size limit and no hang, SVG and HTML that carry hostile names as text,
// FLOPs, MFU and memory that cannot be absurd, gate exit codes (0 pass, 1 regression, 2 bad
// input), two imports into one project at once, and run names that reach the terminal as text.
// One test per class; after each, the project is as it was (slices, integrity).
#include "outputfile.h"
#include "safetext.h"
#include "smallinput.h"
#include "testutil.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <sys/stat.h>
#include <unistd.h>

using gmltest::runCli;

namespace {

QByteArray digest(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

QString s(const char *text)
{
    return QString::fromUtf8(text);
}

// A Kineto trace of one A100 rank with what a hostile or broken trace holds: shapes with a
// negative, an astronomically large and a fractional dimension, recorded FLOPs that are
// negative and absurd, a 1 PiB allocation, and a free of memory the trace never saw allocated.
// One op is sound (a 64x64x64 mm), so the run still has FLOPs.
const char kHostileTrace[] =
    R"J({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-40GB","totalGlobalMem":42505273344}],
"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":50,"args":{"Input Dims":[[-1,4],[4,4]],"Input type":["float","float"]}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":100,"dur":50,"args":{"Input Dims":[[1e308,2],[2,18446744073709551616]],"Input type":["float","float"]}},
 {"ph":"X","cat":"cpu_op","name":"aten::bmm","pid":1,"tid":1,"ts":200,"dur":50,"args":{"Input Dims":[[4611686018427387904,2,2],[2,2,2]],"Input type":["float","float"]}},
 {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":300,"dur":50,"args":{"flops":-5}},
 {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":400,"dur":50,"args":{"flops":1e30}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":500,"dur":50,"args":{"Input Dims":[[64,64],[64,64]],"Input type":["float","float"]}},
 {"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":520,"args":{"Device Type":1,"Device Id":0,"Bytes":1125899906842624}},
 {"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":530,"args":{"Device Type":1,"Device Id":0,"Bytes":-4096}},
 {"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":540,"args":{"Device Type":1,"Device Id":0,"Bytes":1048576}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":510,"dur":10,"args":{"correlation":1}},
 {"ph":"X","cat":"kernel","name":"ampere_sgemm_64x64_nn","pid":0,"tid":7,"ts":520,"dur":400,"args":{"correlation":1,"device":0,"stream":7}}
]})J";

} // namespace

class TestOutputs : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_project;
    QByteArray m_digest;

    QString path(const QString &rel) const { return m_tmp.filePath(rel); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_project = path(QStringLiteral("p.grademl"));
        auto r = runCli({s("import"), s(GRADEML_DEMO), s("--project"), m_project});
        QVERIFY2(r.code == 0, r.err.constData());
        r = runCli({s("whatif"), m_project, s("--run"), s("demo"), s("--scale"), s(".=1.2"),
                    s("--save"), s("slower")});
        QVERIFY2(r.code == 0, r.err.constData());
        // Headline metrics are computed (and written) by the first that lists them.
        r = runCli({s("runs"), m_project});
        QVERIFY2(r.code == 0, r.err.constData());
    }

    void init() { m_digest = digest(m_project); }

    // After each case the project is byte for byte as it was, and sound.
    void cleanup()
    {
        QCOMPARE(digest(m_project), m_digest);
        const auto r = runCli({s("query"), m_project, s("PRAGMA integrity_check")});
        QVERIFY2(r.code == 0 && r.out.contains("ok"), qPrintable(r.all()));
    }

    void outputRefusals()
    {
        const QString text = path(QStringLiteral("notes.txt"));
        QVERIFY(gml::writeOutput(text, "first", nullptr));
        QVERIFY(gml::writeOutput(text, "second", nullptr)); // a plain file is replaced
        QFile f(text);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("second"));
        const QString link = path(QStringLiteral("link.txt"));
        QVERIFY(QFile::link(text, link));
        const struct
        {
            QString path;
            const char *why;
        } refused[] = {
            {m_project, "GradeML project"},
            {m_project + s("-wal"), "belongs to the SQLite database"},
            {link, "symbolic link"},
            {m_tmp.path(), "folder"},
            {s("/dev/full"), "device"},
            {s("/dev/null"), "device"},
            {QString(), "no output path"},
        };
        for (const auto &c : refused) {
            QString why;
            QVERIFY2(!gml::writeOutput(c.path, "x", &why), qPrintable(c.path));
            QVERIFY2(why.contains(QLatin1String(c.why)), qPrintable(why));
        }
        // An SQLite file under any name; the open project by a hard link's name.
        const QString copy = path(QStringLiteral("renamed.db"));
        QVERIFY(QFile::copy(m_project, copy));
        QVERIFY(gml::outputRefusal(copy).contains(QLatin1String("SQLite database")));
        const QString hard = path(QStringLiteral("hard.txt"));
        QCOMPARE(::link(QFile::encodeName(copy).constData(), QFile::encodeName(hard).constData()),
                 0);
        QVERIFY(!gml::outputRefusal(hard, {copy}).isEmpty());
        QFile(link).open(QIODevice::ReadOnly); // the link's target untouched
        QCOMPARE(QFileInfo(link).symLinkTarget(), text);
    }

    // Every command that writes, pointed at the project or a link to it: exit 2, the project
    // intact (cleanup()), the link still a link.
    void commandsNeverReplaceTheProject_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        const QString link = path(QStringLiteral("project-link"));
        QFile::remove(link);
        QVERIFY(QFile::link(m_project, link));
        auto linkNamed = [&](const char *name) {
            const QString p = path(QString::fromLatin1(name));
            QFile::remove(p);
            QFile::link(m_project, p);
            return p;
        };
        QTest::newRow("compare --junit P")
            << QStringList{s("compare"), m_project,          s("demo"),    s("slower"),
                           s("--gate"),  s("step_time<+5%"), s("--junit"), m_project}
            << s("refused as an output");
        QTest::newRow("compare --markdown P")
            << QStringList{s("compare"), m_project,          s("demo"),       s("slower"),
                           s("--gate"),  s("step_time<+5%"), s("--markdown"), m_project}
            << s("refused as an output");
        QTest::newRow("compare --junit /dev/full")
            << QStringList{s("compare"), m_project,          s("demo"),    s("slower"),
                           s("--gate"),  s("step_time<+5%"), s("--junit"), s("/dev/full")}
            << s("it is a device");
        QTest::newRow("validate --fit P")
            << QStringList{s("validate"),  m_project, s("--run"), s("demo"),
                           s("--against"), s("demo"), s("--fit"), m_project}
            << s("refused as an output");
        QTest::newRow("validate --fit /dev/full")
            << QStringList{s("validate"),  m_project, s("--run"), s("demo"),
                           s("--against"), s("demo"), s("--fit"), s("/dev/full")}
            << s("it is a device");
        QTest::newRow("report --out link.html")
            << QStringList{s("report"), m_project,  s("--run"),
                           s("demo"),   s("--out"), linkNamed("link.html")}
            << s("symbolic link");
        QTest::newRow("export chrome-json --out link.json")
            << QStringList{s("export"), m_project, s("--format"), s("chrome-json"),
                           s("--run"),  s("demo"), s("--out"),    linkNamed("link.json")}
            << s("symbolic link");
        QTest::newRow("export --view timeline --out link.svg")
            << QStringList{s("export"), m_project, s("--out"), linkNamed("link.svg")}
            << s("symbolic link");
        QTest::newRow("export --state P")
            << QStringList{s("export"),         m_project,    s("--out"),
                           path(s("fine.png")), s("--state"), m_project}
            << s("GradeML project");
    }
    void commandsNeverReplaceTheProject()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const auto r = runCli(args);
        QVERIFY2(r.code == 2, qPrintable(r.all()));
        QVERIFY2(QString::fromUtf8(r.err).contains(expected), r.err.constData());
        QVERIFY2(!r.out.contains("wrote"), r.out.constData());
        for (const QString &a : args)
            if (a.startsWith(m_tmp.path()) && a.contains(QLatin1String("link")))
                QVERIFY2(QFileInfo(a).isSymLink(), qPrintable(a));
    }

    // MLflow write-back writes inside the run folder only: a tag or metric file that links out
    // is refused (its target untouched), an experiment folder is not taken for a run.
    void mlflowStaysInTheRun()
    {
        const QString exp = path(QStringLiteral("mlruns/1"));
        const QString run = exp + s("/abc123");
        QDir().mkpath(run + s("/tags"));
        QDir().mkpath(run + s("/metrics"));
        gmltest::writeFile(m_tmp, s("mlruns/1/meta.yaml"),
                           "artifact_location: mlruns/1\nexperiment_id: '1'\nname: x\n");
        gmltest::writeFile(m_tmp, s("mlruns/1/abc123/meta.yaml"),
                           "run_id: abc123\nexperiment_id: '1'\nstatus: 3\n");
        const QString outside = gmltest::writeFile(m_tmp, s("outside.txt"), "keep me");
        QVERIFY(QFile::link(outside, run + s("/tags/grademl.run")));
        const QString html = path(s("mlflow-report.html"));
        auto r = runCli(
            {s("report"), m_project, s("--run"), s("demo"), s("--out"), html, s("--mlflow"), run});
        QVERIFY2(r.code != 0 && r.err.contains("symbolic link"), qPrintable(r.all()));
        QCOMPARE(digest(outside),
                 QCryptographicHash::hash("keep me", QCryptographicHash::Sha256).toHex());
        // A metric file linking out, likewise (it was appended to).
        QFile::remove(run + s("/tags/grademl.run"));
        QVERIFY(QFile::link(outside, run + s("/metrics/grademl.step_time_ms")));
        r = runCli(
            {s("report"), m_project, s("--run"), s("demo"), s("--out"), html, s("--mlflow"), run});
        QVERIFY2(r.code != 0 && r.err.contains("symbolic link"), qPrintable(r.all()));
        QCOMPARE(digest(outside),
                 QCryptographicHash::hash("keep me", QCryptographicHash::Sha256).toHex());
        // A metrics folder that is a link out of the run.
        QFile::remove(run + s("/metrics/grademl.step_time_ms"));
        QDir(run + s("/metrics")).removeRecursively();
        QDir().mkpath(path(s("elsewhere")));
        QVERIFY(QFile::link(path(s("elsewhere")), run + s("/metrics")));
        r = runCli(
            {s("report"), m_project, s("--run"), s("demo"), s("--out"), html, s("--mlflow"), run});
        QVERIFY2(r.code != 0 && r.err.contains("symbolic link"), qPrintable(r.all()));
        QVERIFY(QDir(path(s("elsewhere"))).isEmpty());
        // The experiment is not a run.
        r = runCli(
            {s("report"), m_project, s("--run"), s("demo"), s("--out"), html, s("--mlflow"), exp});
        QVERIFY2(r.code != 0 && r.err.contains("is an MLflow experiment, not a run"),
                 qPrintable(r.all()));
        QVERIFY(!QFileInfo::exists(exp + s("/tags")));
        // A sound run takes the write-back, twice: the metric file gains a line, by rename.
        QFile::remove(run + s("/metrics"));
        for (int i = 0; i < 2; ++i) {
            r = runCli({s("report"), m_project, s("--run"), s("demo"), s("--out"), html,
                        s("--mlflow"), run});
            QVERIFY2(r.code == 0, qPrintable(r.all()));
        }
        QFile metric(run + s("/metrics/grademl.step_time_ms"));
        QVERIFY(metric.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = metric.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[1].endsWith(" 1"));
    }

    // Small inputs: a device is refused at once, a file or pipe above its limit is refused with
    // the limit, a FIFO nobody writes ends with an error within its timeout.
    void smallInputsHaveLimits()
    {
        QElapsedTimer t;
        t.start();
        for (const QStringList &args :
             {QStringList{s("whatif"), m_project, s("--run"), s("demo"), s("--device"), s("H100"),
                          s("--calibration"), s("/dev/zero")},
              QStringList{s("whatif"), m_project, s("--run"), s("demo"), s("--transforms"),
                          s("@/dev/zero")},
              QStringList{s("validate"), m_project, s("--run"), s("demo"), s("--against"),
                          s("demo"), s("--calibration"), s("/dev/zero")}}) {
            const auto r = runCli(args);
            QVERIFY2(r.code == 2 && r.err.contains("is a device or socket"), qPrintable(r.all()));
        }
        QVERIFY2(t.elapsed() < 120'000, "a device was read instead of refused");
        const QString big = path(s("big.json"));
        QVERIFY(gml::writeOutput(big, QByteArray(2 << 20, ' '), nullptr));
        QString why;
        QVERIFY(!gml::readSmallInput(big, s("a calibration file"), &why,
                                     {gml::kSmallInputBytes, 1000}));
        QVERIFY2(why.contains(QLatin1String("larger than the 1 MiB a calibration file may hold")),
                 qPrintable(why));
        // A FIFO: one that holds too much is cut at the limit; one nobody writes times out.
        // Each case its own FIFO, the writer exec'd so that killing it stops the writing.
        auto fifo = [&](const char *name) {
            const QString p = path(QString::fromLatin1(name));
            return ::mkfifo(QFile::encodeName(p).constData(), 0600) == 0 ? p : QString();
        };
        const QString big2 = fifo("fifo-big");
        QVERIFY(!big2.isEmpty());
        QProcess writer;
        writer.start(s("sh"), {s("-c"), s("exec head -c 3000000 /dev/zero > '%1'").arg(big2)});
        QVERIFY(!gml::readSmallInput(big2, s("a calibration file"), &why,
                                     {gml::kSmallInputBytes, 5000}));
        QVERIFY2(why.contains(QLatin1String("larger than the 1 MiB")), qPrintable(why));
        writer.kill();
        writer.waitForFinished();
        const QString silent = fifo("fifo-silent");
        QVERIFY(!silent.isEmpty());
        t.restart();
        QVERIFY(!gml::readSmallInput(silent, s("a calibration file"), &why,
                                     {gml::kSmallInputBytes, 300}));
        QVERIFY2(why.contains(QLatin1String("gave no data")), qPrintable(why));
        QVERIFY(t.elapsed() < 5000);
        // A pipe that ends is read whole.
        const QString ending = fifo("fifo-ending");
        QVERIFY(!ending.isEmpty());
        writer.start(s("sh"), {s("-c"), s("printf '[1,2]' > '%1'").arg(ending)});
        const auto bytes = gml::readSmallInput(ending, s("a transforms file"), &why,
                                               {gml::kSmallInputBytes, 5000});
        writer.waitForFinished();
        QVERIFY2(bytes && *bytes == "[1,2]", qPrintable(why));
    }

    // Calibration factors within their range; one applied with no transform is refused.
    void calibrationFactorsHaveARange()
    {
        const QString big = gmltest::writeFile(
            m_tmp, s("huge.json"),
            R"({"format":"grademl_calibration","version":1,"families":{"gemm":1e308}})");
        auto r = runCli({s("whatif"), m_project, s("--run"), s("demo"), s("--device"), s("H100"),
                         s("--calibration"), big});
        QVERIFY2(r.code == 2 && r.err.contains("families.gemm: expected a factor from 0.05 to 20"),
                 qPrintable(r.all()));
        const QString tiny = gmltest::writeFile(
            m_tmp, s("tiny.json"),
            R"({"format":"grademl_calibration","version":1,"families":{},"host":1e-308})");
        r = runCli({s("whatif"), m_project, s("--run"), s("demo"), s("--device"), s("H100"),
                    s("--calibration"), tiny});
        QVERIFY2(r.code == 2 && r.err.contains("host: expected a factor"), qPrintable(r.all()));
        const QString fine = gmltest::writeFile(
            m_tmp, s("fine.json"),
            R"({"format":"grademl_calibration","version":1,"families":{"gemm":4.467}})");
        r = runCli({s("whatif"), m_project, s("--run"), s("demo"), s("--calibration"), fine});
        QVERIFY2(r.code != 0 && r.err.contains("no transform was given"), qPrintable(r.all()));
        QVERIFY2(!r.out.contains("+0.0%"), r.out.constData());
    }

    // Gates: 0 pass, 1 a regression, 2 anything that stops a judgement.
    void gateExitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("expected");
        const QStringList base{s("compare"), m_project};
        QTest::newRow("pass") << base + QStringList{s("demo"), s("slower"), s("--gate"),
                                                    s("step_time<+25%")}
                              << 0 << s("all 1 gates passed");
        QTest::newRow("regression")
            << base + QStringList{s("demo"), s("slower"), s("--gate"), s("step_time<+5%")} << 1
            << s("1 of 1 gates failed");
        QTest::newRow("missing run")
            << base + QStringList{s("demo"), s("nosuch"), s("--gate"), s("step_time<+5%")} << 2
            << s("nosuch");
        QTest::newRow("unitless threshold")
            << base + QStringList{s("demo"), s("slower"), s("--gate"), s("step_time<5")} << 2
            << s("the change needs a unit: 5% (relative) or 5ms (absolute)");
        QTest::newRow("unknown --metric")
            << base + QStringList{s("demo"),          s("slower"),   s("--gate"),
                                  s("step_time<+5%"), s("--metric"), s("nosuch")}
            << 2 << s("none of the runs has the metric");
        QTest::newRow("metric a run lacks")
            << base + QStringList{s("demo"), s("slower"), s("--gate"), s("energy<+5%")} << 2
            << s("could not be judged");
        QTest::newRow("unwritable --junit")
            << base + QStringList{s("demo"),           s("slower"),  s("--gate"),
                                  s("step_time<+25%"), s("--junit"), s("/nonexistent-dir/x.xml")}
            << 2 << s("cannot write");
    }
    void gateExitCodes()
    {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, expected);
        const auto r = runCli(args);
        QVERIFY2(r.code == code, qPrintable(r.all()));
        QVERIFY2(r.all().contains(expected), qPrintable(r.all()));
    }

    // Hostile run names: as text in the SVG (well-formed, no element of theirs), in the HTML
    // report (escaped, no control character), and on the terminal (shown, not obeyed).
    void hostileNamesStayText()
    {
        const QString project = path(s("names.grademl"));
        const QString name = s("<script>alert(1)</script>\x1b[31m\x07&\"'");
        auto r = runCli({s("import"), s(GRADEML_DEMO "/rank0.pt.trace.json"), s("--project"),
                         project, s("--run"), name});
        QVERIFY2(r.code == 0, qPrintable(r.all()));
        for (const char *view : {"analysis", "graph", "timeline"}) {
            const QString svg = path(QStringLiteral("%1.svg").arg(QLatin1String(view)));
            r = runCli({s("export"), project, s("--view"), QLatin1String(view), s("--run"), name,
                        s("--out"), svg});
            QVERIFY2(r.code == 0, qPrintable(r.all()));
            QFile f(svg);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            QXmlStreamReader xml(bytes);
            while (!xml.atEnd()) {
                xml.readNext();
                if (xml.isStartElement())
                    QVERIFY2(xml.name() != QLatin1String("script"), view);
            }
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            QVERIFY(!bytes.contains('\x1b') && !bytes.contains('\x07'));
            QCOMPARE(bytes.count("<title>"), 1); // ours, not Qt's default beside it
        }
        const QString html = path(s("names.html"));
        r = runCli({s("report"), project, s("--run"), name, s("--out"), html});
        QVERIFY2(r.code == 0, qPrintable(r.all()));
        QFile f(html);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray page = f.readAll();
        QVERIFY(!page.contains("<script>alert"));
        QVERIFY(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[31m\\x07&amp;"));
        for (const char c : page)
            QVERIFY2(uchar(c) >= 0x20 || c == '\n' || c == '\t' || c == '\r', "a control char");
        // The terminal: the run's name listed, its ESC and BEL shown as text.
        r = runCli({s("runs"), project});
        QVERIFY2(r.code == 0, qPrintable(r.all()));
        QVERIFY(!r.out.contains('\x1b') && !r.out.contains('\x07'));
        QVERIFY2(r.out.contains("\\x1b[31m\\x07"), r.out.constData());
    }

    // Shapes, FLOPs and memory outside physical bounds: dropped and counted with a warning
    // naming the op, never a negative FLOP count, an MFU above 100% or a 1 PiB peak.
    void absurdNumbersAreDropped()
    {
        const QString file =
            gmltest::writeFile(m_tmp, s("hostile/rank0.pt.trace.json"), QByteArray(kHostileTrace));
        const QString project = path(s("hostile.grademl"));
        auto r = runCli({s("import"), file, s("--project"), project, s("--run"), s("h")});
        QVERIFY2(r.code == 0, qPrintable(r.all()));
        r = runCli({s("analyze"), project, s("--run"), s("h"), s("--json")});
        QVERIFY2(r.code == 0, qPrintable(r.all()));
        const QJsonObject summary =
            QJsonDocument::fromJson(r.out).object().value(s("summary")).toObject();
        const double flops = summary.value(s("flops")).toDouble();
        // The one sound mm (2*64^3) is all that is left.
        QCOMPARE(flops, 2.0 * 64 * 64 * 64);
        const QJsonValue mfu = summary.value(s("mfu"));
        QVERIFY(mfu.isNull() || (mfu.toDouble() >= 0 && mfu.toDouble() <= 1));
        const QString warnings = QString::fromUtf8(
            QJsonDocument(summary.value(s("warnings")).toArray()).toJson(QJsonDocument::Compact));
        QVERIFY2(warnings.contains(QLatin1String("5 op(s) not costed")), qPrintable(warnings));
        QVERIFY2(warnings.contains(QLatin1String("aten::mm: dropped, outside physical bounds: "
                                                 "dimension -1")),
                 qPrintable(warnings));
        QVERIFY2(warnings.contains(QLatin1String("1 memory event(s) dropped")),
                 qPrintable(warnings));
        // The memory report: levels never below zero, no 1 PiB peak.
        r = runCli({s("memory"), project, s("--run"), s("h"), s("--json")});
        QVERIFY2(r.code == 0, qPrintable(r.all()));
        const QJsonObject memory = QJsonDocument::fromJson(r.out).object();
        for (const auto &d : memory.value(s("devices")).toArray()) {
            const QJsonObject o = d.toObject();
            QVERIFY(o.value(s("peak_allocated_bytes")).toDouble() < 1e12);
            QVERIFY(o.value(s("peak_allocated_bytes")).toDouble() >= 1048576);
            QVERIFY(o.value(s("peak_at_run_ns")).toDouble() >= 0);
        }
        // The HTML report says what was dropped.
        const QString html = path(s("hostile.html"));
        r = runCli({s("report"), project, s("--run"), s("h"), s("--out"), html});
        QVERIFY2(r.code == 0, qPrintable(r.all()));
        QFile f(html);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("Dropped: 5 op(s) not costed"));
    }

    // Two imports into one project started together: the second waits for the first, both
    // runs are whole, no constraint error.
    void concurrentImportsWait()
    {
        const QString project = path(s("together.grademl"));
        QList<QProcess *> imports;
        // Three copies of the demo folder (each file a new source), started at once.
        for (const char *run : {"one", "two", "three"}) {
            const QString folder = path(QStringLiteral("copies/%1").arg(QLatin1String(run)));
            QDir().mkpath(folder);
            for (const QString &file : QDir(s(GRADEML_DEMO)).entryList(QDir::Files))
                QVERIFY(QFile::copy(s(GRADEML_DEMO "/") + file, folder + QLatin1Char('/') + file));
        }
        for (const char *run : {"one", "two", "three"}) {
            auto *p = new QProcess(this);
            p->start(s(GRADEML_CLI),
                     {s("import"), path(QStringLiteral("copies/%1").arg(QLatin1String(run))),
                      s("--project"), project, s("--run"), QLatin1String(run), s("--jobs"),
                      s("2")});
            imports << p;
        }
        for (QProcess *p : imports) {
            QVERIFY(p->waitForFinished(300'000));
            const QByteArray err = p->readAllStandardError();
            QVERIFY2(p->exitCode() == 0, err.constData());
            QVERIFY2(!err.contains("UNIQUE constraint"), err.constData());
        }
        const auto r = runCli({s("query"), project,
                               s("SELECT r.name, count(*) FROM slice s JOIN track t ON t.id = "
                                 "s.track_id JOIN run r ON r.id = t.run_id GROUP BY r.name "
                                 "ORDER BY r.name")});
        QVERIFY2(r.code == 0, qPrintable(r.all()));
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QVERIFY2(lines.size() >= 4, r.out.constData()); // a header and three runs
        const QByteArray one = lines[1].split(',').last().trimmed();
        for (int i = 2; i < lines.size(); ++i)
            QCOMPARE(lines[i].split(',').last().trimmed(), one);
    }
};

QTEST_GUILESS_MAIN(TestOutputs)
#include "tst_outputs.moc"
