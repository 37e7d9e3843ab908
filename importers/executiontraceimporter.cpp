// SPDX-License-Identifier: GPL-3.0-or-later
#include "executiontraceimporter.h"

#include "etlinker.h"
#include "inputstream.h"
#include "project.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>
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

// The node fields of either layout.
Node readNode(const QJsonObject &o)
{
    Node n;
    n.id = o.value(QStringLiteral("id")).toInteger(-1);
    n.name = o.value(QStringLiteral("name")).toString();
    if (o.contains(QStringLiteral("attrs"))) { // 1.0.2-chakra and later
        for (const auto &a : o.value(QStringLiteral("attrs")).toArray()) {
            const QJsonObject attr = a.toObject();
            const QString name = attr.value(QStringLiteral("name")).toString();
            if (name == QLatin1String("rf_id"))
                n.rfId = attr.value(QStringLiteral("value")).toInteger(-1);
            else if (name == QLatin1String("scope"))
                n.scope = attr.value(QStringLiteral("value")).toInteger(-1);
            else if (name == QLatin1String("tid"))
                n.tid = attr.value(QStringLiteral("value")).toInteger(-1);
        }
        const QJsonArray ctrl = o.value(QStringLiteral("ctrl_deps")).isArray()
                                    ? o.value(QStringLiteral("ctrl_deps")).toArray()
                                    : QJsonArray{o.value(QStringLiteral("ctrl_deps"))};
        if (!ctrl.isEmpty())
            n.parent = ctrl.first().toInteger(-1);
        n.inputs = o.value(QStringLiteral("inputs")).toObject().value(QStringLiteral("values")).toArray();
        n.outputs = o.value(QStringLiteral("outputs")).toObject().value(QStringLiteral("values")).toArray();
    } else { // 1.0.1 flat
        n.parent = o.value(QStringLiteral("parent")).toInteger(-1);
        n.rfId = o.value(QStringLiteral("rf_id")).toInteger(-1);
        n.scope = o.value(QStringLiteral("scope")).toInteger(-1);
        n.tid = o.value(QStringLiteral("tid")).toInteger(-1);
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
    if (path.endsWith(QLatin1String(".et")))
        return {0, QStringLiteral("Chakra protobuf execution trace: not read (the JSON "
                                  "ExecutionTraceObserver output is)")};
    return {};
}

ImportOutcome ExecutionTraceImporter::import(ImportContext &ctx) const
{
    InputStream in;
    if (!in.open(ctx.path))
        return {ImportOutcome::Status::Failed, -1, in.errorString(), {}};
    QByteArray bytes;
    {
        QByteArray buf(1 << 20, Qt::Uninitialized);
        for (qint64 n; (n = in.read(buf.data(), buf.size())) > 0;)
            bytes.append(buf.constData(), n);
    }
    ctx.contentHash = in.wholeFileHash(); // empty after a read error or for gzip
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError)
        return {ImportOutcome::Status::Failed, pe.offset,
                pe.errorString() + QStringLiteral("; expected an execution trace JSON object"), {}};
    const QJsonObject root = doc.object();
    if (!root.value(QStringLiteral("nodes")).isArray())
        return {ImportOutcome::Status::Failed, 0,
                QStringLiteral("no 'nodes' array; expected an ExecutionTraceObserver JSON object"), {}};
    if (ctx.progress && !ctx.progress(0.3))
        return {ImportOutcome::Status::Cancelled, -1, {}, {}};
    const QString schema = root.value(QStringLiteral("schema")).toString();
    const qint64 pid = root.value(QStringLiteral("pid")).toInteger(-1);

    std::vector<Node> nodes;
    QHash<qint64, size_t> byId;
    // Ids should be unique; where a file repeats one, parent links go to the first node with
    // it, and data edges are made between nodes themselves, so a repeat never redirects them.
    qint64 duplicateIds = 0, firstDuplicate = 0;
    for (const auto &v : root.value(QStringLiteral("nodes")).toArray()) {
        nodes.push_back(readNode(v.toObject()));
        if (byId.contains(nodes.back().id)) {
            if (duplicateIds++ == 0)
                firstDuplicate = nodes.back().id;
        } else {
            byId.insert(nodes.back().id, nodes.size() - 1);
        }
    }
    // Operators at the level where they run: their parent is not an operator.
    std::vector<const Node *> ops;
    qint64 operators = 0;
    for (const Node &n : nodes) {
        if (!isOperator(n))
            continue;
        ++operators;
        auto p = byId.constFind(n.parent);
        if (p == byId.constEnd() || !isOperator(nodes[*p]))
            ops.push_back(&n);
    }
    std::stable_sort(ops.begin(), ops.end(), [](const Node *a, const Node *b) {
        return a->rfId != b->rfId ? a->rfId < b->rfId : a->id < b->id;
    });

    // The CPU operator slices of this process, by record-function id: of the file's own run,
    // else of the run that holds this process's operators (the Kineto trace imported from
    // another folder without --run): the source then joins that run.
    TraceWriter &w = *ctx.writer;
    const StringId cpuOp = w.intern("cpu_op");
    const RunId ownRun = w.runId();
    std::vector<EtOperator> refs;
    refs.reserve(ops.size());
    for (const Node *op : ops)
        refs.push_back({op->rfId, op->tid, op->name});
    EtLink link = linkOperators(w.project(), ownRun, pid, cpuOp, refs);
    QString joined;
    if (link.matched == 0) {
        auto others = w.project().db().prepare(
            "SELECT DISTINCT t.run_id, r.name FROM track t JOIN run r ON r.id = t.run_id "
            "WHERE t.pid = ?1 AND t.run_id != ?2 AND r.kind = 'measured' ORDER BY t.run_id");
        others.bind(1, QString::number(pid));
        others.bind(2, ownRun);
        EtLink best;
        QString bestName;
        while (others.step()) {
            EtLink l = linkOperators(w.project(), others.int64(0), pid, cpuOp, refs);
            // The same pid on another host is another process: most operators must be found,
            // by name, in the other run.
            if (l.matched * 2 >= qint64(ops.size()) && l.matched > best.matched) {
                best = std::move(l);
                bestName = others.text(1);
            }
        }
        if (best.matched > 0) {
            QString error;
            if (!w.moveToRun(best.run, &error))
                return {ImportOutcome::Status::Failed, -1,
                        QStringLiteral("could not write to the project: ") + error, {}};
            link = std::move(best);
            joined = bestName;
        }
    }
    const QHash<qint64, SliceId> &slices = link.slices;

    // Producer -> consumer by tensor, in rf_id order.
    std::map<QPair<qint64, qint64>, const Node *> producer;
    std::set<std::pair<const Node *, const Node *>> edges;
    const qint64 matched = link.matched;
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
    meta.insert(QStringLiteral("matched_operators"), matched);
    const QString by = methodName(link.method);
    meta.insert(QStringLiteral("matched_by"), by);
    meta.insert(QStringLiteral("id_name_mismatches"), link.idMismatches);
    meta.insert(QStringLiteral("data_edges"), qint64(edges.size()));
    if (!joined.isEmpty())
        meta.insert(QStringLiteral("joined_run"), joined);
    meta.insert(QStringLiteral("data_edges_stored"), stored);
    w.setSourceMetadata(meta);
    ImportOutcome outcome;
    if (!joined.isEmpty())
        outcome.warnings.append(ImportWarning{
            QStringLiteral("no operator matched a slice of its own run; joined run '%1', where "
                           "process %2's cpu_op slices match %3 of %4 operators by %5")
                .arg(joined)
                .arg(pid)
                .arg(matched)
                .arg(ops.size())
                .arg(by),
            -1, 1});
    if (matched == 0 && !ops.empty())
        outcome.warnings.append(ImportWarning{
            QStringLiteral("matched nothing: no cpu_op slice of process %1 in this run or any "
                           "other matches an operator (by rf_id or by order and name), so none of "
                           "its %2 data edges is in the graph (import the Kineto trace of the same "
                           "job; it is linked then, whichever is imported first)")
                .arg(pid)
                .arg(edges.size()),
            -1, 1});
    else if (matched < qint64(ops.size()))
        outcome.warnings.append(ImportWarning{
            QStringLiteral("%1 of %2 operators (pid %3) have no cpu_op slice of the same name "
                           "(matched by %4)%5; %6 of %7 data edges are kept")
                .arg(qint64(ops.size()) - matched)
                .arg(ops.size())
                .arg(pid)
                .arg(by)
                .arg(link.method == EtLink::Method::Order && link.idMismatches > 0
                         ? QStringLiteral(", as %1 ids pointed at a slice of another operator").arg(link.idMismatches)
                         : QString())
                .arg(stored)
                .arg(edges.size()),
            -1, 1});
    if (duplicateIds > 0)
        outcome.warnings.append(ImportWarning{
            QStringLiteral("%1 nodes repeat the id of an earlier node (first: id %2); each is "
                           "kept as its own operator, and parent links go to the first node "
                           "with the id")
                .arg(duplicateIds)
                .arg(firstDuplicate),
            -1, duplicateIds});
    return outcome;
}

} // namespace gml
