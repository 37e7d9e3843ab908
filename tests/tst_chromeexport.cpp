// SPDX-License-Identifier: GPL-3.0-or-later
// A run as a Chrome trace (issue 59): every shared Kineto and Nsight trace imported, written
// out with `grademl export --format chrome-json`, imported again: the same slices (count,
// names, starts, durations to the nanosecond); the file is JSON that names the rows; a
// predicted run exported and opened as a run of its own; names that hold markup or quotes stay
// text; a failed write leaves nothing behind.
#include "chromeexport.h"
#include "project.h"
#include "testutil.h"

#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <algorithm>
#include <tuple>
#include <vector>

using namespace gml;
using gmltest::runCli;

namespace {

using Slice = std::tuple<TimeNs, TimeNs, QString>; // start, duration, name

// The slices of run `run` (the only one when empty), by start, duration and name.
std::vector<Slice> slicesOf(const QString &projectPath, const QString &run = {})
{
    QString error;
    auto project = Project::open(projectPath, Project::Mode::ReadOnly, &error);
    if (!project)
        qFatal("%s", qPrintable(error));
    auto st = project->db().prepare(
        "SELECT s.ts, s.dur, s.name FROM slice_abs s JOIN run r ON r.id = s.run_id "
        "WHERE ?1 = '' OR r.name = ?1");
    st.bind(1, run);
    std::vector<Slice> out;
    while (st.step())
        out.emplace_back(st.int64(0), st.int64(1), st.text(2));
    std::sort(out.begin(), out.end());
    return out;
}

qint64 flowsOf(const QString &projectPath)
{
    QString error;
    auto project = Project::open(projectPath, Project::Mode::ReadOnly, &error);
    return project ? project->db().scalar("SELECT count(*) FROM flow") : -1;
}

// The ranks of the rows of slices, by kind of row (GPU streams and CPU threads), each once.
QStringList rowRanksOf(const QString &projectPath)
{
    QString error;
    auto project = Project::open(projectPath, Project::Mode::ReadOnly, &error);
    auto st = project->db().prepare("SELECT DISTINCT kind, coalesce(rank, -1) FROM track "
                                    "WHERE slice_count > 0 AND kind IN (?, ?) ORDER BY 1, 2");
    st.bind(1, qint64(TrackKind::Stream));
    st.bind(2, qint64(TrackKind::Thread));
    QStringList out;
    while (st.step())
        out << QStringLiteral("%1:%2").arg(st.int64(0)).arg(st.int64(1));
    return out;
}

// The names of a project's GPU rows ("rank 1 · GPU 1 · Tesla V100-SXM2-32GB"), sorted.
QStringList gpuNamesOf(const QString &projectPath)
{
    QString error;
    auto project = Project::open(projectPath, Project::Mode::ReadOnly, &error);
    auto st = project->db().prepare("SELECT name FROM track WHERE kind = ? ORDER BY name");
    st.bind(1, qint64(TrackKind::Gpu));
    QStringList out;
    while (st.step())
        out << st.text(0);
    return out;
}

QByteArray gunzip(const QString &path)
{
    QByteArray out;
    gzFile f = gzopen(QFile::encodeName(path).constData(), "rb");
    if (!f)
        return out;
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, n);
    gzclose(f);
    return out;
}

} // namespace

class TestChromeExport : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;
    std::pair<qint64, qint64> m_flows; // the last round trip's, before and after

    // Imports `input` into a new project, exports its run, imports the export into another:
    // the two projects' slices.
    std::pair<std::vector<Slice>, std::vector<Slice>>
    roundTrip(const QString &input, const QString &tag, QJsonObject *trace = nullptr)
    {
        const QString a = m_tmp.filePath(tag + QStringLiteral("-a.grademl"));
        const QString b = m_tmp.filePath(tag + QStringLiteral("-b.grademl"));
        const QString json = m_tmp.filePath(tag + QStringLiteral(".json.gz"));
        auto r = runCli({QStringLiteral("import"), input, QStringLiteral("--project"), a});
        if (r.code != 0)
            qFatal("import %s: %s", qPrintable(input), r.err.constData());
        r = runCli({QStringLiteral("export"), a, QStringLiteral("--format"),
                    QStringLiteral("chrome-json"), QStringLiteral("--out"), json});
        if (r.code != 0)
            qFatal("export %s: %s", qPrintable(a), r.err.constData());
        if (trace) {
            QJsonParseError pe;
            *trace = QJsonDocument::fromJson(gunzip(json), &pe).object();
            if (pe.error != QJsonParseError::NoError)
                qFatal("%s is not JSON: %s at %d", qPrintable(json), qPrintable(pe.errorString()),
                       pe.offset);
        }
        r = runCli({QStringLiteral("import"), json, QStringLiteral("--project"), b});
        if (r.code != 0)
            qFatal("import %s: %s", qPrintable(json), r.err.constData());
        m_flows = {flowsOf(a), flowsOf(b)};
        return {slicesOf(a), slicesOf(b)};
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    // Every shared GPU trace (and the 8-rank DLRM job, one run of 8 ranks written as one file):
    // exported and imported again, the same slices to the nanosecond.
    void sharedTracesRoundTrip_data()
    {
        QTest::addColumn<QString>("trace");
        for (const QString &t : gmltest::sharedGpuTraces())
            QTest::newRow(qPrintable(t)) << t;
        QTest::newRow("pytorch_kineto/param_dlrm_8rank_v100")
            << QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100");
    }
    void sharedTracesRoundTrip()
    {
        QFETCH(QString, trace);
        GML_REQUIRE_SHARED(trace);
        // Under a sanitizer the Kineto traces with a file over 1 MiB (four, each two imports
        // and an export: a third of this suite's time there) are left to the release suite;
        // the smaller ones, the 8-rank job and both Nsight reports take the same paths.
        if (gmltest::kUnderSanitizer && trace.startsWith(QLatin1String("pytorch_kineto/"))) {
            QDirIterator files(gmltest::sharedTraces() + QLatin1Char('/') + trace, QDir::Files);
            while (files.hasNext())
                if (files.nextFileInfo().size() > (1 << 20))
                    QSKIP("a Kineto file over 1 MiB: round-tripped by the release suite");
        }
        const QString tag = trace.section(QLatin1Char('/'), 1);
        QJsonObject json;
        const auto [before, after] =
            roundTrip(gmltest::sharedTraces() + QLatin1Char('/') + trace, tag, &json);
        QVERIFY(!before.empty());
        QCOMPARE(after.size(), before.size());
        for (size_t i = 0; i < before.size(); ++i)
            if (before[i] != after[i])
                QFAIL(qPrintable(QStringLiteral("slice %1 of %2: %3 +%4 '%5' became %6 +%7 '%8'")
                                     .arg(i)
                                     .arg(before.size())
                                     .arg(std::get<0>(before[i]))
                                     .arg(std::get<1>(before[i]))
                                     .arg(std::get<2>(before[i]))
                                     .arg(std::get<0>(after[i]))
                                     .arg(std::get<1>(after[i]))
                                     .arg(std::get<2>(after[i]))));
        // The links too: a launch flow is written with its correlation id (moved to the rank's
        // own range in a file of several ranks) and not linked twice.
        QCOMPARE(m_flows.second, m_flows.first);
        // Each row keeps its rank: a file of one rank says it as Kineto does (distributedInfo),
        // one of several as each process's label "rank N" (DLRM's came back without ranks).
        const QStringList ranksBefore =
            rowRanksOf(m_tmp.filePath(tag + QStringLiteral("-a.grademl")));
        QCOMPARE(rowRanksOf(m_tmp.filePath(tag + QStringLiteral("-b.grademl"))), ranksBefore);
        if (tag == QLatin1String("param_dlrm_8rank_v100"))
            QVERIFY(ranksBefore.contains(QStringLiteral("%1:7").arg(int(TrackKind::Stream))));
        // Each GPU keeps its number and model (issue 73: DLRM's came back as GPU 0, 3, 6 ...,
        // the pids the export gave them, and without their model past rank 0).
        const QStringList gpus = gpuNamesOf(m_tmp.filePath(tag + QStringLiteral("-a.grademl")));
        QVERIFY(!gpus.isEmpty());
        QCOMPARE(gpuNamesOf(m_tmp.filePath(tag + QStringLiteral("-b.grademl"))), gpus);
        // What a viewer reads: rows named, times from the run's start.
        const QJsonArray events = json.value(QStringLiteral("traceEvents")).toArray();
        int named = 0, complete = 0;
        double firstTs = 1e300;
        for (const auto &v : events) {
            const QJsonObject e = v.toObject();
            const QString ph = e.value(QStringLiteral("ph")).toString();
            named += ph == QLatin1String("M") &&
                     e.value(QStringLiteral("name")).toString() == QLatin1String("thread_name");
            if (ph == QLatin1String("X")) {
                ++complete;
                firstTs = std::min(firstTs, e.value(QStringLiteral("ts")).toDouble());
            }
        }
        QVERIFY(named > 0);
        QVERIFY(complete > 0);
        QVERIFY2(firstTs >= 0 && firstTs < 1e7, qPrintable(QString::number(firstTs))); // < 10 s
        QVERIFY(json.value(QStringLiteral("baseTimeNanoseconds")).toDouble() > 0);
    }

    // The bundled demo (the project's own recorded run): its monitoring counters come back as
    // counters of the same names and samples.
    void countersRoundTrip()
    {
        const auto [before, after] =
            roundTrip(QStringLiteral(GRADEML_DEMO), QStringLiteral("demo"));
        QVERIFY(after == before);
        const auto counters = [](const QString &path) {
            QString error;
            auto project = Project::open(path, Project::Mode::ReadOnly, &error);
            auto st = project->db().prepare(
                "SELECT track, ts, value FROM counter_abs ORDER BY track, ts, value");
            QStringList out;
            while (st.step())
                out << QStringLiteral("%1@%2=%3").arg(st.text(0)).arg(st.int64(1)).arg(st.real(2));
            return out;
        };
        const QStringList a = counters(m_tmp.filePath(QStringLiteral("demo-a.grademl")));
        const QStringList b = counters(m_tmp.filePath(QStringLiteral("demo-b.grademl")));
        QVERIFY(a.size() >= 48);
        QCOMPARE(b, a);
    }

    // A predicted run (what-if, saved) written out and opened as a run of its own: its slices.
    void predictedRunExports()
    {
        const QString trace = QStringLiteral("pytorch_kineto/hta_alexnet_a100");
        GML_REQUIRE_SHARED(trace);
        const QString project = m_tmp.filePath(QStringLiteral("predicted.grademl"));
        auto r =
            runCli({QStringLiteral("import"), gmltest::sharedTraces() + QLatin1Char('/') + trace,
                    QStringLiteral("--project"), project});
        QCOMPARE(r.code, 0);
        r = runCli({QStringLiteral("whatif"), project, QStringLiteral("--scale"),
                    QStringLiteral(".=0.5"), QStringLiteral("--save"), QStringLiteral("half")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QString json = m_tmp.filePath(QStringLiteral("half.json"));
        r = runCli({QStringLiteral("export"), project, QStringLiteral("--format"),
                    QStringLiteral("chrome-json"), QStringLiteral("--run"), QStringLiteral("half"),
                    QStringLiteral("--out"), json});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.outText().contains(QLatin1String("run 'half'")));
        const QString again = m_tmp.filePath(QStringLiteral("half-again.grademl"));
        r = runCli({QStringLiteral("import"), json, QStringLiteral("--project"), again});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto predicted = slicesOf(project, QStringLiteral("half"));
        const auto reopened = slicesOf(again);
        QVERIFY(!predicted.empty());
        QCOMPARE(reopened.size(), predicted.size());
        QVERIFY(reopened == predicted);
    }

    // Names a trace someone sent you may hold: quotes, backslashes, control characters, markup.
    // The export is JSON that keeps them as text, and they come back the same.
    void hostileNamesStayText()
    {
        // (Built from a JSON object: moc reads raw strings with quotes in them badly.)
        QJsonArray events;
        const auto slice = [&](int tid, int ts, int dur, const QString &name) {
            return QJsonObject{{QStringLiteral("ph"), QStringLiteral("X")},
                               {QStringLiteral("pid"), 1},
                               {QStringLiteral("tid"), tid},
                               {QStringLiteral("ts"), ts},
                               {QStringLiteral("dur"), dur},
                               {QStringLiteral("name"), name},
                               {QStringLiteral("cat"), QStringLiteral("cpu_op")}};
        };
        events.append(slice(1, 1, 5, QStringLiteral("<script>alert(1)</script>")));
        QJsonObject quoted = slice(1, 2, 1, QStringLiteral("\"><img src=x onerror=alert(1)>"));
        quoted.insert(QStringLiteral("args"),
                      QJsonObject{{QStringLiteral("k"), QStringLiteral("a\"b\\c\n")}});
        events.append(quoted);
        events.append(slice(2, 3, 1, QStringLiteral("tab\there")));
        events.append(
            QJsonObject{{QStringLiteral("ph"), QStringLiteral("M")},
                        {QStringLiteral("pid"), 1},
                        {QStringLiteral("tid"), 2},
                        {QStringLiteral("name"), QStringLiteral("thread_name")},
                        {QStringLiteral("args"),
                         QJsonObject{{QStringLiteral("name"), QStringLiteral("</script><b>x")}}}});
        const QByteArray hostile =
            QJsonDocument(QJsonObject{{QStringLiteral("traceEvents"), events}}).toJson();
        const QString input =
            gmltest::writeFile(m_tmp, QStringLiteral("hostile/trace.json"), hostile);
        QJsonObject json;
        const auto [before, after] = roundTrip(input, QStringLiteral("hostile"), &json);
        QCOMPARE(before.size(), size_t(3));
        QVERIFY(after == before);
        QStringList names;
        for (const auto &v : json.value(QStringLiteral("traceEvents")).toArray())
            names << v.toObject().value(QStringLiteral("name")).toString();
        QVERIFY(names.contains(QStringLiteral("<script>alert(1)</script>")));
        QVERIFY(names.contains(QStringLiteral("tab\there")));
    }

    // A file that cannot be written: an error naming it, and nothing left at the path.
    void failedWriteLeavesNothing()
    {
        const QString trace = QStringLiteral("pytorch_kineto/hta_amd_mi250_rocm62");
        GML_REQUIRE_SHARED(trace);
        const QString project = m_tmp.filePath(QStringLiteral("amd.grademl"));
        QCOMPARE(
            runCli({QStringLiteral("import"), gmltest::sharedTraces() + QLatin1Char('/') + trace,
                    QStringLiteral("--project"), project})
                .code,
            0);
        const QString out = m_tmp.filePath(QStringLiteral("no/such/folder/run.json"));
        const auto r = runCli({QStringLiteral("export"), project, QStringLiteral("--format"),
                               QStringLiteral("chrome-json"), QStringLiteral("--out"), out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.all().contains(out), r.err.constData());
        QVERIFY(!QFile::exists(out));
        // And cancelled half way: no file either.
        QString error;
        auto p = Project::open(project, Project::Mode::ReadOnly, &error);
        QVERIFY(p);
        const QString cancelled = m_tmp.filePath(QStringLiteral("cancelled.json"));
        int calls = 0;
        const auto written = exportChromeTrace(
            *p, *p->findRun(QStringLiteral("hta_amd_mi250_rocm62")), cancelled,
            [&](double) { return ++calls < 1; }, &error);
        QVERIFY(!written);
        QVERIFY(!QFile::exists(cancelled));
    }
};

QTEST_MAIN(TestChromeExport)
#include "tst_chromeexport.moc"
