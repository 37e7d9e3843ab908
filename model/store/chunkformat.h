// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The byte-level building blocks shared by the slice chunk codec (chunkcodec.cpp), the track
// reader and writer (slicestore.cpp) and the virtual tables (slicevtab.cpp). Internal to the
// model: the public API is slicestore.h.

#include "slicestore.h"

#include <string>

namespace gml::slicestore {

constexpr unsigned char kVersion = 2;       // slice chunks: args as records (ArgsEncoder)
constexpr unsigned char kLegacyVersion = 1; // slice chunks of schema v3: args as JSON texts
constexpr unsigned char kFlowVersion = 1;
constexpr unsigned char kArgsVersion = 1; // first byte of an args blob
// Open chunks of all tracks together hold at most this much before all are written.
constexpr size_t kMaxBuffered = 48u << 20;
// One chunk's args (tables and records) at most (a chunk is then written with fewer rows).
constexpr size_t kMaxChunkArgs = 1u << 20;

inline quint64 zigzag(qint64 v)
{
    return (quint64(v) << 1) ^ quint64(v >> 63);
}
inline qint64 unzigzag(quint64 v)
{
    return qint64(v >> 1) ^ -qint64(v & 1);
}

inline void putVarint(std::string &out, quint64 v)
{
    if (v < 0x80) { // most tags, lengths and deltas: one byte
        out.push_back(char(v));
        return;
    }
    char buf[10];
    int n = 0;
    while (v >= 0x80) {
        buf[n++] = char((v & 0x7f) | 0x80);
        v >>= 7;
    }
    buf[n++] = char(v);
    out.append(buf, size_t(n));
}
// Nullable integer: 0 is null, else zigzag + 1 (kNull itself is never a value).
inline void putOptional(std::string &out, qint64 v)
{
    putVarint(out, v == kNull ? 0 : zigzag(v) + 1);
}

inline bool getVarint(const unsigned char *&p, const unsigned char *e, quint64 &v)
{
    v = 0;
    for (int shift = 0; shift < 64 && p < e; shift += 7) {
        const unsigned char b = *p++;
        v |= quint64(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}
inline bool getOptional(const unsigned char *&p, const unsigned char *e, qint64 &v)
{
    quint64 x;
    if (!getVarint(p, e, x))
        return false;
    v = x == 0 ? kNull : unzigzag(x - 1);
    return true;
}

// How an args record stores each value.
enum ArgKind : quint64 { ArgInt = 0, ArgTable = 1, ArgInline = 2, ArgRaw = 3 };
// Values up to this long go into the chunk's value table (repeated arrays, strings, floats).
constexpr size_t kMaxTableValue = 64;
constexpr size_t kMaxTableValues = 1u << 16;

// One decoded flow (the gml_flow table's row).
struct FlowRow
{
    qint64 id, source, kind, from, to;
};

// Appends a flow chunk's rows that pass `keep` to `out`. False when the blob is malformed.
template <typename Keep>
bool decodeFlows(qint64 chunk, qint64 source, const void *data, qint64 size,
                 std::vector<FlowRow> &out, Keep keep)
{
    auto p = static_cast<const unsigned char *>(data);
    const unsigned char *e = p + size;
    if (size < 1 || *p++ != kFlowVersion)
        return false;
    quint64 prev = 0;
    for (qint64 row = 0; p < e; ++row) {
        quint64 from, to, kind;
        if (row >= kChunkRows || !getVarint(p, e, from) || !getVarint(p, e, to) ||
            !getVarint(p, e, kind))
            return false;
        prev += quint64(unzigzag(from));
        const FlowRow r{(chunk << kChunkRowBits) | row, source, qint64(kind), qint64(prev),
                        qint64(prev + quint64(unzigzag(to)))};
        if (keep(r))
            out.push_back(r);
    }
    return true;
}

} // namespace gml::slicestore
