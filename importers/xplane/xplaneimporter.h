// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importer.h"

namespace gml {

// TensorFlow 2 / JAX / XLA profiler captures: `<host>.xplane.pb`, an XSpace protobuf (the
// fields read are in proto/xplane.proto). Laid out as TensorBoard's trace viewer lays out the
// `<host>.trace.json.gz` it converts from the same XSpace:
// - a plane ("/host:CPU", "/device:GPU:0", ...) is a process row (a GPU row for devices), "NAME
//   (pid PID)" with pid 501 for the host threads and 1 + N for "/device:…:N", as the trace
//   viewer numbers them (the JSON's rows are named so too);
// - a line is a thread row under it, named by its display name, else its name, else
//   "thread ID" (lines of one plane with the same id are one row). On a device, lines that
//   TensorFlow derives ("Steps", "XLA Modules", "XLA Ops", "TensorFlow Ops", "TensorFlow Name
//   Scope", ... and ids from 0xdeadbeef) are thread rows and the others GPU streams;
// - an event is a slice named by its metadata's display name, else its name (then the full
//   name is the arg "long_name"), at line timestamp_ns + offset_ps, picoseconds rounded down
//   to ns. Stats are its args (the metadata's stats, then the event's), except the
//   producer/consumer context stats (_pt/_p, _ct/_c), which become flows from the producer to
//   each consumer of the same context, and binary values. Aggregated events (num_occurrences,
//   no time) are counted, not drawn.
// Categories: "tf_op" for TensorFlow ops ("scope/name:Type"), "kernel", "gpu_memcpy" and
// "gpu_memset" on GPU streams, "cuda_runtime"/"cuda_driver" for CUPTI API events, which link
// to the GPU work with the same correlation_id; derived lines name theirs ("xla_op",
// "xla_module", "tf_op", "tf_name_scope", "step", ...). Other host events have none, as in
// the trace viewer's JSON.
// A cut or corrupted file is an error naming the byte where the encoding breaks
// (protowire::check). When a folder has both files of a capture, the scanner reads the
// xplane and skips the JSON, saying why (folderscanner.cpp).
class XPlaneImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("tensorflow-xplane"); }
    int version() const override { return 1; }
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
};

} // namespace gml
