// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importer.h"

namespace gml {

// Nsight Systems SQLite exports (`nsys export --type sqlite`), any schema version: only the
// tables and columns the export has are read (META_DATA_EXPORT first).
// - CPU: processes (PROCESSES) and OS threads (from globalTid: pid = bits 24-47, tid = bits
//   0-23; names from ThreadNames) with CUDA runtime and driver calls (cuda_runtime /
//   cuda_driver, trailing "_v7000" version suffixes dropped), NVTX push/pop ranges and marks
//   on their thread (text inline or through textId; category = NVTX domain), NVTX start/end
//   ranges on a per-process async track, CUPTI synchronization records on a per-process track.
// - GPU: one track per device (named from TARGET_INFO_GPU / TARGET_INFO_CUDA_DEVICE when the
//   export has them), one per stream; kernels (demangled name), memcpy ("Memcpy HtoD"...),
//   memset, with their launch parameters as args.
// - Links: a launch flow from each runtime/driver call to the GPU work with the same
//   correlationId in the same process.
// - Clock: times are ns since the session start; TARGET_INFO_SESSION_START_TIME.utcEpochNs is
//   the source's clock offset, so the project clock is UTC epoch ns as for Kineto traces.
class NsysSqliteImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("nsys-sqlite"); }
    Kind kind() const override { return Kind::Trace; }
    int version() const override { return 1; }
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
};

} // namespace gml
