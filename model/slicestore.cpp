// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicestore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <memory>

namespace gml::slicestore {

namespace {

constexpr unsigned char kVersion = 2;       // slice chunks: args as records (ArgsEncoder)
constexpr unsigned char kLegacyVersion = 1; // slice chunks of schema v3: args as JSON texts
constexpr unsigned char kFlowVersion = 1;
constexpr unsigned char kArgsVersion = 1; // first byte of an args blob
// Open chunks of all tracks together hold at most this much before all are written.
constexpr size_t kMaxBuffered = 48u << 20;
// One chunk's args (tables and records) at most (a chunk is then written with fewer rows).
constexpr size_t kMaxChunkArgs = 1u << 20;

quint64 zigzag(qint64 v)
{
    return (quint64(v) << 1) ^ quint64(v >> 63);
}
qint64 unzigzag(quint64 v)
{
    return qint64(v >> 1) ^ -qint64(v & 1);
}

void putVarint(std::string &out, quint64 v)
{
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
void putOptional(std::string &out, qint64 v)
{
    putVarint(out, v == kNull ? 0 : zigzag(v) + 1);
}

bool getVarint(const unsigned char *&p, const unsigned char *e, quint64 &v)
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
bool getOptional(const unsigned char *&p, const unsigned char *e, qint64 &v)
{
    quint64 x;
    if (!getVarint(p, e, x))
        return false;
    v = x == 0 ? kNull : unzigzag(x - 1);
    return true;
}

} // namespace

// --- args records -------------------------------------------------------------------------

namespace {

enum ArgKind : quint64 { ArgInt = 0, ArgTable = 1, ArgInline = 2, ArgRaw = 3 };
// Values up to this long go into the chunk's value table (repeated arrays, strings, floats).
constexpr size_t kMaxTableValue = 64;
constexpr size_t kMaxTableValues = 1u << 16;

bool isWs(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
void skipWs(const char *&p, const char *e)
{
    while (p < e && isWs(*p))
        ++p;
}
// p at the opening quote; returns past the closing quote, or nullptr.
const char *endOfString(const char *p, const char *e)
{
    for (++p; p < e; ++p) {
        if (*p == '\\')
            ++p;
        else if (*p == '"')
            return p + 1;
    }
    return nullptr;
}
// p at a value; returns past it, or nullptr. Nested containers are skipped whole.
const char *endOfValue(const char *p, const char *e)
{
    if (p >= e)
        return nullptr;
    if (*p == '"')
        return endOfString(p, e);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; p < e; ++p) {
            if (*p == '"') {
                p = endOfString(p, e);
                if (!p)
                    return nullptr;
                --p;
            } else if (*p == '{' || *p == '[') {
                ++depth;
            } else if ((*p == '}' || *p == ']') && --depth == 0) {
                return p + 1;
            }
        }
        return nullptr;
    }
    const char *s = p;
    while (p < e && !isWs(*p) && *p != ',' && *p != '}' && *p != ']')
        ++p;
    return p > s ? p : nullptr;
}
} // namespace

std::optional<qint64> exactInteger(std::string_view text)
{
    const bool negative = !text.empty() && text[0] == '-';
    const std::string_view digits = text.substr(negative ? 1 : 0);
    if (digits.empty() || digits.size() > 18 || (digits[0] == '0' && digits.size() > 1))
        return std::nullopt;
    qint64 v = 0;
    for (char c : digits) {
        if (c < '0' || c > '9')
            return std::nullopt;
        v = v * 10 + (c - '0');
    }
    if (negative && v == 0)
        return std::nullopt;
    return negative ? -v : v;
}

constexpr quint32 kNone = std::numeric_limits<quint32>::max();

quint32 ArgsEncoder::keyIndex(std::string_view key, size_t position)
{
    if (position < m_keyAt.size() && m_keyAt[position] != kNone && m_keys[m_keyAt[position]] == key)
        return m_keyAt[position];
    quint32 index;
    if (auto it = m_keyOf.find(key); it != m_keyOf.end()) {
        index = it->second;
    } else {
        index = quint32(m_keys.size());
        m_keys.push_back(m_keyOf.emplace(std::string(key), index).first->first);
        m_valueOfKey.push_back(kNone);
        m_tableBytes += key.size() + 2;
    }
    if (position < 64) {
        if (position >= m_keyAt.size())
            m_keyAt.resize(position + 1, kNone);
        m_keyAt[position] = index;
    }
    return index;
}

bool ArgsEncoder::valueIndex(std::string_view value, quint32 key, quint32 &index)
{
    if (value.size() > kMaxTableValue)
        return false;
    if (const quint32 last = m_valueOfKey[key]; last != kNone && m_values[last] == value) {
        index = last;
        return true;
    }
    if (auto it = m_valueOf.find(value); it != m_valueOf.end()) {
        index = it->second;
    } else {
        if (m_values.size() >= kMaxTableValues)
            return false;
        index = quint32(m_values.size());
        m_values.push_back(m_valueOf.emplace(std::string(value), index).first->first);
        m_tableBytes += value.size() + 2;
    }
    m_valueOfKey[key] = index;
    return true;
}

void ArgsEncoder::add(std::string_view json, std::string &records, Row &row)
{
    const size_t start = records.size();
    row.argsOffset = start;
    encodeRecord(json, records);
    row.argsSize = quint32(records.size() - start);
}

void ArgsEncoder::encodeRecord(std::string_view json, std::string &records)
{
    const size_t start = records.size();
    const char *p = json.data();
    const char *e = p + json.size();
    auto raw = [&] {
        records.resize(start);
        putVarint(records, ArgRaw);
        records.append(json);
    };
    skipWs(p, e);
    if (p >= e || *p != '{')
        return raw();
    ++p;
    size_t position = 0;
    skipWs(p, e);
    if (p < e && *p == '}') {
        ++p;
    } else {
        for (;;) {
            skipWs(p, e);
            if (p >= e || *p != '"')
                return raw();
            const char *keyEnd = endOfString(p, e);
            if (!keyEnd)
                return raw();
            const std::string_view key(p + 1, size_t(keyEnd - p - 2));
            p = keyEnd;
            skipWs(p, e);
            if (p >= e || *p != ':')
                return raw();
            ++p;
            skipWs(p, e);
            const char *valueEnd = endOfValue(p, e);
            if (!valueEnd)
                return raw();
            const std::string_view value(p, size_t(valueEnd - p));
            p = valueEnd;
            const quint32 k = keyIndex(key, position++);
            const quint64 tag = quint64(k) << 2;
            quint32 index;
            if (const auto integer = exactInteger(value)) {
                putVarint(records, tag | ArgInt);
                putVarint(records, zigzag(*integer));
            } else if (valueIndex(value, k, index)) {
                putVarint(records, tag | ArgTable);
                putVarint(records, index);
            } else {
                putVarint(records, tag | ArgInline);
                putVarint(records, value.size());
                records.append(value);
            }
            skipWs(p, e);
            if (p < e && *p == ',') {
                ++p;
                continue;
            }
            if (p < e && *p == '}') {
                ++p;
                break;
            }
            return raw();
        }
    }
    skipWs(p, e);
    if (p != e)
        return raw();
}

void ArgsEncoder::writeTables(std::string &blob) const
{
    blob.clear();
    blob.push_back(char(kArgsVersion));
    for (const auto *table : {&m_keys, &m_values}) {
        putVarint(blob, table->size());
        for (std::string_view t : *table) {
            putVarint(blob, t.size());
            blob.append(t);
        }
    }
}

void ArgsEncoder::clear()
{
    m_keyOf.clear();
    m_valueOf.clear();
    m_keys.clear();
    m_values.clear();
    m_keyAt.clear();
    m_valueOfKey.clear();
    m_tableBytes = 0;
}

bool readArgsTables(std::string_view blob, ArgsTables &out)
{
    auto p = reinterpret_cast<const unsigned char *>(blob.data());
    const unsigned char *e = p + blob.size();
    out.keys.clear();
    out.values.clear();
    if (p >= e || *p++ != kArgsVersion)
        return false;
    for (auto *table : {&out.keys, &out.values}) {
        quint64 n;
        if (!getVarint(p, e, n) || n > quint64(e - p))
            return false;
        table->reserve(size_t(n));
        for (quint64 i = 0; i < n; ++i) {
            quint64 len;
            if (!getVarint(p, e, len) || len > quint64(e - p))
                return false;
            table->emplace_back(reinterpret_cast<const char *>(p), size_t(len));
            p += len;
        }
    }
    out.records = std::string_view(reinterpret_cast<const char *>(p), size_t(e - p));
    return true;
}

bool appendArgsJson(std::string_view record, const ArgsTables &tables, std::string &json)
{
    auto p = reinterpret_cast<const unsigned char *>(record.data());
    const unsigned char *e = p + record.size();
    json.push_back('{');
    bool first = true;
    while (p < e) {
        quint64 tag;
        if (!getVarint(p, e, tag))
            return false;
        if ((tag & 3) == ArgRaw) {
            if (!first)
                return false;
            json.pop_back(); // the '{': the record is the text as it was
            json.append(reinterpret_cast<const char *>(p), size_t(e - p));
            return true;
        }
        const quint64 key = tag >> 2;
        if (key >= tables.keys.size())
            return false;
        if (!first)
            json.push_back(',');
        first = false;
        json.push_back('"');
        json.append(tables.keys[size_t(key)]);
        json.append("\":");
        quint64 v;
        if (!getVarint(p, e, v))
            return false;
        switch (tag & 3) {
        case ArgInt: {
            char buf[24];
            const auto end = std::to_chars(buf, buf + sizeof buf, unzigzag(v)).ptr;
            json.append(buf, size_t(end - buf));
            break;
        }
        case ArgTable:
            if (v >= tables.values.size())
                return false;
            json.append(tables.values[size_t(v)]);
            break;
        default: // ArgInline
            if (v > quint64(e - p))
                return false;
            json.append(reinterpret_cast<const char *>(p), size_t(v));
            p += v;
        }
    }
    json.push_back('}');
    return true;
}

// --- rows ----------------------------------------------------------------------------------

void encode(std::vector<Row> &rows, std::string_view records, const ArgsEncoder &args,
            std::string &data, std::string &argsOut)
{
    if (!std::is_sorted(rows.begin(), rows.end(), before))
        std::sort(rows.begin(), rows.end(), before);
    data.clear();
    data.reserve(rows.size() * 16 + 1);
    data.push_back(char(kVersion));
    argsOut.clear();
    if (std::any_of(rows.begin(), rows.end(), [](const Row &r) { return r.hasArgs; })) {
        args.writeTables(argsOut);
        argsOut.reserve(argsOut.size() + records.size());
    }
    quint64 prev = 0;
    for (const Row &r : rows) {
        putVarint(data, quint64(r.id & (kChunkRows - 1)));
        putVarint(data, zigzag(qint64(quint64(r.ts) - prev))); // delta, wrapping
        prev = quint64(r.ts);
        putVarint(data, zigzag(r.dur));
        putVarint(data, quint64(r.name));
        putVarint(data, quint64(r.cat));
        putOptional(data, r.correlation);
        putOptional(data, r.externalId);
        putVarint(data, r.hasArgs ? quint64(r.argsSize) + 1 : 0);
        if (r.hasArgs)
            argsOut.append(records.substr(r.argsOffset, r.argsSize));
    }
}

bool isLegacyChunk(const void *data, qint64 size)
{
    return size > 0 && *static_cast<const unsigned char *>(data) == kLegacyVersion;
}

bool decode(qint64 chunk, const void *data, qint64 size, qint64 recordsSize, quint32 argsChunk,
            std::vector<Row> &out, bool acceptLegacy)
{
    auto p = static_cast<const unsigned char *>(data);
    const unsigned char *e = p + size;
    if (size < 1 || (*p != kVersion && !(acceptLegacy && *p == kLegacyVersion)))
        return false;
    ++p;
    quint64 prev = 0;
    quint64 argsAt = 0;
    while (p < e) {
        Row r;
        quint64 row, ts, dur, name, cat, argsLen;
        if (!getVarint(p, e, row) || row >= quint64(kChunkRows) || !getVarint(p, e, ts) ||
            !getVarint(p, e, dur) || !getVarint(p, e, name) || !getVarint(p, e, cat) ||
            !getOptional(p, e, r.correlation) || !getOptional(p, e, r.externalId) ||
            !getVarint(p, e, argsLen))
            return false;
        prev += quint64(unzigzag(ts));
        r.ts = qint64(prev);
        r.dur = unzigzag(dur);
        r.name = qint64(name);
        r.cat = qint64(cat);
        r.id = (chunk << kChunkRowBits) | qint64(row);
        r.hasArgs = argsLen != 0;
        if (r.hasArgs) {
            r.argsSize = quint32(argsLen - 1);
            r.argsOffset = size_t(argsAt);
            r.argsChunk = argsChunk;
            argsAt += argsLen - 1;
            if (recordsSize < 0 || argsAt > quint64(recordsSize))
                return false;
        }
        out.push_back(r);
    }
    return true;
}

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
    : m_chunks(db.prepare("SELECT id, data, args FROM slice_chunk WHERE track_id = ? ORDER BY id"))
{
}

bool TrackReader::read(TrackId track, bool withArgs, const std::function<void(const Row &)> &visit)
{
    m_error.clear();
    m_chunks.reset();
    m_chunks.bind(1, track);
    std::vector<Row> rows;
    while (m_chunks.step()) {
        const qint64 chunk = m_chunks.int64(0);
        const std::string_view data = m_chunks.blobView(1);
        const bool legacy = isLegacyChunk(data.data(), qint64(data.size()));
        qint64 recordsSize = std::numeric_limits<qint64>::max();
        m_args.blob.clear(); // capacity kept for the next chunk's blob
        m_args.tables = {};
        m_keyAsked.clear();
        m_keyIndex = -1;
        if (withArgs) {
            recordsSize = -1;
            if (!m_chunks.isNull(2)) {
                if (!m_args.load(m_chunks.blobView(2), legacy)) {
                    m_error = QStringLiteral("slice chunk %1 is malformed (its args tables)").arg(chunk);
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
    if (!m_chunks.errorString().isEmpty()) {
        m_error = m_chunks.errorString();
        return false;
    }
    m_args = {};
    return true;
}

std::optional<std::string_view> TrackReader::arg(const Row &row, std::string_view key)
{
    if (!row.hasArgs || row.argsOffset + row.argsSize > m_args.tables.records.size())
        return std::nullopt;
    const std::string_view record = m_args.tables.records.substr(row.argsOffset, row.argsSize);
    if (m_args.legacy) { // JSON text as it was
        const auto doc = QJsonDocument::fromJson(QByteArray::fromRawData(record.data(), qsizetype(record.size())));
        const QJsonValue v = doc.object().value(QLatin1String(key.data(), qsizetype(key.size())));
        if (v.isUndefined())
            return std::nullopt;
        m_json = v.isString() ? '"' + v.toString().toStdString() + '"'
                 : v.isDouble() ? QByteArray::number(v.toDouble(), 'g', 17).toStdString()
                                : QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).mid(1).chopped(1).toStdString();
        return m_json;
    }
    if (m_keyAsked != key) {
        m_keyAsked.assign(key);
        const auto it = std::find(m_args.tables.keys.begin(), m_args.tables.keys.end(), key);
        m_keyIndex = it == m_args.tables.keys.end() ? -1 : qint64(it - m_args.tables.keys.begin());
    }
    if (m_keyIndex < 0)
        return std::nullopt; // no row of the chunk has it
    auto p = reinterpret_cast<const unsigned char *>(record.data());
    const unsigned char *e = p + record.size();
    while (p < e) {
        quint64 tag, v;
        if (!getVarint(p, e, tag) || (tag & 3) == ArgRaw || !getVarint(p, e, v))
            return std::nullopt;
        const bool match = qint64(tag >> 2) == m_keyIndex;
        switch (tag & 3) {
        case ArgInt:
            if (match) {
                char buf[24];
                const auto end = std::to_chars(buf, buf + sizeof buf, unzigzag(v)).ptr;
                m_json.assign(buf, size_t(end - buf));
                return m_json;
            }
            break;
        case ArgTable:
            if (match)
                return v < m_args.tables.values.size() ? std::optional(m_args.tables.values[size_t(v)]) : std::nullopt;
            break;
        default: // ArgInline
            if (v > quint64(e - p))
                return std::nullopt;
            if (match)
                return std::string_view(reinterpret_cast<const char *>(p), size_t(v));
            p += v;
        }
    }
    return std::nullopt;
}

// --- ChunkWriter -------------------------------------------------------------------------

ChunkWriter::ChunkWriter(SqliteDb &db) : m_db(db)
{
    m_insert = db.prepare("INSERT INTO slice_chunk(id, track_id, count, min_ts, max_end, data, args) "
                          "VALUES(?,?,?,?,?,?,?)");
    m_nextChunk = db.scalar("SELECT coalesce(max(id), 0) + 1 FROM slice_chunk", 1);
}

ChunkWriter::Open &ChunkWriter::open(TrackId track)
{
    if (track == m_lastTrack)
        return m_open[m_lastOpen];
    auto [it, added] = m_openOf.try_emplace(track, m_open.size());
    if (added) {
        m_open.emplace_back();
        m_open.back().track = track;
    }
    m_lastTrack = track;
    m_lastOpen = it->second;
    return m_open[it->second];
}

SliceId ChunkWriter::add(TrackId track, TimeNs ts, TimeNs dur, StringId name, StringId category,
                         qint64 correlation, qint64 externalId, std::string_view args, bool hasArgs)
{
    Open &o = open(track);
    if (o.rows.empty())
        o.chunk = m_nextChunk++;
    Row r;
    r.ts = ts;
    r.dur = dur;
    r.name = name;
    r.cat = category;
    r.correlation = correlation;
    r.externalId = externalId;
    r.hasArgs = hasArgs;
    const size_t argsBefore = o.args.size();
    if (hasArgs)
        o.encoder.add(args, o.args, r);
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
                m_error = QStringLiteral("slice chunk %1 (%2 rows of track %3) would not read back; "
                                         "nothing of this source is kept")
                              .arg(o.chunk).arg(o.rows.size()).arg(o.track);
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
    std::sort(flows.begin(), flows.end());
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

namespace {

struct FlowRow
{
    qint64 id, source, kind, from, to;
};

// Appends a flow chunk's rows that pass `keep` to `out`. False when the blob is malformed.
template<typename Keep>
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

} // namespace

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

// --- the gml_slice virtual table ----------------------------------------------------------

namespace {

enum Column { ColId, ColTrack, ColTs, ColDur, ColName, ColCat, ColCorrelation, ColExternal, ColArgs };
enum Plan { ScanAll = 0, ById = 1, ByTrack = 2 };
// Added to the plan when the statement reads `args`: otherwise the args blobs (most of a
// chunk's bytes) are not read at all.
constexpr int kWithArgs = 4;

struct Table : sqlite3_vtab
{
    sqlite3 *db = nullptr;
    std::string schema;
};

struct Cursor : sqlite3_vtab_cursor
{
    sqlite3_stmt *chunks = nullptr;
    int preparedPlan = -1; // the plan `chunks` was prepared for
    bool pending = false; // `chunks` holds a row not read yet (next track's first chunk)
    TrackId track = 0;
    std::vector<Row> rows;
    // The args blobs of the chunks in `rows` (Row::argsChunk indexes this), read only when the
    // statement uses args; a row's args are decoded when asked for.
    std::vector<std::unique_ptr<ChunkArgs>> args;
    std::string json; // the args text of the current row
    size_t pos = 0;
    size_t end = 0; // rows[pos, end) are the result
    bool withArgs = false;
    // By id: `rows` hold all of chunk `chunk` and rowAt[r] is where its row r is, so the next
    // lookup in the same chunk (a join walks ids in order) reads nothing.
    qint64 chunk = 0;
    std::vector<int> rowAt;

    size_t size() const { return end; }

    ~Cursor()
    {
        sqlite3_finalize(chunks);
    }
};

Table *tableOf(sqlite3_vtab_cursor *c)
{
    return static_cast<Table *>(c->pVtab);
}

int setError(sqlite3_vtab *vt, int rc, const char *message)
{
    sqlite3_free(vt->zErrMsg);
    vt->zErrMsg = sqlite3_mprintf("%s", message);
    return rc;
}

constexpr char kSliceColumns[] =
    "CREATE TABLE x(id INTEGER, track_id INTEGER, ts INTEGER, dur INTEGER, name_id INTEGER, "
    "cat_id INTEGER, correlation INTEGER, external_id INTEGER, args TEXT)";
constexpr char kFlowColumns[] =
    "CREATE TABLE x(id INTEGER, source_id INTEGER, kind INTEGER, from_slice INTEGER, to_slice INTEGER)";

// The parts of the two modules that differ only in their cursor type and column declaration.
template<const char *Columns>
int connect(sqlite3 *db, void *, int, const char *const *argv, sqlite3_vtab **out, char **)
{
    const int rc = sqlite3_declare_vtab(db, Columns);
    if (rc != SQLITE_OK)
        return rc;
    auto *t = new Table;
    *static_cast<sqlite3_vtab *>(t) = {};
    t->db = db;
    t->schema = argv[1];
    *out = t;
    return SQLITE_OK;
}

int disconnect(sqlite3_vtab *vt)
{
    delete static_cast<Table *>(vt);
    return SQLITE_OK;
}

template<typename C>
int openCursor(sqlite3_vtab *, sqlite3_vtab_cursor **out)
{
    auto *c = new C;
    *static_cast<sqlite3_vtab_cursor *>(c) = {};
    *out = c;
    return SQLITE_OK;
}

template<typename C>
int closeCursor(sqlite3_vtab_cursor *cur)
{
    delete static_cast<C *>(cur);
    return SQLITE_OK;
}

// Moves to the next row; `load` fetches the next batch when the current one is used up, and
// leaves no rows at the end.
template<typename C, int (*load)(C *)>
int next(sqlite3_vtab_cursor *cur)
{
    auto *c = static_cast<C *>(cur);
    if (++c->pos < c->size())
        return SQLITE_OK;
    return load(c);
}

template<typename C>
int eof(sqlite3_vtab_cursor *cur)
{
    auto *c = static_cast<C *>(cur);
    return c->pos >= c->size();
}

template<typename C>
int rowid(sqlite3_vtab_cursor *cur, sqlite_int64 *out)
{
    auto *c = static_cast<C *>(cur);
    *out = c->rows[c->pos].id;
    return SQLITE_OK;
}

// ORDER BY terms that the cursor's order (track, ts, dur descending, id) satisfies. With one
// track, terms on track_id are trivially satisfied.
bool orderSatisfied(const sqlite3_index_info *info, bool oneTrack)
{
    static constexpr struct { int column; bool desc; } kOrder[] = {
        {ColTrack, false}, {ColTs, false}, {ColDur, true}, {ColId, false}};
    size_t next = 0;
    for (int i = 0; i < info->nOrderBy; ++i) {
        const auto &o = info->aOrderBy[i];
        const int column = o.iColumn < 0 ? ColId : o.iColumn;
        if (oneTrack && column == ColTrack)
            continue;
        if (oneTrack && next == 0)
            next = 1;
        if (next >= std::size(kOrder) || kOrder[next].column != column ||
            kOrder[next].desc != bool(o.desc))
            return false;
        ++next;
    }
    return true;
}

int bestIndex(sqlite3_vtab *, sqlite3_index_info *info)
{
    int idEq = -1, trackEq = -1;
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto &c = info->aConstraint[i];
        if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ)
            continue;
        if (c.iColumn == ColId || c.iColumn < 0)
            idEq = i;
        else if (c.iColumn == ColTrack)
            trackEq = i;
    }
    if (idEq >= 0) {
        info->idxNum = ById;
        info->aConstraintUsage[idEq].argvIndex = 1;
        info->aConstraintUsage[idEq].omit = 1;
        info->estimatedCost = 20;
        info->estimatedRows = 1;
        info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
        info->orderByConsumed = 1;
    } else if (trackEq >= 0) {
        info->idxNum = ByTrack;
        info->aConstraintUsage[trackEq].argvIndex = 1;
        info->aConstraintUsage[trackEq].omit = 1;
        info->estimatedCost = 2000;
        info->estimatedRows = 10000;
        info->orderByConsumed = orderSatisfied(info, true);
    } else {
        info->idxNum = ScanAll;
        info->estimatedCost = 2e7;
        info->estimatedRows = 1000000;
        info->orderByConsumed = orderSatisfied(info, false);
    }
    if (info->colUsed & (sqlite3_uint64(1) << ColArgs))
        info->idxNum |= kWithArgs;
    return SQLITE_OK;
}

// Appends the chunk under `chunks` (columns id, track_id, data, args) to the cursor's rows.
int readChunk(Cursor *c)
{
    sqlite3_stmt *st = c->chunks;
    const qint64 chunk = sqlite3_column_int64(st, 0);
    const void *data = sqlite3_column_blob(st, 2);
    const int dataSize = sqlite3_column_bytes(st, 2);
    auto malformed = [c, chunk] {
        char *msg = sqlite3_mprintf("slice chunk %lld is malformed", chunk);
        sqlite3_free(tableOf(c)->zErrMsg);
        tableOf(c)->zErrMsg = msg;
        return SQLITE_CORRUPT;
    };
    // Without the args column the blob is not read, and the rows' args offsets go unused.
    qint64 recordsSize = std::numeric_limits<qint64>::max();
    const auto argsChunk = quint32(c->args.size());
    const bool legacy = isLegacyChunk(data, dataSize);
    if (c->withArgs) {
        recordsSize = -1; // no blob: no row may have args
        if (const auto *blob = static_cast<const char *>(sqlite3_column_blob(st, 3))) {
            auto args = std::make_unique<ChunkArgs>();
            if (!args->load(std::string_view(blob, size_t(sqlite3_column_bytes(st, 3))), legacy))
                return malformed();
            recordsSize = qint64(args->tables.records.size());
            c->args.push_back(std::move(args));
        }
    }
    if (!decode(chunk, data, dataSize, recordsSize, argsChunk, c->rows, true))
        return malformed();
    return SQLITE_OK;
}

// Prepares `sql` into `stmt`, or keeps the statement already there for the same plan: inside a
// join, a cursor is filtered once per outer row.
int prepareFor(sqlite3_vtab *vt, sqlite3_stmt *&stmt, int &preparedPlan, int plan, const std::string &sql)
{
    Table *t = static_cast<Table *>(vt);
    if (stmt && preparedPlan == plan) {
        sqlite3_reset(stmt);
        return SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    stmt = nullptr;
    preparedPlan = plan;
    if (sqlite3_prepare_v2(t->db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
        return setError(vt, SQLITE_ERROR, sqlite3_errmsg(t->db));
    return SQLITE_OK;
}

// Reads every chunk of the next track into the cursor, in (ts, dur descending, id) order.
int loadTrack(Cursor *c)
{
    if (!c->pending) {
        c->pos = c->end; // no more rows (those held stay cached for a lookup by id)
        return SQLITE_OK;
    }
    c->rows.clear();
    c->args.clear();
    c->chunk = 0;
    c->track = sqlite3_column_int64(c->chunks, 1);
    bool sorted = true;
    int rc;
    do {
        const size_t first = c->rows.size();
        if ((rc = readChunk(c)) != SQLITE_OK)
            return rc;
        if (first > 0 && first < c->rows.size() && before(c->rows[first], c->rows[first - 1]))
            sorted = false;
        rc = sqlite3_step(c->chunks);
        c->pending = rc == SQLITE_ROW;
    } while (c->pending && sqlite3_column_int64(c->chunks, 1) == c->track);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return setError(c->pVtab, rc, sqlite3_errmsg(tableOf(c)->db));
    if (!sorted)
        std::sort(c->rows.begin(), c->rows.end(), before);
    c->pos = 0;
    c->end = c->rows.size();
    return SQLITE_OK;
}

// Points the cursor at slice `id`, reading its chunk unless it is the one already held.
int findById(Cursor *c, qint64 id)
{
    const qint64 chunk = id >> kChunkRowBits;
    c->pos = c->end = 0;
    if (chunk != c->chunk || c->chunk == 0) {
        c->rows.clear();
        c->args.clear();
        c->chunk = 0;
        sqlite3_bind_int64(c->chunks, 1, chunk);
        const int rc = sqlite3_step(c->chunks);
        if (rc == SQLITE_DONE)
            return SQLITE_OK; // no such chunk
        if (rc != SQLITE_ROW)
            return setError(c->pVtab, rc, sqlite3_errmsg(tableOf(c)->db));
        c->track = sqlite3_column_int64(c->chunks, 1);
        if (const int read = readChunk(c); read != SQLITE_OK)
            return read;
        c->chunk = chunk;
        c->rowAt.assign(kChunkRows, -1);
        for (size_t i = 0; i < c->rows.size(); ++i)
            c->rowAt[c->rows[i].id & (kChunkRows - 1)] = int(i);
    }
    if (const int at = c->rowAt[id & (kChunkRows - 1)]; at >= 0) {
        c->pos = size_t(at);
        c->end = c->pos + 1;
    }
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor *cur, int idxNum, const char *, int argc, sqlite3_value **argv)
{
    auto *c = static_cast<Cursor *>(cur);
    Table *t = tableOf(cur);
    const int plan = idxNum & ~kWithArgs;
    c->pending = false;
    c->pos = c->end = 0;
    if (c->preparedPlan != idxNum)
        c->chunk = 0; // rows held were read for another plan (or without args)
    c->withArgs = idxNum & kWithArgs;
    const std::string from = std::string("SELECT id, track_id, data, ") + (c->withArgs ? "args" : "NULL") +
                             " FROM \"" + t->schema + "\".slice_chunk";
    if (const int rc = prepareFor(cur->pVtab, c->chunks, c->preparedPlan, idxNum,
                                  from + (plan == ById      ? " WHERE id = ?"
                                          : plan == ByTrack ? " WHERE track_id = ? ORDER BY id"
                                                            : " ORDER BY track_id, id"));
        rc != SQLITE_OK)
        return rc;
    if (plan != ScanAll) {
        if (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_INTEGER)
            return SQLITE_OK; // NULL, text or a fraction matches no integer id: no rows
        const qint64 key = sqlite3_value_int64(argv[0]);
        if (plan == ById)
            return findById(c, key);
        sqlite3_bind_int64(c->chunks, 1, key);
    }
    const int rc = sqlite3_step(c->chunks);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return setError(cur->pVtab, rc, sqlite3_errmsg(t->db));
    c->pending = rc == SQLITE_ROW;
    return loadTrack(c);
}

int column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    auto *c = static_cast<Cursor *>(cur);
    const Row &r = c->rows[c->pos];
    auto optional = [ctx](qint64 v) {
        if (v == kNull)
            sqlite3_result_null(ctx);
        else
            sqlite3_result_int64(ctx, v);
    };
    switch (col) {
    case ColId: sqlite3_result_int64(ctx, r.id); break;
    case ColTrack: sqlite3_result_int64(ctx, c->track); break;
    case ColTs: sqlite3_result_int64(ctx, r.ts); break;
    case ColDur: sqlite3_result_int64(ctx, r.dur); break;
    case ColName: sqlite3_result_int64(ctx, r.name); break;
    case ColCat: optional(r.cat == 0 ? kNull : r.cat); break;
    case ColCorrelation: optional(r.correlation); break;
    case ColExternal: optional(r.externalId); break;
    case ColArgs: {
        if (!r.hasArgs || r.argsChunk >= c->args.size()) {
            sqlite3_result_null(ctx);
            break;
        }
        const ChunkArgs &chunkArgs = *c->args[r.argsChunk];
        const ArgsTables &tables = chunkArgs.tables;
        if (chunkArgs.legacy) {
            const std::string_view text = tables.records.substr(r.argsOffset, r.argsSize);
            sqlite3_result_text(ctx, text.data(), int(text.size()), SQLITE_TRANSIENT);
            break;
        }
        c->json.clear();
        if (!appendArgsJson(tables.records.substr(r.argsOffset, r.argsSize), tables, c->json)) {
            const std::string msg = "slice chunk " + std::to_string(r.id >> kChunkRowBits) +
                                    " is malformed (args of slice " + std::to_string(r.id) + ")";
            sqlite3_result_error(ctx, msg.c_str(), -1);
            return SQLITE_CORRUPT;
        }
        sqlite3_result_text(ctx, c->json.data(), int(c->json.size()), SQLITE_TRANSIENT);
        break;
    }
    default: sqlite3_result_null(ctx);
    }
    return SQLITE_OK;
}

// --- the gml_flow virtual table -----------------------------------------------------------

enum FlowColumn { FlowId, FlowSource, FlowKind, FlowFrom, FlowTo };
enum FlowPlan { FlowScanAll = 0, FlowById = 1, FlowBySource = 2, FlowByFrom = 3, FlowByTo = 4 };

struct FlowCursor : sqlite3_vtab_cursor
{
    sqlite3_stmt *chunks = nullptr; // id, source_id, data
    int preparedPlan = -1;          // the plan `chunks` was prepared for
    int plan = FlowScanAll;
    qint64 key = 0;
    std::vector<FlowRow> rows;
    size_t pos = 0;

    size_t size() const { return rows.size(); }

    ~FlowCursor()
    {
        sqlite3_finalize(chunks);
    }
};

int flowBestIndex(sqlite3_vtab *, sqlite3_index_info *info)
{
    int use[5] = {-1, -1, -1, -1, -1};
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto &c = info->aConstraint[i];
        if (c.usable && c.op == SQLITE_INDEX_CONSTRAINT_EQ)
            use[c.iColumn < 0 ? FlowId : c.iColumn] = i;
    }
    // Most selective first. A lookup by slice reads every flow of the slice's run, so it is
    // priced well above a lookup by source, which reads one source's flows.
    static constexpr struct { int column; FlowPlan plan; double cost; double rows; } kPlans[] = {
        {FlowId, FlowById, 20, 1},
        {FlowFrom, FlowByFrom, 1e5, 4},
        {FlowTo, FlowByTo, 1e5, 4},
        {FlowSource, FlowBySource, 5e4, 1e5},
    };
    for (const auto &p : kPlans) {
        if (use[p.column] < 0)
            continue;
        info->idxNum = p.plan;
        info->aConstraintUsage[use[p.column]].argvIndex = 1;
        info->aConstraintUsage[use[p.column]].omit = 1;
        info->estimatedCost = p.cost;
        info->estimatedRows = sqlite3_int64(p.rows);
        if (p.plan == FlowById)
            info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
        return SQLITE_OK;
    }
    info->idxNum = FlowScanAll;
    info->estimatedCost = 1e6;
    info->estimatedRows = 1000000;
    return SQLITE_OK;
}

// Reads chunks until one has rows for the plan, or none is left.
int flowLoad(FlowCursor *c)
{
    c->rows.clear();
    c->pos = 0;
    if (!c->chunks)
        return SQLITE_OK;
    const qint64 key = c->key;
    int rc = SQLITE_DONE;
    while (c->rows.empty() && (rc = sqlite3_step(c->chunks)) == SQLITE_ROW) {
        const qint64 chunk = sqlite3_column_int64(c->chunks, 0);
        const qint64 source = sqlite3_column_int64(c->chunks, 1);
        const void *data = sqlite3_column_blob(c->chunks, 2);
        const int size = sqlite3_column_bytes(c->chunks, 2);
        const int plan = c->plan;
        const bool ok = decodeFlows(chunk, source, data, size, c->rows, [plan, key](const FlowRow &r) {
            return plan == FlowById ? r.id == key
                   : plan == FlowByFrom ? r.from == key
                   : plan == FlowByTo   ? r.to == key
                                        : true;
        });
        if (!ok) {
            sqlite3_free(c->pVtab->zErrMsg);
            c->pVtab->zErrMsg = sqlite3_mprintf("flow chunk %lld is malformed", chunk);
            return SQLITE_CORRUPT;
        }
    }
    if (c->rows.empty() && rc != SQLITE_DONE)
        return setError(c->pVtab, rc, sqlite3_errmsg(tableOf(c)->db));
    return SQLITE_OK;
}

int flowFilter(sqlite3_vtab_cursor *cur, int plan, const char *, int argc, sqlite3_value **argv)
{
    auto *c = static_cast<FlowCursor *>(cur);
    Table *t = tableOf(cur);
    c->plan = plan;
    c->rows.clear();
    if (plan != FlowScanAll && (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_INTEGER))
        return SQLITE_OK; // no integer key: no rows
    c->key = plan == FlowScanAll ? 0 : sqlite3_value_int64(argv[0]);
    const std::string s = "\"" + t->schema + "\".";
    std::string sql = "SELECT id, source_id, data FROM " + s + "flow_chunk";
    if (plan == FlowById)
        sql += " WHERE id = ?1";
    else if (plan == FlowBySource)
        sql += " WHERE source_id = ?1 ORDER BY id";
    else if (plan == FlowByFrom || plan == FlowByTo)
        sql += " WHERE source_id IN (SELECT src.id FROM " + s + "source src WHERE src.run_id = "
               "(SELECT t.run_id FROM " + s + "slice_chunk k JOIN " + s + "track t ON t.id = k.track_id "
               "WHERE k.id = ?1)) ORDER BY id";
    else
        sql += " ORDER BY id";
    if (const int rc = prepareFor(cur->pVtab, c->chunks, c->preparedPlan, plan, sql); rc != SQLITE_OK)
        return rc;
    if (plan != FlowScanAll)
        sqlite3_bind_int64(c->chunks, 1,
                           plan == FlowBySource ? c->key : c->key >> kChunkRowBits);
    return flowLoad(c);
}

int flowColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    auto *c = static_cast<FlowCursor *>(cur);
    const FlowRow &r = c->rows[c->pos];
    const qint64 values[] = {r.id, r.source, r.kind, r.from, r.to};
    if (col >= 0 && col < int(std::size(values)))
        sqlite3_result_int64(ctx, values[col]);
    else
        sqlite3_result_null(ctx);
    return SQLITE_OK;
}

template<typename C, const char *Columns, auto bestIndex, auto filter, int (*load)(C *), auto column>
sqlite3_module makeModule()
{
    sqlite3_module m{};
    m.iVersion = 1;
    m.xCreate = connect<Columns>;
    m.xConnect = connect<Columns>;
    m.xBestIndex = bestIndex;
    m.xDisconnect = disconnect;
    m.xDestroy = disconnect;
    m.xOpen = openCursor<C>;
    m.xClose = closeCursor<C>;
    m.xFilter = filter;
    m.xNext = next<C, load>;
    m.xEof = eof<C>;
    m.xColumn = column;
    m.xRowid = rowid<C>;
    return m;
}

} // namespace

bool registerModule(sqlite3 *db, QString *error)
{
    static const sqlite3_module slices =
        makeModule<Cursor, kSliceColumns, bestIndex, filter, loadTrack, column>();
    static const sqlite3_module flows =
        makeModule<FlowCursor, kFlowColumns, flowBestIndex, flowFilter, flowLoad, flowColumn>();
    int rc = sqlite3_create_module_v2(db, "gml_slice", &slices, nullptr, nullptr);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_module_v2(db, "gml_flow", &flows, nullptr, nullptr);
    if (rc != SQLITE_OK && error)
        *error = QString::fromUtf8(sqlite3_errmsg(db));
    return rc == SQLITE_OK;
}

} // namespace gml::slicestore
