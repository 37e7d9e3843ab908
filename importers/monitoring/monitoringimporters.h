// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importer.h"

#include <optional>

namespace gml {

// GPU and host monitoring logs. Each metric becomes a counter track, with its unit, under a
// device track: "GPU <index> · <name>" (kind Gpu, pid = the device index, tid = "monitor") or
// "host · top" (kind Host). Devices are told apart by the index column, else by uuid or PCI
// bus id, else by their position in each sample: a sample ends where a device repeats, where
// the timestamps of two rows are 100 ms or more apart (nvidia-smi writes all GPUs of a sample in
// one pass of a few ms), or, with no timestamps, after one period of the (name, memory.total)
// sequence.
//
// Time placement. Local timestamps are converted with ImportContext::timeZone. Logs without
// absolute times (dcgmi dmon, nvidia-smi without a timestamp column, dmon without -o DT) are
// placed by this rule, and their tracks say "(time estimated)":
//   1. the first sample is at the first timestamp of a sibling log in the same folder that has
//      absolute times (an nvidia-smi --query-gpu CSV with a timestamp column, or dmon -o DT);
//   2. else the last sample is at the file's modification time;
//   and samples follow each other at the tool's default period (1 s for dcgmi dmon and
//   nvidia-smi dmon, 1 s for nvidia-smi -l 1).
// top -b prints only the time of day: the date is the one that puts the first block nearest the
// first time of a sibling log with absolute times, else the last block's date is the modification
// date; a time of day earlier than the previous block's starts the next day.

// nvidia-smi --query-gpu=... --format=csv[,nounits][,noheader is not supported: no names]
// A log with an index (or uuid, or bus id) column, as `nvidia-smi -l` writes for hours, is
// read in parts when followed (logtail.cpp); one without its samples' times is placed as
// dcgmi dmon's are (monitorlog.h: SamplePlacement).
class NvidiaSmiCsvImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("nvidia-smi-csv"); }
    Kind kind() const override { return Kind::Monitor; }
    int version() const override { return 1; }
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
    bool tails() const override { return true; }
    std::optional<QByteArray> tailPrelude(QByteArrayView prelude,
                                          QByteArrayView lines) const override;
};

// nvidia-smi dmon [-o DT] [-s ...]
class NvidiaSmiDmonImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("nvidia-smi-dmon"); }
    Kind kind() const override { return Kind::Monitor; }
    int version() const override { return 1; }
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
    // A followed log is read in parts (logtail.cpp); without -o DT its samples are placed as
    // dcgmi dmon's are (monitorlog.h: SamplePlacement).
    bool tails() const override { return true; }
    std::optional<QByteArray> tailPrelude(QByteArrayView prelude,
                                          QByteArrayView lines) const override;
    bool grows() const override { return true; }
};

// dcgmi dmon -e ... (fixed-width columns, header and units repeated, N/A, no timestamps).
// A followed log is read in parts (logtail.cpp), its samples numbered and placed across the
// parts (monitorlog.h: SamplePlacement).
class DcgmiDmonImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("dcgmi-dmon"); }
    Kind kind() const override { return Kind::Monitor; }
    int version() const override { return 1; }
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
    bool tails() const override { return true; }
    std::optional<QByteArray> tailPrelude(QByteArrayView prelude,
                                          QByteArrayView lines) const override;
};

// top -b batch output: load, tasks, CPU split, memory and swap, and the busiest processes.
// A followed log is read in parts (logtail.cpp), a block at a time.
class TopBatchImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("top-batch"); }
    Kind kind() const override { return Kind::Monitor; }
    int version() const override { return 2; } // 2: process tracks by two blocks in a row
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
    bool tails() const override { return true; }
    std::optional<QByteArray> tailPrelude(QByteArrayView prelude,
                                          QByteArrayView lines) const override;
};

// The first absolute time (project clock, ns) found in a log with absolute timestamps in the
// same folder as `path` (other than `path` itself), and that log's file name.
struct TimeAnchor
{
    TimeNs start = 0;
    QString from;
};
std::optional<TimeAnchor> siblingTimeAnchor(const QString &path, const QTimeZone &zone);

} // namespace gml
