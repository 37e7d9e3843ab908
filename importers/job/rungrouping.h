// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "folderscanner.h"
#include "types.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

namespace gml {

class Project;

// Which traces of one folder are the ranks of one run. The scanner puts a folder's files into
// one run; after import, its traces (Kineto/Chrome JSON, Nsight exports) stay together only
// where they say they belong to one job:
//   - their distributed info: the same world size and different ranks (and clocks not hours
//     apart), or
//   - their host clock: absolute timestamps (epoch) whose spans overlap: recorded at the same
//     time, so processes of one job.
// Anything else (an H100 trace and an MI300X trace of one model placed side by side, two
// rank-less captures of different days) becomes separate runs, named "<folder run>/<file
// stem>", of one workload named after the folder. Monitoring logs of the folder join the run
// whose span they overlap most (they stay in the folder's run when they overlap none).
// What earlier imports put in the same-named run (and the runs split from it) is grouped with
// the new files by the same rules: a file of another folder of that name, captured on another
// host or GPU or days later, becomes a run of its own instead of stretching the old one over
// days; the earlier sources keep their run and its name.
// Execution traces link themselves to the run holding their process (ImportJob relinks them).
struct RunGrouping
{
    QString folderRun;   // the scanner's run name for the folder
    QStringList runs;    // the runs its files are in now
    QStringList reasons; // why, one line per decision ("ranks 0-7 of world size 8", ...)
};

struct RegroupResult
{
    QList<RunGrouping> groupings;  // folders with two or more traces
    QHash<QString, QString> moved; // path -> the run its source moved to
    QSet<QString> touchedRuns;     // runs that gained or lost a source
    QSet<RunId> leftRuns;          // runs a source left (dropped when empty)
    QStringList errors;
};

// Regroups the folders of `files` that had a file imported in this job (runFromFolder files
// only; a run the user named keeps everything). One transaction; on failure nothing moves.
RegroupResult regroupFolderRuns(Project &project, const QList<ScannedFile> &files,
                                const QSet<QString> &changedRuns);

// One line per folder: "folder 'x': 2 runs of workload 'x' (h100, mi300x): traces without
// distributed info whose clocks do not overlap".
QStringList describeGroupings(const QList<RunGrouping> &groupings);

} // namespace gml
