// SPDX-License-Identifier: GPL-3.0-or-later
#include "folderscanner.h"

#include "jsonfields.h"
#include "safetext.h"

#include "importer.h"
#include "inputstream.h"
#include "mlflowimporter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTimeZone>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

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

bool isProjectFile(const QString &name)
{
    return name.endsWith(QLatin1String(".grademl")) ||
           name.endsWith(QLatin1String(".grademl-wal")) ||
           name.endsWith(QLatin1String(".grademl-shm")) ||
           name.endsWith(QLatin1String(".grademl-journal")) ||
           name.endsWith(QLatin1String(".grademl-lock"));
}

namespace {

// What one folder's grademl.json says: its time zone, and whether it declares a workflow.
struct FolderSettings
{
    QString timeZone;
    bool workflow = false;
    QString experiment;
    QString workload;
    QString run; // the name of the folder's run (grademl record --name), instead of the folder's
};

FolderSettings folderSettings(const QString &dir, QStringList *errors, QStringList *warnings)
{
    QFile f(dir + QLatin1Char('/') + QLatin1String(kFolderSettingsFile));
    if (!f.exists())
        return {};
    if (!f.open(QIODevice::ReadOnly)) {
        if (errors)
            errors->append(
                QStringLiteral("%1: cannot read: %2").arg(f.fileName(), f.errorString()));
        return {};
    }
    if (f.size() > kMaxSettingsBytes) {
        if (errors)
            errors->append(QStringLiteral("%1: %2 bytes; a settings file is at most %3 bytes")
                               .arg(f.fileName())
                               .arg(f.size())
                               .arg(kMaxSettingsBytes));
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
                               .arg(pe.error != QJsonParseError::NoError
                                        ? pe.errorString()
                                        : QStringLiteral("not an object")));
        return {};
    }
    FolderSettings settings;
    settings.workflow = doc.object().contains(QStringLiteral("workflow"));
    for (const auto &[key, into] : {std::pair{QStringLiteral("experiment"), &settings.experiment},
                                    std::pair{QStringLiteral("workload"), &settings.workload},
                                    std::pair{QStringLiteral("run"), &settings.run}}) {
        const QJsonValue v = doc.object().value(key);
        if (v.isString())
            *into = v.toString().trimmed();
        else if (!v.isUndefined() && warnings)
            warnings->append(
                QStringLiteral("%1: \"%2\" must be a string (the name the runs are grouped "
                               "under), got %3; ignored")
                    .arg(f.fileName(), key, JsonFields::show(v)));
    }
    if (!settings.experiment.isEmpty() && settings.workload.isEmpty() && warnings)
        warnings->append(
            QStringLiteral("%1: \"experiment\" without \"workload\": runs join a workload of "
                           "an experiment; name the workload too")
                .arg(f.fileName()));
    if (const QJsonValue z = doc.object().value(QStringLiteral("timezone"));
        !z.isUndefined() && !z.isString() && warnings)
        warnings->append(
            QStringLiteral(
                "%1: \"timezone\" must be a string, an IANA name such as \"Europe/Paris\", got "
                "%2; ignored")
                .arg(f.fileName(), JsonFields::show(z)));
    // The recorder's own record of the run (grademl record): its times checked, though only
    // people read them (issue 56: an end before the start, or a start of "x", passed unsaid).
    if (const QJsonValue rec = doc.object().value(QStringLiteral("recorder"));
        rec.isObject() && warnings) {
        std::optional<qint64> times[2];
        const char *keys[2] = {"start_ns", "end_ns"};
        for (int i = 0; i < 2; ++i) {
            const QJsonValue v = rec.toObject().value(QLatin1String(keys[i]));
            if (v.isUndefined())
                continue;
            bool ok = false;
            const qint64 ns = v.isString() ? v.toString().toLongLong(&ok) : 0;
            if (ok && ns > 0)
                times[i] = ns;
            else
                warnings->append(
                    QStringLiteral(
                        "%1: recorder.%2 is %3; expected the wall-clock time in nanoseconds as a "
                        "string of digits; the recording's record is damaged")
                        .arg(f.fileName(), QLatin1String(keys[i]),
                             safeText(JsonFields::show(v), 80)));
        }
        if (times[0] && times[1] && *times[1] < *times[0])
            warnings->append(
                QStringLiteral(
                    "%1: recorder.end_ns (%2) is before recorder.start_ns (%3); the recording's "
                    "record is damaged")
                    .arg(f.fileName())
                    .arg(*times[1])
                    .arg(*times[0]));
    }
    const QString tz = doc.object().value(QStringLiteral("timezone")).toString();
    if (!tz.isEmpty() && !QTimeZone(tz.toUtf8()).isValid()) {
        if (errors)
            errors->append(QStringLiteral("%1: unknown time zone '%2'; expected an IANA name such "
                                          "as UTC or Europe/Paris")
                               .arg(f.fileName(), tz));
        return settings;
    }
    settings.timeZone = tz;
    return settings;
}

// Why a path is not read as an input (empty: it is a readable regular file). Only regular
// files are inputs: a device (a link to /dev/zero named t.json), FIFO or socket would never end.
QString notAnInput(const QByteArray &path)
{
    struct stat st;
    if (::stat(path.constData(), &st) != 0)
        return QStringLiteral("cannot read: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
    if (S_ISDIR(st.st_mode))
        return {};
    if (!S_ISREG(st.st_mode))
        return S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
                   ? QStringLiteral("not a regular file (a device); only regular files are read")
               : S_ISFIFO(st.st_mode)
                   ? QStringLiteral("not a regular file (a FIFO); only regular files are read")
                   : QStringLiteral("not a regular file; only regular files are read");
    if (::access(path.constData(), R_OK) != 0)
        return QStringLiteral("cannot read: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
    return {};
}

struct WalkEntry
{
    QString path;       // absolute
    QString skipReason; // set: listed, not read
};

// Collects the files under `dir` (raw bytes: names are checked before they become QStrings).
// Hidden entries, project files and grademl.json are left out; symlinked folders are not
// followed (no cycles); an unreadable folder, a name that is not UTF-8 and anything that is
// not a regular file are listed with the reason, so nothing disappears silently.
void walkFolder(const QByteArray &dir, std::vector<WalkEntry> &out)
{
    DIR *d = ::opendir(dir.constData());
    if (!d) {
        out.push_back(
            {QFile::decodeName(dir), QStringLiteral("folder not read: %1")
                                         .arg(QString::fromLocal8Bit(std::strerror(errno)))});
        return;
    }
    std::vector<QByteArray> subdirs;
    while (const dirent *e = ::readdir(d)) {
        const QByteArray name(e->d_name);
        if (name.startsWith('.'))
            continue;
        const QByteArray full = dir + '/' + name;
        if (!name.isValidUtf8()) {
            out.push_back({QFile::decodeName(full),
                           QStringLiteral("the file name is not valid UTF-8 (bytes shown as %1); "
                                          "rename it to import it")
                               .arg(QString::fromLatin1(name.toPercentEncoding("/-_.")))});
            continue;
        }
        struct stat lst;
        if (::lstat(full.constData(), &lst) == 0 && S_ISDIR(lst.st_mode)) {
            subdirs.push_back(full);
            continue;
        }
        const QString path = QFile::decodeName(full);
        const QString fileName = QFile::decodeName(name);
        if (isProjectFile(fileName) || fileName == QLatin1String(kFolderSettingsFile))
            continue;
        struct stat st;
        if (::stat(full.constData(), &st) == 0 && S_ISDIR(st.st_mode))
            continue; // a symlink to a folder: not followed
        out.push_back({path, notAnInput(full)});
    }
    ::closedir(d);
    for (const QByteArray &sub : subdirs)
        walkFolder(sub, out);
}

} // namespace

// A TensorFlow capture's trace viewer JSON is a conversion of its XSpace, which holds more
// (every stat, producer/consumer links): when both are read, the xplane is, and the JSON is
// listed with the reason.
static void preferXplanes(QList<ScannedFile> &out)
{
    QSet<QString> xplanes;
    for (const ScannedFile &f : std::as_const(out))
        if (f.importer && f.path.endsWith(QLatin1String(".xplane.pb")))
            xplanes.insert(f.path.chopped(int(qstrlen(".xplane.pb"))));
    for (ScannedFile &f : out) {
        if (!f.importer)
            continue;
        for (const char *suffix : {".trace.json.gz", ".trace.json"}) {
            if (!f.path.endsWith(QLatin1String(suffix)))
                continue;
            const QString stem = f.path.chopped(int(qstrlen(suffix)));
            if (xplanes.contains(stem)) {
                f.importer = nullptr;
                f.skipReason =
                    QStringLiteral("the same capture's %1.xplane.pb is read instead (the "
                                   "XSpace this JSON was converted from)")
                        .arg(QFileInfo(stem).fileName());
            }
        }
    }
}

QList<ScannedFile> scanInputs(const QStringList &inputs, const QString &runOverride,
                              QStringList *errors, QStringList *warnings)
{
    if (!warnings)
        warnings = errors;
    QList<ScannedFile> out;
    QHash<QString, FolderSettings> settings; // folder -> what its grademl.json says
    struct MlflowRun
    {
        QString folder; // the MLflow run folder holding a folder, or empty
        QString name;   // the project run it becomes
    };
    QHash<QString, MlflowRun> mlflowRuns; // by folder
    // The nearest setting up from a file's folder to the input's root.
    auto nearest = [&](const QString &file, const QString &root,
                       const std::function<bool(const FolderSettings &)> &says) -> QString {
        for (QString dir = QFileInfo(file).absolutePath();;) {
            auto it = settings.constFind(dir);
            if (it == settings.constEnd())
                it = settings.insert(dir, folderSettings(dir, errors, warnings));
            if (says(*it))
                return dir;
            if (root.isEmpty() || dir == root || !dir.startsWith(root))
                return QString();
            const QString up = QFileInfo(dir).absolutePath();
            if (up == dir)
                return QString();
            dir = up;
        }
    };
    auto zoneOf = [&](const QString &file, const QString &root) {
        const QString dir =
            nearest(file, root, [](const FolderSettings &s) { return !s.timeZone.isEmpty(); });
        return dir.isEmpty() ? QString() : settings.value(dir).timeZone;
    };
    auto workflowOf = [&](const QString &file, const QString &root) {
        const QString dir = nearest(file, root, [](const FolderSettings &s) { return s.workflow; });
        return dir.isEmpty() ? QString()
                             : dir + QLatin1Char('/') + QLatin1String(kFolderSettingsFile);
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
                dir,
                {runFolder, runFolder.isEmpty() ? QString() : mlflowProjectRunName(runFolder)});
        }
        f.skipReason = mlflowRunDataReason(f.path, mlflow->folder);
        if (f.skipReason.isEmpty())
            f.importer = sniffFile(f.path, &f.skipReason);
        f.timeZone = zoneOf(f.path, root);
        f.workflowFile = workflowOf(f.path, root);
        const QString place =
            nearest(f.path, root, [](const FolderSettings &s) { return !s.workload.isEmpty(); });
        if (!place.isEmpty()) {
            f.experiment = settings.value(place).experiment;
            f.workload = settings.value(place).workload;
        }
        if (runOverride.isEmpty() && !mlflow->folder.isEmpty())
            f.runName = mlflow->name;
        f.runFromFolder = runOverride.isEmpty() && mlflow->folder.isEmpty();
        // A run named by the folder's own grademl.json (not a parent's: each folder is a run).
        if (f.runFromFolder) {
            const QString named = settings.value(dir).run;
            if (!named.isEmpty() && settings.contains(dir)) {
                f.runName = named;
                f.runFromFolder = false;
            }
        }
        out.append(f);
    };
    // A path that is not read (not a regular file, unreadable, a name that is not UTF-8): listed.
    auto skip = [&](const QString &path, const QString &run, const QString &reason) {
        ScannedFile f;
        f.path = QDir::cleanPath(path);
        f.runName = runOverride.isEmpty() ? run : runOverride;
        f.skipReason = reason;
        out.append(f);
    };
    for (const QString &input : inputs) {
        const QFileInfo info(input);
        if (!info.exists()) {
            if (errors)
                errors->append(QStringLiteral("%1: no such file or folder").arg(input));
            continue;
        }
        if (!info.isDir()) {
            if (isProjectFile(info.fileName()))
                continue;
            const QString why = notAnInput(QFile::encodeName(info.absoluteFilePath()));
            if (why.isEmpty())
                add(info.absoluteFilePath(), info.absoluteDir().dirName(), QString());
            else
                skip(info.absoluteFilePath(), info.absoluteDir().dirName(), why);
            continue;
        }
        const QDir root(info.absoluteFilePath());
        const QString rootName = root.dirName();
        std::vector<WalkEntry> entries;
        walkFolder(QFile::encodeName(root.absolutePath()), entries);
        std::sort(entries.begin(), entries.end(),
                  [](const WalkEntry &a, const WalkEntry &b) { return a.path < b.path; });
        for (const WalkEntry &e : entries) {
            const QString rel = root.relativeFilePath(QFileInfo(e.path).absolutePath());
            const QString run =
                rel == QLatin1String(".") ? rootName : rootName + QLatin1Char('/') + rel;
            if (e.skipReason.isEmpty())
                add(e.path, run, root.absolutePath());
            else
                skip(e.path, run, e.skipReason);
        }
    }
    preferXplanes(out);
    // Files that link to other sources' slices come after every other file.
    std::stable_sort(out.begin(), out.end(), [](const ScannedFile &a, const ScannedFile &b) {
        const bool la = a.importer && a.importer->linksToRun();
        const bool lb = b.importer && b.importer->linksToRun();
        return !la && lb;
    });
    return out;
}

QByteArray writePlan(const QList<ScannedFile> &files)
{
    QList<ScannedFile> sorted = files;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const ScannedFile &a, const ScannedFile &b) { return a.path < b.path; });
    QJsonArray list;
    for (const ScannedFile &f : sorted)
        if (f.importer)
            list.append(QJsonObject{{QStringLiteral("path"), f.path},
                                    {QStringLiteral("size"), f.size},
                                    {QStringLiteral("format"), f.importer->format()},
                                    {QStringLiteral("run"), f.runName},
                                    {QStringLiteral("run_from_folder"), f.runFromFolder},
                                    {QStringLiteral("timezone"), f.timeZone},
                                    {QStringLiteral("workflow_file"), f.workflowFile},
                                    {QStringLiteral("experiment"), f.experiment},
                                    {QStringLiteral("workload"), f.workload}});
    return QJsonDocument(QJsonObject{{QStringLiteral("files"), list}})
        .toJson(QJsonDocument::Compact);
}

// A JSON value as its text, safe to print.
static QString jsonText(const QJsonValue &v)
{
    const QByteArray array = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact); // [value]
    return safeText(QString::fromUtf8(array.mid(1, array.size() - 2)));
}

std::optional<QList<ScannedFile>> readPlan(const QByteArray &json, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject() ||
        !doc.object().value(QStringLiteral("files")).isArray()) {
        *error = parseError.error != QJsonParseError::NoError
                     ? QStringLiteral("at byte %1: %2")
                           .arg(parseError.offset)
                           .arg(parseError.errorString())
                     : QStringLiteral("expected an object with a \"files\" array");
        return std::nullopt;
    }
    for (const QString &key : doc.object().keys())
        if (key != QLatin1String("files")) {
            *error = QStringLiteral("unknown key \"%1\" (a plan holds \"files\" only)")
                         .arg(safeText(key));
            return std::nullopt;
        }
    // Every field of every entry checked as any input is (issue 56): a plan is written by
    // `grademl import --plan`, but it is a file on a shared disk that anything may have changed.
    static const QStringList kStrings{QStringLiteral("path"),          QStringLiteral("format"),
                                      QStringLiteral("run"),           QStringLiteral("timezone"),
                                      QStringLiteral("workflow_file"), QStringLiteral("experiment"),
                                      QStringLiteral("workload")};
    QList<ScannedFile> out;
    QHash<QString, qsizetype> seen;
    const QJsonArray files = doc.object().value(QStringLiteral("files")).toArray();
    for (qsizetype i = 0; i < files.size(); ++i) {
        auto fail = [&](const QString &why) {
            *error = QStringLiteral("file %1 of the plan: %2").arg(i).arg(why);
            return std::nullopt;
        };
        if (!files[i].isObject())
            return fail(QStringLiteral("expected an object, got %1").arg(jsonText(files[i])));
        const QJsonObject o = files[i].toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            const bool known = kStrings.contains(it.key()) || it.key() == QLatin1String("size") ||
                               it.key() == QLatin1String("run_from_folder");
            if (!known)
                return fail(QStringLiteral("unknown key \"%1\"").arg(safeText(it.key())));
            if (kStrings.contains(it.key()) && !it.value().isString())
                return fail(QStringLiteral("\"%1\" must be a string").arg(it.key()));
        }
        if (o.contains(QStringLiteral("run_from_folder")) &&
            !o.value(QStringLiteral("run_from_folder")).isBool())
            return fail(QStringLiteral("\"run_from_folder\" must be true or false"));
        // Sizes are byte counts: whole, from 0 to 2^53 (what a JSON number holds exactly).
        const QJsonValue size = o.value(QStringLiteral("size"));
        const double bytes = size.toDouble(-1);
        if (!size.isDouble() || !(bytes >= 0) || bytes > 9007199254740992.0 ||
            bytes != std::floor(bytes))
            return fail(
                QStringLiteral("\"size\" must be a whole number of bytes from 0 to 2^53, got %1")
                    .arg(jsonText(size)));
        ScannedFile f;
        f.path = o.value(QStringLiteral("path")).toString();
        f.size = qint64(bytes);
        f.runName = o.value(QStringLiteral("run")).toString();
        f.runFromFolder = o.value(QStringLiteral("run_from_folder")).toBool();
        f.timeZone = o.value(QStringLiteral("timezone")).toString();
        f.workflowFile = o.value(QStringLiteral("workflow_file")).toString();
        f.experiment = o.value(QStringLiteral("experiment")).toString();
        f.workload = o.value(QStringLiteral("workload")).toString();
        const QString format = o.value(QStringLiteral("format")).toString();
        for (const auto &importer : importers())
            if (importer->format() == format)
                f.importer = importer.get();
        // From the root: QDir::isAbsolutePath also takes ":name" (a Qt resource) as absolute.
        if (!f.path.startsWith(QLatin1Char('/')))
            return fail(QStringLiteral("\"path\" must be an absolute path, got \"%1\"")
                            .arg(safeText(f.path)));
        if (f.runName.trimmed().isEmpty())
            return fail(QStringLiteral("\"run\" must name a run"));
        if (!f.importer)
            return fail(QStringLiteral("unknown format \"%1\"").arg(safeText(format)));
        if (!f.timeZone.isEmpty() && !QTimeZone(f.timeZone.toUtf8()).isValid())
            return fail(
                QStringLiteral(
                    "unknown time zone \"%1\"; expected an IANA name such as UTC or Europe/Paris")
                    .arg(safeText(f.timeZone)));
        f.path = QDir::cleanPath(f.path);
        if (const auto at = seen.constFind(f.path); at != seen.constEnd())
            return fail(QStringLiteral("%1 is listed already as file %2: each file once")
                            .arg(safeText(f.path))
                            .arg(*at));
        seen.insert(f.path, i);
        out.append(f);
    }
    return out;
}

} // namespace gml
