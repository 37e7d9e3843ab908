// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QtGlobal>

#include <cstddef>
#include <cstdint>

namespace gml {

// The hash a source's content is recognised by on re-import: XXH64 (xxHash, 64-bit, seed 0),
// fed in pieces as a file is read. It reads about ten times faster than zlib's crc32, so
// hashing while importing costs little next to parsing.
class ContentHash
{
public:
    void add(const char *data, size_t n);
    quint64 digest() const;
    // "xxh64:" and sixteen hex digits, as stored in source.hash.
    static QString text(quint64 digest);

private:
    uint64_t m_v[4] = {0x9E3779B185EBCA87ULL + 0xC2B2AE3D27D4EB4FULL, 0xC2B2AE3D27D4EB4FULL, 0,
                       0 - 0x9E3779B185EBCA87ULL};
    unsigned char m_buf[32] = {};
    size_t m_bufLen = 0;
    uint64_t m_total = 0;
};

} // namespace gml
