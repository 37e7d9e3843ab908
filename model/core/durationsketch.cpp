// SPDX-License-Identifier: GPL-3.0-or-later
#include "durationsketch.h"

#include <QCborArray>

#include <algorithm>
#include <climits>
#include <cmath>

namespace gml {

namespace {

// Bucket i > 0 holds (kGamma^(i-1), kGamma^i]; every duration under 1 ns (0) is bucket
// INT_MIN, answered 0.
constexpr int kZeroBucket = INT_MIN;
const double kLogGamma = std::log(DurationSketch::kGamma);

double upperOf(int bucket)
{
    return std::pow(DurationSketch::kGamma, double(bucket));
}

} // namespace

int DurationSketch::bucketOf(TimeNs d)
{
    if (d < 1)
        return kZeroBucket;
    int i = int(std::ceil(std::log(double(d)) / kLogGamma));
    // The logarithm's rounding can put an exact power on the wrong side of its boundary.
    while (i > 0 && double(d) <= upperOf(i - 1))
        --i;
    while (double(d) > upperOf(i))
        ++i;
    return i;
}

DurationSketch DurationSketch::fromSorted(const std::vector<TimeNs> &sorted)
{
    DurationSketch s;
    if (sorted.empty())
        return s;
    s.m_count = qint64(sorted.size());
    s.m_min = sorted.front();
    s.m_max = sorted.back();
    if (sorted.size() <= kExact) {
        s.m_exact = sorted;
        return s;
    }
    int bucket = 0;
    double upper = -1; // the current bucket's upper bound (none yet)
    for (TimeNs d : sorted) {
        if (s.m_buckets.empty() || double(d) > upper) {
            bucket = bucketOf(d);
            upper = bucket == kZeroBucket ? 0.0 : upperOf(bucket);
            s.m_buckets.emplace_back(bucket, 0);
        }
        ++s.m_buckets.back().second;
    }
    return s;
}

void DurationSketch::toBuckets()
{
    if (!isExact() || m_exact.empty())
        return;
    for (TimeNs d : m_exact) { // sorted: bucket by bucket
        const int b = bucketOf(d);
        if (m_buckets.empty() || m_buckets.back().first != b)
            m_buckets.emplace_back(b, 0);
        ++m_buckets.back().second;
    }
    m_exact = {};
}

void DurationSketch::merge(const DurationSketch &other)
{
    if (other.m_count == 0)
        return;
    if (m_count == 0) {
        *this = other;
        return;
    }
    const TimeNs lo = std::min(m_min, other.m_min), hi = std::max(m_max, other.m_max);
    if (isExact() && other.isExact() && m_exact.size() + other.m_exact.size() <= kExact) {
        std::vector<TimeNs> both;
        both.reserve(m_exact.size() + other.m_exact.size());
        std::merge(m_exact.begin(), m_exact.end(), other.m_exact.begin(), other.m_exact.end(),
                   std::back_inserter(both));
        m_exact = std::move(both);
        m_count += other.m_count;
        m_min = lo;
        m_max = hi;
        return;
    }
    toBuckets();
    DurationSketch theirs = other;
    theirs.toBuckets();
    std::vector<std::pair<int, qint64>> both;
    both.reserve(m_buckets.size() + theirs.m_buckets.size());
    auto a = m_buckets.begin(), b = theirs.m_buckets.begin();
    while (a != m_buckets.end() || b != theirs.m_buckets.end()) {
        if (b == theirs.m_buckets.end() || (a != m_buckets.end() && a->first < b->first))
            both.push_back(*a++);
        else if (a == m_buckets.end() || b->first < a->first)
            both.push_back(*b++);
        else {
            both.emplace_back(a->first, a->second + b->second);
            ++a, ++b;
        }
    }
    m_buckets = std::move(both);
    m_count += other.m_count;
    m_min = lo;
    m_max = hi;
}

TimeNs DurationSketch::quantile(double p) const
{
    if (m_count == 0)
        return 0;
    const qint64 k =
        std::min(m_count - 1, qint64(std::clamp(p, 0.0, 1.0) * double(m_count - 1) + 0.5));
    if (isExact())
        return m_exact[size_t(k)];
    qint64 seen = 0;
    for (const auto &[bucket, n] : m_buckets) {
        seen += n;
        if (seen > k) {
            if (bucket == kZeroBucket)
                return std::clamp<TimeNs>(0, m_min, m_max);
            const double middle = 2.0 * upperOf(bucket) / (kGamma + 1.0);
            return std::clamp<TimeNs>(TimeNs(std::llround(middle)), m_min, m_max);
        }
    }
    return m_max;
}

QCborValue DurationSketch::toCbor() const
{
    // [count, min, max, [exact values...]] or [count, min, max, [bucket, n, bucket, n, ...], 1]
    QCborArray values;
    if (isExact()) {
        for (TimeNs d : m_exact)
            values.append(d);
        return QCborArray{m_count, m_min, m_max, values};
    }
    for (const auto &[bucket, n] : m_buckets) {
        values.append(bucket);
        values.append(n);
    }
    return QCborArray{m_count, m_min, m_max, values, 1};
}

std::optional<DurationSketch> DurationSketch::fromCbor(const QCborValue &v)
{
    const QCborArray a = v.toArray();
    if (a.size() < 4 || !a[0].isInteger() || !a[1].isInteger() || !a[2].isInteger())
        return std::nullopt;
    DurationSketch s;
    s.m_count = a[0].toInteger();
    s.m_min = a[1].toInteger();
    s.m_max = a[2].toInteger();
    const QCborArray values = a[3].toArray();
    qint64 counted = 0;
    if (a.size() == 4) {
        for (const QCborValue &d : values)
            s.m_exact.push_back(d.toInteger());
        if (!std::is_sorted(s.m_exact.begin(), s.m_exact.end()))
            return std::nullopt;
        counted = qint64(s.m_exact.size());
    } else {
        if (values.size() % 2 != 0)
            return std::nullopt;
        for (qsizetype i = 0; i < values.size(); i += 2) {
            const qint64 b = values[i].toInteger(), n = values[i + 1].toInteger();
            if (n <= 0 || b < INT_MIN || b > INT_MAX ||
                (!s.m_buckets.empty() && b <= s.m_buckets.back().first))
                return std::nullopt;
            s.m_buckets.emplace_back(int(b), n);
            counted += n;
        }
        if (s.m_buckets.empty())
            return std::nullopt;
    }
    if (counted != s.m_count || s.m_count < 0 || s.m_min > s.m_max)
        return std::nullopt;
    return s;
}

} // namespace gml
