// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a slice's name and category say about it, decided in one place for everything that
// reads traces as work: the execution model (simulator/graph), the analyses and the summaries
// written at import (sourcesummary.h).

#include "kerneltaxonomy.h"
#include "types.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace gml {

// The operation a collective kernel name carries (AllReduce, ...), or -1 when the name is not
// an NCCL/RCCL kernel. Index into collectiveOperations().
int collectiveOperation(const QString &kernelName);
const QStringList &collectiveOperations();

// A frame or range name as it stays from one process to the next, for matching call paths
// across runs (validate, the trace diff, Compare, the flame graph diff): Python object
// addresses ("<built-in method add of Tensor object at 0x7f72a8c0>") and source line numbers
// ("torch/nn/modules/module.py(1501): _call_impl") are left out; module, function and op
// names are kept.
QString stableName(const QString &name);

// A PyTorch profiler step range: "ProfilerStep#N".
bool isProfilerStep(const QString &name);

// A range that is one iteration of the training loop: "ProfilerStep#N", or "iteration 3",
// "step_12", "epoch:2" and the like (case-insensitive). The one definition the execution model,
// what-if and validation share.
bool isIterationName(const QString &name);

// What a slice's category says.
enum class CategoryClass : uint8_t {
    Other,
    Sync,    // Kineto's cuda_sync markers: not work
    Trace,   // the profiler's own span (category Trace): the capture window, not work
    Memcpy,  // gpu_memcpy, Memcpy
    Memset,  // gpu_memset, Memset
    Runtime, // CUDA/HIP runtime and driver calls
};
CategoryClass categoryClass(const QString &category);

// What a slice's name says.
struct NameClass
{
    bool profilerSpan = false; // "PyTorch Profiler (0)": the capture window
    bool memcpy = false;
    bool memset = false;
    int collective = -1; // collectiveOperation()
};
NameClass nameClass(const QString &name);

// What a leaf slice of a GPU stream is.
enum class GpuWork : uint8_t { Kernel, Collective, Memcpy, Memset };
inline GpuWork gpuWork(CategoryClass cat, const NameClass &name)
{
    return cat == CategoryClass::Memcpy || name.memcpy   ? GpuWork::Memcpy
           : cat == CategoryClass::Memset || name.memset ? GpuWork::Memset
           : name.collective >= 0                        ? GpuWork::Collective
                                                         : GpuWork::Kernel;
}

// What a slice is at a glance, for colouring a figure by class (the timeline's "colour by
// class" and its legend): from its name and whether it ran on a GPU.
enum class SliceRole : uint8_t { Compute, Communication, Copy, CpuOp, Python, Annotation };
constexpr int kSliceRoles = 6;
SliceRole sliceRole(const QString &name, bool onGpu);
// "compute", "communication", "copy", "CPU op", "Python", "annotation".
QString sliceRoleName(SliceRole role);

// A Python frame in which its thread blocks: threading's `wait`, `time.sleep`, a lock's
// `acquire`, `select`/`poll`, a queue's `get`, `join`, a socket's `recv`/`accept`
// ("threading.py(359): wait", "<built-in method acquire of _thread.lock object at 0x..>").
// A thread whose innermost frames are all such waits does nothing the profiler can see.
bool isWaitFrame(const QString &name);

// A range the profiler draws on the GPU timeline (gpu_user_annotation): it spans the gaps
// between its kernels, so it is not busy time.
bool isGpuAnnotationCategory(const QString &category);

// What a kernel is (family, compute- or memory-bound, precision, library): kerneltaxonomy.h.

// One slice of a track as the nesting below reads it.
struct NestRow
{
    SliceId id;
    TimeNs start;
    TimeNs end;
    StringId name;
    StringId cat;
    bool leaf = true;
};
// The order slices nest in: by start, the longer first, then by id.
inline bool nestsBefore(const NestRow &a, const NestRow &b)
{
    return a.start != b.start ? a.start < b.start : a.end != b.end ? a.end > b.end : a.id < b.id;
}
// Sorts rows read chunk by chunk in nesting order (sortRuns, runsort.h): `descents` are the
// indices where a row sorts before the one read before it.
void sortNestRows(std::vector<NestRow> &rows, const std::vector<size_t> &descents);
// The name and category ids of `rows` not marked in `seen` (by id) yet: marked now and
// appended to `out`, so each string is read once (ids are small and dense).
void unseenStrings(const std::vector<NestRow> &rows, std::vector<char> &seen,
                   std::vector<StringId> &out);
// Nesting of sorted rows: a slice inside the one below it on the stack is its child. Sets
// `parent` (index, -1: none) and clears `leaf` of every row that has a child.
void nestRows(std::vector<NestRow> &rows, std::vector<int> &parent);

} // namespace gml
