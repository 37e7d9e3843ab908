// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracewriter.h"

#include "compactjson.h"

#include "importids.h"
#include "runrecords.h"
#include "slicelod.h"
#include "sourcesummary.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <string>

namespace gml {

TraceWriter::TraceWriter(Project &project, RunId run, SourceId source)
    : m_project(project), m_run(run), m_source(source), m_slices(project.db()),
      m_counterChunks(project.db())
{
    auto &db = project.db();
    m_insertTrack = db.prepare("INSERT INTO track(id, run_id, source_id, parent_id, kind, name, "
                               "sort_key, rank, pid, tid, unit) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
    if (ImportIds *ids = project.sharedIds())
        m_slices.takeChunkIdsFrom([ids] { return ids->nextChunk(); });
    // Ids are ours to assign inside the transaction that holds the write lock.
    m_firstTrack = m_nextTrack = db.scalar("SELECT coalesce(max(id), 0) + 1 FROM track");
}

void TraceWriter::fail(const SqliteStatement &st)
{
    if (m_error.isEmpty())
        m_error = st.errorString().isEmpty() ? m_project.db().lastError() : st.errorString();
}

QString timeRangeProblem(TimeNs ts, TimeNs dur)
{
    if (ts < -kMaxAbsTimeNs || ts > kMaxAbsTimeNs)
        return QStringLiteral("a start of %1 ns, beyond the limit of ±%2 ns (about 95 years "
                              "from 1970)")
            .arg(ts)
            .arg(kMaxAbsTimeNs);
    if (dur < 0)
        return QStringLiteral("a negative duration (%1 ns)").arg(dur);
    if (dur > kMaxDurationNs)
        return QStringLiteral("a duration of %1 ns, beyond the limit of %2 ns (a year)")
            .arg(dur)
            .arg(kMaxDurationNs);
    return {};
}

// `where` for a warning: the byte offset the importer set, if any.
static QString at(qint64 position)
{
    return position >= 0 ? QStringLiteral(" (first at byte %1)").arg(position) : QString();
}

StringId TraceWriter::intern(std::string_view text)
{
    if (text.size() <= kMaxNameBytes)
        return m_project.intern(text);
    size_t cut = kMaxNameBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut; // not inside a UTF-8 sequence
    m_warnings.add(QStringLiteral("writer: long name"), m_position,
                   QStringLiteral("a name of %1 bytes was cut to the limit of %2 bytes%3")
                       .arg(text.size())
                       .arg(kMaxNameBytes)
                       .arg(at(m_position)));
    return m_project.intern(std::string(text.substr(0, cut)) + "\u2026");
}

static QString trackKey(TrackId parent, TrackKind kind, const QString &name)
{
    return QString::number(parent) + QLatin1Char('\x1f') + QString::number(int(kind)) +
           QLatin1Char('\x1f') + name;
}

bool TraceWriter::resume(QString *error)
{
    Q_ASSERT(m_nextTrack == m_firstTrack && !m_resumed);
    m_counterChunks.appendToStoredChunks();
    auto &db = m_project.db();
    auto tracks =
        db.prepare("SELECT id, coalesce(parent_id, 0), kind, name, start_ns, end_ns, slice_count, "
                   "counter_count FROM track WHERE source_id = ?");
    tracks.bind(1, m_source);
    while (tracks.step()) {
        const TrackId id = tracks.int64(0);
        m_resumedTracks.insert(
            trackKey(tracks.int64(1), TrackKind(tracks.int64(2)), tracks.text(3)), id);
        TrackStats st;
        if (!tracks.isNull(4)) {
            st.start = tracks.int64(4);
            st.end = tracks.int64(5);
        }
        st.slices = tracks.int64(6);
        st.counters = tracks.int64(7);
        m_resumedStats.emplace(id, st);
    }
    auto src =
        db.prepare("SELECT slices, counter_samples, flows, clock_offset_ns, metadata, warnings "
                   "FROM source WHERE id = ?");
    src.bind(1, m_source);
    if (!tracks.errorString().isEmpty() || !src.step()) {
        if (error)
            *error = tracks.errorString().isEmpty() ? src.errorString() : tracks.errorString();
        return false;
    }
    m_sliceCount = src.int64(0);
    m_counters = src.int64(1);
    m_flows = src.int64(2);
    m_clockOffset = src.int64(3);
    m_resumedMetadata = QJsonDocument::fromJson(src.text(4).toUtf8()).object();
    m_runParams = m_resumedMetadata.value(QStringLiteral("run_params")).toObject();
    m_resumedWarnings = QJsonDocument::fromJson(src.text(5).toUtf8()).array();
    m_resumed = true;
    return true;
}

TrackId TraceWriter::addTrack(const TrackSpec &spec)
{
    if (m_resumed)
        if (auto it = m_resumedTracks.constFind(trackKey(spec.parent, spec.kind, spec.name));
            it != m_resumedTracks.constEnd())
            return *it;
    const TrackId id = m_nextTrack++;
    auto &st = m_insertTrack;
    st.bind(1, id);
    st.bind(2, m_run);
    st.bind(3, m_source);
    if (spec.parent)
        st.bind(4, spec.parent);
    else
        st.bindNull(4);
    st.bind(5, qint64(spec.kind));
    st.bind(6, spec.name);
    st.bind(7, spec.sortKey);
    if (spec.rank >= 0)
        st.bind(8, qint64(spec.rank));
    else
        st.bindNull(8);
    auto bindOpt = [&](int i, const QString &s) {
        if (s.isNull())
            st.bindNull(i);
        else
            st.bind(i, s);
    };
    bindOpt(9, spec.pid);
    bindOpt(10, spec.tid);
    bindOpt(11, spec.unit);
    if (!st.exec())
        fail(st);
    m_trackStats.emplace_back();
    return id;
}

void TraceWriter::setTrackName(TrackId track, const QString &name, qint64 sortKey)
{
    auto st = m_project.db().prepare("UPDATE track SET name=?, sort_key=? WHERE id=?");
    st.bind(1, name);
    st.bind(2, sortKey);
    st.bind(3, track);
    if (!st.exec())
        fail(st);
}

SliceId TraceWriter::addSlice(TrackId track, TimeNs ts, TimeNs dur, StringId name,
                              StringId category, qint64 correlation, qint64 externalId,
                              const slicestore::SliceArgs &args)
{
    if (const QString problem = timeRangeProblem(ts, dur); !problem.isEmpty()) {
        m_warnings.add(
            QStringLiteral("writer: time range"), m_position,
            QStringLiteral("slices with %1 were not imported%2").arg(problem, at(m_position)));
        return 0;
    }
    std::string note;
    std::string_view argsJson = args.json;
    if (argsJson.size() > kMaxArgsBytes) {
        m_warnings.add(QStringLiteral("writer: long args"), m_position,
                       QStringLiteral("args of %1 bytes, over the limit of %2 bytes, were replaced "
                                      "by a note of their size%3")
                           .arg(argsJson.size())
                           .arg(kMaxArgsBytes)
                           .arg(at(m_position)));
        note = "{\"args not kept\":\"" + std::to_string(argsJson.size()) +
               " bytes, over the limit of " + std::to_string(kMaxArgsBytes) + "\"}";
        argsJson = note;
    }
    const SliceId id =
        m_slices.add(track, ts, dur, name, category, correlation, externalId,
                     note.empty() ? args : slicestore::SliceArgs(argsJson), !argsJson.empty());
    auto &s = stats(track);
    s.start = std::min(s.start, ts);
    s.end = std::max(s.end, ts + dur);
    ++s.slices;
    ++m_sliceCount;
    return id;
}

void TraceWriter::addCounter(TrackId track, TimeNs ts, double value, std::optional<qint64> step)
{
    if (const QString problem = timeRangeProblem(ts, 0); !problem.isEmpty()) {
        m_warnings.add(QStringLiteral("writer: counter time"), m_position,
                       QStringLiteral("counter samples with %1 were not imported%2")
                           .arg(problem, at(m_position)));
        return;
    }
    if (!std::isfinite(value)) {
        m_warnings.add(QStringLiteral("writer: counter value"), m_position,
                       QStringLiteral("counter samples whose value is not a finite number (%1) "
                                      "were not imported%2")
                           .arg(value)
                           .arg(at(m_position)));
        return;
    }
    m_counterChunks.add(track, ts, value, step.value_or(counterstore::kNoStep));
    auto &s = stats(track);
    s.start = std::min(s.start, ts);
    s.end = std::max(s.end, ts);
    ++s.counters;
    ++m_counters;
}

void TraceWriter::addFlow(FlowKind kind, SliceId from, SliceId to)
{
    if (from == 0 || to == 0) // an end was refused by addSlice
        return;
    m_flowRows.push_back({from, to, qint64(kind)});
    ++m_flows;
}

void TraceWriter::setSourceRank(int rank)
{
    auto st = m_project.db().prepare("UPDATE track SET rank=? WHERE source_id=?");
    st.bind(1, qint64(rank));
    st.bind(2, m_source);
    if (!st.exec())
        fail(st);
}

void TraceWriter::setTrackRank(TrackId track, int rank)
{
    auto st = m_project.db().prepare(
        "WITH RECURSIVE under(id) AS (SELECT ?2 UNION ALL SELECT t.id FROM track t JOIN under u "
        "ON t.parent_id = u.id) UPDATE track SET rank=?1 WHERE id IN under");
    st.bind(1, qint64(rank));
    st.bind(2, track);
    if (!st.exec())
        fail(st);
}

TimeNs TraceWriter::earliest() const
{
    TimeNs t = std::numeric_limits<TimeNs>::max();
    for (const auto &s : m_trackStats)
        t = std::min(t, s.start);
    for (const auto &[id, s] : m_resumedStats)
        t = std::min(t, s.start);
    return t;
}

void mergeParams(QJsonObject &into, const QJsonObject &params)
{
    for (auto it = params.begin(); it != params.end(); ++it) {
        const auto existing = into.value(it.key());
        if (existing.isArray() && it.value().isArray()) {
            QJsonArray joined = existing.toArray();
            for (const auto &v : it.value().toArray())
                if (!joined.contains(v))
                    joined.append(v);
            into.insert(it.key(), joined);
        } else {
            into.insert(it.key(), it.value());
        }
    }
}

bool mergeIntoRunParams(SqliteDb &db, RunId run, const QJsonObject &params, QString *error)
{
    // Every rank file of a job merges into the same params, whose "ranks" grow by one a file:
    // the text last written and its parse are kept (per thread), and used again when the row
    // still holds exactly that text, so each file parses only what it merges (the whole
    // params parsed again for each of 1,024 rank files was 282 M instructions).
    thread_local std::string lastText;
    thread_local QJsonObject lastParsed;
    auto get = db.prepare("SELECT params FROM run WHERE id=?");
    get.bind(1, run);
    QJsonObject merged;
    if (get.step()) {
        const std::string_view stored = get.textView(0);
        if (stored == lastText)
            merged = lastParsed;
        else
            merged = QJsonDocument::fromJson(QByteArray(stored.data(), qsizetype(stored.size())))
                         .object();
    }
    mergeParams(merged, params);
    std::string text = compactJson(merged);
    auto put = db.prepare("UPDATE run SET params=? WHERE id=?");
    put.bind(1, std::string_view(text));
    put.bind(2, run);
    if (put.exec()) {
        lastText = std::move(text);
        lastParsed = merged;
        return true;
    }
    if (error)
        *error = put.errorString();
    return false;
}

void TraceWriter::mergeRunParams(const QJsonObject &params)
{
    mergeParams(m_runParams, params);
    QString why;
    if (!mergeIntoRunParams(m_project.db(), m_run, params, &why) && m_error.isEmpty())
        m_error = why;
}

bool TraceWriter::finish(const QList<ImportWarning> &warnings, QString *error)
{
    (void)m_slices.flush(); // an error shows in failed()
    (void)m_counterChunks.flush();
    QString why;
    if (!slicestore::writeFlows(m_project.db(), m_source, m_flowRows, &why) && m_error.isEmpty())
        m_error = why;
    m_flowRows = {};
    auto st = m_project.db().prepare("UPDATE track SET start_ns=?, end_ns=?, slice_count=?, "
                                     "counter_count=? WHERE id=?");
    // A resumed source's tracks first (their slices summarised again with the new ones).
    std::vector<std::pair<TrackId, TrackStats>> all(m_resumedStats.begin(), m_resumedStats.end());
    for (size_t i = 0; i < m_trackStats.size(); ++i)
        all.emplace_back(m_firstTrack + qint64(i), m_trackStats[i]);
    for (const auto &[track, s] : all) {
        if (s.slices + s.counters > 0) {
            st.bind(1, s.start);
            st.bind(2, s.end);
        } else {
            st.bindNull(1);
            st.bindNull(2);
        }
        st.bind(3, s.slices);
        st.bind(4, s.counters);
        st.bind(5, track);
        if (!st.exec())
            fail(st);
        // Summaries for the timeline (slicelod.h), from the chunks just written.
        if (s.slices > 0 && !failed() &&
            !lod::summarizeTrack(m_project.db(), track, &why, size_t(s.slices)))
            m_error = why;
    }
    // What the run's headline metrics need from this source is summarised by the import job
    // once this returns (model/analysis/sourcework.h): the store only stores.
    QJsonArray w = m_resumedWarnings;
    for (const auto &warning : warnings) {
        QJsonObject o;
        o.insert(QStringLiteral("message"), warning.message);
        if (warning.offset >= 0)
            o.insert(QStringLiteral("offset"), warning.offset);
        o.insert(QStringLiteral("count"), warning.count);
        w.append(o);
    }
    // A source read in parts for a day adds each part's warnings: past a hundred, the later
    // ones are counted in the last entry, so the row stays small.
    constexpr qsizetype kMaxWarnings = 100;
    if (w.size() > kMaxWarnings) {
        qint64 more = 0;
        while (w.size() >= kMaxWarnings) {
            const QJsonObject last = w.last().toObject();
            more += last.value(QStringLiteral("more"))
                        .toInteger(last.value(QStringLiteral("count")).toInteger(1));
            w.removeLast();
        }
        QJsonObject o;
        o.insert(
            QStringLiteral("message"),
            QStringLiteral("%1 more warnings of later parts of the file are not listed").arg(more));
        o.insert(QStringLiteral("count"), more);
        o.insert(QStringLiteral("more"), more);
        w.append(o);
    }
    auto src = m_project.db().prepare(
        "UPDATE source SET status='imported', error=NULL, slices=?, counter_samples=?, flows=?, "
        "clock_offset_ns=?, metadata=?, warnings=? WHERE id=?");
    src.bind(1, m_sliceCount);
    src.bind(2, m_counters);
    src.bind(3, m_flows);
    src.bind(4, m_clockOffset);
    QJsonObject metadata = m_resumedMetadata;
    for (auto it = m_metadata.begin(); it != m_metadata.end(); ++it)
        metadata.insert(it.key(), it.value());
    if (!m_runParams.isEmpty())
        metadata.insert(QStringLiteral("run_params"), m_runParams);
    src.bindJson(5, metadata);
    src.bindJson(6, w);
    src.bind(7, m_source);
    if (!src.exec())
        fail(src);
    if (failed() && error)
        *error = errorString();
    return !failed();
}

bool TraceWriter::moveToRun(RunId run, QString *error)
{
    Q_ASSERT(m_nextTrack == m_firstTrack);
    auto st = m_project.db().prepare("UPDATE source SET run_id = ?1 WHERE id = ?2");
    st.bind(1, run);
    st.bind(2, m_source);
    if (!st.exec()) {
        if (error)
            *error = st.errorString();
        return false;
    }
    m_run = run;
    return true;
}

bool TraceWriter::placeInExperiment(const QString &name, const QJsonObject &params,
                                    const QJsonObject &tags, QString *error)
{
    return gml::placeInExperiment(m_project, m_run, name, params, tags, error);
}

} // namespace gml
