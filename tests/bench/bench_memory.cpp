// SPDX-License-Identifier: GPL-3.0-or-later
// bench_memory: what it measures, its options and what it prints are kUsage below (--help).
#include "benchutil.h"
#include "dependencygraph.h"
#include "devicecatalog.h"
#include "folderscanner.h"
#include "importjob.h"
#include "memoryreport.h"
#include "project.h"
#include "roofline.h"
#include "transforms.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

using namespace gml;
using gmlbench::median;
using gmlbench::timed;

// What --help prints.
constexpr const char *kUsage =
    "bench_memory: the roofline and the memory report of a run, against its import.\n"
    "\n"
    "  bench_memory [--target-mb MB] [--layers N] [--repeat N]\n"
    "  bench_memory --project FILE --run NAME [--repeat N]   (a project imported before)\n"
    "\n"
    "Generates a one-rank job with grademl-tracegen --memory (profile_memory events with\n"
    "addresses and totals, matmuls with shapes) of about MB megabytes, imports it into a\n"
    "temporary project (timed), then times, as medians over N repeats:\n"
    "  graph     the run's dependency graph (what the Analysis view builds anyway);\n"
    "  roofline  roofline() over that graph (the op costs were gathered while it was read);\n"
    "  memory    memoryReport(): reading the CPU threads' memory events and their operators, the\n"
    "            matching of frees, the peak and what was live at it;\n"
    "and each against the import's time, and the process's peak RSS at the end.\n";

int main(int argc, char **argv)
{
    if (gmlbench::helpAsked(argc, argv, kUsage))
        return 0;
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    auto take = [&](const QString &flag, const QString &fallback) {
        const qsizetype i = args.indexOf(flag);
        if (i < 0 || i + 1 >= args.size())
            return fallback;
        const QString v = args[i + 1];
        args.remove(i, 2);
        return v;
    };
    const int targetMb = take(QStringLiteral("--target-mb"), QStringLiteral("1024")).toInt();
    const int layers = take(QStringLiteral("--layers"), QStringLiteral("24")).toInt();
    const int repeat = std::max(1, take(QStringLiteral("--repeat"), QStringLiteral("3")).toInt());
    const QString projectFile = take(QStringLiteral("--project"), QString());
    QString runName = take(QStringLiteral("--run"), QStringLiteral("job"));

    QTemporaryDir dir;
    QString error;
    double importMs = 0;
    std::unique_ptr<Project> project;
    if (projectFile.isEmpty()) {
        const QString out = dir.filePath(QStringLiteral("job"));
        QProcess gen;
        gen.start(QStringLiteral(GRADEML_TRACEGEN),
                  {QStringLiteral("--out"), out, QStringLiteral("--ranks"), QStringLiteral("1"),
                   QStringLiteral("--layers"), QString::number(layers),
                   QStringLiteral("--target-mb"), QString::number(targetMb),
                   QStringLiteral("--memory")});
        if (!gen.waitForFinished(-1) || gen.exitCode() != 0) {
            std::fprintf(stderr, "bench_memory: grademl-tracegen failed\n");
            return 1;
        }
        project = Project::open(dir.filePath(QStringLiteral("p.grademl")), Project::Mode::ReadWrite,
                                &error);
        if (!project) {
            std::fprintf(stderr, "bench_memory: %s\n", qPrintable(error));
            return 1;
        }
        importMs = timed([&] {
            QStringList scanErrors;
            ImportJob job(*project);
            job.run(scanInputs({out}, runName, &scanErrors));
        });
    } else {
        project = Project::open(projectFile, Project::Mode::ReadOnly, &error);
        if (!project) {
            std::fprintf(stderr, "bench_memory: %s\n", qPrintable(error));
            return 1;
        }
    }
    const auto run = project->findRun(runName);
    if (!run) {
        std::fprintf(stderr, "bench_memory: no run '%s'\n", qPrintable(runName));
        return 1;
    }
    std::vector<double> graphMs, rooflineMs, memoryMs;
    qint64 events = 0, ops = 0;
    for (int k = 0; k < repeat; ++k) {
        std::optional<sim::DependencyGraph> graph;
        graphMs.push_back(
            timed([&] { graph = sim::DependencyGraph::build(*project, *run, &error); }));
        if (!graph) {
            std::fprintf(stderr, "bench_memory: %s\n", qPrintable(error));
            return 1;
        }
        const QString device = sim::WhatIfContext::forRun(*graph, *project, *run).measuredDevice;
        rooflineMs.push_back(timed([&] {
            ops = sim::roofline(*graph, device, sim::DeviceCatalog::builtin()).costedCalls;
        }));
        std::optional<MemoryReport> memory;
        memoryMs.push_back(timed([&] { memory = memoryReport(*project, *run, &error); }));
        if (!memory) {
            std::fprintf(stderr, "bench_memory: %s\n", qPrintable(error));
            return 1;
        }
        events = 0;
        for (const auto &d : memory->devices)
            events += d.events;
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const double g = median(graphMs), r = median(rooflineMs), m = median(memoryMs);
    std::printf("run %s: %lld costed op calls, %lld memory events\n", qPrintable(runName),
                static_cast<long long>(ops), static_cast<long long>(events));
    if (importMs > 0)
        std::printf("import    %9.1f ms\n", importMs);
    std::printf(
        "graph     %9.1f ms%s\n", g,
        importMs > 0
            ? qPrintable(QStringLiteral("  (%1 of the import)").arg(g / importMs, 0, 'f', 3))
            : "");
    std::printf(
        "roofline  %9.1f ms%s\n", r,
        importMs > 0
            ? qPrintable(QStringLiteral("  (%1 of the import)").arg(r / importMs, 0, 'f', 4))
            : "");
    std::printf(
        "memory    %9.1f ms%s\n", m,
        importMs > 0
            ? qPrintable(QStringLiteral("  (%1 of the import)").arg(m / importMs, 0, 'f', 3))
            : "");
    if (importMs > 0)
        std::printf("roofline + memory: %.3f of the import\n", (r + m) / importMs);
    std::printf("peak RSS  %9.1f MiB\n", double(ru.ru_maxrss) / 1024.0);
    return 0;
}
