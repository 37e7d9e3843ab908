// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "importids.h"
#include "project.h"
#include "types.h"

#include <QString>

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gml {

// Importing the files of a folder on every core (issue 34). SQLite lets one connection write a
// project at a time, so each file is imported on its own thread into a side project (a
// temporary .grademl of its own), and the importing thread copies each side project's source
// into the project in one transaction, as a source imported directly would be. To make that
// copy a plain row copy (no chunk decoded again), the side projects and the project hand out
// slice-chunk ids and string ids from one ImportIds while the job runs: a slice id, a flow's
// ends, a summary entry and an interned name mean the same thing in every one of them. Track
// ids are each side project's own (1, 2, ...) and are offset by the copy.
// Copies source `from` of the project attached as "side" (attachSide) into `into` as source
// `to` of run `run` (a row the caller inserted): its strings, tracks (ids offset past the
// project's), slice chunks, summaries, counters and flows, then its counts, offset, metadata
// and warnings, and the run params it merged (TraceWriter::mergeRunParams). Inside the caller's
// transaction. False (and `error`) on failure; *conflict is set when the side project's ids
// are no longer free in the project (another program imported into it meanwhile): the file
// must then be imported again directly.
[[nodiscard]] bool copySideSource(Project &into, SourceId from, RunId run, SourceId to,
                                  bool *conflict, QString *error);

// ATTACH / DETACH of a side project file as "side" (outside any transaction).
[[nodiscard]] bool attachSide(Project &into, const QString &path, QString *error);
void detachSide(Project &into);

} // namespace gml
