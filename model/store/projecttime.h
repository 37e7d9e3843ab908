// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Project time. Rows keep the time of the file they came from; a source's offset puts them on
// the project clock:
//   project time = source time + source.clock_offset_ns + source.align_ns
// clock_offset_ns is the importer's (the file's own clock anchor), align_ns the clock
// alignment's (clockalignment.h) or the user's override. This is the one place that says so:
// the store's SQL writes the offset as kSourceOffsetSql, and everything else asks for offsets.

#include "types.h"

#include <QString>

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gml {

class Project;

// The offset of the source row aliased `src` in a statement (SQL text).
#define GML_SOURCE_OFFSET_SQL(src) "(" src ".clock_offset_ns + " src ".align_ns)"
inline constexpr const char kSourceOffsetSql[] = GML_SOURCE_OFFSET_SQL("source");

// The offset of each source of `run` (all sources when `run` is 0).
std::unordered_map<SourceId, TimeNs> sourceOffsets(Project &project, RunId run,
                                                   QString *error = nullptr);
// The offset of one source; 0 when there is no such source.
TimeNs sourceOffset(Project &project, SourceId source);
// The imported sources of `run` with their offsets, by id.
std::vector<std::pair<SourceId, TimeNs>> importedSourceOffsets(Project &project, RunId run,
                                                               QString *error = nullptr);
// The offset of the source imported from `path`; nullopt when there is none.
std::optional<TimeNs> sourceOffsetOfPath(Project &project, const QString &path);
// The path and offset of a source of `run` with tracks of `rank` (the first found).
std::optional<std::pair<QString, TimeNs>> rankSourceOffset(Project &project, RunId run, int rank);

} // namespace gml
