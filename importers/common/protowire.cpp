// SPDX-License-Identifier: GPL-3.0-or-later
#include "protowire.h"

#include <google/protobuf/descriptor.h>

namespace gml::protowire {

bool readVarint(const char *&p, const char *end, quint64 &value)
{
    value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return false;
        const auto byte = static_cast<unsigned char>(*p++);
        value |= quint64(byte & 0x7f) << shift;
        if (byte < 0x80)
            return true;
    }
    return false; // more than 10 bytes
}

namespace {

QString fieldName(const google::protobuf::Descriptor *type, quint64 number)
{
    const auto *f = type->FindFieldByNumber(int(number));
    const QString typeName = QString::fromStdString(std::string(type->name()));
    return f ? QStringLiteral("%1.%2 (field %3)")
                   .arg(typeName, QString::fromStdString(std::string(f->name())))
                   .arg(number)
             : QStringLiteral("field %1 of %2").arg(number).arg(typeName);
}

// The wire type an encoder writes for a field of this type (a repeated number may also come
// packed, as bytes).
int wireTypeOf(const google::protobuf::FieldDescriptor *f)
{
    using google::protobuf::FieldDescriptor;
    switch (f->type()) {
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
        return 1;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
        return 5;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE:
        return 2;
    case FieldDescriptor::TYPE_GROUP:
        return 3;
    default:
        return 0; // the varint numbers, bool and enum
    }
}

QString wireTypeName(int wire)
{
    switch (wire) {
    case 0:
        return QStringLiteral("a varint");
    case 1:
        return QStringLiteral("an 8-byte value");
    case 2:
        return QStringLiteral("bytes with a length");
    case 5:
        return QStringLiteral("a 4-byte value");
    default:
        return QStringLiteral("wire type %1").arg(wire);
    }
}

// Messages nest a few levels in the formats read (XSpace > XPlane > XLine > XEvent > XStat);
// libprotobuf stops at 100.
constexpr int kMaxDepth = 64;

std::optional<Problem> walk(const google::protobuf::Descriptor *type, const char *begin,
                            const char *end, qint64 base, int depth, UnknownFields *unknown)
{
    using google::protobuf::FieldDescriptor;
    if (depth > kMaxDepth)
        return Problem{base, QStringLiteral("messages nested more than %1 deep").arg(kMaxDepth)};
    const char *p = begin;
    while (p < end) {
        const qint64 at = base + (p - begin);
        quint64 tag = 0;
        if (!readVarint(p, end, tag))
            return Problem{
                at, p >= end
                        ? QStringLiteral("a field tag is cut short (%1 ends here); the file was "
                                         "cut off or corrupted")
                              .arg(QString::fromStdString(std::string(type->name())))
                        : QStringLiteral("a field tag longer than 10 bytes; expected a %1 field")
                              .arg(QString::fromStdString(std::string(type->name())))};
        const quint64 number = tag >> 3;
        const int wire = int(tag & 7);
        if (number == 0 || number > 0x1fffffff)
            return Problem{
                at, QStringLiteral("field number %1 (tag 0x%2) is not a valid protobuf field; "
                                   "expected a %3 field")
                        .arg(number)
                        .arg(tag, 0, 16)
                        .arg(QString::fromStdString(std::string(type->name())))};
        // A field the format knows, in another wire type than its own: libprotobuf would keep
        // it as an unknown field and read the message without it (a timestamp sent as bytes,
        // a plane of length 0 whose contents are then read as the next fields).
        if (unknown && !type->FindFieldByNumber(int(number)) &&
            !type->IsExtensionNumber(int(number))) {
            if (unknown->count++ == 0) {
                unknown->firstOffset = at;
                unknown->first = QStringLiteral("%1 field %2")
                                     .arg(QString::fromStdString(std::string(type->name())))
                                     .arg(number);
            }
        }
        if (const auto *f = type->FindFieldByNumber(int(number));
            f && wire <= 5 && wire != 3 && wire != 4) {
            const int expected = wireTypeOf(f);
            const bool packed = wire == 2 && f->is_repeated() && expected != 2;
            if (wire != expected && !packed)
                return Problem{
                    at,
                    QStringLiteral("%1 is written as %2; expected %3 (the data is corrupted "
                                   "or not this format)")
                        .arg(fieldName(type, number), wireTypeName(wire), wireTypeName(expected))};
        }
        switch (wire) {
        case 0: {
            quint64 v = 0;
            if (!readVarint(p, end, v))
                return Problem{at, QStringLiteral("the varint value of %1 is %2")
                                       .arg(fieldName(type, number),
                                            p >= end ? QStringLiteral("cut short")
                                                     : QStringLiteral("longer than 10 bytes"))};
            break;
        }
        case 1:
        case 5: {
            const qint64 width = wire == 1 ? 8 : 4;
            if (end - p < width)
                return Problem{
                    at, QStringLiteral("the %1-byte value of %2 is cut short (%3 bytes left)")
                            .arg(width)
                            .arg(fieldName(type, number))
                            .arg(end - p)};
            p += width;
            break;
        }
        case 2: {
            quint64 length = 0;
            if (!readVarint(p, end, length))
                return Problem{
                    at,
                    QStringLiteral("the length of %1 is cut short").arg(fieldName(type, number))};
            if (length > quint64(end - p))
                return Problem{
                    at, QStringLiteral("%1 says %2 bytes follow, but only %3 are left: the file "
                                       "was cut short or corrupted")
                            .arg(fieldName(type, number))
                            .arg(length)
                            .arg(end - p)};
            const auto *f = type->FindFieldByNumber(int(number));
            if (f && f->type() == FieldDescriptor::TYPE_MESSAGE) {
                if (auto problem = walk(f->message_type(), p, p + length, base + (p - begin),
                                        depth + 1, unknown))
                    return problem;
            }
            p += length;
            break;
        }
        default:
            return Problem{
                at, QStringLiteral("%1 has wire type %2, which this format never uses; expected "
                                   "a %3 field (the data is corrupted or not this format)")
                        .arg(fieldName(type, number))
                        .arg(wire)
                        .arg(QString::fromStdString(std::string(type->name())))};
        }
    }
    return std::nullopt;
}

} // namespace

std::optional<Problem> check(const google::protobuf::Descriptor *type, const char *data,
                             qint64 size, qint64 base, UnknownFields *unknown)
{
    return walk(type, data, data + size, base, 0, unknown);
}

} // namespace gml::protowire
