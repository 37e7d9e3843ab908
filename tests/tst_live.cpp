// SPDX-License-Identifier: GPL-3.0-or-later
// The studio's live view (issue 38), offscreen: a folder followed while a log grows in it; the
// timeline follows the end while the user stays there and keeps a window the user moved away;
// the Follow button brings it back; the Analysis view offers Refresh when the run gains slices;
// --record records a command and follows its folder, and closing the window stops both.
#include "analysiscontroller.h"
#include "analysispanel.h"
#include "mainwindow.h"
#include "studiodriver.h"
#include "studioutil.h"
#include "testutil.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QPushButton>
#include <QStandardPaths>
#include <QToolButton>

using namespace gml;

namespace {

using gmltest::showQuietly;
using gmltest::waitLoaded;

constexpr qint64 kT0 = 1'700'000'000'000'000'000;

// `from` .. `to` (exclusive) samples at 10 Hz of two series; the first call writes the header.
QByteArray samples(int from, int to)
{
    QByteArray out;
    if (from == 0)
        out = "grademl-samples 1\nhost,livehost\nseries,0,host,cpu busy,%\nseries,1,host,memory "
              "used,MiB\n";
    for (int i = from; i < to; ++i) {
        const qint64 t = kT0 + qint64(i) * 100'000'000;
        out += QByteArray::number(t) + ",0," + QByteArray::number(i % 100) + '\n';
        out += QByteArray::number(t) + ",1," + QByteArray::number(1000 + i) + '\n';
    }
    return out;
}

void append(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::Append));
    f.write(bytes);
}

// Waits for the follower's next update that reaches the timeline with a trace end past `end`.
bool waitForEnd(MainWindow &w, TimeNs end, int ms = 20000)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        w.follower().waitForUpdate(500);
        if (w.state()->traceEnd() >= end)
            return true;
    }
    return false;
}

} // namespace

class TestLive : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("XDG_CACHE_HOME", m_tmp.filePath(QStringLiteral("cache")).toUtf8());
        qputenv("XDG_DATA_HOME", m_tmp.filePath(QStringLiteral("data")).toUtf8());
        // The recorder is found beside the studio, else on PATH: here, the build's.
        qputenv("PATH", QFileInfo(QStringLiteral(GRADEML_CLI)).absolutePath().toUtf8() + ':' +
                            qgetenv("PATH"));
    }

    void followedFolderKeepsTheUsersPlace()
    {
        const QString dir = m_tmp.filePath(QStringLiteral("job"));
        QDir().mkpath(dir);
        const QString log = dir + QStringLiteral("/grademl-samples.csv");
        append(log, samples(0, 100)); // 10 s
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.followFolder(dir);
        QVERIFY(waitLoaded(w));
        QVERIFY(w.follower().isFollowing());
        QToolButton *follow = nullptr;
        for (auto *b : w.findChildren<QToolButton *>())
            if (b->text() == QLatin1String("Follow"))
                follow = b;
        QVERIFY(follow && follow->isVisible() && follow->isChecked());
        const TimeNs start = w.state()->traceStart();
        QCOMPARE(w.state()->traceEnd() - start, TimeNs(99) * 100'000'000);
        // The whole trace is shown: it stays whole as it grows.
        append(log, samples(100, 200));
        QVERIFY(waitForEnd(w, start + TimeNs(199) * 100'000'000));
        QCOMPARE(w.state()->windowStart(), w.state()->traceStart());
        QCOMPARE(w.state()->windowEnd(), w.state()->traceEnd());

        // Zoomed on the last 2 s: the window moves with the end, its width kept.
        w.state()->setWindow(w.state()->traceEnd() - 2'000'000'000, w.state()->traceEnd());
        QVERIFY(follow->isChecked());
        append(log, samples(200, 300));
        QVERIFY(waitForEnd(w, start + TimeNs(299) * 100'000'000));
        QCOMPARE(w.state()->windowEnd(), w.state()->traceEnd());
        QCOMPARE(w.state()->windowDuration(), TimeNs(2'000'000'000));

        // Looking at the start: the window stays there, and Follow turns off.
        w.state()->setWindow(start, start + 1'000'000'000);
        QVERIFY(!follow->isChecked());
        append(log, samples(300, 400));
        QVERIFY(waitForEnd(w, start + TimeNs(399) * 100'000'000));
        QCOMPARE(w.state()->windowStart(), start);
        QCOMPARE(w.state()->windowEnd(), start + 1'000'000'000);
        // Follow brings it to the end, its width kept.
        follow->click();
        QCOMPARE(w.state()->windowEnd(), w.state()->traceEnd());
        QCOMPARE(w.state()->windowDuration(), TimeNs(1'000'000'000));
        QVERIFY(follow->isChecked());

        // What the window shows is what the folder holds.
        auto project = Project::open(w.projectPath(), Project::Mode::ReadOnly, nullptr);
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM counter"), qint64(800));
        w.follower().stop();
        QVERIFY(!w.follower().isFollowing());
    }

    void analysisOffersRefreshWhenTheRunGainsSlices()
    {
        const QString dir = m_tmp.filePath(QStringLiteral("cycles"));
        QDir().mkpath(dir);
        auto trace = [&](int cycle) {
            // One profiler cycle's trace, as torch.profiler writes it per cycle, in the run's
            // folder.
            QByteArray events;
            for (int i = 0; i < 20; ++i) {
                const qint64 ts = qint64(cycle) * 100'000 + i * 1000;
                events +=
                    QByteArray(i ? "," : "") +
                    R"({"ph":"X","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":)" +
                    QByteArray::number(ts) +
                    R"(,"dur":400},{"ph":"X","name":"gemm","cat":"kernel","pid":0,"tid":7,"ts":)" +
                    QByteArray::number(ts + 100) + R"(,"dur":600})";
            }
            const QString path = dir + QStringLiteral("/cycle%1.pt.trace.json").arg(cycle);
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"traceEvents":[)" + events + "]}");
            f.close();
            // Written a while ago: the follower takes it at once (it waits 2 s for a file to
            // settle).
            QVERIFY(gmltest::setMtime(path, QDateTime::currentDateTime().addSecs(-10)));
        };
        trace(0);
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.followFolder(dir);
        QVERIFY(waitLoaded(w));
        QVERIFY(showAnalysis(w));
        auto *refresh = [&]() -> QPushButton * {
            for (auto *b : w.findChildren<QPushButton *>())
                if (b->text() == QLatin1String("Refresh"))
                    return b;
            return nullptr;
        }();
        QVERIFY(refresh && !refresh->isVisible());
        trace(1);
        QElapsedTimer t;
        t.start();
        while (!refresh->isVisible() && t.elapsed() < 20000)
            w.follower().waitForUpdate(500);
        QVERIFY(refresh->isVisible());
        refresh->click();
        QVERIFY(showAnalysis(w));
        QVERIFY(!refresh->isVisible());
        w.follower().stop();
    }

    void recordedCommandIsFollowedAndStoppedWithTheWindow()
    {
        const QString out = m_tmp.filePath(QStringLiteral("recorded"));
        QString why;
        {
            MainWindow w;
            showQuietly(w, QSize(1366, 768));
            QVERIFY2(w.recordCommand({QStringLiteral("sleep"), QStringLiteral("30")},
                                     QStringLiteral("100ms"), out, &why),
                     qPrintable(why));
            QVERIFY(waitLoaded(w));
            QVERIFY(w.follower().isRecording());
            QVERIFY(waitForEnd(w, w.state()->traceStart() + 1'000'000'000));
            QElapsedTimer closing;
            closing.start();
            w.close(); // Ctrl-C to the recorder, which ends the command and writes what it has
            QVERIFY(!w.follower().isRecording());
            QVERIFY(!w.follower().isFollowing());
            QVERIFY(closing.elapsed() < 15000);
        }
        // The recorder said how the command ended.
        QFile json(out + QStringLiteral("/grademl.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        QVERIFY2(json.readAll().contains("\"interrupted\""),
                 "the recorder did not record the stop");
    }
};

QTEST_MAIN(TestLive)
#include "tst_live.moc"
