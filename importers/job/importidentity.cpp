// SPDX-License-Identifier: GPL-3.0-or-later
// What the import job knows of a file before reading it: its content's hash, whether it is the
// file imported before and unchanged, a copy of a source imported already (or of another file
// of the same import), or that source moved here.
#include "importjob.h"

#include "contenthash.h"
#include "importer.h"
#include "project.h"
#include "runrecords.h"
#include "sideimport.h"
#include "sourcerecords.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace gml {

QString fileHash(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    // At most the file's size (and a byte more, to see its end): 1 MiB zeroed for every small
    // file was most of hashing one (issue 74).
    std::vector<char> buf(size_t(std::clamp<qint64>(f.size() + 1, 4096, qint64(1) << 20)));
    ContentHash hash;
    for (;;) {
        const qint64 n = f.read(buf.data(), qint64(buf.size()));
        if (n <= 0)
            break;
        hash.add(buf.data(), size_t(n));
    }
    return ContentHash::text(hash.digest());
}

QString ImportJob::withFingerprint(const ScannedFile &file, const QString &content) const
{
    const QString fingerprint = file.importer->fingerprint(file.path);
    return fingerprint.isEmpty() ? content : content + QLatin1Char('+') + fingerprint;
}

bool ImportJob::unchanged(const ScannedFile &file, SourceReport &report, QString &hash)
{
    const Importer &importer = *file.importer;
    const auto existing = m_project.sourceByPath(file.path);
    // A file linking to its run's slices is read again when another file of the run was.
    const bool runChanged = importer.linksToRun() &&
                            (m_changedRuns.contains(file.runName) || m_relink.contains(file.path));
    // The file has the size, time and format of its last import (nothing read to tell).
    const bool sameFile = !runChanged && existing && existing->size == file.size &&
                          existing->mtimeNs == fileMtimeNs(file.path) &&
                          existing->format == importer.format();
    if (!existing && !m_following)
        return sameContent(file, report, hash);
    // Following a folder, a file that failed is not read again until it changes.
    if (m_following && sameFile && existing->status == QLatin1String("failed")) {
        report.status = SourceReport::Status::Failed;
        report.message = existing->error;
        return true;
    }
    // The hash is read up front only when it decides something: for a file whose size and
    // mtime match its last import. Any other file's hash comes from the importer's own read
    // (ImportContext::contentHash), so a large plain trace is read once, not twice.
    if (!sameFile || existing->status != QLatin1String("imported") ||
        (m_following ? !existing->hash.endsWith(withFingerprint(file, {}))
                     : existing->hash != (hash = withFingerprint(file, fileHash(file.path)))))
        return false;
    const auto v = importedSource(m_project, existing->id);
    // A log read in local time is read again when the time zone setting changed.
    if (!v || v->importerVersion != importer.version() ||
        !(!v->timeZone || *v->timeZone == QString::fromUtf8(zoneOf(file).id())))
        return false;
    report.status = SourceReport::Status::Unchanged;
    report.slices = v->slices;
    report.counterSamples = v->counterSamples;
    report.flows = v->flows;
    return true;
}

std::vector<char> ImportJob::copiesWithinJob(const QList<ScannedFile> &files) const
{
    // Only files of one size and format can be copies: those alone are read for their hash.
    std::map<std::pair<qint64, QString>, std::vector<int>> bySize;
    for (int i = 0; i < files.size(); ++i)
        if (files[i].importer && !files[i].importer->linksToRun() && files[i].size > 0 &&
            expandedSize(files[i]) >= m_minAsideBytes) // smaller ones go in turn anyway
            bySize[{files[i].size, files[i].importer->format()}].push_back(i);
    std::vector<char> copy(size_t(files.size()), 0);
    for (const auto &[key, same] : bySize) {
        if (same.size() < 2)
            continue;
        std::set<QString> seen;
        for (int i : same)
            if (!seen.insert(withFingerprint(files[i], fileHash(files[i].path))).second)
                copy[size_t(i)] = 1;
    }
    return copy;
}

bool ImportJob::sameContent(const ScannedFile &file, SourceReport &report, QString &hash)
{
    const Importer &importer = *file.importer;
    if (importer.linksToRun() || file.size <= 0)
        return false;
    if (!anySourceOfSize(m_project, file.size))
        return false; // nothing of its size: no hash read
    hash = withFingerprint(file, fileHash(file.path));
    for (const SourceRecord &c :
         importedSourcesOfSize(m_project, file.size, importer.format(), hash)) {
        // A run the user named (--run) that is not the source's takes the file as asked: the
        // same trace imported on purpose as two runs.
        if (!file.runFromFolder && runName(m_project, c.runId).value_or(QString()) != file.runName)
            continue;
        const auto v = importedSource(m_project, c.id);
        if (!v || v->importerVersion != importer.version())
            return false; // read again by today's importer, as under its old path
        // The project's folder: a folder's own project lies in its .grademl folder.
        QDir projectDir = QFileInfo(m_project.path()).absoluteDir();
        if (projectDir.dirName() == QLatin1String(".grademl"))
            projectDir.cdUp();
        const QString root = projectDir.absolutePath() + QLatin1Char('/');
        const bool inProjectFolder = QFileInfo(file.path).absoluteFilePath().startsWith(root);
        const bool moved =
            !QFileInfo::exists(c.path) ||
            (inProjectFolder && !QFileInfo(c.path).absoluteFilePath().startsWith(root));
        report.status = SourceReport::Status::Unchanged;
        report.slices = v->slices;
        report.counterSamples = v->counterSamples;
        report.flows = v->flows;
        if (!moved) {
            report.message =
                QStringLiteral("same content as %1, imported already: not imported twice")
                    .arg(c.path);
            return true;
        }
        QString error;
        if (!m_project.begin(&error) ||
            !relinkSource(m_project, c.id, file.path, fileMtimeNs(file.path), &error) ||
            !m_project.commit(&error)) {
            m_project.rollback();
            report.status = SourceReport::Status::Failed;
            report.message = QStringLiteral("%1: recognised as %2 moved, but its path could not "
                                            "be updated: %3")
                                 .arg(file.path, c.path, error);
            return true;
        }
        report.message = QStringLiteral("same content as %1, which moved here: its path updated, "
                                        "nothing read again")
                             .arg(c.path);
        return true;
    }
    return false;
}

} // namespace gml
