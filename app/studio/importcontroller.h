// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importjob.h"
#include "timelinedata.h"

#include <QFutureWatcher>
#include <QObject>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>

namespace gml {

class Project;

// Runs "import these inputs into this project, then load its timeline" on a worker thread
// (QtConcurrent), reporting progress by queued signal and honouring cancel. Each start() bumps
// a job id; results of an older job are dropped (KDAB Hotspot's job tracker).
class ImportController : public QObject
{
    Q_OBJECT
public:
    struct Result
    {
        quint64 job = 0;
        QString projectPath;
        QList<SourceReport> reports;
        QStringList scanErrors;
        QStringList groupings; // how the folders' traces were grouped into runs, and why
        std::shared_ptr<const TimelineData> data;
        QString error; // the project could not be opened or loaded
        bool cancelled = false;
    };

    explicit ImportController(QObject *parent = nullptr);
    ~ImportController() override;

    // A change to the project made on the worker thread before it loads (a clock override).
    using Edit = std::function<bool(Project &, QString *error)>;

    // Imports `inputs` (files or folders; empty: none) into `projectPath`, applies `edit`
    // when given, then loads it.
    void start(const QString &projectPath, const QStringList &inputs, Edit edit = {});
    void cancel();
    bool isRunning() const;
    // Blocks until the running job ended (its result is still delivered by signal).
    void waitForFinished();

    // Where the project of a trace folder lives: FOLDER/.grademl/project.grademl when the
    // folder is writable, else the user's cache directory (one file per folder path).
    static QString projectPathForFolder(const QString &folder);

Q_SIGNALS:
    // A stage ("Importing", "Upgrading the project", "Aligning clocks", "Loading tracks"), what
    // it is doing, and how far (done of total; total 0: unknown).
    void progressed(const QString &stage, const QString &detail, int done, int total);
    void finished(const gml::ImportController::Result &result);

private:
    QFutureWatcher<Result> m_watcher;
    std::shared_ptr<std::atomic_bool> m_cancel;
    quint64 m_job = 0;
};

} // namespace gml

Q_DECLARE_METATYPE(gml::ImportController::Result)
