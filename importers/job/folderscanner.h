// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace gml {

class Importer;

struct ScannedFile
{
    QString path;    // absolute, clean
    QString runName; // the run the file goes into
    // The run is named after the file's folder (no run given, not an MLflow run): the folder's
    // traces may still be split into runs of one workload after import (rungrouping.h).
    bool runFromFolder = false;
    const Importer *importer = nullptr; // null: skipped
    QString skipReason;
    qint64 size = 0;
    // IANA id from the nearest grademl.json ({"timezone": "Europe/Paris"}) in the file's folder
    // or a parent folder up to the scanned input; empty when none says.
    QString timeZone;
    // The nearest grademl.json up to the scanned input that declares a workflow; empty: none.
    QString workflowFile;
    // The experiment and workload the nearest grademl.json that names a workload puts the
    // file's run in ({"experiment": "resnet sweep", "workload": "resnet50 bs64"}); empty: none.
    QString experiment;
    QString workload;
};

// The settings file a trace folder may carry; the scanner reads it and never imports it.
inline constexpr char kFolderSettingsFile[] = "grademl.json";
// A grademl.json larger than this is refused unread (a settings file is a few KB; the limits
// of a workflow declaration keep a real one far below it).
inline constexpr qint64 kMaxSettingsBytes = qint64(16) << 20;

// Walks files and folders (recursively; hidden entries and project files are left out),
// recognises each file's format by its content (gzip is looked through), and assigns runs:
// `runOverride` when given, else one run per folder of traces, named after the folder
// relative to the input (so the eight ranks of one job, kept in one folder, form one run).
// Paths that do not exist are reported in *errors; unreadable or invalid grademl.json files too.
// What a grademl.json declares that is ignored with the rest of it still read (a run name that
// is not a string, an experiment without a workload) goes to *warnings when given, else to
// *errors.
QList<ScannedFile> scanInputs(const QStringList &inputs, const QString &runOverride,
                              QStringList *errors, QStringList *warnings = nullptr);

// A scan written out and read back: `grademl import --plan` writes the files a sharded import
// reads, with everything the scan settled for each (its run, time zone, workflow file,
// experiment and workload, format), in path order; each shard task reads its part from it
// (--from-plan) instead of scanning the whole input again (docs/cluster.md). Files without an
// importer are left out. readPlan fails (with why) on malformed JSON or an unknown format.
QByteArray writePlan(const QList<ScannedFile> &files);
std::optional<QList<ScannedFile>> readPlan(const QByteArray &json, QString *error);

// A project file or its SQLite companions (.grademl, -wal, -shm, -journal): never scanned.
bool isProjectFile(const QString &name);

// The importer that reads this file best, or null with the reason in *reason.
const Importer *sniffFile(const QString &path, QString *reason);

} // namespace gml
