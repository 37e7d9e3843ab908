// SPDX-License-Identifier: GPL-3.0-or-later
// Tracks read from and written to their chunks (TrackReader, ChunkWriter), and flow chunks.
#include "chunkformat.h"
#include "runsort.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>

namespace gml::slicestore {

// --- TrackReader -------------------------------------------------------------------------

bool ChunkArgs::load(std::string_view bytes, bool legacyChunk)
{
    blob.assign(bytes.data(), bytes.size());
    legacy = legacyChunk;
    tables = {};
    if (legacy) {
        tables.records = blob;
        return true;
    }
    return readArgsTables(blob, tables);
}

TrackReader::TrackReader(const SqliteDb &db)
    : m_db(db),
      m_chunks(db.prepare("SELECT id, data, args FROM slice_chunk WHERE track_id = ? ORDER BY id"))
{
}

bool TrackReader::read(TrackId track, bool withArgs, const std::function<void(const Row &)> &visit)
{
    m_chunks.reset();
    m_chunks.bind(1, track);
    return readChunks(m_chunks, withArgs, visit);
}

bool TrackReader::read(TrackId track, TimeNs t0, TimeNs t1,
                       const std::function<void(const Row &)> &visit)
{
    if (!m_window.isValid())
        m_window = m_db.prepare(
            "SELECT id, data, args FROM slice_chunk WHERE track_id = ?1 AND min_ts < ?2 "
            "AND max_end >= ?3 ORDER BY id");
    m_window.reset();
    m_window.bind(1, track);
    m_window.bind(2, t1);
    m_window.bind(3, t0);
    return readChunks(m_window, false, visit);
}

bool TrackReader::readChunks(SqliteStatement &chunks, bool withArgs,
                             const std::function<void(const Row &)> &visit)
{
    m_error.clear();
    std::vector<Row> rows;
    while (chunks.step()) {
        const qint64 chunk = chunks.int64(0);
        const std::string_view data = chunks.blobView(1);
        const bool legacy = isLegacyChunk(data.data(), qint64(data.size()));
        qint64 recordsSize = std::numeric_limits<qint64>::max();
        m_args.blob.clear(); // capacity kept for the next chunk's blob
        m_args.tables = {};
        m_keysAsked.clear();
        ++m_chunkCount;
        if (withArgs) {
            recordsSize = -1;
            if (!chunks.isNull(2)) {
                if (!m_args.load(chunks.blobView(2), legacy)) {
                    m_error =
                        QStringLiteral("slice chunk %1 is malformed (its args tables)").arg(chunk);
                    return false;
                }
                recordsSize = qint64(m_args.tables.records.size());
            }
        }
        rows.clear();
        if (!decode(chunk, data.data(), qint64(data.size()), recordsSize, 0, rows, true)) {
            m_error = QStringLiteral("slice chunk %1 is malformed").arg(chunk);
            return false;
        }
        for (const Row &r : rows)
            visit(r);
    }
    if (!chunks.errorString().isEmpty()) {
        m_error = chunks.errorString();
        return false;
    }
    m_args = {};
    return true;
}

namespace {

// argNumber()'s value: an integer as stored, else the whole text as a finite number.
std::optional<double> numberOf(const std::optional<std::string_view> &text,
                               const std::optional<qint64> &integer)
{
    if (integer)
        return double(*integer);
    if (!text || text->empty())
        return std::nullopt;
    double d = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), d);
    if (ec != std::errc() || end != text->data() + text->size() || !std::isfinite(d))
        return std::nullopt;
    return d;
}

} // namespace

std::optional<double> TrackReader::argNumber(const Row &row, std::string_view key)
{
    std::optional<qint64> integer;
    const auto text = lookup(row, key, &integer);
    return numberOf(text, integer);
}

void TrackReader::args(const Row &row, std::span<const std::string_view> keys,
                       std::span<std::optional<std::string_view>> out)
{
    lookupMany(row, keys, out, {});
}

void TrackReader::argNumbers(const Row &row, std::span<const std::string_view> keys,
                             std::span<std::optional<double>> out)
{
    std::array<std::optional<std::string_view>, kMaxArgKeys> texts;
    std::array<std::optional<qint64>, kMaxArgKeys> integers;
    const size_t n = std::min({keys.size(), out.size(), kMaxArgKeys});
    lookupMany(row, keys.first(n), std::span(texts).first(n), std::span(integers).first(n));
    for (size_t i = 0; i < n; ++i)
        out[i] = numberOf(texts[i], integers[i]);
}

qint64 TrackReader::keyIndex(std::string_view key)
{
    if (const auto asked = std::find_if(m_keysAsked.begin(), m_keysAsked.end(),
                                        [&](const auto &k) { return k.first == key; });
        asked != m_keysAsked.end())
        return asked->second;
    const auto it = std::find(m_args.tables.keys.begin(), m_args.tables.keys.end(), key);
    const qint64 index =
        it == m_args.tables.keys.end() ? -1 : qint64(it - m_args.tables.keys.begin());
    m_keysAsked.emplace_back(std::string(key), index);
    return index;
}

const TrackReader::KeySet &TrackReader::keySet(std::span<const std::string_view> keys)
{
    KeySet *set = nullptr;
    for (KeySet &k : m_keySets)
        if (k.keys.size() == keys.size() && std::equal(keys.begin(), keys.end(), k.keys.begin())) {
            set = &k;
            break;
        }
    if (!set) {
        set = &m_keySets[m_nextKeySet++ % m_keySets.size()];
        set->keys.assign(keys.begin(), keys.end());
        set->chunk = 0;
    }
    if (set->chunk != m_chunkCount) {
        set->place.clear();
        bool twice = false;
        for (size_t i = 0; i < keys.size(); ++i) {
            const qint64 k = set->index[i] = keyIndex(keys[i]);
            if (k < 0)
                continue;
            if (size_t(k) >= set->place.size())
                set->place.resize(size_t(k) + 1, -1);
            twice = twice || set->place[size_t(k)] >= 0;
            set->place[size_t(k)] = qint8(i);
        }
        if (twice)
            set->place.clear();
        set->chunk = m_chunkCount;
    }
    return *set;
}

void TrackReader::lookupMany(const Row &row, std::span<const std::string_view> keys,
                             std::span<std::optional<std::string_view>> texts,
                             std::span<std::optional<qint64>> integers)
{
    const size_t n = std::min({keys.size(), texts.size(), kMaxArgKeys});
    const bool wantIntegers = integers.size() >= n;
    for (size_t i = 0; i < n; ++i) {
        texts[i].reset();
        if (wantIntegers)
            integers[i].reset();
    }
    if (!row.hasArgs || row.argsOffset + row.argsSize > m_args.tables.records.size())
        return;
    if (m_args.legacy) { // JSON text as it was: a key at a time, each value kept
        for (size_t i = 0; i < n; ++i)
            if (const auto v = lookup(row, keys[i], nullptr))
                texts[i] = m_texts[i].assign(*v);
        return;
    }
    const KeySet &set = keySet(keys.first(n));
    walk(row, set.index, n, set.place, texts, wantIntegers ? integers : decltype(integers)(),
         m_texts.data());
}

// Inlined into both callers: lookup()'s one key and empty places are then constants.
[[gnu::always_inline]] inline void
TrackReader::walk(const Row &row, std::array<qint64, kMaxArgKeys> want, size_t n,
                  const std::vector<qint8> &place, std::span<std::optional<std::string_view>> texts,
                  std::span<std::optional<qint64>> integers, std::string *digits)
{
    const bool wantIntegers = !integers.empty();
    size_t left = 0;
    for (size_t i = 0; i < n; ++i)
        left += want[i] >= 0;
    const std::string_view record = m_args.tables.records.substr(row.argsOffset, row.argsSize);
    auto p = reinterpret_cast<const unsigned char *>(record.data());
    const unsigned char *e = p + record.size();
    while (p < e && left > 0) {
        quint64 tag, v;
        if (!getVarint(p, e, tag) || (tag & 3) == ArgRaw || !getVarint(p, e, v))
            return;
        const qint64 key = qint64(tag >> 2);
        const unsigned char *value = p;
        if ((tag & 3) == ArgInline) {
            if (v > quint64(e - p))
                return;
            p += v;
        }
        // The set's places of this key: one found in one step, or (a key asked twice) all.
        size_t i = 0, last = n;
        if (!place.empty()) {
            if (quint64(key) >= place.size() || place[size_t(key)] < 0)
                continue;
            i = size_t(place[size_t(key)]);
            last = i + 1;
        }
        for (; i < last; ++i) {
            if (want[i] != key)
                continue;
            want[i] = -1;
            --left;
            switch (tag & 3) {
            case ArgInt:
                if (wantIntegers) {
                    integers[i] = unzigzag(v);
                } else {
                    char buf[24];
                    const auto end = std::to_chars(buf, buf + sizeof buf, unzigzag(v)).ptr;
                    texts[i] = digits[i].assign(buf, size_t(end - buf));
                }
                break;
            case ArgTable:
                if (v < m_args.tables.values.size())
                    texts[i] = m_args.tables.values[size_t(v)];
                break;
            default: // ArgInline
                texts[i] = std::string_view(reinterpret_cast<const char *>(value), size_t(v));
            }
        }
    }
}

std::optional<std::string_view> TrackReader::arg(const Row &row, std::string_view key)
{
    return lookup(row, key, nullptr);
}

std::optional<std::string_view> TrackReader::lookup(const Row &row, std::string_view key,
                                                    std::optional<qint64> *integer)
{
    if (!row.hasArgs || row.argsOffset + row.argsSize > m_args.tables.records.size())
        return std::nullopt;
    const std::string_view record = m_args.tables.records.substr(row.argsOffset, row.argsSize);
    if (m_args.legacy) { // JSON text as it was
        const auto doc = QJsonDocument::fromJson(
            QByteArray::fromRawData(record.data(), qsizetype(record.size())));
        const QJsonValue v = doc.object().value(QLatin1String(key.data(), qsizetype(key.size())));
        if (v.isUndefined())
            return std::nullopt;
        m_json = v.isString()   ? '"' + v.toString().toStdString() + '"'
                 : v.isDouble() ? QByteArray::number(v.toDouble(), 'g', 17).toStdString()
                                : QJsonDocument(QJsonArray{v})
                                      .toJson(QJsonDocument::Compact)
                                      .mid(1)
                                      .chopped(1)
                                      .toStdString();
        return m_json;
    }
    std::array<qint64, kMaxArgKeys> want;
    want.fill(-1);
    want[0] = keyIndex(key);
    if (want[0] < 0)
        return std::nullopt; // no row of the chunk has it
    std::optional<std::string_view> text;
    walk(row, want, 1, {}, std::span(&text, 1),
         integer ? std::span(integer, 1) : std::span<std::optional<qint64>>(), &m_json);
    return text;
}

// --- ChunkWriter -------------------------------------------------------------------------

ChunkWriter::ChunkWriter(SqliteDb &db) : m_db(db)
{
    m_insert =
        db.prepare("INSERT INTO slice_chunk(id, track_id, count, min_ts, max_end, data, args) "
                   "VALUES(?,?,?,?,?,?,?)");
    m_nextChunk = db.scalar("SELECT coalesce(max(id), 0) + 1 FROM slice_chunk", 1);
}

SliceId ChunkWriter::add(TrackId track, TimeNs ts, TimeNs dur, StringId name, StringId category,
                         qint64 correlation, qint64 externalId, const SliceArgs &args, bool hasArgs)
{
    Open &o = m_open.of(track);
    if (o.rows.empty())
        o.chunk = m_allocate ? m_allocate() : m_nextChunk++;
    Row r;
    r.ts = ts;
    r.dur = dur;
    r.name = name;
    r.cat = category;
    r.correlation = correlation;
    r.externalId = externalId;
    r.hasArgs = hasArgs;
    const size_t argsBefore = o.args.size();
    if (hasArgs && args.isSplit)
        o.encoder.add(args.members, o.args, r);
    else if (hasArgs)
        o.encoder.add(args.json, o.args, r);
    r.id = (o.chunk << kChunkRowBits) | qint64(o.rows.size());
    o.rows.push_back(r);
    m_buffered += sizeof(Row) + (o.args.size() - argsBefore);
    const SliceId id = r.id;
    if (o.rows.size() == size_t(kChunkRows) ||
        o.args.size() + o.encoder.tableBytes() >= kMaxChunkArgs)
        write(o);
    if (m_buffered > kMaxBuffered)
        (void)flush();
    return id;
}

void ChunkWriter::write(Open &o)
{
    if (o.rows.empty())
        return;
    m_buffered -= o.rows.size() * sizeof(Row) + o.args.size();
    TimeNs minTs = o.rows.front().ts, maxEnd = o.rows.front().ts + o.rows.front().dur;
    for (const Row &r : o.rows) {
        minTs = std::min(minTs, r.ts);
        maxEnd = std::max(maxEnd, r.ts + r.dur);
    }
    encode(o.rows, o.args, o.encoder, m_data, m_argsOut);
    // A chunk that would not read back is never stored: what was encoded is decoded again (a
    // small fraction of encoding it) and the source fails instead.
    {
        ArgsTables tables;
        bool ok = m_argsOut.empty() || readArgsTables(m_argsOut, tables);
        const qint64 recordsSize = m_argsOut.empty() ? -1 : qint64(tables.records.size());
        m_check.clear();
        ok = ok && decode(o.chunk, m_data.data(), qint64(m_data.size()), recordsSize, 0, m_check) &&
             m_check.size() == o.rows.size();
        if (!ok) {
            if (m_error.isEmpty())
                m_error =
                    QStringLiteral("slice chunk %1 (%2 rows of track %3) would not read back; "
                                   "nothing of this source is kept")
                        .arg(o.chunk)
                        .arg(o.rows.size())
                        .arg(o.track);
            o.rows.clear();
            o.args.clear();
            o.encoder.clear();
            return;
        }
    }
    auto &st = m_insert;
    st.bind(1, o.chunk);
    st.bind(2, o.track);
    st.bind(3, qint64(o.rows.size()));
    st.bind(4, minTs);
    st.bind(5, maxEnd);
    sqlite3_bind_blob64(st.handle(), 6, m_data.data(), m_data.size(), SQLITE_STATIC);
    if (m_argsOut.empty())
        st.bindNull(7);
    else
        sqlite3_bind_blob64(st.handle(), 7, m_argsOut.data(), m_argsOut.size(), SQLITE_STATIC);
    if (!st.exec() && m_error.isEmpty())
        m_error = st.errorString().isEmpty() ? m_db.lastError() : st.errorString();
    o.rows.clear();
    o.args.clear();
    o.encoder.clear();
    if (o.args.capacity() > kMaxChunkArgs * 2)
        std::string().swap(o.args);
}

bool ChunkWriter::flush()
{
    for (Open &o : m_open)
        write(o);
    return m_error.isEmpty();
}

// --- flows -------------------------------------------------------------------------------

bool writeFlows(SqliteDb &db, qint64 source, std::vector<Flow> &flows, QString *error)
{
    if (flows.empty())
        return true;
    sortNearlySorted(flows); // mostly in order already: a launch's runtime call id grows
    qint64 chunk = db.scalar("SELECT coalesce(max(id), 0) + 1 FROM flow_chunk", 1);
    auto st = db.prepare("INSERT INTO flow_chunk(id, source_id, count, data) VALUES(?,?,?,?)");
    std::string data;
    for (size_t first = 0; first < flows.size(); first += kChunkRows, ++chunk) {
        const size_t last = std::min(flows.size(), first + size_t(kChunkRows));
        data.clear();
        data.push_back(char(kFlowVersion));
        quint64 prev = 0;
        for (size_t i = first; i < last; ++i) {
            const Flow &f = flows[i];
            putVarint(data, zigzag(qint64(quint64(f.from) - prev)));
            prev = quint64(f.from);
            putVarint(data, zigzag(qint64(quint64(f.to) - quint64(f.from))));
            putVarint(data, quint64(f.kind));
        }
        st.bind(1, chunk);
        st.bind(2, source);
        st.bind(3, qint64(last - first));
        sqlite3_bind_blob64(st.handle(), 4, data.data(), data.size(), SQLITE_STATIC);
        if (!st.exec()) {
            if (error)
                *error = st.errorString().isEmpty() ? db.lastError() : st.errorString();
            return false;
        }
    }
    return true;
}

bool readFlows(const SqliteDb &db, qint64 source, std::vector<Flow> &out, QString *error)
{
    auto st = db.prepare("SELECT id, data FROM flow_chunk WHERE source_id = ? ORDER BY id");
    st.bind(1, source);
    std::vector<FlowRow> rows;
    while (st.step()) {
        const std::string_view data = st.blobView(1);
        rows.clear();
        const bool ok = decodeFlows(st.int64(0), source, data.data(), qint64(data.size()), rows,
                                    [](const FlowRow &) { return true; });
        for (const FlowRow &r : rows)
            out.push_back({r.from, r.to, r.kind});
        if (!ok) {
            if (error)
                *error = QStringLiteral("flow chunk %1 is malformed").arg(st.int64(0));
            return false;
        }
    }
    if (!st.errorString().isEmpty()) {
        if (error)
            *error = st.errorString();
        return false;
    }
    return true;
}

} // namespace gml::slicestore

namespace gml {

bool readNestRows(slicestore::TrackReader &reader, TrackId track, bool withArgs, TimeNs offset,
                  std::vector<NestRow> &rows,
                  const std::function<void(const slicestore::Row &, const NestRow &)> &args,
                  const std::function<void(const slicestore::Row &)> &instant)
{
    rows.clear();
    std::vector<size_t> descents;
    const bool ok = reader.read(track, withArgs, [&](const slicestore::Row &x) {
        if (x.dur <= 0) {
            if (instant)
                instant(x);
            return;
        }
        const NestRow row{x.id, x.ts + offset, x.ts + offset + x.dur, x.name, x.cat};
        if (!rows.empty() && nestsBefore(row, rows.back()))
            descents.push_back(rows.size());
        rows.push_back(row);
        if (x.hasArgs && args)
            args(x, row);
    });
    if (ok)
        sortNestRows(rows, descents);
    return ok;
}

} // namespace gml
