// SPDX-License-Identifier: GPL-3.0-or-later
// grademl record: a CPU-bound workload's samples against what it used, the exit status and
// signals passing through, SIGINT flushing every file, missing or failing GPU tools reported
// and skipped, a GPU tool's log aligned with the samples in one run, and the samples importer
// on malformed files.
#include "project.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

#include <csignal>
#include <map>

using namespace gml;

namespace {

// grademl-samples.csv read back: per (entity, metric) its (time, value) pairs.
struct Samples
{
    std::map<std::pair<QString, QString>, std::vector<std::pair<qint64, double>>> series;
    bool endsWithNewline = false;

    const std::vector<std::pair<qint64, double>> &of(const QString &entity,
                                                     const QString &metric) const
    {
        static const std::vector<std::pair<qint64, double>> none;
        const auto it = series.find({entity, metric});
        return it == series.end() ? none : it->second;
    }
    // The first entity starting with `prefix` that has `metric`.
    QString entity(const QString &prefix, const QString &metric) const
    {
        for (const auto &[key, values] : series)
            if (key.first.startsWith(prefix) && key.second == metric)
                return key.first;
        return {};
    }
};

Samples readSamples(const QString &path)
{
    Samples s;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return s;
    const QByteArray all = f.readAll();
    s.endsWithNewline = all.endsWith('\n');
    std::map<int, std::pair<QString, QString>> names;
    for (const QByteArray &line : all.split('\n')) {
        const QList<QByteArray> f = line.split(',');
        if (line.startsWith("series,") && f.size() == 5)
            names[f[1].toInt()] = {QString::fromUtf8(f[2]), QString::fromUtf8(f[3])};
        else if (f.size() == 3 && names.count(f[1].toInt()))
            s.series[names[f[1].toInt()]].push_back({f[0].toLongLong(), f[2].toDouble()});
    }
    return s;
}

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object()
                                       : QJsonObject();
}

// A PATH with the shell and coreutils but no GPU tools.
QProcessEnvironment plainPath()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
    return env;
}

} // namespace

class TestRecord : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;

    QString dir(const QString &name) const { return m_tmp.filePath(name); }

private Q_SLOTS:
    void busyLoopSamplesMatchItsCpuTime()
    {
        // One shell busy for about a second, then its own CPU time ("times": user and system
        // of the shell, then of its children).
        const QString out = dir(QStringLiteral("busy"));
        const auto r = gmltest::runCli(
            {QStringLiteral("record"), QStringLiteral("--out"), out, QStringLiteral("--interval"),
             QStringLiteral("50ms"), QStringLiteral("--name"), QStringLiteral("busy loop"),
             QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
             QStringLiteral("i=0; while [ $i -lt 600000 ]; do i=$((i+1)); done; times")},
            plainPath());
        QVERIFY2(r.code == 0, r.err.constData());
        const QRegularExpression times(QStringLiteral(R"(^(\d+)m([\d.]+)s (\d+)m([\d.]+)s)"));
        const auto m = times.match(QString::fromUtf8(r.out));
        QVERIFY2(m.hasMatch(), r.out.constData());
        const double cpuS = m.captured(1).toDouble() * 60 + m.captured(2).toDouble() +
                            m.captured(3).toDouble() * 60 + m.captured(4).toDouble();
        QVERIFY(cpuS > 0.2);
        const Samples s = readSamples(out + QStringLiteral("/grademl-samples.csv"));
        QVERIFY(s.endsWithNewline);
        const QString shell = s.entity(QStringLiteral("process "), QStringLiteral("cpu"));
        QVERIFY2(shell.endsWith(QLatin1String(" sh")), qPrintable(shell));
        // The samples integrate to the CPU time the shell says it used (the sampling grid loses
        // at most the part before its first sample and after its last).
        const auto &cpu = s.of(shell, QStringLiteral("cpu"));
        QVERIFY(cpu.size() >= 4);
        double integral = 0;
        for (size_t k = 1; k < cpu.size(); ++k)
            integral += cpu[k].second / 100.0 * double(cpu[k].first - cpu[k - 1].first) / 1e9;
        QVERIFY2(std::abs(integral - cpuS) <= 0.15 * cpuS + 0.12,
                 qPrintable(QStringLiteral("%1 s sampled, %2 s used").arg(integral).arg(cpuS)));
        // A busy shell is one core's worth at most, and the host was at least that busy. Both
        // are counted in clock ticks (10 ms), so one sample of 50 ms can be a tick (20 points)
        // off; over the run the differences telescope to a tick or two, so the bounds are on
        // the sums.
        const auto &cores = s.of(QStringLiteral("host"), QStringLiteral("cpu busy cores"));
        const double span = double(cpu.back().first - cpu.front().first) / 1e9;
        QVERIFY2(integral <= span + 0.03,
                 qPrintable(QStringLiteral("%1 s of CPU in %2 s").arg(integral).arg(span)));
        double hostIntegral = 0, peak = 0;
        for (size_t k = 1; k < cpu.size(); ++k) {
            peak = std::max(peak, cpu[k].second);
            for (const auto &[tc, c] : cores)
                if (tc == cpu[k].first)
                    hostIntegral += c * double(cpu[k].first - cpu[k - 1].first) / 1e9;
        }
        QVERIFY2(hostIntegral >= integral - 0.03,
                 qPrintable(
                     QStringLiteral("host %1 core-s, shell %2 s").arg(hostIntegral).arg(integral)));
        QVERIFY2(peak >= 40, qPrintable(QString::number(peak))); // even on a loaded machine
        // Per core, and the host's memory.
        QVERIFY(!s.of(QStringLiteral("cpu0"), QStringLiteral("busy")).empty());
        QVERIFY(!s.of(QStringLiteral("host"), QStringLiteral("memory used")).empty());
        QVERIFY(!s.of(QStringLiteral("command"), QStringLiteral("resident memory")).empty());

        const QJsonObject json = readJson(out + QStringLiteral("/grademl.json"));
        const QJsonObject rec = json.value(QStringLiteral("recorder")).toObject();
        QCOMPARE(json.value(QStringLiteral("run")).toString(), QStringLiteral("busy loop"));
        QCOMPARE(rec.value(QStringLiteral("exit_status")).toInt(), 0);
        QCOMPARE(rec.value(QStringLiteral("status")).toString(), QStringLiteral("finished"));
        QVERIFY(!json.value(QStringLiteral("timezone")).toString().isEmpty());
        QCOMPARE(rec.value(QStringLiteral("command")).toArray().first().toString(),
                 QStringLiteral("sh"));
        const QJsonObject overhead = rec.value(QStringLiteral("overhead")).toObject();
        QVERIFY(overhead.value(QStringLiteral("samples")).toInt() >= 4);
        QVERIFY(overhead.value(QStringLiteral("peak_rss_mib")).toDouble() > 0);
        QVERIFY(r.err.contains("the recorder used"));

        // The folder imports as one run of that name, its rows under the run.
        const QString project = dir(QStringLiteral("busy.grademl"));
        const auto imported =
            gmltest::runCli({QStringLiteral("import"), out, QStringLiteral("--project"), project});
        QVERIFY2(imported.code == 0, imported.err.constData());
        auto p = Project::open(project, Project::Mode::ReadOnly, nullptr);
        QVERIFY(p);
        QCOMPARE(gmltest::text(*p, QStringLiteral("SELECT group_concat(name) FROM run")),
                 QStringLiteral("busy loop"));
        QVERIFY(gmltest::scalar(
                    *p, "SELECT count(*) FROM track WHERE name LIKE 'host · % (recorded)'") == 1);
        QVERIFY(gmltest::scalar(*p, "SELECT count(*) FROM track WHERE name LIKE 'sh (pid %)'") ==
                1);
        QVERIFY(gmltest::scalar(*p, "SELECT count(*) FROM counter") > 20);
    }

    void exitStatusAndSignalsPassThrough()
    {
        auto recordSh = [&](const QString &name, const QString &script) {
            return gmltest::runCli({QStringLiteral("record"), QStringLiteral("--out"), dir(name),
                                    QStringLiteral("--"), QStringLiteral("sh"),
                                    QStringLiteral("-c"), script},
                                   plainPath());
        };
        QCOMPARE(recordSh(QStringLiteral("exit7"), QStringLiteral("exit 7")).code, 7);
        QCOMPARE(readJson(dir(QStringLiteral("exit7/grademl.json")))
                     .value(QStringLiteral("recorder"))
                     .toObject()
                     .value(QStringLiteral("exit_status"))
                     .toInt(),
                 7);
        // A command that crashes: 128 + SIGSEGV, and the folder still opens.
        const auto crashed =
            recordSh(QStringLiteral("crash"), QStringLiteral("sleep 0.3; kill -SEGV $$"));
        QCOMPARE(crashed.code, 128 + SIGSEGV);
        const QJsonObject rec = readJson(dir(QStringLiteral("crash/grademl.json")))
                                    .value(QStringLiteral("recorder"))
                                    .toObject();
        QCOMPARE(rec.value(QStringLiteral("signal")).toInt(), int(SIGSEGV));
        QVERIFY(readSamples(dir(QStringLiteral("crash/grademl-samples.csv"))).endsWithNewline);
        const auto imported =
            gmltest::runCli({QStringLiteral("import"), dir(QStringLiteral("crash")),
                             QStringLiteral("--project"), dir(QStringLiteral("crash.grademl"))});
        QVERIFY2(imported.code == 0, imported.err.constData());
        // A program that does not exist: said so, status 127 as a shell gives.
        const auto missing = gmltest::runCli({QStringLiteral("record"), QStringLiteral("--out"),
                                              dir(QStringLiteral("missing")), QStringLiteral("--"),
                                              QStringLiteral("no-such-program-xyz")},
                                             plainPath());
        QCOMPARE(missing.code, 127);
        QVERIFY2(missing.err.contains("cannot run 'no-such-program-xyz'"), missing.err.constData());
        // Usage errors.
        QCOMPARE(gmltest::runCli(
                     {QStringLiteral("record"), QStringLiteral("--out"), dir(QStringLiteral("u"))})
                     .code,
                 2);
        QCOMPARE(
            gmltest::runCli({QStringLiteral("record"), QStringLiteral("--out"),
                             dir(QStringLiteral("u")), QStringLiteral("--interval"),
                             QStringLiteral("fast"), QStringLiteral("--"), QStringLiteral("true")})
                .code,
            2);
    }

    void sigintStopsTheCommandAndFlushes()
    {
        const QString out = dir(QStringLiteral("interrupted"));
        QProcess p;
        p.setProcessEnvironment(plainPath());
        p.start(QStringLiteral(GRADEML_CLI),
                {QStringLiteral("record"), QStringLiteral("--out"), out,
                 QStringLiteral("--interval"), QStringLiteral("20ms"), QStringLiteral("--"),
                 QStringLiteral("sleep"), QStringLiteral("60")});
        QVERIFY(p.waitForStarted());
        // Wait for a few samples of the sleeping command.
        QTRY_VERIFY_WITH_TIMEOUT(readSamples(out + QStringLiteral("/grademl-samples.csv"))
                                         .of(QStringLiteral("command"), QStringLiteral("processes"))
                                         .size() >= 3,
                                 20000);
        QCOMPARE(::kill(pid_t(p.processId()), SIGINT), 0);
        QVERIFY(p.waitForFinished(20000)); // not the 60 s of the command
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 128 + SIGINT);
        const QJsonObject rec = readJson(out + QStringLiteral("/grademl.json"))
                                    .value(QStringLiteral("recorder"))
                                    .toObject();
        QCOMPARE(rec.value(QStringLiteral("status")).toString(), QStringLiteral("interrupted"));
        QCOMPARE(rec.value(QStringLiteral("signal")).toInt(), int(SIGINT));
        QVERIFY(!rec.value(QStringLiteral("end")).toString().isEmpty());
        const Samples s = readSamples(out + QStringLiteral("/grademl-samples.csv"));
        QVERIFY(s.endsWithNewline);
        // The host is sampled once more after the command ended.
        const auto &memory = s.of(QStringLiteral("host"), QStringLiteral("memory used"));
        QVERIFY(!memory.empty());
        QVERIFY(memory.back().first >=
                rec.value(QStringLiteral("end_ns")).toString().toLongLong() - 1'000'000'000);
    }

    void gpuToolsMissingFailingOrRecorded()
    {
        // None on PATH: reported and skipped.
        const auto none = gmltest::runCli({QStringLiteral("record"), QStringLiteral("--out"),
                                           dir(QStringLiteral("nogpu")), QStringLiteral("--"),
                                           QStringLiteral("true")},
                                          plainPath());
        QCOMPARE(none.code, 0);
        QVERIFY2(none.err.contains("nvidia-smi not found on PATH: its samples are skipped"),
                 none.err.constData());
        const QJsonObject tools = readJson(dir(QStringLiteral("nogpu/grademl.json")))
                                      .value(QStringLiteral("recorder"))
                                      .toObject()
                                      .value(QStringLiteral("tools"))
                                      .toObject();
        QCOMPARE(tools.value(QStringLiteral("nvidia-smi")).toString(),
                 QStringLiteral("not found: skipped"));
        QVERIFY(!QFileInfo::exists(dir(QStringLiteral("nogpu/nvidia-smi.csv"))));

        // One that fails at once (no driver): its complaint kept aside, not read as samples.
        const QString failing =
            gmltest::writeFile(m_tmp, QStringLiteral("bin/failing-smi"),
                               "#!/bin/sh\necho \"NVIDIA-SMI has failed because it couldn't "
                               "communicate with the NVIDIA driver.\"\nexit 9\n");
        QFile::setPermissions(failing, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        const auto failed =
            gmltest::runCli({QStringLiteral("record"), QStringLiteral("--out"),
                             dir(QStringLiteral("failgpu")), QStringLiteral("--nvidia-smi"),
                             failing, QStringLiteral("--dcgmi"), QStringLiteral("none"),
                             QStringLiteral("--"), QStringLiteral("sleep"), QStringLiteral("0.3")},
                            plainPath());
        QCOMPARE(failed.code, 0);
        QVERIFY2(failed.err.contains("couldn't communicate with the NVIDIA driver"),
                 failed.err.constData());
        QVERIFY(!QFileInfo::exists(dir(QStringLiteral("failgpu/nvidia-smi.csv"))));
        QVERIFY(QFileInfo::exists(dir(QStringLiteral("failgpu/nvidia-smi.csv.error.txt"))));
        const auto importedFailed =
            gmltest::runCli({QStringLiteral("import"), dir(QStringLiteral("failgpu")),
                             QStringLiteral("--project"), dir(QStringLiteral("failgpu.grademl"))});
        QVERIFY2(importedFailed.code == 0, importedFailed.err.constData());

        // One that writes nvidia-smi's CSV (a stand-in for the real tool): one run, the GPU's
        // counters over the same span as the host's samples.
        const QString fake =
            gmltest::writeFile(m_tmp, QStringLiteral("bin/fake-smi"),
                               "#!/bin/sh\n"
                               "echo 'timestamp, index, name, utilization.gpu [%], memory.used "
                               "[MiB], power.draw [W]'\n"
                               "while :; do echo \"$(date +'%Y/%m/%d %H:%M:%S.%3N'), 0, Fake GPU, "
                               "50 %, 1000 MiB, 100.00 W\"; sleep 0.05; done\n");
        QFile::setPermissions(fake, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        const QString out = dir(QStringLiteral("gpu"));
        const auto recorded = gmltest::runCli(
            {QStringLiteral("record"), QStringLiteral("--out"), out, QStringLiteral("--nvidia-smi"),
             fake, QStringLiteral("--dcgmi"), QStringLiteral("none"), QStringLiteral("--"),
             QStringLiteral("sleep"), QStringLiteral("0.6")},
            plainPath());
        QVERIFY2(recorded.code == 0, recorded.err.constData());
        QVERIFY(QFileInfo::exists(out + QStringLiteral("/nvidia-smi.csv")));
        const QString project = dir(QStringLiteral("gpu.grademl"));
        const auto imported =
            gmltest::runCli({QStringLiteral("import"), out, QStringLiteral("--project"), project});
        QVERIFY2(imported.code == 0, imported.err.constData());
        auto p = Project::open(project, Project::Mode::ReadOnly, nullptr);
        QVERIFY(p);
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM run"), qint64(1));
        const auto span = [&](const char *like) {
            const QString sql =
                QStringLiteral(
                    "SELECT min(t.start_ns + s.clock_offset_ns + s.align_ns), max(t.end_ns + "
                    "s.clock_offset_ns + s.align_ns) FROM track t JOIN source s ON s.id = "
                    "t.source_id "
                    "WHERE s.path LIKE '%%1'")
                    .arg(QLatin1String(like));
            auto st = p->db().prepare(sql.toStdString());
            return st.step() ? std::pair(st.int64(0), st.int64(1))
                             : std::pair<qint64, qint64>(0, 0);
        };
        const auto gpu = span("nvidia-smi.csv"), host = span("grademl-samples.csv");
        QVERIFY(gpu.first > 0 && host.first > 0);
        // The two logs overlap on the project clock (the CSV's local times read in the zone
        // grademl.json names), within a second.
        QVERIFY2(std::abs(gpu.first - host.first) < 1'000'000'000 && gpu.second > host.first &&
                     host.second > gpu.first,
                 qPrintable(QStringLiteral("gpu %1..%2, host %3..%4")
                                .arg(gpu.first)
                                .arg(gpu.second)
                                .arg(host.first)
                                .arg(host.second)));
    }

    void samplesImporterBadInput()
    {
        auto import = [&](const QString &name, const QByteArray &text) {
            const QString folder = dir(QStringLiteral("bad-") + name);
            gmltest::writeFile(m_tmp, QStringLiteral("bad-%1/grademl-samples.csv").arg(name), text);
            return gmltest::runCli({QStringLiteral("import"), folder, QStringLiteral("--project"),
                                    dir(QStringLiteral("bad-%1.grademl").arg(name))});
        };
        const QByteArray good =
            "grademl-samples 1\nhost,h\nseries,0,host,memory used,MiB\n1700000000000000000,0,10\n";
        QCOMPARE(import(QStringLiteral("good"), good).code, 0);
        // Cut short mid-line (the recorder killed while writing): the rest is kept, with a warning.
        const auto cut = import(QStringLiteral("cut"), good + "1700000000100000000,0,1");
        QCOMPARE(cut.code, 0);
        const auto version = import(QStringLiteral("version"), "grademl-samples 2\n");
        QCOMPARE(version.code, 1);
        QVERIFY2(version.err.contains("byte 0") && version.err.contains("version 1"),
                 version.err.constData());
        const auto row = import(QStringLiteral("row"), good + "1700000000100000000,0,ten\n");
        QCOMPARE(row.code, 1);
        QVERIFY2(
            row.err.contains(QByteArray(QByteArray("byte ") + QByteArray::number(good.size()))) &&
                row.err.contains("line 5") && row.err.contains("TIME_NS,SERIES,VALUE"),
            row.err.constData());
        const auto undeclared =
            import(QStringLiteral("undeclared"), good + "1700000000100000000,3,1\n");
        QCOMPARE(undeclared.code, 1);
        QVERIFY2(undeclared.err.contains("series 3 is used before"), undeclared.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestRecord)
#include "tst_record.moc"
