// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importer.h"

namespace gml {

// grademl-samples.csv, what `grademl record` writes (app/recorder.h). Text, one record a line:
//   grademl-samples 1                         the first line: the format and its version
//   host,NAME                                 the host the samples were taken on
//   series,ID,ENTITY,METRIC,UNIT              declares series ID before its first value
//   TIME_NS,ID,VALUE                          a value of series ID at TIME_NS (ns since the
//                                             Unix epoch, UTC)
// ENTITY is "host", "cpuN" (core N), "command" (the recorded command's whole process tree) or
// "process PID NAME"; names never hold commas. Rates (MB/s, %) cover the interval since the
// series' previous value.
//
// Imported as counter tracks: a "host · NAME (recorded)" row holding the host's and each
// core's series, a "command (process tree)" row, and a row per process ("NAME (pid PID)"),
// all under the run. The recorder flushes after every sample, so a last line cut short (the
// recorder killed mid-write) is left out with a warning; anything else malformed is an error
// naming its line and byte offset.
class SamplesImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("grademl-samples"); }
    int version() const override { return 1; }
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
    // The recorder appends whole lines: a followed file is read in parts.
    bool tails() const override { return true; }
    std::optional<QByteArray> tailPrelude(QByteArrayView prelude,
                                          QByteArrayView lines) const override;
};

} // namespace gml
