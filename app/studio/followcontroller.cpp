// SPDX-License-Identifier: GPL-3.0-or-later
#include "followcontroller.h"

#include "runexport.h"

#include "folderfollower.h"
#include "importcontroller.h"
#include "project.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QPointer>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <csignal>

namespace gml {

namespace {

// After the recorded command ended, the follower takes this long to read the recorder's last
// lines and a GPU log that settles (FolderFollower: 2 s), then stops.
constexpr int kLastLookMs = 3500;

} // namespace

FollowController::FollowController(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<Update>();
    connect(&m_watcher, &QFutureWatcher<void>::finished, this, &FollowController::stopped);
    // The command's output goes where the studio's does; the recorder's own lines are kept.
    m_recorder.setProcessChannelMode(QProcess::ForwardedOutputChannel);
    connect(&m_recorder, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        QString message;
        for (const QString &line :
             QString::fromUtf8(m_recorder.readAllStandardError()).split(QLatin1Char('\n')))
            if (line.contains(QLatin1String("exited with")) ||
                line.contains(QLatin1String("ended by")))
                message = line.trimmed();
        if (status != QProcess::NormalExit)
            message = tr("the recorder stopped unexpectedly");
        Q_EMIT recordingEnded(code, message);
        QTimer::singleShot(kLastLookMs, this, [this] {
            if (!isRecording() && m_stop)
                m_stop->store(true);
        });
    });
}

FollowController::~FollowController()
{
    stop();
}

void FollowController::follow(const QString &folder)
{
    if (m_stop)
        m_stop->store(true);
    m_watcher.waitForFinished();
    m_folder = QFileInfo(folder).absoluteFilePath();
    const QString dir = m_folder;
    const QString projectPath = ImportController::projectPathForFolder(dir);
    auto flag = std::make_shared<std::atomic_bool>(false);
    m_stop = flag;
    QPointer<FollowController> self(this);
    auto deliver = [self](const Update &u) {
        QMetaObject::invokeMethod(
            self,
            [self, u] {
                if (!self)
                    return;
                ++self->m_updates;
                Q_EMIT self->updated(u);
            },
            Qt::QueuedConnection);
    };
    m_watcher.setFuture(QtConcurrent::run([dir, projectPath, flag, deliver] {
        Update first;
        first.folder = dir;
        first.projectPath = projectPath;
        first.first = true;
        first.reshaped = true;
        // One connection per thread (docs/layout.md, "Threads"): this worker writes, the window
        // reads.
        auto project = Project::open(projectPath, Project::Mode::ReadWrite, &first.error);
        if (!project) {
            deliver(first);
            return;
        }
        FolderFollower follower(*project, {{dir}, {}, {}, 0, 2000});
        follower.setProgressCallback([flag](const ImportProgress &) { return !flag->load(); });
        Update next = first;
        std::shared_ptr<const TimelineData> shown; // the last delivered
        bool dirty = false;
        QElapsedTimer sinceLoad;
        sinceLoad.start();
        qint64 loadMs = 0;
        while (!flag->load()) {
            const FolderFollower::Poll poll = follower.poll(QDateTime::currentMSecsSinceEpoch());
            next.reports += poll.reports;
            next.errors += poll.errors;
            for (const QString &w : poll.warnings)
                next.errors += QStringLiteral("warning: ") + w;
            next.reshaped = next.reshaped || poll.nonAppend;
            dirty = dirty || !poll.reports.isEmpty() ||
                    !poll.warnings.isEmpty(); // the window says what happened
            // A fresh timeline at most once a second, and for at most a tenth of the time.
            if (next.first ||
                (dirty && sinceLoad.elapsed() >= std::max<qint64>(1000, 10 * loadMs))) {
                QElapsedTimer load;
                load.start();
                // Lines appended to logs: the counters held stay, grown ones read their new
                // samples.
                const auto stop = [flag](int, int) { return !flag->load(); };
                if (next.first) {
                    // The window's connection: opened and read here once, then handed over.
                    std::shared_ptr<Project> reader =
                        Project::open(projectPath, Project::Mode::ReadOnly, &next.error);
                    if (reader)
                        next.data = loadTimelineData(*reader, &next.error, stop);
                    if (next.data)
                        next.reader = std::move(reader);
                } else {
                    next.data = shown && !next.reshaped
                                    ? reloadTimelineData(shown, &next.error, stop)
                                    : loadTimelineData(projectPath, &next.error, stop);
                }
                shown = next.data;
                loadMs = load.elapsed();
                sinceLoad.restart();
                if (!next.data && next.error.isEmpty())
                    break; // stopped while loading
                deliver(next);
                next = Update{};
                next.folder = dir;
                next.projectPath = projectPath;
                dirty = false;
            }
            for (int i = 0; i < 20 && !flag->load(); ++i)
                QThread::msleep(50);
        }
        (void)follower.finish();
    }));
}

bool FollowController::record(const QStringList &command, const QString &interval,
                              const QString &out, QString *error)
{
    if (command.isEmpty()) {
        *error = tr("no command to record");
        return false;
    }
    const QString cli = grademlExecutable();
    if (cli.isEmpty()) {
        *error = tr("the recorder (grademl record) is neither beside the studio nor on PATH");
        return false;
    }
    QString dir = out;
    if (dir.isEmpty()) {
        QString base = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
        if (base.isEmpty())
            base = QDir::homePath() + QStringLiteral("/.local/share/grademl-studio");
        dir = base + QStringLiteral("/recordings/") +
              QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    }
    dir = QFileInfo(dir).absoluteFilePath();
    if (!QDir().mkpath(dir)) {
        *error = tr("%1: cannot make the recording's folder").arg(dir);
        return false;
    }
    QStringList args{QStringLiteral("record"), QStringLiteral("--out"), dir};
    if (!interval.isEmpty())
        args << QStringLiteral("--interval") << interval;
    args << QStringLiteral("--") << command;
    m_recorder.start(cli, args);
    if (!m_recorder.waitForStarted(5000)) {
        *error = tr("cannot start the recorder: %1").arg(m_recorder.errorString());
        return false;
    }
    follow(dir);
    return true;
}

void FollowController::stop()
{
    if (isRecording()) {
        // As Ctrl-C in a shell: the recorder passes it to the command and writes what it has.
        ::kill(pid_t(m_recorder.processId()), SIGINT);
        if (!m_recorder.waitForFinished(10'000)) {
            m_recorder.terminate();
            m_recorder.waitForFinished(3000);
        }
        QThread::msleep(1200); // the follower's last poll reads the recorder's last lines
    }
    if (m_stop)
        m_stop->store(true);
    m_watcher.waitForFinished();
}

bool FollowController::waitForUpdate(int ms)
{
    const quint64 before = m_updates;
    QElapsedTimer waited;
    waited.start();
    while (m_updates == before && waited.elapsed() < ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(10);
    }
    return m_updates != before;
}

} // namespace gml
