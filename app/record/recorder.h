// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QTextStream>

#include <cstdint>

namespace gml::rec {

// grademl record: runs a command and samples, for its whole process tree and the host, what
// /proc says (Linux), plus the GPUs through nvidia-smi and dcgmi when they are installed,
// into a trace folder the importers read:
//   grademl-samples.csv  this recorder's own format (importers/recorder/samplesimporter.h): CPU per
//                        core and in total, memory, disk and network I/O of the host; CPU,
//                        resident memory and disk I/O per process of the command's tree
//   nvidia-smi.csv       nvidia-smi --query-gpu ... --format=csv -lms INTERVAL
//   dcgmi-dmon.txt       dcgmi dmon -e ... -d INTERVAL
//   grademl.json         the command, host, start and end, time zone, exit status, the tools
//                        run or skipped and the recorder's own overhead; "run" names the run
// Files are flushed at every sample, so a crash of the command (or of the recorder) leaves a
// folder that opens. The command's exit status passes through (128 + N when signal N ended
// it); SIGINT, SIGTERM and SIGHUP sent to the recorder go to the command (a Ctrl-C at the
// terminal reaches both), and the files are completed once it has exited.
struct Options
{
    QString outDir;
    std::int64_t intervalNs = 100'000'000;
    QString runName;     // empty: the folder's name
    QStringList command; // program and arguments
    // The GPU tools, found on PATH when empty; "none" skips one.
    QString nvidiaSmi, dcgmi;
};

// The recorder's exit status: the command's (see above), or 2 when it could not start.
int record(const Options &options, QTextStream &out, QTextStream &err);

// "100ms", "0.5s", "1s", "250" (ms): the interval in ns, or -1.
std::int64_t parseInterval(const QString &text);

} // namespace gml::rec
