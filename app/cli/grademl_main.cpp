// SPDX-License-Identifier: GPL-3.0-or-later
// grademl: the headless command line of GradeML Studio.
#include "clicommands.h"
#include "hugepages.h"
#include "mappedwriteguard.h"
#include "terminalout.h"

#include <QApplication>
#include <QCoreApplication>
#include <QGuiApplication>

#include <QTextStream>
#include <memory>

#include <cstdio>

static const char kUsage[] =
    "usage: grademl COMMAND ...\n"
    "  import PATH... --project FILE.grademl [--run NAME]   import trace files or folders\n"
    "         [--follow [--idle-exit SECONDS] [--poll SECONDS]]  ... and keep importing while they "
    "change\n"
    "         [--shard I/N]                                  ... shard I's share of the files, "
    "with the\n"
    "                                                        ranks' facts a cluster project "
    "merges\n"
    "  merge CLUSTER.grademl SHARD.grademl...                the cluster project of a sharded job\n"
    "  info FILE.grademl [--json]                            runs, sources, counts, track tree\n"
    "  query FILE.grademl \"SELECT ...\"                       one read-only SQL statement, CSV "
    "out\n"
    "  export FILE.grademl --view timeline [--run NAME] [--range START_NS:END_NS]\n"
    "         --out OUT.(png|svg|pdf) [--size WxH]           a figure, drawn as the GUI draws it\n"
    "  export FILE.grademl --view graph [--run NAME] [--level L] [--budget N] [--focus NAME]\n"
    "         --out OUT.(png|svg|pdf)                        the execution graph as the studio "
    "opens it\n"
    "  export FILE.grademl --view analysis|compare|simulate ... --out OUT.(png|svg|pdf)\n"
    "                                                        a panel's charts (options: grademl "
    "export)\n"
    "  report FILE.grademl [--run NAME] --out REPORT.html [--mlflow mlruns/EXP/RUN]\n"
    "                                                        the Analysis page as one HTML file;\n"
    "                                                        GradeML's metrics into an MLflow run\n"
    "  export FILE.grademl --format chrome-json [--run NAME] --out RUN.json[.gz]\n"
    "                                                        a run as a Chrome trace (Perfetto)\n"
    "  record --out DIR [--interval 100ms] [--name RUN] -- COMMAND [ARGS...]\n"
    "                                                        run a command, sampling its "
    "processes, the host\n"
    "                                                        and the GPUs into a trace folder\n"
    "  align FILE.grademl [--run NAME] [--json] [--recompute]\n"
    "        [--source rank:N|PATH (--offset DURATION | --clear)]\n"
    "                                                        rank clock offsets, residuals, "
    "overrides\n"
    "  whatif FILE.grademl [--run NAME] [--scale 'REGEX=FACTOR'] [--json]\n"
    "                                                        replay a run: measured, identity, "
    "predicted\n"
    "  validate FILE.grademl --run A [TRANSFORMS] --against B [--top N] [--json]\n"
    "                                                        a prediction from A against B, "
    "measured with\n"
    "                                                        the change made: errors and "
    "assumptions\n"
    "  graph FILE.grademl [--run NAME] [--level workflow|step|iteration|phase|scope|operator|gpu]\n"
    "        [--json | --dot]                                the execution model: nodes, times, "
    "edges\n"
    "  roofline FILE.grademl [--run NAME] [--device ID] [--json]\n"
    "                                                        FLOPs and bytes per operator from "
    "the\n"
    "                                                        recorded shapes, achieved rates "
    "and bound\n"
    "  collectives FILE.grademl [--run NAME] [--measured-link ID] [--json]\n"
    "                                                        each collective across ranks: "
    "skew\n"
    "                                                        against transfer, busbw against "
    "the link\n"
    "  memory FILE.grademl [--run NAME] [--json]             peak memory per device, what was "
    "live at\n"
    "                                                        it, largest and never-freed "
    "allocations\n"
    "  note FILE.grademl add (--at T | --range A:B | --slice ID) --text T [--run NAME] "
    "[--bookmark N]\n"
    "  note FILE.grademl list [--json] | remove ID          notes and bookmarks 1-9 on times, "
    "ranges, slices\n"
    "                                                        (times after the run's start: 250ms; "
    "@NS: project clock)\n"
    "  flame FILE.grademl [--run NAME] [--range START:END] [--rank N] [--gpu] [--format "
    "folded|json]\n"
    "        [--diff-run NAME | --diff-range START:END]      the flame graph of a range: CPU self "
    "time\n"
    "                                                        (or GPU time under its launches), "
    "folded\n"
    "  analyze FILE.grademl [--run NAME] [--rank N] [--range START:END] [--json]\n"
    "                                                        findings ranked by what fixing each "
    "would\n"
    "                                                        gain; GPU time and idle causes, "
    "kernels,\n"
    "                                                        launches, stragglers, counters by "
    "phase\n"
    "  runs FILE.grademl [--filter TEXT|KEY=VALUE] [--json]\n"
    "                                                        experiments, workloads and runs with "
    "their\n"
    "                                                        kind, status, start, duration, step "
    "time,\n"
    "                                                        GPU busy, energy\n"
    "  runs FILE.grademl [--run NAME] --tag KEY=VALUE        a run's tag; network=LINK names "
    "the network\n"
    "                                                        its collectives crossed between "
    "nodes\n"
    "  compare FILE.grademl RUN_A RUN_B [RUN...] [--metric NAME] [--ranks A,B] [--iteration N] "
    "[--json]\n"
    "                                                        headline metrics side by side, a "
    "metric over\n"
    "                                                        time or step, the trace diff of RUN_A "
    "and RUN_B\n"
    "  simulate FILE.grademl (--model M | --from-run RUN) [--strategy "
    "default|ps|mirrored|multiworker]\n"
    "        [--workers N] [--servers M] [--batch B] [--cluster PRESET|FILE.json] [--sweep "
    "workers=1,2,4]\n"
    "        [--json]                                        distributed training on a simulated "
    "cluster;\n"
    "                                                        each simulated run is saved in the "
    "project\n"
    "exit status: 0 ok, 1 some source or the command failed, 2 usage error\n";

namespace {

// The lines of kUsage that describe `command` (each entry starting "  COMMAND " and the lines
// that continue it), empty for no such command: what `grademl COMMAND --help` prints.
QString commandUsage(const QString &command)
{
    QString out;
    bool in = false;
    for (const QString &line : QString::fromLatin1(kUsage).split(QLatin1Char('\n'))) {
        const bool entry =
            line.startsWith(QLatin1String("  ")) && line.size() > 2 && line[2] != QLatin1Char(' ');
        if (entry)
            in = line.mid(2).section(QLatin1Char(' '), 0, 0) == command;
        else if (!line.startsWith(QLatin1String("   ")))
            in = false;
        if (in)
            out += line + QLatin1Char('\n');
    }
    return out;
}

bool asksHelp(const QStringList &args)
{
    return args.contains(QLatin1String("--help")) || args.contains(QLatin1String("-h"));
}

} // namespace

int main(int argc, char **argv)
{
    // An import of 64 MiB or more asks glibc for huge pages: a quarter less time where the
    // kernel gives them on request only (hugepages.h). It starts again here, before anything.
    if (argc > 1 && qstrcmp(argv[1], "import") == 0)
        gml::restartWithHugePages(argc, argv, gml::kHugePagesFromBytes);
    gml::installMappedWriteGuard(
        "grademl"); // a project's -shm that cannot be written: said, not SIGBUS
    // Figures need fonts, hence a QGuiApplication; headless machines get the offscreen platform.
    const bool reporting = argc > 1 && qstrcmp(argv[1], "report") == 0;
    const bool exporting = argc > 1 && (qstrcmp(argv[1], "export") == 0 || reporting);
    if (exporting && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
        qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // The analysis, comparison and sweep charts are QCustomPlot widgets: those exports alone
    // need a QApplication.
    bool charts = reporting; // a report holds the Analysis charts
    for (int i = 2; exporting && i + 1 < argc; ++i)
        charts = charts ||
                 (qstrcmp(argv[i], "--view") == 0 &&
                  (qstrcmp(argv[i + 1], "analysis") == 0 || qstrcmp(argv[i + 1], "compare") == 0 ||
                   qstrcmp(argv[i + 1], "simulate") == 0));
    std::unique_ptr<QCoreApplication> appHolder(charts      ? new QApplication(argc, argv)
                                                : exporting ? new QGuiApplication(argc, argv)
                                                            : new QCoreApplication(argc, argv));
    QCoreApplication::setApplicationName(QStringLiteral("grademl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(GRADEML_VERSION));
    gml::cli::TerminalOut terminal(stdout); // control characters from traces shown, not obeyed
    QTextStream out(&terminal);
    QTextStream err(stderr);
    QStringList args = QCoreApplication::arguments().mid(1);
    if (args.isEmpty() || args.first() == QLatin1String("--help") ||
        args.first() == QLatin1String("help")) {
        (args.isEmpty() ? err : out) << kUsage;
        return args.isEmpty() ? gml::cli::Usage : gml::cli::Ok;
    }
    if (args.first() == QLatin1String("--version")) {
        out << "grademl " << GRADEML_VERSION << '\n';
        return 0;
    }
    const QString command = args.takeFirst();
    if (asksHelp(args)) {
        const QString usage = commandUsage(command);
        if (usage.isEmpty()) {
            err << "grademl: unknown command '" << command << "'\n" << kUsage;
            return gml::cli::Usage;
        }
        out << "usage: grademl\n" << usage;
        if (command == QLatin1String("whatif") || command == QLatin1String("validate"))
            out << gml::cli::kTransformOptionsHelp;
        out << "(man grademl; docs/cli.md)\n";
        return gml::cli::Ok;
    }
    if (command == QLatin1String("import"))
        return gml::cli::importCommand(args, out, err);
    if (command == QLatin1String("info"))
        return gml::cli::infoCommand(args, out, err);
    if (command == QLatin1String("merge"))
        return gml::cli::mergeCommand(args, out, err);
    if (command == QLatin1String("export"))
        return gml::cli::exportCommand(args, out, err);
    if (command == QLatin1String("report"))
        return gml::cli::reportCommand(args, out, err);
    if (command == QLatin1String("whatif"))
        return gml::cli::whatifCommand(args, out, err);
    if (command == QLatin1String("validate"))
        return gml::cli::validateCommand(args, out, err);
    if (command == QLatin1String("graph"))
        return gml::cli::graphCommand(args, out, err);
    if (command == QLatin1String("memory"))
        return gml::cli::memoryCommand(args, out, err);
    if (command == QLatin1String("roofline"))
        return gml::cli::rooflineCommand(args, out, err);
    if (command == QLatin1String("collectives"))
        return gml::cli::collectivesCommand(args, out, err);
    if (command == QLatin1String("note"))
        return gml::cli::noteCommand(args, out, err);
    if (command == QLatin1String("flame"))
        return gml::cli::flameCommand(args, out, err);
    if (command == QLatin1String("analyze"))
        return gml::cli::analyzeCommand(args, out, err);
    if (command == QLatin1String("align"))
        return gml::cli::alignCommand(args, out, err);
    if (command == QLatin1String("runs"))
        return gml::cli::runsCommand(args, out, err);
    if (command == QLatin1String("compare"))
        return gml::cli::compareCommand(args, out, err);
    if (command == QLatin1String("simulate"))
        return gml::cli::simulateCommand(args, out, err);
    if (command == QLatin1String("record"))
        return gml::cli::recordCommand(args, out, err);
    if (command == QLatin1String("query"))
        return gml::cli::queryCommand(args, out, err);
    err << "grademl: unknown command '" << command << "'\n" << kUsage;
    return gml::cli::Usage;
}
