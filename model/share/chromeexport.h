// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A run written out as a Chrome trace (the JSON that Perfetto, chrome://tracing and GradeML's
// own importer open): any run, measured, predicted or simulated (issue 59).
//
// What is written, on the run's clock: `baseTimeNanoseconds` is the run's start on the project
// clock and every `ts` counts microseconds from it, written as exact decimals (three digits for
// the nanoseconds), so a viewer shows the run from 0 and a re-import places each slice where it
// was. Each process or GPU row is a pid (its own pid where it is a number no other row of the
// run took, else a fresh one), named by `process_name` with its rank; each row of slices under
// it a tid named by `thread_name`; sort indices keep the studio's order. Slices are complete
// events (ph X) with their category and args as stored; rows of async ranges are b/e pairs;
// counters are C events (one series, "value", so each keeps its name); flows are s/f pairs bound to
// their slices (a launch flow carries the runtime call's correlation id and the category ac2g, as
// Kineto writes it, so that a re-import does not link it twice; flows a re-import derives from the
// slices' own ids are left out); notes are global instant events (ph i, scope g) in the category
// `grademl.note`.

#include "types.h"

#include <QString>

#include <functional>
#include <optional>

namespace gml {

class Project;

struct ChromeExportResult
{
    qint64 slices = 0, counterSamples = 0, flows = 0, notes = 0;
    qint64 bytes = 0; // written (compressed when gzip)
};

// Writes run `run` of `project` to `path` (gzip when it ends in .gz), atomically: the file
// appears whole or not at all. `progress` (0..1) returns false to cancel. nullopt (and *error)
// on failure or cancel.
std::optional<ChromeExportResult> exportChromeTrace(Project &project, RunId run,
                                                    const QString &path,
                                                    const std::function<bool(double)> &progress,
                                                    QString *error);

} // namespace gml
