// SPDX-License-Identifier: GPL-3.0-or-later
#include "folderscanner.h"

#include "importer.h"
#include "inputstream.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>

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

QList<ScannedFile> scanInputs(const QStringList &inputs, const QString &runOverride,
                              QStringList *errors)
{
    QList<ScannedFile> out;
    auto add = [&](const QString &file, const QString &run) {
        ScannedFile f;
        f.path = QDir::cleanPath(QFileInfo(file).absoluteFilePath());
        f.runName = runOverride.isEmpty() ? run : runOverride;
        f.size = QFileInfo(file).size();
        f.importer = sniffFile(f.path, &f.skipReason);
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
                add(info.absoluteFilePath(), info.absoluteDir().dirName());
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
            if (!isProjectFile(f))
                files.append(f);
        }
        std::sort(files.begin(), files.end());
        for (const QString &f : files) {
            const QString rel = root.relativeFilePath(QFileInfo(f).absolutePath());
            add(f, rel == QLatin1String(".") ? rootName : rootName + QLatin1Char('/') + rel);
        }
    }
    return out;
}

} // namespace gml
