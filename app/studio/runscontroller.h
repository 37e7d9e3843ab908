// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "latestjob.h"
#include "runcatalog.h"

#include <QFutureWatcher>
#include <QObject>

#include <atomic>
#include <functional>
#include <memory>

namespace gml {

class ProjectSession;

class RunsBrowser;

// Wires the Runs browser: loads the project's run catalog off the GUI thread, computing first
// the headline metrics of runs that have none (with progress, and stopped when another project
// is opened), and applies the browser's edits (moving runs into a workload, tags) on a worker
// thread before loading the catalog again.
class RunsController : public QObject
{
    Q_OBJECT
public:
    // Takes each project the session opens (projectsession.h).
    void subscribe(const ProjectSession &session);
    explicit RunsController(RunsBrowser *browser, QObject *parent = nullptr);
    ~RunsController() override;

    // `notes`: what the import said about the grouping of runs, shown under the tree.
    void setProject(const QString &projectPath, const QStringList &notes = {});
    bool isBusy() const { return m_job.isRunning(); }
    void waitForIdle();                // tests and screenshots
    const RunCatalog &catalog() const; // the last one read (the browser's)

Q_SIGNALS:
    void catalogLoaded(int runs, const QString &error);

private:
    struct Result
    {
        std::optional<RunCatalog> catalog;
        QString error;
        QStringList notes;
    };
    using Edit = std::function<bool(Project &, QString *)>;
    void start(Edit edit);
    void show(const Result &r);

    RunsBrowser *m_browser;
    QString m_projectPath;
    QStringList m_notes;
    LatestJob<Result> m_job{this};
};

} // namespace gml
