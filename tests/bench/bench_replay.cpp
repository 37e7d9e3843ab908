// SPDX-License-Identifier: GPL-3.0-or-later
// bench_replay: what it measures, its options and what it prints are kUsage below (--help).
#include "benchutil.h"
#include "dependencygraph.h"
#include "folderscanner.h"
#include "importjob.h"
#include "predictedrun.h"
#include "project.h"
#include "timelinedata.h"
#include "timelinepainter.h"
#include "whatif.h"

#include <QDir>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

using namespace gml;
using gmlbench::median;

// What --help prints.
constexpr const char *kUsage =
    "bench_replay: how fast the what-if engine builds a run's dependency graph and replays it.\n"
    "\n"
    "  bench_replay [--ranks R] [--steps S] [--repeat N]\n"
    "\n"
    "Generates a data-parallel job with grademl-tracegen (R ranks, S steps; the default gives\n"
    "about 100k nodes), imports it into a temporary project, builds the graph once (timed), then\n"
    "replays it N times as measured and N times with a transform (all GEMM kernels x0.5, as a\n"
    "\"compute speed\" slider would). Prints the median replay time, nodes per second, and a\n"
    "baseline measured in the same run: one pass summing the nodes' measured times, so the\n"
    "replay's cost is read as a ratio to touching every node once.\n";

int main(int argc, char **argv)
{
    if (gmlbench::helpAsked(argc, argv, kUsage))
        return 0;
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen")
                                                                    : qgetenv("QT_QPA_PLATFORM"));
    QGuiApplication app(argc, argv);
    int ranks = 8, steps = 370, repeat = 21;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--ranks"))
            ranks = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--steps"))
            steps = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--repeat"))
            repeat = std::max(1, args[i + 1].toInt());
        else {
            std::fprintf(stderr, "usage: bench_replay [--ranks R] [--steps S] [--repeat N]\n");
            return 2;
        }
    }
    QTemporaryDir dir;
    const QString traces = dir.filePath(QStringLiteral("job"));
    QDir().mkpath(traces);
    QProcess gen;
    gen.start(QStringLiteral(GRADEML_TRACEGEN),
              {QStringLiteral("--out"), traces, QStringLiteral("--ranks"), QString::number(ranks),
               QStringLiteral("--steps"), QString::number(steps)});
    if (!gen.waitForFinished(600000) || gen.exitCode() != 0) {
        std::fprintf(stderr, "bench_replay: grademl-tracegen failed\n");
        return 1;
    }
    QString error;
    auto project =
        Project::open(dir.filePath(QStringLiteral("p.grademl")), Project::Mode::ReadWrite, &error);
    if (!project) {
        std::fprintf(stderr, "bench_replay: %s\n", qPrintable(error));
        return 1;
    }
    QStringList scanErrors;
    ImportJob job(*project);
    job.run(scanInputs({traces}, QStringLiteral("job"), &scanErrors));
    QElapsedTimer timer;
    timer.start();
    auto built =
        sim::DependencyGraph::build(*project, *project->findRun(QStringLiteral("job")), &error);
    const double buildMs = double(timer.nsecsElapsed()) / 1e6;
    if (!built) {
        std::fprintf(stderr, "bench_replay: %s\n", qPrintable(error));
        return 1;
    }
    const auto graph = std::make_shared<const sim::DependencyGraph>(std::move(*built));
    const auto &nodes = graph->nodes();
    qint64 edges = 0;
    for (auto c : graph->edgeCounts())
        edges += c;
    const auto input = sim::ReplayInput::measured(*graph);
    QString why;
    const QList<sim::Transform> faster = {*sim::parseScale(QStringLiteral("sgemm=0.5"), &why)};
    // Every resource scheduled by the event-driven replay (a reschedule giving NCCL priority).
    const QList<sim::Transform> priority = {*sim::parseReschedule(QStringLiteral(".=0"), &why),
                                            *sim::parseReschedule(QStringLiteral("nccl=1"), &why)};
    std::vector<double> base, identity, transformed, scheduled;
    TimeNs sink = 0;
    for (int k = 0; k < repeat; ++k) {
        timer.restart();
        for (const auto &n : nodes)
            sink += n.end - n.start;
        base.push_back(double(timer.nsecsElapsed()) / 1e6);
        timer.restart();
        const auto r = sim::replay(*graph, input);
        identity.push_back(double(timer.nsecsElapsed()) / 1e6);
        sink += r.makespan();
        timer.restart();
        const auto prepared = sim::prepare(graph, faster, {}, &why);
        const auto t = sim::replay(*prepared->graph, prepared->input);
        transformed.push_back(double(timer.nsecsElapsed()) / 1e6);
        sink += t.makespan();
        timer.restart();
        const auto ps = sim::prepare(graph, priority, {}, &why);
        const auto s = sim::replay(*ps->graph, ps->input);
        scheduled.push_back(double(timer.nsecsElapsed()) / 1e6);
        sink += s.makespan();
    }
    // A slider move as the GUI's worker does it: prepare the scenario (compute speed at the
    // slider's value, AMP, data loading 2x), replay, and build the timeline with the predicted
    // run under the measured one. The identity replay and the loaded timeline are reused.
    const auto timeline = loadTimelineData(project->path(), &error);
    if (!timeline) {
        std::fprintf(stderr, "bench_replay: %s\n", qPrintable(error));
        return 1;
    }
    const auto identityReplay = sim::replay(*graph, input);
    sim::StructureCache cache;
    std::vector<double> slider, pixels;
    TimelinePainter painter;
    QImage image(QSize(1600, 900), QImage::Format_ARGB32_Premultiplied);
    for (int k = 0; k < repeat; ++k) {
        sim::Transform compute;
        compute.op = QStringLiteral("compute");
        compute.factor = 1.0 + 0.1 * (k + 1);
        timer.restart();
        const auto res =
            sim::whatIf(graph, {compute, sim::Transform::amp(), sim::Transform::input(2)}, {}, &why,
                        &cache, &identityReplay);
        const auto data =
            sim::withPredictedRun(timeline, *project->findRun(QStringLiteral("job")),
                                  *res->prepared.graph, res->predicted, QStringLiteral("what-if"));
        slider.push_back(double(timer.nsecsElapsed()) / 1e6);
        // What the timeline then does with it: new data (the overview recomputed) and a paint
        // of the whole trace at a workstation's window size.
        painter.setData(data);
        {
            QPainter p(&image);
            TimelineOverlay o;
            painter.paint(p, TimelineViewport{image.size(), data->start, data->end, 0}, o);
        }
        pixels.push_back(double(timer.nsecsElapsed()) / 1e6);
        sink += res->report.predicted + TimeNs(data->sliceCount());
    }
    const double id = median(identity), tr = median(transformed), b = median(base);
    const double sl = median(slider), px = median(pixels);
    std::printf("graph: %zu nodes, %lld edges, %zu resources; built in %.1f ms\n", nodes.size(),
                static_cast<long long>(edges), graph->resources().size(), buildMs);
    std::printf("identity replay: median %.2f ms (%.1f M nodes/s)\n", id,
                double(nodes.size()) / id / 1e3);
    std::printf("replay with a transform (slider move): median %.2f ms\n", tr);
    std::printf("replay with a reschedule (event-driven, priority queue): median %.2f ms (%.1fx "
                "the identity replay)\n",
                median(scheduled), median(scheduled) / id);
    std::printf("slider to result (3 transforms + replay + predicted timeline): median %.2f ms, "
                "worst %.2f ms "
                "(aim: 100 ms)\n",
                sl, *std::max_element(slider.begin(), slider.end()));
    std::printf("slider to pixels (the same, then the timeline's new data painted at 1600x900): "
                "median %.2f ms, "
                "worst %.2f ms\n",
                px, *std::max_element(pixels.begin(), pixels.end()));
    std::printf("baseline (one pass over the nodes): median %.3f ms; replay / baseline = %.1fx, "
                "slider / baseline = %.1fx, pixels / baseline = %.1fx\n",
                b, id / b, sl / b, px / b);
    std::printf("(checksum %lld)\n", static_cast<long long>(sink % 1000));
    return 0;
}
