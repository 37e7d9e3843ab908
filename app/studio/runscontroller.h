// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runcatalog.h"

#include <QFutureWatcher>
#include <QObject>

#include <atomic>
#include <functional>
#include <memory>

namespace gml {

class RunsBrowser;

// Wires the Runs browser: loads the project's run catalog off the GUI thread, computing first
// the headline metrics of runs that have none (with progress, and stopped when another project
// is opened), and applies the browser's edits (moving runs into a workload, tags) on a worker
// thread before loading the catalog again.
class RunsController : public QObject
{
    Q_OBJECT
public:
    explicit RunsController(RunsBrowser *browser, QObject *parent = nullptr);
    ~RunsController() override;

    // `notes`: what the import said about the grouping of runs, shown under the tree.
    void setProject(const QString &projectPath, const QStringList &notes = {});
    bool isBusy() const { return m_busy; }
    void waitForIdle(); // tests and screenshots

Q_SIGNALS:
    void catalogLoaded(int runs, const QString &error);

private:
    struct Result
    {
        quint64 job = 0;
        std::optional<RunCatalog> catalog;
        QString error;
        QStringList notes;
    };
    using Edit = std::function<bool(Project &, QString *)>;
    void start(Edit edit);

    RunsBrowser *m_browser;
    QString m_projectPath;
    QStringList m_notes;
    QFutureWatcher<Result> m_watcher;
    std::shared_ptr<std::atomic_bool> m_cancel;
    quint64 m_job = 0;
    bool m_busy = false;
};

} // namespace gml
