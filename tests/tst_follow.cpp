// SPDX-License-Identifier: GPL-3.0-or-later
// Following a folder while a job writes it (issue 38): growing logs read in parts, cut mid-line,
// truncated and rotated, equal to a one-shot import of what the folder ends up holding; a trace
// imported once it stops changing; and `grademl record` followed by `grademl import --follow`
// from another process, read mid-run by `grademl info`.
#include "folderfollower.h"
#include "folderscanner.h"
#include "importjob.h"
#include "project.h"
#include "testutil.h"
#include "timelinedata.h"

#include <QDateTime>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QThread>

using namespace gml;

namespace {

// Counts and sums of every counter track, by the track's path (parent › name), as text to compare.
QString countersOf(Project &p)
{
    auto st = p.db().prepare(
        "SELECT coalesce((SELECT name FROM track WHERE id = t.parent_id), '') || ' > ' || t.name, "
        "count(c.ts), total(c.value), min(c.ts), max(c.ts) FROM track t LEFT JOIN counter c ON "
        "c.track_id = t.id "
        "WHERE t.kind = 6 OR c.ts IS NOT NULL GROUP BY t.id ORDER BY 1, 2, 3");
    QStringList rows;
    while (st.step())
        rows << QStringLiteral("%1: %2 samples, sum %3, %4..%5")
                    .arg(st.text(0))
                    .arg(st.int64(1))
                    .arg(st.real(2), 0, 'g', 15)
                    .arg(st.int64(3))
                    .arg(st.int64(4));
    return rows.join(QLatin1Char('\n'));
}

std::unique_ptr<Project> openProject(const QString &path)
{
    QString error;
    auto p = Project::open(path, Project::Mode::ReadWrite, &error);
    if (!p)
        qFatal("cannot open %s: %s", qPrintable(path), qPrintable(error));
    return p;
}

// The folder imported in one go into a new project: what following it must end up equal to.
// `zone`: the time zone of local-time logs (invalid: not set).
QString oneShot(const QString &folder, const QString &projectPath, const QTimeZone &zone = {})
{
    auto p = openProject(projectPath);
    QStringList errors;
    ImportJob job(*p);
    job.setThreads(1);
    job.setTimeZone(zone);
    const auto reports = job.run(scanInputs({folder}, {}, &errors));
    for (const auto &r : reports)
        if (r.status == SourceReport::Status::Failed)
            qFatal("one-shot import failed: %s", qPrintable(r.message));
    return countersOf(*p);
}

// A samples file as the recorder writes it: three series, `samples` rows of each, one series
// declared late (a process that started mid-run).
QByteArray samplesFile(int samples, qint64 t0 = 1'700'000'000'000'000'000)
{
    QByteArray out =
        "grademl-samples 1\nhost,testhost\nseries,0,host,cpu busy,%\nseries,1,cpu0,busy,%\n";
    for (int i = 0; i < samples; ++i) {
        if (i == samples / 2)
            out += "series,2,process 42 python,cpu,%\n";
        const qint64 t = t0 + qint64(i) * 100'000'000;
        out += QByteArray::number(t) + ",0," + QByteArray::number(i % 97 + 0.25) + '\n';
        out += QByteArray::number(t) + ",1," + QByteArray::number((i * 7) % 100) + '\n';
        if (i >= samples / 2)
            out += QByteArray::number(t) + ",2," + QByteArray::number(i * 0.5) + '\n';
    }
    return out;
}

void writeAll(const QString &path, const QByteArray &bytes,
              QIODevice::OpenMode mode = QIODevice::WriteOnly)
{
    QFile f(path);
    if (!f.open(mode))
        qFatal("cannot write %s", qPrintable(path));
    f.write(bytes);
}

// Whole lines in `bytes` (what may be imported of a file cut there).
qint64 wholeValueLines(const QByteArray &bytes)
{
    qint64 n = 0;
    const QByteArray whole = bytes.left(bytes.lastIndexOf('\n') + 1);
    for (const QByteArray &line : whole.split('\n'))
        if (line.count(',') == 2 && !line.startsWith("series,"))
            ++n;
    return n;
}

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

class TestFollow : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;

    QString path(const QString &name) const { return m_tmp.filePath(name); }

private Q_SLOTS:
    void samplesInPartsEqualAOneShotImport()
    {
        // The file grows by pieces cut anywhere, mid-line included; each poll imports the whole
        // lines so far, never one twice; the end equals one import of the whole file.
        const QString dir = path(QStringLiteral("parts"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/grademl-samples.csv");
        const QByteArray all = samplesFile(3000);
        auto project = openProject(path(QStringLiteral("parts.grademl")));
        FolderFollower follower(*project, {{dir}, {}, {}, 1, 2000});
        QRandomGenerator rng(38);
        qsizetype written = 0;
        int polls = 0, appended = 0;
        writeAll(log, {});
        while (written < all.size()) {
            const qsizetype piece =
                std::min<qsizetype>(all.size() - written, 1 + rng.bounded(9000));
            writeAll(log, all.mid(written, piece), QIODevice::Append);
            written += piece;
            const auto poll = follower.poll(nowMs());
            ++polls;
            for (const auto &r : poll.reports) {
                QVERIFY2(r.status == SourceReport::Status::Imported, qPrintable(r.message));
                appended += r.appended ? 1 : 0;
            }
            // Exactly the whole lines written so far are in.
            QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM counter"),
                     wholeValueLines(all.left(written)));
        }
        QVERIFY(polls > 20);
        QVERIFY(appended > 10); // later parts continued the source
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM source"), 1);
        QCOMPARE(gmltest::text(*project, QStringLiteral("SELECT warnings FROM source")),
                 QStringLiteral("[]"));
        // No track was made twice.
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM track"),
                 gmltest::scalar(
                     *project, "SELECT count(DISTINCT coalesce(parent_id, 0) || name) FROM track"));
        QCOMPARE(countersOf(*project), oneShot(dir, path(QStringLiteral("parts-oneshot.grademl"))));
        // The source's state says where reading stopped: the end of the file.
        QCOMPARE(
            gmltest::scalar(*project, "SELECT json_extract(metadata, '$.tail.offset') FROM source"),
            all.size());
    }

    void reloadReadsOnlyTheNewSamples()
    {
        // The studio's reload after lines were appended: counters equal to a full load, the
        // tracks that did not grow shared with the previous load, those that grew sharing
        // their full segments (150,000 samples: two segments and a part).
        const QString dir = path(QStringLiteral("reload"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/grademl-samples.csv");
        const QString projectPath = path(QStringLiteral("reload.grademl"));
        auto project = openProject(projectPath);
        FolderFollower follower(*project, {{dir}, {}, {}, 1, 2000});
        const QByteArray all = samplesFile(150'000);
        // Up to the sample where series 2 appears, then the rest.
        const qsizetype cut = all.indexOf("series,2,");
        writeAll(log, all.left(cut));
        QVERIFY(follower.poll(nowMs()).imported);
        QString error;
        const auto before = loadTimelineData(projectPath, &error);
        QVERIFY2(before, qPrintable(error));
        writeAll(log, all.mid(cut), QIODevice::Append);
        QVERIFY(follower.poll(nowMs()).imported);
        const auto reloaded = reloadTimelineData(before, &error);
        const auto full = loadTimelineData(projectPath, &error);
        QVERIFY(reloaded && full);
        QCOMPARE(reloaded->counters.size(), full->counters.size());
        QCOMPARE(reloaded->counters.size(), before->counters.size() + 1); // series 2 is new
        int shared = 0;
        for (auto it = full->counters.begin(); it != full->counters.end(); ++it) {
            const auto r = reloaded->counters.value(it.key());
            QVERIFY(r);
            QCOMPARE(r->size(), it.value()->size());
            for (size_t i = 0; i < r->size(); ++i) {
                QCOMPARE(r->ts(i), it.value()->ts(i));
                QCOMPARE(r->value(i), it.value()->value(i));
            }
            QCOMPARE(r->minValue(), it.value()->minValue());
            QCOMPARE(r->maxValue(), it.value()->maxValue());
            // Searches across the segments' edges agree with one over all the times.
            std::vector<TimeNs> flat(r->size());
            for (size_t i = 0; i < r->size(); ++i)
                flat[i] = r->ts(i);
            for (size_t i = 0; i < r->size(); i += r->size() / 97 + 1)
                for (const TimeNs t : {flat[i] - 1, flat[i], flat[i] + 1}) {
                    QCOMPARE(r->lowerBound(t),
                             size_t(std::lower_bound(flat.begin(), flat.end(), t) - flat.begin()));
                    QCOMPARE(r->sampleAt(t),
                             qint64(std::upper_bound(flat.begin(), flat.end(), t) - flat.begin()) -
                                 1);
                }
            QCOMPARE(r->lowerBound(flat.back() + 1), r->size());
            QCOMPARE(r->sampleAt(flat.front() - 1), qint64(-1));
            if (const auto old = before->counters.value(it.key())) {
                shared += old == r ? 1 : 0;
                QCOMPARE(old->size(), size_t(75'000));
                QCOMPARE(r->sharedSegments(*old), size_t(1)); // its full segment, not copied
            }
        }
        QCOMPARE(shared, 0); // both older series grew
        // Nothing new: every track is shared.
        const auto again = reloadTimelineData(reloaded, &error);
        for (auto it = again->counters.begin(); it != again->counters.end(); ++it)
            QCOMPARE(it.value(), reloaded->counters.value(it.key()));
        QCOMPARE(again->end, full->end);
    }

    void truncatedOrReplacedLogIsReadAgain()
    {
        const QString dir = path(QStringLiteral("trunc"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/grademl-samples.csv");
        auto project = openProject(path(QStringLiteral("trunc.grademl")));
        FolderFollower follower(*project, {{dir}, {}, {}, 1, 2000});
        writeAll(log, samplesFile(400));
        QVERIFY(follower.poll(nowMs()).imported);
        auto samplesOf = [&](const QString &like) {
            auto st = project->db().prepare(
                "SELECT count(*) FROM counter c JOIN track t ON t.id = c.track_id "
                "JOIN source s ON s.id = t.source_id WHERE s.path LIKE ?");
            st.bind(1, like);
            return st.step() ? st.int64(0) : -1;
        };
        const qint64 first = wholeValueLines(samplesFile(400));
        QCOMPARE(samplesOf(log), first);
        // Truncated to nothing at one poll (issue 56: its samples were dropped without a word):
        // they are kept under another name, and that is said.
        writeAll(log, {});
        auto poll = follower.poll(nowMs());
        QVERIFY2(poll.warnings.size() == 1 && poll.warnings[0].contains(QLatin1String("empty now")),
                 qPrintable(poll.warnings.join(QLatin1Char('\n'))));
        QCOMPARE(samplesOf(log), first);
        QVERIFY(follower.poll(nowMs()).warnings.isEmpty()); // told once
        // Rewritten from another start: read from its start as a new source, the samples read
        // before kept aside, and said.
        writeAll(log, samplesFile(50, 1'700'000'100'000'000'000));
        poll = follower.poll(nowMs());
        QVERIFY2(poll.warnings.size() == 1 &&
                     poll.warnings[0].contains(QLatin1String("truncated")) &&
                     poll.warnings[0].contains(QLatin1String("kept as source")),
                 qPrintable(poll.warnings.join(QLatin1Char('\n'))));
        QCOMPARE(samplesOf(log + QStringLiteral(" (read until % before it was truncated)")), first);
        QVERIFY(poll.imported);
        QVERIFY(!poll.reports.value(0).appended);
        QCOMPARE(samplesOf(log), wholeValueLines(samplesFile(50)));
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM counter"),
                 first + wholeValueLines(samplesFile(50)));
        // Replaced by a file as long, with other first bytes: the same.
        const QByteArray longer = samplesFile(400, 1'700'000'200'000'000'000);
        writeAll(log, longer);
        // As long as before: only its time tells it changed (within one millisecond it would not).
        QVERIFY(gmltest::setMtime(log, QDateTime::currentDateTime().addSecs(5)));
        poll = follower.poll(nowMs());
        QVERIFY(poll.imported);
        QVERIFY2(poll.warnings.size() == 1 && poll.warnings[0].contains(QLatin1String("replaced")),
                 qPrintable(poll.warnings.join(QLatin1Char('\n'))));
        QVERIFY(
            gmltest::text(*project,
                          QStringLiteral("SELECT warnings FROM source WHERE path = '%1'").arg(log))
                .contains(QLatin1String("replaced")));
        QCOMPARE(samplesOf(log), wholeValueLines(longer));
        QCOMPARE(samplesOf(log + QStringLiteral(" (read until % before it was replaced)")),
                 wholeValueLines(samplesFile(50)));
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM source"), 3);
    }

    // The follower's idle clock counts growth, not imports (issue 56): a line written a byte at
    // a time imports nothing for seconds, and the follower stopped "after 5 s without a change"
    // and never imported what came after. A line still cut when it stops is said.
    void lineWrittenSlowlyKeepsTheFollowerAndACutOneIsSaid()
    {
        const QString dir = path(QStringLiteral("slow"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/grademl-samples.csv");
        const QByteArray all = samplesFile(40);
        const qsizetype lastLine =
            all.lastIndexOf('\n', all.size() - 2) + 1; // the last line's start
        writeAll(log, all.left(lastLine));
        QProcess follow;
        follow.start(QStringLiteral(GRADEML_CLI),
                     {QStringLiteral("import"), dir, QStringLiteral("--project"),
                      path(QStringLiteral("slow.grademl")), QStringLiteral("--follow"),
                      QStringLiteral("--idle-exit"), QStringLiteral("2"), QStringLiteral("--poll"),
                      QStringLiteral("0.1")});
        QVERIFY(follow.waitForStarted());
        // The last line, a byte every 250 ms: about 6 s, three times the idle exit.
        const QByteArray line = all.mid(lastLine);
        for (qsizetype i = 0; i + 1 < line.size(); ++i) {
            QThread::msleep(250);
            writeAll(log, line.mid(i, 1), QIODevice::Append);
            QVERIFY2(follow.state() == QProcess::Running,
                     "the follower stopped while the line was being written");
        }
        writeAll(log, "\n", QIODevice::Append);
        // Then a line that never ends.
        writeAll(log, all.mid(lastLine, line.size() / 2), QIODevice::Append);
        QVERIFY(follow.waitForFinished(30'000));
        const QString said =
            QString::fromUtf8(follow.readAllStandardError() + follow.readAllStandardOutput());
        QCOMPARE(follow.exitCode(), 0);
        QVERIFY2(said.contains(QLatin1String("is cut")) &&
                     said.contains(QLatin1String("were not imported")),
                 qPrintable(said));
        auto p = openProject(path(QStringLiteral("slow.grademl")));
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM counter"), wholeValueLines(all));
    }

    void rotatedLogLosesNothing()
    {
        // logrotate's way: the log is renamed to .1 (with lines the follower has not read yet)
        // and a new one started. Both end up imported, each line once.
        const QString dir = path(QStringLiteral("rotate"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/grademl-samples.csv");
        auto project = openProject(path(QStringLiteral("rotate.grademl")));
        FolderFollower follower(*project, {{dir}, {}, {}, 1, 2000});
        const QByteArray first = samplesFile(600);
        writeAll(log, first.left(first.size() / 3));
        QVERIFY(follower.poll(nowMs()).imported);
        writeAll(log, first.mid(first.size() / 3), QIODevice::Append);
        QVERIFY(QFile::rename(log, log + QStringLiteral(".1")));
        writeAll(log, samplesFile(200, 1'700'000'000'000'000'000 + 600 * qint64(100'000'000)));
        QVERIFY(follower.poll(nowMs()).imported);
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM counter"),
                 wholeValueLines(first) + wholeValueLines(samplesFile(200)));
        QCOMPARE(countersOf(*project),
                 oneShot(dir, path(QStringLiteral("rotate-oneshot.grademl"))));
    }

    void nvidiaSmiLogInParts()
    {
        // nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,power.draw --format=csv -l 1
        const QString dir = path(QStringLiteral("smi"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/nvidia-smi.csv");
        QByteArray all = "timestamp, index, name, utilization.gpu [%], power.draw [W]\n";
        const QDateTime t0(QDate(2026, 11, 27), QTime(10, 0), Qt::UTC);
        for (int s = 0; s < 300; ++s)
            for (int gpu = 0; gpu < 2; ++gpu)
                all += t0.addMSecs(qint64(s) * 1000 + gpu * 3)
                           .toString(QStringLiteral("yyyy/MM/dd HH:mm:ss.zzz"))
                           .toUtf8() +
                       ", " + QByteArray::number(gpu) + ", NVIDIA H100 80GB HBM3, " +
                       QByteArray::number((s * 13 + gpu) % 101) + " %, " +
                       QByteArray::number(100 + s % 50) + ".25 W\n";
        auto project = openProject(path(QStringLiteral("smi.grademl")));
        FolderFollower follower(*project, {{dir}, {}, QTimeZone::utc(), 1, 2000});
        writeAll(log, {});
        int appended = 0;
        for (qsizetype at = 0; at < all.size(); at += 1777) {
            writeAll(log, all.mid(at, 1777), QIODevice::Append);
            for (const auto &r : follower.poll(nowMs()).reports) {
                QVERIFY2(r.status == SourceReport::Status::Imported, qPrintable(r.message));
                appended += r.appended ? 1 : 0;
            }
        }
        QVERIFY(appended > 10);
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM counter"), 300 * 2 * 2);
        QCOMPARE(gmltest::text(*project, QStringLiteral("SELECT warnings FROM source")),
                 QStringLiteral("[]"));
        QCOMPARE(countersOf(*project),
                 oneShot(dir, path(QStringLiteral("smi-oneshot.grademl")), QTimeZone::utc()));
    }

    void nvidiaSmiDmonLogInParts()
    {
        // nvidia-smi dmon -o DT -s pu: the header repeats every 20 rows, as dmon prints it.
        const QString dir = path(QStringLiteral("dmon"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/dmon.log");
        QByteArray all;
        const QDateTime t0(QDate(2026, 11, 27), QTime(10, 0), Qt::UTC);
        for (int s = 0; s < 200; ++s) {
            if (s % 10 == 0)
                all += "#Date       Time        gpu   pwr gtemp    sm   mem\n"
                       "#YYYYMMDD   HH:MM:SS    Idx     W     C     %     %\n";
            for (int gpu = 0; gpu < 2; ++gpu)
                all +=
                    " " + t0.addSecs(s).toString(QStringLiteral("yyyyMMdd   HH:mm:ss")).toUtf8() +
                    "      " + QByteArray::number(gpu) + "    " + QByteArray::number(100 + s % 40) +
                    "    " + QByteArray::number(50 + gpu) + "    " + QByteArray::number(s % 100) +
                    "     " + (s % 7 ? QByteArray::number(s % 50) : QByteArray("-")) + "\n";
        }
        auto project = openProject(path(QStringLiteral("dmon.grademl")));
        FolderFollower follower(*project, {{dir}, {}, QTimeZone::utc(), 1, 2000});
        writeAll(log, {});
        int appended = 0;
        for (qsizetype at = 0; at < all.size(); at += 613) {
            writeAll(log, all.mid(at, 613), QIODevice::Append);
            for (const auto &r : follower.poll(nowMs()).reports) {
                QVERIFY2(r.status == SourceReport::Status::Imported, qPrintable(r.message));
                QVERIFY(r.inParts);
                appended += r.appended ? 1 : 0;
            }
        }
        QVERIFY(appended > 10);
        QCOMPARE(gmltest::text(*project, QStringLiteral("SELECT warnings FROM source")),
                 QStringLiteral("[]"));
        const auto oneShotProject = path(QStringLiteral("dmon-oneshot.grademl"));
        const QString expected = oneShot(dir, oneShotProject, QTimeZone::utc());
        auto p = openProject(oneShotProject);
        QVERIFY(gmltest::scalar(*p, "SELECT count(*) FROM counter") > 1000);
        QCOMPARE(countersOf(*project), expected);
    }

    void logsWithoutTimesInParts()
    {
        // dcgmi dmon, nvidia-smi dmon without -o DT, an nvidia-smi CSV without timestamps (GPUs
        // by uuid) and top -b place their samples without dates of their own: here from the
        // sibling log with dates. Read in parts, each sample keeps the number and time a
        // one-shot read gives it, across a sample cut by a part, a new day (top), and a top
        // block read while it was being written (it waits for its end).
        const QString dir = path(QStringLiteral("undated"));
        QDir().mkpath(dir);
        const QDateTime t0(QDate(2026, 11, 26), QTime(23, 59, 30), Qt::UTC);
        writeAll(dir + QStringLiteral("/smi-dated.csv"),
                 "timestamp, index, utilization.gpu [%]\n" +
                     t0.toString(QStringLiteral("yyyy/MM/dd HH:mm:ss.zzz")).toUtf8() +
                     ", 0, 3 %\n");
        QByteArray dcgmi, dmon, csv, top;
        for (int s = 0; s < 120; ++s) {
            if (s % 20 == 0) {
                dcgmi += "#Entity   POWER             GPUTL             SMACT        \n"
                         "ID        W                                                \n";
                dmon += "# gpu   pwr gtemp    sm   mem\n# Idx     W     C     %     %\n";
            }
            for (int gpu = 0; gpu < 3; ++gpu) {
                const QByteArray g = QByteArray::number(gpu);
                dcgmi += "GPU " + g + "     " +
                         (gpu == 2 && s % 5 == 0 ? QByteArray("N/A")
                                                 : QByteArray::number(50 + s % 9 + gpu) + ".5") +
                         "            " + QByteArray::number((s * 7 + gpu) % 100) +
                         "                 0." + QByteArray::number(s % 10) + "00        \n";
                dmon += "    " + g + "   " + QByteArray::number(100 + s % 40) + "    " +
                        QByteArray::number(50 + gpu) + "    " + QByteArray::number(s % 100) +
                        "     " + QByteArray::number(s % 50) + "\n";
                csv += "GPU-" + QByteArray::number(7 - gpu) + "f3a, " +
                       QByteArray::number((s * 3 + gpu) % 101) + " %\n";
            }
        }
        csv = "uuid, utilization.gpu [%]\n" + csv;
        for (int b = 0; b < 40; ++b) {
            const QTime at = t0.time().addSecs(b * 3);
            top +=
                (b ? "\n" : "") + QByteArray("top - ") +
                at.toString(QStringLiteral("HH:mm:ss")).toUtf8() +
                " up  5:06,  1 user,  load average: 1." + QByteArray::number(b % 10) +
                "0, 1.23, 0.98\n"
                "Tasks: 305 total,   " +
                QByteArray::number(1 + b % 3) +
                " running, 303 sleeping,   0 stopped,   0 zombie\n"
                "%Cpu(s):  0.8 us,  1.3 sy,  0.0 ni, 9" +
                QByteArray::number(b % 10) +
                ".0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st\n"
                "MiB Mem : 515637.3 total, 508015.9 free,   " +
                QByteArray::number(3000 + b) +
                ".5 used,   4260.1 buff/cache\n"
                "MiB Swap:      0.0 total,      0.0 free,      0.0 used. 508425.0 avail Mem \n\n"
                "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
                "   2225 root      20   0  670432 120924  18596 S  99.0   0.0   8:37.44 "
                "nv-hostengine\n";
            if (b >= 5) // starts busy mid-log
                top += "  91607 ehyo      20   0 2381332 " + QByteArray::number(105800 + b) +
                       "  71704 R  " + QByteArray::number(50 + b) + ".8   0.0   0:00.16 python\n";
            if (b == 7) // one block only
                top += "  91700 ehyo      20   0   20696  14804   2492 S  50.0   0.0   0:00.09 "
                       "nvidia-smi\n";
            if (b % 4 == 1) // busy now and then, not two blocks in a row
                top +=
                    "  91800 ehyo      20   0   20696  14804   2492 S  40.0   0.0   0:00.09 ls\n";
            top += "  91604 ehyo      20   0   21792   5188   3280 R   " +
                   QByteArray::number(b % 8) + ".2   0.0   0:00.02 top\n";
        }
        struct Log
        {
            QString name;
            QByteArray all;
            qsizetype piece;
            qsizetype at = 0;
            int appended = 0;
        };
        std::vector<Log> logs{{QStringLiteral("dcgmi.log"), dcgmi, 701},
                              {QStringLiteral("dmon.log"), dmon, 389},
                              {QStringLiteral("smi-uuid.csv"), csv, 97},
                              {QStringLiteral("top.log"), top, 523}};
        auto project = openProject(path(QStringLiteral("undated.grademl")));
        FolderFollower follower(*project, {{dir}, {}, QTimeZone::utc(), 1, 2000});
        for (Log &l : logs)
            writeAll(dir + QLatin1Char('/') + l.name, {});
        bool more = true;
        bool held = false;
        while (more) {
            more = false;
            for (Log &l : logs) {
                writeAll(dir + QLatin1Char('/') + l.name, l.all.mid(l.at, l.piece),
                         QIODevice::Append);
                l.at += l.piece;
                more = more || l.at < l.all.size();
            }
            for (const auto &r : follower.poll(nowMs()).reports) {
                QVERIFY2(r.status == SourceReport::Status::Imported,
                         qPrintable(r.path + r.message));
                if (r.path.endsWith(QLatin1String("smi-dated.csv")))
                    continue;
                QVERIFY2(r.inParts, qPrintable(r.path));
                held = held || r.held;
                for (Log &l : logs)
                    if (r.path.endsWith(l.name))
                        l.appended += r.appended ? 1 : 0;
            }
        }
        for (const Log &l : logs)
            QVERIFY2(l.appended > 5, qPrintable(l.name));
        // top's last block waits for the file to go quiet, then comes in.
        QVERIFY(held);
        QVERIFY(follower.busy());
        QThread::msleep(1100);
        follower.poll(nowMs());
        QVERIFY(!follower.busy());
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM source WHERE warnings != '[]'"),
                 0);
        const QString expected =
            oneShot(dir, path(QStringLiteral("undated-oneshot.grademl")), QTimeZone::utc());
        QCOMPARE(countersOf(*project), expected);
        // What the tracks hold: 120 samples a GPU metric; top's python from the block before its
        // first busy one's pair (it starts busy: block 5), across midnight; nvidia-smi and ls
        // without a track.
        auto p = openProject(path(QStringLiteral("undated-oneshot.grademl")));
        QCOMPARE(gmltest::scalar(*p,
                                 "SELECT count(*) FROM counter c JOIN track t ON t.id = c.track_id "
                                 "WHERE t.name LIKE 'dcgmi · GPUTL%'"),
                 360);
        QCOMPARE(gmltest::scalar(*p,
                                 "SELECT count(*) FROM counter c JOIN track t ON t.id = c.track_id "
                                 "WHERE t.name LIKE 'top · python (pid 91607) \%CPU%'"),
                 35);
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM track WHERE name LIKE '%nvidia-smi "
                                     "(pid%' OR name LIKE '%ls (pid%'"),
                 0);
        const qint64 first = t0.toMSecsSinceEpoch() * 1'000'000;
        QCOMPARE(
            gmltest::scalar(*p, "SELECT min(c.ts) FROM counter c JOIN track t ON t.id = c.track_id "
                                "WHERE t.name LIKE 'top · python%'"),
            first + 5 * 3'000'000'000LL);
        QCOMPARE(
            gmltest::scalar(*p, "SELECT max(c.ts) FROM counter c JOIN track t ON t.id = c.track_id "
                                "WHERE t.name LIKE 'top · load%'"),
            first + 39 * 3'000'000'000LL);
        QCOMPARE(
            gmltest::scalar(*p, "SELECT max(c.ts) FROM counter c JOIN track t ON t.id = c.track_id "
                                "WHERE t.name LIKE 'dcgmi · POWER%'"),
            first + 119 * 1'000'000'000LL);
    }

    void traceIsImportedOnceItStopsChanging()
    {
        // A trace file (not a log read in parts) is left alone while it is being written.
        const QString dir = path(QStringLiteral("trace"));
        QDir().mkpath(dir);
        auto project = openProject(path(QStringLiteral("trace.grademl")));
        FolderFollower follower(*project, {{dir}, {}, {}, 1, 2000});
        const QString trace = dir + QStringLiteral("/worker0.pt.trace.json");
        writeAll(
            trace,
            R"({"traceEvents": [{"ph": "X", "name": "aten::mm", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
                                           {"ph": "X", "name": "gemm", "cat": "kernel", "pid": 0, "tid": 7, "ts": 12, "dur": 3}]})");
        const qint64 written = QFileInfo(trace).lastModified().toMSecsSinceEpoch();
        auto poll = follower.poll(written + 100);
        QCOMPARE(poll.waiting, 1);
        QVERIFY(!poll.imported);
        QVERIFY(follower.busy());
        poll = follower.poll(written + 2500);
        QVERIFY(poll.imported);
        QCOMPARE(poll.waiting, 0);
        QCOMPARE(gmltest::scalar(*project, "SELECT sum(slices) FROM source"), 2);
        // Nothing changed: nothing is read, nothing is reported.
        poll = follower.poll(written + 5000);
        QVERIFY(!poll.imported && poll.reports.isEmpty());
        QVERIFY(!follower.busy());
    }

    void logReadWholeAtMostEveryThirtySeconds()
    {
        // A GPU log that cannot be read in parts (no GPU id: GPUs are told apart by the period
        // of the rows' names, which a part may cut) never stops changing while the job runs: it is
        // read whole as it grows, at most every 30 s, not once it settles (it would not).
        const QString dir = path(QStringLiteral("whole"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/nvidia-smi.csv");
        writeAll(log, "name, utilization.gpu [%]\nGPU-A, 5 %\nGPU-B, 7 %\n");
        auto project = openProject(path(QStringLiteral("whole.grademl")));
        FolderFollower follower(*project, {{dir}, {}, {}, 1, 2000});
        const qint64 t = nowMs();
        auto poll = follower.poll(t);
        QVERIFY(poll.imported);
        QVERIFY(!poll.reports[0].inParts);
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM counter"), 2);
        writeAll(log, "GPU-A, 6 %\nGPU-B, 8 %\n", QIODevice::Append);
        poll = follower.poll(t + 1000);
        QVERIFY(!poll.imported);
        QCOMPARE(poll.waiting, 1);
        QVERIFY(follower.busy());
        writeAll(log, "GPU-A, 9 %\nGPU-B, 9 %\n", QIODevice::Append);
        poll = follower.poll(t + 31'000);
        QVERIFY(poll.imported);
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM counter"), 6);
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM source"), 1);
    }

    void badLineIsToldOnceAndKeepsWhatCameBefore()
    {
        const QString dir = path(QStringLiteral("bad"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/grademl-samples.csv");
        auto project = openProject(path(QStringLiteral("bad.grademl")));
        FolderFollower follower(*project, {{dir}, {}, {}, 1, 2000});
        const QByteArray good = samplesFile(100);
        writeAll(log, good);
        QVERIFY(follower.poll(nowMs()).imported);
        writeAll(log, "garbage line\n", QIODevice::Append);
        auto poll = follower.poll(nowMs());
        QCOMPARE(poll.reports.size(), 1);
        QCOMPARE(poll.reports[0].status, SourceReport::Status::Failed);
        // The file, the byte and the line it failed at.
        QVERIFY2(
            poll.reports[0].message.contains(
                QStringLiteral("byte %1: line %2:").arg(good.size()).arg(good.count('\n') + 1)),
            qPrintable(poll.reports[0].message));
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM counter"), wholeValueLines(good));
        // Told once: the next poll of an unchanged folder says nothing.
        QVERIFY(follower.poll(nowMs()).reports.isEmpty());
    }

    void recordedCommandFollowedFromAnotherProcess()
    {
        // The recorder samples a 10-second command into a folder while `grademl import --follow`
        // imports it; `grademl info` reads the project mid-run; at the end the followed project
        // equals a one-shot import of the folder.
        const QString dir = path(QStringLiteral("live"));
        const QString followed = path(QStringLiteral("live.grademl"));
        QProcess record, follow;
        record.start(
            QStringLiteral(GRADEML_CLI),
            {QStringLiteral("record"), QStringLiteral("--out"), dir, QStringLiteral("--interval"),
             QStringLiteral("100ms"), QStringLiteral("--nvidia-smi"), QStringLiteral("none"),
             QStringLiteral("--dcgmi"), QStringLiteral("none"), QStringLiteral("--"),
             QStringLiteral("sh"), QStringLiteral("-c"),
             QStringLiteral(
                 "end=$(($(date +%s) + 10)); while [ $(date +%s) -lt $end ]; do :; done")});
        QVERIFY(record.waitForStarted());
        // The recorder makes the folder.
        for (int i = 0; i < 50 && !QFileInfo(dir + QStringLiteral("/grademl-samples.csv")).exists();
             ++i)
            QThread::msleep(100);
        follow.start(QStringLiteral(GRADEML_CLI),
                     {QStringLiteral("import"), dir, QStringLiteral("--project"), followed,
                      QStringLiteral("--follow"), QStringLiteral("--idle-exit"),
                      QStringLiteral("3"), QStringLiteral("--poll"), QStringLiteral("0.5")});
        QVERIFY(follow.waitForStarted());
        QThread::msleep(4000);
        QCOMPARE(record.state(), QProcess::Running);
        const auto info = gmltest::runCli({QStringLiteral("info"), followed});
        QCOMPARE(info.code, 0);
        const QRegularExpression samples(QStringLiteral(R"((\d+) counter samples)"));
        const auto m = samples.match(info.all());
        QVERIFY2(m.hasMatch() && m.captured(1).toLongLong() > 0, info.all().toUtf8().constData());
        QVERIFY(record.waitForFinished(30'000));
        QCOMPARE(record.exitCode(), 0);
        QVERIFY2(follow.waitForFinished(30'000),
                 "the follower did not stop 3 s after the folder stopped changing");
        QCOMPARE(follow.exitCode(), 0);
        const QString followOut =
            QString::fromUtf8(follow.readAllStandardOutput() + follow.readAllStandardError());
        QVERIFY2(followOut.contains(QLatin1String("counter samples appended")),
                 qPrintable(followOut));
        auto p = openProject(followed);
        QVERIFY(gmltest::scalar(*p, "SELECT count(*) FROM counter") > m.captured(1).toLongLong());
        QCOMPARE(countersOf(*p), oneShot(dir, path(QStringLiteral("live-oneshot.grademl"))));
    }

    // The project's wal-index (-shm, memory-mapped by SQLite) cut to nothing under a running
    // follower: its next commit faulted with SIGBUS (exit 135, no word). Now an I/O error that
    // names the file, exit 1, and the project keeps what was committed (issue 56).
    void mappedFileThatCannotBeWrittenIsAnIoError()
    {
        const QString dir = path(QStringLiteral("sigbus"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/grademl-samples.csv");
        const QByteArray all = samplesFile(60);
        const qsizetype half = all.indexOf('\n', all.size() / 2) + 1;
        writeAll(log, all.left(half));
        const QString followed = path(QStringLiteral("sigbus.grademl"));
        QProcess follow;
        follow.start(QStringLiteral(GRADEML_CLI),
                     {QStringLiteral("import"), dir, QStringLiteral("--project"), followed,
                      QStringLiteral("--follow"), QStringLiteral("--idle-exit"),
                      QStringLiteral("20"), QStringLiteral("--poll"), QStringLiteral("0.1")});
        QVERIFY(follow.waitForStarted());
        QByteArray said;
        for (int i = 0; i < 100 && !said.contains("imported"); ++i) {
            follow.waitForReadyRead(100);
            said += follow.readAllStandardError() + follow.readAllStandardOutput();
        }
        QVERIFY2(said.contains("imported"), said.constData());
        QVERIFY(QFile::resize(followed + QStringLiteral("-shm"), 0));
        writeAll(log, all.mid(half), QIODevice::Append);
        QVERIFY(follow.waitForFinished(30'000));
        said += follow.readAllStandardError() + follow.readAllStandardOutput();
        QCOMPARE(follow.exitStatus(), QProcess::NormalExit);
        QCOMPARE(follow.exitCode(), 1);
        QVERIFY2(said.contains("I/O error") && said.contains("sigbus.grademl-shm"),
                 said.constData());
        auto p = openProject(followed);
        QVERIFY(gmltest::scalar(*p, "SELECT count(*) FROM counter") >=
                wholeValueLines(all.left(half)));
        QCOMPARE(gmltest::text(*p, QStringLiteral("PRAGMA quick_check")), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(TestFollow)
#include "tst_follow.moc"
