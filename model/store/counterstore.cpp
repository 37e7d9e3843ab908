// SPDX-License-Identifier: GPL-3.0-or-later
// Counter samples in chunks: the blob's codec, the writer and the v16 migration
// (counterstore.h). The virtual table that reads them is countervtab.cpp.
#include "counterstore.h"

#include "chunkformat.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gml::counterstore {

using slicestore::getVarint;
using slicestore::putVarint;
using slicestore::unzigzag;
using slicestore::zigzag;

namespace {

constexpr unsigned char kHasSteps = 1;
constexpr double kMaxExactInteger = 9007199254740992.0; // 2^53

// The value as an integer when it is one that a double holds exactly (not -0: it would come
// back as +0).
bool asInteger(double v, qint64 &out)
{
    if (!(std::fabs(v) < kMaxExactInteger) || std::trunc(v) != v || (v == 0 && std::signbit(v)))
        return false;
    out = qint64(v);
    return true;
}

} // namespace

void encode(std::span<const Sample> samples, std::string &out)
{
    out.clear();
    const bool steps = std::any_of(samples.begin(), samples.end(),
                                   [](const Sample &s) { return s.step != kNoStep; });
    out.push_back(char(kFormat));
    out.push_back(char(steps ? kHasSteps : 0));
    putVarint(out, samples.size());
    TimeNs prevTs = 0;
    qint64 prevInt = 0;
    for (const Sample &s : samples) {
        putVarint(out, zigzag(qint64(quint64(s.ts) - quint64(prevTs))));
        prevTs = s.ts;
        if (qint64 i; asInteger(s.value, i)) {
            putVarint(out, zigzag(i - prevInt) << 1);
            prevInt = i;
        } else {
            putVarint(out, 1);
            char bytes[sizeof(double)];
            std::memcpy(bytes, &s.value, sizeof bytes);
            out.append(bytes, sizeof bytes);
        }
        if (steps)
            putVarint(out, s.step == kNoStep ? 0 : zigzag(s.step) + 1);
    }
}

bool decode(std::string_view data, std::vector<Sample> &out)
{
    const auto *p = reinterpret_cast<const unsigned char *>(data.data());
    const auto *e = p + data.size();
    if (e - p < 2 || p[0] != kFormat || (p[1] & ~kHasSteps) != 0)
        return false;
    const bool steps = p[1] & kHasSteps;
    p += 2;
    quint64 count;
    if (!getVarint(p, e, count) || count > quint64(kChunkRows))
        return false;
    const size_t before = out.size();
    auto malformed = [&out, before] {
        out.resize(before);
        return false;
    };
    out.reserve(before + count);
    TimeNs ts = 0;
    qint64 prevInt = 0;
    for (quint64 i = 0; i < count; ++i) {
        Sample s;
        quint64 v;
        if (!getVarint(p, e, v))
            return malformed();
        ts = TimeNs(quint64(ts) + quint64(unzigzag(v)));
        s.ts = ts;
        if (!getVarint(p, e, v))
            return malformed();
        if (v == 1) {
            if (e - p < qint64(sizeof(double)))
                return malformed();
            std::memcpy(&s.value, p, sizeof(double));
            p += sizeof(double);
        } else if (v & 1) {
            return malformed();
        } else {
            prevInt = qint64(quint64(prevInt) + quint64(unzigzag(v >> 1)));
            s.value = double(prevInt);
        }
        if (steps) {
            if (!getVarint(p, e, v))
                return malformed();
            s.step = v == 0 ? kNoStep : unzigzag(v - 1);
        }
        out.push_back(s);
    }
    if (p != e)
        return malformed();
    return true;
}

// --- the writer ------------------------------------------------------------------------------

ChunkWriter::ChunkWriter(SqliteDb &db) : m_db(db)
{
    m_insert = db.prepare(
        "INSERT INTO counter_chunk(track_id, count, min_ts, max_ts, data) VALUES(?,?,?,?,?)");
}

void ChunkWriter::add(TrackId track, TimeNs ts, double value, qint64 step)
{
    Open &o = m_open.of(track);
    o.samples.push_back({ts, value, step});
    ++m_buffered;
    if (o.samples.size() == size_t(kChunkRows))
        write(o);
    if (m_buffered > kMaxBuffered)
        (void)flush();
}

void ChunkWriter::write(Open &o)
{
    if (o.samples.empty())
        return;
    m_buffered -= o.samples.size();
    auto byTime = [](const Sample &a, const Sample &b) { return a.ts < b.ts; };
    if (!std::is_sorted(o.samples.begin(), o.samples.end(), byTime))
        std::stable_sort(o.samples.begin(), o.samples.end(), byTime);
    if (m_append && appendToLast(o)) {
        o.samples.clear();
        return;
    }
    if (!encodeChecked(o.samples, o.track)) {
        o.samples.clear();
        return;
    }
    auto &st = m_insert;
    st.bind(1, o.track);
    st.bind(2, qint64(o.samples.size()));
    st.bind(3, o.samples.front().ts);
    st.bind(4, o.samples.back().ts);
    sqlite3_bind_blob64(st.handle(), 5, m_data.data(), m_data.size(), SQLITE_STATIC);
    if (!st.exec() && m_error.isEmpty())
        m_error = st.errorString().isEmpty() ? m_db.lastError() : st.errorString();
    o.samples.clear();
}

bool ChunkWriter::encodeChecked(const std::vector<Sample> &samples, TrackId track)
{
    encode(samples, m_data);
    m_check.clear();
    if (decode(m_data, m_check) && m_check.size() == samples.size())
        return true;
    if (m_error.isEmpty())
        m_error = QStringLiteral("counter chunk of %1 samples of track %2 would not read back; "
                                 "nothing of this source is kept")
                      .arg(samples.size())
                      .arg(track);
    return false;
}

bool ChunkWriter::appendToLast(Open &o)
{
    if (!m_last.isValid()) {
        m_last = m_db.prepare("SELECT id, count, max_ts, data FROM counter_chunk WHERE track_id = "
                              "? ORDER BY id DESC LIMIT 1");
        m_update = m_db.prepare("UPDATE counter_chunk SET count = ?, max_ts = ?, data = ? WHERE "
                                "id = ?");
    }
    m_last.reset();
    m_last.bind(1, o.track);
    // Up to a quarter of a chunk: each poll decodes and writes the chunk again, so a longer one
    // would cost more a poll than the chunks it saves.
    if (!m_last.step() || m_last.int64(1) + qint64(o.samples.size()) > kChunkRows / 4 ||
        m_last.int64(2) > o.samples.front().ts)
        return false;
    const qint64 chunk = m_last.int64(0);
    m_merged.clear();
    const bool read = decode(m_last.blobView(3), m_merged);
    m_last.reset();
    if (!read)
        return false; // damaged: left alone, the samples go into a chunk of their own
    m_merged.insert(m_merged.end(), o.samples.begin(), o.samples.end());
    if (!encodeChecked(m_merged, o.track))
        return true; // the source fails: nothing more of it is written
    m_update.reset();
    m_update.bind(1, qint64(m_merged.size()));
    m_update.bind(2, o.samples.back().ts);
    sqlite3_bind_blob64(m_update.handle(), 3, m_data.data(), m_data.size(), SQLITE_STATIC);
    m_update.bind(4, chunk);
    if (!m_update.exec() && m_error.isEmpty())
        m_error = m_update.errorString().isEmpty() ? m_db.lastError() : m_update.errorString();
    return true;
}

bool ChunkWriter::flush()
{
    for (Open &o : m_open)
        write(o);
    return m_error.isEmpty();
}

// --- the v16 migration -------------------------------------------------------------------------

bool migrateRows(SqliteDb &db, QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = QStringLiteral("migrating counter samples to chunks: ") + why;
        return false;
    };
    {
        ChunkWriter chunks(db);
        // In rowid order: each track's samples in the order they were inserted, which the
        // writer keeps among samples of one time.
        auto st = db.prepare("SELECT track_id, ts, value, step FROM counter ORDER BY rowid");
        while (st.step())
            chunks.add(st.int64(0), st.int64(1), st.real(2), st.isNull(3) ? kNoStep : st.int64(3));
        if (!st.errorString().isEmpty())
            return fail(st.errorString());
        if (!chunks.flush())
            return fail(chunks.errorString());
    }
    QString why;
    if (!db.exec("DROP TABLE counter; CREATE VIRTUAL TABLE counter USING gml_counter;", &why))
        return fail(why);
    return true;
}

} // namespace gml::counterstore
