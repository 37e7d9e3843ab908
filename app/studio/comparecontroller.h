// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "latestjob.h"
#include "runcompare.h"
#include "timelinedata.h"
#include "validation.h"

#include <QHash>
#include <QObject>

#include <memory>

namespace gml {

class ProjectSession;

class ComparePanel;

// Wires the Compare panel: for the runs picked in the Runs browser, finds the metrics they can
// be charted by and loads the chosen metric's series, then builds the first two runs' graphs
// and diffs them, all off the GUI thread (a newer comparison drops an older one's results).
// The diff view's sides can be any two of the runs, or two ranks of a run with several. The
// graphs are kept, so picking another aligned iteration or rank only diffs again.
class CompareController : public QObject
{
    Q_OBJECT
public:
    // Takes each project the session opens (projectsession.h).
    void subscribe(const ProjectSession &session);
    explicit CompareController(ComparePanel *panel, QObject *parent = nullptr);
    ~CompareController() override;

    void setProject(const QString &projectPath, std::shared_ptr<const TimelineData> data);
    // `names`: runs of `catalog`, two or more; `metric`: shown first when the runs have it.
    void compare(const RunCatalog &catalog, const QStringList &names, const QString &metric = {});
    bool isBusy() const { return m_seriesJob.isRunning() || m_diffJob.isRunning(); }
    void waitForIdle(); // tests and screenshots: series and diff are shown on return

Q_SIGNALS:
    void compared(const QString &error); // the series and the diff are shown (or failed)

private:
    struct SeriesResult
    {
        QStringList metrics; // empty on a metric change
        QString metric;
        std::vector<sim::MetricSeries> series;
        QString error;
    };
    struct DiffResult
    {
        QHash<RunId, std::shared_ptr<const sim::DependencyGraph>> graphs; // those built or kept
        std::optional<sim::TraceDiff> diff;
        QString error;
        // A predicted run against a measured one: how far its prediction lands.
        std::optional<sim::ValidationReport> validation;
        QString validationNote;
    };
    void loadSeries(const QString &metric, bool listMetrics, const QString &preferred);
    void startDiff(int pair);
    void finishIfIdle();
    void showSeries(const SeriesResult &r);
    void showDiff(const DiffResult &r);

    ComparePanel *m_panel;
    QString m_projectPath;
    std::shared_ptr<const TimelineData> m_data;
    RunCatalog m_catalog;
    QList<CatalogRun> m_runs;
    QHash<RunId, std::shared_ptr<const sim::DependencyGraph>> m_graphs;
    QList<sim::DiffSide> m_sides; // what the diff view offers
    QList<RunId> m_sideRuns;      // the run of each side
    int m_sideA = 0, m_sideB = 1;
    // The metric series and the trace diff run apart: a new metric leaves the diff going.
    using SeriesJob = LatestJob<SeriesResult>;
    using DiffJob = LatestJob<DiffResult>;
    SeriesJob m_seriesJob{this};
    DiffJob m_diffJob{this};
    QString m_error;
};

} // namespace gml
