// SPDX-License-Identifier: GPL-3.0-or-later
#include "mlflowimporter.h"

#include "jsonscan.h"
#include "project.h"
#include "safetext.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

#include <cmath>
#include <dirent.h>

namespace gml {

namespace {

constexpr qint64 kMaxSmallFile = 16 * 1024 * 1024;

QByteArray readSmall(const QString &path, bool *ok = nullptr)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly) || f.size() > kMaxSmallFile) {
        if (ok)
            *ok = false;
        return {};
    }
    if (ok)
        *ok = true;
    return f.readAll();
}

// The offset of the first byte that breaks UTF-8 in `text`, or -1 when it is valid.
qsizetype firstInvalidUtf8(const QByteArray &text)
{
    const auto *p = reinterpret_cast<const unsigned char *>(text.constData());
    const qsizetype n = text.size();
    for (qsizetype i = 0; i < n;) {
        const unsigned char c = p[i];
        const int extra = c < 0x80             ? 0
                          : (c & 0xe0) == 0xc0 ? 1
                          : (c & 0xf0) == 0xe0 ? 2
                          : (c & 0xf8) == 0xf0 ? 3
                                               : -1;
        if (extra < 0 || (extra == 1 && c < 0xc2) || i + extra >= n + (extra == 0 ? 1 : 0))
            return i;
        for (int k = 1; k <= extra; ++k)
            if ((p[i + k] & 0xc0) != 0x80)
                return i;
        i += extra + 1;
    }
    return -1;
}

bool isRunMeta(const QHash<QString, QString> &yaml)
{
    return yaml.contains(QStringLiteral("run_id")) || yaml.contains(QStringLiteral("run_uuid"));
}

// A folder laid out as an MLflow run (meta.yaml beside metrics/, params/ or tags/), whatever
// its meta.yaml holds: a truncated meta.yaml still marks the run, so the run fails as one
// source that says so, and its tag and metric files are never read as traces of their own.
bool hasRunLayout(const QDir &dir)
{
    if (!QFileInfo::exists(dir.filePath(QStringLiteral("meta.yaml")))) // a folder of that name too
        return false;
    for (const char *sub : {"metrics", "params", "tags"})
        if (QFileInfo(dir.filePath(QLatin1String(sub))).isDir())
            return true;
    return false;
}

QString statusName(const QString &code)
{
    static const QHash<QString, QString> names = {
        {QStringLiteral("1"), QStringLiteral("RUNNING")},
        {QStringLiteral("2"), QStringLiteral("SCHEDULED")},
        {QStringLiteral("3"), QStringLiteral("FINISHED")},
        {QStringLiteral("4"), QStringLiteral("FAILED")},
        {QStringLiteral("5"), QStringLiteral("KILLED")}};
    return names.value(code, code);
}

// key -> raw value of every file under `dir` (keys may contain '/').
// The params or tags of a run, file name -> value. A value over kMaxSmallFile is kept as a
// note of its size, said in `warnings` when given.
QJsonObject readKeyFiles(const QString &dir, WarningLog *warnings = nullptr)
{
    QJsonObject out;
    QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString f = it.next();
        const QString key = QDir(dir).relativeFilePath(f);
        bool ok = false;
        const QByteArray value = readSmall(f, &ok);
        if (!ok) {
            out.insert(key, QStringLiteral("(not kept: %1 bytes)").arg(it.fileInfo().size()));
            if (warnings)
                warnings->add(
                    QStringLiteral("big value"), -1,
                    QStringLiteral(
                        "%1/%2 is %3 bytes, over the limit of %4 for a param or tag; kept as "
                        "its size")
                        .arg(QDir(dir).dirName(), key)
                        .arg(it.fileInfo().size())
                        .arg(kMaxSmallFile));
            continue;
        }
        out.insert(key, QString::fromUtf8(value).trimmed());
    }
    return out;
}

// The files under `dir` whose names are not UTF-8, as "sub/acc\\xff": Qt's directory listing
// leaves them out, so a metric named so would be missing without a word.
QStringList namesNotUtf8(const QByteArray &dir, const QByteArray &prefix = {}, int depth = 0)
{
    QStringList out;
    DIR *d = depth < 8 ? ::opendir(dir.constData()) : nullptr;
    if (!d)
        return out;
    while (const dirent *e = ::readdir(d)) {
        const QByteArray name(e->d_name);
        if (name == "." || name == "..")
            continue;
        if (json::findInvalidUtf8(name.constData(), size_t(name.size())) >= 0) {
            QString shown;
            for (const char c : QByteArray(prefix + name))
                shown += static_cast<unsigned char>(c) < 0x80
                             ? QString(QLatin1Char(c))
                             : QStringLiteral("\\x%1").arg(static_cast<unsigned char>(c), 2, 16,
                                                           QLatin1Char('0'));
            out << shown;
        } else if (e->d_type == DT_DIR) {
            out << namesNotUtf8(dir + '/' + name, prefix + name + '/', depth + 1);
        }
    }
    ::closedir(d);
    return out;
}

} // namespace

QHash<QString, QString> readFlatYaml(const QByteArray &text)
{
    QHash<QString, QString> out;
    for (QByteArray line : text.split('\n')) {
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.isEmpty() || line.startsWith(' ') || line.startsWith('-') || line.startsWith('#'))
            continue;
        const qsizetype colon = line.indexOf(": ");
        const bool bare = colon < 0 && line.endsWith(':');
        if (colon <= 0 && !bare)
            continue;
        const QString key = QString::fromUtf8(bare ? line.chopped(1) : line.left(colon)).trimmed();
        QString value = bare ? QString() : QString::fromUtf8(line.mid(colon + 2)).trimmed();
        if (value.size() >= 2 &&
            ((value.startsWith(QLatin1Char('\'')) && value.endsWith(QLatin1Char('\''))) ||
             (value.startsWith(QLatin1Char('"')) && value.endsWith(QLatin1Char('"')))))
            value = value.mid(1, value.size() - 2);
        else if (value == QLatin1String("null") || value == QLatin1String("~"))
            value = QString();
        out.insert(key, value);
    }
    return out;
}

QString mlflowRunFolder(const QString &path)
{
    QDir dir = QFileInfo(path).absoluteDir();
    for (int i = 0; i < 8; ++i) {
        const QString meta = dir.filePath(QStringLiteral("meta.yaml"));
        if (QFileInfo::exists(meta) &&
            (isRunMeta(readFlatYaml(readSmall(meta))) || hasRunLayout(dir)))
            return dir.absolutePath();
        if (!dir.cdUp())
            break;
    }
    return {};
}

QString mlflowProjectRunName(const QString &runFolder)
{
    const auto meta = readFlatYaml(readSmall(runFolder + QStringLiteral("/meta.yaml")));
    const auto experiment = readFlatYaml(readSmall(runFolder + QStringLiteral("/../meta.yaml")));
    QString run =
        QString::fromUtf8(readSmall(runFolder + QStringLiteral("/tags/mlflow.runName"))).trimmed();
    if (run.isEmpty())
        run = meta.value(QStringLiteral("run_name"));
    if (run.isEmpty())
        run = meta.value(QStringLiteral("name"));
    if (run.isEmpty())
        run = meta.value(QStringLiteral("run_id"), meta.value(QStringLiteral("run_uuid")));
    if (run.isEmpty()) // a damaged meta.yaml: the run folder is named by its id
        run = QDir(runFolder).dirName();
    QString exp = experiment.value(QStringLiteral("name"));
    if (exp.isEmpty())
        exp = QStringLiteral("experiment ") + meta.value(QStringLiteral("experiment_id"));
    return QStringLiteral("mlflow/%1/%2").arg(exp, run);
}

SniffResult MlflowRunImporter::sniff(const QString &path, const QByteArray &head) const
{
    const QFileInfo info(path);
    if (info.fileName() == QLatin1String("meta.yaml")) {
        const auto yaml = readFlatYaml(head);
        if (isRunMeta(yaml) && yaml.contains(QStringLiteral("experiment_id")))
            return {95, {}};
        if (hasRunLayout(info.absoluteDir()))
            return {90, {}}; // a run whose meta.yaml is damaged: the import says what is wrong
        if (yaml.contains(QStringLiteral("experiment_id")))
            return {0, QStringLiteral("MLflow experiment '%1': its record is made when one of its "
                                      "runs is imported")
                           .arg(yaml.value(QStringLiteral("name")))};
        return {};
    }
    return {};
}

QString mlflowRunDataReason(const QString &path, const QString &runFolder)
{
    if (runFolder.isEmpty())
        return {};
    const QString rel = QDir(runFolder).relativeFilePath(path);
    if (rel.startsWith(QLatin1String("metrics/")) || rel.startsWith(QLatin1String("params/")) ||
        rel.startsWith(QLatin1String("tags/")))
        return QFileInfo(runFolder + QStringLiteral("/meta.yaml")).isDir()
                   ? QStringLiteral("MLflow run data, but the run's meta.yaml is a folder, not the "
                                    "run's record: "
                                    "the run %1 cannot be read")
                         .arg(QDir(runFolder).dirName())
                   : QStringLiteral("MLflow run data, read with %1/meta.yaml")
                         .arg(QDir(runFolder).dirName());
    return {};
}

QString MlflowRunImporter::fingerprint(const QString &path) const
{
    // Metrics grow while a run is alive: their sizes and times decide a new import.
    const QString dir = QFileInfo(path).absolutePath();
    qint64 bytes = 0, newest = 0, files = 0;
    for (const char *sub : {"metrics", "params", "tags"}) {
        QDirIterator it(dir + QLatin1Char('/') + QLatin1String(sub), QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            ++files;
            bytes += it.fileInfo().size();
            newest = std::max(newest, it.fileInfo().lastModified().toMSecsSinceEpoch());
        }
    }
    return QStringLiteral("%1/%2/%3").arg(files).arg(bytes).arg(newest);
}

namespace {

// Epoch milliseconds a project holds (times are kept in ns): 1970 to about 2065.
constexpr qint64 kMaxMs = kMaxAbsTimeNs / 1'000'000;

// What the run's meta.yaml says, checked.
struct RunMeta
{
    QHash<QString, QString> meta;
    QString runId;
    qint64 startMs = 0, endMs = 0;
    bool endOk = false;
    bool endRefused = false; // said in a warning; not again as "no end_time"
};

// The run's meta.yaml (`text`) read into `m`: a failure without a run id or a start time in
// range; a warning for an end time out of range, bytes that are not UTF-8, a key MLflow does
// not write.
std::optional<ImportOutcome> readRunMeta(const ImportContext &ctx, const QByteArray &text,
                                         RunMeta &m, WarningLog &warnings)
{
    auto &meta = m.meta;
    meta = readFlatYaml(text);
    m.runId = meta.value(QStringLiteral("run_id"), meta.value(QStringLiteral("run_uuid")));
    const QString &runId = m.runId;
    const QString runFolder = QFileInfo(ctx.path).absoluteDir().dirName();
    if (runId.isEmpty() || !meta.contains(QStringLiteral("start_time")))
        return ImportOutcome{
            ImportOutcome::Status::Failed,
            text.size(),
            QStringLiteral("the meta.yaml of MLflow run '%1' has no %2 (%3 bytes; truncated?); "
                           "expected 'run_id: <id>', 'experiment_id' and 'start_time: <epoch ms>'")
                .arg(runFolder,
                     runId.isEmpty() ? QStringLiteral("'run_id'") : QStringLiteral("'start_time'"))
                .arg(text.size()),
            {}};
    bool startOk = false;
    m.startMs = meta.value(QStringLiteral("start_time")).toLongLong(&startOk);
    const qint64 startMs = m.startMs;
    if (!startOk) {
        const qsizetype at = text.indexOf("start_time");
        return ImportOutcome{ImportOutcome::Status::Failed,
                             at,
                             QStringLiteral("start_time is '%1'; expected epoch milliseconds")
                                 .arg(meta.value(QStringLiteral("start_time"))),
                             {}};
    }
    if (startMs < 0 || startMs > kMaxMs)
        return ImportOutcome{
            ImportOutcome::Status::Failed,
            text.indexOf("start_time"),
            QStringLiteral("start_time is %1; expected epoch milliseconds from 0 (1970) to %2")
                .arg(startMs)
                .arg(kMaxMs),
            {}};
    bool &endOk = m.endOk;
    qint64 &endMs = m.endMs;
    endMs = meta.value(QStringLiteral("end_time")).toLongLong(&endOk);
    if (endOk && (endMs < startMs || endMs > kMaxMs)) {
        m.endRefused = true;
        warnings.add(
            QStringLiteral("end_time"), text.indexOf("end_time"),
            QStringLiteral(
                "end_time %1 is %2 start_time %3; the run's span ends at its last metric point")
                .arg(endMs)
                .arg(endMs < startMs ? QStringLiteral("before")
                                     : QStringLiteral("past what a project holds, after"))
                .arg(startMs));
        endOk = false;
        endMs = 0;
    }
    // Flipped bytes in a meta.yaml: a key no MLflow writes, or text that is not UTF-8 (issue 56:
    // read without a word).
    if (const qsizetype bad = firstInvalidUtf8(text); bad >= 0)
        warnings.add(
            QStringLiteral("meta.yaml utf8"), bad,
            QStringLiteral(
                "the run's meta.yaml is not valid UTF-8 at byte %1 (damaged?); its values are read "
                "as they are")
                .arg(bad));
    static const QStringList kRunKeys{
        QStringLiteral("artifact_uri"),     QStringLiteral("end_time"),
        QStringLiteral("entry_point_name"), QStringLiteral("experiment_id"),
        QStringLiteral("lifecycle_stage"),  QStringLiteral("name"),
        QStringLiteral("run_id"),           QStringLiteral("run_uuid"),
        QStringLiteral("source_name"),      QStringLiteral("source_type"),
        QStringLiteral("source_version"),   QStringLiteral("start_time"),
        QStringLiteral("status"),           QStringLiteral("tags"),
        QStringLiteral("user_id"),          QStringLiteral("deleted_time"),
        QStringLiteral("run_name")};
    for (auto it = meta.constBegin(); it != meta.constEnd(); ++it)
        if (!kRunKeys.contains(it.key()))
            warnings.add(QStringLiteral("meta.yaml key"), text.indexOf(it.key().toUtf8()),
                         QStringLiteral(
                             "the run's meta.yaml has a key MLflow does not write, '%1' at byte %2 "
                             "(damaged?); ignored")
                             .arg(safeText(it.key(), 60))
                             .arg(text.indexOf(it.key().toUtf8())));
    return std::nullopt;
}

// One counter track per metric file under the run's track, each line '<epoch ms> <value>
// [<step>]' a point; returns the last point's time (`lastPoint` when there is none).
TimeNs readMetrics(TraceWriter &w, TrackId runTrack, const QString &runDir, TimeNs lastPoint,
                   WarningLog &warnings)
{
    int metricIndex = 0;
    const QString metricsDir = runDir + QStringLiteral("/metrics");
    QStringList metricFiles;
    {
        QDirIterator it(metricsDir, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            metricFiles.append(it.next());
        std::sort(metricFiles.begin(), metricFiles.end());
    }
    for (const QString &name : namesNotUtf8(QFile::encodeName(metricsDir)))
        warnings.add(
            QStringLiteral("metric name"), -1,
            QStringLiteral(
                "metrics/%1: a file name that is not UTF-8; that metric is not read (rename "
                "the file)")
                .arg(name));
    for (const QString &file : std::as_const(metricFiles)) {
        const QString key = QDir(metricsDir).relativeFilePath(file);
        TrackSpec spec;
        spec.parent = runTrack;
        spec.kind = TrackKind::Counter;
        spec.name = key;
        spec.sortKey = metricIndex++;
        const TrackId track = w.addTrack(spec);
        bool readOk = false;
        const QByteArray data = readSmall(file, &readOk);
        if (!readOk)
            warnings.add(
                QStringLiteral("metric file"), -1,
                QStringLiteral("metrics/%1 is %2 bytes, over the limit of %3 for a metric file (or "
                               "unreadable); its points are not read")
                    .arg(key)
                    .arg(QFileInfo(file).size())
                    .arg(kMaxSmallFile));
        int lineNo = 0;
        for (const QByteArray &raw : data.split('\n')) {
            ++lineNo;
            const QByteArray line = raw.trimmed();
            if (line.isEmpty())
                continue;
            const QList<QByteArray> parts = line.simplified().split(' ');
            bool tsOk = false, vOk = false;
            const qint64 ts = parts.size() >= 2 ? parts[0].toLongLong(&tsOk) : 0;
            const double v = parts.size() >= 2 ? parts[1].toDouble(&vOk) : 0;
            if (!tsOk || !vOk || parts.size() > 3 || !std::isfinite(v) || ts < 0 || ts > kMaxMs) {
                warnings.add(QStringLiteral("metric line"), -1,
                             QStringLiteral("metrics/%1 line %2: '%3' is not '<epoch ms> <value> "
                                            "[<step>]' (ms from 0 to %4, a finite value); skipped")
                                 .arg(key)
                                 .arg(lineNo)
                                 .arg(QString::fromUtf8(line.left(80)))
                                 .arg(kMaxMs));
                continue;
            }
            bool stepOk = parts.size() == 3;
            const qint64 step = stepOk ? parts[2].toLongLong(&stepOk) : 0;
            w.addCounter(track, ts * 1'000'000, v,
                         stepOk ? std::optional<qint64>(step) : std::nullopt);
            lastPoint = std::max(lastPoint, ts * 1'000'000);
        }
    }
    return lastPoint;
}

} // namespace

ImportOutcome MlflowRunImporter::import(ImportContext &ctx) const
{
    bool ok = false;
    const QByteArray text = readSmall(ctx.path, &ok);
    if (!ok)
        return {ImportOutcome::Status::Failed,
                -1,
                QStringLiteral("cannot read the run's meta.yaml"),
                {}};
    WarningLog warnings;
    RunMeta run;
    if (auto failure = readRunMeta(ctx, text, run, warnings))
        return *failure;
    const auto &meta = run.meta;
    const QString &runId = run.runId;
    const qint64 startMs = run.startMs, endMs = run.endMs;
    const bool endOk = run.endOk, endRefused = run.endRefused;
    TraceWriter &w = *ctx.writer;
    const QString runDir = QFileInfo(ctx.path).absolutePath();
    const QString projectRun = mlflowProjectRunName(runDir);
    const QString runLabel = projectRun.section(QLatin1Char('/'), 2);

    // Experiment and workload records.
    const auto experiment = readFlatYaml(readSmall(runDir + QStringLiteral("/../meta.yaml")));
    QString expName = experiment.value(QStringLiteral("name"));
    if (expName.isEmpty()) {
        expName = QStringLiteral("experiment ") + meta.value(QStringLiteral("experiment_id"));
        warnings.add(QStringLiteral("no experiment"), -1,
                     QStringLiteral("no readable experiment meta.yaml beside the run folder; the "
                                    "experiment is named by its id"));
    }
    {
        QJsonObject expParams;
        for (const char *k : {"experiment_id", "artifact_location", "lifecycle_stage"})
            if (experiment.contains(QLatin1String(k)))
                expParams.insert(QLatin1String(k), experiment.value(QLatin1String(k)));
        QString error;
        if (!w.placeInExperiment(expName, expParams, readKeyFiles(runDir + QStringLiteral("/tags")),
                                 &error))
            return {ImportOutcome::Status::Failed,
                    -1,
                    QStringLiteral("could not write the experiment record: ") + error,
                    {}};
    }
    QJsonObject params;
    params.insert(QStringLiteral("mlflow.run_id"), runId);
    params.insert(QStringLiteral("mlflow.experiment"), expName);
    params.insert(QStringLiteral("mlflow.status"),
                  statusName(meta.value(QStringLiteral("status"))));
    params.insert(QStringLiteral("mlflow.user"), meta.value(QStringLiteral("user_id")));
    params.insert(QStringLiteral("mlflow.start_time_ms"), startMs);
    params.insert(QStringLiteral("mlflow.end_time_ms"), endOk ? QJsonValue(endMs) : QJsonValue());
    params.insert(QStringLiteral("mlflow.params"),
                  readKeyFiles(runDir + QStringLiteral("/params"), &warnings));
    params.insert(QStringLiteral("mlflow.tags"), readKeyFiles(runDir + QStringLiteral("/tags")));
    w.mergeRunParams(params);

    // The run's own track and span, then one counter track per metric.
    TrackSpec runSpec;
    runSpec.kind = TrackKind::WorkflowStep;
    runSpec.name = QStringLiteral("MLflow run · ") + runLabel;
    runSpec.sortKey = -1;
    const TrackId runTrack = w.addTrack(runSpec);
    TimeNs lastPoint = startMs * 1'000'000;
    lastPoint = readMetrics(w, runTrack, runDir, lastPoint, warnings);
    const TimeNs start = startMs * 1'000'000;
    TimeNs end = endOk ? endMs * 1'000'000 : lastPoint;
    if (!endOk && !endRefused)
        warnings.add(
            QStringLiteral("unfinished"), -1,
            QStringLiteral("the run has no end_time (status %1): its span ends at its last "
                           "metric point")
                .arg(statusName(meta.value(QStringLiteral("status")))));
    QJsonObject args;
    args.insert(QStringLiteral("run_id"), runId);
    args.insert(QStringLiteral("status"), statusName(meta.value(QStringLiteral("status"))));
    args.insert(QStringLiteral("user"), meta.value(QStringLiteral("user_id")));
    args.insert(QStringLiteral("experiment"), expName);
    const QByteArray json = QJsonDocument(args).toJson(QJsonDocument::Compact);
    w.addSlice(runTrack, start, std::max<TimeNs>(end - start, 0),
               w.intern(QString(QStringLiteral("run ") + runLabel).toStdString()),
               w.intern("mlflow"), kNoId, kNoId,
               std::string_view(json.constData(), size_t(json.size())));
    ImportOutcome outcome;
    outcome.warnings = warnings.list();
    return outcome;
}

} // namespace gml
