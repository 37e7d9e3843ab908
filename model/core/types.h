// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QtGlobal>

// Vocabulary shared by every layer. Times are qint64 nanoseconds; ranges are half-open.
namespace gml {

using TimeNs = qint64;
using RunId = qint64;
using SourceId = qint64;
using TrackId = qint64;
using SliceId = qint64;
using StringId = qint64;

// The what-if panel's prediction, held in memory beside the run it predicts (never stored):
// its run and track ids are above every project id.
inline constexpr RunId kLivePredictionRun = RunId(1) << 40;

// Values are stored in the project file: never renumber, only append.
enum class TrackKind : int {
    Host = 1,
    Process = 2,
    Thread = 3,
    Gpu = 4,
    Stream = 5,
    Counter = 6,
    Link = 7,
    WorkflowStep = 8,
    Async = 9,
};

// A process's main thread, by the ids a trace gives it: tid = pid, but no process has pid 0
// (Kineto files Python threads it cannot place, such as a tqdm monitor, under pid 0, tid 0).
inline bool isMainThreadId(QStringView pid, QStringView tid)
{
    return tid == pid && pid != u"0";
}

// Values are stored in the project file: never renumber, only append.
enum class FlowKind : int {
    Launch = 1,     // runtime call -> the GPU work it launched (by correlation id)
    Sync = 2,       // GPU -> CPU synchronisation
    Sequence = 3,   // program order links written by the tracer (e.g. forward -> backward)
    Collective = 4, // the same collective across ranks
    Data = 5,       // producer op -> consumer op of a tensor
    Workflow = 6,   // workflow step -> step
    CpuOpToGpu = 7, // CPU operator -> GPU work it caused (by External id)
    TraceFlow = 8,  // any other flow event (s/t/f) of the trace
};

QString trackKindName(TrackKind kind);
QString flowKindName(FlowKind kind);

} // namespace gml
