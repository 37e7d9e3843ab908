// SPDX-License-Identifier: GPL-3.0-or-later
// What an import job does once its files are in (ImportJob::run, importjob.cpp): the runs put in
// the workloads their grademl.json names, execution traces linked again to the runs that grew,
// the workflow declarations stored, runs left empty dropped, the write-ahead log folded.
#include "importjob.h"

#include "importer.h"
#include "project.h"
#include "runcatalog.h"
#include "runrecords.h"
#include "sourcerecords.h"
#include "workflowdeclaration.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <map>

namespace gml {

QString foldWriteAheadLog(Project &project)
{
    // Commits sit in the -wal file until a checkpoint copies them into the project; do it now,
    // so that copying the .grademl alone keeps everything. A reader still on an older snapshot
    // (the studio) can hold part of it back; SQLite's busy timeout waits for it a while.
    QString why;
    if (project.checkpoint(&why))
        return {};
    return QStringLiteral(
               "the project's write-ahead log was not folded into the project file (%1); keep the "
               ".grademl-wal file beside it until the next import")
        .arg(why.isEmpty() ? QStringLiteral("a reader held it") : why);
}

void ImportJob::placeRuns(const QList<ScannedFile> &files, const QList<SourceReport> &reports)
{
    // run -> (experiment, workload) that a grademl.json names, for the runs this job changed.
    std::map<QString, std::pair<QString, QString>> places;
    for (int i = 0; i < files.size() && i < reports.size(); ++i)
        if (!files[i].workload.isEmpty() && m_changedRuns.contains(reports[i].runName))
            places.emplace(reports[i].runName,
                           std::make_pair(files[i].experiment, files[i].workload));
    for (const auto &[run, place] : places) {
        const auto id = m_project.findRun(run);
        QString error;
        if (id && !assignRuns(m_project, {*id}, place.first, place.second, &error))
            m_errors.append(QStringLiteral("run '%1' not put in workload '%2': %3")
                                .arg(run, place.second, error));
    }
}

QList<RunId> ImportJob::changedRunIds() const
{
    QList<RunId> out;
    for (const QString &name : m_changedRuns)
        if (const auto run = m_project.findRun(name))
            out.append(*run);
    std::sort(out.begin(), out.end());
    return out;
}

void ImportJob::relinkExecutionTraces(const QList<ScannedFile> &files, QList<SourceReport> &reports)
{
    if (m_changedRuns.isEmpty())
        return;
    QSet<QString> readNow;
    for (const auto &f : files)
        readNow.insert(f.path);
    // Files that link to other sources' slices, imported by an earlier job: those of a changed
    // run (their slices were replaced), and those that matched nothing whose process now has
    // tracks in a changed run (their Kineto trace arrived, perhaps in another run).
    QList<ScannedFile> again;
    for (const LinkedSource &src : importedSourcesWithRuns(m_project)) {
        const QString &path = src.path;
        if (readNow.contains(path))
            continue;
        const Importer *importer = nullptr;
        for (const auto &imp : importers())
            if (imp->linksToRun() && imp->format() == src.format)
                importer = imp.get();
        if (!importer)
            continue;
        bool wanted = m_changedRuns.contains(src.run);
        if (!wanted && src.matchedOperators == 0 && src.pid) {
            for (const QString &run : std::as_const(m_changedRuns))
                if ((wanted = runHasProcess(m_project, run, *src.pid)))
                    break;
        }
        if (!wanted)
            continue;
        const QFileInfo info(path);
        if (!info.isFile()) {
            m_errors.append(
                QStringLiteral("%1: not linked again to run '%2' (the file is gone); its "
                               "data edges may point at slices that were replaced")
                    .arg(path, src.run));
            continue;
        }
        ScannedFile f;
        f.path = path;
        f.runName = src.run;
        f.importer = importer;
        f.size = info.size();
        again.append(f);
    }
    m_stage = ImportProgress::Stage::Relinking;
    for (int i = 0; i < again.size(); ++i) {
        m_relink.insert(again[i].path);
        bool cancelled = false;
        SourceReport r = importOne(again[i], i, int(again.size()), &cancelled);
        r.relinked = true;
        reports.append(r);
        if (cancelled)
            break;
    }
    m_stage = ImportProgress::Stage::Reading;
}

void ImportJob::storeWorkflows(const QList<ScannedFile> &files)
{
    QStringList paths;
    for (const auto &f : files)
        if (!f.workflowFile.isEmpty() && !paths.contains(f.workflowFile))
            paths << f.workflowFile;
    for (const QString &path : std::as_const(paths)) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            m_errors.append(QStringLiteral("%1: cannot read: %2").arg(path, file.errorString()));
            continue;
        }
        if (file.size() > kMaxSettingsBytes)
            continue; // the scan said so
        QJsonParseError pe;
        const QJsonObject root = QJsonDocument::fromJson(file.readAll(), &pe).object();
        if (pe.error != QJsonParseError::NoError ||
            !root.value(QStringLiteral("workflow")).isObject()) {
            m_errors.append(
                QStringLiteral("%1: the workflow was not read: expected \"workflow\" to be "
                               "an object with steps and edges")
                    .arg(path));
            continue;
        }
        QString error;
        const auto declaration = WorkflowDeclaration::parse(
            root.value(QStringLiteral("workflow")).toObject(), path, &error);
        if (!declaration) {
            m_errors.append(QStringLiteral("%1: the workflow was not read: %2").arg(path, error));
            continue;
        }
        if (!waitingForLock([&] { return m_project.begin(&error); }) ||
            !storeWorkflowDeclaration(m_project, *declaration, &error) ||
            !m_project.commit(&error)) {
            m_project.rollback();
            m_errors.append(QStringLiteral("%1: the workflow was not stored: %2").arg(path, error));
        }
    }
}

void ImportJob::dropLeftRuns()
{
    if (m_leftRuns.isEmpty())
        return;
    QString error;
    if (!waitingForLock([&] { return m_project.begin(&error); })) {
        m_errors.append(QStringLiteral("could not remove runs left empty: ") + error);
        return;
    }
    if (!dropEmptyRuns(m_project, QList<RunId>(m_leftRuns.begin(), m_leftRuns.end()), &error) ||
        !m_project.commit(&error)) {
        m_errors.append(QStringLiteral("could not remove runs left empty: ") + error);
        m_project.rollback();
    }
}

} // namespace gml
