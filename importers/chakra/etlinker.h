// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "tracewriter.h"
#include "types.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

#include <vector>

namespace gml {

class Project;

// One top-level operator of an execution trace, in record order.
struct EtOperator
{
    qint64 rfId = -1;
    qint64 tid = -1; // the ET's thread number
    QString name;
};

// How an execution trace's operators were found among a run's cpu_op slices.
struct EtLink
{
    enum class Method { None, RecordFunctionId, ExternalId, Order };
    RunId run = 0;
    Method method = Method::None;
    QHash<qint64, SliceId> slices; // rf_id -> the slice it ran as; only pairs whose names agree
    qint64 matched = 0;            // == slices.size()
    qint64 idMismatches = 0;       // by id, the slice had another operator's name
};

QString methodName(EtLink::Method method);

// Links `ops` (top-level operators of process `pid`) to the cpu_op slices of that process in
// `run`. By id first: "Record function id" where the trace has it, else the External id,
// keeping only pairs whose names agree. When most ids point at another operator (the ET and
// the Kineto trace counted ids differently, or recorded different iterations), by order: each
// ET thread's operators in rf_id order are aligned, name by name (longest common
// subsequence), with the top-level cpu_op slices of the trace's thread and start that match
// them best (PARAM's trace_link aligns by order too). The better of the two is kept.
EtLink linkOperators(Project &project, RunId run, qint64 pid, StringId cpuOp,
                     const std::vector<EtOperator> &ops);

// An execution trace's operators linked to the run it is imported into; when none of them
// matches there, to the measured run whose process `pid` holds most of them (more than half,
// by name: the same pid on another host is another process), and the source moves into that
// run (`joinedRun` names it). nullopt with *error when the move fails.
struct EtRunLink
{
    EtLink link;
    QString joinedRun;
    QStringList
        kinetoTraces; // the Kineto (Chrome JSON) traces already in the execution trace's run
};
std::optional<EtRunLink> linkToRun(TraceWriter &writer, qint64 pid,
                                   const std::vector<EtOperator> &ops, QString *error);

// What every execution trace's metadata says of its link: matched_operators, matched_by,
// id_name_mismatches, joined_run.
void insertLinkMetadata(QJsonObject &meta, const EtRunLink &link);

// The warnings of a link: joined another run, matched nothing, matched only some. `edges`
// dependencies were found between operators, `stored` of them between matched ones.
QList<ImportWarning> linkWarnings(const EtRunLink &link, qint64 pid, size_t ops, qint64 stored,
                                  size_t edges);

} // namespace gml
