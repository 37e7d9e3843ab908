// SPDX-License-Identifier: GPL-3.0-or-later
// The GradeML Studio window, offscreen: opening a folder (import off the GUI thread, reuse on
// reopen, cancel), keyboard and mouse navigation, selection, details, range aggregate, find,
// and the --screenshot mode; the real Kineto traces open and render.
#include "aggregatemodel.h"
#include "analysiscontroller.h"
#include "analysispanel.h"
#include "chartlayer.h"
#include "collectivescontroller.h"
#include "collectivesmodels.h"
#include "collectivesview.h"
#include "commandpalette.h"
#include "comparecontroller.h"
#include "comparepanel.h"
#include "detailspanel.h"
#include "findingsmodel.h"
#include "focuscontroller.h"
#include "graphcontroller.h"
#include "graphview.h"
#include "importutil.h"
#include "mainwindow.h"
#include "predictedrun.h"
#include "rankoverviewcontroller.h"
#include "rankoverviewview.h"
#include "ranksmodels.h"
#include "ranksview.h"
#include "runsbrowser.h"
#include "runscontroller.h"
#include "simulatecontroller.h"
#include "simulatepanel.h"
#include "sortedtable.h"
#include "sourcesmodel.h"
#include "sourcespanel.h"
#include "statedump.h"
#include "studiodriver.h"
#include "studioutil.h"
#include "sweepmodel.h"
#include "testutil.h"
#include "timelinestate.h"
#include "timelineview.h"
#include "tracediffmodel.h"
#include "tracediffview.h"
#include "validationmodel.h"
#include "validationview.h"
#include "viewstate.h"
#include "whatifpanel.h"
#include "windowlayout.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMimeData>
#include <QSignalSpy>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTimer>
#include <QToolButton>
#include <sys/resource.h>

using namespace gml;

namespace {

using gmltest::showQuietly;
using gmltest::waitLoaded;

using gmltest::copyFolder;

} // namespace

class TestStudio : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_demo;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("XDG_CACHE_HOME", m_tmp.filePath(QStringLiteral("cache")).toUtf8());
        m_demo = m_tmp.filePath(QStringLiteral("demo"));
        copyFolder(QStringLiteral(GRADEML_DEMO), m_demo);
    }

    void opensFolderIntoItsProjectAndReusesIt()
    {
        MainWindow w;
        showQuietly(w, QSize(1400, 900));
        w.openFolder(m_demo);
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.projectPath(), m_demo + QStringLiteral("/.grademl/project.grademl"));
        QVERIFY(QFileInfo::exists(w.projectPath()));
        const auto &rows = w.timeline()->layout().rows();
        // run + 2 x (process, thread, GPU, 3 nvidia-smi counters under the GPU, 2 streams)
        QCOMPARE(int(rows.size()), 17);
        QCOMPARE(sourcesOf(w)->model()->rowCount(), 4); // 2 traces, nvidia-smi, README
        QAbstractItemModelTester sourcesTester(
            sourcesOf(w)->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(sourcesOf(w)->failedCount(), 0);
        QCOMPARE(w.state()->windowStart(), w.timeline()->data()->start);

        // Reopening imports nothing: every trace is unchanged, so its source row (id and import
        // time) stays as it was.
        const auto sourceRows = [&] {
            auto project = Project::open(w.projectPath(), Project::Mode::ReadOnly, nullptr);
            return gmltest::text(
                *project,
                QStringLiteral("SELECT group_concat(id || '@' || imported_at) FROM "
                               "(SELECT * FROM source WHERE status='imported' ORDER BY id)"));
        };
        const QString before = sourceRows();
        w.openFolder(m_demo);
        QVERIFY(waitLoaded(w));
        QCOMPARE(sourceRows(), before);
        auto project = Project::open(w.projectPath(), Project::Mode::ReadOnly, nullptr);
        QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM source WHERE status='imported'"),
                 qint64(3));
        QCOMPARE(int(w.timeline()->layout().rows().size()), 17);
    }

    void clockOffsetOverrideFromSourcesPanel()
    {
        // The demo's two ranks share one clock: rank 1 is shown "same clock", nothing applied.
        MainWindow w;
        showQuietly(w, QSize(1400, 900));
        w.openFolder(m_demo);
        QVERIFY(waitLoaded(w));
        SourcesModel *sources = sourcesOf(w)->model();
        const auto rank1Row = [&] {
            for (int i = 0; i < sources->rowCount(); ++i)
                if (sources->index(i, SourcesModel::File).data().toString() ==
                    QLatin1String("rank1.pt.trace.json"))
                    return i;
            return -1;
        };
        QVERIFY(rank1Row() >= 0);
        const QString clock = sources->index(rank1Row(), SourcesModel::Clock).data().toString();
        QVERIFY2(clock.startsWith(QLatin1String("same clock")), qPrintable(clock));
        const qint64 source = sources->sourceAt(sources->index(rank1Row(), 0))->id;
        const TimeNs startBefore = w.timeline()->data()->start;
        // Moving rank 1 back by 5 ms (as the context menu's dialog would) reloads the timeline,
        // which then starts 5 ms earlier minus rank 1's 1.3 ms later start.
        Q_EMIT sourcesOf(w)->clockOverrideRequested(source, false, -5'000'000);
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.timeline()->data()->start, startBefore - 5'000'000 + 1'300'000);
        QCOMPARE(sources->index(rank1Row(), SourcesModel::Clock).data().toString(),
                 QStringLiteral("−5 ms (set by you)"));
        QVERIFY(sources->sourceAt(sources->index(rank1Row(), 0))->overridden);
        Q_EMIT sourcesOf(w)->clockOverrideRequested(source, true, 0);
        QVERIFY(waitLoaded(w));
        QCOMPARE(w.timeline()->data()->start, startBefore);
    }

    void whatIfPanelReplaysOffTheGuiThread()
    {
        // Its own copy: it saves a run into the project.
        const QString demo = m_tmp.filePath(QStringLiteral("demo-whatif"));
        copyFolder(QStringLiteral(GRADEML_DEMO), demo);
        MainWindow w;
        showQuietly(w, QSize(1400, 900));
        w.openFolder(demo);
        QVERIFY(waitLoaded(w));
        const qsizetype runs = w.timeline()->data()->runs.size();
        QSignalSpy shown(&w, &MainWindow::whatIfShown);
        w.showWhatIf();
        QVERIFY(shown.wait(60000));
        QVERIFY(shown.first().first().toBool());
        // No change yet: the identity replay, and no predicted run in the timeline.
        QVERIFY2(w.whatIfPanel()->summaryLabel()->text().contains(
                     QLatin1String("identity replay error 0.00%")),
                 qPrintable(w.whatIfPanel()->summaryLabel()->text()));
        QCOMPARE(w.timeline()->data()->runs.size(), runs);
        // Compute twice as fast (slider position 8 = 2x): the prediction appears under the
        // measured run, shorter, while the GUI thread keeps turning.
        QSignalSpy results(w.whatIf(), &WhatIfController::resultReady);
        w.whatIfPanel()->slider(WhatIfPanel::Slider::Compute)->setValue(8);
        QVERIFY(results.wait(60000));
        const auto r = results.last().first().value<WhatIfController::Result>();
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY(r.report.predicted < r.report.measured);
        QCOMPARE(w.timeline()->data()->runs.size(), runs + 1);
        QCOMPARE(w.timeline()->data()->runs[1].id, sim::kLivePredictionRun);
        QCOMPARE(w.timeline()->data()->runs[1].kind, QStringLiteral("predicted"));
        QVERIFY(w.whatIfPanel()->summaryLabel()->text().contains(QLatin1String("Predicted")));
        // The prediction is laid out with the run it predicts (the run in focus).
        QVERIFY(w.timeline()->layout().showsRun(sim::kLivePredictionRun));
        // The range aggregate splits the measured run from its prediction, each clipped to the
        // range (a slice longer than the range counts the range at most).
        const TimeNs a0 = w.state()->traceStart() + 20'000'000, a1 = a0 + 30'000'000;
        w.state()->setSelection(a0, a1);
        QTRY_VERIFY(w.aggregate()->rowCount() > 3);
        QSet<QString> runsSeen;
        for (int i = 0; i < w.aggregate()->rowCount(); ++i) {
            runsSeen.insert(w.aggregate()->index(i, AggregateModel::Run).data().toString());
            const qint64 count =
                w.aggregate()->index(i, AggregateModel::Count).data(Qt::UserRole).toLongLong();
            const qint64 in =
                w.aggregate()->index(i, AggregateModel::InRange).data(Qt::UserRole).toLongLong();
            QVERIFY(in <= count * (a1 - a0));
            QVERIFY(in <=
                    w.aggregate()->index(i, AggregateModel::Total).data(Qt::UserRole).toLongLong());
        }
        QCOMPARE(runsSeen.size(), 2);
        w.state()->clearSelection();
        // A burst of slider moves is coalesced: fewer replays than moves, the last one wins.
        results.clear();
        for (int v = 9; v <= 16; ++v)
            w.whatIfPanel()->slider(WhatIfPanel::Slider::Compute)->setValue(v);
        while (w.whatIf()->isBusy())
            QVERIFY(results.wait(60000));
        QVERIFY(results.size() >= 1 && results.size() < 8);
        const auto last = results.last().first().value<WhatIfController::Result>();
        QVERIFY(last.report.predicted <= r.report.predicted);
        // Save the scenario and the prediction as a run: both land in the project.
        const int computeBefore = w.whatIfPanel()->slider(WhatIfPanel::Slider::Compute)->value();
        QCOMPARE(computeBefore, 16);
        Q_EMIT w.whatIfPanel()->saveRunRequested(QStringLiteral("compute x4"),
                                                 w.whatIfPanel()->transforms());
        QVERIFY(waitLoaded(w));
        // The project reloaded under the panel: its controls stay as the user left them.
        QTRY_VERIFY_WITH_TIMEOUT(w.whatIf()->graph() && !w.whatIf()->isBusy(), 60000);
        QCOMPARE(w.whatIfPanel()->slider(WhatIfPanel::Slider::Compute)->value(), computeBefore);
        // A preset handed to the panel ticks its box rather than joining the custom list.
        QSignalSpy amp(&w, &MainWindow::whatIfShown);
        w.showWhatIf({sim::Transform::amp()});
        QVERIFY(amp.wait(60000));
        QCheckBox *ampBox = nullptr;
        for (auto *box : w.whatIfPanel()->findChildren<QCheckBox *>())
            if (box->text() == QLatin1String("AMP"))
                ampBox = box;
        QVERIFY(ampBox && ampBox->isChecked());
        QCOMPARE(w.whatIfPanel()->transforms().size(), 1);
        // AMP's speed-ups are not known exactly: the summary shows the band and why.
        QTRY_VERIFY_WITH_TIMEOUT(!w.whatIf()->isBusy(), 60000);
        QTRY_VERIFY2(w.whatIfPanel()->summaryLabel()->text().contains(QLatin1String("Band")),
                     qPrintable(w.whatIfPanel()->summaryLabel()->text()));
        QVERIFY(w.whatIfPanel()->summaryLabel()->text().contains(
            QLatin1String("unknown: mixed precision")));
        // A calibration file applies to the replays that follow; a damaged one is named.
        const QString calibration = m_tmp.filePath(QStringLiteral("gemm-x2.json"));
        {
            QFile f(calibration);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"format": "grademl_calibration", "version": 1, "predicted_run": "a",
                        "measured_run": "b", "families": {"gemm": 2.0}, "host": 1.1})");
        }
        results.clear();
        Q_EMIT w.whatIfPanel()->calibrationChosen(calibration);
        QVERIFY(results.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(!w.whatIf()->isBusy(), 60000);
        QVERIFY2(w.whatIfPanel()->summaryLabel()->text().contains(
                     QLatin1String("calibrated from run a against b: gemm x2.000")),
                 qPrintable(w.whatIfPanel()->summaryLabel()->text()));
        // Read off the GUI thread (a pipe may take its time): the message follows.
        Q_EMIT w.whatIfPanel()->calibrationChosen(m_tmp.filePath(QStringLiteral("none.json")));
        QTRY_VERIFY(w.whatIfPanel()->summaryLabel()->text().contains(
            QLatin1String("Cannot load the calibration")));
        Q_EMIT w.whatIfPanel()->calibrationChosen({});
        QTRY_VERIFY_WITH_TIMEOUT(!w.whatIf()->isBusy(), 60000);
        QTRY_VERIFY(!w.whatIfPanel()->summaryLabel()->text().contains(QLatin1String("calibrated")));
        bool saved = false;
        for (const auto &run : w.timeline()->data()->runs)
            saved |= run.name == QLatin1String("compute x4") &&
                     run.kind == QLatin1String("predicted") && run.slices > 0;
        QVERIFY(saved);
    }

    // The Runs dock lists the demo's run with its headline metrics (computed off the GUI
    // thread on first open), filters by KEY=VALUE, and stores a move into a workload.
    void runsBrowserListsFiltersAndGroups()
    {
        MainWindow w;
        showQuietly(w, QSize(1500, 950));
        w.openFolder(m_demo);
        QVERIFY(waitLoaded(w));
        QVERIFY(showRuns(w));
        auto *browser = w.findChild<RunsBrowser *>();
        QVERIFY(browser);
        QCOMPARE(browser->catalog().runs.size(), 1);
        const CatalogRun &run = browser->catalog().runs.front();
        QVERIFY(run.hasMetrics);
        QCOMPARE(run.metric(QStringLiteral("iterations")), 6.0);
        QCOMPARE(browser->visibleRunCount(), 1);
        browser->setFilter(QStringLiteral("kind=simulated"));
        QCOMPARE(browser->visibleRunCount(), 0);
        browser->setFilter(QString());
        QCOMPARE(browser->visibleRunCount(), 1);
        QSignalSpy loaded(runsOf(w), &RunsController::catalogLoaded);
        Q_EMIT browser->moveRequested({run.id}, QStringLiteral("demo experiment"),
                                      QStringLiteral("tiny transformer"));
        QVERIFY(loaded.wait(60000));
        QCOMPARE(browser->catalog().placeOf(browser->catalog().runs.front()),
                 QStringLiteral("demo experiment / tiny transformer"));
        browser->setFilter(QStringLiteral("tiny transformer"));
        QCOMPARE(browser->visibleRunCount(), 1);
    }

    // The demo against its own prediction with GEMMs twice as fast, in the Compare panel: the
    // bars, the trace diff (GEMMs halved, both timelines at the aligned step, the row's slices
    // lit in both), another aligned step, legend toggles, chart export in each format and kind,
    // and runs dragged onto a workload.
    void comparePanelChartsDiffAndExport()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("demo-compare"));
        copyFolder(QStringLiteral(GRADEML_DEMO), folder);
        const QString run = QStringLiteral("demo-compare"); // the folder's run
        MainWindow w;
        showQuietly(w, QSize(1500, 1000));
        w.openFolder(folder);
        QVERIFY(waitLoaded(w));
        const QString project = w.projectPath();
        const auto cli =
            gmltest::runCli({QStringLiteral("whatif"), project, QStringLiteral("--run"), run,
                             QStringLiteral("--scale"), QStringLiteral("gemm=0.5"),
                             QStringLiteral("--save"), QStringLiteral("demo gemm")});
        QVERIFY2(cli.code == 0, cli.err.constData());
        w.openProject(project);
        QVERIFY(waitLoaded(w));
        QVERIFY(showRuns(w));
        QVERIFY(!showCompare(w, {run, QStringLiteral("no such run")}));
        QVERIFY(showCompare(w, {run, QStringLiteral("demo gemm")}));
        auto *panel = w.findChild<ComparePanel *>();
        QVERIFY(panel);
        QCOMPARE(panel->runs().size(), 2);
        QCOMPARE(panel->runs()[1].measuredRun, run);
        // The demo's nvidia-smi log: its counters chart, one line per GPU of the measured run.
        QVERIFY2(!panel->metric().isEmpty(), "no metric to chart");
        const auto charts = panel->charts();
        for (int k = 0; k < 4; ++k)
            QVERIFY2(!charts[size_t(k)]->isEmpty(), qPrintable(charts[size_t(k)]->title()));
        QVERIFY(charts[0]->graphCount() >= 2);
        const QString line = charts[0]->graph(0)->name();
        QVERIFY(charts[0]->isSeriesVisible(line));
        QVERIFY(charts[0]->toggleSeries(line));
        QVERIFY(!charts[0]->isSeriesVisible(line));
        QVERIFY(charts[0]->toggleSeries(line));
        // Iteration bars: the runs' mean iteration times, the prediction hatched.
        charts[1]->resize(500, 300);
        charts[1]->replot();
        const QPoint second(int(charts[1]->xAxis->coordToPixel(2)),
                            int(charts[1]->yAxis->coordToPixel(1)));
        const QString tip = charts[1]->tipAt(second);
        QVERIFY2(tip.contains(QStringLiteral("predicted from '%1'").arg(run)), qPrintable(tip));
        // Each chart kind exports as PNG, SVG (text kept) and PDF.
        for (Chart *c : {charts[0], charts[1]}) {
            for (const QString &ext :
                 {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
                const QString out =
                    m_tmp.filePath(QStringLiteral("chart-%1.%2").arg(quintptr(c)).arg(ext));
                QString error;
                QVERIFY2(c->exportTo(out, &error), qPrintable(error));
                QFile f(out);
                QVERIFY(f.open(QIODevice::ReadOnly));
                const QByteArray bytes = f.readAll();
                if (ext == QLatin1String("png"))
                    QVERIFY(!QImage(out).isNull());
                else if (ext == QLatin1String("svg"))
                    QVERIFY2(bytes.contains("<text") && bytes.contains(c->title().left(8).toUtf8()),
                             qPrintable(c->title()));
                else
                    QVERIFY(bytes.startsWith("%PDF") && bytes.trimmed().endsWith("%%EOF"));
            }
        }

        // The trace diff: six steps aligned by number; on the GPU, only the GEMMs changed, halved.
        TraceDiffView *diff = panel->diffView();
        QVERIFY(diff->diff());
        const sim::TraceDiff &d = *diff->diff();
        QCOMPARE(d.alignment, QStringLiteral("by step number"));
        QCOMPARE(int(d.pairs.size()), 6);
        int gpu = -1;
        for (size_t k = 0; k < d.levels.size(); ++k)
            if (d.levels[k].name == QLatin1String("GPU work"))
                gpu = int(k);
        QVERIFY(gpu >= 0);
        int differs = 0; // the level shown first: the first where the runs differ
        while (size_t(differs) < d.levels.size() &&
               std::all_of(
                   d.levels[size_t(differs)].rows.begin(), d.levels[size_t(differs)].rows.end(),
                   [](const sim::DiffRow &r) { return r.delta() == 0 && r.countDelta() == 0; }))
            ++differs;
        QCOMPARE(diff->levelIndex(), differs);
        diff->setLevel(gpu);
        const sim::DiffRow &top = d.levels[size_t(gpu)].rows.front();
        QVERIFY2(top.name.contains(QStringLiteral("gemm")), qPrintable(top.name));
        QVERIFY(std::abs(top.timeB - top.timeA / 2) <= top.countA); // a ns of rounding per kernel
        QAbstractItemModelTester diffTester(diff->model(),
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(diff->model()->rowCount(), int(d.levels[size_t(gpu)].rows.size()));
        QCOMPARE(diff->model()->index(0, TraceDiffModel::Name).data().toString(), top.name);
        diff->selectRow(0);
        const auto lit = diff->highlightedCounts();
        QVERIFY2(lit.first > 0 && lit.first == lit.second,
                 qPrintable(QStringLiteral("%1 %2").arg(lit.first).arg(lit.second)));
        // Each timeline shows its own run at the first aligned step.
        const auto windowOf = [](TimelineView *v) {
            return std::pair(v->viewport().t0, v->viewport().t1);
        };
        QVERIFY(windowOf(diff->timelineA()).first <= d.pairs[0].startA &&
                windowOf(diff->timelineA()).second >= d.pairs[0].endA);
        QVERIFY(windowOf(diff->timelineB()).first <= d.pairs[0].startB &&
                windowOf(diff->timelineB()).second >= d.pairs[0].endB);
        QVERIFY(windowOf(diff->timelineA()).second - windowOf(diff->timelineA()).first <
                2 * d.pairs[0].lengthA());
        // Validation: the predicted run against the measured one, here the run it was
        // predicted from (the note says so): GEMM time halved, -50.0%.
        ValidationView *validation = panel->validationView();
        ValidationModel *table = validation->model();
        QAbstractItemModelTester tester(table,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(table->rowCount() >= 2); // times, kernel families
        const QModelIndex times = table->index(0, 0);
        QCOMPARE(times.data().toString(), QStringLiteral("Times"));
        QVERIFY(table->rowCount(times) > 3); // end to end, mean, median, p90
        QCOMPARE(table->index(0, ValidationModel::What, times).data().toString(),
                 QStringLiteral("end to end"));
        QModelIndex gemm;
        for (int s = 0; s < table->rowCount(); ++s)
            for (int r = 0; r < table->rowCount(table->index(s, 0)); ++r)
                if (table->index(r, 0, table->index(s, 0)).data().toString() ==
                    QLatin1String("gemm"))
                    gemm = table->index(r, ValidationModel::Error, table->index(s, 0));
        QVERIFY(gemm.isValid());
        QCOMPARE(gemm.data().toString(), QStringLiteral("-50.0%"));
        QVERIFY(validation->findChild<QLabel *>()->text().contains(
            QLatin1String("the run it was predicted from")));
        // Another step: diffed again from the kept graphs.
        QSignalSpy compared(compareOf(w), &CompareController::compared);
        Q_EMIT diff->pairRequested(3);
        QVERIFY(compared.wait(60000));
        QCOMPARE(diff->diff()->chosenPair, 3);
        QVERIFY(diff->timelineB()->viewport().t0 <= d.pairs[3].startB &&
                diff->timelineB()->viewport().t1 >= d.pairs[3].endB);
        // Two ranks of one run: the demo's rank 0 against its rank 1.
        const QStringList sides = diff->sideLabels();
        const int rank0 = int(sides.indexOf(run + QStringLiteral(" \u00b7 rank 0")));
        const int rank1 = int(sides.indexOf(run + QStringLiteral(" \u00b7 rank 1")));
        QVERIFY2(rank0 >= 2 && rank1 > rank0, qPrintable(sides.join(QStringLiteral(", "))));
        // Another metric picked while that diff runs: both arrive.
        compared.clear();
        Q_EMIT diff->sidesRequested(rank0, rank1);
        const QString other = panel->metric() == QLatin1String("power")
                                  ? QStringLiteral("memory used")
                                  : QStringLiteral("power");
        panel->setMetric(other);
        QTRY_VERIFY_WITH_TIMEOUT(!compareOf(w)->isBusy(), 60000);
        QCOMPARE(charts[0]->title(), other);
        QCOMPARE(diff->diff()->a.run, run);
        QCOMPARE(diff->diff()->b.run, run);
        QCOMPARE(diff->diff()->a.rank, 0);
        QCOMPARE(diff->diff()->b.rank, 1);

        // Runs dragged onto a workload move there.
        auto *browser = w.findChild<RunsBrowser *>();
        QSignalSpy moved(browser, &RunsBrowser::moveRequested);
        QSignalSpy loaded(runsOf(w), &RunsController::catalogLoaded);
        Q_EMIT browser->moveRequested({browser->catalog().run(run)->id}, QString(),
                                      QStringLiteral("tiny"));
        QVERIFY(loaded.wait(60000));
        moved.clear();
        auto *model = browser->tree()->model();
        QModelIndex workload, gemmRun;
        for (int i = 0; i < model->rowCount(); ++i) {
            const QModelIndex top = model->index(i, 0);
            if (top.data().toString().startsWith(QLatin1String("tiny")))
                workload = top;
            for (int j = 0; j < model->rowCount(top); ++j)
                if (model->index(j, 0, top).data().toString() == QLatin1String("demo gemm"))
                    gemmRun = model->index(j, 0, top);
        }
        QVERIFY(workload.isValid() && gemmRun.isValid());
        QVERIFY(model->flags(gemmRun) & Qt::ItemIsDragEnabled);
        std::unique_ptr<QMimeData> mime(model->mimeData({gemmRun}));
        QVERIFY(mime);
        QVERIFY(model->canDropMimeData(mime.get(), Qt::CopyAction, -1, -1, workload));
        QVERIFY(!model->canDropMimeData(mime.get(), Qt::CopyAction, -1, -1, QModelIndex()));
        model->dropMimeData(mime.get(), Qt::CopyAction, -1, -1, workload);
        QCOMPARE(moved.size(), 1);
        QCOMPARE(moved.first().at(2).toString(), QStringLiteral("tiny"));
        QVERIFY(loaded.wait(60000));
        const RunCatalog &c = browser->catalog();
        QCOMPARE(c.run(QStringLiteral("demo gemm"))->workloadId, c.run(run)->workloadId);
    }

    void simulatePanelSweepsSavesAndCancels()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("demo-simulate"));
        copyFolder(QStringLiteral(GRADEML_DEMO), folder);
        const QString measured = QStringLiteral("demo-simulate"); // the folder's run
        MainWindow w;
        showQuietly(w, QSize(1500, 1000));
        w.openFolder(folder);
        QVERIFY(waitLoaded(w));
        QVERIFY(showSimulate(w));
        auto *panel = w.findChild<SimulatePanel *>();
        QVERIFY(panel);
        QVERIFY(panel->points().isEmpty());

        // A bad sweep is refused by the form, saying what it expected.
        auto *sweep = panel->findChild<QLineEdit *>(QStringLiteral("sweepWorkers"));
        QVERIFY(sweep);
        sweep->setText(QStringLiteral("1,2,x"));
        QString error;
        QVERIFY(!panel->request(&error));
        QVERIFY2(error.contains(QStringLiteral("Sweep workers")) &&
                     error.contains(QStringLiteral("'1,2,x'")),
                 qPrintable(error));
        SimulatePanel::Request req;
        req.model = QStringLiteral("resnet50");
        req.cluster = QStringLiteral("dgx1");
        req.base.strategy = sim::Strategy::MultiWorker;
        req.base.batch = 32;
        req.base.iterations = 3;
        req.base.syntheticData = true;
        req.sweepWorkers = {1, 2, 4};
        panel->setRequest(req);
        const auto asked = panel->request(&error);
        QVERIFY2(asked, qPrintable(error));
        QCOMPARE(asked->sweepWorkers, (QList<int>{1, 2, 4}));
        QCOMPARE(asked->model, QStringLiteral("resnet50"));
        QCOMPARE(asked->base.strategy, sim::Strategy::MultiWorker);
        QCOMPARE(asked->configurations(), 3);

        // A sweep of three: off the GUI thread, then saved through the import path.
        QSignalSpy finished(simulateOf(w), &SimulateController::finished);
        simulateOf(w)->simulate();
        QVERIFY(simulateOf(w)->isBusy());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().at(0).toInt(), 3);
        QVERIFY2(finished.first().at(1).toString().isEmpty(),
                 qPrintable(finished.first().at(1).toString()));
        QVERIFY(waitLoaded(w)); // the runs written, the project reloaded
        QVERIFY(showSimulate(w));
        QTRY_VERIFY_WITH_TIMEOUT(
            panel->message().contains(QStringLiteral("Saved 3 simulated runs")), 30000);
        QCOMPARE(panel->points().size(), 3);
        QVERIFY(!panel->showsAllRuns());
        QAbstractItemModelTester sweepTester(
            panel->sweepModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel->sweepModel()->rowCount(), 3);
        for (int r = 0; r < 3; ++r)
            QCOMPARE(panel->sweepModel()->rowData(panel->sweepModel()->index(r, 0)).toString(),
                     panel->points()[r].run);
        {
            auto project = Project::open(w.projectPath(), Project::Mode::ReadOnly, nullptr);
            QCOMPARE(gmltest::scalar(*project, "SELECT count(*) FROM run WHERE kind = 'simulated'"),
                     qint64(3));
            for (const SweepPoint &p : panel->points())
                QCOMPARE(
                    gmltest::scalar(
                        *project,
                        QStringLiteral(
                            "SELECT count(*) FROM run WHERE kind = 'simulated' AND name = '%1'")
                            .arg(p.run)
                            .toUtf8()
                            .constData()),
                    qint64(1));
        }
        int simulatedRuns = 0;
        for (const auto &r : w.timeline()->data()->runs)
            simulatedRuns += r.kind == QLatin1String("simulated");
        QCOMPARE(simulatedRuns, 3);
        // The speedup chart: the sweep's line through 1, 2 and 4 workers (never above linear),
        // and the ideal line.
        const auto charts = panel->charts();
        for (Chart *c : charts)
            QVERIFY2(!c->isEmpty(), qPrintable(c->title()));
        QCOMPARE(charts[0]->graphCount(), 2);
        const auto *line = charts[0]->graph(0)->data().data();
        QCOMPARE(line->size(), 3);
        for (auto it = line->constBegin(); it != line->constEnd(); ++it)
            QVERIFY2(it->value > 0 && it->value <= it->key * 1.0001,
                     qPrintable(QStringLiteral("%1 at %2").arg(it->value).arg(it->key)));
        QCOMPARE(line->constBegin()->value, 1.0);
        charts[0]->resize(600, 360);
        charts[0]->replot();
        const QString tip = charts[0]->tipAt(
            QPoint(int(charts[0]->xAxis->coordToPixel(2)), int(charts[0]->yAxis->coordToPixel(2))));
        QVERIFY2(tip.contains(QStringLiteral("<b>2 workers")) &&
                     tip.contains(QStringLiteral("ideal (linear): 2")),
                 qPrintable(tip));
        // The four charts export as one figure (the panel's Export Charts), and the CLI draws them
        // too.
        const QString png = m_tmp.filePath(QStringLiteral("sweep.png"));
        QVERIFY2(exportCharts(charts, 2, QSize(1200, 800), png, panel->chartsTitle(), &error),
                 qPrintable(error));
        QCOMPARE(QImage(png).size(), QSize(1200, 800));
        const QString svg = m_tmp.filePath(QStringLiteral("sweep.svg"));
        const auto cli =
            gmltest::runCli({QStringLiteral("export"), w.projectPath(), QStringLiteral("--view"),
                             QStringLiteral("simulate"), QStringLiteral("--out"), svg});
        QVERIFY2(cli.code == 0, cli.err.constData());
        QVERIFY(cli.out.contains("3 simulated runs, 1 lines"));
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        QVERIFY(svgFile.readAll().contains("Speedup over one worker"));

        // The measured run's layer graph on one GPU of the DGX-1, under a name of its own.
        req = {};
        req.fromRun = measured;
        req.cluster = QStringLiteral("dgx1");
        req.base.iterations = 3;
        req.base.syntheticData = true;
        req.name = QStringLiteral("demo on a V100");
        panel->setRequest(req);
        finished.clear();
        simulateOf(w)->simulate();
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().at(0).toInt(), 1);
        QVERIFY(waitLoaded(w));
        QVERIFY(showSimulate(w));
        QCOMPARE(panel->points().size(), 1);
        QCOMPARE(panel->points().front().run, QStringLiteral("demo on a V100"));
        QCOMPARE(panel->points().front().config.value(QStringLiteral("from_run")).toString(),
                 measured);
        // Every simulated run of the project: the sweep's three and this one.
        panel->setShowAllRuns(true);
        Q_EMIT panel->showAllRunsChanged(true);
        QCOMPARE(panel->points().size(), 4);

        // A cluster file that is not JSON: a clear error naming it, nothing saved.
        const QString bad = m_tmp.filePath(QStringLiteral("bad-cluster.json"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"nodes\": 2,");
        }
        req = {};
        req.model = QStringLiteral("alexnet");
        req.cluster = bad;
        panel->setRequest(req);
        finished.clear();
        simulateOf(w)->simulate();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).toInt(), 0);
        QVERIFY2(finished.first().at(1).toString().contains(QStringLiteral("bad-cluster.json")),
                 qPrintable(finished.first().at(1).toString()));
        QVERIFY(panel->message().contains(QStringLiteral("bad-cluster.json")));

        // Cancel: a long sweep stops after the configurations already running; the window
        // answers meanwhile, and what finished is kept.
        req = {};
        req.model = QStringLiteral("vgg16");
        req.cluster = QStringLiteral("12x4-v100-edr");
        req.base.strategy = sim::Strategy::ParameterServer;
        req.base.iterations = 20;
        req.sweepWorkers = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 32, 40, 48};
        req.sweepBatches = {16, 32, 64};
        panel->setRequest(req);
        finished.clear();
        simulateOf(w)->simulate();
        QVERIFY(simulateOf(w)->isBusy());
        QCoreApplication::processEvents();
        simulateOf(w)->cancel();
        QVERIFY(finished.wait(120000));
        QVERIFY2(panel->message().startsWith(QStringLiteral("Cancelled: ")),
                 qPrintable(panel->message()));
        QVERIFY(finished.first().at(0).toInt() < 60);
        QVERIFY(!simulateOf(w)->isBusy());
        if (finished.first().at(0).toInt() > 0)
            QVERIFY(waitLoaded(w));
    }

    void analysisPanelRanksFindingsAndLinksThem()
    {
        MainWindow w;
        showQuietly(w, QSize(1500, 950));
        w.openFolder(m_demo);
        QVERIFY(waitLoaded(w));
        auto *panel = w.findChild<AnalysisPanel *>();
        QVERIFY(panel);
        // Off the GUI thread: the event loop keeps turning while the run is analysed.
        int ticks = 0;
        QTimer tick;
        connect(&tick, &QTimer::timeout, [&] { ++ticks; });
        tick.start(0);
        QSignalSpy ready(analysisOf(w), &AnalysisController::reportReady);
        QVERIFY(w.showView(QStringLiteral("analysis")));
        QCOMPARE(w.frontView(), QStringLiteral("analysis"));
        analysisOf(w)->setVisible(true);
        QVERIFY(analysisOf(w)->isBusy());
        QVERIFY(ready.wait(120000));
        QVERIFY(ticks > 0);
        QVERIFY2(ready.first().at(1).toString().isEmpty(),
                 qPrintable(ready.first().at(1).toString()));
        const sim::RunReport *report = panel->report();
        QVERIFY(report);
        // The demo loads each batch for 15-30 ms on the training thread: input-bound first.
        QVERIFY(!report->findings.empty());
        const sim::Finding &top = report->findings.front();
        QCOMPARE(top.rule, QStringLiteral("input-bound"));
        QVERIFY(top.priced && top.gain() > 0.3);
        QCOMPARE(panel->selectedFinding(), 0);
        QAbstractItemModelTester findingsTester(
            panel->findingsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel->findingsModel()->rowCount(), int(report->findings.size()));
        QCOMPARE(panel->findingsModel()->index(0, FindingsModel::Finding).data().toString(),
                 top.title);
        if (report->findings.size() > 1) {
            panel->selectFinding(1);
            QCOMPARE(panel->selectedFinding(), 1);
            panel->selectFinding(0);
        }
        // The charts have the breakdowns; the tooltip over the first iteration's bar says so.
        const auto charts = panel->charts();
        QVERIFY(!charts[0]->isEmpty() && !charts[1]->isEmpty() && !charts[2]->isEmpty() &&
                !charts[3]->isEmpty());
        charts[0]->resize(600, 300);
        charts[0]->replot();
        const QPoint bar(int(charts[0]->xAxis->coordToPixel(1)),
                         int(charts[0]->yAxis->coordToPixel(1)));
        QVERIFY2(charts[0]->tipAt(bar).contains(QLatin1String("compute")),
                 qPrintable(charts[0]->tipAt(bar)));
        // A click on the evidence selects its range in the timeline and reveals its slice.
        QVERIFY(!top.evidence.empty());
        const sim::Evidence e = top.evidence.front();
        QAbstractItemModelTester evidenceTester(
            panel->evidenceModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel->evidenceModel()->rowCount(), int(top.evidence.size()));
        auto *evidenceList = panel->findChild<QListView *>(QStringLiteral("evidence"));
        QVERIFY(evidenceList && evidenceList->model() == panel->evidenceModel());
        QSignalSpy activated(panel, &AnalysisPanel::evidenceActivated);
        Q_EMIT evidenceList->clicked(panel->evidenceModel()->index(0, 0));
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().at(0).value<sim::Evidence>().slice, e.slice);
        QCOMPARE(w.state()->selectionStart(), e.start);
        QCOMPARE(w.state()->selectionEnd(), e.end);
        QVERIFY(w.state()->windowStart() <= e.start && w.state()->windowEnd() >= e.end);
        QCOMPARE(w.state()->selectedSlice(), e.slice);
        QCOMPARE(w.frontView(), QStringLiteral("timeline")); // shown where it was asked to be
        // The Ranks page: the demo's two ranks in the heat map and the load table, its
        // collectives' stragglers; a straggler clicked is shown in the timeline, its rank's GPU
        // row at the top.
        auto *ranks = panel->ranksView();
        QCOMPARE(ranks->heatMap()->rankCount(), 2);
        QVERIFY(ranks->heatMap()->iterationCount() >= 5);
        QAbstractItemModelTester loadTester(ranks->rankLoads(),
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester stragglerTester(
            ranks->stragglers(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(ranks->rankLoads()->rowCount(), 2);
        QVERIFY(ranks->stragglers()->rowCount() > 0);
        QVERIFY(w.showView(QStringLiteral("ranks")));
        // The latest first: the top row shown is the straggler that arrived latest.
        const QModelIndex latest = ranks->stragglerTable()->sourceRow(0);
        for (const sim::Straggler &s : ranks->stragglers()->stragglers())
            QVERIFY(s.late() <= ranks->stragglers()->stragglerAt(latest)->late());
        Q_EMIT ranks->stragglerTable()->rowClicked(latest);
        QCOMPARE(w.frontView(), QStringLiteral("timeline"));
        QVERIFY(w.state()->hasSelection());
        const int lastRank = ranks->stragglers()->stragglerAt(latest)->lastRank;
        // That rank's GPU row is on screen (at the top, unless the rows end before).
        bool onScreen = false;
        const int y0 = w.timeline()->scrollY(),
                  y1 = y0 + w.timeline()->height() - w.timeline()->painter().rowsTop();
        for (const auto &row : w.timeline()->layout().rows())
            if (row.kind == TrackKind::Gpu &&
                w.timeline()->data()->track(row.track)->rank == lastRank)
                onScreen = row.y >= y0 && row.y < y1;
        QVERIFY(onScreen);
        // "Try it" replays the finding's transform in the What-if panel.
        QSignalSpy shown(&w, &MainWindow::whatIfShown);
        Q_EMIT panel->tryRequested(top.fix);
        QVERIFY(shown.wait(60000));
        QVERIFY(shown.first().first().toBool());
        bool hasInput = false;
        for (const auto &t : w.whatIfPanel()->transforms())
            hasInput |= t.is("input") && t.factor == 0;
        QVERIFY(hasInput);
        // The charts export as the CLI writes them.
        const QString png = m_tmp.filePath(QStringLiteral("analysis.png"));
        QString error;
        QVERIFY2(exportCharts(charts, 2, QSize(1200, 700), png, QStringLiteral("demo"), &error),
                 qPrintable(error));
        QCOMPARE(QImage(png).size(), QSize(1200, 700));
    }

    void importRunsOffTheGuiThreadAndCancels()
    {
        // A generated trace big enough to take a while: the event loop keeps turning meanwhile.
        const QString big = m_tmp.filePath(QStringLiteral("big"));
        QDir().mkpath(big);
        const auto gen = gmltest::runProgram(QStringLiteral(GRADEML_TRACEGEN),
                                             {QStringLiteral("--out"), big,
                                              QStringLiteral("--ranks"), QStringLiteral("1"),
                                              QStringLiteral("--steps"), QStringLiteral("60"),
                                              QStringLiteral("--layers"), QStringLiteral("24")});
        QVERIFY(gen.finished);
        QCOMPARE(gen.code, 0);
        MainWindow w;
        w.setInteractive(false);
        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, [&] { ++ticks; });
        timer.start(5);
        w.openFolder(big);
        QVERIFY(w.isBusy());
        QVERIFY(waitLoaded(w));
        QVERIFY2(ticks >= 2, qPrintable(QString::number(ticks)));

        // Cancel right away on a fresh copy: nothing half-written, the project still opens.
        const QString big2 = m_tmp.filePath(QStringLiteral("big2"));
        copyFolder(big, big2);
        MainWindow w2;
        w2.setInteractive(false);
        QSignalSpy spy(&w2, &MainWindow::loaded);
        w2.openFolder(big2);
        QTest::qWait(1);
        QMetaObject::invokeMethod(
            &w2, [&] { w2.close(); }, Qt::QueuedConnection);
        QVERIFY(spy.wait(60000) || !w2.isBusy());
        const QString path = big2 + QStringLiteral("/.grademl/project.grademl");
        if (QFileInfo::exists(path)) {
            QString error;
            auto project = Project::open(path, Project::Mode::ReadOnly, &error);
            QVERIFY2(project, qPrintable(error));
            QVERIFY(gmltest::scalar(*project,
                                    "SELECT count(*) FROM source WHERE status='failed'") == 0);
        }
    }

    void keyboardMouseSelectionAndAggregate()
    {
        MainWindow w;
        showQuietly(w, QSize(1400, 900));
        w.openFolder(m_demo);
        QVERIFY(waitLoaded(w));
        TimelineView *tv = w.timeline();
        TimelineState *st = w.state();
        const TimeNs full = st->windowDuration();
        tv->setFocus();
        QTest::keyClick(tv, Qt::Key_W);
        QVERIFY(st->windowDuration() < full);
        const TimeNs zoomed = st->windowDuration();
        const TimeNs start = st->windowStart();
        QTest::keyClick(tv, Qt::Key_D);
        QVERIFY(st->windowStart() > start);
        QCOMPARE(st->windowDuration(), zoomed);
        QTest::keyClick(tv, Qt::Key_A);
        QTest::keyClick(tv, Qt::Key_S);
        QVERIFY(st->windowDuration() > zoomed);
        QTest::keyClick(tv, Qt::Key_0);
        QCOMPARE(st->windowDuration(), full);

        // Click the first ProfilerStep of rank 0: it is selected and the details name it.
        QVERIFY(tv->data());
        const auto &data = *tv->data();
        const auto &layout = tv->layout();
        int threadRow = -1;
        for (size_t i = 0; i < layout.rows().size(); ++i)
            if (layout.rows()[i].type == TimelineRow::Type::Track &&
                layout.rows()[i].kind == TrackKind::Thread) {
                threadRow = int(i);
                break;
            }
        QVERIFY(threadRow >= 0);
        const auto &row = layout.rows()[size_t(threadRow)];
        QVERIFY(tv->painter().waitForPages(tv->viewport())); // what the rows show is read
        const auto track = data.shown(row.track);
        QVERIFY(track);
        const size_t step = track->depthBegin(0);
        const QRectF r = tv->painter().sliceRect(tv->viewport(), row.track, step);
        QTest::mouseClick(tv, Qt::LeftButton, {}, r.center().toPoint());
        QCOMPARE(st->selectedSlice(), track->id(step));
        QVERIFY2(w.details()->plainText().contains(data.name(track->nameId(step))),
                 qPrintable(w.details()->plainText()));
        QVERIFY(w.details()->plainText().contains(QStringLiteral("Self time")));
        // F zooms to it, Esc clears.
        QTest::keyClick(tv, Qt::Key_F);
        QVERIFY(st->windowDuration() < full);
        QTest::keyClick(tv, Qt::Key_Escape);
        QVERIFY(!st->hasSelectedSlice());
        QTest::keyClick(tv, Qt::Key_0);

        // Drag on the ruler: a range, and the aggregate table fills.
        const int rulerY = tv->painter().metrics().overviewHeight + 8;
        const int x0 = tv->painter().metrics().labelWidth + 50, x1 = x0 + 400;
        QTest::mousePress(tv, Qt::LeftButton, {}, QPoint(x0, rulerY));
        QMouseEvent move(QEvent::MouseMove, QPointF(x1, rulerY),
                         tv->mapToGlobal(QPointF(x1, rulerY)), Qt::NoButton, Qt::LeftButton,
                         Qt::NoModifier);
        QApplication::sendEvent(tv, &move);
        QTest::mouseRelease(tv, Qt::LeftButton, {}, QPoint(x1, rulerY));
        QVERIFY(st->hasSelection());
        QTRY_VERIFY(w.aggregate()->rowCount() > 3);

        // Find walks the matches in time order and selects each.
        w.find(QStringLiteral("ProfilerStep"), false);
        w.waitForSearch();
        QCOMPARE(w.findMatchCount(), 12);
        const TimeNs first = st->selectedSliceStart();
        w.find(QStringLiteral("ProfilerStep"), false);
        QVERIFY(st->selectedSliceStart() >= first);
        QCOMPARE(w.findCurrent(), 1);
        w.find(QStringLiteral("ProfilerStep"), false, true);
        QCOMPARE(w.findCurrent(), 0);
    }

    // A track of 20,000 slices is paged (issue 34): it paints from its summaries, and find,
    // selection, details and the range aggregate still see every slice.
    void pagedTrackFindsSelectsAndAggregates()
    {
        const QString job = gmltest::generateJob(m_tmp, 1, 400);
        MainWindow w;
        showQuietly(w, QSize(1400, 900));
        w.openFolder(job);
        QVERIFY(waitLoaded(w));
        TimelineView *tv = w.timeline();
        TimelineState *st = w.state();
        const auto data = tv->data();
        QVERIFY(data && data->pager);
        QString error;
        auto project = Project::open(data->projectPath, Project::Mode::ReadOnly, &error);
        QVERIFY2(project, qPrintable(error));
        const TrackId thread = gmltest::scalar(
            *project, "SELECT id FROM track WHERE name LIKE '%main thread' LIMIT 1");
        QVERIFY(data->pager->has(thread) && !data->slices.contains(thread));
        QCOMPARE(data->depthCount(thread),
                 int(gmltest::scalar(
                     *project, "SELECT max_depth + 1 FROM track WHERE name LIKE '%main thread'")));
        tv->waitForPages();
        QVERIFY(tv->painter().complete());
        QVERIFY(data->pager->shown(thread) &&
                data->pager->shown(thread)->size() < 20000); // a summary

        // Find sees every step, and the first is selected with its details.
        w.find(QStringLiteral("ProfilerStep"), false);
        w.waitForSearch();
        QCOMPARE(qint64(w.findMatchCount()),
                 gmltest::scalar(*project,
                                 "SELECT count(*) FROM slice_abs WHERE name LIKE 'ProfilerStep%'"));
        QVERIFY(st->hasSelectedSlice());
        QVERIFY2(w.details()->plainText().contains(QStringLiteral("ProfilerStep")),
                 qPrintable(w.details()->plainText()));
        QVERIFY(w.details()->plainText().contains(QStringLiteral("Self time")));
        // The step's self time was read off the GUI thread, and has arrived.
        QVERIFY2(!w.details()->plainText().contains(QStringLiteral("computing")),
                 qPrintable(w.details()->plainText()));

        // Zoomed to the step, the rows are the slices themselves: a click on it selects it.
        const SliceId step = st->selectedSlice();
        const TimeNs stepStart = st->selectedSliceStart();
        st->zoomToSelection();
        tv->waitForPages();
        const auto shown = data->pager->shown(thread);
        QVERIFY(shown);
        const qint64 index = shown->find(step, stepStart);
        QVERIFY(index >= 0);
        st->clearSelectedSlice();
        const QRectF r = tv->painter().sliceRect(tv->viewport(), thread, size_t(index));
        QVERIFY(!r.isEmpty());
        QTest::mouseClick(tv, Qt::LeftButton, {}, r.center().toPoint());
        QCOMPARE(st->selectedSlice(), step);

        // The range aggregate counts every slice overlapping the range, paged or not.
        const TimeNs t0 = data->start + (data->end - data->start) / 4,
                     t1 = data->start + (data->end - data->start) / 2;
        st->setSelection(t0, t1);
        QTRY_VERIFY(w.aggregate()->rowCount() > 3);
        qint64 counted = 0;
        for (int i = 0; i < w.aggregate()->rowCount(); ++i)
            counted +=
                w.aggregate()->index(i, AggregateModel::Count).data(Qt::UserRole).toLongLong();
        const QString sql = QStringLiteral("SELECT count(*) FROM slice_abs WHERE ts < %1 AND (ts + "
                                           "dur > %2 OR (dur = 0 AND ts >= %2))")
                                .arg(t1)
                                .arg(t0);
        QCOMPARE(counted, qint64(gmltest::text(*project, sql).toLongLong()));
    }

    // A multi-rank run opens with its rank overview above the timeline: a lane per GPU, lined
    // up with the timeline's columns; a click expands that rank's GPU streams in place (pinned
    // under the overview) with the cursor at the time clicked, a double-click opens its GPU row
    // in the track tree; Slowest picks the lane with the most own work. A one-rank project
    // shows none.
    // The Collectives pane (issue 72): a generated 6-rank job's all-reduces, one per step,
    // each on all 6 ranks; a click selects it on every rank in the timeline, in view.
    void collectivesPaneSelectsACollectiveOnEveryRank()
    {
        const QString job = gmltest::generateJob(m_tmp, 6, 5);
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.openFolder(job);
        QVERIFY(waitLoaded(w));
        QVERIFY(w.showPage(QStringLiteral("collectives")));
        auto *c = w.controllerOf<CollectivesController>(QStringLiteral("collectives"));
        QVERIFY(c);
        c->waitForIdle();
        const CollectiveReport *report = c->view()->report();
        QVERIFY2(report, qPrintable(c->view()->summary()));
        QCOMPARE(int(report->collectives.size()), 5);
        QCOMPARE(int(report->ranks.size()), 6);
        QVERIFY(c->view()->summary().contains(QLatin1String("5 collectives on 6 ranks")));
        QCOMPARE(c->view()->collectivesModel()->rowCount(), 1); // one kind: the all-reduce
        QAbstractItemModelTester tester(c->view()->collectivesModel());
        const QModelIndex kind = c->view()->collectivesModel()->index(0, 0);
        QCOMPARE(c->view()->collectivesModel()->rowCount(kind), 5);
        c->selectCollective(2);
        const auto &lit = w.timeline()->highlighted();
        QCOMPARE(int(lit.size()), 6);
        const Collective &third = report->collectives[2];
        for (const SliceRef &s : lit)
            QVERIFY(std::any_of(third.members.begin(), third.members.end(),
                                [&](const CollectiveMember &m) { return m.slice == s.id; }));
        // In view: the timeline shows the collective's span, its last arrival selected.
        QVERIFY(w.state()->hasSelection());
        QCOMPARE(w.state()->selectionEnd() - w.state()->selectionStart(),
                 third.duration() + 2 * std::max<TimeNs>(1'000, third.duration() / 10));
        QVERIFY(w.state()->hasSelectedSlice());
        const auto lastMember =
            std::find_if(third.members.begin(), third.members.end(),
                         [&](const CollectiveMember &m) { return m.rank == third.lastRank(); });
        QCOMPARE(w.state()->selectedSlice(), lastMember->slice);
        w.timeline()->waitForPages();
        QCoreApplication::processEvents();
        QDir().mkpath(QStringLiteral("screenshots")); // for a person to look at
        w.grab().save(QStringLiteral("screenshots/collectives.png"));
    }

    void rankOverviewShowsEveryRankAndOpensOne()
    {
        const QString job = gmltest::generateJob(m_tmp, 6, 5);
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.openFolder(job);
        QVERIFY(waitLoaded(w));
        w.rankOverview()->waitForIdle();
        RankOverviewView *view = w.rankView();
        QVERIFY(view->isVisible());
        QVERIFY(view->overview());
        QCOMPARE(int(view->overview()->lanes.size()), 6);
        QCOMPARE(w.rankOverview()->run(), QStringLiteral("job"));
        // Every lane has its own row (6 lanes fit), top to bottom by rank.
        const auto layout = RankOverviewPainter::layout(
            QRect(0, 0, view->width() - w.timeline()->scrollBarWidth(), view->height()),
            w.timeline()->painter().metrics().labelWidth, 6);
        QVERIFY2(view->height() >= 100, qPrintable(QString::number(view->height())));
        QCOMPARE(layout.rows, 6);
        QCOMPARE(layout.lanes.left(), w.timeline()->painter().metrics().labelWidth);
        // Rank 4's lane, a third of the way in.
        const int x = layout.lanes.left() + layout.lanes.width() / 3;
        const QPoint at(x, layout.rowTop(4) + 2);
        QCOMPARE(view->laneAt(at), 4);
        const TimeNs when = view->timeAt(x);
        // A click expands the rank in place: its GPU streams pinned under the overview, the
        // rows below not scrolled.
        const int scrolledBefore = w.timeline()->scrollY();
        QTest::mouseClick(view, Qt::LeftButton, {}, at);
        QCOMPARE(view->highlighted(), 4);
        QCOMPARE(w.rankOverview()->expandedLane(), 4);
        const QList<TrackId> streams = w.rankOverview()->streamsOf(4);
        QVERIFY(!streams.isEmpty());
        QCOMPARE(int(w.timeline()->layout().pinnedCount()), int(streams.size()));
        for (TrackId s : streams) {
            const auto *info = w.timeline()->data()->track(s);
            QVERIFY(info && info->rank == 4 && info->kind == TrackKind::Stream && info->slices > 0);
            QVERIFY(
                w.timeline()->layout().rows()[size_t(w.timeline()->layout().rowOfTrack(s))].pinned);
        }
        QCOMPARE(w.timeline()->scrollY(), scrolledBefore);
        QDir().mkpath(QStringLiteral("screenshots")); // for a person to look at
        w.grab().save(QStringLiteral("screenshots/rank-expanded.png"));
        QVERIFY(w.state()->hasCursor());
        QCOMPARE(w.state()->cursor(), when);
        // Another lane swaps them; a second click folds them away.
        const QPoint at2(x, layout.rowTop(2) + 2);
        QTest::mouseClick(view, Qt::LeftButton, {}, at2);
        QCOMPARE(view->highlighted(), 2);
        QCOMPARE(int(w.timeline()->layout().pinnedCount()),
                 int(w.rankOverview()->streamsOf(2).size()));
        QVERIFY(!w.timeline()
                     ->layout()
                     .rows()[size_t(w.timeline()->layout().rowOfTrack(streams.front()))]
                     .pinned);
        QTest::mouseClick(view, Qt::LeftButton, {}, at2);
        QCOMPARE(view->highlighted(), -1);
        QCOMPARE(int(w.timeline()->layout().pinnedCount()), 0);
        // A double-click opens the rank's GPU row in the track tree, scrolled into view.
        QTest::mouseDClick(view, Qt::LeftButton, {}, at);
        const TrackId track = w.rankOverview()->trackOf(4);
        QVERIFY(track);
        const auto *info = w.timeline()->data()->track(track);
        QVERIFY(info && info->rank == 4 && info->kind == TrackKind::Gpu);
        const int row = w.timeline()->layout().rowOfTrack(track);
        QVERIFY(row >= 0);
        // Scrolled to the top, or as far as the rows below it allow: in view.
        const int rowY =
            w.timeline()->layout().rows()[size_t(row)].y - w.timeline()->viewport().scrollY;
        QVERIFY2(rowY >= 0 && rowY < w.timeline()->height() -
                                         w.timeline()->painter().metrics().headerHeight() - 20,
                 qPrintable(QString::number(rowY)));
        // A collapsed rank opens.
        w.timeline()->setCollapsed(track, true);
        QTest::mouseDClick(view, Qt::LeftButton, {}, at);
        QVERIFY(!w.timeline()
                     ->layout()
                     .rows()[size_t(w.timeline()->layout().rowOfTrack(track))]
                     .hasChildren ||
                w.timeline()
                    ->layout()
                    .rows()[size_t(w.timeline()->layout().rowOfTrack(track))]
                    .expanded);
        // Slowest: before an analysis, the lane that waited least in communication.
        QToolButton *slowest = nullptr, *stragglers = nullptr;
        for (auto *b : view->findChildren<QToolButton *>()) {
            if (b->text() == QLatin1String("Slowest"))
                slowest = b;
            if (b->text() == QLatin1String("Mark Stragglers"))
                stragglers = b;
        }
        QVERIFY(slowest && stragglers);
        slowest->click();
        QCOMPARE(view->highlighted(), view->overview()->byHoldUp().front());
        // Mark Stragglers: the run is analysed in the background (the Analysis view stays
        // behind) and each collective's last rank gets a mark.
        QSignalSpy analysed(analysisOf(w), &AnalysisController::reportReady);
        stragglers->click();
        QVERIFY(analysed.wait(120000));
        QCOMPARE(w.frontView(), QStringLiteral("timeline"));
        QVERIFY(view->markCount() > 0);
        QVERIFY(stragglers->text().contains(QLatin1String("marked")));
        // Hovering says which rank and what it did there.
        QSignalSpy hover(view, &RankOverviewView::hoverTextChanged);
        QTest::mouseMove(view, at);
        QVERIFY(!hover.isEmpty());
        QVERIFY2(hover.last().first().toString().startsWith(QStringLiteral("rank 4 · GPU")),
                 qPrintable(hover.last().first().toString()));

        // Summaries of an older program are made again once, and kept.
        const QString projectPath = w.timeline()->data()->projectPath;
        {
            QString error;
            auto p = Project::open(projectPath, Project::Mode::ReadWrite, &error);
            QVERIFY2(p, qPrintable(error));
            QVERIFY(p->db().exec("UPDATE source_summary SET version = version - 1"));
        }
        MainWindow again;
        showQuietly(again, QSize(1366, 768));
        again.openProject(projectPath);
        QVERIFY(waitLoaded(again));
        again.rankOverview()->waitForIdle();
        QCOMPARE(int(again.rankView()->overview()->lanes.size()), 6);
        {
            QString error;
            auto p = Project::open(projectPath, Project::Mode::ReadOnly, &error);
            QVERIFY2(p, qPrintable(error));
            const QByteArray current =
                QStringLiteral("SELECT count(*) FROM source_summary WHERE version = %1")
                    .arg(kSourceSummaryVersion)
                    .toUtf8();
            QCOMPARE(gmltest::scalar(*p, current.constData()), qint64(6));
        }

        // One rank: no overview.
        QTemporaryDir single;
        const QString oneRank = gmltest::generateJob(single, 1, 3);
        MainWindow one;
        showQuietly(one, QSize(1366, 768));
        one.openFolder(oneRank);
        QVERIFY(waitLoaded(one));
        one.rankOverview()->waitForIdle();
        QVERIFY(one.rankOverview()->run().isEmpty());
        QVERIFY(!one.rankView()->isVisible());
    }

    void graphSelectionLinksBothWaysWithTheTimeline()
    {
        MainWindow w;
        showQuietly(w, QSize(1400, 900));
        w.openFolder(m_demo);
        QVERIFY(waitLoaded(w));
        QVERIFY(showGraph(w)); // built and laid out off the GUI thread, then shown
        GraphView *view = graphViewOf(w);
        const auto model = view->model();
        QVERIFY(model);
        const auto &nodes = model->nodes();
        // Graph -> timeline: a click on an operator's box selects its span and its own slice.
        int op = -1;
        for (size_t i = 0; i < nodes.size() && op < 0; ++i)
            if (nodes[i].level == sim::Level::Operator && !model->slices(int(i)).empty() &&
                nodes[i].inclusive() > 0)
                op = int(i);
        QVERIFY(op >= 0);
        Q_EMIT view->nodeActivated(op);
        QCOMPARE(w.state()->selectedSlice(), model->slices(op).front());
        QCOMPARE(w.state()->selectionStart(), nodes[size_t(op)].start);
        QCOMPARE(w.state()->selectionEnd(), nodes[size_t(op)].end);
        QVERIFY(w.state()->windowStart() <= nodes[size_t(op)].start &&
                w.state()->windowEnd() >= nodes[size_t(op)].end);
        // Timeline -> graph: selecting a kernel lights up the box that holds it.
        int kernel = -1;
        for (size_t i = 0; i < nodes.size() && kernel < 0; ++i)
            if (nodes[i].level == sim::Level::GpuWork && !model->slices(int(i)).empty())
                kernel = int(i);
        QVERIFY(kernel >= 0);
        const auto picture = view->picture();
        const int item = picture->scene.itemOf(kernel);
        QVERIFY(item >= 0);
        const auto &k = nodes[size_t(kernel)];
        w.state()->setSelectedSlice(model->trackOf(k.resource), model->slices(kernel).front(),
                                    k.start, k.end);
        QCOMPARE(view->highlightedItems(), QSet<int>{item});
        // A range: every box that overlaps it.
        w.state()->clearSelectedSlice();
        const GraphItem &box = picture->scene.items[size_t(item)];
        w.state()->setSelection(box.start, box.start + 1);
        QVERIFY(view->highlightedItems().contains(item));
        for (int h : view->highlightedItems())
            QVERIFY(picture->scene.items[size_t(h)].start < box.start + 1 &&
                    picture->scene.items[size_t(h)].end > box.start);
        // Double-click on an iteration opens it: the breadcrumb ends there, the view is cached.
        int iteration = -1;
        for (size_t i = 0; i < nodes.size() && iteration < 0; ++i)
            if (nodes[i].level == sim::Level::Iteration)
                iteration = int(i);
        QVERIFY(iteration >= 0);
        view->setFocusNode(iteration);
        view->waitForLayout();
        QCOMPARE(view->picture()->scene.breadcrumb().back(), iteration);
        view->setFocusNode(0);
        QVERIFY(!view->isLayingOut()); // back up: from the cache, no new layout
        QCOMPARE(view->picture()->scene.collapse.focus, 0);
        // Export from the dock.
        QString error;
        const QString svg = m_tmp.filePath(QStringLiteral("graph.svg"));
        QVERIFY2(view->exportTo(svg, &error), qPrintable(error));
        QVERIFY(QFileInfo(svg).size() > 1000);
        // The demo's two ranks are folded by default: one box per iteration over both ranks;
        // Fold ranks off shows each rank's apart, on again folds them back.
        const auto iterationsOf = [](const sim::ExecutionModel &m) {
            std::vector<const sim::ModelNode *> out;
            for (const auto &n : m.nodes())
                if (n.level == sim::Level::Iteration)
                    out.push_back(&n);
            return out;
        };
        QVERIFY(view->ranksFolded());
        const auto folded = iterationsOf(*view->model());
        QVERIFY(!folded.empty());
        for (const auto *n : folded)
            QCOMPARE(n->ranks, 2);
        view->setRanksFolded(false);
        view->waitForLayout();
        QCOMPARE(iterationsOf(*view->model()).size(), 2 * folded.size());
        view->setRanksFolded(true);
        view->waitForLayout();
        QCOMPARE(iterationsOf(*view->model()).size(), folded.size());
        // An iteration opened down to operators: one row that scrolls, not rows of boxes.
        view->setLevel(sim::Level::Operator);
        view->setFocusNode(view->model()->find(folded.front()->name));
        view->waitForLayout();
        QApplication::processEvents();
        QCOMPARE(view->picture()->layout.bands, 1);
        const auto bars = view->findChildren<QScrollBar *>();
        QVERIFY(std::any_of(bars.begin(), bars.end(), [](QScrollBar *b) {
            return b->orientation() == Qt::Horizontal && b->isVisible() && b->maximum() > 0;
        }));
    }

    // A run above the threshold is not built because the dock shows: the dock says what
    // building costs and builds when the link is followed.
    void graphOfALargeRunIsBuiltWhenAsked()
    {
        MainWindow w;
        showQuietly(w, QSize(1400, 900));
        graphOf(w)->setAskAbove(100); // the demo's run has thousands of slices
        w.openFolder(m_demo);
        QVERIFY(waitLoaded(w));
        QVERIFY(showGraph(w));
        GraphView *view = graphViewOf(w);
        QVERIFY(!view->model());
        QVERIFY2(view->notice().contains(QLatin1String("href=\"build\"")),
                 qPrintable(view->notice()));
        QVERIFY2(view->notice().contains(QLatin1String(" MB")), qPrintable(view->notice()));
        Q_EMIT view->noticeLinkActivated(QStringLiteral("build"));
        graphOf(w)->waitForIdle();
        view->waitForLayout();
        QVERIFY(view->model());
        QVERIFY(view->model()->countAt(sim::Level::Iteration) > 0);
        QVERIFY(view->notice().isEmpty());
    }

    void graphShowsTheWorkflowAndOpensItsSteps()
    {
        // Two jobs (the demo, and the demo each file a byte longer: a byte-for-byte copy would
        // be the same run, not imported twice) declared as steps of one workflow.
        const QString jobs = m_tmp.filePath(QStringLiteral("jobs"));
        for (const char *step : {"a", "b"}) {
            QDir().mkpath(jobs + QLatin1Char('/') + QLatin1String(step));
            for (const QString &f : QDir(m_demo).entryList(QDir::Files)) {
                const QString to =
                    jobs + QLatin1Char('/') + QLatin1String(step) + QLatin1Char('/') + f;
                QVERIFY(QFile::copy(m_demo + QLatin1Char('/') + f, to));
                QFile grown(to);
                QVERIFY(*step == 'a' || (grown.open(QIODevice::Append) && grown.write("\n") == 1));
            }
        }
        QFile decl(jobs + QStringLiteral("/grademl.json"));
        QVERIFY(decl.open(QIODevice::WriteOnly));
        decl.write(
            R"J({"workflow": {"name": "two jobs", "steps": [{"name": "pretrain", "folder": "a"},
                   {"name": "finetune", "folder": "b"}], "edges": [["pretrain", "finetune"]]}})J");
        decl.close();
        MainWindow w;
        showQuietly(w, QSize(1400, 900));
        w.openFolder(jobs);
        QVERIFY(waitLoaded(w));
        QVERIFY(showGraph(w));
        GraphController *graph = graphOf(w);
        GraphView *view = graphViewOf(w);
        QVERIFY(graph->showsWorkflow()); // several runs: the workflow comes first
        QVERIFY(graph->workflow() && !graph->workflow()->inferred());
        const auto model = view->model();
        QCOMPARE(model->countAt(sim::Level::Step), 2);
        QCOMPARE(model->edges(sim::Level::Step).size(), size_t(1));
        QCOMPARE(model->edges(sim::Level::Step).front().kind, sim::ModelEdge::Kind::Workflow);
        // Both copies ran at the same time: the view says the declared order disagrees.
        QVERIFY2(view->notice().contains(QLatin1String("starts")), qPrintable(view->notice()));
        // Double-click on a step opens its run; the breadcrumb's first crumb leads back.
        const int finetune = model->find(QStringLiteral("finetune"));
        QVERIFY(finetune > 0);
        Q_EMIT view->leafOpened(finetune);
        graph->waitForIdle();
        view->waitForLayout();
        QCOMPARE(graph->run(), QStringLiteral("jobs/b"));
        QVERIFY(!graph->showsWorkflow());
        QVERIFY(view->model()->countAt(sim::Level::Iteration) > 0);
        QVERIFY(view->notice().isEmpty());
        Q_EMIT view->upRequested();
        graph->waitForIdle();
        view->waitForLayout();
        QVERIFY(graph->showsWorkflow());
        QCOMPARE(view->model()->countAt(sim::Level::Step), 2);
    }

    void screenshotModeWritesThePng()
    {
        const QString out = m_tmp.filePath(QStringLiteral("shot.png"));
        const auto p =
            gmltest::runProgram(QStringLiteral(GRADEML_STUDIO),
                                {QStringLiteral("--screenshot"), out, QStringLiteral("--size"),
                                 QStringLiteral("1200x800"), m_demo});
        QVERIFY(p.finished);
        QVERIFY2(p.code == 0, p.err.constData());
        const QImage img(out);
        QCOMPARE(img.size(), QSize(1200, 800));
    }

    // Projects a user can end up with that are not a profiled run: each opens in screenshot
    // mode with the graph dock shown, exits 0 and stays within a time and memory bound.
    void oddProjectsOpenWithinBounds_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("monitoring only") << QStringLiteral("monitoring");
        QTest::newRow("execution trace only") << QStringLiteral("et");
        QTest::newRow("empty run") << QStringLiteral("empty");
        QTest::newRow("predicted and simulated runs") << QStringLiteral("predicted");
        QTest::newRow("20,000 one-slice streams") << QStringLiteral("streams");
    }

    void oddProjectsOpenWithinBounds()
    {
        QFETCH(QString, name);
        QTemporaryDir dir;
        const QString in = dir.filePath(QStringLiteral("in")),
                      project = dir.filePath(QStringLiteral("p.grademl"));
        QStringList import{QStringLiteral("import"), in, QStringLiteral("--project"), project};
        if (name == QLatin1String("monitoring")) {
            QByteArray log = "timestamp, index, utilization.gpu [%], power.draw [W]\n";
            for (int i = 0; i < 100; ++i)
                log += QStringLiteral("2024/01/01 10:00:%1.000, 0, %2 %, 100 W\n")
                           .arg(i % 60, 2, 10, QLatin1Char('0'))
                           .arg(i)
                           .toUtf8();
            gmltest::writeFile(dir, QStringLiteral("in/gpu.csv"), log);
        } else if (name == QLatin1String("et")) {
            gmltest::writeFile(dir, QStringLiteral("in/et.json"),
                               R"({"schema":"1.0.1","pid":5,"nodes":[
{"id":1,"name":"[pytorch|profiler|execution_graph|thread]","parent":1,"rf_id":0,"inputs":[],"outputs":[]},
{"id":2,"name":"aten::add","parent":1,"rf_id":1,"inputs":[[1,1,0,4,4,"cpu"]],"outputs":[[2,2,0,4,4,"cpu"]]}]})");
        } else if (name == QLatin1String("empty")) {
            gmltest::writeFile(
                dir, QStringLiteral("in/t.json"),
                R"({"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":"idle"}}]})");
        } else if (name == QLatin1String("predicted")) {
            copyFolder(m_demo, in);
        } else {
            QByteArray events;
            for (int i = 0; i < 20'000; ++i)
                events +=
                    QStringLiteral(
                        R"({"ph":"X","name":"k","cat":"kernel","pid":0,"tid":"stream %1","ts":%2,"dur":5},)")
                        .arg(i)
                        .arg((qint64(i) * 7919) % 1'000'000)
                        .toUtf8();
            gmltest::writeFile(dir, QStringLiteral("in/t.json"),
                               "{\"traceEvents\":[" + events + "{}]}");
        }
        const auto imported = gmltest::runCli(import);
        QVERIFY2(imported.code == 0 || name == QLatin1String("et"), qPrintable(imported.all()));
        if (name == QLatin1String("predicted")) {
            const QString run =
                gmltest::text(*Project::open(project, Project::Mode::ReadOnly, nullptr),
                              QStringLiteral("SELECT name FROM run LIMIT 1"));
            const auto w =
                gmltest::runCli({QStringLiteral("whatif"), project, QStringLiteral("--run"), run,
                                 QStringLiteral("--preset"), QStringLiteral("amp"),
                                 QStringLiteral("--save"), QStringLiteral("predicted")});
            QVERIFY2(w.code == 0, qPrintable(w.all()));
            const auto s = gmltest::runCli({QStringLiteral("simulate"), project,
                                            QStringLiteral("--model"), QStringLiteral("alexnet"),
                                            QStringLiteral("--workers"), QStringLiteral("2"),
                                            QStringLiteral("--iterations"), QStringLiteral("2")});
            QVERIFY2(s.code == 0, qPrintable(s.all()));
        }
        const QString png = dir.filePath(QStringLiteral("shot.png"));
        const auto shot =
            gmltest::runProgram(QStringLiteral(GRADEML_STUDIO),
                                {QStringLiteral("--screenshot"), png, QStringLiteral("--size"),
                                 QStringLiteral("1366x768"), QStringLiteral("--panel"),
                                 QStringLiteral("graph"), project},
                                120);
        QVERIFY2(shot.finished && !shot.crashed, qPrintable(shot.all()));
        QVERIFY2(shot.code == 0, qPrintable(shot.all()));
        QCOMPARE(QImage(png).size(), QSize(1366, 768));
        rusage usage{};
        getrusage(RUSAGE_CHILDREN, &usage);
        QVERIFY2(usage.ru_maxrss < 1024 * 1024,
                 qPrintable(QStringLiteral("peak RSS %1 KiB").arg(usage.ru_maxrss)));
    }

    void realKinetoTracesOpenAndRender_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("minRows");
        QTest::newRow("dlrm 8 ranks")
            << QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100") << 8 * 3;
        QTest::newRow("mi250") << QStringLiteral("pytorch_kineto/hta_amd_mi250_rocm62") << 3;
        QTest::newRow("2021 resnet")
            << QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100") << 3;
    }

    void realKinetoTracesOpenAndRender()
    {
        QFETCH(QString, folder);
        QFETCH(int, minRows);
        GML_REQUIRE_SHARED(folder);
        MainWindow w;
        showQuietly(w, QSize(1600, 1000));
        w.openFolder(gmltest::sharedTraces() + QLatin1Char('/') + folder);
        QVERIFY(waitLoaded(w, 300000));
        // The read-only shared folder gets its project in the cache directory.
        QVERIFY(w.projectPath().startsWith(m_tmp.filePath(QStringLiteral("cache"))) ||
                w.projectPath().contains(QStringLiteral("qttest")));
        QVERIFY(int(w.timeline()->layout().rows().size()) >= minRows);
        QCOMPARE(sourcesOf(w)->failedCount(), 0);
        QVERIFY(w.timeline()->painter().waitForPages(w.timeline()->viewport()));
        const auto &g = w.timeline()->painter().geometry(w.timeline()->viewport());
        QVERIFY(g.visibleSlices > 0);
        // For a person to look at: build/.../tests/screenshots/.
        QDir().mkpath(QStringLiteral("screenshots"));
        w.grab().save(QStringLiteral("screenshots/%1.png").arg(QFileInfo(folder).fileName()));
    }

    // Issue 35: a generated 1,024-rank job shows every rank in the overview on one 1080-px
    // screen (lanes share pixel rows), above a timeline that keeps most of the height.
    void thousandRanksOnOneScreen()
    {
        QTemporaryDir dir;
        const QString job = gmltest::generateJob(dir, 1024, 1);
        MainWindow w;
        showQuietly(w, QSize(1920, 1080));
        w.openFolder(job);
        QVERIFY(waitLoaded(w, 600000));
        w.rankOverview()->waitForIdle();
        QCoreApplication::processEvents();
        const QJsonObject ro = studioState(w).value(QStringLiteral("rank_overview")).toObject();
        QVERIFY(ro.value(QStringLiteral("visible")).toBool());
        QCOMPARE(ro.value(QStringLiteral("ranks")).toInt(), 1024);
        QCOMPARE(ro.value(QStringLiteral("lanes")).toInt(), 1024);
        QVERIFY(ro.value(QStringLiteral("rows")).toInt() >=
                100); // no lane left out: they share rows
        QVERIFY(ro.value(QStringLiteral("y")).toInt() +
                    ro.value(QStringLiteral("height")).toInt() <=
                1080 / 3);
        QVERIFY(w.timeline()->height() >= 1080 / 3);
    }

    // Issue 35: the keyboard reaches every view: the command palette lists every action with
    // its shortcut and runs the one typed; Esc in the find box gives the keys back to the
    // timeline; a pinned track and a track filter change what is laid out.
    void keyboardReachesEveryViewAndTracksAreManaged()
    {
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.openFolder(m_demo);
        QVERIFY(waitLoaded(w));
        w.showPalette();
        auto *palette = w.palette();
        QVERIFY(palette && palette->isVisible());
        const QStringList all = palette->shown();
        QVERIFY(all.size() > 20);
        QVERIFY2(all.contains(QStringLiteral("View › Show › Analysis    Alt+2")),
                 qPrintable(all.join(QLatin1Char('\n'))));
        QVERIFY2(std::any_of(
                     all.begin(), all.end(),
                     [](const QString &t) { return t.startsWith(QStringLiteral("Focus › demo")); }),
                 qPrintable(all.join(QLatin1Char('\n'))));
        palette->edit()->setText(QStringLiteral("show anal"));
        QCOMPARE(palette->shown(), QStringList{QStringLiteral("View › Show › Analysis    Alt+2")});
        palette->runCurrent();
        QVERIFY(!palette->isVisible());
        QCOMPARE(w.frontView(), QStringLiteral("analysis"));
        QVERIFY(w.showView(QStringLiteral("timeline")));
        // Esc in the find box.
        auto *find = w.findChild<QLineEdit *>();
        QVERIFY(find);
        for (auto *e : w.findChildren<QLineEdit *>())
            if (e->placeholderText().startsWith(QLatin1String("Find slices by name")))
                find = e;
        find->setFocus();
        QTest::keyClick(find, Qt::Key_Escape);
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget *>(w.timeline()));
        // Pin a stream, filter to the GPU side.
        TrackId stream = 0;
        for (const auto &r : w.timeline()->layout().rows())
            if (r.kind == TrackKind::Stream && !stream)
                stream = r.track;
        QVERIFY(stream);
        w.timeline()->setPinned(stream, true);
        QCOMPARE(w.timeline()->layout().pinnedCount(), size_t(1));
        QVERIFY(w.timeline()->layout().rows().front().pinned);
        w.timeline()->setTrackFilter({}, TimelineTrackFilter::Only::Gpu);
        for (const auto &r : w.timeline()->layout().rows())
            QVERIFY(r.type == TimelineRow::Type::Run || r.kind == TrackKind::Gpu ||
                    r.kind == TrackKind::Stream);
        w.timeline()->collapseAll(true);
        const size_t collapsed = w.timeline()->layout().rows().size();
        w.timeline()->collapseAll(false);
        QVERIFY(w.timeline()->layout().rows().size() > collapsed);
        // View › Reset Layout: the panes where they first were, the timeline in front.
        const auto panes = [&w] {
            QStringList out;
            for (const auto &v : studioState(w).value(QStringLiteral("panels")).toArray())
                out << QStringLiteral("%1=%2")
                           .arg(v.toObject().value(QStringLiteral("name")).toString())
                           .arg(v.toObject().value(QStringLiteral("visible")).toBool());
            out.sort();
            return out;
        };
        const QStringList first = panes();
        QVERIFY(w.showView(QStringLiteral("whatif")));
        QVERIFY(w.showView(QStringLiteral("runs")));
        QVERIFY(w.showView(QStringLiteral("analysis")));
        w.windowLayout().reset();
        QCoreApplication::processEvents();
        QCOMPARE(w.frontView(), QStringLiteral("timeline"));
        QCOMPARE(panes(), first);
        // The label column follows a drag of its edge, and the rank overview follows it.
        w.timeline()->setLabelWidth(360);
        QCOMPARE(w.timeline()->painter().metrics().labelWidth, 360);
    }

    // Issue 35: the whole shared folder (runs of many days) opens on one run, its window about
    // that run's length; the ruler's labels never overlap; the layout fits both screen sizes
    // (read through the state dump); several runs in focus align at their starts.
    void workspaceFocusesOneRunAndFitsBothScreens()
    {
        GML_REQUIRE_SHARED(QString());
        // A project left by an earlier run of this test remembers its last focus: forget it.
        const QString project = ImportController::projectPathForFolder(gmltest::sharedTraces());
        QString error;
        if (QFileInfo::exists(project))
            QVERIFY2(writeViewState(project, QStringLiteral("timeline.focus"), {}, &error),
                     qPrintable(error));
        MainWindow w;
        showQuietly(w, QSize(1920, 1080));
        w.openFolder(gmltest::sharedTraces());
        QVERIFY(waitLoaded(w, 900000));
        const auto data = w.timeline()->data();
        QVERIFY(data && data->runs.size() > 3);
        for (const QSize size : {QSize(1920, 1080), QSize(1366, 768)}) {
            w.resize(size);
            QCoreApplication::processEvents();
            w.timeline()->waitForPages();
            (void)w.grab(); // a paint at this size: the ruler's labels
            const QJsonObject st = studioState(w);
            QCOMPARE(st.value(QStringLiteral("front_view")).toString(), QStringLiteral("timeline"));
            const QJsonArray focus = st.value(QStringLiteral("focus_runs")).toArray();
            QCOMPARE(focus.size(), 1);
            const RunSummary *run = nullptr;
            for (const auto &r : data->runs)
                if (r.name == focus.first().toString())
                    run = &r;
            QVERIFY(run && run->end > run->start && run->slices > 0);
            const QJsonObject win = st.value(QStringLiteral("window")).toObject();
            const double span = win.value(QStringLiteral("end_ns")).toDouble() -
                                win.value(QStringLiteral("start_ns")).toDouble();
            QVERIFY2(span <= 1.5 * double(run->end - run->start),
                     qPrintable(QString::number(span)));
            QCOMPARE(win.value(QStringLiteral("origin_ns")).toInteger(), run->start);
            // The rows on screen are the focused run's.
            const QJsonArray tracks = st.value(QStringLiteral("tracks")).toArray();
            QVERIFY(tracks.size() >= 3);
            for (const auto &t : tracks)
                QCOMPARE(t.toObject().value(QStringLiteral("run")).toString(), run->name);
            // Ruler labels: several, none overlapping.
            const QJsonArray ruler = st.value(QStringLiteral("ruler")).toArray();
            QVERIFY(ruler.size() >= 4);
            for (qsizetype i = 0; i + 1 < ruler.size(); ++i) {
                const QJsonObject a = ruler[i].toObject(), b = ruler[i + 1].toObject();
                QVERIFY2(a.value(QStringLiteral("x")).toDouble() +
                                 a.value(QStringLiteral("width")).toDouble() <
                             b.value(QStringLiteral("x")).toDouble(),
                         qPrintable(a.value(QStringLiteral("label")).toString()));
            }
            // Panels: none floating, the shown ones inside the window, the selection panes below
            // the timeline with room for a few lines, the timeline most of the height.
            bool details = false;
            for (const auto &v : st.value(QStringLiteral("panels")).toArray()) {
                const QJsonObject p = v.toObject();
                QVERIFY(!p.value(QStringLiteral("floating")).toBool());
                if (!p.value(QStringLiteral("visible")).toBool())
                    continue;
                const QRect r(p.value(QStringLiteral("x")).toInt(),
                              p.value(QStringLiteral("y")).toInt(),
                              p.value(QStringLiteral("width")).toInt(),
                              p.value(QStringLiteral("height")).toInt());
                QVERIFY2(QRect(QPoint(0, 0), size).contains(r),
                         qPrintable(p.value(QStringLiteral("name")).toString()));
                if (p.value(QStringLiteral("name")).toString() == QLatin1String("details")) {
                    details = true;
                    QVERIFY(r.height() >= 120 && r.height() <= size.height() / 3);
                }
            }
            QVERIFY(details);
            QVERIFY(w.timeline()->height() >= size.height() / 2);
            QVERIFY(st.value(QStringLiteral("first_paint_ms")).toDouble() >= 0);
        }
        // Two runs of different days in focus: aligned at zero, each from its own start.
        QStringList two;
        for (const auto &r : data->runs)
            if (r.slices > 0 && two.size() < 2 &&
                (two.isEmpty() || r.start != data->runs.first().start))
                two << r.name;
        QCOMPARE(two.size(), 2);
        w.focus()->focusRuns(two);
        QCOMPARE(w.focus()->focusNames(), two);
        const auto &l = w.timeline()->layout();
        TimeNs starts[2] = {0, 0}, ends[2] = {0, 0};
        for (const auto &r : data->runs)
            for (int i = 0; i < 2; ++i)
                if (r.name == two[i])
                    starts[i] = r.start, ends[i] = r.end;
        RunId second = 0;
        for (const auto &r : data->runs)
            if (r.name == two[1])
                second = r.id;
        QCOMPARE(l.shiftOfRun(second), starts[1] - starts[0]);
        QCOMPARE(w.state()->traceStart(), starts[0]);
        QCOMPARE(w.state()->traceEnd(),
                 starts[0] + std::max(ends[0] - starts[0], ends[1] - starts[1]));
        w.focus()->focusRuns(two, true); // the project clock: where they ran
        QCOMPARE(w.timeline()->layout().shiftOfRun(second), TimeNs(0));
        QCOMPARE(w.state()->traceEnd() - w.state()->traceStart(),
                 std::max(ends[0], ends[1]) - std::min(starts[0], starts[1]));
        // The project remembers: opened again, it shows the same runs the same way.
        w.focus()->waitForIdle();
        w.openFolder(gmltest::sharedTraces());
        QVERIFY(waitLoaded(w, 300000));
        QCOMPARE(w.focus()->focusNames(), two);
        QVERIFY(w.state()->projectClock());
    }
};

QTEST_MAIN(TestStudio)
#include "tst_studio.moc"
