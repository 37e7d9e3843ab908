// SPDX-License-Identifier: GPL-3.0-or-later
// grademl report FILE [--run R] --out report.html [--mlflow mlruns/EXP/RUN]: the Analysis page
// as one self-contained HTML file a colleague opens in any browser (issue 59), and GradeML's
// headline metrics written back into an MLflow run.
//
// Self-contained and inert: no network, no script. A Content-Security-Policy forbids scripts
// and every fetch (images only as data: URLs, styles only inline); every name from a trace is
// HTML-escaped text; figures are SVG drawn by the studio's painters (the chart layer, the
// timeline), embedded as <img> data URLs, in which a browser runs no script either, in the light
// and the dark theme, chosen by the reader's preference (<picture>).
#include "clicommands.h"
#include "outputfile.h"
#include "reportcollectives.h"
#include "safetext.h"

#include "analysis.h"
#include "analysischarts.h"
#include "chartlayer.h"
#include "findings.h"
#include "mlflowwriteback.h"
#include "notes.h"
#include "predictedrun.h"
#include "project.h"
#include "runcatalog.h"
#include "runmetrics.h"
#include "theme.h"
#include "timeformat.h"

#include <QBuffer>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <map>

namespace gml::cli {

namespace {

// Every text from the trace goes through the one escaper (safetext.h): markup and control
// characters never reach the HTML.
QString esc(const QString &s)
{
    return xmlEscaped(s);
}

QString percent(double fraction)
{
    if (fraction < 0)
        return QStringLiteral("–");
    return QString::number(fraction * 100, 'f', fraction < 0.01 ? 2 : 1) + QLatin1Char('%');
}

QString dataUrl(const QString &svgPath)
{
    QFile f(svgPath);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QStringLiteral("data:image/svg+xml;base64,") +
           QString::fromLatin1(f.readAll().toBase64());
}

// A figure in both themes: the reader's preference picks one.
QString picture(const QString &light, const QString &dark, const QString &alt)
{
    if (light.isEmpty())
        return {};
    QString html = QStringLiteral("<figure><picture>");
    if (!dark.isEmpty())
        html += QStringLiteral("<source media=\"(prefers-color-scheme: dark)\" srcset=\"%1\">")
                    .arg(dark);
    html += QStringLiteral("<img src=\"%1\" alt=\"%2\"></picture><figcaption>%2</figcaption>"
                           "</figure>\n")
                .arg(light, esc(alt));
    return html;
}

// The heat map of iteration times per rank (sim::stepGrid, as the Ranks view's), as a table of
// iterations by rank: each cell's colour is its time against the iteration's median over the
// ranks (blue faster, red slower, ±25% saturated).
QString heatMap(const sim::Analysis &a)
{
    const sim::StepGrid grid = sim::stepGrid(a.iterations);
    if (grid.ranks.size() < 2 || grid.columns == 0)
        return {};
    QString html = QStringLiteral("<h3>Iteration time by rank</h3><div class=\"scroll\"><table "
                                  "class=\"heat\"><tr><th>iteration</th>");
    for (int r : grid.ranks)
        html += QStringLiteral("<th>rank %1</th>").arg(r);
    html += QStringLiteral("</tr>\n");
    for (int c = 0; c < grid.columns; ++c) {
        QString name;
        for (const auto &row : grid.cells)
            if (name.isEmpty() && size_t(c) < row.size())
                name = row[size_t(c)].name;
        const double median = double(grid.median[size_t(c)]);
        html += QStringLiteral("<tr><th>%1</th>").arg(esc(name));
        for (const auto &row : grid.cells) {
            if (size_t(c) >= row.size()) {
                html += QStringLiteral("<td></td>");
                continue;
            }
            const TimeNs t = row[size_t(c)].end - row[size_t(c)].start;
            const double rel = median > 0 ? (double(t) - median) / median : 0;
            const double s = std::clamp(std::abs(rel) / 0.25, 0.0, 1.0);
            const QString colour = rel >= 0
                                       ? QStringLiteral("rgba(214,39,40,%1)").arg(s, 0, 'f', 2)
                                       : QStringLiteral("rgba(31,119,180,%1)").arg(s, 0, 'f', 2);
            html +=
                QStringLiteral("<td style=\"background:%1\" title=\"%2 (%3%4%)\">%2</td>")
                    .arg(colour, formatDuration(t, 3), rel >= 0 ? QStringLiteral("+") : QString())
                    .arg(rel * 100, 0, 'f', 1);
        }
        html += QStringLiteral("</tr>\n");
    }
    return html + QStringLiteral("</table></div><p class=\"note\">Each cell against its "
                                 "iteration's median over the ranks: blue faster, red slower, "
                                 "full colour at ±25%.</p>\n");
}

const char kStyle[] = R"(
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #ffffff; --muted: #6b6b70; --line: #d8d8dc;
        --head: #f3f3f5; --high: #c62828; --medium: #b26a00; --low: #2e7d32; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e6e9; --bg: #1e1f22; --muted: #a0a0a8; --line: #3a3b40; --head: #2a2b2f;
          --high: #ef7070; --medium: #f0b454; --low: #7cc47f; } }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg);
       margin: 0 auto; padding: 16px 24px; max-width: 1400px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.meta, .note { color: var(--muted); font-size: 12.5px; }
.headline { display: flex; flex-wrap: wrap; gap: 10px; margin: 14px 0; }
.headline div { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 120px; }
.headline b { display: block; font-size: 20px; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--head); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.high { color: var(--high); font-weight: 600; } .medium { color: var(--medium); font-weight: 600; }
.low { color: var(--low); font-weight: 600; }
.scroll { overflow-x: auto; }
td.kname { max-width: 56ch; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; } table.heat td { text-align: right; font-size: 12px; white-space: nowrap; }
figure { margin: 10px 0; } figure img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: 12.5px; }
.detail { white-space: pre-wrap; } td.gain { width: 16em; }
table.findings td:nth-child(2) { width: 14em; }
)";

// GradeML's headline numbers as MLflow metrics (fractions as fractions, as MLflow users log
// accuracy; times in ms).
QList<QPair<QString, double>> mlflowMetricsOf(const sim::RunReport &r, const CatalogRun *run)
{
    QList<QPair<QString, double>> m;
    if (r.summary.iterations > 0) {
        m.append({QStringLiteral("grademl.step_time_ms"), double(r.summary.stepTime) / 1e6});
        m.append({QStringLiteral("grademl.iterations"), double(r.summary.iterations)});
    }
    if (r.summary.gpuBusy >= 0)
        m.append({QStringLiteral("grademl.gpu_busy"), r.summary.gpuBusy});
    if (r.summary.mfu >= 0)
        m.append({QStringLiteral("grademl.mfu"), r.summary.mfu});
    if (r.summary.hfu >= 0)
        m.append({QStringLiteral("grademl.hfu"), r.summary.hfu});
    if (r.summary.energyPerIterationJ >= 0)
        m.append({QStringLiteral("grademl.energy_per_iteration_j"), r.summary.energyPerIterationJ});
    if (run && run->metric(QStringLiteral("peak_memory_bytes")) > 0)
        m.append({QStringLiteral("grademl.peak_memory_gib"),
                  run->metric(QStringLiteral("peak_memory_bytes")) / double(1 << 30)});
    m.append({QStringLiteral("grademl.findings"), double(r.findings.size())});
    if (!r.findings.empty() && r.findings.front().priced)
        m.append({QStringLiteral("grademl.top_finding_gain"), r.findings.front().gain()});
    return m;
}

QMap<QString, QString> mlflowTagsOf(const sim::RunReport &r, const QString &runName,
                                    const QString &projectPath, const QString &reportPath)
{
    QStringList lines;
    int n = 0;
    for (const sim::Finding &f : r.findings)
        lines << QStringLiteral("%1. %2 (%3)").arg(++n).arg(f.title, sim::gainText(f));
    QString findings = lines.join(QLatin1Char('\n'));
    if (findings.size() > 4900) // MLflow keeps tag values up to 5,000 characters
        findings = findings.left(4899) + QChar(0x2026);
    return {{QStringLiteral("grademl.findings"),
             findings.isEmpty() ? QStringLiteral("none") : findings},
            {QStringLiteral("grademl.run"), runName},
            {QStringLiteral("grademl.project"), QFileInfo(projectPath).fileName()},
            {QStringLiteral("grademl.report"),
             QStringLiteral("artifacts/grademl/") + QFileInfo(reportPath).fileName()}};
}

// The report's figures, drawn by the studio's painters in both themes, as data URLs (empty:
// not drawn): the Analysis panel's charts, and the run's GPU rows as the timeline draws them.
struct ReportFigures
{
    QString chartsLight, chartsDark, timelineLight, timelineDark;
};

ReportFigures drawFigures(const sim::RunReport &r, const QString &projectPath,
                          const QString &runName)
{
    QTemporaryDir tmp;
    QString error;
    ReportFigures fig;
    QString &chartsLight = fig.chartsLight, &chartsDark = fig.chartsDark;
    QString &timelineLight = fig.timelineLight, &timelineDark = fig.timelineDark;
    const AnalysisCharts charts = analysisCharts(r);
    const bool anyChart = !(charts.iterations.isEmpty() && charts.ranks.isEmpty() &&
                            charts.families.isEmpty() && charts.utilisation.isEmpty());
    for (const bool dark : {false, true}) {
        Theme::use(dark);
        const QString suffix = dark ? QStringLiteral("-dark.svg") : QStringLiteral("-light.svg");
        if (anyChart) {
            Chart iterations, ranks, families, time;
            iterations.showBars(charts.iterations);
            ranks.showBars(charts.ranks);
            families.showBars(charts.families);
            time.showTime(charts.utilisation);
            const QString path = tmp.filePath(QStringLiteral("charts") + suffix);
            if (exportCharts({&iterations, &ranks, &families, &time}, 2, QSize(1400, 800), path,
                             runName, &error))
                (dark ? chartsDark : chartsLight) = dataUrl(path);
        }
        const QString timeline = tmp.filePath(QStringLiteral("timeline") + suffix);
        QString none;
        QTextStream quiet(&none);
        // The GPU rows (every row when the run has no GPU), as the studio draws them.
        QStringList timelineArgs{projectPath,
                                 QStringLiteral("--view"),
                                 QStringLiteral("timeline"),
                                 QStringLiteral("--run"),
                                 runName,
                                 QStringLiteral("--out"),
                                 timeline,
                                 QStringLiteral("--size"),
                                 QStringLiteral("1400x700"),
                                 QStringLiteral("--theme"),
                                 dark ? QStringLiteral("dark") : QStringLiteral("light")};
        if (exportCommand(timelineArgs +
                              QStringList{QStringLiteral("--tracks"), QStringLiteral("GPU")},
                          quiet, quiet) == Ok ||
            exportCommand(timelineArgs, quiet, quiet) == Ok)
            (dark ? timelineDark : timelineLight) = dataUrl(timeline);
    }
    Theme::use(false);

    return fig;
}

// The headline tiles (step, GPU busy, MFU, HFU, peak memory, energy) and what was unknown or
// dropped.
QString headlineHtml(const sim::RunReport &r, const CatalogRun *catalogRun)
{
    QString html;
    html += QStringLiteral("<div class=\"headline\">");
    const auto tile = [&](const QString &label, const QString &value, const QString &title = {}) {
        html += QStringLiteral("<div title=\"%3\">%1<b>%2</b></div>")
                    .arg(esc(label), esc(value), esc(title));
    };
    if (r.summary.iterations > 0 && r.summary.warmupIterations > 0)
        tile(QStringLiteral("Step (steady: %1 of %2)")
                 .arg(r.summary.iterations - r.summary.warmupIterations)
                 .arg(r.summary.iterations),
             formatDuration(r.summary.stepTime),
             QStringLiteral("%1 warm-up iterations left out (each over %2x the median); %3 "
                            "with them")
                 .arg(r.summary.warmupIterations)
                 .arg(kWarmupFactor)
                 .arg(formatDuration(r.summary.stepTimeAll)));
    else if (r.summary.iterations > 0)
        tile(QStringLiteral("Step (mean of %1)").arg(r.summary.iterations),
             formatDuration(r.summary.stepTime));
    tile(QStringLiteral("GPU busy"), percent(r.summary.gpuBusy));
    tile(QStringLiteral("MFU"), percent(r.summary.mfu), r.summary.mfuUnknown);
    if (r.summary.hfu >= 0)
        tile(QStringLiteral("HFU"), percent(r.summary.hfu));
    if (r.memory && catalogRun && catalogRun->metric(QStringLiteral("peak_memory_bytes")) > 0)
        tile(QStringLiteral("Peak memory"),
             formatBytes(catalogRun->metric(QStringLiteral("peak_memory_bytes"))));
    if (r.summary.energyPerIterationJ >= 0)
        tile(QStringLiteral("Energy / iteration"),
             QString::number(r.summary.energyPerIterationJ, 'f', 1) + QStringLiteral(" J"));
    html += QStringLiteral("</div>\n");
    if (r.summary.mfu < 0 && !r.summary.mfuUnknown.isEmpty())
        html += QStringLiteral("<p class=\"note\">MFU unknown: %1</p>\n")
                    .arg(esc(r.summary.mfuUnknown));
    for (const QString &w : r.summary.warnings) // values outside physical bounds, dropped
        html += QStringLiteral("<p class=\"note\">Dropped: %1</p>\n").arg(esc(w));

    return html;
}

// The findings, ranked by what fixing them would gain.
QString findingsHtml(const sim::RunReport &r)
{
    QString html;
    html += QStringLiteral("<h2>Findings</h2>\n");
    if (r.findings.empty()) {
        html += QStringLiteral("<p>%1</p>\n")
                    .arg(esc(r.noFindingsBecause.isEmpty()
                                 ? QStringLiteral("No rule passed its threshold on this run.")
                                 : r.noFindingsBecause));
    } else {
        html += QStringLiteral(
            "<table class=\"findings\"><tr><th>#</th><th>Finding</th><th>Fixing it would "
            "gain</th><th>What the trace shows, and what to do</th></tr>\n");
        int n = 0;
        for (const sim::Finding &f : r.findings) {
            const auto sev = f.severity();
            const QString cls = sev == sim::Severity::High     ? QStringLiteral("high")
                                : sev == sim::Severity::Medium ? QStringLiteral("medium")
                                                               : QStringLiteral("low");
            html += QStringLiteral("<tr><td class=\"num\">%1</td><td class=\"%2\">%3</td><td "
                                   "class=\"gain\">%4</td><td class=\"detail\">%5</td></tr>\n")
                        .arg(++n)
                        .arg(cls, esc(f.title), esc(sim::gainText(f)), esc(f.detail));
        }
        html += QStringLiteral("</table>\n");
    }
    return html;
}

// Where the GPU time went: per GPU, per kernel family, the longest GPU work, per rank, and the
// heat map of the ranks' collectives.
QString analysisHtml(const sim::RunReport &r)
{
    QString html;
    const sim::Analysis &a = *r.analysis;
    // Breakdown per GPU.
    html += QStringLiteral("<h2>Where the GPU time went</h2>\n<table><tr><th>GPU</th><th>window"
                           "</th><th>compute</th><th>communication</th><th>copies</th><th>"
                           "idle</th></tr>\n");
    const auto share = [](TimeNs part, TimeNs whole) {
        return whole > 0 ? QString::number(100.0 * double(part) / double(whole), 'f', 1) +
                               QLatin1Char('%')
                         : QStringLiteral("–");
    };
    for (const auto &g : a.gpus)
        html += QStringLiteral("<tr><td>%1</td><td class=\"num\">%2</td><td class=\"num\">%3"
                               "</td><td class=\"num\">%4</td><td class=\"num\">%5</td><td "
                               "class=\"num\">%6</td></tr>\n")
                    .arg(esc(g.device), formatDuration(g.time.window),
                         share(g.time.compute, g.time.window),
                         share(g.time.communication, g.time.window),
                         share(g.time.copies, g.time.window), share(g.time.idle, g.time.window));
    html += QStringLiteral("</table>\n");
    // Kernel families.
    if (!a.families.empty()) {
        TimeNs total = 0;
        for (const auto &f : a.families)
            total += f.time;
        html += QStringLiteral("<h3>Kernel families</h3>\n<table><tr><th>family</th><th>kernels"
                               "</th><th>time</th><th>share</th></tr>\n");
        for (const auto &f : a.families)
            html += QStringLiteral("<tr><td>%1</td><td class=\"num\">%2</td><td class=\"num\">"
                                   "%3</td><td class=\"num\">%4</td></tr>\n")
                        .arg(esc(f.family))
                        .arg(f.count)
                        .arg(formatDuration(f.time), share(f.time, total));
        html += QStringLiteral("</table>\n");
    }
    // The GPU work that took most time.
    if (!a.kernels.empty()) {
        html += QStringLiteral("<h3>GPU work that took most time</h3>\n<div class=\"scroll\">"
                               "<table><tr><th>name</th><th>family</th><th>calls</th><th>"
                               "total</th><th>p50</th><th>p90</th></tr>\n");
        for (size_t i = 0; i < a.kernels.size() && i < 15; ++i) {
            const auto &k = a.kernels[i];
            // On one line, cut with an ellipsis, the whole name on hover (a templated kernel's
            // name wrapped to six lines).
            html += QStringLiteral("<tr><td class=\"kname\" title=\"%1\">%1</td><td>%2</td><td "
                                   "class=\"num\">%3</td><td "
                                   "class=\"num\">%4</td><td class=\"num\">%5</td><td "
                                   "class=\"num\">%6</td></tr>\n")
                        .arg(esc(k.name), esc(k.family))
                        .arg(k.count)
                        .arg(formatDuration(k.total), formatDuration(k.p50), formatDuration(k.p90));
        }
        html += QStringLiteral("</table></div>\n");
    }
    // Ranks.
    if (a.ranks.size() >= 2) {
        std::map<int, TimeNs> critical;
        for (const auto &[rank, t] : r.criticalByRank)
            critical[rank] = t;
        html += QStringLiteral("<h2>Ranks</h2>\n<table><tr><th>rank</th><th>compute</th><th>"
                               "communication</th><th>last arrivals at collectives</th><th>"
                               "time on the critical path</th></tr>\n");
        for (const auto &l : a.ranks)
            html += QStringLiteral("<tr><td>rank %1</td><td class=\"num\">%2</td><td "
                                   "class=\"num\">%3</td><td class=\"num\">%4</td><td "
                                   "class=\"num\">%5</td></tr>\n")
                        .arg(l.rank)
                        .arg(formatDuration(l.compute), formatDuration(l.communication))
                        .arg(l.lastArrivals)
                        .arg(critical.count(l.rank) ? formatDuration(critical[l.rank])
                                                    : QStringLiteral("–"));
        html += QStringLiteral("</table>\n<p class=\"note\">Imbalance (max / mean over the "
                               "ranks): compute %1, communication %2. Time on the critical path "
                               "is each rank's share of the whole run's critical path (%3 in "
                               "all, every iteration and the warm-up), not of a step: it "
                               "compares the ranks, and can exceed the step time.</p>\n")
                    .arg(a.computeImbalance, 0, 'f', 2)
                    .arg(a.communicationImbalance, 0, 'f', 2)
                    .arg(formatDuration(r.criticalLength));
    }
    html += heatMap(a);
    return html;
}

// The run's saved what-if scenarios and its notes (and the project's).
QString scenariosAndNotesHtml(Project &project, RunId run, const QString &runName,
                              const sim::RunReport &r)
{
    QString html;
    QString error;
    const QList<sim::ScenarioRecord> scenarios = sim::listScenarios(project, run, &error);
    if (!scenarios.isEmpty()) {
        html += QStringLiteral("<h2>What-if scenarios saved</h2>\n<table><tr><th>scenario</th><th>"
                               "transforms</th><th>predicted</th></tr>\n");
        for (const auto &s : scenarios) {
            QStringList t;
            for (const auto &x : s.transforms)
                t << x.describe();
            const double before = s.results.value(QStringLiteral("measured_ns")).toDouble(-1);
            const double after = s.results.value(QStringLiteral("predicted_ns")).toDouble(-1);
            html +=
                QStringLiteral("<tr><td>%1</td><td>%2</td><td class=\"num\">%3</td></tr>\n")
                    .arg(esc(s.name), esc(t.join(QStringLiteral("; "))),
                         after > 0 ? formatDuration(TimeNs(after)) +
                                         (before > 0
                                              ? QStringLiteral(" (%1%2%)")
                                                    .arg(after >= before ? QStringLiteral("+")
                                                                         : QString())
                                                    .arg(100 * (after - before) / before, 0, 'f', 1)
                                              : QString())
                                   : QStringLiteral("–"));
        }
        html += QStringLiteral("</table>\n");
    }
    QList<Note> notes;
    for (const Note &n : listNotes(project, &error))
        if (n.run == runName || n.run.isEmpty())
            notes << n;
    if (!notes.isEmpty()) {
        html += QStringLiteral("<h2>Notes</h2>\n<table><tr><th>at</th><th>note</th><th>written"
                               "</th></tr>\n");
        const TimeNs origin = r.origin;
        for (const Note &n : std::as_const(notes))
            html +=
                QStringLiteral("<tr><td class=\"num\">%1</td><td>%2</td><td>%3</td></tr>\n")
                    .arg(formatDuration(std::max<TimeNs>(0, n.start - origin)) +
                             (n.kind == Note::Kind::Slice ? QStringLiteral(" · ") + esc(n.sliceName)
                                                          : QString()),
                         esc(n.text), esc(n.created));
        html += QStringLiteral("</table>\n");
    }
    return html;
}

} // namespace

int reportCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p =
        parse(args, {QStringLiteral("run"), QStringLiteral("out"), QStringLiteral("mlflow")}, {});
    const auto usage = [&](const QString &why) {
        err << "grademl report: " << why
            << "\nusage: grademl report FILE.grademl [--run NAME] --out REPORT.html [--mlflow "
               "mlruns/EXPERIMENT/RUN]\n";
        return Usage;
    };
    if (!p.error.isEmpty())
        return usage(p.error);
    if (p.positional.size() != 1)
        return usage(QStringLiteral("need exactly one project file"));
    const QString outPath = p.options.value(QStringLiteral("out"));
    if (!outPath.endsWith(QLatin1String(".html")) && !outPath.endsWith(QLatin1String(".htm")))
        return usage(QStringLiteral("--out must end in .html, got '%1'").arg(safeText(outPath)));
    const QString projectPath = p.positional.first();
    if (const QString why = refusedOutput(p, "out", projectPath); !why.isEmpty())
        return usage(why);
    auto project = openWithMetrics(projectPath, "report", err, true);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    int code = Ok;
    const auto run = pickRun(*project, &runName, "report", err, &code);
    if (!run)
        return code;
    QString error;
    const auto report = sim::analyzeRun(*project, *run, runName, {}, &error);
    if (!report) {
        err << "grademl report: run '" << runName << "': " << error << '\n';
        return SomeFailed;
    }
    const auto catalog = loadRunCatalog(*project, &error);
    const CatalogRun *catalogRun = catalog ? catalog->run(runName) : nullptr;

    const sim::RunReport &r = *report;
    const ReportFigures fig = drawFigures(r, projectPath, runName);

    QString html;
    html += QStringLiteral(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src "
        "data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    html += QStringLiteral("<title>%1 — GradeML report</title>\n<style>%2</style></head><body>\n")
                .arg(esc(runName), QString::fromUtf8(kStyle));
    html += QStringLiteral("<h1>%1</h1>\n<p class=\"meta\">GradeML report of run <b>%1</b> in "
                           "%2 · written %3 UTC%4</p>\n")
                .arg(esc(runName), esc(QFileInfo(projectPath).fileName()),
                     QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                     r.summary.device.isEmpty() ? QString()
                                                : QStringLiteral(" · ") + esc(r.summary.device));

    html += headlineHtml(r, catalogRun);
    html += findingsHtml(r);
    html += picture(fig.chartsLight, fig.chartsDark,
                    QStringLiteral("Per iteration, per rank, kernel families and utilisation over "
                                   "time (the Analysis panel's charts)"));
    if (r.analysis)
        html += analysisHtml(r);
    html += collectivesHtml(*project, *run);
    html += QStringLiteral("<h2>Timeline</h2>\n");
    html += picture(fig.timelineLight, fig.timelineDark,
                    QStringLiteral("The run's GPU rows as the studio's timeline draws them"));

    html += scenariosAndNotesHtml(*project, *run, runName, r);
    html += QStringLiteral("<p class=\"note\">Written by grademl report (GradeML Studio). Times "
                           "are from the run's start. The file holds no script and loads "
                           "nothing.</p>\n</body></html>\n");

    if (!writeOutput(outPath, html.toUtf8(), &error, {projectPath})) {
        err << "grademl report: " << error << '\n';
        return SomeFailed;
    }
    out << "wrote " << outPath << ": run '" << safeText(runName) << "', " << r.findings.size()
        << " findings, " << QString::number(double(html.size()) / 1024.0, 'f', 0) << " KiB\n";

    if (p.options.contains(QStringLiteral("mlflow"))) {
        const QString target = p.options.value(QStringLiteral("mlflow"));
        const auto written =
            writeBackToMlflow(target, mlflowMetricsOf(r, catalogRun),
                              mlflowTagsOf(r, runName, projectPath, outPath), outPath, &error);
        if (!written) {
            err << "grademl report: " << target << ": " << error << '\n';
            return SomeFailed;
        }
        out << "wrote into MLflow run " << target << ": " << written->metrics << " metrics, "
            << written->tags << " tags, the report as an artifact\n";
    }
    return Ok;
}

} // namespace gml::cli
