// SPDX-License-Identifier: GPL-3.0-or-later
// Every rank readable (issue 57): collapsed rows and ranks drawn as summary rows of what they
// hold, a project paged at any size, on a generated 256-rank job with a slow rank.
#include "analysischarts.h"
#include "chartlayer.h"
#include "mainwindow.h"
#include "palette.h"
#include "rankoverviewcontroller.h"
#include "rankoverviewpainter.h"
#include "rankoverviewview.h"
#include "ranksview.h"
#include "sliceclass.h"
#include "statedump.h"
#include "studioutil.h"
#include "testutil.h"
#include "theme.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QMouseEvent>
#include <QPainter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace gml;
using gmltest::showQuietly;
using gmltest::waitLoaded;

namespace {

// The rows the state dump lists (those on screen).
QJsonArray rowsOnScreen(const MainWindow &w)
{
    return studioState(w).value(QStringLiteral("tracks")).toArray();
}

} // namespace

class TestRankRows : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_job; // 256 ranks, rank 37 slow

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("XDG_CACHE_HOME", m_tmp.filePath(QStringLiteral("cache")).toUtf8());
        m_job = m_tmp.filePath(QStringLiteral("job256"));
        const auto gen = gmltest::runProgram(
            QStringLiteral(GRADEML_TRACEGEN),
            {QStringLiteral("--out"), m_job, QStringLiteral("--ranks"), QStringLiteral("256"),
             QStringLiteral("--steps"), QStringLiteral("3"), QStringLiteral("--layers"),
             QStringLiteral("4"), QStringLiteral("--slow-rank"), QStringLiteral("37")});
        QVERIFY(gen.finished);
        QCOMPARE(gen.code, 0);
    }

    // Ranks as summary rows: 60 ranks and more on a 1080-px screen, each drawing its GPU
    // streams' activity; the rank overview steps aside (the rows show it, with labels).
    void ranksAsSummaryRowsFitAScreen()
    {
        MainWindow w;
        showQuietly(w, QSize(1920, 1080));
        w.openFolder(m_job);
        QVERIFY(waitLoaded(w, 300000));
        TimelineView *tv = w.timeline();
        // Paged at any size: nothing was read whole at open (1,280 small tracks, issue 57).
        QVERIFY(tv->data()->slices.isEmpty());
        QVERIFY(tv->data()->pager);
        QCOMPARE(qint64(tv->data()->sliceCount()), qint64(256 * 153));
        tv->setRankRows(true);
        QVERIFY(tv->painter().waitForPages(tv->viewport()));
        tv->repaint();
        int ranks = 0;
        for (const auto &v : rowsOnScreen(w)) {
            const QJsonObject row = v.toObject();
            if (row.value(QStringLiteral("kind")).toString() == QLatin1String("run"))
                continue;
            QVERIFY2(row.value(QStringLiteral("name")).toString() ==
                         QStringLiteral("rank %1").arg(ranks),
                     qPrintable(row.value(QStringLiteral("name")).toString()));
            QCOMPARE(row.value(QStringLiteral("summary")).toInt(), 2); // its two streams
            QVERIFY(row.value(QStringLiteral("drawn")).toInt() > 0);
            ++ranks;
        }
        QVERIFY2(ranks >= 60, qPrintable(QString::number(ranks)));
        // The status bar's text over a summary row: its busy share by class.
        const auto &rows = tv->layout().rows();
        const auto first = std::find_if(rows.begin(), rows.end(),
                                        [](const TimelineRow &r) { return r.isSummary(); });
        QVERIFY(first != rows.end());
        QString text;
        for (int x = tv->painter().metrics().labelWidth; x < 1900 && text.isEmpty(); x += 7)
            if (const QString t = tv->painter().summaryText(int(first - rows.begin()), x);
                t.contains(QLatin1String("compute")) && t.contains(QLatin1String("communication")))
                text = t;
        QVERIFY2(text.startsWith(QLatin1String("rank 0: busy ")) &&
                     text.contains(QLatin1String("(2 GPU streams held)")),
                 qPrintable(text));
        qInfo().noquote() << "over rank 0's row:" << text;
        QVERIFY(!w.rankView()->isVisible());
        // Compute and communication both drawn, in their class colours.
        const auto &g = tv->painter().lastGeometry();
        QVERIFY(!g.boxes[size_t(SlicePalette::classIndex(int(SliceRole::Compute)))].empty());
        QVERIFY(!g.boxes[size_t(SlicePalette::classIndex(int(SliceRole::Communication)))].empty());
        tv->setRankRows(false);
        w.rankOverview()->waitForIdle();
        QVERIFY(w.rankView()->isVisible());
    }

    // Collapse All: every process and GPU row on screen draws what it holds; a GPU row's busy
    // columns are those when any of its streams was busy: at least the busiest stream's, at
    // most their sum.
    void collapsedRowsSummariseWhatTheyHold()
    {
        MainWindow w;
        showQuietly(w, QSize(1920, 1080));
        w.openFolder(m_job);
        QVERIFY(waitLoaded(w, 300000));
        TimelineView *tv = w.timeline();
        // Rank 0's GPU and its streams, expanded, at the top.
        tv->setTrackFilter(QStringLiteral("rank 0 · GPU"), TimelineTrackFilter::Only::All);
        QVERIFY(tv->painter().waitForPages(tv->viewport()));
        tv->repaint();
        int most = 0, sum = 0, streams = 0;
        for (const auto &v : rowsOnScreen(w)) {
            const QJsonObject row = v.toObject();
            if (row.value(QStringLiteral("kind")).toString() != QLatin1String("stream"))
                continue;
            const int drawn = row.value(QStringLiteral("drawn")).toInt();
            QVERIFY(drawn > 0);
            most = std::max(most, drawn);
            sum += drawn;
            ++streams;
        }
        QCOMPARE(streams, 2);
        tv->collapseAll(true);
        QVERIFY(tv->painter().waitForPages(tv->viewport()));
        tv->repaint();
        int gpu = -1;
        for (const auto &v : rowsOnScreen(w)) {
            const QJsonObject row = v.toObject();
            if (row.value(QStringLiteral("kind")).toString() == QLatin1String("gpu"))
                gpu = row.value(QStringLiteral("drawn")).toInt();
        }
        QVERIFY2(gpu >= most && gpu <= sum + 2,
                 qPrintable(QStringLiteral("%1 in [%2, %3]").arg(gpu).arg(most).arg(sum)));

        // Every row on screen of the whole job, collapsed: a summary, drawn.
        tv->setTrackFilter(QString(), TimelineTrackFilter::Only::All);
        QVERIFY(tv->painter().waitForPages(tv->viewport()));
        tv->repaint();
        int rows = 0;
        for (const auto &v : rowsOnScreen(w)) {
            const QJsonObject row = v.toObject();
            if (row.value(QStringLiteral("kind")).toString() == QLatin1String("run"))
                continue;
            QVERIFY(row.value(QStringLiteral("summary")).toInt() > 0);
            QVERIFY2(row.value(QStringLiteral("drawn")).toInt() > 0,
                     qPrintable(row.value(QStringLiteral("name")).toString()));
            QCOMPARE(row.value(QStringLiteral("height")).toInt(),
                     tv->painter().metrics().summaryHeight);
            ++rows;
        }
        QVERIFY2(rows >= 50, qPrintable(QString::number(rows)));
    }

    // 1,024 ranks on 200 pixel rows (about five a row), every sixth rank 20% slower: a row shows
    // its ranks' median (the background: the iteration's median), its slowest at the cell's
    // right edge (red). Showing the slowest made nearly every row red.
    void sharedHeatMapRowsShowTheirMedian()
    {
        std::vector<sim::IterationBreakdown> its;
        for (int rank = 0; rank < 1024; ++rank)
            for (int i = 0; i < 4; ++i) {
                sim::IterationBreakdown it;
                it.name = QStringLiteral("ProfilerStep#%1").arg(i);
                it.device = QStringLiteral("0");
                it.rank = rank;
                it.start = i * 1'000'000'000LL;
                it.end = it.start + (rank % 6 == 5 ? 120'000'000 : 100'000'000);
                its.push_back(it);
            }
        StepHeatMap map;
        map.resize(600, 200 + 28 + map.fontMetrics().height());
        map.setIterations(its);
        QCOMPARE(map.rankCount(), 1024);
        const QImage image = map.grab().toImage();
        const QColor base = Theme::current().base;
        const auto isRed = [](QColor c) { return c.red() > c.blue() + 40; };
        int red = 0, plain = 0, redEdges = 0, rows = 0;
        for (int y = 8; y < 200; y += 3) { // grid rows: inside the cells, away from the top
            const auto [rankIndex, column] = map.cellAt(QPoint(64 + 10, y));
            if (rankIndex < 0)
                continue;
            ++rows;
            // The left part of the first cell (about 132 px wide): the median.
            const QColor left = image.pixelColor(64 + 20, y);
            red += isRed(left);
            plain +=
                std::abs(left.red() - base.red()) < 24 && std::abs(left.blue() - base.blue()) < 24;
            // Its right edge: the slowest of the row.
            const int cellRight = 64 + (600 - 72) / 4 - 2;
            redEdges += isRed(image.pixelColor(cellRight - 1, y));
        }
        QVERIFY(rows > 50);
        QCOMPARE(red, 0);
        QCOMPARE(plain, rows);
        QVERIFY2(redEdges >= rows * 3 / 4,
                 qPrintable(QStringLiteral("%1 of %2").arg(redEdges).arg(rows)));
    }

    // The rank overview with more GPUs than pixel rows (issue 57: each row was the mean of its
    // lanes, so one straggler tinted its row and every row looked a little off): a row shows the
    // median of its lanes; the lane that holds the others up (here every 12th computes through
    // the second half, where the others wait in communication for it) shows in its own colour
    // there and its row is marked left of the lanes; a lane that merely differs (every 12th from
    // the 5th idles in the first half: jitter, it waits as long as the rest) does not.
    void sharedOverviewRowsShowTheirMedian()
    {
        RankOverview o;
        o.origin = 0;
        o.end = 1'000'000;
        for (int rank = 0; rank < 1024; ++rank) {
            RankLane lane;
            lane.rank = rank;
            lane.device = QStringLiteral("0");
            lane.start = 0;
            lane.end = 1'000'000;
            lane.activity.from = 0;
            lane.activity.width = 10'000;
            const bool straggler = rank % 12 == 11, jitter = rank % 12 == 5;
            lane.activity.busy = QByteArray(50, jitter ? 0 : char(255));
            lane.activity.busy += QByteArray(50, char(255));
            lane.activity.communication = QByteArray(50, 0);
            lane.activity.communication += QByteArray(50, straggler ? 0 : char(255));
            o.lanes.push_back(std::move(lane));
        }
        const int labelWidth = 64, width = 864;
        const QRect area(0, 0, width, RankOverviewPainter::kHeaderHeight + 4 + 180);
        QImage image(area.size(), QImage::Format_RGB32);
        QPainter p(&image);
        const std::vector<float> standOut = o.standOut(0, 1'000'000);
        QCOMPARE(standOut[11], 1.0f);
        QCOMPARE(standOut[5], 0.0f);
        RankOverviewPainter::paint(p, area, labelWidth, o, 0, 1'000'000, -1, standOut);
        p.end();
        const auto l = RankOverviewPainter::layout(area, labelWidth, o.lanes.size());
        QCOMPARE(l.rows, 180);
        const QRgb compute = RankOverviewPainter::heat(1, 0).rgb(),
                   communication = RankOverviewPainter::heat(1, 1).rgb();
        const QRgb mark = RankOverviewPainter::holdUpColour().rgb();
        // The lane that holds the others up has its compute in the hold-up colour.
        const QRgb holding = RankOverviewPainter::heat(1, 0, true).rgb();
        int straggling = 0, plain = 0;
        for (int row = 0; row < l.rows; ++row) {
            const int y = l.lanes.top() + row;
            const auto [first, last] = l.lanesAt(y);
            bool holdsStraggler = false;
            for (size_t lane = first; lane < last; ++lane)
                holdsStraggler |= lane % 12 == 11;
            // First half: everyone computes; the row is compute, whatever it holds.
            QCOMPARE(image.pixel(l.lanes.left() + 100, y), compute);
            // Second half: the others communicate; a row with a straggler shows it.
            const QRgb late = image.pixel(l.lanes.left() + 600, y);
            QVERIFY2(late == (holdsStraggler ? holding : communication),
                     qPrintable(QStringLiteral("row %1 lanes %2-%3 %4 %5 %6")
                                    .arg(row)
                                    .arg(first)
                                    .arg(last)
                                    .arg(late, 0, 16)
                                    .arg(compute, 0, 16)
                                    .arg(communication, 0, 16)));
            QCOMPARE(image.pixel(l.lanes.left() - 3, y) == mark, holdsStraggler);
            (holdsStraggler ? straggling : plain) += 1;
            // The row's median is the others' communication, not a mix.
            const auto s =
                RankOverviewPainter::rowShares(o, first, last, 600'000, 600'001, 1, standOut);
            QCOMPARE(s.communication.front(), 1.0f);
            QCOMPARE(s.outlier.front() >= 0, holdsStraggler);
            QCOMPARE(s.marked >= 0, holdsStraggler);
        }
        QVERIFY(straggling > 60 && plain > 60);

        // The widget answers the same: a row holding a straggler answers it (hover and click),
        // a plain row its first lane.
        TimelineState state;
        state.setTraceRange(0, 1'000'000);
        RankOverviewView view(&state);
        view.setLabelWidth(labelWidth);
        view.resize(area.size());
        const auto shared = std::make_shared<const RankOverview>(o);
        view.setOverview(shared, QStringLiteral("job"));
        const auto vl = RankOverviewPainter::layout(view.rect(), labelWidth, o.lanes.size());
        QString hover;
        connect(&view, &RankOverviewView::hoverTextChanged, this,
                [&](const QString &t) { hover = t; });
        int answered = 0;
        for (int row = 0; row < vl.rows; ++row) {
            const int y = vl.lanes.top() + row;
            const auto [first, last] = vl.lanesAt(y);
            size_t straggler = last;
            for (size_t lane = first; lane < last; ++lane)
                if (lane % 12 == 11)
                    straggler = lane;
            const QPoint at(vl.lanes.left() + 600, y);
            QCOMPARE(view.laneAt(at), int(straggler < last ? straggler : first));
            QMouseEvent move(QEvent::MouseMove, QPointF(at), view.mapToGlobal(QPointF(at)),
                             Qt::NoButton, Qt::NoButton, Qt::NoModifier);
            QCoreApplication::sendEvent(&view, &move);
            QCOMPARE(hover.contains(QLatin1String("holds the others up")), straggler < last);
            answered += straggler < last;
        }
        QCOMPARE(answered, straggling);
    }

    // A bar chart of 8 ranks' GPUs at the width the report and a half-screen panel give it: the
    // labels slant, and each one is drawn under its bar, the last too (QCustomPlot dropped the
    // last slanted label, clipped by the chart's right edge: "GPU time per GPU" named 7 of 8).
    void everyRankBarIsLabelled()
    {
        StackedBars bars;
        bars.title = QStringLiteral("GPU time per GPU");
        bars.valueLabel = QStringLiteral("ms");
        for (int k = 0; k < 8; ++k)
            bars.categories << QStringLiteral("rank %1 · GPU %1").arg(k);
        bars.series.push_back(
            {QStringLiteral("compute"), QColor(0x4c, 0x78, 0xa8), std::vector<double>(8, 5.0)});
        for (const int width : {560, 700}) {
            Chart chart;
            chart.resize(width, 400);
            chart.showBars(bars);
            chart.replot();
            const QImage image = chart.toPixmap(width, 400).toImage();
            const QColor text = chart.xAxis->tickLabelColor();
            const int below = chart.xAxis->axisRect()->bottom();
            for (int k = 0; k < 8; ++k) {
                const int x = int(chart.xAxis->coordToPixel(k + 1));
                bool drawn = false;
                for (int y = below + 4; y < below + 22 && !drawn; ++y)
                    for (int dx = -2; dx <= 14 && !drawn; ++dx)
                        if (x + dx >= 0 && x + dx < image.width()) {
                            const QColor c = image.pixelColor(x + dx, y);
                            drawn = std::abs(c.red() - text.red()) < 60 &&
                                    std::abs(c.green() - text.green()) < 60 &&
                                    std::abs(c.blue() - text.blue()) < 60;
                        }
                QVERIFY2(drawn,
                         qPrintable(
                             QStringLiteral("width %1: no label under bar %2").arg(width).arg(k)));
            }
        }
    }

    // A collapsed row that holds only ranges (the AMD trace's "Spans": user annotations) draws
    // their cover in the ranges' colour rather than nothing; the hover text says so.
    void collapsedRangesOnlyRowDrawsItsRanges()
    {
        const QString trace = QStringLiteral("pytorch_kineto/hta_amd_mi250_rocm62");
        GML_REQUIRE_SHARED(trace);
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.openFolder(gmltest::sharedTraces() + QLatin1Char('/') + trace);
        QVERIFY(waitLoaded(w, 120000));
        TimelineView *tv = w.timeline();
        tv->collapseAll(true);
        QVERIFY(tv->painter().waitForPages(tv->viewport()));
        tv->repaint();
        const auto &rows = tv->layout().rows();
        int spans = -1;
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i].label == QLatin1String("Spans"))
                spans = int(i);
        QVERIFY(spans >= 0);
        QVERIFY(rows[size_t(spans)].isSummary());
        QVERIFY2(tv->painter().lastGeometry().drawn[size_t(spans)] > 0,
                 qPrintable(QString::number(tv->painter().lastGeometry().drawn[size_t(spans)])));
        QVERIFY(!tv->painter()
                     .lastGeometry()
                     .boxes[size_t(SlicePalette::classIndex(int(SliceRole::Annotation)))]
                     .empty());
        QString text;
        for (int x = tv->painter().metrics().labelWidth; x < 1360 && text.isEmpty(); x += 5)
            if (const QString t = tv->painter().summaryText(spans, x);
                t.contains(QLatin1String("ranges (no work)")))
                text = t;
        QVERIFY2(!text.isEmpty(), "no column of Spans says it draws ranges");
    }
};

QTEST_MAIN(TestRankRows)
#include "tst_rankrows.moc"
