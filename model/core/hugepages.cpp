// SPDX-License-Identifier: GPL-3.0-or-later
#include "hugepages.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

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

unsigned long long bytesAsRead(std::string_view name, unsigned long long size)
{
    return name.size() >= 3 && name.substr(name.size() - 3) == ".gz" ? size * 8 : size;
}

unsigned long long inputBytes(int argc, char **argv, unsigned long long enough)
{
    namespace fs = std::filesystem;
    unsigned long long total = 0;
    // A size read with an error (the file removed since it was listed) counts nothing: on
    // error file_size returns uintmax_t(-1). Such an entry does not stop the folder's walk.
    const auto add = [&](const fs::path &path, std::uintmax_t size, const std::error_code &ec) {
        if (!ec)
            total += bytesAsRead(path.native(), size);
    };
    for (int i = 1; i < argc && total < enough; ++i) {
        if (std::strcmp(argv[i], "--project") == 0) {
            ++i;
            continue;
        }
        std::error_code ec;
        const fs::path path(argv[i]);
        const fs::file_status status = fs::status(path, ec);
        if (ec)
            continue;
        if (fs::is_regular_file(status)) {
            const std::uintmax_t size = fs::file_size(path, ec);
            add(path, size, ec);
            continue;
        }
        if (!fs::is_directory(status))
            continue;
        for (auto it = fs::recursive_directory_iterator(
                 path, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator() && total < enough; it.increment(ec)) {
            std::error_code entry;
            if (it->is_regular_file(entry) && !entry) {
                const std::uintmax_t size = it->file_size(entry);
                add(it->path(), size, entry);
            }
        }
    }
    return total;
}

void restartWithHugePages(int argc, char **argv, unsigned long long fromBytes)
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
    if (!after || (fromBytes > 0 && inputBytes(argc, argv, fromBytes) < fromBytes))
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
    (void)argc;
    (void)argv;
    (void)fromBytes;
#endif
}

} // namespace gml
