// SPDX-License-Identifier: GPL-3.0-or-later
#include "importcontroller.h"

#include "folderscanner.h"
#include "project.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

namespace gml {

ImportController::ImportController(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<Result>();
    connect(&m_watcher, &QFutureWatcher<Result>::finished, this, [this] {
        const Result r = m_watcher.result();
        if (r.job == m_job) // a newer job replaced this one: drop the stale result
            Q_EMIT finished(r);
    });
}

ImportController::~ImportController()
{
    cancel();
    m_watcher.waitForFinished();
}

bool ImportController::isRunning() const
{
    return m_watcher.isRunning();
}

void ImportController::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void ImportController::waitForFinished()
{
    m_watcher.waitForFinished();
}

QString ImportController::projectPathForFolder(const QString &folder)
{
    const QString clean = QDir::cleanPath(QFileInfo(folder).absoluteFilePath());
    QDir dir(clean);
    // A folder without any write bit is read-only on purpose (a shared trace archive), even
    // for root, whom access() would let write anyway.
    const QFileInfo info(clean);
    const bool writable = info.isWritable() &&
                          (info.permissions() & (QFile::WriteOwner | QFile::WriteGroup | QFile::WriteOther));
    if (writable && (dir.exists(QStringLiteral(".grademl")) || dir.mkdir(QStringLiteral(".grademl")))) {
        const QString path = dir.filePath(QStringLiteral(".grademl/project.grademl"));
        if (QFileInfo(dir.filePath(QStringLiteral(".grademl"))).isWritable())
            return path;
    }
    QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    if (cache.isEmpty())
        cache = QDir::tempPath() + QStringLiteral("/grademl-studio");
    QDir().mkpath(cache + QStringLiteral("/projects"));
    const QByteArray hash = QCryptographicHash::hash(clean.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    return cache + QStringLiteral("/projects/") + QFileInfo(clean).fileName() + QLatin1Char('-') +
           QString::fromLatin1(hash) + QStringLiteral(".grademl");
}

void ImportController::start(const QString &projectPath, const QStringList &inputs, Edit edit)
{
    cancel();
    const quint64 job = ++m_job;
    auto flag = std::make_shared<std::atomic_bool>(false);
    m_cancel = flag;
    QPointer<ImportController> self(this);
    auto report = [self](const QString &stage, const QString &file, int done, int total) {
        QMetaObject::invokeMethod(
            self, [self, stage, file, done, total] {
                if (self)
                    Q_EMIT self->progressed(stage, file, done, total);
            },
            Qt::QueuedConnection);
    };
    m_watcher.setFuture(QtConcurrent::run([=]() {
        Result r;
        r.job = job;
        r.projectPath = projectPath;
        if (!inputs.isEmpty()) {
            // One connection per thread: this worker opens its own (DESIGN.md).
            auto project = Project::open(projectPath, Project::Mode::ReadWrite, &r.error);
            if (!project)
                return r;
            report(tr("Scanning"), inputs.join(QStringLiteral(", ")), 0, 0);
            const auto files = scanInputs(inputs, QString(), &r.scanErrors);
            ImportJob importJob(*project);
            importJob.setProgressCallback([&](const ImportProgress &p) {
                report(p.waitingForWriter ? tr("Waiting for another import to finish writing the project")
                                          : tr("Importing"),
                       p.path, p.fileIndex, p.fileCount);
                return !flag->load();
            });
            r.reports = importJob.run(files);
            r.scanErrors += importJob.errors();
            r.groupings = describeGroupings(importJob.groupings());
            if (flag->load()) {
                r.cancelled = true;
                // What was imported before the cancel stays; show it.
            }
        }
        if (edit) {
            auto project = Project::open(projectPath, Project::Mode::ReadWrite, &r.error);
            if (!project)
                return r;
            QString why;
            if (!edit(*project, &why))
                r.scanErrors.append(why);
        }
        if (!QFileInfo::exists(projectPath)) {
            r.error = tr("%1: no such project").arg(projectPath);
            return r;
        }
        r.data = loadTimelineData(projectPath, &r.error, [&](int done, int total) {
            if (done % 16 == 0 || done == total)
                report(tr("Loading tracks"), QString(), done, total);
            return !flag->load();
        });
        if (!r.data && r.error.isEmpty())
            r.cancelled = true;
        return r;
    }));
}

} // namespace gml
