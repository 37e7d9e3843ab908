// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QtGlobal>

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gml::json {

// A value seen by the scanner, pointing into the scanner's buffer (valid until the next
// refill, i.e. while the current event is being handled).
struct Value
{
    enum class Type : quint8 { Missing, String, Number, Object, Array, True, False, Null };
    Type type = Type::Missing;
    bool escaped = false;       // String only: contains backslash escapes
    const char *data = nullptr; // String: contents without quotes; others: the raw text
    size_t size = 0;
    qint64 offset = -1; // stream offset of the value's first byte

    bool isMissing() const { return type == Type::Missing; }
    bool isString() const { return type == Type::String; }
    bool isNumber() const { return type == Type::Number; }
    std::string_view raw() const { return {data, size}; }
    bool equals(std::string_view s) const { return type == Type::String && raw() == s; }
};

struct Member
{
    std::string_view key; // raw key text (keys with escapes are kept raw)
    Value value;
};

// Thrown inside the scanner; importers catch it and turn it into an error value.
struct ParseError
{
    qint64 offset;
    QString message;
};

// Decodes a JSON string value (escapes, \u surrogate pairs) into UTF-8.
std::string unescape(const Value &v);
// How an error names what it found at p: "'x'", "byte 0x1f", or "the end of the file".
QString describeByte(const char *p, const char *e);
// Index of the first byte that is not valid UTF-8, or -1 when all of it is valid.
qint64 findInvalidUtf8(const char *p, size_t n);
// Replaces invalid UTF-8 sequences with U+FFFD.
std::string repairUtf8(std::string_view s);

// Integer value of a Number (or of a String holding an integer); nullopt otherwise.
std::optional<qint64> toInt64(const Value &v);
std::optional<double> toDouble(const Value &v);
// Microseconds as written in a trace ("123", "123.456", "1.5e3") to exact nanoseconds.
// Parses the text itself: a double would lose the ns digits of absolute epoch microseconds.
std::optional<qint64> microsToNanos(const Value &v);

// Keys that repeat within one object of a well-formed JSON document (most parsers keep only
// one of the values, which one differs): how many, and the first as its key and byte offset.
struct RepeatedKeys
{
    qint64 count = 0;
    std::string firstKey;
    qint64 firstOffset = -1;
};
RepeatedKeys findRepeatedKeys(const char *p, size_t n);

} // namespace gml::json
