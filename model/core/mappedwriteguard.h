// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// SQLite keeps a project's wal-index (the -shm file) memory-mapped, and writes to it on every
// commit. When that file can no longer be written (its disk full, made immutable, its medium
// gone), the write faults with SIGBUS, which ended the program with "Bus error" and nothing
// else (issue 56). installMappedWriteGuard turns it into an I/O error that names the file and
// says what is kept, then exits with status 1: the project itself keeps its last completed
// commit (the fault happens before the commit is complete). The handler only uses
// async-signal-safe calls (open, read, write, _exit).
namespace gml {

// `program` is the prefix of the message ("grademl", "grademl-studio"); call once, early.
void installMappedWriteGuard(const char *program);

} // namespace gml
