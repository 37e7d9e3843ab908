// SPDX-License-Identifier: GPL-3.0-or-later
#include "studiodriver.h"

#include "analysiscontroller.h"
#include "comparecontroller.h"
#include "graphcontroller.h"
#include "graphview.h"
#include "mainwindow.h"
#include "notescontroller.h"
#include "querycontroller.h"
#include "runscontroller.h"
#include "simulatecontroller.h"
#include "sourcespanel.h"

namespace gml {

GraphController *graphOf(const MainWindow &w)
{
    return w.controllerOf<GraphController>(QStringLiteral("graph"));
}

GraphView *graphViewOf(const MainWindow &w)
{
    return graphOf(w)->view();
}

AnalysisController *analysisOf(const MainWindow &w)
{
    return w.controllerOf<AnalysisController>(QStringLiteral("analysis"));
}

SourcesPanel *sourcesOf(const MainWindow &w)
{
    return w.controllerOf<SourcesPanel>(QStringLiteral("sources"));
}

QueryController *queryOf(const MainWindow &w)
{
    return w.controllerOf<QueryController>(QStringLiteral("query"));
}

NotesController *notesOf(const MainWindow &w)
{
    return w.controllerOf<NotesController>(QStringLiteral("notes"));
}

RunsController *runsOf(const MainWindow &w)
{
    return w.controllerOf<RunsController>(QStringLiteral("runs"));
}

CompareController *compareOf(const MainWindow &w)
{
    return w.controllerOf<CompareController>(QStringLiteral("compare"));
}

SimulateController *simulateOf(const MainWindow &w)
{
    return w.controllerOf<SimulateController>(QStringLiteral("simulate"));
}

namespace {
// A project must be open (`data`: its timeline loaded too).
bool projectOpen(MainWindow &w, bool data = false)
{
    if (data ? bool(w.session().data()) : !w.session().path().isEmpty())
        return true;
    w.setProblem(QObject::tr("no project is open"));
    return false;
}
} // namespace

bool showGraph(MainWindow &w)
{
    if (!w.showPage(QStringLiteral("graph")))
        return false;
    graphViewOf(w)->waitForLayout();
    // A project with nothing to draw (monitoring only, an empty run) shows so; not a failure.
    w.setProblem(graphOf(w)->error());
    return w.problem().isEmpty();
}

bool showSimulate(MainWindow &w)
{
    return projectOpen(w) && w.showPage(QStringLiteral("simulate"));
}

bool showCompare(MainWindow &w, const QStringList &runs, const QString &metric)
{
    if (!projectOpen(w))
        return false;
    RunsController *catalog = runsOf(w);
    catalog->waitForIdle();
    for (const QString &r : runs)
        if (!catalog->catalog().run(r)) {
            w.setProblem(QObject::tr("no run '%1' in the project").arg(r));
            return false;
        }
    w.showView(QStringLiteral("compare"));
    compareOf(w)->compare(catalog->catalog(), runs, metric);
    compareOf(w)->waitForIdle();
    return true;
}

bool showRuns(MainWindow &w)
{
    return projectOpen(w) && w.showPage(QStringLiteral("runs"));
}

bool showAnalysis(MainWindow &w)
{
    return projectOpen(w, true) && w.showPage(QStringLiteral("analysis"));
}

} // namespace gml
