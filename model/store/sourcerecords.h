// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The rows of `source` as the import job keeps them: a file an importer takes gets a row marked
// 'failed' that TraceWriter::finish turns into 'imported' in the same transaction; its hash,
// error, path and user clock override change later; a followed log keeps where it stopped in
// its metadata ('$.tail'). Inside the caller's transaction unless said otherwise. Project.h has
// the rest (sourceByPath, deleteSource).

#include "types.h"

#include <QList>
#include <QString>

#include <optional>
#include <unordered_map>
#include <utility>

namespace gml {

class Project;

// A new source row of status 'failed' (format, size, mtime, hash, importer version and error
// given); its id, 0 on error (*error set).
struct NewSource
{
    RunId run = 0;
    QString path;
    QString format;
    qint64 size = 0;
    qint64 mtimeNs = 0;
    QString hash;
    int importerVersion = 0;
    QString error;
};
SourceId insertFailedSource(Project &project, const NewSource &source, QString *error);
// A row for a file that was found and not imported (format 'unknown', status 'skipped').
[[nodiscard]] bool insertSkippedSource(Project &project, RunId run, const QString &path,
                                       qint64 size, qint64 mtimeNs, const QString &reason,
                                       QString *error);
// A source row of `format` with no file facts (a side project's, a prediction's, a simulation's),
// status 'failed' until its writer finishes.
SourceId insertSideSource(Project &side, RunId run, const QString &path, const QString &format,
                          QString *error);

[[nodiscard]] bool setSourceError(Project &project, SourceId source, const QString &text,
                                  QString *error);
[[nodiscard]] bool setSourceHash(Project &project, SourceId source, const QString &hash,
                                 QString *error);
[[nodiscard]] bool setSourcePath(Project &project, SourceId source, const QString &path,
                                 QString *error);
// A source found again under another path (a folder moved, renamed or copied with its
// project): its path and mtime are the new file's.
[[nodiscard]] bool relinkSource(Project &project, SourceId source, const QString &path,
                                qint64 mtimeNs, QString *error);
// Whether any source's file had `size` bytes (before a file's hash is read to look for copies).
bool anySourceOfSize(Project &project, qint64 size);
// The imported sources of `format` whose file had `size` bytes and the content hash `hash`
// (source.hash): the sources a file may be a copy of. Found by index (schema 15).
QList<SourceRecord> importedSourcesOfSize(Project &project, qint64 size, const QString &format,
                                          const QString &hash);
// The user's clock override, applied at once (align_user_ns and align_ns).
[[nodiscard]] bool setSourceUserOffset(Project &project, SourceId source, TimeNs offset,
                                       QString *error);

// What a source's last import wrote, and with what (for "unchanged" and a log read in parts).
struct ImportedSource
{
    int importerVersion = 0;
    qint64 slices = 0, counterSamples = 0, flows = 0;
    QString metadata;                // the JSON object as stored
    std::optional<QString> timeZone; // '$.time_zone': the zone a log was read in
};
std::optional<ImportedSource> importedSource(Project &project, SourceId source);

// A followed log read up to `offset`: its size, mtime and hash, and its tail state (a JSON
// object, '$.tail' of the metadata).
[[nodiscard]] bool setSourceTail(Project &project, SourceId source, qint64 size, qint64 mtimeNs,
                                 const QString &hash, const QString &tailJson, QString *error);
// Where each followed log stopped: path, '$.tail.offset' and '$.tail.line', by path.
struct SourceTail
{
    QString path;
    qint64 offset = 0;
    qint64 line = 0;
};
QList<SourceTail> sourceTails(Project &project);
// '$.tail.offset' of the source at `path`; nullopt when it is not a followed log.
std::optional<qint64> tailOffsetOf(Project &project, const QString &path);

// The sources of `run` whose path is `path`, or ends in "/" + `path`.
QList<SourceId> sourcesMatchingPath(Project &project, RunId run, const QString &path);
// Every source of `run` and its path.
std::unordered_map<SourceId, QString> sourcePaths(Project &project, RunId run);
// The sources of `run` (0: of every run) that failed to import: path and error, by path.
QList<std::pair<QString, QString>> failedSources(Project &project, RunId run);

// The imported sources in import order, with their run and what the execution-trace linker
// remembers ('$.matched_operators', '$.pid'), for files linked to other sources' slices.
struct LinkedSource
{
    QString path, format, run;
    std::optional<qint64> matchedOperators, pid;
};
QList<LinkedSource> importedSourcesWithRuns(Project &project);
// Whether run `runName` has a track of process `pid`.
bool runHasProcess(Project &project, const QString &runName, qint64 pid);

} // namespace gml
