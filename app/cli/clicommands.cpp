// SPDX-License-Identifier: GPL-3.0-or-later
#include "clicommands.h"

#include "folderscanner.h"
#include "importjob.h"
#include "project.h"
#include "projectsummary.h"
#include "runmetrics.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTimeZone>

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace gml::cli {

std::unique_ptr<Project> openProject(const QString &path, bool writable, const QString &prefix, QTextStream &err)
{
    QString error;
    auto project = Project::open(path, writable ? Project::Mode::ReadWrite : Project::Mode::ReadOnly, &error);
    if (!project)
        err << prefix << error << '\n';
    return project;
}

Parsed parse(const QStringList &args, const QStringList &valued, const QStringList &flags)
{
    Parsed p;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a.startsWith(QLatin1String("--"))) {
            QString key = a.mid(2);
            QString value;
            const qsizetype eq = key.indexOf(QLatin1Char('='));
            if (eq >= 0) {
                value = key.mid(eq + 1);
                key = key.left(eq);
                if (!valued.contains(key)) {
                    p.error = QStringLiteral("unknown option --%1").arg(key);
                    return p;
                }
                p.options.insert(key, value);
                p.repeated[key].append(value);
            } else if (valued.contains(key)) {
                if (i + 1 >= args.size()) {
                    p.error = QStringLiteral("option --%1 needs a value").arg(key);
                    return p;
                }
                p.options.insert(key, args[++i]);
                p.repeated[key].append(args[i]);
            } else if (flags.contains(key)) {
                p.flags.append(key);
            } else {
                p.error = QStringLiteral("unknown option --%1").arg(key);
                return p;
            }
        } else {
            p.positional.append(a);
        }
    }
    return p;
}


namespace {

QString humanBytes(qint64 n)
{
    if (n >= (qint64(1) << 30))
        return QString::number(double(n) / double(1 << 30), 'f', 2) + QStringLiteral(" GiB");
    if (n >= (1 << 20))
        return QString::number(double(n) / double(1 << 20), 'f', 1) + QStringLiteral(" MiB");
    if (n >= (1 << 10))
        return QString::number(double(n) / double(1 << 10), 'f', 1) + QStringLiteral(" KiB");
    return QString::number(n) + QStringLiteral(" B");
}

QString csvField(const QString &s)
{
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) ||
        s.contains(QLatin1Char('\n')) || s.contains(QLatin1Char('\r'))) {
        QString q = s;
        q.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + q + QLatin1Char('"');
    }
    return s;
}

} // namespace

std::optional<qint64> pickRun(Project &project, QString *requested, const char *command,
                              QTextStream &err, int *exitCode)
{
    if (requested->isEmpty()) {
        QStringList names;
        auto st = project.db().prepare("SELECT name FROM run WHERE kind = 'measured' ORDER BY id");
        while (st.step())
            names << st.text(0);
        if (names.size() != 1) {
            err << "grademl " << command << ": "
                << (names.isEmpty() ? QStringLiteral("the project has no measured run")
                                    : QStringLiteral("the project has %1 runs; name one with --run: %2")
                                          .arg(names.size())
                                          .arg(names.join(QStringLiteral(", "))))
                << '\n';
            *exitCode = names.isEmpty() ? SomeFailed : Usage;
            return std::nullopt;
        }
        *requested = names.first();
    }
    const auto run = project.findRun(*requested);
    if (!run) {
        err << "grademl " << command << ": no run named '" << *requested << "'\n";
        *exitCode = SomeFailed;
    }
    return run;
}

int importCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {QStringLiteral("project"), QStringLiteral("run"),
                                  QStringLiteral("timezone")},
                           {QStringLiteral("quiet")});
    if (!p.error.isEmpty() || p.positional.isEmpty() || !p.options.contains(QStringLiteral("project"))) {
        err << "grademl import: " << (p.error.isEmpty() ? QStringLiteral("need PATH... and --project FILE.grademl") : p.error)
            << "\nusage: grademl import PATH... --project FILE.grademl [--run NAME] "
               "[--timezone IANA-NAME]\n";
        return Usage;
    }
    QTimeZone zone;
    if (p.options.contains(QStringLiteral("timezone"))) {
        zone = QTimeZone(p.options.value(QStringLiteral("timezone")).toUtf8());
        if (!zone.isValid()) {
            err << "grademl import: unknown time zone '" << p.options.value(QStringLiteral("timezone"))
                << "'; expected an IANA name such as UTC or Europe/Paris\n";
            return Usage;
        }
    }
    const QString projectPath = p.options.value(QStringLiteral("project"));
    QStringList missing;
    const QList<ScannedFile> files =
        scanInputs(p.positional, p.options.value(QStringLiteral("run")), &missing);
    if (!missing.isEmpty()) {
        for (const auto &m : missing)
            err << "grademl import: " << m << '\n';
        return Usage;
    }
    QString error;
    auto project = openProject(projectPath, true, QStringLiteral("grademl import: "), err);
    if (!project)
        return SomeFailed;
    const bool quiet = p.flags.contains(QStringLiteral("quiet"));
    // Live progress only on a terminal; logs get the per-file lines below.
    const bool live = !quiet && isatty(fileno(stderr));
    ImportJob job(*project);
    job.setTimeZone(zone);
    int lastPercent = -1;
    int lastFile = -1;
    bool toldWaiting = false;
    job.setProgressCallback([&](const ImportProgress &pr) {
        if (pr.waitingForWriter) {
            if (!toldWaiting && !quiet)
                err << "grademl import: another program is writing " << projectPath
                    << " (an import in another shell or the studio?); waiting for it to finish\n";
            err.flush();
            toldWaiting = true;
            return true;
        }
        if (!live)
            return true;
        const int percent = int(pr.fraction * 100);
        if (pr.fileIndex != lastFile || percent >= lastPercent + 10) {
            err << QStringLiteral("[%1/%2] %3 %4%\r")
                       .arg(pr.fileIndex + 1)
                       .arg(pr.fileCount)
                       .arg(QDir::current().relativeFilePath(pr.path))
                       .arg(percent);
            err.flush();
            lastFile = pr.fileIndex;
            lastPercent = percent;
        }
        return true;
    });
    QElapsedTimer timer;
    timer.start();
    const QList<SourceReport> reports = job.run(files);
    int imported = 0, unchanged = 0, failed = 0, skipped = 0, relinked = 0;
    qint64 slices = 0, counters = 0, flows = 0, bytes = 0;
    const qsizetype fileCount = std::count_if(reports.begin(), reports.end(),
                                              [](const SourceReport &r) { return !r.relinked; });
    for (int i = 0; i < reports.size(); ++i) {
        const auto &r = reports[i];
        const QString rel = QDir::current().relativeFilePath(r.path);
        if (r.relinked) {
            // An execution trace of an earlier import, read again to link to the new slices.
            if (r.status == SourceReport::Status::Imported) {
                ++relinked;
                flows += r.flows;
                if (!quiet)
                    err << QStringLiteral("[linked again] %1 (run '%2'): %3 data edges\n")
                               .arg(rel, r.runName)
                               .arg(r.flows);
            } else if (r.status == SourceReport::Status::Failed) {
                ++failed;
                err << QStringLiteral("[linked again] error: %1\n").arg(r.message);
            }
            continue;
        }
        QString line = QStringLiteral("[%1/%2] %3: %4").arg(i + 1).arg(fileCount).arg(rel, statusName(r.status));
        switch (r.status) {
        case SourceReport::Status::Imported:
            ++imported;
            line += QStringLiteral(" (%1, run '%2'): %3 slices, %4 counter samples, %5 flows")
                        .arg(r.format, r.runName)
                        .arg(r.slices)
                        .arg(r.counterSamples)
                        .arg(r.flows);
            if (r.warnings)
                line += QStringLiteral(", %1 warnings").arg(r.warnings);
            line += QStringLiteral(" in %1 s").arg(r.seconds, 0, 'f', 2);
            break;
        case SourceReport::Status::Unchanged:
            ++unchanged;
            line += QStringLiteral(" since the last import, skipped");
            break;
        case SourceReport::Status::Skipped:
            ++skipped;
            line += QStringLiteral(" (") + r.message + QLatin1Char(')');
            break;
        case SourceReport::Status::Failed:
        case SourceReport::Status::Cancelled:
            ++failed;
            line = QStringLiteral("[%1/%2] error: %3").arg(i + 1).arg(fileCount).arg(r.message);
            break;
        }
        if (r.status == SourceReport::Status::Imported) {
            slices += r.slices;
            counters += r.counterSamples;
            flows += r.flows;
            bytes += r.bytes;
        }
        if (!quiet || r.status == SourceReport::Status::Failed)
            err << line << (live ? "\x1b[K\n" : "\n");
    }
    const double secs = double(timer.nsecsElapsed()) / 1e9;
    out << QStringLiteral("%1 files: %2 imported, %3 unchanged, %4 skipped, %5 failed; "
                          "%6 slices, %7 counter samples, %8 flows from %9 in %10 s%11\n")
               .arg(fileCount)
               .arg(imported)
               .arg(unchanged)
               .arg(skipped)
               .arg(failed)
               .arg(slices)
               .arg(counters)
               .arg(flows)
               .arg(humanBytes(bytes))
               .arg(secs, 0, 'f', 2)
               .arg(relinked ? QStringLiteral("; %1 execution traces of earlier imports linked again")
                                   .arg(relinked)
                             : QString());
    if (!quiet)
        for (const QString &line : describeGroupings(job.groupings()))
            out << "grouping: " << line << '\n';
    // The changed runs' headline metrics (what `grademl runs` and the Runs browser list).
    QStringList metricErrors;
    if (const QList<RunId> changed = job.changedRunIds(); !changed.isEmpty()) {
        QElapsedTimer metricsTimer;
        metricsTimer.start();
        sim::updateRunMetrics(*project, changed, &metricErrors);
        if (!quiet)
            out << QStringLiteral("headline metrics of %1 run%2 computed in %3 s\n")
                       .arg(changed.size())
                       .arg(changed.size() == 1 ? QString() : QStringLiteral("s"))
                       .arg(double(metricsTimer.nsecsElapsed()) / 1e9, 0, 'f', 2);
    }
    out << "project: " << QFileInfo(projectPath).absoluteFilePath() << '\n';
    for (const auto &e : job.errors())
        err << "grademl import: " << e << '\n';
    for (const auto &e : std::as_const(metricErrors))
        err << "grademl import: " << e << '\n';
    return failed || !job.errors().isEmpty() ? SomeFailed : Ok;
}

int infoCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {}, {QStringLiteral("json")});
    if (!p.error.isEmpty() || p.positional.size() != 1) {
        err << "grademl info: " << (p.error.isEmpty() ? QStringLiteral("need one project file") : p.error)
            << "\nusage: grademl info FILE.grademl [--json]\n";
        return Usage;
    }
    QString error;
    auto project = openProject(p.positional.first(), false, QStringLiteral("grademl info: "), err);
    if (!project)
        return SomeFailed;
    const auto runs = summarizeProject(*project, &error);
    if (!error.isEmpty()) {
        err << "grademl info: " << error << '\n';
        return SomeFailed;
    }
    if (p.flags.contains(QStringLiteral("json")))
        out << QString::fromUtf8(QJsonDocument(summaryToJson(runs)).toJson(QJsonDocument::Indented));
    else
        out << summaryToText(runs);
    return Ok;
}

int queryCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(args, {}, {});
    if (!p.error.isEmpty() || p.positional.size() != 2) {
        err << "grademl query: " << (p.error.isEmpty() ? QStringLiteral("need a project file and one SQL statement") : p.error)
            << "\nusage: grademl query FILE.grademl \"SELECT ...\"\n";
        return Usage;
    }
    auto project = openProject(p.positional[0], false, QStringLiteral("grademl query: "), err);
    if (!project)
        return SomeFailed;
    const QByteArray sql = p.positional[1].toUtf8();
    sqlite3_stmt *raw = nullptr;
    const char *tail = nullptr;
    if (sqlite3_prepare_v2(project->db().handle(), sql.constData(), int(sql.size()), &raw, &tail) != SQLITE_OK) {
        err << "grademl query: " << project->db().lastError() << '\n';
        return SomeFailed;
    }
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt *)> stmt(raw, sqlite3_finalize);
    if (!raw) {
        err << "grademl query: empty statement\n";
        return Usage;
    }
    if (tail && QByteArray(tail).trimmed().size() > 0 && QByteArray(tail).trimmed() != ";") {
        err << "grademl query: only one statement is allowed\n";
        return Usage;
    }
    if (!sqlite3_stmt_readonly(raw)) {
        err << "grademl query: refused: the statement would write to the project (the query "
               "command is read-only)\n";
        return SomeFailed;
    }
    const int cols = sqlite3_column_count(raw);
    QStringList header;
    for (int c = 0; c < cols; ++c)
        header << csvField(QString::fromUtf8(sqlite3_column_name(raw, c)));
    out << header.join(QLatin1Char(',')) << '\n';
    int rc;
    while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
        QStringList row;
        for (int c = 0; c < cols; ++c) {
            switch (sqlite3_column_type(raw, c)) {
            case SQLITE_NULL: row << QString(); break;
            case SQLITE_INTEGER: row << QString::number(sqlite3_column_int64(raw, c)); break;
            case SQLITE_FLOAT: row << QString::number(sqlite3_column_double(raw, c), 'g', 17); break;
            default:
                row << csvField(QString::fromUtf8(reinterpret_cast<const char *>(sqlite3_column_text(raw, c)),
                                                  sqlite3_column_bytes(raw, c)));
            }
        }
        out << row.join(QLatin1Char(',')) << '\n';
    }
    if (rc != SQLITE_DONE) {
        err << "grademl query: " << project->db().lastError() << '\n';
        return SomeFailed;
    }
    return Ok;
}

} // namespace gml::cli
