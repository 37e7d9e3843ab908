// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "openbytrack.h"
#include "sqlitedb.h"
#include "types.h"

#include <QString>

#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace gml {

// Counter samples are stored in chunks (schema v16), as slices are (slicestore.h): one
// `counter_chunk` row holds up to kChunkRows samples of one track, in time order (samples added
// at one time keep the order they were added in), with the chunk's first and last time beside
// the blob so that a read of a time range skips the chunks outside it. A row per sample cost
// about 5,000 instructions in SQLite, a third of them the (track_id, ts) index (issue 74: a
// 1 GB trace with memory events writes a million samples); a chunk is one insert.
//
// The `counter` virtual table (module gml_counter, registered on every project connection)
// reads the chunks back as the rows of the table it replaced: track_id, ts, value, step. A
// track's rows come in (ts, rowid) order, as the index gave them, and a sample's rowid is its
// chunk's id shifted left by kChunkRowBits plus its place in the chunk.
//
// The blob: a format byte (kFormat), a flags byte (bit 0: the chunk has steps), the count
// (varint), then each sample's time as the zigzag varint of its difference from the one
// before (the first from 0), its value (an integer below 2^53 as the zigzag varint of its
// difference from the previous integer value, shifted left once; any other value as the
// varint 1 and its 8 bytes), and, with steps, the step (0 for none, else zigzag + 1).
namespace counterstore {

inline constexpr int kChunkRowBits = 12;
inline constexpr int kChunkRows = 1 << kChunkRowBits;
inline constexpr unsigned char kFormat = 1;
inline constexpr qint64 kNoStep = std::numeric_limits<qint64>::min();
// Samples held in open chunks of all tracks together before all are written (48 MB).
inline constexpr size_t kMaxBuffered = size_t(2) << 20;

struct Sample
{
    TimeNs ts = 0;
    double value = 0;
    qint64 step = kNoStep; // the step an MLflow metric was logged at; kNoStep for none
};

// `samples` (at most kChunkRows) encoded as a chunk's blob, in the order given.
void encode(std::span<const Sample> samples, std::string &out);
// Appends chunk blob `data`'s samples to `out`. False, with `out` as it was, when the blob is
// malformed (a wrong format byte, a count above kChunkRows, a varint cut short, bytes left).
[[nodiscard]] bool decode(std::string_view data, std::vector<Sample> &out);

// Writes counter samples into `counter_chunk`: each track's samples are kept until kChunkRows
// of them are held (or kMaxBuffered of all tracks), then sorted by time (ties in the order
// added) and written as one chunk. flush() writes the rest.
class ChunkWriter
{
public:
    explicit ChunkWriter(SqliteDb &db);

    // Each track's samples go into its last chunk already stored when that ends no later than
    // they start and holds, with them, at most a quarter of kChunkRows (a followed log read a
    // poll at a time: not a chunk a poll).
    void appendToStoredChunks() { m_append = true; }

    void add(TrackId track, TimeNs ts, double value, qint64 step = kNoStep);
    // Writes every open chunk. False (and errorString()) when an insert failed.
    [[nodiscard]] bool flush();
    QString errorString() const { return m_error; }

private:
    struct Open
    {
        TrackId track = 0;
        std::vector<Sample> samples;
    };
    void write(Open &o);
    bool appendToLast(Open &o); // appendToStoredChunks(): true when `o` went there
    // `samples` encoded into m_data and decoded again: a chunk that would not read back is
    // never stored (as slicestore::ChunkWriter). False, and the error set, when it would not.
    bool encodeChecked(const std::vector<Sample> &samples, TrackId track);

    SqliteDb &m_db;
    SqliteStatement m_insert;
    SqliteStatement m_last, m_update; // appendToStoredChunks()
    bool m_append = false;
    OpenByTrack<Open> m_open;
    size_t m_buffered = 0; // samples held in open chunks
    std::string m_data;
    std::vector<Sample> m_check;  // a written chunk, decoded again
    std::vector<Sample> m_merged; // appendToLast(): the stored chunk's samples and the new ones
    QString m_error;
};

// Registers the gml_counter module on `db`.
[[nodiscard]] bool registerModule(sqlite3 *db, QString *error);

// Schema v16: the rows of the `counter` table it replaces, chunked in the order they were
// inserted (so the same (ts, rowid) order), then the table replaced by the virtual table.
[[nodiscard]] bool migrateRows(SqliteDb &db, QString *error);

} // namespace counterstore
} // namespace gml
