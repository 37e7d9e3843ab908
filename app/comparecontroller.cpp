// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparecontroller.h"

#include "comparepanel.h"
#include "project.h"
#include "tracediffview.h"

#include <QCoreApplication>
#include <QtConcurrent>

namespace gml {

namespace {

// The metric shown first: the one asked for, else the first (MLflow metrics come first).
QString firstMetric(const QStringList &metrics, const QString &preferred)
{
    return metrics.contains(preferred) ? preferred : metrics.value(0);
}

} // namespace

CompareController::CompareController(ComparePanel *panel, QObject *parent) : QObject(parent), m_panel(panel)
{
    connect(&m_series, &QFutureWatcher<SeriesResult>::finished, this, [this] {
        const SeriesResult r = m_series.result();
        if (r.job != m_job)
            return;
        m_seriesBusy = false;
        if (!r.error.isEmpty()) {
            m_panel->showMessage(r.error);
            m_error = r.error;
        } else {
            if (!r.metrics.isEmpty() || r.metric.isEmpty()) {
                m_panel->setRuns(m_runs, sim::comparisonKind(m_catalog, m_runs), r.metrics, m_catalog.paramKeys(), r.metric);
            }
            if (!r.metric.isEmpty())
                m_panel->setSeries(r.metric, r.series);
        }
        finishIfIdle();
    });
    connect(&m_diff, &QFutureWatcher<DiffResult>::finished, this, [this] {
        DiffResult r = m_diff.result();
        if (r.job != m_job)
            return;
        m_diffBusy = false;
        m_graphA = r.a;
        m_graphB = r.b;
        if (r.diff)
            m_panel->diffView()->setDiff(*r.diff);
        else
            m_panel->diffView()->showMessage(r.error);
        finishIfIdle();
    });
    connect(panel, &ComparePanel::metricRequested, this, [this](const QString &metric) {
        ++m_job; // an older metric's series is dropped; the diff goes on
        loadSeries(metric, false, {});
    });
    connect(panel->diffView(), &TraceDiffView::pairRequested, this, [this](int pair) { startDiff(pair); });
}

CompareController::~CompareController()
{
    m_series.waitForFinished();
    m_diff.waitForFinished();
}

void CompareController::setProject(const QString &projectPath, std::shared_ptr<const TimelineData> data)
{
    ++m_job;
    m_projectPath = projectPath;
    m_data = std::move(data);
    m_runs.clear();
    m_graphA.reset();
    m_graphB.reset();
    m_seriesBusy = m_diffBusy = false;
    m_panel->setRuns({}, QString(), {}, {});
    m_panel->diffView()->clear();
    m_panel->diffView()->setTimelineData(m_data);
}

void CompareController::compare(const RunCatalog &catalog, const QStringList &names, const QString &metric)
{
    if (m_projectPath.isEmpty())
        return;
    ++m_job;
    m_catalog = catalog;
    m_runs.clear();
    m_error.clear();
    for (const QString &name : names)
        if (const CatalogRun *r = catalog.run(name))
            m_runs.append(*r);
    m_graphA.reset();
    m_graphB.reset();
    m_panel->setRuns(m_runs, sim::comparisonKind(m_catalog, m_runs), {}, m_catalog.paramKeys());
    m_panel->showMessage(tr("Loading the runs' metrics…"));
    m_panel->diffView()->clear();
    loadSeries({}, true, metric);
    if (m_runs.size() >= 2) {
        m_panel->diffView()->showMessage(tr("Building the graphs of '%1' and '%2' to diff them…").arg(m_runs[0].name, m_runs[1].name));
        startDiff(-1);
    } else {
        m_panel->diffView()->showMessage(tr("A trace diff needs two runs."));
    }
}

void CompareController::loadSeries(const QString &metric, bool listMetrics, const QString &preferred)
{
    m_seriesBusy = true;
    const quint64 job = m_job;
    const QString path = m_projectPath;
    const RunCatalog catalog = m_catalog;
    QList<RunId> ids;
    for (const CatalogRun &r : std::as_const(m_runs))
        ids.append(r.id);
    m_series.setFuture(QtConcurrent::run([=]() {
        SeriesResult r;
        r.job = job;
        // One connection per thread (DESIGN.md): this worker opens its own.
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
    }));
}

void CompareController::startDiff(int pair)
{
    if (m_runs.size() < 2)
        return;
    m_diffBusy = true;
    const quint64 job = m_job;
    const QString path = m_projectPath;
    const CatalogRun a = m_runs[0], b = m_runs[1];
    auto ga = m_graphA, gb = m_graphB;
    m_diff.setFuture(QtConcurrent::run([=]() mutable {
        DiffResult r;
        r.job = job;
        if (!ga || !gb) {
            auto project = Project::open(path, Project::Mode::ReadOnly, &r.error);
            if (!project)
                return r;
            QString why;
            auto built = sim::DependencyGraph::build(*project, a.id, &why);
            if (!built) {
                r.error = tr("No trace diff: '%1': %2").arg(a.name, why);
                return r;
            }
            ga = std::make_shared<const sim::DependencyGraph>(std::move(*built));
            if (b.id == a.id) {
                gb = ga;
            } else {
                auto other = sim::DependencyGraph::build(*project, b.id, &why);
                if (!other) {
                    r.error = tr("No trace diff: '%1': %2").arg(b.name, why);
                    return r;
                }
                gb = std::make_shared<const sim::DependencyGraph>(std::move(*other));
            }
        }
        r.a = ga;
        r.b = gb;
        sim::DiffOptions options;
        options.pair = pair;
        r.diff = sim::diffTraces(*ga, a.name, *gb, b.name, options);
        return r;
    }));
}

void CompareController::finishIfIdle()
{
    if (!isBusy())
        Q_EMIT compared(m_error);
}

void CompareController::waitForIdle()
{
    while (isBusy()) {
        m_series.waitForFinished();
        m_diff.waitForFinished();
        QCoreApplication::processEvents();
    }
}

} // namespace gml
