// SPDX-License-Identifier: GPL-3.0-or-later
#include "importcontroller.h"

#include "folderscanner.h"
#include "importmeter.h"
#include "project.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>

namespace gml {

ImportController::ImportController(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<Result>();
}

ImportController::~ImportController() = default;

bool ImportController::isRunning() const
{
    return m_job.isRunning();
}

void ImportController::cancel()
{
    m_job.stop();
}

void ImportController::waitForFinished()
{
    m_job.waitForFinished();
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

ImportController::Report ImportController::reporter(const Job::Context &job)
{
    return [this, job](const QString &stage, const QString &file, int done, int total) {
        job.post([this, stage, file, done, total] { Q_EMIT progressed(stage, file, done, total); });
    };
}

void ImportController::load(Result &r, const Report &report, const Job::Context &job)
{
    if (!QFileInfo::exists(r.projectPath)) {
        r.error = tr("%1: no such project").arg(r.projectPath);
        return;
    }
    // One connection per thread at a time (docs/layout.md, "Threads"): opened here, read here,
    // then used by the GUI thread only.
    std::shared_ptr<Project> reader =
        Project::open(r.projectPath, Project::Mode::ReadOnly, &r.error);
    if (!reader)
        return;
    r.data = loadTimelineData(*reader, &r.error, [&](int done, int total) {
        if (done % 16 == 0 || done == total)
            report(tr("Loading tracks"), tr("%1 of %2 tracks").arg(done).arg(total), done, total);
        return !job.cancelled();
    });
    if (!r.data && r.error.isEmpty())
        r.cancelled = true;
    if (r.data)
        r.reader = std::move(reader);
}

void ImportController::open(const QString &projectPath)
{
    m_job.start(
        [this, projectPath](const Job::Context &job) {
            Result r;
            r.projectPath = projectPath;
            load(r, reporter(job), job);
            return r;
        },
        [this](Result r) { Q_EMIT finished(r); });
}

void ImportController::start(const QString &projectPath, const QStringList &inputs, Edit edit)
{
    m_job.start(
        [this, projectPath, inputs, edit](const Job::Context &job) {
            const Report report = reporter(job);
            // An older project is upgraded when opened for writing (the summaries of schema 7
            // take a while on a large one): shown as its own stage, and cancellable.
            const Project::MigrationProgress upgrading = [&](const QString &what, int done,
                                                             int total) {
                report(tr("Upgrading the project"), what, done, total);
                return !job.cancelled();
            };
            Result r;
            r.projectPath = projectPath;
            // Null with r.error (and r.cancelled when the upgrade was stopped) on failure.
            auto writable = [&] {
                auto project =
                    Project::open(projectPath, Project::Mode::ReadWrite, &r.error, upgrading);
                if (!project)
                    r.cancelled = job.cancelled();
                return project;
            };
            if (!inputs.isEmpty()) {
                const auto project = writable();
                if (!project)
                    return r;
                importInto(*project, inputs, r, report, job);
            }
            if (edit) {
                const auto project = writable();
                if (!project)
                    return r;
                QString why;
                if (!edit(*project, &why))
                    r.scanErrors.append(why);
            }
            load(r, report, job);
            return r;
        },
        [this](Result r) { Q_EMIT finished(r); });
}

void ImportController::importInto(Project &project, const QStringList &inputs, Result &r,
                                  const Report &report, const Job::Context &job)
{
    report(tr("Scanning"), inputs.join(QStringLiteral(", ")), 0, 0);
    const auto files = scanInputs(inputs, QString(), &r.scanErrors);
    ImportJob importJob(project);
    const ImportMeter meter(files);
    QElapsedTimer shown;
    shown.start();
    auto lastStage = ImportProgress::Stage::Reading;
    int lastFile = -1;
    importJob.setProgressCallback([&](const ImportProgress &p) {
        // At most ten updates a second, and each new file or stage.
        if (p.fileIndex == lastFile && p.stage == lastStage && !p.waitingForWriter &&
            shown.elapsed() < 100)
            return !job.cancelled();
        shown.restart();
        lastFile = p.fileIndex;
        lastStage = p.stage;
        const ImportMeter::Reading bytes = meter.at(p);
        const QString line = meter.line(p, QFileInfo(p.path).fileName());
        if (p.waitingForWriter)
            report(tr("Waiting for another import to finish writing the project"), line, 0, 0);
        else if (p.stage == ImportProgress::Stage::Aligning)
            report(tr("Aligning clocks"), line, p.fileIndex, p.fileCount);
        else if (p.stage == ImportProgress::Stage::Relinking)
            report(tr("Linking execution traces"), line, p.fileIndex, p.fileCount);
        else // bytes in MiB, so that the bar's range fits an int
            report(tr("Importing"), line, int(bytes.done >> 20),
                   int(std::max<qint64>(1, bytes.total >> 20)));
        return !job.cancelled();
    });
    r.reports = importJob.run(files);
    r.scanErrors += importJob.errors();
    r.groupings = describeGroupings(importJob.groupings());
    // Cancelled: what was imported before the cancel stays; it is loaded and shown.
    r.cancelled = job.cancelled();
}

} // namespace gml
