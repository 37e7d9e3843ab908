// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sliceclass.h"
#include "sourcesummary.h"
#include "types.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <map>
#include <optional>
#include <vector>

namespace gml {

class Project;
class SqliteDb;

// Aligning the clocks of a distributed run's ranks (sources) recorded on different hosts, as
// dPRO does: one collective (an NCCL/RCCL kernel) ends at nearly the same moment on every rank
// that takes part, so the offset of a rank against the run's reference rank (the lowest rank
// with collectives) is the median difference of the end times of their matched collectives.
//
// Matching: each rank's collective kernels, in start order, keyed by their operation (AllReduce,
// AllGather, ReduceScatter, Broadcast, Reduce, SendRecv, AllToAll, Send, Recv). A profiler may
// start a little earlier or later on one rank, so the two sequences are compared at every shift
// within ±16 and the shift whose same-operation pairs agree best (smallest median absolute
// deviation, among the shifts with at least half of the best shift's pair count) is kept.
// Residual: the root mean square of the matched end differences after the offset is applied.
//
// Applied: a computed offset is applied only when it is significant, larger than 20 µs and than
// 4x its residual; smaller ones are the jitter of ranks that share a clock (one host), and those
// ranks keep their recorded times. A user override (any value, 0 included) replaces the
// computed offset until it is cleared.
struct SourceAlignment
{
    SourceId source = 0;
    QString path;
    int rank = -1;          // lowest track rank of the source; -1 when unknown
    int collectives = 0;    // collective kernels found in the source
    SourceId reference = 0; // the rank it was aligned to; its own id for the reference
    int referenceRank = -1;
    int matched = 0;                // collective pairs used
    std::optional<TimeNs> computed; // unset: no collectives matched
    TimeNs residual = 0;
    bool significant = false;
    std::optional<TimeNs> user; // the user's override
    TimeNs applied = 0;         // what project times include (source.align_ns)
    QString note;               // why nothing was computed, when so

    QJsonObject toJson() const;
    static SourceAlignment fromJson(const QJsonObject &o);
    // A source row's stored record (the `alignment` JSON) with its columns: the override
    // (align_user_ns) and the applied offset (align_ns) are the columns', not the record's.
    static SourceAlignment fromRow(SourceId source, const QString &path, const QString &record,
                                   std::optional<TimeNs> user, TimeNs applied);
};

struct AlignmentFit
{
    int matched = 0;
    int shift = 0;     // index in `other` of the reference's first collective
    TimeNs offset = 0; // add to `other`'s times
    TimeNs residual = 0;
};
// The matching described above; nullopt when no shift pairs at least one same-operation
// collective. Both sequences are in start order.
std::optional<AlignmentFit> fitCollectives(const std::vector<CollectiveEnd> &reference,
                                           const std::vector<CollectiveEnd> &other);

// One source's collectives for computeAlignment: their ends on the source's clock plus its
// clock offset (not its alignment).
struct AlignmentInput
{
    SourceId source = 0;
    QString path;
    int rank = -1;
    std::optional<TimeNs> user;
    std::vector<CollectiveEnd> ends; // any order
};
// The imported sources of `run` as inputs, their collectives not read (ends empty), by id;
// `clockOffsets` gets each one's clock offset.
std::map<SourceId, AlignmentInput>
alignmentSources(SqliteDb &db, RunId run, std::map<SourceId, TimeNs> *clockOffsets = nullptr);
// The alignment of a run's sources as described above, in their order: every source gets a
// record (reference 0 and no computed offset where it has none).
std::vector<SourceAlignment> computeAlignment(std::vector<AlignmentInput> sources);
// Stores each record (source.alignment; NULL for one without a reference or override) and
// applies its offset (source.align_ns). In the caller's transaction.
[[nodiscard]] bool storeAlignment(SqliteDb &db, const std::vector<SourceAlignment> &alignment,
                                  QString *error);

// Recomputes the alignment of every source of `run` that holds collective kernels, stores it
// (source.alignment) and applies it (source.align_ns), keeping user overrides, in one
// transaction. Sources without collectives keep offset 0 and get no alignment record.
[[nodiscard]] bool alignRunClocks(Project &project, RunId run, QString *error);

// The stored alignment of a run's sources (those that have a record), by rank then path.
QList<SourceAlignment> loadRunAlignment(Project &project, RunId run);

// Sets (value) or clears (nullopt) a source's override and re-applies its offset.
[[nodiscard]] bool setAlignmentOverride(Project &project, SourceId source,
                                        std::optional<TimeNs> offset, QString *error);

} // namespace gml
