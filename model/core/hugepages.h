// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// An import spends much of its time in page faults, one for each 4 KiB page of the buffers it
// fills, where the kernel gives transparent huge pages only to memory that asks for them
// (/sys/kernel/mm/transparent_hugepage/enabled reads "[madvise]", as on Debian's and many
// cloud kernels). glibc asks for them when the tunable glibc.malloc.hugetlb=1 is set, and a
// tunable is read only when a program starts: a running process cannot turn it on. So a
// program that is about to import starts itself again with it set. On this project's 2-core
// VM a 256 MB trace imported 1.23x faster, ResNet-50's 1.1x, a 1 GB trace 1.27x, for 2-15 MB
// more peak memory (docs/benchmarks.md, "Huge pages for imports").
#include <optional>
#include <string>
#include <string_view>

namespace gml {

// What GLIBC_TUNABLES becomes on a restart, from its value now (null: not set) and the text of
// /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never"); nullopt: no restart.
std::optional<std::string> hugePageTunables(const char *current, std::string_view thpEnabled);

// Replaces the process with itself (/proc/self/exe, the same `argv`) with
// glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, when the kernel gives huge pages on request
// only and GLIBC_TUNABLES does not already say what to do with them (so a user's
// glibc.malloc.hugetlb=0 is kept, and the restarted process does not restart again). Returns
// when it does not restart (another kernel setting, not glibc, or the exec failed, in which
// case GLIBC_TUNABLES is as it was). Call first in main, before any thread is started.
void restartWithHugePages(char **argv);

} // namespace gml
