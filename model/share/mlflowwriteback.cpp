// SPDX-License-Identifier: GPL-3.0-or-later
#include "mlflowwriteback.h"

#include "outputfile.h"
#include "smallinput.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <cmath>

namespace gml {

namespace {

bool validKey(const QString &key)
{
    static const QRegularExpression re(QStringLiteral("^grademl\\.[A-Za-z0-9_.-]+$"));
    return re.match(key).hasMatch() && !key.contains(QLatin1String(".."));
}

// The last step of a metric file's lines (-1: none).
qint64 lastStep(const QByteArray &text)
{
    qint64 step = -1;
    for (const QByteArray &line : text.split('\n')) {
        const QList<QByteArray> parts = line.trimmed().split(' ');
        if (parts.size() >= 3)
            step = std::max(step, parts[2].toLongLong());
    }
    return step;
}

// A folder of the run that a write-back writes into (metrics/, tags/, artifacts/grademl/):
// made when missing; refused when it is a link or resolves outside the run, so that nothing
// outside the run folder is ever written. Empty when fine, else why not.
QString ownFolder(const QString &canonicalRun, const QString &folder)
{
    if (QFileInfo(folder).isSymLink())
        return QStringLiteral("%1 is a symbolic link: a write-back writes inside the run folder "
                              "only")
            .arg(folder);
    if (!QDir().mkpath(folder))
        return QStringLiteral("cannot make %1").arg(folder);
    const QString real = QFileInfo(folder).canonicalFilePath();
    if (real.isEmpty() || !real.startsWith(canonicalRun + QLatin1Char('/')))
        return QStringLiteral("%1 lies outside the run folder %2: a write-back writes inside it "
                              "only")
            .arg(folder, canonicalRun);
    return {};
}

// What an MLflow meta.yaml says of its folder: a run's names its run_id (or run_uuid), an
// experiment's its experiment_id only.
bool isRunMeta(const QByteArray &meta)
{
    for (const QByteArray &line : meta.split('\n'))
        if (line.startsWith("run_id:") || line.startsWith("run_uuid:"))
            return true;
    return false;
}

// The time GradeML's metrics are logged at: the run's own, not the write-back's (a metric
// logged years after the run would stretch its span to them when the store is imported): its
// meta.yaml's end_time, else its start_time (ms since the epoch), else now.
qint64 runTimeMs(const QByteArray &meta)
{
    qint64 start = 0, end = 0;
    for (const QByteArray &line : meta.split('\n')) {
        const QByteArray value = line.mid(line.indexOf(':') + 1).trimmed();
        bool ok = false;
        const qint64 ms = value.toLongLong(&ok);
        if (!ok || ms <= 0)
            continue;
        if (line.startsWith("end_time:"))
            end = ms;
        else if (line.startsWith("start_time:"))
            start = ms;
    }
    return end >= start && end > 0 ? end : start > 0 ? start : QDateTime::currentMSecsSinceEpoch();
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
    QString why;
    const auto meta = readSmallInput(run.filePath(QStringLiteral("meta.yaml")),
                                     QStringLiteral("an MLflow meta.yaml"), &why);
    if (!meta)
        return fail(QStringLiteral("%1 is not an MLflow run folder (expected mlruns/EXPERIMENT/RUN "
                                   "holding meta.yaml): %2")
                        .arg(runDir, why));
    if (!isRunMeta(*meta))
        return fail(QStringLiteral("%1 is an MLflow experiment, not a run: name one of its run "
                                   "folders (mlruns/EXPERIMENT/RUN; its meta.yaml names a run_id)")
                        .arg(runDir));
    const QString canonicalRun = QFileInfo(runDir).canonicalFilePath();
    for (const auto &[key, value] : metrics)
        if (!validKey(key))
            return fail(QStringLiteral("metric key '%1' is not grademl.NAME").arg(key));
    for (auto it = tags.begin(); it != tags.end(); ++it)
        if (!validKey(it.key()))
            return fail(QStringLiteral("tag key '%1' is not grademl.NAME").arg(it.key()));
    for (const char *sub : {"metrics", "tags"})
        if (const QString problem = ownFolder(canonicalRun, run.filePath(QLatin1String(sub)));
            !problem.isEmpty())
            return fail(problem);
    // Every file checked before the first is written: a link among them stops the write-back
    // with nothing written, rather than half of it.
    QStringList targets;
    for (const auto &[key, value] : metrics)
        targets << run.filePath(QStringLiteral("metrics/") + key);
    for (auto it = tags.begin(); it != tags.end(); ++it)
        targets << run.filePath(QStringLiteral("tags/") + it.key());
    for (const QString &target : std::as_const(targets))
        if (const QString refused = outputRefusal(target); !refused.isEmpty())
            return fail(QStringLiteral("%1: %2; nothing was written").arg(target, refused));
    MlflowWriteBack done;
    const qint64 now = runTimeMs(*meta);
    for (const auto &[key, value] : metrics) {
        if (!std::isfinite(value))
            continue;
        // A metric logged again is one more line; the file is rewritten whole (temp file and
        // rename) rather than appended to, so a link in its place is refused, not followed.
        const QString path = run.filePath(QStringLiteral("metrics/") + key);
        QByteArray text;
        if (QFileInfo::exists(path)) {
            const auto old = readSmallInput(path, QStringLiteral("an MLflow metric file"), &why,
                                            {kPlanInputBytes});
            if (!old)
                return fail(why);
            text = *old;
            if (!text.isEmpty() && !text.endsWith('\n'))
                text += '\n';
        }
        text += QByteArray::number(now) + ' ' + QByteArray::number(value, 'g', 17) + ' ' +
                QByteArray::number(lastStep(text) + 1) + '\n';
        if (!writeOutput(path, text, &why))
            return fail(why);
        ++done.metrics;
    }
    for (auto it = tags.begin(); it != tags.end(); ++it) {
        if (!writeOutput(run.filePath(QStringLiteral("tags/") + it.key()), it.value().toUtf8(),
                         &why))
            return fail(why);
        ++done.tags;
    }
    if (!artifact.isEmpty()) {
        const QString folder = run.filePath(QStringLiteral("artifacts/grademl"));
        if (const QString problem = ownFolder(canonicalRun, folder); !problem.isEmpty())
            return fail(problem);
        const QString target = folder + QLatin1Char('/') + QFileInfo(artifact).fileName();
        QFile source(artifact);
        if (!source.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("cannot read %1: %2").arg(artifact, source.errorString()));
        if (!writeOutput(target, source.readAll(), &why)) // our own earlier copy is replaced
            return fail(why);
        done.artifact = target;
    }
    return done;
}

} // namespace gml
