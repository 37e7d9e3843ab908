// SPDX-License-Identifier: GPL-3.0-or-later
// grademl compare FILE RUN_A RUN_B [RUN...] and export --view compare: runs side by side, a
// metric's series, the trace diff; the Compare panel's charts as a figure.
#include "clicommands.h"
#include "outputfile.h"
#include "safetext.h"

#include "chartlayer.h"
#include "comparecharts.h"
#include "gate.h"
#include "project.h"
#include "runcatalog.h"
#include "runcompare.h"
#include "runmetrics.h"
#include "timeformat.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace gml::cli {

// The gates judged on BASE and NEW, printed with what grew most; the reports written. Exit 1
// when a gate failed (a regression); 2 when a gate could not be judged (a run lacks its metric)
// or a report could not be written, so that a CI tells a slower build from a mistake.
static int reportGates(const QList<sim::Gate> &gates, const sim::Comparison &c, const Parsed &p,
                       QTextStream &out, QTextStream &err)
{
    const CatalogRun &base = c.runs.at(0), &current = c.runs.at(1);
    const QList<sim::GateResult> results = sim::judgeGates(gates, base, current);
    const QList<sim::DiffRow> causes = c.diff ? sim::topCauses(*c.diff) : QList<sim::DiffRow>{};
    int failed = 0, unjudged = 0;
    out << "gates: run '" << safeText(current.name) << "' against base '" << safeText(base.name)
        << "'\n";
    for (const sim::GateResult &r : results) {
        out << "  " << r.summary() << '\n';
        failed += !r.passed;
        unjudged += !r.known;
    }
    if (failed) {
        if (!causes.isEmpty()) {
            out << "what grew most per aligned iteration:\n";
            for (const sim::DiffRow &d : causes)
                out << "  " << d.path << ": +" << formatDuration(TimeNs(std::llround(d.delta())))
                    << " (" << formatDuration(TimeNs(std::llround(d.timeA))) << " -> "
                    << formatDuration(TimeNs(std::llround(d.timeB))) << ")\n";
        } else if (!c.diffNote.isEmpty()) {
            out << "no causes: " << c.diffNote << '\n';
        }
    }
    out << (failed ? QStringLiteral("%1 of %2 gates failed\n").arg(failed).arg(results.size())
                   : QStringLiteral("all %1 gates passed\n").arg(results.size()));
    const auto write = [&](const QString &option, const QString &text) {
        const QString path = p.options.value(option);
        if (path.isEmpty())
            return true;
        QString why;
        if (!writeOutput(path, text.toUtf8(), &why, {p.positional.first()})) {
            err << "grademl compare: " << why << '\n';
            return false;
        }
        out << "wrote " << path << '\n';
        return true;
    };
    const bool written =
        write(QStringLiteral("junit"), sim::gatesJUnit(results, causes, base.name, current.name)) &
        write(QStringLiteral("markdown"),
              sim::gatesMarkdown(results, causes, base.name, current.name));
    if (unjudged)
        err << "grademl compare: " << unjudged << " gate(s) could not be judged (exit 2)\n";
    return unjudged || !written ? Usage : failed ? SomeFailed : Ok;
}

int compareCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p =
        parse(args,
              {QStringLiteral("metric"), QStringLiteral("ranks"), QStringLiteral("iteration"),
               QStringLiteral("gate"), QStringLiteral("junit"), QStringLiteral("markdown")},
              {QStringLiteral("json")});
    QString problem = p.error;
    QList<sim::Gate> gates;
    if (problem.isEmpty())
        for (const QString &text : p.repeated.value(QStringLiteral("gate"))) {
            const auto gate = sim::parseGate(text, &problem);
            if (!gate)
                break;
            gates << *gate;
        }
    if (problem.isEmpty() && gates.isEmpty() &&
        (p.options.contains(QStringLiteral("junit")) ||
         p.options.contains(QStringLiteral("markdown"))))
        problem = QStringLiteral("--junit and --markdown report gates: give --gate too");
    if (problem.isEmpty() && !gates.isEmpty() && p.positional.size() != 3)
        problem = QStringLiteral("gates compare two runs: FILE BASE NEW");
    if (problem.isEmpty() && p.positional.size() < 3)
        problem = QStringLiteral("need a project file and two runs or more");
    sim::DiffOptions diff;
    if (problem.isEmpty() && p.options.contains(QStringLiteral("ranks"))) {
        const QStringList parts = p.options.value(QStringLiteral("ranks")).split(QLatin1Char(','));
        bool okA = false, okB = false;
        diff.rankA = parts.value(0).toInt(&okA);
        diff.rankB = parts.size() == 2 ? parts.value(1).toInt(&okB) : -1;
        if (!okA || !okB || diff.rankA < 0 || diff.rankB < 0)
            problem =
                QStringLiteral(
                    "--ranks expects the ranks of the first two runs to diff, e.g. 0,1; got '%1'")
                    .arg(safeText(p.options.value(QStringLiteral("ranks"))));
    }
    if (problem.isEmpty() && p.options.contains(QStringLiteral("iteration"))) {
        bool ok = false;
        diff.pair = p.options.value(QStringLiteral("iteration")).toInt(&ok);
        if (!ok || diff.pair < 0)
            problem = QStringLiteral("--iteration expects the index of an aligned iteration pair "
                                     "(0 is the first), got '%1'")
                          .arg(safeText(p.options.value(QStringLiteral("iteration"))));
    }
    if (!problem.isEmpty()) {
        err << "grademl compare: " << problem
            << "\nusage: grademl compare FILE.grademl RUN_A RUN_B [RUN...] [--metric NAME] "
               "[--ranks A,B] "
               "[--iteration N] [--json]\n"
               "       grademl compare FILE.grademl BASE NEW --gate 'step_time<+5%' [--gate ...] "
               "[--junit OUT.xml] [--markdown OUT.md]\n";
        return Usage;
    }
    const bool json = p.flags.contains(QStringLiteral("json"));
    // With gates, 1 says a regression and nothing else: what stops a comparison (a project or
    // run that is not there, a metric no run has, an output that cannot be written) is 2.
    const int failure = gates.isEmpty() ? SomeFailed : Usage;
    for (const char *option : {"junit", "markdown"})
        if (const QString why = refusedOutput(p, option, p.positional.first()); !why.isEmpty()) {
            err << "grademl compare: " << why << '\n';
            return Usage;
        }
    auto project = openWithMetrics(p.positional.first(), "compare", err, json);
    if (!project)
        return failure;
    QString error;
    const auto catalog = loadRunCatalog(*project, &error);
    if (!catalog) {
        err << "grademl compare: " << error << '\n';
        return failure;
    }
    const QStringList names = p.positional.mid(1);
    const QString metric = p.options.value(QStringLiteral("metric"));
    QList<RunId> ids;
    for (const QString &name : names)
        if (const CatalogRun *r = catalog->run(name))
            ids.append(r->id);
    const QStringList metrics = sim::comparableMetrics(*project, ids);
    if (!metric.isEmpty() && !metrics.contains(metric)) {
        err << "grademl compare: none of the runs has the metric '" << metric << "'; they have: "
            << (metrics.isEmpty() ? QStringLiteral("none") : metrics.join(QStringLiteral(", ")))
            << '\n';
        return failure;
    }
    const auto comparison = sim::compareRuns(*project, *catalog, names, metric, diff, &error);
    if (!comparison) {
        err << "grademl compare: " << error << '\n';
        return failure;
    }
    if (!gates.isEmpty())
        return reportGates(gates, *comparison, p, out, err);
    if (json) {
        QJsonObject o = sim::comparisonJson(*comparison);
        o.insert(QStringLiteral("metrics"), QJsonArray::fromStringList(metrics));
        out << QJsonDocument(o).toJson(QJsonDocument::Indented);
    } else {
        out << sim::comparisonText(*comparison);
        if (metric.isEmpty() && !metrics.isEmpty())
            out << "\nmetrics to compare (--metric NAME): " << metrics.join(QStringLiteral(", "))
                << '\n';
    }
    return Ok;
}

int exportCompare(const Parsed &p, const QString &projectPath, const QString &outPath, QSize size,
                  QTextStream &out, QTextStream &err)
{
    std::optional<CompareAxis> axis = CompareAxis::Time;
    if (p.options.contains(QStringLiteral("axis")))
        axis = compareAxisFromName(p.options.value(QStringLiteral("axis")));
    if (!axis) {
        err << "grademl export: --axis is one of time, relative, step; got '"
            << safeText(p.options.value(QStringLiteral("axis"))) << "'\n";
        return Usage;
    }
    auto project = openWithMetrics(projectPath, "export", err, true);
    if (!project)
        return SomeFailed;
    QString error;
    const auto catalog = loadRunCatalog(*project, &error);
    if (!catalog) {
        err << "grademl export: " << error << '\n';
        return SomeFailed;
    }
    QList<CatalogRun> runs;
    QList<RunId> ids;
    for (const QString &name :
         p.options.value(QStringLiteral("runs")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const CatalogRun *r = catalog->run(name.trimmed());
        if (!r) {
            err << "grademl export: " << projectPath << ": no run named '" << name.trimmed()
                << "' (see grademl runs)\n";
            return SomeFailed;
        }
        runs.append(*r);
        ids.append(r->id);
    }
    const QStringList metrics = sim::comparableMetrics(*project, ids);
    QString metric = p.options.value(QStringLiteral("metric"));
    if (!metric.isEmpty() && !metrics.contains(metric)) {
        err << "grademl export: none of the runs has the metric '" << metric << "'; they have: "
            << (metrics.isEmpty() ? QStringLiteral("none") : metrics.join(QStringLiteral(", ")))
            << '\n';
        return SomeFailed;
    }
    if (metric.isEmpty())
        metric = metrics.value(0);
    // The panel's charts, drawn by the same chart layer.
    std::vector<std::unique_ptr<Chart>> charts;
    if (!metric.isEmpty()) {
        const auto series = sim::metricSeries(*project, *catalog, ids, metric, &error);
        if (!error.isEmpty()) {
            err << "grademl export: " << error << '\n';
            return SomeFailed;
        }
        QString note;
        const TimeChart chart = metricChart(series, runs, *axis, &note);
        if (!note.isEmpty())
            err << "grademl export: " << note << '\n';
        charts.push_back(std::make_unique<Chart>());
        charts.back()->showTime(chart);
    }
    const SummaryCharts summary = summaryCharts(runs);
    for (const StackedBars *bars : {&summary.iteration, &summary.breakdown, &summary.energy}) {
        charts.push_back(std::make_unique<Chart>());
        charts.back()->showBars(*bars);
    }
    if (const QString param = p.options.value(QStringLiteral("param")); !param.isEmpty()) {
        if (!catalog->paramKeys().contains(param)) {
            err << "grademl export: no run has the param '" << param
                << "'; the runs' params are: " << catalog->paramKeys().join(QStringLiteral(", "))
                << '\n';
            return SomeFailed;
        }
        // Against the first headline metric the runs have (iteration time, else an MLflow metric's
        // last value).
        const QList<sim::SummaryMetric> against = scatterMetrics(runs);
        const ScatterChart scatter =
            against.isEmpty() ? ScatterChart{} : paramScatter(runs, param, against.front());
        if (scatter.isEmpty())
            err << "grademl export: no scatter: none of these runs has both '" << param
                << "' and a headline metric\n";
        charts.push_back(std::make_unique<Chart>());
        charts.back()->showScatter(scatter);
    }
    std::vector<Chart *> shown;
    for (const auto &c : charts)
        shown.push_back(c.get());
    QStringList names;
    for (const CatalogRun &r : std::as_const(runs))
        names << r.name;
    const QString title =
        QStringLiteral("%1 \u00b7 %2")
            .arg(names.join(QStringLiteral(" vs ")), sim::comparisonKind(*catalog, runs));
    if (!exportCharts(shown, 2, size, outPath, title, &error)) {
        err << "grademl export: " << error << '\n';
        return SomeFailed;
    }
    out << "wrote " << outPath << '\n';
    return Ok;
}

} // namespace gml::cli
