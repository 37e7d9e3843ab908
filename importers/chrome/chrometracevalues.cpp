// SPDX-License-Identifier: GPL-3.0-or-later
// The Chrome trace reader's JSON values: strings (SSE2 where there), containers skipped whole,
// scalars and the args object of an event. The document and its events: chrometracereader.cpp.
#include "chrometracereader.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gml {

using json::describeByte;
using json::Value;

// From just after a string's opening quote: its closing quote, or nullptr when the buffer ends
// first. Sets `escaped` when the string holds a backslash escape. Sixteen bytes at a time where
// SSE2 is there (every x86-64), a byte at a time elsewhere.
static inline const char *findStringEnd(const char *p, const char *e, bool &escaped)
{
    for (;;) {
#if defined(__SSE2__)
        const __m128i quote = _mm_set1_epi8('"');
        const __m128i backslash = _mm_set1_epi8('\\');
        while (e - p >= 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
            const int mask = _mm_movemask_epi8(
                _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
            if (mask) {
                p += __builtin_ctz(unsigned(mask));
                break;
            }
            p += 16;
        }
#endif
        while (p < e && *p != '"' && *p != '\\')
            ++p;
        if (p >= e)
            return nullptr;
        if (*p == '"')
            return p;
        escaped = true;
        if (e - p < 2)
            return nullptr;
        p += 2; // the backslash and the byte it escapes
    }
}

void ChromeTraceReader::expect(const char *&p, const char *e, char c, const char *what)
{
    skipWs(p, e);
    if (p >= e)
        throw NeedMore{};
    if (*p != c)
        fail(p,
             QStringLiteral("expected %1, found %2").arg(QLatin1String(what), describeByte(p, e)));
    ++p;
}

void ChromeTraceReader::parseString(const char *&p, const char *e, Value &out)
{
    // p is at the opening quote.
    out.type = Value::Type::String;
    out.offset = offsetOf(p);
    const char *s = p + 1;
    bool escaped = false;
    const char *q = findStringEnd(s, e, escaped);
    if (!q)
        throw NeedMore{};
    out.data = s;
    out.size = size_t(q - s);
    out.escaped = escaped;
    p = q + 1;
}

void ChromeTraceReader::skipContainer(const char *&p, const char *e)
{
    int depth = 0;
    while (p < e) {
        const char c = *p;
        if (c == '"') {
            Value ignored;
            parseString(p, e, ignored);
            continue;
        }
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) {
                ++p;
                return;
            }
        }
        ++p;
    }
    throw NeedMore{};
}

Value ChromeTraceReader::parseValue(const char *&p, const char *e)
{
    skipWs(p, e);
    if (p >= e)
        throw NeedMore{};
    Value v;
    v.offset = offsetOf(p);
    const char c = *p;
    if (c == '"') {
        parseString(p, e, v);
    } else if (c == '{' || c == '[') {
        const char *s = p;
        skipContainer(p, e);
        v.type = c == '{' ? Value::Type::Object : Value::Type::Array;
        v.data = s;
        v.size = size_t(p - s);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        const char *s = p;
        while (p < e && ((*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '+' ||
                         *p == 'e' || *p == 'E'))
            ++p;
        if (p >= e)
            throw NeedMore{};
        v.type = Value::Type::Number;
        v.data = s;
        v.size = size_t(p - s);
    } else {
        static constexpr struct
        {
            const char *text;
            size_t n;
            Value::Type type;
        } literals[] = {
            {"true", 4, Value::Type::True},
            {"false", 5, Value::Type::False},
            {"null", 4, Value::Type::Null},
            // Not JSON, but Python's json.dump writes them for float('nan'/'inf').
            {"NaN", 3, Value::Type::Null},
            {"Infinity", 8, Value::Type::Null},
        };
        for (const auto &lit : literals) {
            if (*p != lit.text[0])
                continue;
            if (size_t(e - p) < lit.n)
                throw NeedMore{};
            if (std::memcmp(p, lit.text, lit.n) == 0) {
                v.type = lit.type;
                v.data = p;
                v.size = lit.n;
                p += lit.n;
                return v;
            }
        }
        fail(p, QStringLiteral("expected a JSON value, found %1").arg(describeByte(p, e)));
    }
    return v;
}

void ChromeTraceReader::parseArgs(const char *&p, const char *e, Value &out)
{
    // p at '{'. Records top-level members; nested values are kept raw.
    m_argMembers.clear();
    out.type = Value::Type::Object;
    out.offset = offsetOf(p);
    const char *s = p++;
    skipWs(p, e);
    if (p >= e)
        throw NeedMore{};
    if (*p == '}') {
        ++p;
    } else {
        for (;;) {
            skipWs(p, e);
            if (p >= e)
                throw NeedMore{};
            if (*p != '"')
                fail(p, QStringLiteral("expected a key string in args, found %1")
                            .arg(describeByte(p, e)));
            Value key;
            parseString(p, e, key);
            expect(p, e, ':', "':' after a key in args");
            json::Member m;
            m.key = key.raw();
            m.value = parseValue(p, e);
            m_argMembers.push_back(m);
            skipWs(p, e);
            if (p >= e)
                throw NeedMore{};
            if (*p == ',') {
                ++p;
                continue;
            }
            if (*p == '}') {
                ++p;
                break;
            }
            fail(p,
                 QStringLiteral("expected ',' or '}' in args, found %1").arg(describeByte(p, e)));
        }
    }
    out.data = s;
    out.size = size_t(p - s);
}

} // namespace gml
