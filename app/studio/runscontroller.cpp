// SPDX-License-Identifier: GPL-3.0-or-later
#include "runscontroller.h"

#include "projectsession.h"

#include "project.h"
#include "runmetrics.h"
#include "runsbrowser.h"

#include <QCoreApplication>
#include <QPointer>
#include <QtConcurrent>

namespace gml {

RunsController::RunsController(RunsBrowser *browser, QObject *parent)
    : QObject(parent), m_browser(browser)
{
    connect(browser, &RunsBrowser::moveRequested, this,
            [this](const QList<RunId> &runs, const QString &experiment, const QString &workload) {
                start([=](Project &p, QString *error) {
                    return assignRuns(p, runs, experiment, workload, error);
                });
            });
    connect(browser, &RunsBrowser::tagsRequested, this, [this](RunId run, const QJsonObject &tags) {
        start([=](Project &p, QString *error) { return setRunTags(p, run, tags, error); });
    });
}

RunsController::~RunsController() = default;

void RunsController::show(const Result &r)
{
    if (r.catalog) {
        m_browser->setCatalog(*r.catalog);
        m_browser->showMessage(
            (r.notes + (r.error.isEmpty() ? QStringList() : QStringList{r.error}))
                .join(QLatin1Char('\n')));
    } else {
        m_browser->showMessage(tr("Runs not listed: %1").arg(r.error));
    }
    Q_EMIT catalogLoaded(r.catalog ? int(r.catalog->runs.size()) : 0, r.error);
}

void RunsController::setProject(const QString &projectPath, const QStringList &notes)
{
    m_projectPath = projectPath;
    m_notes = notes;
    start({});
}

const RunCatalog &RunsController::catalog() const
{
    return m_browser->catalog();
}

void RunsController::waitForIdle()
{
    while (m_job.isRunning()) {
        m_job.waitForFinished();
        QCoreApplication::processEvents();
    }
}

void RunsController::start(Edit edit)
{
    if (m_projectPath.isEmpty())
        return;
    m_browser->showMessage(edit ? tr("Saving…") : tr("Listing runs…"));
    QPointer<RunsBrowser> browser(m_browser);
    const QString path = m_projectPath;
    const QStringList notes = m_notes;
    m_job.start(
        [=](const LatestJob<Result>::Context &job) {
            Result r;
            r.notes = notes;
            // One connection per thread (docs/layout.md, "Threads"): this worker opens its own.
            const bool writable = Project::whyNotWritable(path).isEmpty();
            auto project = Project::open(
                path, writable ? Project::Mode::ReadWrite : Project::Mode::ReadOnly, &r.error);
            if (!project)
                return r;
            if (edit && !edit(*project, &r.error))
                r.error = tr("The change was not saved: %1").arg(r.error);
            const QList<RunId> missing = runsWithoutMetrics(*project, sim::kRunMetricsVersion);
            if (!missing.isEmpty() && writable) {
                QStringList errors;
                sim::updateRunMetrics(
                    *project, missing, &errors, [&](int done, int total, const QString &run) {
                        QMetaObject::invokeMethod(
                            browser,
                            [=] {
                                if (browser && done < total)
                                    browser->showMessage(tr("Computing headline metrics %1/%2: %3")
                                                             .arg(done + 1)
                                                             .arg(total)
                                                             .arg(run));
                            },
                            Qt::QueuedConnection);
                        return !job.cancelled();
                    });
                if (!errors.isEmpty())
                    r.error = errors.join(QLatin1Char('\n'));
            }
            QString error;
            r.catalog = loadRunCatalog(*project, &error);
            if (!r.catalog)
                r.error = error;
            return r;
        },
        [this](Result r) { show(r); });
}

void RunsController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this,
            [this, &session] { setProject(session.path(), session.groupings()); });
}

} // namespace gml
