// SPDX-License-Identifier: GPL-3.0-or-later
#include "compactjson.h"

#include <QByteArray>
#include <QCborArray>
#include <QCborMap>
#include <QCborValue>
#include <QLocale>

#include <charconv>
#include <cmath>

namespace gml {

namespace {

char hexDigit(unsigned v)
{
    return char(v < 10 ? '0' + v : 'a' + v - 10);
}

void appendEscape(std::string &out, char16_t u)
{
    out += "\\u";
    out.push_back(hexDigit((u >> 12) & 0xf));
    out.push_back(hexDigit((u >> 8) & 0xf));
    out.push_back(hexDigit((u >> 4) & 0xf));
    out.push_back(hexDigit(u & 0xf));
}

// As Qt escapes a string: the quote, the backslash and ASCII controls escaped (the five with a
// letter by it), the rest as UTF-8, and a surrogate that is not half of a pair as \uXXXX.
void appendString(std::string &out, const QString &s)
{
    out.push_back('"');
    const auto *p = reinterpret_cast<const char16_t *>(s.constData());
    const char16_t *const e = p + s.size();
    while (p != e) {
        const char16_t u = *p++;
        if (u < 0x80) {
            if (u >= 0x20 && u != u'"' && u != u'\\') {
                out.push_back(char(u));
                continue;
            }
            // The five controls with a letter of their own, the quote and the backslash; the
            // other controls as \u00XX.
            static constexpr char kLetter[0x20] = {0, 0,   0,   0,   0, 0,   0,
                                                   0, 'b', 't', 'n', 0, 'f', 'r'};
            const char letter = u == u'"' ? '"' : u == u'\\' ? '\\' : kLetter[u];
            if (letter) {
                out.push_back('\\');
                out.push_back(letter);
            } else {
                appendEscape(out, u);
            }
        } else if (u < 0x800) {
            out.push_back(char(0xc0 | (u >> 6)));
            out.push_back(char(0x80 | (u & 0x3f)));
        } else if (u < 0xd800 || u > 0xdfff) {
            out.push_back(char(0xe0 | (u >> 12)));
            out.push_back(char(0x80 | ((u >> 6) & 0x3f)));
            out.push_back(char(0x80 | (u & 0x3f)));
        } else if (u < 0xdc00 && p != e && *p >= 0xdc00 && *p <= 0xdfff) {
            const char32_t c = 0x10000 + ((char32_t(u) - 0xd800) << 10) + (char32_t(*p++) - 0xdc00);
            out.push_back(char(0xf0 | (c >> 18)));
            out.push_back(char(0x80 | ((c >> 12) & 0x3f)));
            out.push_back(char(0x80 | ((c >> 6) & 0x3f)));
            out.push_back(char(0x80 | (c & 0x3f)));
        } else {
            appendEscape(out, u);
        }
    }
    out.push_back('"');
}

void appendMap(std::string &out, const QCborMap &map);
void appendArray(std::string &out, const QCborArray &array);

template <typename Value> void appendValue(std::string &out, const Value &v)
{
    switch (v.type()) {
    case QCborValue::True:
        out += "true";
        break;
    case QCborValue::False:
        out += "false";
        break;
    case QCborValue::Integer: {
        char digits[24];
        const auto r = std::to_chars(digits, digits + sizeof digits, v.toInteger());
        out.append(digits, r.ptr);
        break;
    }
    case QCborValue::Double: {
        // Qt's own shortest form ("1e+06" for a million held as a double), or null.
        const double d = v.toDouble();
        if (std::isfinite(d)) {
            const QByteArray text = QByteArray::number(d, 'g', QLocale::FloatingPointShortest);
            out.append(text.constData(), size_t(text.size()));
        } else {
            out += "null";
        }
        break;
    }
    case QCborValue::String:
        appendString(out, v.toString());
        break;
    case QCborValue::Array:
        appendArray(out, v.toArray());
        break;
    case QCborValue::Map:
        appendMap(out, v.toMap());
        break;
    default:
        out += "null";
    }
}

void appendMap(std::string &out, const QCborMap &map)
{
    out.push_back('{');
    bool first = true;
    for (auto it = map.cbegin(); it != map.cend(); ++it) {
        if (!first)
            out.push_back(',');
        first = false;
        appendString(out, it.key().toString());
        out.push_back(':');
        appendValue(out, it.value());
    }
    out.push_back('}');
}

void appendArray(std::string &out, const QCborArray &array)
{
    out.push_back('[');
    bool first = true;
    for (auto it = array.cbegin(); it != array.cend(); ++it) {
        if (!first)
            out.push_back(',');
        first = false;
        appendValue(out, *it);
    }
    out.push_back(']');
}

} // namespace

std::string compactJson(const QJsonObject &object)
{
    std::string out;
    out.reserve(256);
    appendMap(out, QCborMap::fromJsonObject(object)); // shares the object's elements
    return out;
}

std::string compactJson(const QJsonArray &array)
{
    std::string out;
    out.reserve(256);
    appendArray(out, QCborArray::fromJsonArray(array));
    return out;
}

} // namespace gml
