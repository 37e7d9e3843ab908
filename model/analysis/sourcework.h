// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A source's work summarised (the definitions are model/store/sourcesummary.h's, which stores
// them): made once when a source is imported (the import job calls summarizeSourceInto in the
// source's own transaction, after its TraceWriter finished), read back by a run's headline
// metrics and the rank overview, and made again for a source that has none.

#include "sourcesummary.h"
#include "tracewriter.h"

#include <optional>
#include <vector>

namespace gml {

class Project;

// Reads the source's slices and flows (every chunk once) and summarises them. nullopt (and
// `error`) on a database error or a malformed chunk.
std::optional<SourceWork> summarizeSource(Project &project, SourceId source, QString *error);
// Summarises the source and stores the summary; false (and `error`) on a database error.
[[nodiscard]] bool summarizeSourceInto(Project &project, SourceId source, QString *error);
// What every writer of a source calls instead of TraceWriter::finish: the writer finished (its
// rows, flows, warnings and the source marked imported), then, when it wrote slices, the
// source summarised from them, in the same transaction. False (and `error`) when either fails.
[[nodiscard]] bool finishSource(TraceWriter &writer, const QList<ImportWarning> &warnings,
                                QString *error);

// The summaries of a run's sources that hold slices on threads or streams, by source id. A
// source without one (imported before summaries were written, by an older program, or a
// predicted run) is summarised now, and the summary kept when the project is writable.
std::optional<std::vector<RunSourceWork>> runSourceWork(Project &project, RunId run,
                                                        QString *error);

} // namespace gml
