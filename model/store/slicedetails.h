// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One slice as the details panel shows it, and the slices a flow links to it: from the project,
// or from the shard that holds it when the project is a cluster project (clusterproject.h).

#include "types.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace gml {

class Project;
class SqliteStatement;

// One slice as the details panel shows it (project clock).
struct SliceDetails
{
    SliceId id = 0;
    TrackId track = 0;
    QString name;
    QString category;
    TimeNs start = 0;
    TimeNs duration = 0;
    std::optional<qint64> correlation;
    std::optional<qint64> externalId;
    QJsonObject args;
};

// A slice linked to another by a flow (launch, CPU op -> GPU, trace flow ...).
struct LinkedSlice
{
    FlowKind kind = FlowKind::TraceFlow;
    bool outgoing = true; // the given slice is the flow's source
    SliceId id = 0;
    TrackId track = 0;
    QString name;
    TimeNs start = 0;
    TimeNs duration = 0;
};

std::optional<SliceDetails> sliceDetails(Project &project, SliceId id, QString *error = nullptr);
// The row a statement stands on, of columns id, track, name, category, ts, dur, correlation,
// external_id, args (in that order).
SliceDetails sliceDetailsOf(const SqliteStatement &st);
QList<LinkedSlice> linkedSlices(Project &project, SliceId id);

// The ids of the slices of `track` whose category (`category` true) or args as JSON text (keys
// and values) hold `text`, case-insensitive, args whatever their spacing (Find's "cat:" and
// "arg:"). Not in a cluster project, whose slices are in its shards: empty, and *error says so.
std::vector<SliceId> slicesHolding(Project &project, TrackId track, bool category,
                                   const QString &text, QString *error = nullptr);

} // namespace gml
