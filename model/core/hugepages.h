// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// An import spends much of its time in page faults, one for each 4 KiB page of the buffers it
// fills, where the kernel gives transparent huge pages only to memory that asks for them
// (/sys/kernel/mm/transparent_hugepage/enabled reads "[madvise]"). glibc asks for them when
// the tunable glibc.malloc.hugetlb=1 is set, and a tunable is read only when a program starts:
// a running process cannot turn it on. So a program that is about to import enough to gain
// starts itself again with it set. On this project's 2-core VM a 256 MB trace imported 1.31x
// faster and a 1 GB trace 1.33x, for 10-12 MB more peak memory; the exec itself costs about
// 40 ms (the program's libraries loaded again), about what huge pages save on a 35 MB trace
// (docs/benchmarks.md, "Huge pages and freed memory for every import").
#include <optional>
#include <string>
#include <string_view>

namespace gml {

// What GLIBC_TUNABLES becomes on a restart, from its value now (null: not set) and the text of
// /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never"); nullopt: no restart.
std::optional<std::string> hugePageTunables(const char *current, std::string_view thpEnabled);

// An import of less than this (as read) does not start again: it would not gain the exec's cost.
inline constexpr unsigned long long kHugePagesFromBytes = 64ull << 20;

// The bytes a file of `size` bytes named `name` expands to while read: a gzip file (".gz")
// about eight times its size. The import's budgets (sideimport.h) and the restart below.
unsigned long long bytesAsRead(std::string_view name, unsigned long long size);

// What the paths among `args` hold, as read (bytesAsRead): a file's size, a folder's files
// summed, walking no further once `enough` is reached. The argument after "--project" is not
// counted (the project, not an input); arguments that name nothing, and files whose size cannot
// be read (removed meanwhile, a dangling link), count 0.
unsigned long long inputBytes(int argc, char **argv, unsigned long long enough);

// Replaces the process with itself (/proc/self/exe, the same `argv`) with
// glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, when the kernel gives huge pages on request
// only, GLIBC_TUNABLES does not already say what to do with them (so a user's
// glibc.malloc.hugetlb=0 is kept, and the restarted process does not restart again), and the
// inputs among `argv` hold `fromBytes` or more (inputBytes; 0: whatever they hold). The
// inputs are counted last, only when the rest would restart. Returns when it does not restart
// (another kernel setting, not glibc, too little input, or the exec failed, in which case
// GLIBC_TUNABLES is as it was). Call first in main, before any thread is started.
void restartWithHugePages(int argc, char **argv, unsigned long long fromBytes);

} // namespace gml
