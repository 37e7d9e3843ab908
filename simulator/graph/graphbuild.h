// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to DependencyGraph::build: what reading a run's slices (graphread.cpp) leaves for
// adding the edges (dependencygraph.cpp).

#include "dependencygraph.h"
#include "slicestore.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace gml::sim {

// Slice id -> graph node (>= 0) or container (-2 - index): dense per chunk (a slice id is its
// chunk's id and its row in it), so millions of lookups cost an index and not a hash probe.
class SliceMap
{
public:
    void set(SliceId id, int value)
    {
        const qint64 chunk = id >> slicestore::kChunkRowBits;
        if (chunk != m_lastChunk) {
            auto [it, fresh] = m_base.try_emplace(chunk, m_slots.size());
            if (fresh)
                m_slots.resize(m_slots.size() + slicestore::kChunkRows, kNone);
            m_lastChunk = chunk;
            m_lastBase = it->second;
        }
        m_slots[m_lastBase + size_t(id & (slicestore::kChunkRows - 1))] = value;
    }
    int get(SliceId id) const
    {
        const auto it = m_base.find(id >> slicestore::kChunkRowBits);
        return it == m_base.end() ? kNone : m_slots[it->second + size_t(id & (slicestore::kChunkRows - 1))];
    }
    int node(SliceId id) const { return std::max(get(id), -1); }
    int container(SliceId id) const
    {
        const int v = get(id);
        return v <= -2 ? -2 - v : -1;
    }
    static constexpr int kNone = -1;

private:
    std::unordered_map<qint64, size_t> m_base;
    std::vector<int> m_slots;
    qint64 m_lastChunk = -1;
    size_t m_lastBase = 0;
};

struct DependencyGraph::BuildReading
{
    SliceMap sliceMap;
    std::unordered_map<SliceId, int> markerResource;  // Kineto's cuda_sync markers -> stream resource
    std::unordered_map<SourceId, TimeNs> offsetOf;    // a source's clock offset and alignment
    std::unordered_map<SliceId, qint64> bytesOf;      // a copy's "bytes" argument
    struct Comms
    {
        SliceId slice; // a record_param_comms op
        qint64 bytes;  // its message
    };
    std::vector<Comms> comms;
};

} // namespace gml::sim
