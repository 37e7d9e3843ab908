// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clockalignment.h"
#include "types.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>
#include <utility>

namespace gml {

class Project;

struct SourceSummary
{
    SourceId id = 0;
    QString path;
    QString format;
    QString status;
    QString error;
    QJsonArray warnings;
    qint64 warningCount = 0; // sum of the folded counts
    qint64 slices = 0;
    qint64 counterSamples = 0;
    qint64 flows = 0;
    TimeNs clockOffset = 0; // the importer's clock anchor
    TimeNs alignOffset = 0; // the rank alignment applied on top (clockalignment.h)
    std::optional<SourceAlignment> alignment;
    // The source's metadata is not read here: nothing of the summary needs it, and a rank's
    // Kineto trace lists every visible GPU's properties (140 KB a rank in a 1,024-rank job,
    // 143 MB parsed on every open). Query source.metadata where it is needed.
};

struct TrackSummary
{
    TrackId id = 0;
    TrackId parent = 0;
    TrackKind kind = TrackKind::Thread;
    QString name;
    qint64 sortKey = 0;
    int rank = -1;
    QString unit;
    QString pid; // GPU tracks: the device index
    QString tid; // "monitor" for the device tracks of monitoring logs
    qint64 slices = 0;
    qint64 counterSamples = 0;
};

struct RunSummary
{
    RunId id = 0;
    QString name;
    QString kind;
    TimeNs start = 0; // project clock; 0 when the run has no data
    TimeNs end = 0;
    qint64 slices = 0;
    qint64 counterSamples = 0;
    qint64 flows = 0;
    QJsonObject params;
    QList<SourceSummary> sources;
    // Depth-first, siblings by sort key then name. Shown as one tree: the device rows of
    // monitoring logs (nvidia-smi, dcgmi) are merged with the run's row for the same GPU (see
    // mergeDeviceRows), so their counters sit under the slices they explain.
    QList<TrackSummary> tracks;
};

// Each run's span on the project clock: its tracks' earliest start and latest end (runs
// without data are left out). One aggregate query over the tracks.
QHash<RunId, std::pair<TimeNs, TimeNs>> runSpans(Project &project);

// Everything `grademl info` prints; one pass of a few aggregate queries.
QList<RunSummary> summarizeProject(Project &project, QString *error);
QJsonObject summaryToJson(const QList<RunSummary> &runs);
QString summaryToText(const QList<RunSummary> &runs);
// One line on a source's clock alignment ("rank 3 vs rank 0 on 8 matched collectives: ...").
QString describeAlignment(const SourceAlignment &a);

} // namespace gml
