// SPDX-License-Identifier: GPL-3.0-or-later
#include "executiontraceimporter.h"
#include "safetext.h"

#include "etlinker.h"
#include "inputstream.h"
#include "jsonfields.h"
#include "jsonscan.h"
#include "project.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace gml {

namespace {

struct Node
{
    qint64 id = 0;
    qint64 parent = -1;
    qint64 rfId = -1;
    qint64 scope = -1; // RecordScope: 7 = USER_SCOPE (record_function annotations)
    qint64 tid = -1;   // the ET's own thread number (not the OS thread id)
    QString name;
    QJsonArray inputs, outputs;
};

// A whole-number field of a node: -1 when absent; a value of another type ("abc", 1.5,
// 1e300) is -1 too, counted in `warnings` with the node and the value, since it would
// otherwise link nothing and say only "matched nothing".
qint64 wholeNumber(const QJsonValue &v, const char *key, const QString &where, WarningLog &warnings)
{
    if (v.isUndefined() || v.isNull())
        return -1;
    const double d = v.toDouble(std::nan(""));
    if (v.isDouble() && std::isfinite(d) && d == std::floor(d) && std::abs(d) <= 9007199254740992.0)
        return v.toInteger(qint64(d));
    warnings.add(QStringLiteral("type ") + QLatin1String(key), -1,
                 QStringLiteral("%1: '%2' is %3; expected a whole number (read as absent)")
                     .arg(where, QLatin1String(key), JsonFields::show(v)));
    return -1;
}

// The node fields of either layout.
Node readNode(const QJsonObject &o, WarningLog &warnings)
{
    Node n;
    const QString id = QStringLiteral("node ") + JsonFields::show(o.value(QStringLiteral("id")));
    n.id = wholeNumber(o.value(QStringLiteral("id")), "id", id, warnings);
    n.name = o.value(QStringLiteral("name")).toString();
    if (o.contains(QStringLiteral("attrs"))) { // 1.0.2-chakra and later
        for (const auto &a : o.value(QStringLiteral("attrs")).toArray()) {
            const QJsonObject attr = a.toObject();
            const QString name = attr.value(QStringLiteral("name")).toString();
            if (name == QLatin1String("rf_id"))
                n.rfId = wholeNumber(attr.value(QStringLiteral("value")), "rf_id", id, warnings);
            else if (name == QLatin1String("scope"))
                n.scope = wholeNumber(attr.value(QStringLiteral("value")), "scope", id, warnings);
            else if (name == QLatin1String("tid"))
                n.tid = wholeNumber(attr.value(QStringLiteral("value")), "tid", id, warnings);
        }
        const QJsonArray ctrl = o.value(QStringLiteral("ctrl_deps")).isArray()
                                    ? o.value(QStringLiteral("ctrl_deps")).toArray()
                                    : QJsonArray{o.value(QStringLiteral("ctrl_deps"))};
        if (!ctrl.isEmpty())
            n.parent = wholeNumber(ctrl.first(), "ctrl_deps", id, warnings);
        n.inputs =
            o.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("values")).toArray();
        n.outputs =
            o.value(QStringLiteral("outputs")).toObject().value(QStringLiteral("values")).toArray();
    } else { // 1.0.1 flat
        n.parent = wholeNumber(o.value(QStringLiteral("parent")), "parent", id, warnings);
        n.rfId = wholeNumber(o.value(QStringLiteral("rf_id")), "rf_id", id, warnings);
        n.scope = wholeNumber(o.value(QStringLiteral("scope")), "scope", id, warnings);
        n.tid = wholeNumber(o.value(QStringLiteral("tid")), "tid", id, warnings);
        n.inputs = o.value(QStringLiteral("inputs")).toArray();
        n.outputs = o.value(QStringLiteral("outputs")).toArray();
    }
    return n;
}

// Operators, not annotations: "## name ##" and "[param|...]" record_function scopes (scope 7),
// the "[pytorch|profiler|execution_trace|...]" roots.
bool isOperator(const Node &n)
{
    return !n.name.isEmpty() && n.scope != 7 && !n.name.startsWith(QLatin1String("##")) &&
           !n.name.startsWith(QLatin1Char('['));
}

// Tensor values: [tensor_id, storage_id, offset, numel, itemsize, device], possibly in lists.
void collectTensors(const QJsonValue &v, QList<QPair<qint64, qint64>> &out, int depth = 0)
{
    if (!v.isArray() || depth > 4)
        return;
    const QJsonArray a = v.toArray();
    if (a.size() == 6 && a[0].isDouble() && a[1].isDouble() && a[5].isString()) {
        out.append({a[0].toInteger(), a[1].toInteger()});
        return;
    }
    for (const auto &e : a)
        collectTensors(e, out, depth + 1);
}

} // namespace

SniffResult ExecutionTraceImporter::sniff(const QString &path, const QByteArray &head) const
{
    const QByteArray h = head.trimmed();
    if (h.startsWith('{') && h.contains("\"nodes\"") && h.contains("\"schema\""))
        return {95, {}};
    return {};
}

namespace {

// The trace's nodes, and how to find one by id (the first node with it).
struct EtNodes
{
    std::vector<Node> nodes;
    QHash<qint64, size_t> byId;
    // Ids should be unique; where a file repeats one, parent links go to the first node with
    // it, and data edges are made between nodes themselves, so a repeat never redirects them.
    qint64 duplicateIds = 0, firstDuplicate = 0, missingIds = 0;
    QString firstMissing;
};

EtNodes readEtNodes(const QJsonArray &array, WarningLog &warnings)
{
    EtNodes r;
    // Ids should be unique; where a file repeats one, parent links go to the first node with
    // it, and data edges are made between nodes themselves, so a repeat never redirects them.
    for (const auto &v : array) {
        r.nodes.push_back(readNode(v.toObject(), warnings));
        // The root ("[pytorch|profiler|execution_trace|thread]") may name itself; an operator
        // that does would hang off nothing.
        if (r.nodes.back().parent == r.nodes.back().id && r.nodes.back().id >= 0 &&
            !r.nodes.back().name.startsWith(QLatin1Char('[')))
            warnings.add(
                QStringLiteral("self parent"), -1,
                QStringLiteral(
                    "node %1 (%2) names itself as its parent; it is read as a top-level node")
                    .arg(r.nodes.back().id)
                    .arg(r.nodes.back().name));
        if (r.nodes.back().id < 0) {
            // No id (or not a number: said by wholeNumber): its own operator, nobody's parent.
            if (r.missingIds++ == 0)
                r.firstMissing = r.nodes.back().name;
        } else if (r.byId.contains(r.nodes.back().id)) {
            if (r.duplicateIds++ == 0)
                r.firstDuplicate = r.nodes.back().id;
        } else {
            r.byId.insert(r.nodes.back().id, r.nodes.size() - 1);
        }
    }
    return r;
}

// Operators at the level where they run (their parent is not an operator), in rf_id order;
// `operators` counts them all.
std::vector<const Node *> topLevelOperators(const EtNodes &et, qint64 *operators)
{
    const std::vector<Node> &nodes = et.nodes;
    const QHash<qint64, size_t> &byId = et.byId;
    std::vector<const Node *> ops;
    for (const Node &n : nodes) {
        if (!isOperator(n))
            continue;
        ++*operators;
        auto p = byId.constFind(n.parent);
        if (p == byId.constEnd() || !isOperator(nodes[*p]))
            ops.push_back(&n);
    }
    std::stable_sort(ops.begin(), ops.end(), [](const Node *a, const Node *b) {
        return a->rfId != b->rfId ? a->rfId < b->rfId : a->id < b->id;
    });
    return ops;
}

// Producer -> consumer by tensor, in rf_id order.
std::set<std::pair<const Node *, const Node *>> dataEdges(const std::vector<const Node *> &ops)
{
    std::map<QPair<qint64, qint64>, const Node *> producer;
    std::set<std::pair<const Node *, const Node *>> edges;
    for (const Node *op : ops) {
        QList<QPair<qint64, qint64>> in, out;
        collectTensors(op->inputs, in);
        collectTensors(op->outputs, out);
        for (const auto &t : std::as_const(in)) {
            auto p = producer.find(t);
            if (p != producer.end() && p->second != op)
                edges.insert({p->second, op});
        }
        for (const auto &t : std::as_const(out))
            producer[t] = op;
    }
    return edges;
}

} // namespace

ImportOutcome ExecutionTraceImporter::import(ImportContext &ctx) const
{
    QString readError;
    const auto read =
        InputStream::readAll(ctx.path, qint64(4) << 30, QStringLiteral("an execution trace"),
                             &readError, &ctx.contentHash); // empty for gzip
    if (!read)
        return ImportOutcome::failure(-1, readError);
    const QByteArray &bytes = *read;
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError)
        return {ImportOutcome::Status::Failed,
                pe.offset,
                pe.errorString() + QStringLiteral("; expected an execution trace JSON object"),
                {}};
    const QJsonObject root = doc.object();
    WarningLog warnings;
    // Qt keeps the last of a repeated key's values ("rf_id": 1, "rf_id": 7): said.
    if (const auto repeated = json::findRepeatedKeys(bytes.constData(), size_t(bytes.size()));
        repeated.count > 0)
        warnings.add(QStringLiteral("repeated keys"), repeated.firstOffset,
                     QStringLiteral(
                         "%1 keys repeat within their object (first: '%2'); the last value of each "
                         "is read")
                         .arg(repeated.count)
                         .arg(QString::fromStdString(repeated.firstKey)));
    if (!root.value(QStringLiteral("nodes")).isArray())
        return {ImportOutcome::Status::Failed,
                0,
                QStringLiteral("no 'nodes' array; expected an ExecutionTraceObserver JSON object"),
                {}};
    if (ctx.progress && !ctx.progress(0.3))
        return {ImportOutcome::Status::Cancelled, -1, {}, {}};
    const QString schema = root.value(QStringLiteral("schema")).toString();
    const qint64 pid = wholeNumber(root.value(QStringLiteral("pid")), "pid",
                                   QStringLiteral("the trace"), warnings);

    const EtNodes et = readEtNodes(root.value(QStringLiteral("nodes")).toArray(), warnings);
    const std::vector<Node> &nodes = et.nodes;
    qint64 operators = 0;
    const std::vector<const Node *> ops = topLevelOperators(et, &operators);

    // The CPU operator slices of this process, by record-function id: of the file's own run,
    // else of the run that holds this process's operators (the Kineto trace imported from
    // another folder without --run): the source then joins that run.
    TraceWriter &w = *ctx.writer;
    std::vector<EtOperator> refs;
    refs.reserve(ops.size());
    for (const Node *op : ops)
        refs.push_back({op->rfId, op->tid, op->name});
    QString linkError;
    const auto runLink = linkToRun(w, pid, refs, &linkError);
    if (!runLink)
        return ImportOutcome::failure(-1, linkError);
    const EtLink &link = runLink->link;
    const QHash<qint64, SliceId> &slices = link.slices;

    const auto edges = dataEdges(ops);
    qint64 stored = 0;
    for (const auto &e : edges) {
        const Node &from = *e.first;
        const Node &to = *e.second;
        auto a = slices.constFind(from.rfId), b = slices.constFind(to.rfId);
        if (a != slices.constEnd() && b != slices.constEnd()) {
            w.addFlow(FlowKind::Data, *a, *b);
            ++stored;
        }
    }
    QJsonObject meta;
    meta.insert(QStringLiteral("schema"), schema);
    meta.insert(QStringLiteral("pid"), pid);
    meta.insert(QStringLiteral("nodes"), qint64(nodes.size()));
    meta.insert(QStringLiteral("operators"), operators);
    meta.insert(QStringLiteral("top_level_operators"), qint64(ops.size()));
    insertLinkMetadata(meta, *runLink);
    meta.insert(QStringLiteral("data_edges"), qint64(edges.size()));
    meta.insert(QStringLiteral("data_edges_stored"), stored);
    w.setSourceMetadata(meta);
    ImportOutcome outcome;
    outcome.warnings = linkWarnings(*runLink, pid, ops.size(), stored, edges.size());
    outcome.warnings.append(warnings.list());
    if (et.missingIds > 0)
        outcome.warnings.append(
            ImportWarning{QStringLiteral("%1 nodes have no 'id' (first: '%2'); each is kept as its "
                                         "own operator, and no node can "
                                         "name it as its parent")
                              .arg(et.missingIds)
                              .arg(safeText(et.firstMissing, 80)),
                          -1, et.missingIds});
    if (et.duplicateIds > 0)
        outcome.warnings.append(ImportWarning{
            QStringLiteral("%1 nodes repeat the id of an earlier node (first: id %2); each is "
                           "kept as its own operator, and parent links go to the first node "
                           "with the id")
                .arg(et.duplicateIds)
                .arg(et.firstDuplicate),
            -1, et.duplicateIds});
    return outcome;
}

} // namespace gml
