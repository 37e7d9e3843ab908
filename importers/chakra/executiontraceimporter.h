// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importer.h"

namespace gml {

// PyTorch execution traces (ExecutionTraceObserver JSON): schema 1.0.1 (flat node fields) and
// the later layout with `attrs` (1.0.2-chakra...). The raw material of the dataflow graph: data
// edges between the run's CPU operator slices.
// - Operators are the nodes at the level where they run on a thread: nodes whose parent is not
//   itself an operator (annotations "## ... ##", "[param|...]" record_function scopes (scope
//   7) and the thread root are not operators).
// - A tensor is (tensor id, storage id) of a value [tensor_id, storage_id, offset, numel,
//   itemsize, device] (lists of tensors too). In rf_id order, an operator that takes a tensor
//   gets a data edge from the last operator that output it.
// - Operators are matched to the run's cpu_op slices of the same pid (the ET's pid is the
//   Kineto CPU pid) by rf_id == the slice's "Record function id" arg when the trace has that
//   arg, else == its External id. Edges whose ends are not both matched are counted, not
//   stored; the counts are in the source's warnings and metadata.
// The file links to slices of other sources, so the scanner imports it after the run's traces,
// and it is read again whenever another file of its run is.
class ExecutionTraceImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("pytorch-execution-trace"); }
    // 2: operators matched by name (by id, else by order); joins the run of its process
    int version() const override { return 2; }
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
    bool linksToRun() const override { return true; }
};

} // namespace gml
