// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>

namespace google::protobuf {
class Descriptor;
}

namespace gml::protowire {

// Where protobuf bytes stop being a well-formed message, and what was there instead.
struct Problem
{
    qint64 offset = -1; // byte offset in the file
    QString message;
};

// Reads a base-128 varint at `p` (advanced past it). False when the bytes end first or the
// varint runs past 10 bytes.
bool readVarint(const char *&p, const char *end, quint64 &value);

// Walks data[0, size) as an encoding of `type` (libprotobuf reports only that a parse failed,
// not where): every tag, varint, fixed value and length, descending into the fields `type`
// declares as messages. The first problem found, with its offset (`base` + position): a
// length that runs past the end (the file was cut short), a tag or varint that is not one,
// field number 0, a wire type no encoder writes, or a field of `type` in another wire type
// than its own (libprotobuf would silently drop it). nullopt: libprotobuf will parse it and
// every field it knows is read.
// `unknown`, when given, counts the fields whose number `type` (or a message in it) does not
// define: libprotobuf skips them without a word, and in a file of a known writer they mean a
// damaged file (a flipped bit) or a newer writer, which the importer says (issue 56).
struct UnknownFields
{
    qint64 count = 0;
    qint64 firstOffset = -1;
    QString first; // "XEvent field 9"
};
std::optional<Problem> check(const google::protobuf::Descriptor *type, const char *data,
                             qint64 size, qint64 base, UnknownFields *unknown = nullptr);

} // namespace gml::protowire
