// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "openbytrack.h"
#include "sliceclass.h"
#include "sqlitedb.h"
#include "types.h"

#include <QString>

#include <array>
#include <functional>

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct sqlite3;

namespace gml {

// Slices are stored in chunks (schema v3): one `slice_chunk` row holds up to kChunkRows slices
// of one track, encoded as varints in (ts, dur descending) order, with their args in a second
// blob (records over the chunk's tables of keys and values since v4, ArgsEncoder). A slice's id is
// its chunk's id shifted left by kChunkRowBits, plus its row number in the chunk, so ids are handed
// out before a chunk is written and a slice is found by id with one lookup. The `slice` virtual
// table (module gml_slice, registered on every project connection) decodes chunks back into rows,
// so SQL over `slice` reads as it did with one row per slice. Writing rows one by one cost more
// than parsing the JSON (issue 2); a chunk is one insert for thousands of slices.
namespace slicestore {

inline constexpr int kChunkRowBits = 12;
inline constexpr int kChunkRows = 1 << kChunkRowBits;
inline constexpr qint64 kNull = std::numeric_limits<qint64>::min();

struct Row
{
    TimeNs ts = 0;
    TimeNs dur = 0;
    qint64 name = 0;
    qint64 cat = 0; // 0: none
    qint64 correlation = kNull;
    qint64 externalId = kNull;
    size_t argsOffset = 0; // of the row's args record, in the records that go with the rows
    quint32 argsSize = 0;
    quint32 argsChunk = 0; // which chunk's ArgsTables decode the record (a reader's index)
    bool hasArgs = false;
    SliceId id = 0; // chunk << kChunkRowBits | row number in the chunk
};

// A chunk's args (chunk format 2) are records, one per slice with args, after two tables: the
// chunk's distinct keys and its repeated short values, each kept once. A record is a list of
// members, each a varint tag (key index << 2 | kind) and then by kind: 0 an integer (zigzag
// varint), 1 an index into the value table, 2 a value inline (varint length, JSON text); kind 3
// (key 0) means the rest of the record is JSON text kept as it was (not an object we could
// split). Keys and values are kept as written (escapes included), so decoding gives the same
// JSON with the whitespace between members dropped. The 200 MB generated Kineto trace's args
// went from 71 MB of text to 10 MB, and every project write (WAL, then checkpoint) with them.
// One top-level member of an args object as a parser found it: the key as written between its
// quotes (escapes kept) and the value's JSON text (a string with its quotes).
struct ArgMember
{
    std::string_view key, value;
};

// A slice's args as handed to the writer: their JSON text and, when the parser has already
// split the object into its members, those members, so the text is not scanned again (the
// record is the same either way). Converts from the text alone.
struct SliceArgs
{
    SliceArgs() = default;
    SliceArgs(std::string_view text) : json(text) {}
    SliceArgs(const std::string &text) : json(text) {}
    SliceArgs(const char *text) : json(text) {}
    SliceArgs(std::string_view text, std::span<const ArgMember> split)
        : json(text), members(split), isSplit(true)
    {
    }
    std::string_view json;
    std::span<const ArgMember> members;
    bool isSplit = false; // members hold the whole object (an empty one has none)
};

class ArgsEncoder
{
public:
    // Appends the record of one args JSON text to `records` and points `row` at it.
    void add(std::string_view json, std::string &records, Row &row);
    // The same record from the object's members as the parser split them.
    void add(std::span<const ArgMember> members, std::string &records, Row &row);
    // Starts the chunk's args blob with the tables; the records follow in the rows' order.
    void writeTables(std::string &blob) const;
    size_t tableBytes() const { return m_tableBytes; }
    void clear();

private:
    void encodeRecord(std::string_view json, std::string &records);
    void encodeMember(std::string_view key, std::string_view value, size_t position,
                      std::string &records);
    quint32 keyIndex(std::string_view key, size_t position);
    bool valueIndex(std::string_view value, quint32 key, quint32 &index);

    struct Hash
    {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    using Index = std::unordered_map<std::string, quint32, Hash, std::equal_to<>>;
    Index m_keyOf, m_valueOf;
    std::vector<std::string_view> m_keys, m_values; // the maps' own keys (nodes do not move)
    // Records of one track mostly repeat the previous one's keys and many of its values: the
    // key last seen at each member position, and the value last stored for each key, are
    // compared before anything is hashed.
    std::vector<quint32> m_keyAt;
    // Records of several shapes interleaved (a kernel's, a runtime call's, an operator's) miss
    // the position's key: a key's index is also kept in a slot chosen by its length and three
    // of its bytes, compared before the hash (kNone: empty).
    static constexpr size_t kKeySlots = 128;
    static size_t keySlot(std::string_view key)
    {
        const auto byte = [&](size_t i) { return size_t(static_cast<unsigned char>(key[i])); };
        return key.empty() ? 0
                           : (key.size() * 131 + byte(0) * 31 + byte(key.size() / 2) * 7 +
                              byte(key.size() - 1)) %
                                 kKeySlots;
    }
    std::array<quint32, kKeySlots> m_keySlot = [] {
        std::array<quint32, kKeySlots> empty;
        empty.fill(std::numeric_limits<quint32>::max());
        return empty;
    }();
    std::vector<quint32> m_valueOfKey;
    size_t m_tableBytes = 0;
};

// The integer a JSON number spells exactly: decimal, at most 18 digits, no leading zero, not
// "-0" (so writing it back gives the same text). Args records and flow ids keep such numbers
// as integers and anything else as text.
std::optional<qint64> exactInteger(std::string_view text);

// A chunk's args blob, read: views into the blob.
struct ArgsTables
{
    std::vector<std::string_view> keys, values;
    std::string_view records;
};
[[nodiscard]] bool readArgsTables(std::string_view blob, ArgsTables &out);
// Appends the JSON text of one record to `json`. False when the record is malformed.
[[nodiscard]] bool appendArgsJson(std::string_view record, const ArgsTables &tables,
                                  std::string &json);

// The canonical order inside a chunk and of a track read back: start, then the enclosing
// (longer) slice first, then id.
inline bool before(const Row &a, const Row &b)
{
    if (a.ts != b.ts)
        return a.ts < b.ts;
    if (a.dur != b.dur)
        return a.dur > b.dur;
    return a.id < b.id; // within a chunk: the order rows were added
}

// Sorts `rows` (their args records in `records`, by offset) and encodes them: `data` gets the
// rows, `argsOut` the args blob (the encoder's tables, then the records in the same order).
void encode(std::vector<Row> &rows, std::string_view records, const ArgsEncoder &args,
            std::string &data, std::string &argsOut);
// Appends chunk `chunk`'s rows to `out` (ids set; args offsets into records of `recordsSize`
// bytes, -1 when the chunk has no args blob; argsChunk as given). False when the blobs are
// malformed. A legacy chunk is read only with `acceptLegacy`.
[[nodiscard]] bool decode(qint64 chunk, const void *data, qint64 size, qint64 recordsSize,
                          quint32 argsChunk, std::vector<Row> &out, bool acceptLegacy = false);
// True for a chunk of format 1 (schema v3): its args blob holds the JSON texts one after
// another. The v4 migration rewrites them; a read-only open reads them as they are.
bool isLegacyChunk(const void *data, qint64 size);

// A chunk's args blob, held, with its tables read (views into `blob`: keep it in place). A
// schema v3 chunk not migrated (a read-only open) holds the JSON texts one after another.
struct ChunkArgs
{
    std::string blob;
    ArgsTables tables;
    bool legacy = false;
    // Takes `bytes` as the chunk's args blob. False when its tables are malformed.
    [[nodiscard]] bool load(std::string_view bytes, bool legacyChunk);
};

// Reads a track's chunks without going through SQL (the `slice` table costs a VDBE step and
// column calls per row; the dependency graph reads millions): rows chunk by chunk, each chunk
// in canonical order, and with `withArgs` the chunk's args tables so a row's arg can be looked
// up while it is visited.
class TrackReader
{
public:
    explicit TrackReader(const SqliteDb &db);
    // Calls visit(row) for every row of `track`, chunk by chunk in id order (chunks may
    // overlap in time). False (and errorString()) on a database error or a malformed chunk.
    [[nodiscard]] bool read(TrackId track, bool withArgs,
                            const std::function<void(const Row &)> &visit);
    // The same over the chunks that overlap [t0, t1) (source clock, chunk extents): every row
    // of those chunks, without args; the caller keeps the rows it wants (the slice pager).
    [[nodiscard]] bool read(TrackId track, TimeNs t0, TimeNs t1,
                            const std::function<void(const Row &)> &visit);
    // Inside visit: the JSON text of the value of the row's top-level arg `key` (a number's
    // digits, a string with its quotes), nullopt when it has none.
    std::optional<std::string_view> arg(const Row &row, std::string_view key);
    // The same as a number: an integer as stored (no text made and parsed), else the text's
    // number; nullopt when absent or not a finite number.
    std::optional<double> argNumber(const Row &row, std::string_view key);
    // Several args of the row in one pass over its record (a memory event's six, an op's
    // shapes): out[i] is what arg(row, keys[i]) gives, valid until the next call; at most
    // kMaxArgKeys keys.
    static constexpr size_t kMaxArgKeys = 8;
    void args(const Row &row, std::span<const std::string_view> keys,
              std::span<std::optional<std::string_view>> out);
    // The same as numbers: out[i] is what argNumber(row, keys[i]) gives.
    void argNumbers(const Row &row, std::span<const std::string_view> keys,
                    std::span<std::optional<double>> out);
    QString errorString() const { return m_error; }

private:
    // The index of `key` in the chunk's key table (-1: no row of the chunk has it), looked up
    // once per chunk.
    qint64 keyIndex(std::string_view key);
    // args() and argNumbers(): with `integers`, an integer value goes there (its text left
    // nullopt), else its digits are written for it.
    void lookupMany(const Row &row, std::span<const std::string_view> keys,
                    std::span<std::optional<std::string_view>> texts,
                    std::span<std::optional<qint64>> integers);
    // arg(); with `integer`, an integer value goes there (and nullopt is returned).
    std::optional<std::string_view> lookup(const Row &row, std::string_view key,
                                           std::optional<qint64> *integer);
    // The one pass over a row's binary args record that both make: for each i < n, the first
    // member whose key index is want[i] decides out i (its value, or none when the value is
    // malformed); a malformed member ends the pass. `place` (may be empty) gives a key
    // index's i in one step; an integer's digits are written into digits[i] when `integers`
    // is empty.
    void walk(const Row &row, std::array<qint64, kMaxArgKeys> want, size_t n,
              const std::vector<qint8> &place, std::span<std::optional<std::string_view>> texts,
              std::span<std::optional<qint64>> integers, std::string *digits);
    bool readChunks(SqliteStatement &chunks, bool withArgs,
                    const std::function<void(const Row &)> &visit);

    const SqliteDb &m_db;
    SqliteStatement m_chunks;
    SqliteStatement m_window; // prepared on first use
    ChunkArgs m_args;         // the chunk being visited
    // The keys asked of this chunk and their index in m_args.tables (-1: no row has it): a
    // reader that asks a few keys of every row (a memory event's six) looks each up once.
    std::vector<std::pair<std::string, qint64>> m_keysAsked;
    std::string m_json;
    std::array<std::string, kMaxArgKeys> m_texts; // args(): values made as text
    // The key sets args() and argNumbers() were asked, with their indices in the chunk (a
    // reader asks the same few sets of every row): found by content, resolved once a chunk.
    struct KeySet
    {
        std::vector<std::string> keys;
        std::array<qint64, kMaxArgKeys> index{};
        // By key index in the chunk: the key's place in the set (-1: not asked), so that a
        // member finds its key in one step; empty when the set asks a key twice.
        std::vector<qint8> place;
        quint64 chunk = 0; // m_chunkCount when resolved
    };
    const KeySet &keySet(std::span<const std::string_view> keys);
    std::array<KeySet, 4> m_keySets;
    size_t m_nextKeySet = 0;
    quint64 m_chunkCount = 1; // chunks loaded: a key set resolved before is resolved again
    QString m_error;
};

// Flows are stored the same way (`flow_chunk`, virtual table `flow` over module gml_flow): one
// source's flows sorted by (from_slice, to_slice), 4096 to a chunk, written when the source is.
// A lookup by from_slice or to_slice reads the flows of the slice's run.
struct Flow
{
    SliceId from = 0;
    SliceId to = 0;
    qint64 kind = 0;
    auto operator<=>(const Flow &) const = default;
};
// Sorts `flows` and inserts them as chunks of `source`. False (and `error`) on failure.
[[nodiscard]] bool writeFlows(SqliteDb &db, qint64 source, std::vector<Flow> &flows,
                              QString *error);

// The flows of one source, in stored order, read without SQL. False (and `error`) on a
// database error or a malformed chunk.
[[nodiscard]] bool readFlows(const SqliteDb &db, qint64 source, std::vector<Flow> &out,
                             QString *error);

// Registers the gml_slice and gml_flow modules on a connection.
[[nodiscard]] bool registerModule(sqlite3 *db, QString *error);

// Buffers slices per track and writes them as chunks. Ids are final when add() returns.
class ChunkWriter
{
public:
    explicit ChunkWriter(SqliteDb &db);
    // Chunk ids from `next` instead of after the project's largest (ids shared with other
    // writers: sideproject.h). Before the first add().
    void takeChunkIdsFrom(std::function<qint64()> next) { m_allocate = std::move(next); }

    SliceId add(TrackId track, TimeNs ts, TimeNs dur, StringId name, StringId category,
                qint64 correlation, qint64 externalId, const SliceArgs &args, bool hasArgs);
    // Writes every open chunk. False (and errorString()) when an insert failed.
    [[nodiscard]] bool flush();
    QString errorString() const { return m_error; }

private:
    struct Open
    {
        TrackId track = 0;
        qint64 chunk = 0;
        std::vector<Row> rows;
        std::string args; // records
        ArgsEncoder encoder;
    };
    void write(Open &o);

    SqliteDb &m_db;
    SqliteStatement m_insert;
    qint64 m_nextChunk = 1;
    std::function<qint64()> m_allocate;
    OpenByTrack<Open> m_open;
    size_t m_buffered = 0;    // bytes held in open chunks
    std::vector<Row> m_check; // a written chunk, decoded again
    std::string m_data, m_argsOut;
    QString m_error;
};

} // namespace slicestore
// A track's slices that have a duration, in nesting order, their times plus `offset`:
// `args(slice, row)` sees each slice that has args (TrackReader::arg reads them there). Each
// chunk is sorted; chunks overlap a little where the file was not in time order
// (sortNestRows). `instant`, when given, sees each slice without a duration (an instant event)
// as it is read, its args readable. False on a read error (reader.errorString()).
bool readNestRows(slicestore::TrackReader &reader, TrackId track, bool withArgs, TimeNs offset,
                  std::vector<NestRow> &rows,
                  const std::function<void(const slicestore::Row &, const NestRow &)> &args,
                  const std::function<void(const slicestore::Row &)> &instant = {});

} // namespace gml
