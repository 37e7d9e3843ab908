// SPDX-License-Identifier: GPL-3.0-or-later
#include "importids.h"

#include "sqlitedb.h"

#include <algorithm>

namespace gml {

ImportIds::ImportIds(const SqliteDb &db)
{
    auto st = db.prepare("SELECT id, value FROM string");
    while (st.step()) {
        m_strings.emplace(std::string(st.textView(1)), st.int64(0));
        m_maxString = std::max(m_maxString, st.int64(0));
    }
    m_nextChunk = db.scalar("SELECT coalesce(max(id), 0) + 1 FROM slice_chunk", 1);
}

StringId ImportIds::intern(std::string_view text)
{
    std::lock_guard lock(m_mutex);
    auto it = m_strings.find(text);
    if (it != m_strings.end())
        return it->second;
    const StringId id = ++m_maxString;
    m_strings.emplace(std::string(text), id);
    return id;
}

} // namespace gml
