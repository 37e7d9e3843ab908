// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importjob.h"
#include "timelinedata.h"

#include <QFutureWatcher>
#include <QObject>
#include <QProcess>
#include <QStringList>

#include <atomic>
#include <memory>

namespace gml {

class Project;

// The studio's live view (issue 38): follows a folder while a job writes it, on a worker thread
// with its own project connection (importers/job/folderfollower.h: it polls every second and
// imports what is ready), and hands the window a fresh timeline after each poll that brought
// something. Loading the timeline again is kept under a tenth of the time (a large project is
// refreshed less often, never more than once a second). record() first starts `grademl record`
// on a command into a new folder, and follows that; stop() ends both, the recorder as Ctrl-C
// would (it passes the signal to the command and writes what it has).
class FollowController : public QObject
{
    Q_OBJECT
public:
    struct Update
    {
        QString folder;
        QString projectPath;
        std::shared_ptr<const TimelineData> data;
        std::shared_ptr<Project> reader; // the first update: the connection `data` was read by
        QList<SourceReport> reports;     // imported or failed since the last update
        QStringList errors;
        bool first = false;    // the first update of this folder: the window opens the project
        bool reshaped = false; // more than lines appended to logs: runs or tracks may be new
        QString error;         // the project could not be opened or loaded
    };

    explicit FollowController(QObject *parent = nullptr);
    ~FollowController() override;

    // Follows `folder` into its project (ImportController::projectPathForFolder).
    void follow(const QString &folder);
    // Runs `grademl record --out DIR --interval INTERVAL -- COMMAND...` (DIR: a new folder under
    // the user's data folder, or `out` when given) and follows DIR. False, and why, when the
    // recorder cannot start.
    bool record(const QStringList &command, const QString &interval, const QString &out,
                QString *error);
    // Stops following; a recorder still running gets SIGINT and is waited for (10 s at most).
    void stop();
    bool isFollowing() const { return m_watcher.isRunning(); }
    bool isRecording() const { return m_recorder.state() != QProcess::NotRunning; }
    QString folder() const { return m_folder; }
    // Blocks until the next update was delivered, or `ms` passed (screenshots and tests).
    bool waitForUpdate(int ms);

Q_SIGNALS:
    void updated(const gml::FollowController::Update &update);
    // The recorded command ended (its exit status, as `grademl record` reports it).
    void recordingEnded(int exitCode, const QString &message);
    void stopped();

private:
    QFutureWatcher<void> m_watcher;
    std::shared_ptr<std::atomic_bool> m_stop;
    QString m_folder;
    QProcess m_recorder;
    quint64 m_updates = 0;
};

} // namespace gml

Q_DECLARE_METATYPE(gml::FollowController::Update)
