// SPDX-License-Identifier: GPL-3.0-or-later
// grademl-studio: the GradeML Studio window.
#include "hugepages.h"
#include "mainwindow.h"
#include "mappedwriteguard.h"
#include "outputfile.h"
#include "studiodriver.h"
#include "studiotheme.h"
#include "windowlayout.h"

#include "comparepanel.h"
#include "graphcontroller.h"
#include "graphview.h"
#include "querycontroller.h"
#include "queryview.h"
#include "rankoverviewcontroller.h"
#include "statedump.h"
#include "timelinestate.h"
#include "timelineview.h"
#include "trackbar.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QFont>
#include <QJsonDocument>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <optional>

namespace {

// The studio's options, in the order --help lists them.
struct StudioOptions
{
    QCommandLineOption screenshot{
        QStringLiteral("screenshot"),
        QStringLiteral("Render the window after loading to OUT.png and exit"),
        QStringLiteral("OUT.png")};
    QCommandLineOption size{QStringLiteral("size"), QStringLiteral("Window size for --screenshot"),
                            QStringLiteral("WxH"), QStringLiteral("1600x1000")};
    QCommandLineOption select{
        QStringLiteral("select"),
        QStringLiteral("With --screenshot: find this slice name and select its first match"),
        QStringLiteral("NAME")};
    QCommandLineOption range{
        QStringLiteral("range"),
        QStringLiteral("With --screenshot: show this window of the timeline, in nanoseconds from "
                       "the start of the runs in focus (START:END)"),
        QStringLiteral("START:END")};
    QCommandLineOption filter{
        QStringLiteral("filter"),
        QStringLiteral("With --screenshot: the track filter's text (track, thread and stream "
                       "names, kinds, and the names of the slices a track holds)"),
        QStringLiteral("TEXT")};
    QCommandLineOption rows{QStringLiteral("rows"),
                            QStringLiteral("With --screenshot: 'collapsed' collapses every row "
                                           "(Rows › Collapse All), 'expanded' expands them, "
                                           "'ranks' shows each rank as one summary row (Rows › "
                                           "Ranks as Summary Rows)"),
                            QStringLiteral("collapsed|expanded|ranks")};
    QCommandLineOption panel{
        QStringLiteral("panel"),
        QStringLiteral(
            "With --screenshot: bring this view or panel to the front (timeline, analysis, ranks, "
            "graph, compare, simulate, query, details, aggregate, flame, sources, runs, whatif, "
            "roofline, memory)"),
        QStringLiteral("NAME")};
    QCommandLineOption whatif{
        QStringLiteral("whatif"),
        QStringLiteral("With --screenshot: show the what-if panel replaying these presets "
                       "or scales (comma-separated: amp, fusedadam, input=N, input=free, "
                       "REGEX=FACTOR)"),
        QStringLiteral("transforms")};
    QCommandLineOption graphFocus{
        QStringLiteral("graph-focus"),
        QStringLiteral("With --screenshot: open this node of the execution graph (as a "
                       "double-click does) and reveal it in the timeline"),
        QStringLiteral("NAME")};
    QCommandLineOption graphRun{
        QStringLiteral("graph-run"),
        QStringLiteral("With --screenshot: show this run's execution graph, or 'workflow' for "
                       "the project's workflow (the default when it has several runs)"),
        QStringLiteral("NAME")};
    QCommandLineOption compareRuns{
        QStringLiteral("runs"),
        QStringLiteral("With --screenshot: compare these runs (comma-separated) in the "
                       "Compare panel"),
        QStringLiteral("A,B")};
    QCommandLineOption compareMetric{
        QStringLiteral("metric"),
        QStringLiteral("With --runs: chart this metric (an MLflow metric or a counter such "
                       "as 'GPU utilisation')"),
        QStringLiteral("NAME")};
    QCommandLineOption compareTab{
        QStringLiteral("compare-tab"),
        QStringLiteral(
            "With --runs: show this tab of the Compare panel (metrics, params, diff, validation)"),
        QStringLiteral("TAB"), QStringLiteral("metrics")};
    QCommandLineOption stateOut{
        QStringLiteral("state"),
        QStringLiteral("With --screenshot: also write the window's state (views, panels, runs in "
                       "focus, time window, tracks, ruler labels) to OUT.json"),
        QStringLiteral("OUT.json")};
    QCommandLineOption queryOption{
        QStringLiteral("query"),
        QStringLiteral("With --screenshot: show the Query view running this SQL"),
        QStringLiteral("SQL")};
    QCommandLineOption themeOption{
        QStringLiteral("theme"),
        QStringLiteral("light, dark or system (default: the last chosen; screenshots: light)"),
        QStringLiteral("THEME")};
    QCommandLineOption followOption{
        QStringLiteral("follow"),
        QStringLiteral("Follow this folder while a job writes it: import what arrives "
                       "and keep the timeline at its end"),
        QStringLiteral("DIR")};
    QCommandLineOption recordOption{
        QStringLiteral("record"),
        QStringLiteral("Record the command given after -- (grademl record) into a new "
                       "folder and follow it; closing the window stops both")};
    QCommandLineOption intervalOption{
        QStringLiteral("interval"),
        QStringLiteral("With --record: how often to sample (default 100ms)"),
        QStringLiteral("DURATION")};
    QCommandLineOption outOption{
        QStringLiteral("out"),
        QStringLiteral("With --record: the folder to record into (default: a new one under "
                       "the user's data folder)"),
        QStringLiteral("DIR")};
    QCommandLineOption liveSeconds{
        QStringLiteral("live-seconds"),
        QStringLiteral("With --screenshot and --follow or --record: take the picture after "
                       "this many seconds of live data"),
        QStringLiteral("SECONDS"), QStringLiteral("0")};

    void addTo(QCommandLineParser &parser) const
    {
        parser.addOption(screenshot);
        parser.addOption(size);
        parser.addOption(select);
        parser.addOption(range);
        parser.addOption(filter);
        parser.addOption(rows);
        parser.addOption(panel);
        parser.addOption(whatif);
        parser.addOption(graphFocus);
        parser.addOption(graphRun);
        parser.addOption(compareRuns);
        parser.addOption(compareMetric);
        parser.addOption(compareTab);
        parser.addOption(stateOut);
        parser.addOption(queryOption);
        parser.addOption(themeOption);
        parser.addOption(followOption);
        parser.addOption(recordOption);
        parser.addOption(intervalOption);
        parser.addOption(outOption);
        parser.addOption(liveSeconds);
    }
};

// With --screenshot: opens what was given (or waits for the followed folder's first data), then
// shows what the options ask for: a slice selected, a view or panel in front, runs compared, the
// what-if panel replaying. `ok` turns false when a view could not be shown; an exit code when the
// options are wrong.
std::optional<int> showRequested(gml::MainWindow &window, const QCommandLineParser &parser,
                                 const StudioOptions &o, const QStringList &paths, bool live,
                                 bool &ok)
{
    QEventLoop loop;
    QObject::connect(&window, &gml::MainWindow::loaded, &loop, [&](bool success) {
        ok = success;
        loop.quit();
    });
    if (!live)
        window.openPath(paths.first());
    loop.exec();
    // Live: the picture after this many seconds of data arriving.
    if (ok && live) {
        QElapsedTimer waited;
        waited.start();
        const qint64 ms = qint64(parser.value(o.liveSeconds).toDouble() * 1000);
        while (waited.elapsed() < ms)
            window.follower().waitForUpdate(int(std::max<qint64>(1, ms - waited.elapsed())));
    }
    if (ok && parser.isSet(o.filter)) {
        if (auto *bar = window.findChild<gml::TrackBar *>()) {
            const QSignalBlocker quiet(bar->filterEdit()); // applied now, not after its pause
            bar->filterEdit()->setText(parser.value(o.filter));
        }
        window.timeline()->setTrackFilter(parser.value(o.filter),
                                          window.timeline()->trackFilter().only);
        window.waitForSearch(); // what the tracks hold
    }
    if (ok && parser.isSet(o.rows)) {
        const QString rows = parser.value(o.rows);
        if (rows != QLatin1String("collapsed") && rows != QLatin1String("expanded") &&
            rows != QLatin1String("ranks")) {
            std::fprintf(stderr,
                         "grademl-studio: --rows expects collapsed, expanded or ranks, got "
                         "'%s'\n",
                         qPrintable(rows));
            return 2;
        }
        if (rows == QLatin1String("ranks"))
            window.timeline()->setRankRows(true);
        else
            window.timeline()->collapseAll(rows == QLatin1String("collapsed"));
    }
    if (ok && parser.isSet(o.range)) {
        const QStringList ab = parser.value(o.range).split(QLatin1Char(':'));
        bool okA = false, okB = false;
        const qint64 a = ab.value(0).toLongLong(&okA), b = ab.value(1).toLongLong(&okB);
        if (ab.size() != 2 || !okA || !okB || b <= a) {
            std::fprintf(stderr,
                         "grademl-studio: --range expects START:END in nanoseconds with END > "
                         "START, got '%s'\n",
                         qPrintable(parser.value(o.range)));
            return 2;
        }
        const auto *state = window.state();
        window.state()->setWindow(state->traceStart() + a, state->traceStart() + b);
    }
    if (ok && parser.isSet(o.select)) {
        window.find(parser.value(o.select), false);
        window.waitForSearch();
    }
    if (parser.isSet(o.panel)) {
        if (!window.showView(parser.value(o.panel))) {
            QStringList names{
                QStringLiteral("timeline"), QStringLiteral("analysis"), QStringLiteral("ranks"),
                QStringLiteral("roofline"), QStringLiteral("memory"),   QStringLiteral("graph"),
                QStringLiteral("compare"),  QStringLiteral("simulate"), QStringLiteral("query"),
                QStringLiteral("details"),  QStringLiteral("aggregate")};
            for (const auto &page : window.pages())
                names << page->id();
            names << QStringLiteral("sources") << QStringLiteral("runs")
                  << QStringLiteral("whatif");
            std::fprintf(stderr, "grademl-studio: no view or panel '%s' (%s)\n",
                         qPrintable(parser.value(o.panel)),
                         qPrintable(names.join(QStringLiteral(", "))));
            return 2;
        }
        if (parser.value(o.panel) == QLatin1String("runs"))
            ok = gml::showRuns(window);
        if (parser.value(o.panel) == QLatin1String("analysis") ||
            parser.value(o.panel) == QLatin1String("ranks") ||
            parser.value(o.panel) == QLatin1String("roofline") ||
            parser.value(o.panel) == QLatin1String("memory"))
            ok = gml::showAnalysis(window);
        if (parser.value(o.panel) == QLatin1String("simulate"))
            ok = gml::showSimulate(window);
    }
    if (ok && parser.isSet(o.compareRuns)) {
        const QStringList runs =
            parser.value(o.compareRuns).split(QLatin1Char(','), Qt::SkipEmptyParts);
        const QStringList tabs{QStringLiteral("metrics"), QStringLiteral("params"),
                               QStringLiteral("diff"), QStringLiteral("validation")};
        const int tab = int(tabs.indexOf(parser.value(o.compareTab)));
        if (runs.size() < 2 || tab < 0) {
            std::fprintf(stderr, "grademl-studio: --runs needs two runs or more; --compare-tab "
                                 "is one of metrics, params, diff, validation\n");
            return 2;
        }
        ok = gml::showCompare(window, runs, parser.value(o.compareMetric));
        if (auto *p = window.findChild<gml::ComparePanel *>(); ok && p)
            p->showTab(tab);
    }
    if (ok && (parser.isSet(o.whatif) || parser.value(o.panel) == QLatin1String("whatif"))) {
        QList<gml::sim::Transform> transforms;
        for (const QString &item :
             parser.value(o.whatif).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            QString why;
            auto t = gml::sim::parsePreset(item.trimmed(), nullptr);
            if (!t)
                t = gml::sim::parseScale(item.trimmed(), &why);
            if (!t) {
                std::fprintf(stderr, "grademl-studio: --whatif: %s\n", qPrintable(why));
                return 2;
            }
            transforms.append(*t);
        }
        QEventLoop loop;
        QObject::connect(&window, &gml::MainWindow::whatIfShown, &loop, [&](bool success) {
            ok = success;
            loop.quit();
        });
        window.showWhatIf(transforms);
        loop.exec();
    }
    return std::nullopt;
}

// The graph dock is drawn once its model is built and laid out (off the GUI thread): when it is
// in view, the screenshot waits for it rather than showing "Laying out…"; --graph-run and
// --graph-focus choose what it shows.
std::optional<int> showGraphRequested(gml::MainWindow &window, const QCommandLineParser &parser,
                                      const StudioOptions &o, const QStringList &paths, bool &ok)
{
    const bool graphInView = window.frontView() == QLatin1String("graph");
    if (ok && !paths.isEmpty() &&
        (graphInView || parser.isSet(o.graphFocus) || parser.isSet(o.graphRun) ||
         parser.value(o.panel) == QLatin1String("graph"))) {
        ok = gml::showGraph(window);
        if (ok && parser.isSet(o.graphRun)) {
            if (parser.value(o.graphRun) == QLatin1String("workflow"))
                gml::graphOf(window)->selectWorkflow();
            else
                gml::graphOf(window)->selectRun(parser.value(o.graphRun));
            ok = gml::showGraph(window);
        }
        if (ok && parser.isSet(o.graphFocus)) {
            const int node = gml::graphViewOf(window)->model()->find(parser.value(o.graphFocus));
            if (node < 0) {
                std::fprintf(stderr, "grademl-studio: --graph-focus: no node named '%s'\n",
                             qPrintable(parser.value(o.graphFocus)));
                return 2;
            }
            gml::graphViewOf(window)->setFocusNode(node);
            gml::graphViewOf(window)->waitForLayout();
            gml::graphOf(window)->reveal(node);
        }
    }
    return std::nullopt;
}

// --screenshot: the real window rendered offscreen after loading, written to the PNG (and the
// window's state to --state's JSON); the exit status says whether everything asked was shown.
int takeScreenshot(gml::MainWindow &window, const QCommandLineParser &parser,
                   const StudioOptions &o, const QStringList &paths, bool live,
                   const std::function<bool()> &startLive)
{
    // Headless: load, render the real window offscreen, write the PNG, exit.
    const QStringList wh = parser.value(o.size).split(QLatin1Char('x'));
    const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
    if (wh.size() != 2 || w < 200 || h < 150) {
        std::fprintf(stderr, "grademl-studio: --size expects WxH (at least 200x150), got '%s'\n",
                     qPrintable(parser.value(o.size)));
        return 2;
    }
    window.setInteractive(false);
    window.resize(w, h);
    window.show();
    bool ok = true;
    if (live && !startLive())
        return 1;
    if (!paths.isEmpty() || live)
        if (const auto stop = showRequested(window, parser, o, paths, live, ok))
            return *stop;
    // The graph dock is drawn once its model is built and laid out (off the GUI thread): when
    // it is in view, the screenshot waits for it rather than showing "Laying out…".
    if (const auto stop = showGraphRequested(window, parser, o, paths, ok))
        return *stop;
    if (ok && parser.isSet(o.queryOption)) {
        window.showView(QStringLiteral("query"));
        if (auto *view = window.findChild<gml::QueryView *>())
            view->editor()->setPlainText(parser.value(o.queryOption));
        gml::queryOf(window)->setRemember(false); // a screenshot leaves the user's history alone
        gml::queryOf(window)->run(parser.value(o.queryOption));
        gml::queryOf(window)->waitForIdle();
    }
    window.rankOverview()->waitForIdle();
    QCoreApplication::processEvents();
    for (const auto &page : window.pages()) // a page computes when it is in view
        page->waitForIdle();
    QCoreApplication::processEvents();
    if (auto *timeline = window.findChild<gml::TimelineView *>())
        timeline->waitForPages();
    const QString out = parser.value(o.screenshot);
    {
        gml::OutputFile file(out); // never a project, a link or a device
        const QString format = QFileInfo(out).suffix().toLower() == QLatin1String("jpg")
                                   ? QStringLiteral("JPG")
                                   : QStringLiteral("PNG");
        if (!file.open() || !window.grab().save(file.device(), qPrintable(format)) ||
            !file.commit()) {
            std::fprintf(stderr, "grademl-studio: cannot write the screenshot: %s\n",
                         qPrintable(file.error().isEmpty() ? out : file.error()));
            return 1;
        }
    }
    std::fprintf(stderr, "grademl-studio: wrote %s\n", qPrintable(out));
    // A track it could not read (a cluster project's shard gone) is drawn empty: said, and a
    // failure.
    bool unreadable = false;
    if (const auto data = window.timeline()->data();
        data && data->pager && !data->pager->errorString().isEmpty()) {
        std::fprintf(stderr, "grademl-studio: part of the timeline cannot be read: %s\n",
                     qPrintable(data->pager->errorString()));
        unreadable = true;
    }
    if (parser.isSet(o.stateOut)) {
        QString why;
        if (!gml::writeOutput(parser.value(o.stateOut),
                              QJsonDocument(gml::studioState(window)).toJson(), &why)) {
            std::fprintf(stderr, "grademl-studio: cannot write the state: %s\n", qPrintable(why));
            return 1;
        }
    }
    if (!ok) // every non-zero exit says why
        std::fprintf(stderr, "grademl-studio: %s\n",
                     qPrintable(window.problem().isEmpty()
                                    ? QStringLiteral("the requested view could not be shown")
                                    : window.problem()));
    return ok && !unreadable ? 0 : 1;
}

} // namespace

namespace {

// The command line the studio takes (--help prints it).
void describe(QCommandLineParser &parser, const StudioOptions &o)
{
    parser.setApplicationDescription(
        QStringLiteral("Performance explorer for machine-learning workflows"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("path"),
                                 QStringLiteral("A trace folder or a .grademl project"),
                                 QStringLiteral("[FOLDER | FILE.grademl]"));
    o.addTo(parser);
}

// --help and --version asked (before a "--" that starts a command to record): they need no
// display, so they are answered by a QCoreApplication on any machine.
bool onlyHelp(int argc, char **argv)
{
    for (int i = 1; i < argc && qstrcmp(argv[i], "--") != 0; ++i)
        for (const char *flag : {"--help", "-h", "-?", "--help-all", "--version", "-v"})
            if (qstrcmp(argv[i], flag) == 0)
                return true;
    return false;
}

} // namespace

int main(int argc, char **argv)
{
    // The studio imports: it asks glibc for huge pages (hugepages.h), starting again here.
    gml::restartWithHugePages(argc, argv, 0);
    gml::installMappedWriteGuard(
        "grademl-studio"); // a project's -shm that cannot be written: said, not SIGBUS
    if (onlyHelp(argc, argv)) {
        QCoreApplication core(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("grademl-studio"));
        QCoreApplication::setApplicationVersion(QStringLiteral(GRADEML_VERSION));
        QCommandLineParser parser;
        const StudioOptions o;
        describe(parser, o);
        parser.process(core); // prints and exits
        return 0;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("grademl-studio"));
    QApplication::setOrganizationName(QStringLiteral("GradeML"));
    QApplication::setApplicationVersion(QStringLiteral(GRADEML_VERSION));
    // The installed desktop entry (packaging/): lets the desktop match windows to its icon.
    QGuiApplication::setDesktopFileName(QStringLiteral("org.grademl.studio"));

    QCommandLineParser parser;
    const StudioOptions o;
    describe(parser, o);
    parser.process(app);

    gml::setSystemDark(app.palette().color(QPalette::Window).lightness() < 128);
    const QString theme = parser.value(o.themeOption);
    if (parser.isSet(o.themeOption) && theme != QLatin1String("light") &&
        theme != QLatin1String("dark") && theme != QLatin1String("system")) {
        std::fprintf(stderr, "grademl-studio: --theme expects light, dark or system, got '%s'\n",
                     qPrintable(theme));
        return 2;
    }
    gml::MainWindow window;
    // The theme: --theme (not remembered), else the user's last choice; a screenshot is light
    // unless asked, so its pictures are the same for everyone.
    gml::setTheme(&window,
                  parser.isSet(o.themeOption)  ? theme
                  : parser.isSet(o.screenshot) ? QStringLiteral("light")
                                               : gml::savedTheme(),
                  false);
    const QStringList paths = parser.positionalArguments();
    // Live: a folder to follow, or a command to record (everything after --) and follow.
    const bool live = parser.isSet(o.followOption) || parser.isSet(o.recordOption);
    if (parser.isSet(o.recordOption) && paths.isEmpty()) {
        std::fprintf(stderr, "grademl-studio: --record needs a command after --\n");
        return 2;
    }
    auto startLive = [&]() -> bool {
        if (parser.isSet(o.followOption)) {
            window.followFolder(parser.value(o.followOption));
            return true;
        }
        QString why;
        if (window.recordCommand(paths, parser.value(o.intervalOption), parser.value(o.outOption),
                                 &why))
            return true;
        std::fprintf(stderr, "grademl-studio: %s\n", qPrintable(why));
        return false;
    };
    if (!parser.isSet(o.screenshot)) {
        window.windowLayout().restore();
        window.show();
        if (live) {
            if (!startLive())
                return 1;
        } else if (!paths.isEmpty()) {
            window.openPath(paths.first());
        }
        return QApplication::exec();
    }

    return takeScreenshot(window, parser, o, paths, live, startLive);
}
