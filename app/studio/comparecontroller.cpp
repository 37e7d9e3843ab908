// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparecontroller.h"

#include "projectsession.h"

#include "comparepanel.h"
#include "project.h"
#include "tracediffview.h"
#include "validationview.h"

#include <QCoreApplication>
#include <QtConcurrent>

#include <set>

namespace gml {

namespace {

// The metric shown first: the one asked for, else the first (MLflow metrics come first).
QString firstMetric(const QStringList &metrics, const QString &preferred)
{
    return metrics.contains(preferred) ? preferred : metrics.value(0);
}

} // namespace

CompareController::CompareController(ComparePanel *panel, QObject *parent)
    : QObject(parent), m_panel(panel)
{
    connect(panel, &ComparePanel::metricRequested, this, [this](const QString &metric) {
        loadSeries(metric, false, {}); // an older metric's series is dropped; the diff goes on
    });
    connect(panel->diffView(), &TraceDiffView::pairRequested, this,
            [this](int pair) { startDiff(pair); });
    connect(panel->diffView(), &TraceDiffView::sidesRequested, this, [this](int a, int b) {
        m_sideA = a;
        m_sideB = b;
        startDiff(-1);
    });
}

CompareController::~CompareController() = default;

void CompareController::showSeries(const SeriesResult &r)
{
    if (!r.error.isEmpty()) {
        m_panel->showMessage(r.error);
        m_error = r.error;
    } else {
        if (!r.metrics.isEmpty() || r.metric.isEmpty()) {
            m_panel->setRuns(m_runs, sim::comparisonKind(m_catalog, m_runs), r.metrics,
                             m_catalog.paramKeys(), r.metric);
        }
        if (!r.metric.isEmpty())
            m_panel->setSeries(r.metric, r.series);
    }
    finishIfIdle();
}

void CompareController::showDiff(const DiffResult &r)
{
    m_graphs = r.graphs;
    if (r.diff)
        m_panel->diffView()->setDiff(*r.diff);
    else
        m_panel->diffView()->showMessage(r.error);
    if (r.validation)
        m_panel->validationView()->setReport(*r.validation, r.validationNote);
    else
        m_panel->validationView()->showMessage(
            tr("Compare a predicted run (What-if, Save as Run) with a measured run, as the "
               "first two, to see how "
               "far its prediction lands."));
    finishIfIdle();
}

void CompareController::setProject(const QString &projectPath,
                                   std::shared_ptr<const TimelineData> data)
{
    m_seriesJob.cancel();
    m_diffJob.cancel();
    m_projectPath = projectPath;
    m_data = std::move(data);
    m_runs.clear();
    m_graphs.clear();
    m_panel->setRuns({}, QString(), {}, {});
    m_panel->diffView()->clear();
    m_panel->diffView()->setTimelineData(m_data);
}

void CompareController::compare(const RunCatalog &catalog, const QStringList &names,
                                const QString &metric)
{
    if (m_projectPath.isEmpty())
        return;
    m_seriesJob.cancel();
    m_diffJob.cancel(); // the last comparison's diff, if still running, is dropped
    m_catalog = catalog;
    m_runs.clear();
    m_error.clear();
    for (const QString &name : names)
        if (const CatalogRun *r = catalog.run(name))
            m_runs.append(*r);
    m_graphs.clear();
    m_panel->setRuns(m_runs, sim::comparisonKind(m_catalog, m_runs), {}, m_catalog.paramKeys());
    m_panel->showMessage(tr("Loading the runs' metrics…"));
    m_panel->diffView()->clear();
    loadSeries({}, true, metric);
    // The diff's sides: each run at its lowest rank, then each rank of the runs with several.
    m_sides.clear();
    m_sideRuns.clear();
    for (const CatalogRun &r : std::as_const(m_runs)) {
        m_sides.append({r.name, -1});
        m_sideRuns.append(r.id);
    }
    if (m_data)
        for (const CatalogRun &r : std::as_const(m_runs))
            for (const RunSummary &summary : m_data->runs) {
                if (summary.id != r.id)
                    continue;
                std::set<int> ranks;
                for (const TrackSummary &t : summary.tracks)
                    if (t.rank >= 0)
                        ranks.insert(t.rank);
                if (ranks.size() > 1)
                    for (int rank : ranks) {
                        m_sides.append({r.name, rank});
                        m_sideRuns.append(r.id);
                    }
            }
    m_sideA = 0;
    m_sideB = m_runs.size() >= 2 ? 1 : 0;
    if (m_runs.size() >= 2) {
        m_panel->diffView()->setSides(m_sides, m_sideA, m_sideB);
        m_panel->diffView()->showMessage(tr("Building the graphs of '%1' and '%2' to diff them…")
                                             .arg(m_runs[0].name, m_runs[1].name));
        startDiff(-1);
    } else {
        m_panel->diffView()->showMessage(tr("A trace diff needs two runs."));
    }
}

void CompareController::loadSeries(const QString &metric, bool listMetrics,
                                   const QString &preferred)
{
    const QString path = m_projectPath;
    const RunCatalog catalog = m_catalog;
    QList<RunId> ids;
    for (const CatalogRun &r : std::as_const(m_runs))
        ids.append(r.id);
    m_seriesJob.start(
        [=](const SeriesJob::Context &) {
            SeriesResult r;
            // One connection per thread (docs/layout.md, "Threads"): this worker opens its own.
            auto project = Project::open(path, Project::Mode::ReadOnly, &r.error);
            if (!project)
                return r;
            r.metric = metric;
            if (listMetrics) {
                r.metrics = sim::comparableMetrics(*project, ids);
                r.metric = firstMetric(r.metrics, preferred);
            }
            if (!r.metric.isEmpty())
                r.series = sim::metricSeries(*project, catalog, ids, r.metric, &r.error);
            return r;
        },
        [this](SeriesResult r) { showSeries(r); });
}

void CompareController::startDiff(int pair)
{
    if (m_runs.size() < 2 || m_sideA >= m_sides.size() || m_sideB >= m_sides.size())
        return;
    // A diff of other sides or another pair replaces the one running (m_diffJob).
    const QString path = m_projectPath;
    const sim::DiffSide a = m_sides[m_sideA], b = m_sides[m_sideB];
    const RunId runA = m_sideRuns[m_sideA], runB = m_sideRuns[m_sideB];
    auto graphs = m_graphs;
    // A predicted run and a measured one among the two: validated, the predicted first.
    auto runOf = [&](RunId id) {
        for (const CatalogRun &r : m_runs)
            if (r.id == id)
                return r;
        return CatalogRun{};
    };
    CatalogRun predicted = runOf(runA), measured = runOf(runB);
    if (predicted.kind != QLatin1String("predicted"))
        std::swap(predicted, measured);
    const bool validate = runA != runB && predicted.kind == QLatin1String("predicted") &&
                          measured.kind == QLatin1String("measured");
    m_diffJob.start(
        [=](const DiffJob::Context &) mutable {
            DiffResult r;
            // The graphs not built yet (one per run: two ranks of a run diff one graph).
            for (const auto &[id, name] : {std::pair(runA, a.run), std::pair(runB, b.run)}) {
                if (graphs.contains(id))
                    continue;
                auto project = Project::open(path, Project::Mode::ReadOnly, &r.error);
                if (!project)
                    return r;
                QString why;
                auto built = sim::DependencyGraph::build(*project, id, &why);
                if (!built) {
                    r.error = tr("No trace diff: '%1': %2").arg(name, why);
                    return r;
                }
                graphs.insert(id, std::make_shared<const sim::DependencyGraph>(std::move(*built)));
            }
            r.graphs = graphs;
            sim::DiffOptions options;
            options.pair = pair;
            options.rankA = a.rank;
            options.rankB = b.rank;
            r.diff =
                sim::diffTraces(*graphs.value(runA), a.run, *graphs.value(runB), b.run, options);
            if (validate) {
                r.validation =
                    sim::validateRuns(*graphs.value(predicted.id), *graphs.value(measured.id));
                r.validation->predictedRun = predicted.name;
                r.validation->measuredRun = measured.name;
                if (!predicted.scenario.isEmpty())
                    r.validation->transforms << predicted.scenario;
                r.validation->assumptions
                    << tr("the scenario: %1")
                           .arg(predicted.scenario.isEmpty() ? tr("not recorded")
                                                             : predicted.scenario);
                if (predicted.measuredRun == measured.name)
                    r.validationNote =
                        tr("%1 is the run it was predicted from: the errors are the predicted "
                           "change, "
                           "not a "
                           "validation. Compare it with a run measured with the change made.")
                            .arg(measured.name);
            }
            return r;
        },
        [this](DiffResult r) { showDiff(r); });
}

void CompareController::finishIfIdle()
{
    if (!isBusy())
        Q_EMIT compared(m_error);
}

void CompareController::waitForIdle()
{
    while (isBusy()) {
        m_seriesJob.waitForFinished();
        m_diffJob.waitForFinished();
        QCoreApplication::processEvents();
    }
}

void CompareController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this,
            [this, &session] { setProject(session.path(), session.data()); });
}

} // namespace gml
