// SPDX-License-Identifier: GPL-3.0-or-later
// grademl align: the clock alignment of a project's ranks, and the user's overrides.
#include "clicommands.h"
#include "runrecords.h"
#include "safetext.h"
#include "sourcerecords.h"
#include "trackrecords.h"

#include "clockalignment.h"
#include "project.h"
#include "projectsummary.h"
#include "timeformat.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace gml::cli {

namespace {

const char kAlignUsage[] = "usage: grademl align FILE.grademl [--run NAME] [--json]\n"
                           "       grademl align FILE.grademl --recompute [--run NAME]\n"
                           "       grademl align FILE.grademl [--run NAME] --source (rank:N|PATH) "
                           "(--offset DURATION | --clear)\n"
                           "  DURATION: a signed number with ns, us, ms or s (ns when none), added "
                           "to that source's times\n";

struct RunRow
{
    RunId id = 0;
    QString name;
};

QList<RunRow> runsOf(Project &project, const QString &only)
{
    QList<RunRow> out;
    for (const auto &[id, name] : runNames(project))
        if (only.isEmpty() || name == only)
            out.append({id, name});
    return out;
}

// The source a selector names: "rank:N" among the runs' ranked sources, or a path.
std::optional<SourceId> findSource(Project &project, const QList<RunRow> &runs, const QString &sel,
                                   QString *why)
{
    QList<SourceId> hits;
    if (sel.startsWith(QLatin1String("rank:"))) {
        bool ok = false;
        const int rank = sel.mid(5).toInt(&ok);
        if (!ok) {
            *why = QStringLiteral("'%1' is not rank:N").arg(sel);
            return std::nullopt;
        }
        for (const auto &run : runs)
            hits += sourcesOfRank(project, run.id, rank);
    } else {
        for (const auto &run : runs)
            hits += sourcesMatchingPath(project, run.id, sel);
    }
    if (hits.size() == 1)
        return hits.first();
    *why = hits.isEmpty()
               ? QStringLiteral("no source matches '%1'").arg(sel)
               : QStringLiteral("'%1' matches %2 sources; name the run with --run or give "
                                "the full path")
                     .arg(sel)
                     .arg(hits.size());
    return std::nullopt;
}

} // namespace

int alignCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p =
        parse(args, {QStringLiteral("run"), QStringLiteral("source"), QStringLiteral("offset")},
              {QStringLiteral("json"), QStringLiteral("clear"), QStringLiteral("recompute")});
    const bool setting =
        p.options.contains(QStringLiteral("offset")) || p.flags.contains(QStringLiteral("clear"));
    QString usageError = p.error;
    if (usageError.isEmpty() && p.positional.size() != 1)
        usageError = QStringLiteral("need one project file");
    if (usageError.isEmpty() && setting != p.options.contains(QStringLiteral("source")))
        usageError = QStringLiteral("--source goes with --offset or --clear");
    if (usageError.isEmpty() && p.options.contains(QStringLiteral("offset")) &&
        p.flags.contains(QStringLiteral("clear")))
        usageError = QStringLiteral("give --offset or --clear, not both");
    std::optional<TimeNs> offset;
    if (usageError.isEmpty() && p.options.contains(QStringLiteral("offset"))) {
        offset = parseDuration(p.options.value(QStringLiteral("offset")));
        if (!offset)
            usageError = QStringLiteral("--offset '%1' is not a duration such as -37.5ms or 120us")
                             .arg(safeText(p.options.value(QStringLiteral("offset"))));
    }
    if (!usageError.isEmpty()) {
        err << "grademl align: " << usageError << '\n' << kAlignUsage;
        return Usage;
    }
    const bool writes = setting || p.flags.contains(QStringLiteral("recompute"));
    QString error;
    auto project =
        openProject(p.positional.first(), writes, QStringLiteral("grademl align: "), err);
    if (!project)
        return SomeFailed;
    const QString only = p.options.value(QStringLiteral("run"));
    const auto runs = runsOf(*project, only);
    if (runs.isEmpty()) {
        err << "grademl align: "
            << (only.isEmpty() ? QStringLiteral("the project has no runs")
                               : QStringLiteral("no run named '%1'").arg(only))
            << '\n';
        return SomeFailed;
    }
    if (p.flags.contains(QStringLiteral("recompute"))) {
        for (const auto &run : runs) {
            if (!alignRunClocks(*project, run.id, &error)) {
                err << "grademl align: run '" << run.name << "': " << error << '\n';
                return SomeFailed;
            }
        }
    }
    if (setting) {
        const auto source =
            findSource(*project, runs, p.options.value(QStringLiteral("source")), &error);
        if (!source) {
            err << "grademl align: " << error << '\n';
            return SomeFailed;
        }
        if (!setAlignmentOverride(*project, *source, offset, &error)) {
            err << "grademl align: " << error << '\n';
            return SomeFailed;
        }
    }
    QJsonArray jruns;
    for (const auto &run : runs) {
        const auto list = loadRunAlignment(*project, run.id);
        if (list.isEmpty() && !only.isEmpty() && !p.flags.contains(QStringLiteral("json")))
            out << "run " << run.name << ": no ranks to align (fewer than two sources with "
                << "collective kernels)\n";
        if (list.isEmpty())
            continue;
        QJsonArray jsources;
        if (!p.flags.contains(QStringLiteral("json")))
            out << "run " << run.name << ":\n";
        for (const auto &a : list) {
            QJsonObject o = a.toJson();
            o.insert(QStringLiteral("path"), a.path);
            jsources.append(o);
            if (!p.flags.contains(QStringLiteral("json")))
                out << "  " << a.path << "\n    " << describeAlignment(a) << '\n';
        }
        QJsonObject jr;
        jr.insert(QStringLiteral("name"), run.name);
        jr.insert(QStringLiteral("sources"), jsources);
        jruns.append(jr);
    }
    if (p.flags.contains(QStringLiteral("json"))) {
        QJsonObject root;
        root.insert(QStringLiteral("runs"), jruns);
        out << QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented));
    } else if (jruns.isEmpty() && only.isEmpty()) {
        out << "no run has ranks to align (fewer than two sources with collective kernels)\n";
    }
    return Ok;
}

} // namespace gml::cli
