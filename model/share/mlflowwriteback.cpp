// SPDX-License-Identifier: GPL-3.0-or-later
#include "mlflowwriteback.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>

#include <cmath>

namespace gml {

namespace {

bool validKey(const QString &key)
{
    static const QRegularExpression re(QStringLiteral("^grademl\\.[A-Za-z0-9_.-]+$"));
    return re.match(key).hasMatch() && !key.contains(QLatin1String(".."));
}

// The last step of a metric file we wrote before (-1: none).
qint64 lastStep(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    qint64 step = -1;
    while (!f.atEnd()) {
        const QList<QByteArray> parts = f.readLine().trimmed().split(' ');
        if (parts.size() >= 3)
            step = std::max(step, parts[2].toLongLong());
    }
    return step;
}

} // namespace

std::optional<MlflowWriteBack> writeBackToMlflow(const QString &runDir,
                                                 const QList<QPair<QString, double>> &metrics,
                                                 const QMap<QString, QString> &tags,
                                                 const QString &artifact, QString *error)
{
    const auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    const QDir run(runDir);
    if (!QFileInfo(run.filePath(QStringLiteral("meta.yaml"))).isFile())
        return fail(QStringLiteral("%1 is not an MLflow run folder (expected mlruns/EXPERIMENT/RUN "
                                   "holding meta.yaml)")
                        .arg(runDir));
    for (const auto &[key, value] : metrics)
        if (!validKey(key))
            return fail(QStringLiteral("metric key '%1' is not grademl.NAME").arg(key));
    for (auto it = tags.begin(); it != tags.end(); ++it)
        if (!validKey(it.key()))
            return fail(QStringLiteral("tag key '%1' is not grademl.NAME").arg(it.key()));
    for (const char *sub : {"metrics", "tags"})
        if (!run.mkpath(QLatin1String(sub)))
            return fail(QStringLiteral("cannot make %1/%2").arg(runDir, QLatin1String(sub)));
    MlflowWriteBack done;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (const auto &[key, value] : metrics) {
        if (!std::isfinite(value))
            continue;
        const QString path = run.filePath(QStringLiteral("metrics/") + key);
        const qint64 step = lastStep(path) + 1;
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Append))
            return fail(QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
        const QByteArray line = QByteArray::number(now) + ' ' + QByteArray::number(value, 'g', 17) +
                                ' ' + QByteArray::number(step) + '\n';
        if (f.write(line) != line.size())
            return fail(QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
        ++done.metrics;
    }
    for (auto it = tags.begin(); it != tags.end(); ++it) {
        QSaveFile f(run.filePath(QStringLiteral("tags/") + it.key()));
        if (!f.open(QIODevice::WriteOnly) || f.write(it.value().toUtf8()) < 0 || !f.commit())
            return fail(QStringLiteral("cannot write %1: %2").arg(f.fileName(), f.errorString()));
        ++done.tags;
    }
    if (!artifact.isEmpty()) {
        const QString folder = run.filePath(QStringLiteral("artifacts/grademl"));
        if (!QDir().mkpath(folder))
            return fail(QStringLiteral("cannot make %1").arg(folder));
        const QString target = folder + QLatin1Char('/') + QFileInfo(artifact).fileName();
        QFile::remove(target); // our own earlier copy
        if (!QFile::copy(artifact, target))
            return fail(QStringLiteral("cannot copy %1 to %2").arg(artifact, target));
        done.artifact = target;
    }
    return done;
}

} // namespace gml
