// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importjob.h"
#include "latestjob.h"
#include "timelinedata.h"

#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>

namespace gml {

class Project;

// Opens a project, or imports inputs into it first, on a worker thread (LatestJob: the last one
// asked for wins), reporting progress by queued signal and honouring cancel. Either way the
// project is opened once for reading: that connection reads the timeline and is then handed to
// the window (ProjectSession), which reads slices' details through it.
class ImportController : public QObject
{
    Q_OBJECT
public:
    struct Result
    {
        QString projectPath;
        QList<SourceReport> reports;
        QStringList scanErrors;
        QStringList groupings; // how the folders' traces were grouped into runs, and why
        std::shared_ptr<const TimelineData> data;
        // The read-only connection `data` was read through, for the GUI thread from now on.
        std::shared_ptr<Project> reader;
        QString error; // the project could not be opened or loaded
        bool cancelled = false;
    };

    explicit ImportController(QObject *parent = nullptr);
    ~ImportController() override;

    // A change to the project made on the worker thread before it loads (a clock override).
    using Edit = std::function<bool(Project &, QString *error)>;

    // Opens `projectPath` and loads its timeline; nothing is written.
    void open(const QString &projectPath);
    // Imports `inputs` (files or folders; empty: none) into `projectPath`, applies `edit`
    // when given, then loads it.
    void start(const QString &projectPath, const QStringList &inputs, Edit edit = {});
    // Stops the import; what was imported before is still loaded and shown.
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
    using Job = LatestJob<Result>;
    using Report = std::function<void(const QString &stage, const QString &file, int, int)>;
    Report reporter(const Job::Context &job);
    // The project opened once for reading, its timeline loaded through it, into `r`.
    static void load(Result &r, const Report &report, const Job::Context &job);
    static void importInto(Project &project, const QStringList &inputs, Result &r,
                           const Report &report, const Job::Context &job);

    Job m_job{this};
};

} // namespace gml

Q_DECLARE_METATYPE(gml::ImportController::Result)
