// SPDX-License-Identifier: GPL-3.0-or-later
#include "sideimport.h"
#include "sourcework.h"

#include "hugepages.h"
#include "project.h"
#include "sideproject.h"
#include "sourcerecords.h"
#include "tracewriter.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>

#include <QFileInfo>
#include <QTemporaryDir>

#include <algorithm>

#include <chrono>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace gml {

namespace {
constexpr char kScratchPattern[] = ".grademl-import-";
constexpr char kLockName[] = "owner.lock";
} // namespace

ScratchFolder::ScratchFolder(const QString &besideProject)
{
    const QFileInfo projectFile(besideProject);
    const QString parent = projectFile.isFile() ? projectFile.absolutePath() : QDir::tempPath();
    // Folders of imports that are gone: their lock is free. A folder without a lock file is
    // one being made, or one of an older version: left alone when younger than a day.
    const QFileInfoList stale =
        QDir(parent).entryInfoList({QLatin1String(kScratchPattern) + QLatin1Char('*')},
                                   QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot);
    for (const QFileInfo &dir : stale) {
        const QString lock = dir.absoluteFilePath() + QLatin1Char('/') + QLatin1String(kLockName);
        const int fd = ::open(QFile::encodeName(lock).constData(), O_RDWR | O_CLOEXEC);
        bool gone = false;
        if (fd >= 0) {
            gone = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
            ::close(fd);
        } else {
            gone = dir.lastModified().secsTo(QDateTime::currentDateTime()) > 86400;
        }
        if (gone)
            QDir(dir.absoluteFilePath()).removeRecursively();
    }
    m_dir = std::make_unique<QTemporaryDir>(
        parent + QLatin1Char('/') + QLatin1String(kScratchPattern) + QStringLiteral("XXXXXX"));
    if (!m_dir->isValid())
        return;
    const QString lock = m_dir->path() + QLatin1Char('/') + QLatin1String(kLockName);
    m_lock = ::open(QFile::encodeName(lock).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (m_lock >= 0 && ::flock(m_lock, LOCK_EX | LOCK_NB) != 0) {
        ::close(m_lock);
        m_lock = -1;
    }
}

ScratchFolder::~ScratchFolder()
{
    m_dir.reset(); // removes the folder, then the lock goes
    if (m_lock >= 0)
        ::close(m_lock);
}

bool ScratchFolder::isValid() const
{
    return m_dir && m_dir->isValid();
}

QString ScratchFolder::path() const
{
    return m_dir ? m_dir->path() : QString();
}

qint64 expandedSize(const ScannedFile &file)
{
    const QByteArray name = file.path.toUtf8();
    return qint64(bytesAsRead(std::string_view(name.constData(), size_t(name.size())),
                              quint64(std::max<qint64>(0, file.size))));
}

bool writesThrough(const ScannedFile &file)
{
    return expandedSize(file) >= (qint64(4) << 20);
}

static QString sidePath(const QString &folder, int index)
{
    return folder + QStringLiteral("/side-%1.grademl").arg(index);
}

static void removeSide(const QString &path)
{
    for (const char *suffix : {"", "-wal", "-shm", "-journal"})
        QFile::remove(path + QLatin1String(suffix));
}

SideImports::SideImports(ImportIds &ids, QList<Task> tasks, int threads, const QString &folder)
    : m_ids(ids), m_tasks(std::move(tasks)), m_folder(folder)
{
    m_results.resize(size_t(m_tasks.size()));
    for (qsizetype i = 0; i < m_tasks.size(); ++i)
        m_fraction.push_back(std::make_unique<std::atomic<double>>(0.0));
    threads = std::max(1, std::min(threads, int(m_tasks.size())));
    // Files done but not yet copied wait on disk; a few per thread keep every thread busy
    // while the job copies one that took longer.
    m_lookAhead = 2 * threads;
    // Every side project starts as a copy of one empty project made here: making the schema
    // (its migrations, each a parse of the whole schema) cost two thirds of the instructions
    // of importing 32 small rank files (issue 74); a copy is read with one parse.
    const QString path = m_folder + QStringLiteral("/side-template.grademl");
    removeSide(path);
    QString error;
    if (Project::open(path, Project::Mode::Scratch, &error)) { // made and closed
        QFile made(path);
        if (made.open(QIODevice::ReadOnly))
            m_template = made.readAll();
    }
    removeSide(path);
    // 2.6 MB of 64 KiB pages, one a table or index, nearly all zeros: written as the runs that
    // are not (the rest a hole in the file, read as zeros).
    constexpr qsizetype kBlock = 4096;
    for (qsizetype at = 0; at < m_template.size(); at += kBlock) {
        const QByteArrayView block =
            QByteArrayView(m_template).sliced(at, std::min(kBlock, m_template.size() - at));
        if (std::all_of(block.begin(), block.end(), [](char c) { return c == 0; }))
            continue;
        if (!m_templateRuns.empty() &&
            m_templateRuns.back().first + m_templateRuns.back().second == at)
            m_templateRuns.back().second += block.size();
        else
            m_templateRuns.emplace_back(at, block.size());
    }
    for (int i = 0; i < threads; ++i)
        m_workers.emplace_back([this] { work(); });
}

SideImports::~SideImports()
{
    cancel();
    for (auto &t : m_workers)
        t.join();
    for (int i = 0; i < int(m_tasks.size()); ++i)
        release(i);
}

void SideImports::cancel()
{
    m_cancelled = true;
    std::lock_guard lock(m_mutex);
    m_changed.notify_all();
}

bool SideImports::mayStart(int index) const
{
    if (index >= m_taken + m_lookAhead)
        return false;
    return m_running == 0 || m_reading + expandedSize(m_tasks[index].file) <= kBudgetBytes;
}

void SideImports::work()
{
    for (;;) {
        int index = 0;
        qint64 bytes = 0;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [&] {
                return m_cancelled || m_next >= int(m_tasks.size()) || mayStart(m_next);
            });
            if (m_cancelled || m_next >= int(m_tasks.size()))
                return;
            index = m_next++;
            bytes = expandedSize(m_tasks[index].file);
            m_reading += bytes;
            ++m_running;
        }
        SideResult result = importOne(index);
        std::lock_guard lock(m_mutex);
        m_results[size_t(index)] = std::move(result);
        m_reading -= bytes;
        --m_running;
        if (finishedAll())
            m_allDone = std::chrono::steady_clock::now();
        m_changed.notify_all();
    }
}

SideResult SideImports::take(int index, const std::function<bool(double)> &waiting)
{
    std::unique_lock lock(m_mutex);
    m_taken = index;
    m_changed.notify_all();
    for (;;) {
        if (m_cancelled) { // what was read is not kept, as a cancel of a direct import
            SideResult r;
            r.outcome = {ImportOutcome::Status::Cancelled, -1, QStringLiteral("cancelled"), {}};
            return r;
        }
        if (m_results[size_t(index)])
            break;
        m_changed.wait_for(lock, std::chrono::milliseconds(100));
        if (m_results[size_t(index)] || m_cancelled)
            continue;
        lock.unlock();
        const bool goOn = !waiting || waiting(*m_fraction[size_t(index)]);
        lock.lock();
        if (!goOn) {
            m_cancelled = true;
            m_changed.notify_all();
        }
    }
    return *m_results[size_t(index)];
}

double SideImports::fraction(int index)
{
    std::lock_guard lock(m_mutex);
    return m_results[size_t(index)] ? 1.0 : m_fraction[size_t(index)]->load();
}

std::optional<std::chrono::steady_clock::time_point> SideImports::allDone()
{
    std::lock_guard lock(m_mutex);
    if (!finishedAll())
        return std::nullopt;
    return m_allDone;
}

void SideImports::release(int index)
{
    removeSide(sidePath(m_folder, index));
}

SideResult SideImports::importOne(int index)
{
    const Task &task = m_tasks[index];
    const Importer &importer = *task.file.importer;
    SideResult result;
    QElapsedTimer timer;
    timer.start();
    auto failed = [&](const QString &why) {
        result.outcome = ImportOutcome::failure(-1, why);
        return result;
    };
    const QString path = sidePath(m_folder, index);
    removeSide(path);
    if (!m_template.isEmpty()) { // written, not synced (QFile::copy syncs each)
        QFile copy(path);
        bool written = copy.open(QIODevice::WriteOnly) && copy.resize(m_template.size());
        for (const auto &[at, length] : m_templateRuns)
            written = written && copy.seek(at) &&
                      copy.write(m_template.constData() + at, length) == length;
        if (!written) {
            copy.close();
            removeSide(path); // made here, schema and all
        }
    }
    QString error;
    // A scratch file read once by the job and removed: nothing to make durable.
    auto side = Project::open(path, Project::Mode::Scratch, &error);
    if (!side)
        return failed(QStringLiteral("could not make a side project to import into: ") + error);
    if (writesThrough(task.file)) // the side project is read once, by the copy
        side->useCacheFor(Project::Cache::Writing);
    side->shareIds(&m_ids);
    if (!side->begin(&error))
        return failed(QStringLiteral("could not write the side project: ") + error);
    const RunId run = side->ensureRun(task.file.runName, &error);
    const SourceId source =
        run ? insertSideSource(*side, run, task.file.path, importer.format(), &error) : 0;
    if (!source) {
        side->rollback();
        return failed(QStringLiteral("could not write the side project: ") + error);
    }
    TraceWriter writer(*side, run, source);
    ImportContext ctx;
    ctx.path = task.file.path;
    ctx.fileSize = task.file.size;
    ctx.writer = &writer;
    ctx.timeZone = task.zone;
    std::atomic<double> &fraction = *m_fraction[size_t(index)];
    ctx.progress = [&](double f) {
        fraction = f;
        return !m_cancelled.load();
    };
    ImportOutcome outcome = m_cancelled
                                ? ImportOutcome{ImportOutcome::Status::Cancelled, -1, {}, {}}
                                : importGuarded(importer, ctx);
    if (outcome.ok() && writer.failed())
        outcome = ImportOutcome::failure(-1, QStringLiteral("could not write to the project: ") +
                                                 writer.errorString());
    outcome.warnings += writer.warnings();
    if (outcome.ok() && !(finishSource(writer, outcome.warnings, &error) && side->commit(&error)))
        outcome =
            ImportOutcome::failure(-1, QStringLiteral("could not write to the project: ") + error);
    if (!outcome.ok())
        side->rollback();
    result.outcome = outcome;
    result.contentHash = ctx.contentHash;
    if (outcome.ok()) {
        result.projectPath = path;
        result.source = source;
        result.slices = writer.sliceCount();
        result.counterSamples = writer.counterCount();
        result.flows = writer.flowCount();
    }
    side.reset();
    if (!outcome.ok())
        removeSide(path);
    result.seconds = double(timer.nsecsElapsed()) / 1e9;
    return result;
}

} // namespace gml
