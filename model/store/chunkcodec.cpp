// SPDX-License-Identifier: GPL-3.0-or-later
// The slice chunk codec: args records (ArgsEncoder, their tables and JSON) and rows encoded
// into and decoded from a chunk's blobs.
#include "chunkformat.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

namespace gml::slicestore {

// --- args records -------------------------------------------------------------------------

namespace {

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
    const size_t slot = keySlot(key);
    quint32 index = m_keySlot[slot];
    if (index != kNone && m_keys[index] == key) {
        // found without hashing
    } else if (auto it = m_keyOf.find(key); it != m_keyOf.end()) {
        index = it->second;
    } else {
        index = quint32(m_keys.size());
        m_keys.push_back(m_keyOf.emplace(std::string(key), index).first->first);
        m_valueOfKey.push_back(kNone);
        m_tableBytes += key.size() + 2;
    }
    m_keySlot[slot] = index;
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
            encodeMember(key, value, position++, records);
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

void ArgsEncoder::encodeMember(std::string_view key, std::string_view value, size_t position,
                               std::string &records)
{
    const quint32 k = keyIndex(key, position);
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
}

void ArgsEncoder::add(std::span<const ArgMember> members, std::string &records, Row &row)
{
    const size_t start = records.size();
    row.argsOffset = start;
    size_t position = 0;
    for (const ArgMember &m : members)
        encodeMember(m.key, m.value, position++, records);
    row.argsSize = quint32(records.size() - start);
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
    m_keySlot.fill(kNone);
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

} // namespace gml::slicestore
