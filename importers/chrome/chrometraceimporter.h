// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importer.h"

namespace gml {

// Chrome Trace Event Format, with the PyTorch profiler (Kineto) and TensorFlow profiler
// conventions: GPU pids and stream tids, correlation and External id links, distributedInfo
// and deviceProperties, baseTimeNanoseconds, the 2021 and legacy layouts.
class ChromeTraceImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("chrome-trace"); }
    Kind kind() const override { return Kind::Trace; }
    int version() const override { return 1; }
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
};

} // namespace gml
