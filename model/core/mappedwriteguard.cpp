// SPDX-License-Identifier: GPL-3.0-or-later
#include "mappedwriteguard.h"

#include <csignal>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace gml {

namespace {

char g_program[64] = "grademl";

void put(const char *text)
{
    size_t left = std::strlen(text);
    while (left > 0) {
        const ssize_t n = ::write(STDERR_FILENO, text, left);
        if (n <= 0)
            return;
        text += n;
        left -= size_t(n);
    }
}

uintptr_t hexValue(const char *&p)
{
    uintptr_t v = 0;
    for (;; ++p) {
        const char c = *p;
        if (c >= '0' && c <= '9')
            v = v * 16 + uintptr_t(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v * 16 + uintptr_t(c - 'a' + 10);
        else
            return v;
    }
}

// The file mapped at `address`, from /proc/self/maps, into `out` (empty when none is).
void mappedFileAt(uintptr_t address, char *out, size_t size)
{
    out[0] = '\0';
    const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    static char line[4096];
    size_t used = 0;
    char chunk[4096];
    bool done = false;
    while (!done) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n && !done; ++i) {
            if (chunk[i] != '\n') {
                if (used + 1 < sizeof line)
                    line[used++] = chunk[i];
                continue;
            }
            line[used] = '\0';
            used = 0;
            // start-end perms offset dev inode   path
            const char *p = line;
            const uintptr_t from = hexValue(p);
            if (*p++ != '-')
                continue;
            const uintptr_t to = hexValue(p);
            if (address < from || address >= to)
                continue;
            const char *path = std::strchr(line, '/');
            if (path) {
                std::strncpy(out, path, size - 1);
                out[size - 1] = '\0';
            }
            done = true;
        }
    }
    ::close(fd);
}

void onBusError(int, siginfo_t *info, void *)
{
    static char file[1024];
    mappedFileAt(reinterpret_cast<uintptr_t>(info ? info->si_addr : nullptr), file, sizeof file);
    put("\n");
    put(g_program);
    put(": I/O error: a write to ");
    put(file[0] ? file : "a memory-mapped file");
    put(" failed (bus error): the file or its disk refused it (full, read-only or immutable, or "
        "gone). ");
    if (file[0] && std::strstr(file, ".grademl"))
        put("The project keeps its last completed commit; what was being written is not in it. ");
    put("Make the file and its folder writable (and the disk not full), then run the command "
        "again.\n");
    ::_exit(1);
}

} // namespace

void installMappedWriteGuard(const char *program)
{
    std::strncpy(g_program, program, sizeof g_program - 1);
    g_program[sizeof g_program - 1] = '\0';
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_sigaction = onBusError;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, nullptr);
}

} // namespace gml
