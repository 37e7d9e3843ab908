// SPDX-License-Identifier: GPL-3.0-or-later
// The helpers every command shares: the option parser, opening a project (with the headline
// metrics computed when it lacks them), picking the run a command works on.
#include "clicommands.h"
#include "runrecords.h"

#include "outputfile.h"
#include "project.h"
#include "runcatalog.h"
#include "runmetrics.h"
#include "safetext.h"
#include "timeformat.h"

#include <QElapsedTimer>
#include <QRegularExpression>

namespace gml::cli {

std::unique_ptr<Project> openProject(const QString &path, bool writable, const QString &prefix,
                                     QTextStream &err)
{
    QString error;
    auto project =
        Project::open(path, writable ? Project::Mode::ReadWrite : Project::Mode::ReadOnly, &error);
    if (!project)
        err << prefix << error << '\n';
    return project;
}

Parsed parse(const QStringList &args, const QStringList &valued, const QStringList &flags)
{
    Parsed p;
    // An option is --name or --name=value with a name of letters, digits and dashes; anything
    // else that starts with "--" (an SQL statement opening with a comment) is an argument, and
    // "--" alone ends the options.
    static const QRegularExpression optionName(QStringLiteral("^--[A-Za-z0-9][A-Za-z0-9-]*(=|$)"));
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("--")) {
            p.positional += args.mid(i + 1);
            break;
        }
        if (a.startsWith(QLatin1String("--")) && optionName.match(a).hasMatch()) {
            QString key = a.mid(2);
            QString value;
            const qsizetype eq = key.indexOf(QLatin1Char('='));
            if (eq >= 0) {
                value = key.mid(eq + 1);
                key = key.left(eq);
                if (!valued.contains(key)) {
                    p.error = QStringLiteral("unknown option --%1").arg(safeText(key, 60));
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
                p.error = QStringLiteral("unknown option --%1").arg(safeText(key, 60));
                return p;
            }
        } else {
            p.positional.append(a);
        }
    }
    return p;
}

std::optional<std::pair<qint64, qint64>> parseRunRange(const QString &text, const char *option,
                                                       QString *problem)
{
    // Only times after the run's start: "@NS" is refused here.
    if (const auto t = parseRunTimes(text); t && !t->first.absolute)
        return std::make_pair(t->first.ns, t->second.ns);
    *problem = QStringLiteral("--%1 expects START:END after the run's start (0 <= START < END), "
                              "e.g. 10ms:250ms, got '%2'")
                   .arg(QLatin1String(option), safeText(text, 80));
    return std::nullopt;
}

std::optional<RunTime> parseRunTime(const QString &text)
{
    const QString t = text.trimmed();
    if (t.startsWith(QLatin1Char('@'))) {
        bool ok = false;
        const qint64 v = t.mid(1).toLongLong(&ok);
        return ok ? std::optional<RunTime>(RunTime{v, true}) : std::nullopt;
    }
    const auto d = parseDuration(t);
    return d && *d >= 0 ? std::optional<RunTime>(RunTime{*d, false}) : std::nullopt;
}

std::optional<std::pair<RunTime, RunTime>> parseRunTimes(const QString &text)
{
    const QStringList parts = text.split(QLatin1Char(':'));
    const auto a = parts.size() == 2 ? parseRunTime(parts[0]) : std::nullopt;
    const auto b = parts.size() == 2 ? parseRunTime(parts[1]) : std::nullopt;
    if (!a || !b || a->absolute != b->absolute || b->ns <= a->ns)
        return std::nullopt;
    return std::make_pair(*a, *b);
}

QString refusedOutput(const Parsed &p, const char *option, const QString &project)
{
    const QString path = p.options.value(QString::fromLatin1(option));
    if (path.isEmpty())
        return {};
    const QString why = outputRefusal(path, {project});
    return why.isEmpty() ? QString()
                         : QStringLiteral("--%1 %2: refused as an output: %3")
                               .arg(QLatin1String(option), safeText(path), why);
}

std::optional<qint64> pickRun(Project &project, QString *requested, const char *command,
                              QTextStream &err, int *exitCode)
{
    if (requested->isEmpty()) {
        const QStringList names = runNamesOfKind(project, QStringLiteral("measured"));
        if (names.size() != 1) {
            err << "grademl " << command << ": "
                << (names.isEmpty()
                        ? QStringLiteral("the project has no measured run")
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

// Opens a project for reading runs, computing the headline metrics it lacks when it can.
std::unique_ptr<Project> openWithMetrics(const QString &path, const char *command, QTextStream &err,
                                         bool quiet)
{
    const bool writable = Project::whyNotWritable(path).isEmpty();
    auto project = openProject(path, writable,
                               QStringLiteral("grademl %1: ").arg(QLatin1String(command)), err);
    if (!project)
        return nullptr;
    const QList<RunId> missing = runsWithoutMetrics(*project, sim::kRunMetricsVersion);
    if (!missing.isEmpty() && writable) {
        QElapsedTimer t;
        t.start();
        QStringList errors;
        sim::updateRunMetrics(*project, missing, &errors);
        for (const QString &e : std::as_const(errors))
            err << "grademl " << command << ": " << e << '\n';
        if (!quiet)
            err << QStringLiteral("grademl %1: headline metrics of %2 run%3 computed in %4 s\n")
                       .arg(QLatin1String(command))
                       .arg(missing.size())
                       .arg(missing.size() == 1 ? QString() : QStringLiteral("s"))
                       .arg(double(t.nsecsElapsed()) / 1e9, 0, 'f', 2);
    } else if (!missing.isEmpty()) {
        err << "grademl " << command << ": the project is read-only; " << missing.size()
            << " run(s) are listed without their headline metrics\n";
    }
    return project;
}

} // namespace gml::cli
