// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "counterstore.h"
#include "project.h"
#include "slicestore.h"
#include "types.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace gml {

// `params` merged into `into`: arrays are joined (each value once), anything else replaced.
void mergeParams(QJsonObject &into, const QJsonObject &params);
// mergeParams into run `run`'s stored params. False (and `error`) on a database error.
[[nodiscard]] bool mergeIntoRunParams(SqliteDb &db, RunId run, const QJsonObject &params,
                                      QString *error);

inline constexpr qint64 kNoId = slicestore::kNull; // an absent correlation or external id

struct TrackSpec
{
    TrackId parent = 0; // 0: top level of the run
    TrackKind kind = TrackKind::Thread;
    QString name;
    qint64 sortKey = 0;
    int rank = -1; // -1: not part of a distributed job
    QString pid;
    QString tid;
    QString unit;
};

// A problem that did not stop the import. Repeated problems of one kind are folded into one
// warning with a count and the byte offset of the first occurrence.
struct ImportWarning
{
    QString message;
    qint64 offset = -1;
    qint64 count = 1;
};

// Warnings folded by kind: count plus the first offset.
class WarningLog
{
public:
    void add(const QString &kind, qint64 offset, const QString &firstMessage)
    {
        auto it = m_index.find(kind);
        if (it == m_index.end()) {
            m_index.emplace(kind, m_list.size());
            m_list.append(ImportWarning{firstMessage, offset, 1});
        } else {
            ++m_list[qsizetype(it->second)].count;
        }
    }
    QList<ImportWarning> list() const { return m_list; }

private:
    std::map<QString, size_t> m_index;
    QList<ImportWarning> m_list;
};

// What the project accepts from any importer (docs/limits.md). Times are on the source's
// clock in ns; a source offset of the same range is added later, so no sum can overflow.
inline constexpr TimeNs kMaxAbsTimeNs = 3'000'000'000'000'000'000; // about 95 years from 1970
inline constexpr TimeNs kMaxDurationNs = TimeNs(366) * 24 * 3600 * 1'000'000'000; // a year
inline constexpr size_t kMaxNameBytes = size_t(64)
                                        << 10; // names and categories (C++ kernel names pass 5 KB)
inline constexpr size_t kMaxArgsBytes = size_t(1) << 20; // one slice's args (JSON text)

// Empty when [ts, ts + dur) is within the limits above, else what is wrong with it.
QString timeRangeProblem(TimeNs ts, TimeNs dur);

// Writes one source's data into the project. The caller (ImportJob) owns the transaction and
// the source row; an importer only adds tracks, slices, counters and flows through this class.
// Slice ids are final when addSlice() returns (slices are written in chunks, slicestore.h), so
// importers can link slices before commit; slices and counter samples are readable through SQL
// after finish() (samples are written in chunks, counterstore.h).
class TraceWriter
{
public:
    TraceWriter(Project &project, RunId run, SourceId source);

    // Continues the source as imported before (a followed log read in parts, logtail.h):
    // addTrack finds its tracks again by (parent, kind, name); its counts, extents and clock
    // offset go on; finish() merges its metadata and joins its warnings. Before anything is added.
    [[nodiscard]] bool resume(QString *error);

    Project &project() { return m_project; }
    RunId runId() const { return m_run; }
    SourceId sourceId() const { return m_source; }

    // Names longer than kMaxNameBytes are cut at a character boundary and end in "…" (warned).
    StringId intern(std::string_view text);
    // Where the next slices come from (a byte offset), for the writer's own warnings.
    void setPosition(qint64 offset) { m_position = offset; }

    TrackId addTrack(const TrackSpec &spec);
    void setTrackName(TrackId track, const QString &name, qint64 sortKey);

    // A slice outside the time limits is not written (warned) and gets id 0, which addFlow
    // ignores; args over kMaxArgsBytes are replaced by a note of their size (warned).
    SliceId addSlice(TrackId track, TimeNs ts, TimeNs dur, StringId name, StringId category,
                     qint64 correlation = kNoId, qint64 externalId = kNoId,
                     const slicestore::SliceArgs &args = {});
    // Samples at a time outside the limits or with a value that is not finite are dropped (warned).
    // `step`: the training step the value was logged at (MLflow metrics); none for samples
    // (a step of counterstore::kNoStep is none too). Samples of one track and one time keep
    // the order they were added in.
    void addCounter(TrackId track, TimeNs ts, double value,
                    std::optional<qint64> step = std::nullopt);
    void addFlow(FlowKind kind, SliceId from, SliceId to);
    // Room for `more` flows at most, taken at once: grown by doubling, the flows of a 256 MB
    // trace were held twice at the parse's peak (the old copy and the new).
    void reserveFlows(size_t more) { m_flowRows.reserve(m_flowRows.size() + more); }

    // Project time = source time + offset.
    void setClockOffset(TimeNs offset) { m_clockOffset = offset; }
    void setSourceMetadata(const QJsonObject &metadata) { m_metadata = metadata; }
    // What this source merged into its run's params (mergeRunParams), kept in its metadata as
    // "run_params" so a run's params can be made again when its sources move (rungrouping.h).
    const QJsonObject &runParams() const { return m_runParams; }
    // Marks every track of this source as belonging to one rank of a distributed job.
    void setSourceRank(int rank);
    // Sets the rank of a track and every track under it (a process of one rank in a file that
    // holds several: Chrome's process labels "rank N").
    void setTrackRank(TrackId track, int rank);
    // Moves this source into another run (an execution trace joining the run that holds the
    // operators it links to). Only while it has no tracks.
    [[nodiscard]] bool moveToRun(RunId run, QString *error);
    // Merged into run.params (later sources add keys; lists under the same key are joined).
    void mergeRunParams(const QJsonObject &params);
    // Puts the run in experiment `name` (its params replaced) and the workload of the same
    // name, with the run's `tags` (MLflow's experiments; runrecords.h placeInExperiment).
    [[nodiscard]] bool placeInExperiment(const QString &name, const QJsonObject &params,
                                         const QJsonObject &tags, QString *error);

    // The earliest slice start or counter sample written so far (source clock); max when none.
    TimeNs earliest() const;
    qint64 sliceCount() const { return m_sliceCount; }
    qint64 counterCount() const { return m_counters; }
    qint64 flowCount() const { return m_flows; }

    // What the writer itself refused or cut (limits above); the job adds them to the source's.
    QList<ImportWarning> warnings() const { return m_warnings.list(); }

    // True once any insert failed; the import must then be rolled back.
    bool failed() const { return !errorString().isEmpty(); }
    QString errorString() const
    {
        return !m_error.isEmpty()                  ? m_error
               : !m_slices.errorString().isEmpty() ? m_slices.errorString()
                                                   : m_counterChunks.errorString();
    }

    // Writes per-track extents and the source's counts, offset, metadata and warnings.
    [[nodiscard]] bool finish(const QList<ImportWarning> &warnings, QString *error);

private:
    struct TrackStats
    {
        TimeNs start = std::numeric_limits<TimeNs>::max();
        TimeNs end = std::numeric_limits<TimeNs>::min();
        qint64 slices = 0;
        qint64 counters = 0;
    };
    TrackStats &stats(TrackId track)
    {
        return track < m_firstTrack ? m_resumedStats[track]
                                    : m_trackStats[size_t(track - m_firstTrack)];
    }
    void fail(const SqliteStatement &st);

    Project &m_project;
    RunId m_run;
    SourceId m_source;
    SqliteStatement m_insertTrack;
    TrackId m_firstTrack = 0;
    TrackId m_nextTrack = 0;
    slicestore::ChunkWriter m_slices;
    counterstore::ChunkWriter m_counterChunks;
    std::vector<slicestore::Flow> m_flowRows; // written by finish()
    std::vector<TrackStats> m_trackStats;
    qint64 m_sliceCount = 0;
    qint64 m_counters = 0;
    qint64 m_flows = 0;
    TimeNs m_clockOffset = 0;
    QJsonObject m_metadata;
    QJsonObject m_runParams;
    QString m_error;
    WarningLog m_warnings;
    qint64 m_position = -1;
    // resume(): the source's tracks by (parent, kind, name), their stats, what it held before.
    bool m_resumed = false;
    QHash<QString, TrackId> m_resumedTracks;
    std::map<TrackId, TrackStats> m_resumedStats;
    QJsonObject m_resumedMetadata;
    QJsonArray m_resumedWarnings;
};

} // namespace gml
