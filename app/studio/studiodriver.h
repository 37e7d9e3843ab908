// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the screenshot mode and the tests drive the studio by (issue 71: they were the window's
// members, naming pages the window itself never names): a page's controller by its id, and a
// page shown and waited for. Each show*() returns false, with MainWindow::problem() saying why,
// when there is nothing to show.
#include <QString>
#include <QStringList>

namespace gml {

class AnalysisController;
class CompareController;
class GraphController;
class GraphView;
class MainWindow;
class NotesController;
class QueryController;
class RunsController;
class SimulateController;
class SourcesPanel;

GraphController *graphOf(const MainWindow &w);
GraphView *graphViewOf(const MainWindow &w);
AnalysisController *analysisOf(const MainWindow &w);
SourcesPanel *sourcesOf(const MainWindow &w);
QueryController *queryOf(const MainWindow &w);
NotesController *notesOf(const MainWindow &w);
RunsController *runsOf(const MainWindow &w);
CompareController *compareOf(const MainWindow &w);
SimulateController *simulateOf(const MainWindow &w);

// Shows the graph and waits until its model and layout are ready.
bool showGraph(MainWindow &w);
// Shows the Analysis view and waits for the current run's report.
bool showAnalysis(MainWindow &w);
// Raises the Runs pane and waits for its catalog.
bool showRuns(MainWindow &w);
// Compares `runs` in the Compare view and waits for its charts and diff; false when a run is
// not in the project.
bool showCompare(MainWindow &w, const QStringList &runs, const QString &metric = {});
// Shows the Simulate view and waits for the project's simulated runs.
bool showSimulate(MainWindow &w);

} // namespace gml
