// SPDX-License-Identifier: GPL-3.0-or-later
#include "importcontroller.h"

#include "folderscanner.h"
#include "importmeter.h"
#include "project.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPointer>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

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
    const bool writable =
        info.isWritable() &&
        (info.permissions() & (QFile::WriteOwner | QFile::WriteGroup | QFile::WriteOther));
    if (writable &&
        (dir.exists(QStringLiteral(".grademl")) || dir.mkdir(QStringLiteral(".grademl")))) {
        const QString path = dir.filePath(QStringLiteral(".grademl/project.grademl"));
        if (QFileInfo(dir.filePath(QStringLiteral(".grademl"))).isWritable())
            return path;
    }
    QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    if (cache.isEmpty())
        cache = QDir::tempPath() + QStringLiteral("/grademl-studio");
    QDir().mkpath(cache + QStringLiteral("/projects"));
    const QByteArray hash =
        QCryptographicHash::hash(clean.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
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
            self,
            [self, stage, file, done, total] {
                if (self)
                    Q_EMIT self->progressed(stage, file, done, total);
            },
            Qt::QueuedConnection);
    };
    // An older project is upgraded when opened for writing (the summaries of schema 7 take a
    // while on a large one): shown as its own stage, and cancellable.
    const Project::MigrationProgress upgrading = [report, flag](const QString &what, int done,
                                                                int total) {
        report(tr("Upgrading the project"), what, done, total);
        return !flag->load();
    };
    m_watcher.setFuture(QtConcurrent::run([=]() {
        Result r;
        r.job = job;
        r.projectPath = projectPath;
        if (!inputs.isEmpty()) {
            // One connection per thread: this worker opens its own (docs/layout.md, "Threads").
            auto project =
                Project::open(projectPath, Project::Mode::ReadWrite, &r.error, upgrading);
            if (!project) {
                r.cancelled = flag->load();
                return r;
            }
            report(tr("Scanning"), inputs.join(QStringLiteral(", ")), 0, 0);
            const auto files = scanInputs(inputs, QString(), &r.scanErrors);
            ImportJob importJob(*project);
            const ImportMeter meter(files);
            QElapsedTimer shown;
            shown.start();
            auto lastStage = ImportProgress::Stage::Reading;
            int lastFile = -1;
            importJob.setProgressCallback([&](const ImportProgress &p) {
                // At most ten updates a second, and each new file or stage.
                if (p.fileIndex == lastFile && p.stage == lastStage && !p.waitingForWriter &&
                    shown.elapsed() < 100)
                    return !flag->load();
                shown.restart();
                lastFile = p.fileIndex;
                lastStage = p.stage;
                const ImportMeter::Reading bytes = meter.at(p);
                const QString line = meter.line(p, QFileInfo(p.path).fileName());
                if (p.waitingForWriter)
                    report(tr("Waiting for another import to finish writing the project"), line, 0,
                           0);
                else if (p.stage == ImportProgress::Stage::Aligning)
                    report(tr("Aligning clocks"), line, p.fileIndex, p.fileCount);
                else if (p.stage == ImportProgress::Stage::Relinking)
                    report(tr("Linking execution traces"), line, p.fileIndex, p.fileCount);
                else // bytes in MiB, so that the bar's range fits an int
                    report(tr("Importing"), line, int(bytes.done >> 20),
                           int(std::max<qint64>(1, bytes.total >> 20)));
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
            auto project =
                Project::open(projectPath, Project::Mode::ReadWrite, &r.error, upgrading);
            if (!project) {
                r.cancelled = flag->load();
                return r;
            }
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
                report(tr("Loading tracks"), tr("%1 of %2 tracks").arg(done).arg(total), done,
                       total);
            return !flag->load();
        });
        if (!r.data && r.error.isEmpty())
            r.cancelled = true;
        return r;
    }));
}

} // namespace gml
