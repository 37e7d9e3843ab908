// SPDX-License-Identifier: GPL-3.0-or-later
// grademl record --out DIR [--interval 100ms] [--name RUN] -- COMMAND ARGS...
#include "clicommands.h"
#include "recorder.h"
#include "safetext.h"

namespace gml::cli {

namespace {

const char kRecordUsage[] =
    "usage: grademl record --out DIR [--interval 100ms] [--name RUN] [--nvidia-smi PATH|none] "
    "[--dcgmi PATH|none]\n"
    "                      -- COMMAND [ARGS...]\n"
    "  runs COMMAND and samples, every --interval (default 100ms), CPU per core and in total,\n"
    "  memory, disk and network I/O of the host and CPU, memory and disk I/O of each process of\n"
    "  the command's tree into DIR/grademl-samples.csv; the GPUs through nvidia-smi and dcgmi "
    "when\n"
    "  they are installed (DIR/nvidia-smi.csv, DIR/dcgmi-dmon.txt); DIR/grademl.json says what\n"
    "  ran, where, when, how it ended and what the recorder cost. Open DIR in grademl-studio or\n"
    "  `grademl import DIR`. The exit status is the command's (128 + N when signal N ended it).\n";

} // namespace

int recordCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const qsizetype dashes = args.indexOf(QStringLiteral("--"));
    const QStringList own = dashes < 0 ? args : args.mid(0, dashes);
    const QStringList command = dashes < 0 ? QStringList() : args.mid(dashes + 1);
    const Parsed p =
        parse(own,
              {QStringLiteral("out"), QStringLiteral("interval"), QStringLiteral("name"),
               QStringLiteral("nvidia-smi"), QStringLiteral("dcgmi")},
              {});
    auto usage = [&](const QString &why) {
        err << "grademl record: " << why << '\n' << kRecordUsage;
        return int(Usage);
    };
    if (!p.error.isEmpty())
        return usage(p.error);
    if (!p.positional.isEmpty())
        return usage(
            QStringLiteral("unexpected '%1': put the command after --").arg(p.positional.first()));
    if (command.isEmpty())
        return usage(QStringLiteral("no command: grademl record --out DIR -- COMMAND ARGS..."));
    rec::Options o;
    o.outDir = p.options.value(QStringLiteral("out"));
    if (o.outDir.isEmpty())
        return usage(QStringLiteral("need --out DIR"));
    if (p.options.contains(QStringLiteral("interval"))) {
        o.intervalNs = rec::parseInterval(p.options.value(QStringLiteral("interval")));
        if (o.intervalNs < 10'000'000 || o.intervalNs > 3'600'000'000'000)
            return usage(
                QStringLiteral(
                    "--interval is a duration from 10ms to 1h, such as 100ms or 1s; got '%1'")
                    .arg(safeText(p.options.value(QStringLiteral("interval")))));
    }
    o.runName = p.options.value(QStringLiteral("name"));
    o.nvidiaSmi = p.options.value(QStringLiteral("nvidia-smi"));
    o.dcgmi = p.options.value(QStringLiteral("dcgmi"));
    o.command = command;
    return rec::record(o, out, err);
}

} // namespace gml::cli
