// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <unordered_map>
#include <vector>

namespace gml {

// The open chunks of the chunk writers (slices: slicestore.h, counter samples:
// counterstore.h), one per track in the order the tracks were first written to. The track
// asked for last is found without a lookup: an importer writes a track's events in runs. A
// reference from of() holds until the next call of it. `Open` has a `track`.
template <typename Open> class OpenByTrack
{
public:
    Open &of(TrackId track)
    {
        if (track == m_lastTrack)
            return m_open[m_last];
        auto [it, added] = m_index.try_emplace(track, m_open.size());
        if (added) {
            m_open.emplace_back();
            m_open.back().track = track;
        }
        m_lastTrack = track;
        m_last = it->second;
        return m_open[m_last];
    }
    auto begin() { return m_open.begin(); }
    auto end() { return m_open.end(); }

private:
    std::vector<Open> m_open;
    std::unordered_map<TrackId, size_t> m_index; // track -> its place in m_open
    TrackId m_lastTrack = -1;
    size_t m_last = 0;
};

} // namespace gml
