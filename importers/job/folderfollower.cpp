// SPDX-License-Identifier: GPL-3.0-or-later
#include "folderfollower.h"

#include "folderscanner.h"
#include "importer.h"
#include "project.h"
#include "sourcerecords.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSet>

namespace gml {

FolderFollower::FolderFollower(Project &project, Options options)
    : m_project(project), m_options(std::move(options))
{
}

QHash<QString, FolderFollower::Seen> FolderFollower::list() const
{
    // What the scanner would walk (folderscanner.h): hidden entries and project files are left
    // out, so the project written inside a followed folder does not wake the follower.
    auto skipped = [](const QString &name) {
        return name.startsWith(QLatin1Char('.')) || isProjectFile(name);
    };
    QHash<QString, Seen> out;
    auto add = [&](const QFileInfo &info) {
        out.insert(info.absoluteFilePath(), {info.size(), info.lastModified().toMSecsSinceEpoch()});
    };
    for (const QString &input : m_options.inputs) {
        const QFileInfo top(input);
        if (top.isFile()) {
            add(top);
            continue;
        }
        if (!top.isDir())
            continue;
        const QString root = top.absoluteFilePath();
        QDirIterator it(root, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            const QFileInfo info = it.fileInfo();
            // Any hidden part of the path below the input hides the entry.
            const QString rel = info.absoluteFilePath().mid(root.size() + 1);
            bool hidden = false;
            for (const QString &part : rel.split(QLatin1Char('/')))
                hidden = hidden || skipped(part);
            if (!hidden && info.isFile())
                add(info);
        }
    }
    return out;
}

QString FolderFollower::finish()
{
    return foldWriteAheadLog(m_project);
}

QStringList FolderFollower::cutLastLines()
{
    QStringList out;
    for (const SourceTail &tail : sourceTails(m_project)) {
        const QString &path = tail.path;
        const qint64 offset = tail.offset;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly) || f.size() <= offset || !f.seek(offset))
            continue;
        const qint64 rest = f.size() - offset;
        // Only a line with no end is left: whole lines after it would have been read by the poll.
        if (f.read(std::min<qint64>(rest, qint64(64) << 20)).contains('\n'))
            continue;
        out.append(QStringLiteral("%1: line %2 (byte %3) is cut: its last %4 bytes have no line "
                                  "end, and were not imported "
                                  "when following stopped")
                       .arg(path)
                       .arg(tail.line)
                       .arg(offset)
                       .arg(rest));
    }
    return out;
}

FolderFollower::Poll FolderFollower::poll(qint64 nowMs)
{
    Poll result;
    const QHash<QString, Seen> now = list();
    const bool changed = now != m_last;
    result.grew = m_polled && changed;
    if (!changed && !m_pending)
        return result;
    QStringList errors, warnings;
    const QList<ScannedFile> files =
        scanInputs(m_options.inputs, m_options.runName, &errors, &warnings);
    // The scan's complaints (a folder gone, a bad grademl.json) are told once, not every second.
    QSet<QString> scanned;
    for (const QString &e : errors + warnings) {
        scanned.insert(e);
        if (!m_toldErrors.contains(e))
            result.errors.append(e);
    }
    m_toldErrors = scanned;
    // A growing log is read while it grows: in parts, or whole at most every kRereadMs. Any
    // other file waits until it has kept its size and time for the settle period: a trace is
    // written whole, then closed.
    QSet<QString> deferred;
    for (const ScannedFile &f : files) {
        if (!f.importer)
            continue;
        if (f.importer->grows()) {
            if (const auto read = m_wholeReads.constFind(f.path);
                read != m_wholeReads.constEnd() && nowMs - *read < kRereadMs)
                deferred.insert(f.path);
            continue;
        }
        const Seen seen = now.value(f.path);
        if ((m_polled && !(seen == m_last.value(f.path))) ||
            nowMs - seen.mtimeMs < m_options.settleMs)
            deferred.insert(f.path);
    }
    m_last = now;
    m_polled = true;
    m_pending = !deferred.isEmpty();
    result.waiting = int(deferred.size());

    ImportJob job(m_project);
    job.setTimeZone(m_options.timeZone);
    job.setThreads(m_options.threads);
    job.setFollowing(true);
    job.setDeferred(deferred);
    if (m_progress)
        job.setProgressCallback(m_progress);
    const QList<SourceReport> reports = job.run(files);
    for (const SourceReport &r : reports) {
        if (r.status == SourceReport::Status::Imported) {
            if (!r.inParts)
                m_wholeReads.insert(r.path, nowMs);
            m_pending = m_pending || r.held; // its last block is read once finished
            result.imported = true;
            result.nonAppend = result.nonAppend || !r.appended;
            result.reports.append(r);
        } else if (r.status == SourceReport::Status::Failed ||
                   r.status == SourceReport::Status::Cancelled) {
            // A failure is told once, until its file changes and fails differently.
            if (m_failed.value(r.path) != r.message)
                result.reports.append(r);
            m_failed.insert(r.path, r.message);
        }
    }
    result.errors += job.errors();
    result.warnings += job.warnings();
    // A log read in parts that is empty now (truncated, its writer not yet at its first line)
    // is no trace to sniff, so no import sees it: said once, its samples stay where they are.
    for (auto it = now.constBegin(); it != now.constEnd(); ++it) {
        if (it->size != 0) {
            m_toldEmpty.remove(it.key());
            continue;
        }
        if (m_toldEmpty.contains(it.key()))
            continue;
        if (const auto offset = tailOffsetOf(m_project, it.key()); offset && *offset > 0) {
            m_toldEmpty.insert(it.key());
            result.warnings.append(
                QStringLiteral(
                    "%1: the file is empty now (truncated while it was followed, %2 bytes "
                    "read before); what was read stays imported, and is kept aside as its "
                    "own source when the file is written again")
                    .arg(it.key())
                    .arg(*offset));
        }
    }
    result.changedRuns = job.changedRunIds();
    return result;
}

} // namespace gml
