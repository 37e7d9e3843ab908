// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importer.h"

#include <QHash>

namespace gml {

// MLflow file stores: mlruns/<experiment id>/<run id>/{meta.yaml, metrics/, params/, tags/}.
// A run's meta.yaml is the source; its metrics, params and tags files are read with it (and
// skipped by the scanner with that reason). The experiment (mlruns/<id>/meta.yaml) becomes the
// project's experiment and workload record, the run is linked to it; params and tags are kept
// as the run's params ("mlflow.params", "mlflow.tags") and the meta fields as "mlflow.*".
// Metrics are counter tracks ("<key>", one sample per logged point at its epoch ms) under a
// track for the run, which holds one slice from start_time to end_time (an unfinished run,
// end_time null, ends at its last metric point). The scanner puts the run's meta.yaml and its
// artifacts that are traces (a TensorFlow profiler *.trace.json.gz) into the project run
// mlflowProjectRunName() names.
class MlflowRunImporter final : public Importer
{
public:
    QString format() const override { return QStringLiteral("mlflow-run"); }
    int version() const override { return 2; } // 2: metric points keep their step
    SniffResult sniff(const QString &path, const QByteArray &head) const override;
    ImportOutcome import(ImportContext &context) const override;
    bool grows() const override { return true; } // its metrics, while the run lives
    QString fingerprint(const QString &path) const override;
    // It writes the experiment and workload records of the project itself.
    bool importsAside() const override { return false; }
};

// "key: value" lines of a flat YAML mapping, quotes removed, "null" / "~" as a null string.
QHash<QString, QString> readFlatYaml(const QByteArray &text);

// For a file inside an MLflow run folder (meta.yaml, metrics, artifacts...): the folder of that
// run, else empty. Looks up to eight folders up.
QString mlflowRunFolder(const QString &path);

// For a metrics/params/tags file of the MLflow run in `runFolder` (from mlflowRunFolder): why
// the scanner skips it (it is read with the run's meta.yaml); else empty.
QString mlflowRunDataReason(const QString &path, const QString &runFolder);

// The project run an MLflow run folder becomes: "mlflow/<experiment name>/<run name or id>".
QString mlflowProjectRunName(const QString &runFolder);

} // namespace gml
