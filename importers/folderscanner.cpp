// SPDX-License-Identifier: GPL-3.0-or-later
#include "folderscanner.h"

#include "importer.h"
#include "inputstream.h"
#include "mlflowimporter.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimeZone>

#include <algorithm>

namespace gml {

static constexpr qint64 kSniffBytes = 64 * 1024;

const Importer *sniffFile(const QString &path, QString *reason)
{
    const QByteArray head = InputStream::head(path, kSniffBytes);
    const Importer *best = nullptr;
    int bestConfidence = 0;
    QString why;
    for (const auto &imp : importers()) {
        const SniffResult r = imp->sniff(path, head);
        if (r.confidence > bestConfidence) {
            best = imp.get();
            bestConfidence = r.confidence;
        } else if (r.confidence == 0 && why.isEmpty() && !r.reason.isEmpty()) {
            why = r.reason;
        }
    }
    if (!best && reason)
        *reason = why.isEmpty() ? (head.isEmpty() ? QStringLiteral("empty file, format unknown")
                                                  : QStringLiteral("unrecognised format"))
                                : why;
    return best;
}

static bool isProjectFile(const QString &name)
{
    return name.endsWith(QLatin1String(".grademl")) ||
           name.endsWith(QLatin1String(".grademl-wal")) ||
           name.endsWith(QLatin1String(".grademl-shm")) ||
           name.endsWith(QLatin1String(".grademl-journal"));
}

namespace {

// The "timezone" of one folder's grademl.json: empty when the file is absent or does not say.
QString folderTimeZone(const QString &dir, QStringList *errors)
{
    QFile f(dir + QLatin1Char('/') + QLatin1String(kFolderSettingsFile));
    if (!f.exists())
        return {};
    if (!f.open(QIODevice::ReadOnly)) {
        if (errors)
            errors->append(QStringLiteral("%1: cannot read: %2").arg(f.fileName(), f.errorString()));
        return {};
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
        if (errors)
            errors->append(QStringLiteral("%1: at byte %2: %3; expected an object such as "
                                          "{\"timezone\": \"Europe/Paris\"}")
                               .arg(f.fileName())
                               .arg(pe.offset)
                               .arg(pe.error != QJsonParseError::NoError ? pe.errorString()
                                                                         : QStringLiteral("not an object")));
        return {};
    }
    const QString tz = doc.object().value(QStringLiteral("timezone")).toString();
    if (!tz.isEmpty() && !QTimeZone(tz.toUtf8()).isValid()) {
        if (errors)
            errors->append(QStringLiteral("%1: unknown time zone '%2'; expected an IANA name such "
                                          "as UTC or Europe/Paris")
                               .arg(f.fileName(), tz));
        return {};
    }
    return tz;
}

} // namespace

QList<ScannedFile> scanInputs(const QStringList &inputs, const QString &runOverride,
                              QStringList *errors)
{
    QList<ScannedFile> out;
    QHash<QString, QString> zones; // folder -> its grademl.json's time zone (or "" if none)
    struct MlflowRun
    {
        QString folder; // the MLflow run folder holding a folder, or empty
        QString name;   // the project run it becomes
    };
    QHash<QString, MlflowRun> mlflowRuns; // by folder
    auto zoneOf = [&](const QString &file, const QString &root) {
        for (QString dir = QFileInfo(file).absolutePath();;) {
            auto it = zones.constFind(dir);
            if (it == zones.constEnd())
                it = zones.insert(dir, folderTimeZone(dir, errors));
            if (!it->isEmpty())
                return *it;
            if (root.isEmpty() || dir == root || !dir.startsWith(root))
                return QString();
            const QString up = QFileInfo(dir).absolutePath();
            if (up == dir)
                return QString();
            dir = up;
        }
    };
    auto add = [&](const QString &file, const QString &run, const QString &root) {
        ScannedFile f;
        f.path = QDir::cleanPath(QFileInfo(file).absoluteFilePath());
        f.runName = runOverride.isEmpty() ? run : runOverride;
        f.size = QFileInfo(file).size();
        // Inside an MLflow run folder: its metrics, params and tags are read with its meta.yaml,
        // and every file of it (meta.yaml, artifacts) goes into that run, not the folder's.
        const QString dir = QFileInfo(f.path).absolutePath();
        auto mlflow = mlflowRuns.constFind(dir);
        if (mlflow == mlflowRuns.constEnd()) {
            const QString runFolder = mlflowRunFolder(f.path);
            mlflow = mlflowRuns.insert(
                dir, {runFolder, runFolder.isEmpty() ? QString() : mlflowProjectRunName(runFolder)});
        }
        f.skipReason = mlflowRunDataReason(f.path, mlflow->folder);
        if (f.skipReason.isEmpty())
            f.importer = sniffFile(f.path, &f.skipReason);
        f.timeZone = zoneOf(f.path, root);
        if (runOverride.isEmpty() && !mlflow->folder.isEmpty())
            f.runName = mlflow->name;
        out.append(f);
    };
    for (const QString &input : inputs) {
        const QFileInfo info(input);
        if (!info.exists()) {
            if (errors)
                errors->append(QStringLiteral("%1: no such file or folder").arg(input));
            continue;
        }
        if (info.isFile()) {
            if (!isProjectFile(info.fileName()))
                add(info.absoluteFilePath(), info.absoluteDir().dirName(), QString());
            continue;
        }
        const QDir root(info.absoluteFilePath());
        const QString rootName = root.dirName();
        QStringList files;
        // Hidden folders (.grademl, .git) are skipped: QDir::Hidden is not requested.
        QDirIterator it(root.absolutePath(), QDir::Files | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString f = it.next();
            if (!isProjectFile(f) && QFileInfo(f).fileName() != QLatin1String(kFolderSettingsFile))
                files.append(f);
        }
        std::sort(files.begin(), files.end());
        for (const QString &f : files) {
            const QString rel = root.relativeFilePath(QFileInfo(f).absolutePath());
            add(f, rel == QLatin1String(".") ? rootName : rootName + QLatin1Char('/') + rel,
                root.absolutePath());
        }
    }
    // Files that link to other sources' slices come after every other file.
    std::stable_sort(out.begin(), out.end(), [](const ScannedFile &a, const ScannedFile &b) {
        const bool la = a.importer && a.importer->linksToRun();
        const bool lb = b.importer && b.importer->linksToRun();
        return !la && lb;
    });
    return out;
}

} // namespace gml
