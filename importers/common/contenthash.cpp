// SPDX-License-Identifier: GPL-3.0-or-later
#include "contenthash.h"

#include <QtEndian>

#include <cstring>

namespace gml {

namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kP5 = 0x27D4EB2F165667C5ULL;

inline uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}
inline uint64_t read64(const unsigned char *p)
{
    return qFromLittleEndian<quint64>(p);
}
inline uint64_t read32(const unsigned char *p)
{
    return qFromLittleEndian<quint32>(p);
}
inline uint64_t round(uint64_t acc, uint64_t input)
{
    return rotl(acc + input * kP2, 31) * kP1;
}
inline uint64_t mergeRound(uint64_t acc, uint64_t v)
{
    return (acc ^ round(0, v)) * kP1 + kP4;
}

} // namespace

void ContentHash::add(const char *data, size_t n)
{
    auto *p = reinterpret_cast<const unsigned char *>(data);
    const unsigned char *e = p + n;
    m_total += n;
    if (m_bufLen > 0) {
        const size_t take = std::min(n, sizeof m_buf - m_bufLen);
        std::memcpy(m_buf + m_bufLen, p, take);
        m_bufLen += take;
        p += take;
        if (m_bufLen < sizeof m_buf)
            return;
        for (int i = 0; i < 4; ++i)
            m_v[i] = round(m_v[i], read64(m_buf + 8 * i));
        m_bufLen = 0;
    }
    uint64_t v0 = m_v[0], v1 = m_v[1], v2 = m_v[2], v3 = m_v[3];
    for (; e - p >= 32; p += 32) {
        v0 = round(v0, read64(p));
        v1 = round(v1, read64(p + 8));
        v2 = round(v2, read64(p + 16));
        v3 = round(v3, read64(p + 24));
    }
    m_v[0] = v0, m_v[1] = v1, m_v[2] = v2, m_v[3] = v3;
    m_bufLen = size_t(e - p);
    std::memcpy(m_buf, p, m_bufLen);
}

quint64 ContentHash::digest() const
{
    uint64_t h;
    if (m_total >= 32) {
        h = rotl(m_v[0], 1) + rotl(m_v[1], 7) + rotl(m_v[2], 12) + rotl(m_v[3], 18);
        for (uint64_t v : m_v)
            h = mergeRound(h, v);
    } else {
        h = kP5; // seed 0
    }
    h += m_total;
    const unsigned char *p = m_buf;
    size_t len = m_bufLen;
    for (; len >= 8; p += 8, len -= 8)
        h = rotl(h ^ round(0, read64(p)), 27) * kP1 + kP4;
    if (len >= 4) {
        h = rotl(h ^ (read32(p) * kP1), 23) * kP2 + kP3;
        p += 4;
        len -= 4;
    }
    for (; len > 0; ++p, --len)
        h = rotl(h ^ (*p * kP5), 11) * kP1;
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    h ^= h >> 32;
    return h;
}

QString ContentHash::text(quint64 digest)
{
    return QStringLiteral("xxh64:%1").arg(digest, 16, 16, QLatin1Char('0'));
}

} // namespace gml
