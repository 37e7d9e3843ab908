// SPDX-License-Identifier: GPL-3.0-or-later
// Every view and pane at 1366x768, the smallest screen the studio is laid out for (issue 73:
// the Runs pane showed its header and one group row, the Analysis view scrolled its charts'
// legends out of sight, Simulate drew an empty chart in a corner). For each one brought to the
// front, in the light and the dark theme: the window keeps its size (nothing asks for more
// room than the screen has), the front view's page does not need to scroll, a table or tree
// with rows shows a few of them, and no button, check box or one-line label is narrower than
// its text. Each problem is named by the widget's path, so a failure says what to fix.

#include "mainwindow.h"
#include "studiodriver.h"
#include "studiotheme.h"
#include "studioutil.h"
#include "testutil.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QDir>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

using namespace gml;
using gmltest::showQuietly;
using gmltest::waitLoaded;

namespace {

// "MainWindow/QTabWidget/analysis/QTreeView#findings": where a widget sits, for a message.
QString pathOf(const QWidget *w)
{
    QStringList parts;
    for (const QWidget *p = w; p && parts.size() < 8; p = p->parentWidget())
        parts.prepend(
            p->objectName().isEmpty()
                ? QString::fromLatin1(p->metaObject()->className())
                : QStringLiteral("%1#%2").arg(QString::fromLatin1(p->metaObject()->className()),
                                              p->objectName()));
    return parts.join(QLatin1Char('/'));
}

// Whether `w` is shown on screen: visible, and not on a hidden tab or off its scroll area.
bool onScreen(const QWidget *w, const QWidget *window)
{
    if (!w->isVisible() || w->width() <= 0 || w->height() <= 0)
        return false;
    const QRect inWindow(w->mapTo(window, QPoint(0, 0)), w->size());
    return !w->visibleRegion().isEmpty() && window->rect().intersects(inWindow);
}

// The problems of what the window shows now.
QStringList problems(MainWindow &w)
{
    QStringList out;
    if (w.size() != QSize(1366, 768))
        out << QStringLiteral("the window is %1x%2, not 1366x768: something asks for more room")
                   .arg(w.width())
                   .arg(w.height());
    for (QScrollArea *area : w.findChildren<QScrollArea *>()) {
        if (!onScreen(area, &w) || !area->widgetResizable() || !area->widget())
            continue;
        // A page that only fits scrolled: its bottom (the charts' legends) is out of sight.
        if (area->verticalScrollBar()->maximum() > 0)
            out << QStringLiteral("%1: %2 px of height shown in %3 (it needs %4)")
                       .arg(pathOf(area->widget()))
                       .arg(area->widget()->height())
                       .arg(area->viewport()->height())
                       .arg(area->widget()->minimumSizeHint().height());
    }
    for (QAbstractItemView *view : w.findChildren<QAbstractItemView *>()) {
        if (!onScreen(view, &w) || !view->model() || view->model()->rowCount() == 0)
            continue;
        if (qobject_cast<QHeaderView *>(view))
            continue;
        const QModelIndex first = view->model()->index(0, 0);
        const int row = std::max(1, view->visualRect(first).height());
        int rows = view->model()->rowCount();
        if (auto *tree = qobject_cast<QTreeView *>(view); tree && tree->isExpanded(first))
            rows += view->model()->rowCount(first);
        const int wanted = std::min(rows, 3);
        if (view->viewport()->height() < wanted * row)
            out << QStringLiteral("%1: %2 rows, room for %3")
                       .arg(pathOf(view))
                       .arg(rows)
                       .arg(view->viewport()->height() / row);
    }
    for (QAbstractButton *b : w.findChildren<QAbstractButton *>()) {
        if (!onScreen(b, &w) || b->text().isEmpty() || b->inherits("QTabBar"))
            continue;
        if (b->width() + 2 < b->sizeHint().width())
            out << QStringLiteral("%1 \"%2\": %3 px for %4")
                       .arg(pathOf(b), b->text())
                       .arg(b->width())
                       .arg(b->sizeHint().width());
    }
    for (QLabel *l : w.findChildren<QLabel *>()) {
        if (!onScreen(l, &w) || l->wordWrap() || l->text().isEmpty())
            continue;
        if (l->width() + 2 < l->sizeHint().width())
            out << QStringLiteral("%1 \"%2\": %3 px for %4")
                       .arg(pathOf(l), l->text().left(60))
                       .arg(l->width())
                       .arg(l->sizeHint().width());
    }
    return out;
}

} // namespace

class TestSmallScreen : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_project;

private Q_SLOTS:
    void initTestCase()
    {
        // Two runs of the demo, so Compare and Runs have something to show.
        m_project = m_dir.filePath(QStringLiteral("demo.grademl"));
        for (const char *run : {"first", "second"}) {
            const QString folder = m_dir.filePath(QString::fromLatin1(run));
            QVERIFY(QDir().mkpath(folder));
            for (const QString &f : QDir(QStringLiteral(GRADEML_DEMO)).entryList(QDir::Files))
                QVERIFY(QFile::copy(QStringLiteral(GRADEML_DEMO "/") + f,
                                    folder + QLatin1Char('/') + f));
            QCOMPARE(gmltest::runCli({QStringLiteral("import"), folder, QStringLiteral("--project"),
                                      m_project, QStringLiteral("--run"), QString::fromLatin1(run)})
                         .code,
                     0);
        }
    }

    void everyViewFits_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }

    void everyViewFits()
    {
        QFETCH(bool, dark);
        MainWindow w;
        setTheme(&w, dark ? QStringLiteral("dark") : QStringLiteral("light"), false);
        showQuietly(w, QSize(1366, 768));
        w.openProject(m_project);
        QVERIFY(waitLoaded(w));
        QStringList all;
        const auto look = [&](const QString &what) {
            QCoreApplication::processEvents();
            (void)w.grab();
            for (const QString &p : problems(w))
                all << what + QStringLiteral(": ") + p;
        };
        look(QStringLiteral("timeline"));
        QVERIFY(showAnalysis(w));
        for (const char *part : {"analysis", "ranks", "memory", "roofline"}) {
            QVERIFY(w.showView(QString::fromLatin1(part)));
            look(QString::fromLatin1(part));
        }
        QVERIFY(showGraph(w));
        look(QStringLiteral("graph"));
        QVERIFY(showCompare(w, {QStringLiteral("first"), QStringLiteral("second")}));
        look(QStringLiteral("compare"));
        QVERIFY(showSimulate(w));
        look(QStringLiteral("simulate"));
        QVERIFY(w.showView(QStringLiteral("query")));
        look(QStringLiteral("query"));
        QVERIFY(w.showView(QStringLiteral("timeline")));
        for (const char *pane :
             {"details", "aggregate", "flame", "collectives", "notes", "sources"}) {
            QVERIFY2(w.showView(QString::fromLatin1(pane)), pane);
            look(QString::fromLatin1(pane));
        }
        QVERIFY(showRuns(w));
        look(QStringLiteral("runs"));
        all.removeDuplicates();
        setTheme(&w, QStringLiteral("light"), false);
        QVERIFY2(all.isEmpty(), qPrintable(QStringLiteral("\n") + all.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestSmallScreen)
#include "tst_smallscreen.moc"
