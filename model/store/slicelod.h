// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sqlitedb.h"
#include "types.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <vector>

namespace gml::lod {

// Level-of-detail summaries of a slice track (issue 34), written when a source is imported so
// that a viewport over millions of slices reads a few thousand: for each power-of-two bucket
// width 2^shift ns and each nesting depth, the longest slice that starts in each bucket (as
// Perfetto's mipmaps). A level drawn at one bucket or more per pixel paints what the whole
// track would: every pixel holding a slice gets one, coloured by the longest there.
//
// Stored in `slice_lod` (schema v7), each level in pieces of up to kPieceEntries entries of one
// depth in start order with their extent, so a window reads only the pieces it overlaps. Times are
// on the source's clock, as the chunks' (re-aligning a source rewrites nothing). track.max_depth is
// set with them: NULL means the track has not been summarised (a project written before v7 and
// opened read-only), and readers fall back to the chunks.
struct Entry
{
    TimeNs start = 0;
    TimeNs duration = 0;
    SliceId id = 0;
    StringId name = 0;
    uint16_t depth = 0;
};

inline constexpr int kMinShift = 10;             // the finest bucket considered: 1,024 ns
inline constexpr size_t kMinSlices = 16384;      // tracks with fewer slices are read whole
inline constexpr size_t kCoarsestEntries = 1024; // no level is made coarser than this
inline constexpr size_t kPieceEntries = 4096;

struct Level
{
    int shift = 0;
    std::vector<Entry> entries; // grouped by depth, each depth in start order
};

// The levels of a track whose slices are given grouped by depth, each depth in start order
// (as nesting leaves them): each level at most a quarter of the slices, finest first, each coarser
// one strictly smaller, the last at most kCoarsestEntries (or a single bucket per depth).
// None for fewer than kMinSlices slices. `slices` is made into the levels in place (a caller
// that keeps them passes a copy).
std::vector<Level> buildLevels(std::vector<Entry> slices);

// Reads `track`'s slices from its chunks, computes its levels and depth, and stores them
// (replacing any). Inside the caller's transaction. `expected`: how many slices it has, when
// the caller knows (the memory for them is taken once).
[[nodiscard]] bool summarizeTrack(SqliteDb &db, TrackId track, QString *error, size_t expected = 0);
// The same for every slice track not summarised yet (the v7 migration), calling
// progress(tracks done, tracks) before each; false from it stops with *error "cancelled".
[[nodiscard]] bool summarizeAll(SqliteDb &db, QString *error,
                                const std::function<bool(int, int)> &progress = {});

// What is stored for a track: its levels' shifts, finest first, and whether it was summarised.
struct Stored
{
    bool summarised = false;
    int maxDepth = -1;
    std::vector<int> shifts;
};
Stored stored(const SqliteDb &db, TrackId track);

// Appends the entries of `track`'s level `shift` overlapping [t0, t1) (source clock), piece by
// piece (each piece one depth in start order). False (and *error) on a database error or a
// malformed piece.
[[nodiscard]] bool readLevel(const SqliteDb &db, TrackId track, int shift, TimeNs t0, TimeNs t1,
                             std::vector<Entry> &out, QString *error);

// Piece codec (exposed for the fuzzer and tests).
void encodePiece(const Entry *begin, const Entry *end, std::string &out);
[[nodiscard]] bool decodePiece(std::string_view data, std::vector<Entry> &out);

} // namespace gml::lod
