// SPDX-License-Identifier: GPL-3.0-or-later
// The studio a Perfetto user keeps (issue 58), read through the state dump as a script would:
// search everywhere (the track filter by what tracks hold, Find by category and args), short
// relative ruler labels at every zoom on both screen sizes, a time origin set on the ruler.

#include "analysiscontroller.h"
#include "analysispanel.h"
#include "figuredialog.h"
#include "figureexport.h"
#include "figurewriter.h"
#include "mainwindow.h"
#include "project.h"
#include "querycontroller.h"
#include "queryview.h"
#include "rankoverviewcontroller.h"
#include "rankoverviewview.h"
#include "runexport.h"
#include "runsbrowser.h"
#include "sqlitedb.h"
#include "statedump.h"
#include "studiodriver.h"
#include "studioutil.h"
#include "testutil.h"
#include "timelinedata.h"
#include "timelinestate.h"
#include "timelineview.h"
#include "trackbar.h"
#include "whatifcontroller.h"
#include "whatifpanel.h"
#include "windowlayout.h"

#include <QDockWidget>
#include <QGuiApplication>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QScreen>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace gml;
using gmltest::showQuietly;
using gmltest::waitLoaded;

namespace {

const char *const kDlrm = "pytorch_kineto/param_dlrm_8rank_v100";

qint64 countOf(const QString &project, const char *sql)
{
    QString error;
    auto p = Project::open(project, Project::Mode::ReadOnly, &error);
    return p ? p->db().scalar(sql, -1) : -1;
}

// Every ruler label drawn: at most 10 characters, left to right without overlapping.
void checkRuler(const QJsonObject &state, const QString &where)
{
    const QJsonArray ruler = state.value(QStringLiteral("ruler")).toArray();
    QVERIFY2(ruler.size() >= 3, qPrintable(where));
    for (qsizetype i = 0; i < ruler.size(); ++i) {
        const QJsonObject a = ruler[i].toObject();
        const QString label = a.value(QStringLiteral("label")).toString();
        QVERIFY2(label.size() <= 10, qPrintable(where + QStringLiteral(": ") + label));
        if (i + 1 < ruler.size())
            QVERIFY2(a.value(QStringLiteral("x")).toDouble() +
                             a.value(QStringLiteral("width")).toDouble() <
                         ruler[i + 1].toObject().value(QStringLiteral("x")).toDouble(),
                     qPrintable(where + QStringLiteral(": ") + label));
    }
}

} // namespace

class TestWorkspace : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;

private Q_SLOTS:
    void initTestCase()
    {
        // Projects of read-only folders go to a cache of this test's own.
        QStandardPaths::setTestModeEnabled(true);
        qputenv("XDG_CACHE_HOME", m_tmp.filePath(QStringLiteral("cache")).toUtf8());
    }

    // Issue 73, the first screen: a thread that only waits (every slice a Python frame, every
    // innermost one a wait: a tqdm monitor) is listed after its process's other threads, folded
    // to one summary row that says so, one click from its slices; a thread running Python of
    // its own stays as it is. Kineto's pid 0, tid 0 is no main thread.
    void threadsThatOnlyWaitFoldLast()
    {
        QTemporaryDir dir;
        gmltest::writeFile(dir, QStringLiteral("trace.json"), R"({"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":10,"dur":50},
{"ph":"X","cat":"python_function","name":"threading.py(1032): _bootstrap","pid":100,"tid":7,"ts":0,"dur":100},
{"ph":"X","cat":"python_function","name":"tqdm/_monitor.py(60): run","pid":100,"tid":7,"ts":1,"dur":98},
{"ph":"X","cat":"python_function","name":"threading.py(359): wait","pid":100,"tid":7,"ts":2,"dur":40},
{"ph":"X","cat":"python_function","name":"<built-in method acquire of _thread.lock object at 0x7f00aa>","pid":100,"tid":7,"ts":50,"dur":40},
{"ph":"X","cat":"python_function","name":"threading.py(1032): _bootstrap","pid":100,"tid":8,"ts":0,"dur":100},
{"ph":"X","cat":"python_function","name":"work.py(3): tokenize","pid":100,"tid":8,"ts":5,"dur":90},
{"ph":"X","cat":"python_function","name":"threading.py(359): wait","pid":0,"tid":0,"ts":0,"dur":100}
]})");
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.openFolder(dir.path());
        QVERIFY(waitLoaded(w, 60000));
        const auto &rows = w.timeline()->layout().rows();
        int main = -1, worker = -1, monitor = -1, zero = -1;
        for (size_t i = 0; i < rows.size(); ++i) {
            const QString &l = rows[i].label;
            if (l.startsWith(QLatin1String("thread 100")))
                main = int(i);
            else if (l.startsWith(QLatin1String("thread 8")))
                worker = int(i);
            else if (l.startsWith(QLatin1String("thread 7")))
                monitor = int(i);
            else if (l.startsWith(QLatin1String("thread 0")))
                zero = int(i);
        }
        QVERIFY(main >= 0 && worker >= 0 && monitor >= 0 && zero >= 0);
        QVERIFY2(main < worker && worker < monitor, "waiting threads after the others");
        const TimelineRow &m = rows[size_t(monitor)];
        QVERIFY2(m.label.endsWith(QStringLiteral("only waits")), qPrintable(m.label));
        QVERIFY(m.waitsOnly && !m.expanded && m.isSummary());
        QCOMPARE(m.height, w.timeline()->painter().metrics().summaryHeight);
        QVERIFY(!rows[size_t(worker)].waitsOnly && !rows[size_t(worker)].isSummary());
        QVERIFY(rows[size_t(main)].label.contains(QStringLiteral("main thread")));
        QVERIFY2(!rows[size_t(zero)].label.contains(QStringLiteral("main thread")),
                 qPrintable(rows[size_t(zero)].label));
        QVERIFY(rows[size_t(zero)].waitsOnly);
        // One click unfolds it: its three depths of slices.
        const TrackId id = m.track;
        w.timeline()->setCollapsed(id, false);
        const int r = w.timeline()->layout().rowOfTrack(id);
        QVERIFY(r >= 0);
        QCOMPARE(w.timeline()->layout().rows()[size_t(r)].depthCount, 3);
        QVERIFY(!w.timeline()->layout().rows()[size_t(r)].isSummary());
    }

    // The Qwen trace recorded with Python stacks: its tqdm monitor (pid 0, tid 0) waits, its
    // main thread works.
    void realMonitorThreadOnlyWaits()
    {
        const char *const qwen = "pytorch_kineto/tracelens_qwen05b_h100_vs_mi300";
        GML_REQUIRE_SHARED(QString::fromLatin1(qwen));
        QTemporaryDir dir;
        QVERIFY(QFile::copy(gmltest::sharedTraces() + QLatin1Char('/') + QLatin1String(qwen) +
                                QStringLiteral("/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
                            dir.filePath(QStringLiteral("h100.json.gz"))));
        const QString project = dir.filePath(QStringLiteral("q.grademl"));
        QCOMPARE(gmltest::runCli(
                     {QStringLiteral("import"), dir.path(), QStringLiteral("--project"), project})
                     .code,
                 0);
        QString error;
        const auto data = loadTimelineData(project, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->waitingThreads.size(), 1);
        const TrackSummary *t = data->track(*data->waitingThreads.begin());
        QVERIFY(t);
        QCOMPARE(t->name, QStringLiteral("thread 0 (python3)"));
        for (const auto &run : data->runs)
            for (const auto &track : run.tracks)
                if (track.name.contains(QStringLiteral("main thread")))
                    QVERIFY(!data->waitingThreads.contains(track.id));
    }

    // A prediction saved beside the measured run leaves the Query view's measured totals (the
    // docs' first example) as they were; focus moving to the prediction clears the range, the
    // find matches and the flame diff that belonged to the measured run.
    void runsNeverMixSilently()
    {
        const QString demo = m_tmp.filePath(QStringLiteral("demo"));
        gmltest::copyFolder(QStringLiteral(GRADEML_DEMO), demo);
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.openFolder(demo);
        QVERIFY(waitLoaded(w));
        const auto totals = [&w] {
            w.showView(QStringLiteral("query"));
            auto *view = w.findChild<QueryView *>();
            const QString sql = QStringLiteral(
                "SELECT run, name, count(*) AS n, sum(dur) AS total_ns FROM kernel WHERE "
                "run_kind = 'measured' GROUP BY run, name ORDER BY total_ns DESC LIMIT 20");
            view->editor()->setPlainText(sql);
            queryOf(w)->run(sql);
            queryOf(w)->waitForIdle();
            QStringList rows;
            for (int r = 0; r < view->model()->rowCount(); ++r) {
                QStringList cells;
                for (const QVariant &v : view->model()->row(r))
                    cells << v.toString();
                rows << cells.join(QLatin1Char('|'));
            }
            return rows;
        };
        const QStringList before = totals();
        QVERIFY(before.size() >= 3);
        QSignalSpy shown(&w, &MainWindow::whatIfShown);
        w.showWhatIf();
        QVERIFY(shown.wait(60000));
        QSignalSpy results(w.whatIf(), &WhatIfController::resultReady);
        w.whatIfPanel()->slider(WhatIfPanel::Slider::Compute)->setValue(8); // compute 2x
        QVERIFY(results.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(!w.whatIf()->isBusy(), 60000);
        Q_EMIT w.whatIfPanel()->saveRunRequested(QStringLiteral("compute x2"),
                                                 w.whatIfPanel()->transforms());
        QVERIFY(waitLoaded(w));
        RunId predicted = 0, measured = 0;
        for (const auto &run : w.timeline()->data()->runs) {
            if (run.name == QLatin1String("compute x2") && run.kind == QLatin1String("predicted"))
                predicted = run.id;
            else if (run.kind == QLatin1String("measured") && run.slices > 0 && !measured)
                measured = run.id;
        }
        QVERIFY(predicted && measured);
        QCOMPARE(totals(), before); // the prediction's kernels are not added to them
        auto *status =
            w.findChild<QueryView *>()->findChild<QLabel *>(QStringLiteral("queryStatus"));
        QVERIFY(status && !status->text().contains(QLatin1String("predicted or simulated")));
        // A plain sum over both says it adds them (issue 73: it did so without a word).
        queryOf(w)->run(QStringLiteral("SELECT sum(dur) FROM kernel"));
        queryOf(w)->waitForIdle();
        QVERIFY2(status->text().contains(QLatin1String("1 predicted or simulated run")) &&
                     status->text().contains(QLatin1String("run_kind = 'measured'")),
                 qPrintable(status->text()));

        // A range, a find and a slice on the measured run; then the prediction in focus.
        w.showView(QStringLiteral("timeline"));
        TimelineState *s = w.state();
        s->setFocus({measured});
        s->setSelection(s->traceStart() + 1'000'000, s->traceStart() + 5'000'000);
        w.find(QStringLiteral("gemm"), false);
        w.waitForSearch();
        QVERIFY(w.findMatchCount() > 0);
        s->setFocus({predicted});
        QVERIFY(!s->hasSelection());
        QVERIFY(!s->hasSelectedSlice());
        QCOMPARE(w.findMatchCount(), 0);
        QVERIFY(w.findStatus().contains(QLatin1String("other runs")));
        // Show in Timeline from the Runs pane, while Compare is in front: the timeline comes.
        w.showView(QStringLiteral("compare"));
        auto *browser = w.findChild<RunsBrowser *>();
        QVERIFY(browser);
        Q_EMIT browser->showInTimelineRequested({QStringLiteral("compute x2")}, false);
        QCOMPARE(w.frontView(), QStringLiteral("timeline"));
        QCOMPARE(s->focusRuns(), QList<RunId>{predicted});
        // Two runs side by side keep the first run's clock: the range stays.
        s->setSelection(s->traceStart() + 1'000'000, s->traceStart() + 5'000'000);
        s->setFocus({predicted, measured});
        QVERIFY(s->hasSelection());
    }

    // Names first (issue 73): "nccl" names no DLRM track, so it keeps none and says how many
    // hold it; Keep Tracks Holding Matches then keeps the 8 streams that ran NCCL kernels (their
    // names do not say so) with their threads; a filter matching nothing says so; Find counts
    // categories and args as SQL does.
    void searchFindsWhatTracksHold()
    {
        GML_REQUIRE_SHARED(QString::fromLatin1(kDlrm));
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.openFolder(gmltest::sharedTraces() + QLatin1Char('/') + QLatin1String(kDlrm));
        QVERIFY(waitLoaded(w, 300000));
        auto *bar = w.findChild<TrackBar *>();
        QVERIFY(bar);
        bar->filterEdit()->setText(QStringLiteral("nccl")); // applied after a typing pause
        QTRY_COMPARE(w.timeline()->trackFilter().text, QStringLiteral("nccl"));
        w.waitForSearch();
        QVERIFY(w.timeline()->filterMatchesNothing());
        QVERIFY(w.timeline()->trackFilter().holding.size() >= 8);
        // "GPU 3" keeps GPU 3 by its name.
        bar->filterEdit()->setText(QStringLiteral("GPU 3"));
        QTRY_COMPARE(w.timeline()->trackFilter().text, QStringLiteral("GPU 3"));
        w.waitForSearch();
        QVERIFY(!w.timeline()->filterMatchesNothing());
        for (const auto &row : w.timeline()->layout().rows())
            if (row.kind == TrackKind::Stream || row.kind == TrackKind::Gpu)
                QCOMPARE(w.timeline()->data()->track(row.track)->pid, QStringLiteral("3"));
        w.timeline()->setFilterKeepsHolding(true);
        bar->filterEdit()->setText(QStringLiteral("nccl"));
        QTRY_COMPARE(w.timeline()->trackFilter().text, QStringLiteral("nccl"));
        w.waitForSearch();
        QJsonObject filter = studioState(w).value(QStringLiteral("track_filter")).toObject();
        const QJsonObject kinds = filter.value(QStringLiteral("by_kind")).toObject();
        QCOMPARE(kinds.value(QStringLiteral("stream")).toInt(), 8);
        QCOMPARE(kinds.value(QStringLiteral("gpu")).toInt(), 8); // their GPUs, for context
        QVERIFY(!filter.value(QStringLiteral("matches_nothing")).toBool());
        for (const auto &row : w.timeline()->layout().rows())
            if (row.kind == TrackKind::Stream)
                QVERIFY2(!row.label.contains(QStringLiteral("nccl"), Qt::CaseInsensitive),
                         qPrintable(row.label)); // kept for what it holds, not its name
        bar->filterEdit()->setText(QStringLiteral("no-such-track-or-slice"));
        QTRY_COMPARE(w.timeline()->trackFilter().text, QStringLiteral("no-such-track-or-slice"));
        w.waitForSearch();
        filter = studioState(w).value(QStringLiteral("track_filter")).toObject();
        QCOMPARE(filter.value(QStringLiteral("tracks")).toInt(), 0);
        QVERIFY(filter.value(QStringLiteral("matches_nothing")).toBool());
        QVERIFY(w.timeline()->filterMatchesNothing());
        // Find searches the tracks the filter hides too, and says so (issue 73).
        w.find(QStringLiteral("ncclKernel"), false);
        w.waitForSearch();
        QCOMPARE(w.findMatchCount(), 0);
        const QString hidden = studioState(w)
                                   .value(QStringLiteral("find"))
                                   .toObject()
                                   .value(QStringLiteral("status"))
                                   .toString();
        QVERIFY2(hidden.startsWith(QLatin1String("no match shown; ")) &&
                     hidden.endsWith(QLatin1String(" on hidden or folded tracks")) &&
                     hidden.section(QLatin1Char(' '), 3, 3).toInt() > 0,
                 qPrintable(hidden));
        bar->filterEdit()->clear();
        QTRY_VERIFY(w.timeline()->trackFilter().text.isEmpty());

        const QString project = w.timeline()->data()->projectPath;
        const qint64 kernels = countOf(project, "SELECT count(*) FROM slice WHERE cat_id IN "
                                                "(SELECT id FROM string WHERE value LIKE "
                                                "'%kernel%')");
        const qint64 streamArgs =
            countOf(project, "SELECT count(*) FROM slice WHERE args LIKE '%stream%'");
        QVERIFY(kernels > 1000 && streamArgs > 1000);
        w.find(QStringLiteral("cat:kernel"), false);
        w.waitForSearch();
        QCOMPARE(qint64(w.findMatchCount()), kernels);
        QCOMPARE(studioState(w)
                     .value(QStringLiteral("find"))
                     .toObject()
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("1 of %1").arg(kernels));
        w.find(QStringLiteral("arg:stream"), false);
        w.waitForSearch();
        QCOMPARE(qint64(w.findMatchCount()), streamArgs);
        // An arg value whatever its spacing (issue 73): Kineto writes "[[256, 1]]".
        const qint64 dims =
            countOf(project, "SELECT count(*) FROM slice WHERE args LIKE '%[[256, 1]%'");
        QVERIFY(dims > 0);
        for (const QString &spacing :
             {QStringLiteral("arg:[[256,1]"), QStringLiteral("arg: [[256,   1]")}) {
            w.find(spacing, false);
            w.waitForSearch();
            QCOMPARE(qint64(w.findMatchCount()), dims);
        }
        w.find(QStringLiteral("cat:no-such-category"), false);
        w.waitForSearch();
        QCOMPARE(w.findMatchCount(), 0);
    }

    // Ruler labels at the deepest zoom, 1 µs, 1 ms and the whole run, 15 ms into DLRM (where
    // counting from the start needs eight digits), at both screen sizes: at most 10
    // characters, never overlapping; a click on the ruler sets the origin, which the dump
    // reports and the labels count from.
    void rulerLabelsStayShortAtEveryZoom()
    {
        GML_REQUIRE_SHARED(QString::fromLatin1(kDlrm));
        MainWindow w;
        showQuietly(w, QSize(1920, 1080));
        w.openFolder(gmltest::sharedTraces() + QLatin1Char('/') + QLatin1String(kDlrm));
        QVERIFY(waitLoaded(w, 300000));
        TimelineState *s = w.state();
        const TimeNs start = s->traceStart(), at = start + 15'000'123;
        for (const QSize size : {QSize(1920, 1080), QSize(1366, 768)}) {
            w.resize(size);
            for (TimeNs span :
                 {TimelineState::kMinWindow, TimeNs(1000), TimeNs(1'000'000), TimeNs(0)}) {
                if (span == 0)
                    s->showAll();
                else
                    s->setWindow(at, at + span);
                QCoreApplication::processEvents();
                (void)w.grab(); // a paint at this size and window
                const QJsonObject st = studioState(w);
                const QString where =
                    QStringLiteral("%1x%2, %3 ns").arg(size.width()).arg(size.height()).arg(span);
                checkRuler(st, where);
                // "15000123 ns": counted from a base near the window instead ("+120 ns")
                if (span == TimelineState::kMinWindow)
                    QVERIFY2(st.value(QStringLiteral("ruler_base"))
                                 .toString()
                                 .startsWith(QStringLiteral("start + 15")),
                             qPrintable(where + QStringLiteral(": ") +
                                        st.value(QStringLiteral("ruler_base")).toString()));
                else if (span == 0 || span >= 1'000'000)
                    QCOMPARE(st.value(QStringLiteral("ruler_base")).toString(),
                             QStringLiteral("from start"));
            }
        }
        // Click the ruler 2 ms in: the origin is there, a "0" tick is drawn on it.
        s->setWindow(start, start + 4'000'000);
        QCoreApplication::processEvents();
        auto *t = w.timeline();
        const double x = t->painter().xForTime(t->viewport(), start + 2'000'000);
        const QPoint onRuler(int(x), t->painter().metrics().overviewHeight + 5);
        QTest::mouseClick(t, Qt::LeftButton, {}, onRuler);
        QVERIFY(s->hasOrigin());
        QVERIFY(std::abs(s->origin() - (start + 2'000'000)) < 20'000); // within a pixel or so
        (void)w.grab();
        QJsonObject st = studioState(w);
        QCOMPARE(st.value(QStringLiteral("ruler_base")).toString(), QStringLiteral("from origin"));
        QVERIFY(st.value(QStringLiteral("window"))
                    .toObject()
                    .value(QStringLiteral("origin_set"))
                    .toBool());
        bool negative = false;
        for (const auto &l : st.value(QStringLiteral("ruler")).toArray())
            negative =
                negative ||
                l.toObject().value(QStringLiteral("label")).toString().startsWith(QLatin1Char('-'));
        QVERIFY(negative); // before the origin, the ticks count down
        checkRuler(st, QStringLiteral("origin"));
        // Another run in focus (or the same again): counted from its start.
        s->clearOrigin();
        QVERIFY(!s->hasOrigin());
    }

    // Issue 57: on DLRM's 8 ranks Slowest picked rank 1, which waited 11.3 ms in communication
    // (the victim). Before an analysis it now picks the rank that waited least; after Mark
    // Stragglers, the rank of the critical path; Fastest the rank that waited most.
    void slowestIsTheRankTheOthersWaitFor()
    {
        GML_REQUIRE_SHARED(QString::fromLatin1(kDlrm));
        MainWindow w;
        showQuietly(w, QSize(1920, 1080));
        w.openFolder(gmltest::sharedTraces() + QLatin1Char('/') + QLatin1String(kDlrm));
        QVERIFY(waitLoaded(w, 300000));
        w.rankOverview()->waitForIdle();
        RankOverviewView *view = w.rankView();
        QVERIFY(view && view->overview() && view->overview()->lanes.size() == 8);
        QToolButton *slowest = nullptr, *fastest = nullptr, *stragglers = nullptr;
        for (auto *b : view->findChildren<QToolButton *>()) {
            if (b->text() == QLatin1String("Slowest"))
                slowest = b;
            if (b->text() == QLatin1String("Fastest"))
                fastest = b;
            if (b->text() == QLatin1String("Mark Stragglers"))
                stragglers = b;
        }
        QVERIFY(slowest && fastest && stragglers);
        QVERIFY(slowest->toolTip().contains(QLatin1String("critical path")));
        const auto &lanes = view->overview()->lanes;
        const auto rankOf = [&] { return lanes[size_t(view->highlighted())].rank; };
        const auto leastWait =
            std::min_element(lanes.begin(), lanes.end(), [](const RankLane &a, const RankLane &b) {
                return a.communication < b.communication;
            });
        const auto mostWait =
            std::max_element(lanes.begin(), lanes.end(), [](const RankLane &a, const RankLane &b) {
                return a.communication < b.communication;
            });
        slowest->click();
        QCOMPARE(rankOf(), leastWait->rank);
        fastest->click();
        QCOMPARE(rankOf(), mostWait->rank);
        QCOMPARE(rankOf(), 1); // 11.3 ms waiting: the victim, now named Fastest

        QSignalSpy analysed(analysisOf(w), &AnalysisController::reportReady);
        stragglers->click();
        QVERIFY(analysed.wait(120000));
        const auto *report = w.findChild<AnalysisPanel *>()->report();
        QVERIFY(report && !report->criticalByRank.empty());
        slowest->click();
        QCOMPARE(rankOf(), report->criticalByRank.front().first);
        QCOMPARE(rankOf(), 4);
        fastest->click();
        QCOMPARE(rankOf(), 1);
    }

    // Panes dragged to a size come back at that size; the first window fits the screen; Show in
    // Timeline from the Runs pane brings the timeline to the front.
    void windowFitsAndPanesComeBack()
    {
        int detailsHeight = 0, whatifWidth = 0;
        {
            MainWindow w;
            showQuietly(w, QSize(1366, 768));
            QCoreApplication::processEvents();
            auto *details = w.findChild<QDockWidget *>(QStringLiteral("details"));
            auto *whatif = w.findChild<QDockWidget *>(QStringLiteral("whatif"));
            whatif->show();
            QCoreApplication::processEvents();
            w.resizeDocks({details}, {261}, Qt::Vertical);
            w.resizeDocks({whatif}, {433}, Qt::Horizontal);
            QCoreApplication::processEvents();
            detailsHeight = details->height();
            whatifWidth = whatif->width();
            QVERIFY2(detailsHeight > 200 && qAbs(whatifWidth - 433) <= 8,
                     qPrintable(QStringLiteral("%1 %2").arg(detailsHeight).arg(whatifWidth)));
            w.windowLayout().save();
        }
        MainWindow w;
        w.setInteractive(false);
        w.windowLayout().restore();
        w.show();
        QCoreApplication::processEvents();
        QTest::qWait(50);
        QCOMPARE(w.size(), QSize(1366, 768));
        QCOMPARE(w.findChild<QDockWidget *>(QStringLiteral("details"))->height(), detailsHeight);
        QCOMPARE(w.findChild<QDockWidget *>(QStringLiteral("whatif"))->width(), whatifWidth);
        // Another view in front: the selection panes shrink to a strip, and come back.
        auto *details = w.findChild<QDockWidget *>(QStringLiteral("details"));
        QVERIFY(w.showView(QStringLiteral("analysis")));
        QTRY_VERIFY2(details->height() < 100, qPrintable(QString::number(details->height())));
        QVERIFY(w.showView(QStringLiteral("timeline")));
        QTRY_COMPARE(details->height(), detailsHeight);
        // A window never shown before fits the screen's available area.
        MainWindow fresh;
        const QSize room = QGuiApplication::primaryScreen()->availableSize();
        QVERIFY(fresh.width() <= room.width() && fresh.height() <= room.height());
    }

    // A paper figure, 8.5 cm at 300 dpi, coloured by class: the dialog's size is the file's, the
    // label column at most 30% of the width with short labels never cut in the middle, a
    // legend; grademl export writes the same figure and says what it drew (--state).
    void paperFigureFitsItsColumn()
    {
        GML_REQUIRE_SHARED(QString::fromLatin1(kDlrm));
        QTemporaryDir tmp;
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.openFolder(gmltest::sharedTraces() + QLatin1Char('/') + QLatin1String(kDlrm));
        QVERIFY(waitLoaded(w, 300000));
        FigureDialog dialog({}, false, false, w.timeline()->size());
        FigureDialog::Choice c = dialog.choice();
        c.path = tmp.filePath(QStringLiteral("paper.png"));
        c.tracks = FigureDialog::Tracks::Shown;
        c.centimetres = true;
        c.width = 8.5;
        c.dpi = 300;
        c.colorByClass = true;
        dialog.setChoice(c);
        dialog.setEstimator([&w](const FigureDialog::Choice &choice) {
            return timelineFigureSize(choice, *w.timeline(), *w.state());
        });
        const QSize estimate = timelineFigureSize(dialog.choice(), *w.timeline(), *w.state());
        QVERIFY(estimate.height() > 100);
        QString error;
        QVERIFY2(writeTimelineFigure(dialog.choice(), *w.timeline(), *w.state(), &error),
                 qPrintable(error));
        const QImage image(c.path);
        QCOMPARE(image.size(), QSize(qRound(estimate.width() * 300.0 / 96),
                                     qRound(estimate.height() * 300.0 / 96)));
        QVERIFY2(dialog.estimateText().contains(
                     QStringLiteral("%1 × %2 px").arg(image.width()).arg(image.height())),
                 qPrintable(dialog.estimateText()));
        QVERIFY(qAbs(image.width() - 1004) <= 1); // 8.5 cm at 300 dpi

        // The same figure from the command line, with what it drew.
        const QString state = tmp.filePath(QStringLiteral("paper.json"));
        QProcess cli;
        cli.start(QStringLiteral(GRADEML_CLI),
                  {QStringLiteral("export"), w.timeline()->data()->projectPath,
                   QStringLiteral("--view"), QStringLiteral("timeline"),
                   QStringLiteral("--width-cm"), QStringLiteral("8.5"), QStringLiteral("--dpi"),
                   QStringLiteral("300"), QStringLiteral("--no-chrome"),
                   QStringLiteral("--color-by"), QStringLiteral("class"),
                   QStringLiteral("--origin"), QStringLiteral("left"), QStringLiteral("--out"),
                   tmp.filePath(QStringLiteral("cli.png")), QStringLiteral("--state"), state});
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        QFile f(state);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject st = QJsonDocument::fromJson(f.readAll()).object();
        const int width =
            st.value(QStringLiteral("size")).toObject().value(QStringLiteral("width")).toInt();
        const int labelWidth = st.value(QStringLiteral("label_width")).toInt();
        QCOMPARE(width, FigureRequest::fromCm(8.5, QStringLiteral("x.png")));
        QVERIFY2(labelWidth <= 0.3 * width, qPrintable(QString::number(labelWidth)));
        const QJsonArray legend = st.value(QStringLiteral("legend")).toArray();
        QVERIFY(legend.contains(QStringLiteral("compute")) &&
                legend.contains(QStringLiteral("communication")));
        QStringList labels;
        for (const auto &t : st.value(QStringLiteral("tracks")).toArray()) {
            const QString label = t.toObject().value(QStringLiteral("label")).toString();
            labels << label;
            const qsizetype cut = label.indexOf(QChar(0x2026));
            QVERIFY2(cut < 0 || cut == label.size() - 1, qPrintable(label)); // at the end only
        }
        for (const char *shortLabel : {"main thread", "GPU 0 · V100", "stream 7", "rank 0"})
            QVERIFY2(labels.contains(QString::fromUtf8(shortLabel)),
                     qPrintable(labels.join(QLatin1String(", "))));
        QCOMPARE(st.value(QStringLiteral("ruler_base")).toString(), QStringLiteral("from origin"));
        QCOMPARE(st.value(QStringLiteral("ruler"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("label"))
                     .toString(),
                 QStringLiteral("0 ms"));
        QCOMPARE(QImage(tmp.filePath(QStringLiteral("cli.png"))).width(), image.width());
    }

    // File › Export Run as Chrome Trace…: the run in focus written off the GUI thread (the
    // window keeps painting), the status bar says what was written; the file is a Chrome trace.
    // Then File › Save Run Report… on the same window.
    void shareRunFromTheWindow()
    {
        const QString demo = m_tmp.filePath(QStringLiteral("export/demo"));
        gmltest::copyFolder(QStringLiteral(GRADEML_DEMO), demo);
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.openFolder(demo);
        QVERIFY(waitLoaded(w));
        bool found = false;
        for (QAction *a : w.findChildren<QAction *>())
            found |= a->text() == QStringLiteral("Export &Run as Chrome Trace…");
        QVERIFY(found);
        QCOMPARE(w.session().focus(), QStringList{QStringLiteral("demo")});
        const QString out = m_tmp.filePath(QStringLiteral("demo.json.gz"));
        std::optional<RunExportOutcome> outcome;
        startRunExport(&w, w.projectPath(), w.session().focus().first(), out,
                       [&](const RunExportOutcome &o) {
                           outcome = o;
                           showRunExport(&w, o);
                       });
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 60000);
        QVERIFY2(outcome->ok, qPrintable(outcome->message));
        QVERIFY(QFileInfo(out).size() > 1000);
        QVERIFY2(w.statusBar()->currentMessage().contains(QLatin1String("804 slices")),
                 qPrintable(w.statusBar()->currentMessage()));
        // A run that is not there: said, nothing written.
        outcome.reset();
        const QString none = m_tmp.filePath(QStringLiteral("none.json"));
        startRunExport(&w, w.projectPath(), QStringLiteral("no such run"), none,
                       [&](const RunExportOutcome &o) { outcome = o; });
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 60000);
        QVERIFY(!outcome->ok);
        QVERIFY(outcome->message.contains(QLatin1String("no run 'no such run'")));
        QVERIFY(!QFile::exists(none));

        // File › Save Run Report…: the report `grademl report` writes, in a process of its
        // own; the status bar says what was written; a failure says why and writes nothing.
        found = false;
        for (QAction *a : w.findChildren<QAction *>())
            found |= a->text() == QStringLiteral("Save Run Re&port…");
        QVERIFY(found);
        const QString report = m_tmp.filePath(QStringLiteral("demo-report.html"));
        outcome.reset();
        startRunReport(&w, QStringLiteral(GRADEML_CLI), w.projectPath(),
                       w.session().focus().first(), report, [&](const RunExportOutcome &o) {
                           outcome = o;
                           showRunExport(&w, o);
                       });
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 120000);
        QVERIFY2(outcome->ok, qPrintable(outcome->message));
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray html = f.readAll();
        QVERIFY(html.startsWith("<!DOCTYPE html>"));
        QVERIFY(html.contains("<h2>Findings</h2>"));
        QVERIFY2(w.statusBar()->currentMessage().startsWith(QLatin1String("Wrote ")) &&
                     w.statusBar()->currentMessage().contains(QLatin1String("findings")),
                 qPrintable(w.statusBar()->currentMessage()));
        // A run that is not there: the command's reason, nothing written.
        outcome.reset();
        const QString noReport = m_tmp.filePath(QStringLiteral("none.html"));
        startRunReport(&w, QStringLiteral(GRADEML_CLI), w.projectPath(),
                       QStringLiteral("no such run"), noReport,
                       [&](const RunExportOutcome &o) { outcome = o; });
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 60000);
        QVERIFY(!outcome->ok);
        QVERIFY2(outcome->message.contains(QLatin1String("no such run")),
                 qPrintable(outcome->message));
        QVERIFY(!QFile::exists(noReport));
        // No grademl to run: said.
        outcome.reset();
        startRunReport(&w, QString(), w.projectPath(), w.session().focus().first(), noReport,
                       [&](const RunExportOutcome &o) { outcome = o; });
        QVERIFY(outcome && !outcome->ok && outcome->message.contains(QLatin1String("PATH")));
    }
};

QTEST_MAIN(TestWorkspace)
#include "tst_workspace.moc"
