// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicelod.h"

#include "chunkformat.h"
#include "nesting.h"
#include "runsort.h"

#include <algorithm>

namespace gml::lod {

namespace {

constexpr unsigned char kPieceVersion = 1;

// The next coarser level, in place: per depth and bucket of 2^shift ns, the longest entry
// starting there (the first of equals). `entries` are grouped by depth, each depth in start
// order, and so is the result: one linear pass, no sort. In place because an entry is written
// at or before the first entry of its own bucket, after every entry before that was read: a
// vector a level, as large as the track, was a third of a 1 GB import's page faults.
void coarsen(std::vector<Entry> &entries, int shift)
{
    size_t kept = 0, best = 0;
    for (size_t i = 1; i <= entries.size(); ++i) {
        const bool same = i < entries.size() && entries[i].depth == entries[best].depth &&
                          (entries[i].start >> shift) ==
                              (entries[best].start >> shift); // arithmetic: floor before 1970
        if (same) {
            if (entries[i].duration > entries[best].duration)
                best = i;
            continue;
        }
        if (!entries.empty())
            entries[kept++] = entries[best];
        best = i;
    }
    entries.resize(kept);
}

} // namespace

std::vector<Level> buildLevels(std::vector<Entry> entries)
{
    std::vector<Level> levels;
    if (entries.size() < kMinSlices)
        return levels;
    const size_t keepBelow = entries.size() / 4;
    for (int shift = kMinShift; shift < 62; ++shift) {
        coarsen(entries, shift);
        const bool smaller = levels.empty() || entries.size() < levels.back().entries.size();
        if (entries.size() <= keepBelow && smaller)
            levels.push_back({shift, entries});
        if (!levels.empty() && entries.size() <= kCoarsestEntries)
            break;
    }
    return levels;
}

void encodePiece(const Entry *begin, const Entry *end, std::string &out)
{
    using namespace slicestore;
    out.clear();
    out.push_back(char(kPieceVersion));
    TimeNs prevStart = 0;
    SliceId prevId = 0;
    for (const Entry *e = begin; e != end; ++e) {
        putVarint(out, zigzag(e->start - prevStart));
        putVarint(out, quint64(std::max<TimeNs>(0, e->duration)));
        putVarint(out, e->depth);
        putVarint(out, quint64(std::max<StringId>(0, e->name)));
        putVarint(out, zigzag(e->id - prevId));
        prevStart = e->start;
        prevId = e->id;
    }
}

bool decodePiece(std::string_view data, std::vector<Entry> &out)
{
    using namespace slicestore;
    auto p = reinterpret_cast<const unsigned char *>(data.data());
    const unsigned char *e = p + data.size();
    if (data.empty() || *p++ != kPieceVersion)
        return false;
    quint64 start = 0, id = 0; // unsigned: a malformed delta wraps instead of overflowing
    for (size_t n = 0; p < e; ++n) {
        quint64 ds, dur, depth, name, did;
        if (n >= kPieceEntries || !getVarint(p, e, ds) || !getVarint(p, e, dur) ||
            !getVarint(p, e, depth) || !getVarint(p, e, name) || !getVarint(p, e, did) ||
            depth > 0xffff || name > quint64(INT32_MAX) || dur > quint64(INT64_MAX))
            return false;
        start += quint64(unzigzag(ds));
        id += quint64(unzigzag(did));
        const TimeNs s = TimeNs(start), d = TimeNs(dur);
        if (s > INT64_MAX - d)
            return false;
        out.push_back({s, d, SliceId(id), StringId(name), uint16_t(depth)});
    }
    return true;
}

bool summarizeTrack(SqliteDb &db, TrackId track, QString *error, size_t expected)
{
    std::vector<Entry> slices;
    slices.reserve(expected);
    {
        slicestore::TrackReader reader(db);
        if (!reader.read(track, false, [&](const slicestore::Row &r) {
                slices.push_back({r.ts, std::max<TimeNs>(0, r.dur), r.id, StringId(r.name), 0});
            })) {
            if (error)
                *error =
                    QStringLiteral("summarising track %1: %2").arg(track).arg(reader.errorString());
            return false;
        }
    }
    // Chunks are each in canonical order but may overlap one another (rows that arrived out
    // of order, a parent written after its children): their runs merged, then nested, then
    // grouped by depth for buildLevels. A sort of the whole track was 5% of a 256 MB import.
    const auto canonical = [](const Entry &a, const Entry &b) {
        if (a.start != b.start)
            return a.start < b.start;
        if (a.duration != b.duration)
            return a.duration > b.duration;
        return a.id < b.id;
    };
    sortNearlySorted(slices, canonical);
    Nesting nesting;
    int maxDepth = -1;
    for (Entry &e : slices) {
        TimeNs end = e.start + e.duration;
        e.depth = nesting.push(e.start, end);
        e.duration = end - e.start; // clipped to its parent's end (nesting.h)
        maxDepth = std::max(maxDepth, int(e.depth));
    }
    { // grouped by depth, keeping start order: a counting scatter (no comparison sort)
        std::vector<size_t> at(size_t(maxDepth) + 2, 0);
        for (const Entry &e : slices)
            ++at[size_t(e.depth) + 1];
        for (size_t d = 1; d < at.size(); ++d)
            at[d] += at[d - 1];
        std::vector<Entry> grouped(slices.size());
        for (const Entry &e : slices)
            grouped[at[e.depth]++] = e;
        slices = std::move(grouped);
    }
    const std::vector<Level> levels = buildLevels(std::move(slices));
    auto fail = [&](const SqliteStatement &st) {
        if (error)
            *error = QStringLiteral("summarising track %1: %2").arg(track).arg(st.errorString());
        return false;
    };
    auto clear = db.prepare("DELETE FROM slice_lod WHERE track_id = ?");
    clear.bind(1, track);
    if (!clear.exec())
        return fail(clear);
    auto put = db.prepare(
        "INSERT INTO slice_lod(track_id, shift, count, min_ts, max_end, data) VALUES(?,?,?,?,?,?)");
    std::string blob;
    for (const Level &level : levels) {
        // Pieces of one depth each (so each is in start order), of at most kPieceEntries.
        for (size_t i = 0; i < level.entries.size();) {
            const Entry *b = level.entries.data() + i;
            const Entry *e = b + 1;
            while (e != b + std::min(kPieceEntries, level.entries.size() - i) &&
                   e->depth == b->depth)
                ++e;
            i += size_t(e - b);
            TimeNs maxEnd = b->start;
            for (const Entry *x = b; x != e; ++x)
                maxEnd = std::max(maxEnd, x->start + x->duration);
            encodePiece(b, e, blob);
            put.bind(1, track);
            put.bind(2, qint64(level.shift));
            put.bind(3, qint64(e - b));
            put.bind(4, b->start);
            put.bind(5, maxEnd);
            put.bindBlob(6, blob);
            if (!put.exec())
                return fail(put);
        }
    }
    auto depth = db.prepare("UPDATE track SET max_depth = ? WHERE id = ?");
    depth.bind(1, qint64(maxDepth));
    depth.bind(2, track);
    if (!depth.exec())
        return fail(depth);
    return true;
}

bool summarizeAll(SqliteDb &db, QString *error, const std::function<bool(int, int)> &progress)
{
    std::vector<TrackId> tracks;
    {
        auto st = db.prepare(
            "SELECT id FROM track WHERE max_depth IS NULL AND slice_count > 0 ORDER BY id");
        while (st.step())
            tracks.push_back(st.int64(0));
        if (!st.errorString().isEmpty()) {
            if (error)
                *error = st.errorString();
            return false;
        }
    }
    for (size_t i = 0; i < tracks.size(); ++i) {
        if (progress && !progress(int(i), int(tracks.size()))) {
            if (error)
                *error = QStringLiteral("cancelled");
            return false;
        }
        if (!summarizeTrack(db, tracks[i], error))
            return false;
    }
    return true;
}

Stored stored(const SqliteDb &db, TrackId track)
{
    Stored s;
    {
        auto st = db.prepare("SELECT max_depth FROM track WHERE id = ?");
        st.bind(1, track);
        if (!st.step() || st.isNull(0))
            return s;
        s.summarised = true;
        s.maxDepth = int(st.int64(0));
    }
    auto st = db.prepare("SELECT DISTINCT shift FROM slice_lod WHERE track_id = ? ORDER BY shift");
    st.bind(1, track);
    while (st.step())
        s.shifts.push_back(int(st.int64(0)));
    return s;
}

bool readLevel(const SqliteDb &db, TrackId track, int shift, TimeNs t0, TimeNs t1,
               std::vector<Entry> &out, QString *error)
{
    auto st = db.prepare(
        "SELECT id, data FROM slice_lod WHERE track_id = ?1 AND shift = ?2 AND min_ts < ?3 "
        "AND max_end >= ?4 ORDER BY min_ts, id");
    st.bind(1, track);
    st.bind(2, qint64(shift));
    st.bind(3, t1);
    st.bind(4, t0);
    std::vector<Entry> piece;
    while (st.step()) {
        piece.clear();
        if (!decodePiece(st.blobView(1), piece)) {
            if (error)
                *error = QStringLiteral("summary piece %1 of track %2 is malformed")
                             .arg(st.int64(0))
                             .arg(track);
            return false;
        }
        for (const Entry &e : piece)
            if (inWindow(e.start, e.duration, t0, t1))
                out.push_back(e);
    }
    if (!st.errorString().isEmpty()) {
        if (error)
            *error = st.errorString();
        return false;
    }
    return true;
}

} // namespace gml::lod
