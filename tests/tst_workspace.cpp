// SPDX-License-Identifier: GPL-3.0-or-later
// The studio a Perfetto user keeps (issue 58), read through the state dump as a script would:
// search everywhere (the track filter by what tracks hold, Find by category and args), short
// relative ruler labels at every zoom on both screen sizes, a time origin set on the ruler.

#include "mainwindow.h"
#include "project.h"
#include "sqlitedb.h"
#include "statedump.h"
#include "studioutil.h"
#include "testutil.h"
#include "timelinestate.h"
#include "timelineview.h"
#include "trackbar.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QLineEdit>
#include <QTest>

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

private Q_SLOTS:
    // "nccl" keeps the 8 streams that ran NCCL kernels (their names do not say so) with their
    // threads; a filter matching nothing says so; Find counts categories and args as SQL does.
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
};

QTEST_MAIN(TestWorkspace)
#include "tst_workspace.moc"
