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
            m_last = &m_chunks[chunk];
            m_lastChunk = chunk;
        }
        // A chunk's slots grow with the rows it has (doubling), not to kChunkRows at once: a
        // capture of 200,000 tracks of one slice each would otherwise take 3 GB of slots.
        const size_t row = size_t(id & (slicestore::kChunkRows - 1));
        if (row >= m_last->size())
            m_last->resize(std::min<size_t>(slicestore::kChunkRows,
                                            std::max<size_t>(row + 1, 2 * m_last->size())),
                           kNone);
        (*m_last)[row] = value;
    }
    int get(SliceId id) const
    {
        const auto it = m_chunks.find(id >> slicestore::kChunkRowBits);
        const size_t row = size_t(id & (slicestore::kChunkRows - 1));
        return it == m_chunks.end() || row >= it->second.size() ? kNone : it->second[row];
    }
    int node(SliceId id) const { return std::max(get(id), -1); }
    int container(SliceId id) const
    {
        const int v = get(id);
        return v <= -2 ? -2 - v : -1;
    }
    static constexpr int kNone = -1;

private:
    std::unordered_map<qint64, std::vector<int>> m_chunks; // references stay valid on insert
    std::vector<int> *m_last = nullptr;
    qint64 m_lastChunk = -1;
};

struct DependencyGraph::BuildReading
{
    SliceMap sliceMap;
    std::unordered_map<SliceId, int>
        markerResource;                            // Kineto's cuda_sync markers -> stream resource
    std::unordered_map<SourceId, TimeNs> offsetOf; // a source's clock offset and alignment
    std::unordered_map<SliceId, qint64> bytesOf;   // a copy's "bytes" argument
    struct Comms
    {
        SliceId slice; // a record_param_comms op
        qint64 bytes;  // its message
    };
    std::vector<Comms> comms;
};

} // namespace gml::sim
