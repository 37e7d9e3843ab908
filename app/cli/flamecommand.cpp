// SPDX-License-Identifier: GPL-3.0-or-later
// grademl flame: the flame graph of a run's range (model/read/flamegraph.h) as folded stacks
// (flamegraph.pl, inferno, speedscope) or JSON; with --diff-run or --diff-range, the
// differential one against a baseline.
#include "clicommands.h"
#include "safetext.h"
#include "trackrecords.h"

#include "flamegraph.h"
#include "project.h"
#include "timelinedata.h"

#include <QJsonDocument>

namespace gml::cli {

namespace {

constexpr char kFlameUsage[] =
    "usage: grademl flame FILE.grademl [--run NAME] [--range START:END] [--rank N] [--gpu]\n"
    "                     [--format folded|json] [--diff-run NAME | --diff-range START:END]\n"
    "  the flame graph of the run's CPU call stacks in the range (after the run's start; default:\n"
    "  the whole run), weighted by self time; --gpu: the GPU work in the range under the call\n"
    "  stacks that launched it, weighted by GPU time. Weights are nanoseconds. --format folded\n"
    "  (the default) writes 'frame;frame;frame weight' lines for flamegraph.pl, inferno and\n"
    "  speedscope. --diff-run / --diff-range: the baseline (another run over the same range, or\n"
    "  another range of the run); folded then writes 'frames before after' (difffolded.pl's "
    "form).\n";

} // namespace

int flameCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p =
        parse(args,
              {QStringLiteral("run"), QStringLiteral("range"), QStringLiteral("rank"),
               QStringLiteral("format"), QStringLiteral("diff-run"), QStringLiteral("diff-range")},
              {QStringLiteral("gpu")});
    QString problem = p.error;
    if (problem.isEmpty() && p.positional.size() != 1)
        problem = QStringLiteral("need one project file");
    FlameRequest request;
    request.metric =
        p.flags.contains(QStringLiteral("gpu")) ? FlameMetric::GpuTime : FlameMetric::CpuSelf;
    if (problem.isEmpty() && p.options.contains(QStringLiteral("rank"))) {
        bool ok = false;
        request.rank = p.options.value(QStringLiteral("rank")).toInt(&ok);
        if (!ok || request.rank < 0)
            problem = QStringLiteral("--rank expects a rank number, got '%1'")
                          .arg(safeText(p.options.value(QStringLiteral("rank"))));
    }
    std::optional<std::pair<TimeNs, TimeNs>> range, diffRange;
    if (problem.isEmpty() && p.options.contains(QStringLiteral("range")))
        range = parseRunRange(p.options.value(QStringLiteral("range")), "range", &problem);
    if (problem.isEmpty() && p.options.contains(QStringLiteral("diff-range")))
        diffRange =
            parseRunRange(p.options.value(QStringLiteral("diff-range")), "diff-range", &problem);
    const QString format = p.options.value(QStringLiteral("format"), QStringLiteral("folded"));
    if (problem.isEmpty() && format != QLatin1String("folded") && format != QLatin1String("json"))
        problem = QStringLiteral("--format expects folded or json, got '%1'").arg(format);
    if (problem.isEmpty() && p.options.contains(QStringLiteral("diff-run")) && diffRange)
        problem = QStringLiteral("--diff-run and --diff-range exclude each other");
    if (!problem.isEmpty()) {
        err << "grademl flame: " << problem << '\n' << kFlameUsage;
        return Usage;
    }
    const QString path = p.positional.first();
    auto project = openProject(path, false, QStringLiteral("grademl flame: "), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    int exitCode = Ok;
    const auto run = pickRun(*project, &runName, "flame", err, &exitCode);
    if (!run)
        return exitCode;
    std::optional<qint64> baseRun = run;
    QString baseName = p.options.value(QStringLiteral("diff-run"));
    if (!baseName.isEmpty() && !(baseRun = pickRun(*project, &baseName, "flame", err, &exitCode)))
        return exitCode;
    QString error;
    const auto data = loadTimelineData(project->path(), &error);
    if (!data) {
        err << "grademl flame: " << error << '\n';
        return SomeFailed;
    }
    // The graph of one run over a range after its start (the whole run without one).
    auto build = [&](RunId id, const std::optional<std::pair<TimeNs, TimeNs>> &relative,
                     FlameGraph *g) {
        FlameRequest r = request;
        r.run = id;
        for (const RunSummary &s : data->runs)
            if (s.id == id && relative) {
                r.t0 = s.start + relative->first;
                r.t1 = s.start + relative->second;
            }
        return buildFlameGraph(*data, project.get(), r, g, &error);
    };
    // A rank the run does not have is said as such, not as an empty range.
    if (request.rank >= 0) {
        QStringList ranks;
        bool found = false;
        for (const int rank : ranksOfRun(*project, *run)) {
            ranks << QString::number(rank);
            found = found || rank == request.rank;
        }
        if (!found) {
            err << "grademl flame: run '" << runName << "' has no rank " << request.rank << " ("
                << (ranks.isEmpty()
                        ? QStringLiteral("it has no ranks")
                        : QStringLiteral("its ranks: ") + ranks.join(QStringLiteral(", ")))
                << ")\n";
            return SomeFailed;
        }
    }
    const char *what = request.metric == FlameMetric::GpuTime ? "GPU work" : "CPU slices";
    // Each side of a graph must hold something: a diff against nothing read as "all new".
    auto built = [&](RunId id, const QString &name,
                     const std::optional<std::pair<TimeNs, TimeNs>> &relative, FlameGraph *g,
                     const char *role) {
        if (!build(id, relative, g)) {
            err << "grademl flame: run '" << name << "': " << error << '\n';
            return false;
        }
        if (g->total() == 0) {
            err << "grademl flame: " << role << "run '" << name << "' has no " << what
                << " in the range\n";
            return false;
        }
        return true;
    };
    FlameGraph graph;
    if (!built(*run, runName, range, &graph, ""))
        return SomeFailed;
    if (p.options.contains(QStringLiteral("diff-run")) || diffRange) {
        FlameGraph before;
        if (!built(*baseRun, baseName.isEmpty() ? runName : baseName, diffRange ? diffRange : range,
                   &before, "the baseline: "))
            return SomeFailed;
        graph = FlameGraph::diff(before, graph);
    }
    if (format == QLatin1String("json")) {
        QJsonObject o = graph.toJson();
        o.insert(QStringLiteral("run"), runName);
        o.insert(QStringLiteral("metric"), request.metric == FlameMetric::GpuTime
                                               ? QStringLiteral("gpu_time")
                                               : QStringLiteral("cpu_self"));
        out << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    } else {
        out << QString::fromUtf8(graph.folded());
    }
    return Ok;
}

} // namespace gml::cli
