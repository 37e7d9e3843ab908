// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The ids an import job hands out while it runs (sideproject.h): slice-chunk ids and string ids
// shared by the project and every side project, so a row copied from a side project keeps its
// meaning.

#include "types.h"

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gml {

class SqliteDb;

class ImportIds
{
public:
    // Starts after the project's own chunk and string ids; knows the project's strings.
    explicit ImportIds(const SqliteDb &project);

    // The id of `text`, a new one when no project of the job has it yet. Thread-safe.
    StringId intern(std::string_view text);
    // A new slice-chunk id. Thread-safe.
    qint64 nextChunk() { return m_nextChunk.fetch_add(1, std::memory_order_relaxed); }

private:
    struct Hash
    {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::mutex m_mutex;
    std::unordered_map<std::string, StringId, Hash, std::equal_to<>> m_strings;
    StringId m_maxString = 0;
    std::atomic<qint64> m_nextChunk{1};
};

} // namespace gml
