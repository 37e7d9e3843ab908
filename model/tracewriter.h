// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "project.h"
#include "slicestore.h"
#include "types.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <limits>
#include <string_view>
#include <vector>

namespace gml {

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

// Writes one source's data into the project. The caller (ImportJob) owns the transaction and
// the source row; an importer only adds tracks, slices, counters and flows through this class.
// Slice ids are final when addSlice() returns (slices are written in chunks, slicestore.h), so
// importers can link slices before commit; slices are readable through SQL after finish().
class TraceWriter
{
public:
    TraceWriter(Project &project, RunId run, SourceId source);

    Project &project() { return m_project; }
    RunId runId() const { return m_run; }
    SourceId sourceId() const { return m_source; }

    StringId intern(std::string_view text) { return m_project.intern(text); }

    TrackId addTrack(const TrackSpec &spec);
    void setTrackName(TrackId track, const QString &name, qint64 sortKey);

    SliceId addSlice(TrackId track, TimeNs ts, TimeNs dur, StringId name, StringId category,
                     qint64 correlation = kNoId, qint64 externalId = kNoId,
                     std::string_view argsJson = {});
    void addCounter(TrackId track, TimeNs ts, double value);
    void addFlow(FlowKind kind, SliceId from, SliceId to);

    // Project time = source time + offset.
    void setClockOffset(TimeNs offset) { m_clockOffset = offset; }
    void setSourceMetadata(const QJsonObject &metadata) { m_metadata = metadata; }
    // Marks every track of this source as belonging to one rank of a distributed job.
    void setSourceRank(int rank);
    // Merged into run.params (later sources add keys; lists under the same key are joined).
    void mergeRunParams(const QJsonObject &params);

    // The earliest slice start or counter sample written so far (source clock); max when none.
    TimeNs earliest() const;
    qint64 sliceCount() const { return m_sliceCount; }
    qint64 counterCount() const { return m_counters; }
    qint64 flowCount() const { return m_flows; }

    // True once any insert failed; the import must then be rolled back.
    bool failed() const { return !m_error.isEmpty() || !m_slices.errorString().isEmpty(); }
    QString errorString() const { return m_error.isEmpty() ? m_slices.errorString() : m_error; }

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
    TrackStats &stats(TrackId track);
    void fail(const SqliteStatement &st);

    Project &m_project;
    RunId m_run;
    SourceId m_source;
    SqliteStatement m_insertTrack;
    SqliteStatement m_insertCounter;
    TrackId m_firstTrack = 0;
    TrackId m_nextTrack = 0;
    slicestore::ChunkWriter m_slices;
    std::vector<slicestore::Flow> m_flowRows; // written by finish()
    std::vector<TrackStats> m_trackStats;
    qint64 m_sliceCount = 0;
    qint64 m_counters = 0;
    qint64 m_flows = 0;
    TimeNs m_clockOffset = 0;
    QJsonObject m_metadata;
    QString m_error;
};

} // namespace gml
