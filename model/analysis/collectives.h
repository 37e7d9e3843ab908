// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace gml {

class Project;

// What the network did, rank by rank: every collective kernel of a run (NCCL / RCCL) matched
// across its ranks by process group, operation and sequence (the k-th all-reduce of group "0"
// on each rank), not by time; all-to-all done as SendRecv counts as the collective it is.
// Its time is split into skew (waiting for the last rank to arrive) and transfer (after every
// rank has arrived), and the transfer into bandwidth by nccl-tests' conventions:
//   algbw = bytes / transfer time
//   busbw = algbw x 2(n-1)/n (all-reduce), (n-1)/n (all-gather, reduce-scatter, all-to-all),
//           1 (broadcast, reduce, send/recv)
// where bytes are the recorded element count times the dtype's size (the output's for an
// all-gather, the input's otherwise; nccl-tests' "size"), n the group's size.
// nccl-tests' bus factor of an operation (collectiveOperations()) over `ranks`: what busbw is
// algbw times (above).
double busFactor(const QString &operation, int ranks);
// A collective's message by the same conventions (nccl-tests' "size"): the output's element
// count for an all-gather, the input's otherwise, times the size of its dtype (c10's
// ScalarType names: "Float", "BFloat16"); nullopt when the count or the dtype is not recorded. What
// the report and the execution graph (a record_param_comms op's or an NCCL kernel's args) both
// read.
std::optional<qint64> collectiveMessageBytes(bool allGather, std::optional<qint64> inNelems,
                                             std::optional<qint64> outNelems, QStringView dtype);

struct CollectiveMember
{
    int rank = -1;
    SliceId slice = 0;
    TrackId track = 0;
    TimeNs start = 0, end = 0;
};

struct Collective
{
    int index = 0;         // in order of first arrival
    QString name;          // "AllReduce", or the recorded "Collective name"
    QString operation;     // the kernel's operation (collectiveOperations())
    QString group;         // process group name as recorded ("0"); empty: not recorded
    int groupSize = 0;     // recorded, else the ranks of the run that ran the group
    QList<int> groupRanks; // recorded "Process Group Ranks", else the members' ranks
    QString dtype;         // recorded, else empty
    qint64 bytes = -1;     // -1: not recorded
    TimeNs firstStart = 0, lastStart = 0, firstEnd = 0, lastEnd = 0;
    TimeNs transfer = 0; // the members' median time from the last arrival to their end
    std::vector<CollectiveMember> members; // by rank
    // Filled by the caller that knows the hardware (simulator/analysis/collectivelinks.h).
    QString link;             // "nvlink2", "network"; empty: not assigned
    double linkPeakGBps = 0;  // 0: unknown
    bool linkAssumed = false; // the network is the GPU's reference server's, not the run's

    TimeNs duration() const { return lastEnd - firstStart; }
    TimeNs skewStart() const { return lastStart - firstStart; }
    TimeNs skewEnd() const { return lastEnd - firstEnd; }
    double busFactor() const;
    double algbwGBps() const; // 0: bytes or transfer unknown
    double busbwGBps() const { return algbwGBps() * busFactor(); }
    int lastRank() const; // who arrived last; -1 with one member
    int firstRank() const;
    QJsonObject toJson() const;
};

struct RankCollectives
{
    int rank = -1;
    int collectives = 0;
    TimeNs wait = 0; // sum of (the last rank's arrival - its own)
    int lastArrivals = 0;
    int firstArrivals = 0;
    TimeNs comm = 0; // its collective kernels' time
};

struct CollectiveReport
{
    std::vector<Collective> collectives;
    std::vector<RankCollectives> ranks;
    QJsonObject toJson() const;
    // A table a person reads: by name and size, count, time, skew share, busbw against the
    // link's peak; then the ranks.
    QString toText() const;
};

// The collectives of one kind (name, group size, message size) together, as the table, the
// report and the pane show them: count, time, skew, transfer, the median busbw, the link.
struct CollectiveKind
{
    QString name;
    int groupSize = 0;
    qint64 bytes = -1;
    int count = 0;
    TimeNs time = 0, skew = 0, transfer = 0;
    double medianBusbwGBps = 0; // 0: no message size recorded
    double linkPeakGBps = 0;
    QString link;
    bool linkAssumed = false;
    std::vector<int> collectives; // indices into the report's, in time order
    double skewShare() const { return time > 0 ? double(skew) / double(time) : 0; }
    // "65% of nvlink3 (300 GB/s)", the link alone without a peak or a busbw.
    QString ofPeak() const;
};
// The kinds of a report, the longest in time first.
std::vector<CollectiveKind> collectiveKinds(const CollectiveReport &report);

// A message size as people read it: "95.4 MiB", "424 B"; "?" when not recorded (< 0).
QString messageSize(qint64 bytes);

// The report of `run`; nullopt with *error when the slices cannot be read (a cluster project).
std::optional<CollectiveReport> collectiveReport(Project &project, RunId run, QString *error);

} // namespace gml
