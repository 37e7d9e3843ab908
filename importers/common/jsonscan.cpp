// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonscan.h"

#include <unordered_set>
#include <vector>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace gml::json {

static int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void appendUtf8(std::string &out, uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

std::string unescape(const Value &v)
{
    if (!v.escaped)
        return std::string(v.raw());
    std::string out;
    out.reserve(v.size);
    const char *p = v.data;
    const char *e = v.data + v.size;
    auto readHex4 = [&](const char *q, uint32_t *cp) {
        if (e - q < 4)
            return false;
        uint32_t x = 0;
        for (int i = 0; i < 4; ++i) {
            const int h = hexValue(q[i]);
            if (h < 0)
                return false;
            x = (x << 4) | uint32_t(h);
        }
        *cp = x;
        return true;
    };
    while (p < e) {
        if (*p != '\\') {
            out += *p++;
            continue;
        }
        if (++p >= e)
            break;
        const char c = *p++;
        switch (c) {
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'u': {
            uint32_t cp = 0;
            if (!readHex4(p, &cp)) {
                out += "\xEF\xBF\xBD";
                break;
            }
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo = 0;
                if (e - p >= 6 && p[0] == '\\' && p[1] == 'u' && readHex4(p + 2, &lo) &&
                    lo >= 0xDC00 && lo <= 0xDFFF) {
                    p += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            appendUtf8(out, cp);
            break;
        }
        default:
            out += c;
            break; // \" \\ \/ and anything else verbatim
        }
    }
    return out;
}

// Length of the valid UTF-8 sequence at p, or 0 if invalid.
static size_t utf8SequenceLength(const unsigned char *p, const unsigned char *e)
{
    const unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t n = 0;
    uint32_t min = 0;
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (size_t(e - p) < n)
        return 0;
    uint32_t cp = c & (0x7F >> n);
    for (size_t i = 1; i < n; ++i) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

qint64 findInvalidUtf8(const char *data, size_t n)
{
    const auto *p = reinterpret_cast<const unsigned char *>(data);
    const auto *e = p + n;
    const auto *start = p;
    while (p < e) {
        // Fast path: eight ASCII bytes at a time.
        if (e - p >= 8) {
            uint64_t w;
            std::memcpy(&w, p, 8);
            if ((w & 0x8080808080808080ULL) == 0) {
                p += 8;
                continue;
            }
        }
        const size_t len = utf8SequenceLength(p, e);
        if (len == 0)
            return p - start;
        p += len;
    }
    return -1;
}

std::string repairUtf8(std::string_view s)
{
    std::string out;
    out.reserve(s.size() + 8);
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const auto *e = p + s.size();
    while (p < e) {
        const size_t len = utf8SequenceLength(p, e);
        if (len == 0) {
            out += "\xEF\xBF\xBD";
            ++p;
        } else {
            out.append(reinterpret_cast<const char *>(p), len);
            p += len;
        }
    }
    return out;
}

std::optional<qint64> toInt64(const Value &v)
{
    if (v.type != Value::Type::Number && v.type != Value::Type::String)
        return std::nullopt;
    if (v.size == 0 || v.size > 20)
        return std::nullopt;
    const char *p = v.data;
    const char *e = v.data + v.size;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        ++p;
    }
    if (p == e)
        return std::nullopt;
    qint64 x = 0;
    for (; p < e; ++p) {
        if (*p < '0' || *p > '9')
            break;
        const int digit = *p - '0';
        if (x > (std::numeric_limits<qint64>::max() - digit) / 10)
            return std::nullopt; // past 2^63 - 1 ("18446744073709551615" wrapped to -1)
        x = x * 10 + digit;
    }
    if (p != e) {
        // "12.0" and "1e3" still name an integer; anything else does not.
        auto d = toDouble(v);
        if (!d || std::floor(*d) != *d || std::abs(*d) > 9.2e18)
            return std::nullopt;
        return qint64(*d);
    }
    return neg ? -x : x;
}

std::optional<double> toDouble(const Value &v)
{
    if (v.type != Value::Type::Number && v.type != Value::Type::String)
        return std::nullopt;
    if (v.size == 0 || v.size > 64)
        return std::nullopt;
    // from_chars (correctly rounded, as strtod is) takes most numbers in a fifth of strtod's
    // instructions; what it refuses or does not read to the end (a '+', hex, whitespace, an
    // underflow) goes to strtod as before, so the value is the same.
    {
        double d = 0;
        const auto [end, ec] = std::from_chars(v.data, v.data + v.size, d);
        if (ec == std::errc() && end == v.data + v.size)
            return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
    }
    char buf[72];
    std::memcpy(buf, v.data, v.size);
    buf[v.size] = 0;
    char *end = nullptr;
    const double d = std::strtod(buf, &end);
    if (end != buf + v.size || !std::isfinite(d))
        return std::nullopt;
    return d;
}

std::optional<qint64> microsToNanos(const Value &v)
{
    if (v.type != Value::Type::Number)
        return std::nullopt;
    const char *p = v.data;
    const char *e = v.data + v.size;
    bool neg = false;
    if (p < e && *p == '-') {
        neg = true;
        ++p;
    }
    const char *intStart = p;
    qint64 whole = 0;
    int digits = 0;
    while (p < e && *p >= '0' && *p <= '9') {
        whole = whole * 10 + (*p++ - '0');
        if (++digits > 15)
            break; // beyond 15 digits of µs (31 years past 2^53 ns) fall back to double
    }
    if (p == intStart)
        return std::nullopt;
    qint64 frac = 0;
    if (p < e && *p == '.') {
        ++p;
        int n = 0;
        bool roundUp = false;
        while (p < e && *p >= '0' && *p <= '9') {
            if (n < 3)
                frac = frac * 10 + (*p - '0');
            else if (n == 3)
                roundUp = *p >= '5';
            ++n;
            ++p;
        }
        for (int k = std::min(n, 3); k < 3; ++k)
            frac *= 10;
        if (roundUp)
            ++frac;
    }
    // Exact while it fits: absolute epoch µs have 16 digits. Beyond (a 16-digit value over
    // 9.2e15 µs overflowed here; found by fuzz_chrometrace) the double path bounds it.
    qint64 ns = 0;
    if (p == e && !__builtin_mul_overflow(whole, qint64(1000), &ns) &&
        !__builtin_add_overflow(ns, frac, &ns))
        return neg ? -ns : ns;
    auto d = toDouble(v);
    if (!d || std::abs(*d) > 9.2e15)
        return std::nullopt;
    return qint64(std::llround(*d * 1000.0));
}

QString describeByte(const char *p, const char *e)
{
    if (p >= e)
        return QStringLiteral("the end of the file");
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7F)
        return QStringLiteral("'%1'").arg(QLatin1Char(char(c)));
    return QStringLiteral("byte 0x%1").arg(c, 2, 16, QLatin1Char('0'));
}

RepeatedKeys findRepeatedKeys(const char *data, size_t n)
{
    RepeatedKeys out;
    // Per open container: an object's keys so far (a set per level; objects are small), or
    // none for an array. A string is a key when it opens an object member.
    struct Level
    {
        bool object;
        bool expectKey;
        std::unordered_set<std::string_view> keys;
    };
    std::vector<Level> stack;
    for (size_t i = 0; i < n; ++i) {
        const char c = data[i];
        if (c == '"') {
            const size_t start = ++i;
            while (i < n && data[i] != '"')
                i += data[i] == '\\' ? 2 : 1;
            if (i > n)
                break;
            if (!stack.empty() && stack.back().object && stack.back().expectKey) {
                const std::string_view key(data + start, i - start);
                if (!stack.back().keys.insert(key).second && out.count++ == 0) {
                    out.firstKey = std::string(key);
                    out.firstOffset = qint64(start) - 1;
                }
                stack.back().expectKey = false;
            }
        } else if (c == '{' || c == '[') {
            stack.push_back({c == '{', c == '{', {}});
        } else if (c == '}' || c == ']') {
            if (!stack.empty())
                stack.pop_back();
        } else if (c == ',' && !stack.empty() && stack.back().object) {
            stack.back().expectKey = true;
        }
    }
    return out;
}

} // namespace gml::json
