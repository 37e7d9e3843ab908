// SPDX-License-Identifier: GPL-3.0-or-later
// bench_graph: what it measures, its options and what it prints are kUsage below (--help).
#include "benchutil.h"
#include "dependencygraph.h"
#include "executionmodel.h"
#include "folderscanner.h"
#include "graphpainter.h"
#include "importjob.h"
#include "project.h"

#include <QDir>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QProcess>
#include <QTemporaryDir>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

using namespace gml;
using gmlbench::median;
using gmlbench::timed;

static bool benchFolder(const QString &label, const QString &folder, int repeat,
                        const QString &projectFile = {})
{
    QTemporaryDir dir;
    QString error;
    auto project = Project::open(
        projectFile.isEmpty() ? dir.filePath(QStringLiteral("p.grademl")) : projectFile,
        projectFile.isEmpty() ? Project::Mode::ReadWrite : Project::Mode::ReadOnly, &error);
    if (!project) {
        std::fprintf(stderr, "bench_graph: %s\n", qPrintable(error));
        return false;
    }
    if (projectFile.isEmpty()) {
        QStringList scanErrors;
        ImportJob job(*project);
        job.run(scanInputs({folder}, label, &scanErrors));
    }
    const auto run = project->findRun(label);
    if (!run) {
        std::fprintf(stderr, "bench_graph: %s: nothing imported\n", qPrintable(folder));
        return false;
    }
    std::vector<double> graphMs, modelMs, criticalMs, collapsedMs, openMs, unfoldMs;
    std::shared_ptr<const sim::ExecutionModel> model;
    qint64 slices = 0;
    size_t boxes = 0, openBoxes = 0;
    for (int k = 0; k < repeat; ++k) {
        std::optional<sim::DependencyGraph> graph;
        graphMs.push_back(
            timed([&] { graph = sim::DependencyGraph::build(*project, *run, &error); }));
        if (!graph) {
            std::fprintf(stderr, "bench_graph: %s: %s\n", qPrintable(folder), qPrintable(error));
            return false;
        }
        std::optional<sim::ExecutionModel> m;
        modelMs.push_back(timed([&] { m = sim::ExecutionModel::build(*graph, label); }));
        criticalMs.push_back(timed(
            [&] { m->setCriticalPath(sim::replay(*graph, sim::ReplayInput::measured(*graph))); }));
        model = std::make_shared<const sim::ExecutionModel>(std::move(*m));
        slices = 0;
        for (size_t i = 0; i < model->nodes().size(); ++i)
            slices += qint64(model->slices(int(i)).size());
        std::shared_ptr<const GraphPicture> picture;
        collapsedMs.push_back(timed([&] { picture = GraphPicture::make(model, GraphCollapse{}); }));
        boxes = picture->scene.items.size();
        // The largest box that opens into its children, and the largest group.
        int open = -1, group = -1;
        for (size_t i = 0; i < picture->scene.items.size(); ++i) {
            const auto &it = picture->scene.items[i];
            if (it.isGroup()) {
                if (group < 0 || it.time > picture->scene.items[size_t(group)].time)
                    group = int(i);
            } else if (it.openable &&
                       (open < 0 || it.time > picture->scene.items[size_t(open)].time)) {
                open = int(i);
            }
        }
        if (open >= 0) {
            GraphCollapse c;
            c.focus = picture->scene.items[size_t(open)].node;
            std::shared_ptr<const GraphPicture> opened;
            openMs.push_back(timed([&] { opened = GraphPicture::make(model, c); }));
            openBoxes = opened->scene.items.size();
        }
        if (group >= 0) {
            GraphCollapse c;
            c.unfolded.insert(picture->scene.items[size_t(group)].unfoldKey());
            unfoldMs.push_back(timed([&] { GraphPicture::make(model, c); }));
        }
    }
    std::printf("%-42s %9lld %8zu %9.1f %9.1f %9.1f %5.2fx %10.1f %5zu %8.1f %5zu %8.1f\n",
                qPrintable(label), static_cast<long long>(slices), model->nodes().size(),
                median(graphMs), median(modelMs), median(criticalMs),
                (median(modelMs) + median(criticalMs)) / std::max(1e-3, median(graphMs)),
                median(collapsedMs), boxes, median(openMs), openBoxes, median(unfoldMs));
    std::fflush(stdout);
    return true;
}

static void printHeader()
{
    std::printf("%-42s %9s %8s %9s %9s %9s %6s %10s %5s %8s %5s %8s\n", "trace", "slices", "nodes",
                "graph ms", "model ms", "crit. ms", "ratio", "collapsed", "boxes", "open ms",
                "boxes", "unfold");
}

static void printPeakRss()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("peak RSS %.0f MiB\n", double(usage.ru_maxrss) / 1024.0);
}

// What --help prints.
constexpr const char *kUsage =
    "bench_graph: how fast the execution model and the graph view's pictures are built.\n"
    "\n"
    "  bench_graph [--ranks R] [--steps S | --target-mb MB] [--repeat N] [TRACE_FOLDER...]\n"
    "  bench_graph --project FILE --run NAME [--repeat N]   (a project imported before: no "
    "import)\n"
    "\n"
    "For each folder (default: every folder of ../shared/traces/pytorch_kineto when present) and\n"
    "a job generated with grademl-tracegen (R ranks, S steps), imported into a temporary\n"
    "project, prints:\n"
    "  graph      building the run's dependency graph (the what-if engine's, the baseline);\n"
    "  model      the hierarchy on top of it: ExecutionModel::build;\n"
    "  crit.      the identity replay's critical path charged to it (model + crit. is what the\n"
    "             graph dock adds to the what-if engine's work; ratio: that against graph);\n"
    "  collapsed  the view the dock opens with: scene (budget 150, down to operators) + layout;\n"
    "  open       a double-click on the largest box that opens: its scene + layout;\n"
    "  unfold     a double-click on the largest ×N group (when there is one).\n"
    "Medians over N repeats, and the process's peak RSS at the end.\n";

int main(int argc, char **argv)
{
    if (gmlbench::helpAsked(argc, argv, kUsage))
        return 0;
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen")
                                                                    : qgetenv("QT_QPA_PLATFORM"));
    QGuiApplication app(argc, argv);
    int ranks = 8, steps = 40, repeat = 5, targetMb = 0;
    QStringList folders;
    QString projectFile, runName;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--ranks") && i + 1 < args.size())
            ranks = args[++i].toInt();
        else if (args[i] == QLatin1String("--steps") && i + 1 < args.size())
            steps = args[++i].toInt();
        else if (args[i] == QLatin1String("--repeat") && i + 1 < args.size())
            repeat = std::max(1, args[++i].toInt());
        else if (args[i] == QLatin1String("--target-mb") && i + 1 < args.size())
            targetMb = args[++i].toInt();
        else if (args[i] == QLatin1String("--project") && i + 1 < args.size())
            projectFile = args[++i];
        else if (args[i] == QLatin1String("--run") && i + 1 < args.size())
            runName = args[++i];
        else if (!args[i].startsWith(QLatin1String("--")))
            folders << args[i];
        else {
            std::fprintf(stderr,
                         "usage: bench_graph [--ranks R] [--steps S | --target-mb MB] [--repeat N] "
                         "[--project FILE --run NAME | TRACE_FOLDER...]\n");
            return 2;
        }
    }
    if (!projectFile.isEmpty()) {
        printHeader();
        const bool ok = benchFolder(runName, {}, repeat, projectFile);
        printPeakRss();
        return ok ? 0 : 1;
    }
    if (folders.isEmpty()) {
        const QDir shared(QStringLiteral(GRADEML_SHARED_TRACES "/pytorch_kineto"));
        for (const QString &d : shared.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            folders << shared.filePath(d);
        if (folders.isEmpty())
            std::fprintf(
                stderr, "bench_graph: no shared traces at %s; only the generated job is measured\n",
                qPrintable(shared.path()));
    }
    printHeader();
    for (const QString &f : folders)
        benchFolder(QFileInfo(f).fileName(), f, repeat);
    QTemporaryDir gen;
    const QString traces = gen.filePath(QStringLiteral("job"));
    QDir().mkpath(traces);
    QProcess p;
    QStringList genArgs{QStringLiteral("--out"), traces, QStringLiteral("--ranks"),
                        QString::number(ranks)};
    if (targetMb > 0)
        genArgs << QStringLiteral("--target-mb") << QString::number(targetMb)
                << QStringLiteral("--layers") << QStringLiteral("24");
    else
        genArgs << QStringLiteral("--steps") << QString::number(steps);
    p.start(QStringLiteral(GRADEML_TRACEGEN), genArgs);
    if (!p.waitForFinished(600000) || p.exitCode() != 0) {
        std::fprintf(stderr, "bench_graph: grademl-tracegen failed\n");
        return 1;
    }
    benchFolder(targetMb > 0
                    ? QStringLiteral("generated %1 MB, %2 rank(s)").arg(targetMb).arg(ranks)
                    : QStringLiteral("generated %1 ranks x %2 steps").arg(ranks).arg(steps),
                traces, repeat);
    printPeakRss();
    return 0;
}
