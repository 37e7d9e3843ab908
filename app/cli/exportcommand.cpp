// SPDX-License-Identifier: GPL-3.0-or-later
// grademl export: a view of a project as a PNG, SVG or PDF figure, drawn by the GUI's painter.
#include "clicommands.h"
#include "outputfile.h"
#include "safetext.h"

#include "clusterproject.h"
#include "executionmodel.h"
#include "figureexport.h"
#include "graphfigure.h"
#include "notes.h"
#include "project.h"
#include "slicepager.h"
#include "theme.h"
#include "timeformat.h"
#include "timelinedata.h"
#include "workflow.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

#include <functional>
#include <optional>

namespace gml::cli {

static const char kExportUsage[] =
    "usage: grademl export FILE.grademl --view timeline [--run NAME] [--range A:B]\n"
    "                      --out OUT.(png|svg|pdf) [--size WxH | --width-cm W [--height-cm H]] "
    "[--dpi D]\n"
    "                      [--tracks REGEX] [--chrome] [--no-notes] [--theme light|dark]\n"
    "                      [--color-by name|class] [--origin start|left|T] [--state OUT.json]\n"
    "       grademl export FILE.grademl --view graph [--run NAME]\n"
    "                      [--level workflow|step|iteration|phase|module|operator|gpu] [--budget "
    "NODES]\n"
    "                      [--focus NODE_NAME] [--ranks folded|apart] [--sync-edges] --out "
    "OUT.(png|svg|pdf)\n"
    "       grademl export FILE.grademl --view analysis [--run NAME] --out OUT.(png|svg|pdf) "
    "[--size WxH]\n"
    "       (a cluster project: --view graph and --view analysis take --rank N, drawn from its "
    "shard)\n"
    "       grademl export FILE.grademl --view compare --runs A,B[,...] [--metric NAME] [--axis "
    "time|relative|step]\n"
    "                      [--param KEY] --out OUT.(png|svg|pdf) [--size WxH]\n"
    "       grademl export FILE.grademl --view simulate [--runs A,B,...] --out OUT.(png|svg|pdf) "
    "[--size WxH]\n"
    "       grademl export FILE.grademl --format chrome-json [--run NAME] --out RUN.json[.gz]\n"
    "  --range A:B: times after the start of the run (--run's, else the project's first data)\n"
    "  with a unit (10ms:250ms; nanoseconds without one), or @NS:@NS on the project clock (the\n"
    "  start_ns/end_ns of `grademl info`).\n"
    "  A timeline figure is drawn as the studio's Export Figure draws it by default: short row\n"
    "  labels in a column fitted to them, the notes, no window chrome. --tracks keeps the tracks\n"
    "  whose path (\"rank 0 · GPU 0 › stream 7\") matches REGEX; --width-cm/--height-cm size it\n"
    "  for paper (the height fits the rows without --height-cm), --dpi sets a PNG's pixels per\n"
    "  inch (default 96); --chrome adds the overview strip, the expand triangles and the window\n"
    "  text (and the studio's long row labels); --no-notes leaves the notes out (--no-chrome and\n"
    "  --notes, the defaults, are accepted). --color-by class colours slices by class (compute,\n"
    "  communication, copy, CPU op, Python, annotation) with a legend (default: by name).\n"
    "  --origin: what the time axis counts from: the run's start (default), the figure's left\n"
    "  edge, or a time T after the run's start (5ms). --state writes what was\n"
    "  drawn as JSON: the rows' labels, the label column's width, the ruler's labels, the size.\n"
    "  --theme dark draws any view in the studio's dark theme (default light).\n"
    "  The graph is opened as the studio opens it: the largest nodes first, down to --level, "
    "while\n"
    "  at most --budget boxes (default 150) are shown (default level: module, so iteration >\n"
    "  phase > module); --focus opens the first node of that name (as a double-click does in the\n"
    "  studio). The ranks of a distributed run are folded into one hierarchy unless --ranks "
    "apart;\n"
    "  sync edges are drawn with --sync-edges (those on the critical path always are).\n"
    "  --level workflow draws the project's workflow: its\n"
    "  steps (runs, or what grademl.json declares) and the edges between them. --view analysis\n"
    "  draws the Analysis panel's charts (per iteration, per GPU, kernel families, utilisation or\n"
    "  the launch queue over time) in a 2 x 2 grid, --size for the whole figure (default "
    "1600x900).\n"
    "  --view compare draws the Compare panel's charts: the metric overlaid (default: the runs'\n"
    "  first, see `grademl compare`) on the time, relative-time or step axis, and bars of each "
    "run's\n"
    "  iteration time (mean and spread), GPU time breakdown and energy; --param KEY adds the\n"
    "  scatter of that param against the mean iteration time (or, for runs without iterations,\n"
    "  the last value of their first MLflow metric). --view simulate draws the Simulate panel's\n"
    "  charts of simulated runs (default: all of them): speedup, normalized execution time, "
    "device\n"
    "  usage and energy per iteration against workers (or batch), a line per configuration.\n";

// The graph view of one run, as the studio's graph dock first shows it.
static int exportGraph(const Parsed &p, const QString &projectPath, const QString &outPath,
                       QTextStream &out, QTextStream &err)
{
    const QString levelText = p.options.value(QStringLiteral("level"), QStringLiteral("module"));
    const auto level = sim::levelFromName(levelText);
    if (!level) {
        err << "grademl export: unknown --level '" << levelText
            << "' (expected workflow, step, iteration, phase, module, operator or gpu)\n"
            << kExportUsage;
        return Usage;
    }
    const QString ranks = p.options.value(QStringLiteral("ranks"), QStringLiteral("folded"));
    if (ranks != QLatin1String("folded") && ranks != QLatin1String("apart")) {
        err << "grademl export: --ranks expects folded or apart, not '" << ranks << "'\n"
            << kExportUsage;
        return Usage;
    }
    GraphCollapse collapse;
    collapse.level = *level;
    collapse.syncEdges = p.flags.contains(QStringLiteral("sync-edges"));
    if (p.options.contains(QStringLiteral("budget"))) {
        bool ok = false;
        collapse.budget = p.options.value(QStringLiteral("budget")).toInt(&ok);
        if (!ok || collapse.budget < 1 || collapse.budget > 2000) {
            err << "grademl export: --budget expects a number of nodes from 1 to 2000\n"
                << kExportUsage;
            return Usage;
        }
    }
    QString error;
    auto project = openProject(projectPath, false,
                               QStringLiteral("grademl export: %1: ").arg(projectPath), err);
    if (!project)
        return SomeFailed;
    QString runName = p.options.value(QStringLiteral("run"));
    std::optional<sim::ExecutionModel> model;
    QStringList problems;
    if (*level == sim::Level::Workflow) {
        const auto workflow = sim::Workflow::load(*project, &error);
        if (!workflow) {
            err << "grademl export: " << error << '\n';
            return SomeFailed;
        }
        model = sim::ExecutionModel::forWorkflow(*workflow);
        problems = workflow->problems;
        runName = workflow->inferred() ? QStringLiteral("workflow (inferred)") : workflow->name;
        collapse.level = sim::Level::Step;
    } else {
        int exitCode = Ok;
        const auto run = pickRun(*project, &runName, "export", err, &exitCode);
        if (!run)
            return exitCode;
        model = sim::ExecutionModel::forRun(*project, *run, runName, &error);
        if (!model) {
            err << "grademl export: run '" << runName << "': " << error << '\n';
            return SomeFailed;
        }
        if (ranks == QLatin1String("folded"))
            model = model->foldRanks();
    }
    const auto shared = std::make_shared<const sim::ExecutionModel>(std::move(*model));
    if (p.options.contains(QStringLiteral("focus"))) {
        const QString name = p.options.value(QStringLiteral("focus"));
        collapse.focus = shared->find(name);
        if (collapse.focus < 0) {
            err << "grademl export: run '" << runName << "' has no node named '" << name << "'\n";
            return SomeFailed;
        }
    }
    const auto picture = GraphPicture::make(shared, collapse);
    const QString title = QStringLiteral("%1 · %2 boxes down to %3 · critical path %4")
                              .arg(runName)
                              .arg(picture->scene.items.size())
                              .arg(levelText, formatDuration(shared->criticalLength()));
    if (!exportGraphFigure(*picture, GraphOverlay{}, outPath, title, &error)) {
        err << "grademl export: " << error << '\n';
        return SomeFailed;
    }
    out << "wrote " << outPath << " (" << picture->scene.items.size() << " boxes, "
        << picture->scene.edges.size() << " edges, " << picture->layout.layers << " layers)\n";
    for (const QString &problem : std::as_const(problems))
        err << "grademl export: workflow: " << problem << '\n';
    return problems.isEmpty() ? Ok : SomeFailed;
}

namespace {

// A cluster project's run spans its shards: --view analysis and --view graph are drawn from the
// shard holding one rank (as `grademl analyze --rank` reads it), the command run again on it.
// Nullopt when the project is not a cluster project.
std::optional<int> exportRankOfCluster(const Parsed &p, const QStringList &args,
                                       const QString &view,
                                       const std::function<int(const QString &)> &usage,
                                       QTextStream &out, QTextStream &err)
{
    // A cluster project's run spans its shards: these figures are drawn from the shard
    // holding one rank (as `grademl analyze --rank` reads it).
    QString error;
    auto project = Project::open(p.positional.first(), Project::Mode::ReadOnly, &error);
    if (project && cluster::isClusterProject(*project)) {
        if (!p.options.contains(QStringLiteral("rank")))
            return usage(QStringLiteral(
                             "a cluster project's run spans its shards: --view %1 draws the shard "
                             "holding one "
                             "rank, given by --rank N (the cross-rank report is `grademl analyze`)")
                             .arg(view));
        bool ok = false;
        const int rank = p.options.value(QStringLiteral("rank")).toInt(&ok);
        if (!ok || rank < 0)
            return usage(QStringLiteral("--rank expects a rank number, got '%1'")
                             .arg(safeText(p.options.value(QStringLiteral("rank")))));
        QString runName = p.options.value(QStringLiteral("run"));
        int exitCode = Ok;
        const auto run = pickRun(*project, &runName, "export", err, &exitCode);
        if (!run)
            return exitCode;
        const auto shard = cluster::shardOfRank(*project, *run, rank, &error);
        if (!shard) {
            err << "grademl export: run '" << runName << "': " << error << '\n';
            return SomeFailed;
        }
        out << QStringLiteral("rank %1 from shard %2\n")
                   .arg(rank)
                   .arg(QDir::toNativeSeparators(*shard));
        QStringList forward;
        for (qsizetype i = 0; i < args.size(); ++i) {
            if (args[i] == QLatin1String("--rank")) {
                ++i; // and its value
                continue;
            }
            if (!args[i].startsWith(QLatin1String("--rank=")))
                forward.append(args[i] == p.positional.first() ? *shard : args[i]);
        }
        project.reset();
        return exportCommand(forward, out, err);
    }
    return std::nullopt;
}

// --view timeline: the figure the studio's timeline draws of the project, a run or a range.
// What --origin, --tracks ask for, read with the figure's options.
struct TimelineOptions
{
    QRegularExpression tracks;
    QString origin;
    bool originIsNumber = false;
    TimeNs originNs = 0;
    std::optional<std::pair<RunTime, RunTime>> range; // --range, placed once the run is known
};

// The figure's options (size in centimetres, dpi, chrome, notes, tracks, range, colours,
// origin) into `req` and `o`; empty, or what is wrong with them.
QString timelineOptions(const Parsed &p, const QString &outPath, const std::optional<QSize> &size,
                        FigureRequest &req, TimelineOptions &o)
{
    req.path = outPath;
    if (size)
        req.size = *size;
    auto number = [&](const char *name, double low, double high, double *value) {
        bool ok = false;
        *value = p.options.value(QLatin1String(name)).toDouble(&ok);
        return ok && *value >= low && *value <= high;
    };
    if (p.options.contains(QStringLiteral("width-cm"))) {
        double w = 0, h = 0;
        if (size)
            return QStringLiteral("--size and --width-cm exclude each other");
        if (!number("width-cm", 2, 200, &w))
            return QStringLiteral("--width-cm expects centimetres from 2 to 200");
        req.size = QSize(FigureRequest::fromCm(w, outPath), 60);
        if (p.options.contains(QStringLiteral("height-cm"))) {
            if (!number("height-cm", 1, 200, &h))
                return QStringLiteral("--height-cm expects centimetres from 1 to 200");
            req.size.setHeight(FigureRequest::fromCm(h, outPath));
            req.fitHeight = false;
        }
    } else if (p.options.contains(QStringLiteral("height-cm"))) {
        return QStringLiteral("--height-cm goes with --width-cm");
    }
    if (p.options.contains(QStringLiteral("dpi")) && !number("dpi", 24, 1200, &req.dpi))
        return QStringLiteral("--dpi expects 24 to 1200 pixels per inch");
    // The studio's Export Figure defaults (issue 73: the CLI drew the window chrome and its long
    // labels cut mid-word, and left the notes out).
    if (p.flags.contains(QStringLiteral("chrome")) && p.flags.contains(QStringLiteral("no-chrome")))
        return QStringLiteral("--chrome and --no-chrome exclude each other");
    if (p.flags.contains(QStringLiteral("notes")) && p.flags.contains(QStringLiteral("no-notes")))
        return QStringLiteral("--notes and --no-notes exclude each other");
    req.chrome = p.flags.contains(QStringLiteral("chrome"));
    req.notes = !p.flags.contains(QStringLiteral("no-notes"));
    if (p.options.contains(QStringLiteral("tracks"))) {
        o.tracks = QRegularExpression(p.options.value(QStringLiteral("tracks")),
                                      QRegularExpression::CaseInsensitiveOption);
        if (!o.tracks.isValid())
            return QStringLiteral("--tracks: '%1' is not a regular expression: %2")
                .arg(safeText(p.options.value(QStringLiteral("tracks"))), o.tracks.errorString());
    }
    if (p.options.contains(QStringLiteral("range"))) {
        o.range = parseRunTimes(p.options.value(QStringLiteral("range")));
        if (!o.range)
            return QStringLiteral("--range expects START:END after the run's start (10ms:250ms) "
                                  "or @NS:@NS on the project clock, START < END, got '%1'")
                .arg(safeText(p.options.value(QStringLiteral("range")), 80));
    }
    const QString colorBy = p.options.value(QStringLiteral("color-by"), QStringLiteral("name"));
    if (colorBy != QLatin1String("name") && colorBy != QLatin1String("class"))
        return QStringLiteral("--color-by expects name or class, got '%1'").arg(safeText(colorBy));
    req.colorBy = colorBy == QLatin1String("class") ? TimelinePainter::ColorBy::Class
                                                    : TimelinePainter::ColorBy::Name;
    o.origin = p.options.value(QStringLiteral("origin"), QStringLiteral("start"));
    if (const auto t = parseDuration(o.origin); t && *t >= 0) {
        o.originIsNumber = true;
        o.originNs = *t;
    }
    if (o.origin != QLatin1String("start") && o.origin != QLatin1String("left") &&
        !o.originIsNumber)
        return QStringLiteral("--origin expects start, left or a time after the run's "
                              "start (5ms), got '%1'")
            .arg(safeText(o.origin));
    return {};
}

// The rows drawn: one run's (--run, its span the window unless --range says) and the tracks
// --tracks matches, laid out for `painter`; false when the run or a track is not there.
bool chooseRows(const Parsed &p, const QString &projectPath, const TimelineData &data,
                const TimelineOptions &o, FigureRequest &req, TimelinePainter &painter,
                QTextStream &err)
{
    const QRegularExpression &tracks = o.tracks;
    TimeNs base = data.start; // what --range counts from: the run's start, else the data's
    QSet<qint64> hidden;
    if (p.options.contains(QStringLiteral("run"))) {
        const QString name = p.options.value(QStringLiteral("run"));
        bool found = false;
        for (const auto &run : data.runs) {
            if (run.name == name) {
                found = true;
                // The ruler counts from the run's start, and the overview spans the run.
                req.overlay.traceStart = run.start;
                req.overlay.traceEnd = std::max(run.end, run.start + 1);
                base = run.start;
                if (!o.range) { // the whole run, not the whole project
                    req.t0 = run.start;
                    req.t1 = std::max(run.end, run.start + 1);
                }
            } else {
                hidden.insert(-run.id);
            }
        }
        if (!found) {
            err << "grademl export: " << projectPath << ": no run named '" << name << "'\n";
            return false;
        }
    }
    if (o.range) {
        req.t0 = o.range->first.absolute ? o.range->first.ns : base + o.range->first.ns;
        req.t1 = o.range->second.absolute ? o.range->second.ns : base + o.range->second.ns;
    }
    TimelineTrackFilter filter;
    if (p.options.contains(QStringLiteral("tracks"))) {
        for (const auto &run : data.runs)
            for (const auto &t : run.tracks)
                if (!hidden.contains(-run.id) && tracks.match(data.trackPath(t.id)).hasMatch())
                    filter.chosen.insert(t.id);
        if (filter.chosen.isEmpty()) {
            err << "grademl export: " << projectPath << ": no track matches --tracks '"
                << safeText(p.options.value(QStringLiteral("tracks"))) << "'\n";
            return false;
        }
    }
    if (!hidden.isEmpty() || !filter.chosen.isEmpty()) {
        TimelineLayout layout;
        layout.build(data, {}, hidden, painter.metrics(), {}, filter);
        painter.setLayout(layout);
    }
    return true;
}

int exportTimeline(const Parsed &p, const QString &outPath, const std::optional<QSize> &size,
                   const std::function<int(const QString &)> &usage, QTextStream &out,
                   QTextStream &err)
{
    FigureRequest req;
    TimelineOptions o;
    if (const QString problem = timelineOptions(p, outPath, size, req, o); !problem.isEmpty())
        return usage(problem);
    const QString &origin = o.origin;
    const QString projectPath = p.positional.first();
    if (!QFileInfo::exists(projectPath)) {
        err << "grademl export: " << projectPath << ": no such project\n";
        return SomeFailed;
    }
    QString error;
    const auto data = loadTimelineData(projectPath, &error);
    if (!data) {
        err << "grademl export: " << projectPath << ": " << error << '\n';
        return SomeFailed;
    }
    TimelinePainter painter;
    painter.setData(data);
    if (!chooseRows(p, projectPath, *data, o, req, painter, err))
        return SomeFailed;
    if (req.notes) {
        auto project = Project::open(projectPath, Project::Mode::ReadOnly, &error);
        if (!project) {
            err << "grademl export: " << error << '\n';
            return SomeFailed;
        }
        for (const Note &n : listNotes(*project, &error))
            req.overlay.notes.push_back({n.start, n.end, n.bookmark, n.text});
    }
    const bool empty = req.t1 > req.t0 && (req.t1 <= data->start || req.t0 >= data->end);
    if (empty && p.options.contains(QStringLiteral("range")))
        err << "grademl export: warning: --range " << p.options.value(QStringLiteral("range"))
            << " holds no data; the project spans @" << data->start << ":@" << data->end << '\n';
    else if (empty || data->end <= data->start) // the window was the run's or the project's own
        err << "grademl export: warning: "
            << (p.options.contains(QStringLiteral("run"))
                    ? QStringLiteral("run '%1' holds no data to draw")
                          .arg(safeText(p.options.value(QStringLiteral("run"))))
                    : QStringLiteral("the project holds no data to draw"))
            << '\n';
    if (origin == QLatin1String("left")) {
        req.overlay.hasOrigin = true;
        req.overlay.origin = req.t1 > req.t0 ? req.t0 : data->start;
    } else if (o.originIsNumber) {
        req.overlay.hasOrigin = true;
        req.overlay.origin =
            (req.overlay.traceEnd > req.overlay.traceStart ? req.overlay.traceStart : data->start) +
            o.originNs;
    }
    if (!exportFigure(painter, req, &error)) {
        err << "grademl export: " << error << '\n';
        return SomeFailed;
    }
    out << "wrote " << outPath << '\n';
    if (p.options.contains(QStringLiteral("state"))) {
        if (!writeOutput(p.options.value(QStringLiteral("state")),
                         QJsonDocument(figureState(painter, req)).toJson(), &error,
                         {projectPath})) {
            err << "grademl export: " << error << '\n';
            return SomeFailed;
        }
    }
    // A cluster project's rows come from its shards: one that cannot be read (missing, damaged,
    // swapped) left its rows blank in the figure, which is said, as the studio says it.
    if (data->pager && !data->pager->errorString().isEmpty()) {
        err << "grademl export: " << projectPath
            << ": part of the timeline cannot be read (its rows are blank): "
            << data->pager->errorString() << '\n';
        return SomeFailed;
    }
    return Ok;
}

} // namespace

int exportCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(
        args, {QStringLiteral("view"),   QStringLiteral("run"),      QStringLiteral("range"),
               QStringLiteral("out"),    QStringLiteral("size"),     QStringLiteral("level"),
               QStringLiteral("budget"), QStringLiteral("focus"),    QStringLiteral("runs"),
               QStringLiteral("metric"), QStringLiteral("axis"),     QStringLiteral("param"),
               QStringLiteral("tracks"), QStringLiteral("width-cm"), QStringLiteral("height-cm"),
               QStringLiteral("dpi"),    QStringLiteral("theme"),    QStringLiteral("ranks"),
               QStringLiteral("rank"),   QStringLiteral("color-by"), QStringLiteral("origin"),
               QStringLiteral("state"),  QStringLiteral("format")},
        {QStringLiteral("no-chrome"), QStringLiteral("chrome"), QStringLiteral("notes"),
         QStringLiteral("no-notes"), QStringLiteral("sync-edges")});
    const auto usage = [&](const QString &why) {
        err << "grademl export: " << why << '\n' << kExportUsage;
        return Usage;
    };
    if (!p.error.isEmpty())
        return usage(p.error);
    if (p.options.contains(QStringLiteral("format")))
        return exportRun(p, out, err);
    if (p.positional.size() != 1)
        return usage(QStringLiteral("need exactly one project file"));
    if (p.options.contains(QStringLiteral("theme"))) {
        bool dark = false;
        if (!Theme::parse(p.options.value(QStringLiteral("theme")), false, &dark) ||
            p.options.value(QStringLiteral("theme")) == QLatin1String("system"))
            return usage(QStringLiteral("--theme expects light or dark, got '%1'")
                             .arg(safeText(p.options.value(QStringLiteral("theme")))));
        Theme::use(dark); // every view's figure takes its colours from it
    }
    const QString view = p.options.value(QStringLiteral("view"), QStringLiteral("timeline"));
    if (view != QLatin1String("timeline") && view != QLatin1String("graph") &&
        view != QLatin1String("analysis") && view != QLatin1String("compare") &&
        view != QLatin1String("simulate"))
        return usage(QStringLiteral("unknown view '%1' (this version exports: timeline, graph, "
                                    "analysis, compare, simulate)")
                         .arg(view));
    const bool compareOptions = p.options.contains(QStringLiteral("metric")) ||
                                p.options.contains(QStringLiteral("axis")) ||
                                p.options.contains(QStringLiteral("param"));
    if (compareOptions && view != QLatin1String("compare"))
        return usage(QStringLiteral("--metric, --axis and --param are for --view compare"));
    if (p.options.contains(QStringLiteral("runs")) && view != QLatin1String("compare") &&
        view != QLatin1String("simulate"))
        return usage(QStringLiteral("--runs is for --view compare and --view simulate"));
    const QString outPath = p.options.value(QStringLiteral("out"));
    if (outPath.isEmpty())
        return usage(QStringLiteral("need --out OUT.png, OUT.svg or OUT.pdf"));
    const QString suffix = QFileInfo(outPath).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg") &&
        suffix != QLatin1String("pdf"))
        return usage(QStringLiteral("--out must end in .png, .svg or .pdf, got '%1'").arg(outPath));
    // Every output refused before any work (docs/cli.md, "where outputs may go").
    for (const char *option : {"out", "state"})
        if (const QString why = refusedOutput(p, option, p.positional.first()); !why.isEmpty())
            return usage(why);
    std::optional<QSize> size; // --size, for the timeline and the analysis charts
    if (p.options.contains(QStringLiteral("size"))) {
        const QStringList wh = p.options.value(QStringLiteral("size")).split(QLatin1Char('x'));
        bool okw = false, okh = false;
        const int w = wh.value(0).toInt(&okw), h = wh.value(1).toInt(&okh);
        if (wh.size() != 2 || !okw || !okh || w < 200 || h < 100 || w > 20000 || h > 20000)
            return usage(QStringLiteral("--size expects WxH between 200x100 and 20000x20000"));
        size = QSize(w, h);
    }
    if ((view == QLatin1String("analysis") || view == QLatin1String("graph")) &&
        QFileInfo::exists(p.positional.first()))
        if (const auto done = exportRankOfCluster(p, args, view, usage, out, err))
            return *done;
    if (p.options.contains(QStringLiteral("rank")))
        return usage(
            QStringLiteral("--rank is for --view analysis and --view graph of a cluster project"));
    if (view == QLatin1String("analysis")) {
        if (p.options.contains(QStringLiteral("range")) ||
            p.options.contains(QStringLiteral("level")) ||
            p.options.contains(QStringLiteral("budget")) ||
            p.options.contains(QStringLiteral("focus")))
            return usage(QStringLiteral("--view analysis takes --run, --out and --size only"));
        if (!QFileInfo::exists(p.positional.first())) {
            err << "grademl export: " << p.positional.first() << ": no such project\n";
            return SomeFailed;
        }
        return exportAnalysis(p, p.positional.first(), outPath, size.value_or(QSize(1600, 900)),
                              out, err);
    }
    if (view == QLatin1String("compare")) {
        for (const char *other : {"run", "range", "level", "budget", "focus"})
            if (p.options.contains(QLatin1String(other)))
                return usage(QStringLiteral("--view compare takes --runs, --metric, --axis, "
                                            "--param, --out and --size only"));
        const QStringList runs =
            p.options.value(QStringLiteral("runs")).split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (runs.size() < 2)
            return usage(QStringLiteral("--view compare needs --runs A,B (two runs or more)"));
        if (!QFileInfo::exists(p.positional.first())) {
            err << "grademl export: " << p.positional.first() << ": no such project\n";
            return SomeFailed;
        }
        return exportCompare(p, p.positional.first(), outPath, size.value_or(QSize(1600, 1000)),
                             out, err);
    }
    if (view == QLatin1String("simulate")) {
        for (const char *other : {"run", "range", "level", "budget", "focus"})
            if (p.options.contains(QLatin1String(other)))
                return usage(QStringLiteral("--view simulate takes --runs, --out and --size only"));
        if (!QFileInfo::exists(p.positional.first())) {
            err << "grademl export: " << p.positional.first() << ": no such project\n";
            return SomeFailed;
        }
        return exportSimulate(p, p.positional.first(), outPath, size.value_or(QSize(1600, 1000)),
                              out, err);
    }
    if (view == QLatin1String("graph")) {
        if (p.options.contains(QStringLiteral("range")) ||
            p.options.contains(QStringLiteral("size")))
            return usage(QStringLiteral(
                "--range and --size are for the timeline; the graph figure fits its layout"));
        if (!QFileInfo::exists(p.positional.first())) {
            err << "grademl export: " << p.positional.first() << ": no such project\n";
            return SomeFailed;
        }
        return exportGraph(p, p.positional.first(), outPath, out, err);
    }
    if (p.options.contains(QStringLiteral("level")) ||
        p.options.contains(QStringLiteral("budget")) || p.options.contains(QStringLiteral("focus")))
        return usage(QStringLiteral("--level, --budget and --focus are for --view graph"));
    return exportTimeline(p, outPath, size, usage, out, err);
}

} // namespace gml::cli
