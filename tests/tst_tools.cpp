// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 36: the tools around the timeline, driven in the studio's window: the flame graph pane.
#include "flamecontroller.h"
#include "flameview.h"
#include "importutil.h"
#include "mainwindow.h"
#include "studioutil.h"
#include "testutil.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QComboBox>
#include <QDockWidget>
#include <QStandardPaths>
#include <QTest>

using namespace gml;
using gmltest::showQuietly;
using gmltest::waitLoaded;

namespace {

// Two steps on one thread, each linear -> mm -> cudaLaunchKernel, each launching a gemm
// (the same as tst_flame's).
const char kTrace[] = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":50},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":30},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":30,"dur":10,"args":{"correlation":1}},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":110,"dur":70},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":120,"dur":50},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":130,"dur":10,"args":{"correlation":2}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":45,"dur":50,"args":{"correlation":1,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":150,"dur":80,"args":{"correlation":2,"device":0,"stream":7}}
]})J";

int frameNamed(const FlameGraph &g, const QString &path)
{
    for (size_t i = 1; i < g.frames().size(); ++i)
        if (g.path(int(i)) == path)
            return int(i);
    return -1;
}

} // namespace

class TestTools : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        gmltest::writeFile(m_tmp, QStringLiteral("hand/hand.json"), kTrace);
    }

    // The Flame Graph pane: computed only once shown; the whole run without a selection, the
    // selection with one; a click highlights the frame's slices in the timeline; GPU time by
    // launching stack; a diff against the previous selection.
    void flameGraphOfTheSelection()
    {
        MainWindow w;
        showQuietly(w, QSize(1366, 768));
        w.openFolder(m_tmp.filePath(QStringLiteral("hand")));
        QVERIFY(waitLoaded(w));
        auto *view = w.findChild<FlameView *>();
        QVERIFY(view);
        QVERIFY(!view->graph()); // not computed while hidden
        QVERIFY(w.showView(QStringLiteral("flame")));
        w.flame()->waitForIdle();
        QVERIFY(view->isVisible());
        QVERIFY(view->graph());
        QCOMPARE(view->graph()->total(), TimeNs(200'000));
        // A click on a frame: its slices highlighted in the timeline.
        const int mm = frameNamed(*view->graph(), QStringLiteral("ProfilerStep#*;aten::linear;aten::mm"));
        QVERIFY(mm > 0);
        const QRect r = view->canvas()->frameRect(mm);
        QVERIFY2(!r.isEmpty(), "the mm frame is drawn");
        QTest::mouseClick(view->canvas(), Qt::LeftButton, {}, r.center());
        QCOMPARE(view->canvas()->selected(), mm);
        QCOMPARE(w.timeline()->overlay().highlighted.size(), size_t(2));
        QVERIFY2(view->canvas()->describe(mm).startsWith(QStringLiteral("aten::mm · 80 µs (40.0%) · self 60 µs · 2 slice")),
                 qPrintable(view->canvas()->describe(mm)));
        // A selection of [100, 200) µs after the run's start: the second step only.
        const TimeNs origin = w.state()->traceStart();
        w.state()->setSelection(origin + 100'000, origin + 200'000);
        w.flame()->waitForIdle();
        QCOMPARE(view->graph()->total(), TimeNs(100'000));
        QCOMPARE(view->graph()->frames()[size_t(frameNamed(*view->graph(), QStringLiteral("ProfilerStep#*;aten::linear;aten::mm")))].total,
                 TimeNs(50'000));
        // Against the previous selection (the whole run): mm and its launches went from 80 to
        // 50 µs: blue.
        auto *against = view->findChild<QComboBox *>(QStringLiteral("flameAgainst"));
        against->setCurrentIndex(1);
        w.flame()->waitForIdle();
        QVERIFY(view->graph()->isDiff());
        const auto &diffMm = view->graph()->frames()[size_t(frameNamed(*view->graph(), QStringLiteral("ProfilerStep#*;aten::linear;aten::mm")))];
        QCOMPARE(diffMm.total, TimeNs(50'000));
        QCOMPARE(diffMm.baseTotal, TimeNs(80'000));
        QVERIFY(view->canvas()->colour(frameNamed(*view->graph(), QStringLiteral("ProfilerStep#*;aten::linear;aten::mm"))).blue() >
                view->canvas()->colour(frameNamed(*view->graph(), QStringLiteral("ProfilerStep#*;aten::linear;aten::mm"))).red());
        against->setCurrentIndex(0);
        // GPU time: the second gemm under its launch.
        view->findChild<QComboBox *>(QStringLiteral("flameMetric"))->setCurrentIndex(1);
        w.flame()->waitForIdle();
        QVERIFY(view->graph());
        QCOMPARE(view->graph()->total(), TimeNs(50'000)); // [150, 200) of the gemm [150, 230)
        QVERIFY(frameNamed(*view->graph(), QStringLiteral("ProfilerStep#*;aten::linear;aten::mm;cudaLaunchKernel;gemm")) > 0);
        // Nothing comes to the front by itself: the pane stays where the user put it.
        QCOMPARE(w.frontView(), QStringLiteral("timeline"));
    }
};

QTEST_MAIN(TestTools)
#include "tst_tools.moc"
