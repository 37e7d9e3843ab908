// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importer.h"

namespace gml {

// Chakra execution traces (`*.et`, MLCommons Chakra's protobuf; the fields read are in
// proto/chakra_et.proto): varint length-prefixed messages, a GlobalMetadata (schema, pid,
// time; absent in the oldest files) and then one Node per operator, GPU kernel or collective,
// with its control and data dependencies and duration. Read as the JSON execution traces are
// (executiontraceimporter.h): the CPU operators are linked to the cpu_op slices of process
// `pid` in the run (by rf_id, else by order and name; the converter's "(N)" suffix is left
// out of names), and each data dependency between two linked operators becomes a Data flow. A
// dependency on a GPU node counts as one on the operator that launched it (the GPU node's
// CPU data dependency). Control dependencies between two linked operators become Sequence
// flows. Node counts by type, CPU/GPU/communication time and the collectives (type, count,
// bytes) are in the source's metadata.
// A length that runs past the end (a cut file) or a corrupted message is an error naming the
// message and the byte where its encoding breaks.
class ChakraTraceImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("chakra-execution-trace"); }
    int version() const override { return 1; }
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
    bool linksToRun() const override { return true; }
};

} // namespace gml
