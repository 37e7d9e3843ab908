// SPDX-License-Identifier: GPL-3.0-or-later
#include "hugepages.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <unistd.h>

namespace gml {

std::optional<std::string> hugePageTunables(const char *current, std::string_view thpEnabled)
{
    const std::string_view now = current ? current : "";
    if (now.find("glibc.malloc.hugetlb") != std::string_view::npos)
        return std::nullopt; // the user's choice, or the restarted process
    if (thpEnabled.find("[madvise]") == std::string_view::npos)
        return std::nullopt; // [always]: every mapping gets them already; [never]: none can
    std::string out(now);
    if (!out.empty())
        out += ':';
    return out + "glibc.malloc.hugetlb=1";
}

void restartWithHugePages(char **argv)
{
#if defined(__GLIBC__) && defined(__linux__)
    std::FILE *f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return;
    char mode[128] = {};
    const size_t n = std::fread(mode, 1, sizeof mode - 1, f);
    std::fclose(f);
    const char *tunables = std::getenv("GLIBC_TUNABLES");
    const auto after = hugePageTunables(tunables, std::string_view(mode, n));
    if (!after)
        return;
    const std::string before = tunables ? tunables : "";
    if (setenv("GLIBC_TUNABLES", after->c_str(), 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    if (tunables) // the exec failed: go on as started
        setenv("GLIBC_TUNABLES", before.c_str(), 1);
    else
        unsetenv("GLIBC_TUNABLES");
#else
    (void)argv;
#endif
}

} // namespace gml
