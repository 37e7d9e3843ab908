// SPDX-License-Identifier: GPL-3.0-or-later
// grademl analyze: the automated analyses of a run (issue 16): the ranked findings with their
// what-if gains, each GPU's time breakdown with its idle time split by cause, per-iteration
// breakdowns, kernel families and top kernels, launch statistics, the straggler report of its
// collectives, the ranks' balance, and the counters of its monitoring logs by phase.
#include "clicommands.h"
#include "safetext.h"

#include "analysischarts.h"
#include "chartlayer.h"
#include "clusteranalysis.h"
#include "clusterproject.h"
#include "findings.h"
#include "project.h"
#include "timeformat.h"

#include <QDir>
#include <QJsonDocument>

namespace gml::cli {

int analyzeCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p =
        parse(args, {QStringLiteral("run"), QStringLiteral("rank"), QStringLiteral("range")},
              {QStringLiteral("json")});
    QString problem = p.error;
    if (problem.isEmpty() && p.positional.size() != 1)
        problem = QStringLiteral("need one project file");
    sim::AnalysisScope scope;
    if (problem.isEmpty() && p.options.contains(QStringLiteral("rank"))) {
        bool ok = false;
        scope.rank = p.options.value(QStringLiteral("rank")).toInt(&ok);
        if (!ok || scope.rank < 0)
            problem = QStringLiteral("--rank expects a rank number, got '%1'")
                          .arg(safeText(p.options.value(QStringLiteral("rank"))));
    }
    std::optional<std::pair<TimeNs, TimeNs>> relative;
    if (problem.isEmpty() && p.options.contains(QStringLiteral("range"))) {
        relative = parseRunRange(p.options.value(QStringLiteral("range")), "range", &problem);
    }
    if (!problem.isEmpty()) {
        err << "grademl analyze: " << problem
            << "\nusage: grademl analyze FILE.grademl [--run NAME] [--rank N] [--range START:END] "
               "[--json]\n";
        return Usage;
    }
    QString error;
    auto project =
        openProject(p.positional.first(), false, QStringLiteral("grademl analyze: "), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    int exitCode = Ok;
    const auto run = pickRun(*project, &runName, "analyze", err, &exitCode);
    if (!run)
        return exitCode;
    if (cluster::isClusterProject(*project)) {
        // A cluster project holds no slice: the cross-rank analyses reduce its rank facts; one
        // rank's analyses run on the shard that holds it.
        if (scope.rank < 0) {
            if (relative) {
                err << "grademl analyze: --range needs --rank on a cluster project (the cross-rank "
                       "analyses cover the whole run)\n";
                return Usage;
            }
            const auto cluster = sim::analyzeCluster(*project, *run, runName, &error);
            if (!cluster) {
                err << "grademl analyze: run '" << runName << "': " << error << '\n';
                return SomeFailed;
            }
            if (p.flags.contains(QStringLiteral("json")))
                out << QString::fromUtf8(
                    QJsonDocument(cluster->toJson()).toJson(QJsonDocument::Indented));
            else
                out << cluster->toText();
            return cluster->missing.isEmpty() ? Ok : SomeFailed;
        }
        const auto shard = cluster::shardOfRank(*project, *run, scope.rank, &error);
        if (!shard) {
            err << "grademl analyze: run '" << runName << "': " << error << '\n';
            return SomeFailed;
        }
        if (!p.flags.contains(QStringLiteral("json")))
            out << QStringLiteral("rank %1 from shard %2\n")
                       .arg(scope.rank)
                       .arg(QDir::toNativeSeparators(*shard));
        QStringList forward = args;
        forward[forward.indexOf(p.positional.first())] = *shard;
        return analyzeCommand(forward, out, err);
    }
    sim::AnalysisScope scoped = scope;
    scoped.range = relative;
    const auto report = sim::analyzeRun(*project, *run, runName, scoped, &error);
    if (!report) {
        err << "grademl analyze: run '" << runName << "': " << error << '\n';
        return SomeFailed;
    }
    if (scope.rank >= 0 && report->analysis && report->analysis->gpus.empty() &&
        report->analysis->kernels.empty()) {
        err << "grademl analyze: run '" << runName << "' has no GPU work on rank " << scope.rank
            << '\n';
        return SomeFailed;
    }
    if (p.flags.contains(QStringLiteral("json")))
        out << QString::fromUtf8(QJsonDocument(report->toJson()).toJson(QJsonDocument::Indented));
    else
        out << report->toText();
    return Ok;
}

int exportAnalysis(const Parsed &p, const QString &projectPath, const QString &outPath, QSize size,
                   QTextStream &out, QTextStream &err)
{
    QString error;
    auto project = openProject(projectPath, false,
                               QStringLiteral("grademl export: %1: ").arg(projectPath), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    int exitCode = Ok;
    const auto run = pickRun(*project, &runName, "export", err, &exitCode);
    if (!run)
        return exitCode;
    const auto report = sim::analyzeRun(*project, *run, runName, {}, &error);
    if (!report) {
        err << "grademl export: run '" << runName << "': " << error << '\n';
        return SomeFailed;
    }
    // The panel's four charts, drawn by the same chart layer.
    const AnalysisCharts charts = analysisCharts(*report);
    Chart iterations, ranks, families, time;
    iterations.showBars(charts.iterations);
    ranks.showBars(charts.ranks);
    families.showBars(charts.families);
    time.showTime(charts.utilisation);
    QStringList head;
    if (report->summary.iterations > 0)
        head << report->summary.stepText();
    if (report->summary.gpuBusy >= 0)
        head << QStringLiteral("GPU busy %1%").arg(report->summary.gpuBusy * 100, 0, 'f', 1);
    if (!report->findings.empty())
        head << QStringLiteral("top finding: %1 (%2)")
                    .arg(report->findings.front().title.section(QLatin1Char(':'), 0, 0),
                         sim::gainText(report->findings.front()));
    const QString title = QStringLiteral("%1 · %2").arg(runName, head.join(QStringLiteral(" · ")));
    if (charts.iterations.isEmpty() && charts.ranks.isEmpty() && charts.families.isEmpty() &&
        charts.utilisation.isEmpty()) {
        err << "grademl export: nothing to chart: run '" << runName
            << "' has no GPU trace and no counters\n";
        return SomeFailed;
    }
    if (!exportCharts({&iterations, &ranks, &families, &time}, 2, size, outPath, title, &error)) {
        err << "grademl export: " << error << '\n';
        return SomeFailed;
    }
    out << "wrote " << outPath << '\n';
    return Ok;
}

} // namespace gml::cli
