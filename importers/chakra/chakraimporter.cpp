// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakraimporter.h"

#include "chakragraph.h"

#include "etlinker.h"
#include "inputstream.h"
#include "jsonscan.h"
#include "proto/chakra_et.pb.h"
#include "protowire.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace gml {

namespace {

constexpr qint64 kMaxChakraBytes = qint64(4) << 30;

QString stdText(const std::string &s)
{
    return QString::fromStdString(
        json::findInvalidUtf8(s.data(), s.size()) < 0 ? s : json::repairUtf8(s));
}

// The Chakra converter numbers the parts of one operator: "aten::copy_(1)".
QString baseName(const QString &name)
{
    if (!name.endsWith(QLatin1Char(')')))
        return name;
    const qsizetype open = name.lastIndexOf(QLatin1Char('('));
    if (open <= 0 || open + 2 >= name.size())
        return name;
    for (qsizetype i = open + 1; i + 1 < name.size(); ++i)
        if (!name[i].isDigit())
            return name;
    return name.left(open);
}

qint64 intOf(const chakra::Attribute &a)
{
    using A = chakra::Attribute;
    switch (a.value_case()) {
    case A::kInt32Val:
        return a.int32_val();
    case A::kInt64Val:
        return a.int64_val();
    case A::kUint32Val:
        return a.uint32_val();
    case A::kUint64Val:
        return qint64(a.uint64_val());
    case A::kSint32Val:
        return a.sint32_val();
    case A::kSint64Val:
        return a.sint64_val();
    case A::kFixed32Val:
        return a.fixed32_val();
    case A::kFixed64Val:
        return qint64(a.fixed64_val());
    case A::kSfixed32Val:
        return a.sfixed32_val();
    case A::kSfixed64Val:
        return a.sfixed64_val();
    case A::kBoolVal:
        return a.bool_val() ? 1 : 0;
    case A::kDoubleVal:
        return qint64(a.double_val());
    case A::kFloatVal:
        return qint64(a.float_val());
    default:
        return -1;
    }
}

// Durations past a year and starts past 2065 are not times (2^64 - 1 from a bad writer).
constexpr quint64 kMaxDurationUs = quint64(kMaxDurationNs / 1000);
constexpr quint64 kMaxStartUs = quint64(kMaxAbsTimeNs / 1000);

bool isInteger(const chakra::Attribute &a)
{
    using A = chakra::Attribute;
    switch (a.value_case()) {
    case A::kDoubleVal:
    case A::kFloatVal:
    case A::kStringVal:
    case A::kBytesVal:
    case A::VALUE_NOT_SET:
        return false;
    default:
        return true;
    }
}

QString describe(const chakra::Attribute &a)
{
    using A = chakra::Attribute;
    switch (a.value_case()) {
    case A::kStringVal:
        return QStringLiteral("the text '%1'").arg(stdText(a.string_val().substr(0, 40)));
    case A::kBytesVal:
        return QStringLiteral("%1 bytes").arg(a.bytes_val().size());
    case A::kDoubleVal:
        return QStringLiteral("the real number %1").arg(a.double_val());
    case A::kFloatVal:
        return QStringLiteral("the real number %1").arg(a.float_val());
    case A::VALUE_NOT_SET:
        return QStringLiteral("without a value");
    default:
        return QString::number(intOf(a));
    }
}

// Python list text, "[[1, 2], [3]]": brackets that open with the text, balance and close it.
bool isListText(const std::string &s)
{
    if (s.empty() || s.front() != '[')
        return false;
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        depth += s[i] == '[' ? 1 : s[i] == ']' ? -1 : 0;
        if (depth == 0) // the first bracket closed: only whitespace may follow
            return s.find_first_not_of(" \t\r\n", i + 1) == std::string::npos;
    }
    return false;
}

// In a list of tensor values ([[tensor_id, storage_id, offset, numel, itemsize, device], ...]),
// the first number that is not finite (nan, inf, 1e999), which no tensor has. Empty: none.
// (Negative numbers appear in real traces: -1 for an absent optional argument.)
std::string badIoNumber(const std::string &s)
{
    for (size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (c == '"' || c == '\'') { // a device name
            const size_t close = s.find(c, i + 1);
            i = close == std::string::npos ? s.size() : close + 1;
            continue;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '-' || c == '+' ||
            std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            size_t j = i;
            while (j < s.size() && s[j] != ',' && s[j] != ']' && s[j] != '[' && s[j] != ' ')
                ++j;
            const std::string token = s.substr(i, j - i);
            i = j;
            const bool numeric =
                std::isdigit(static_cast<unsigned char>(token.back())) || token.back() == '.';
            std::string lower = token;
            for (char &ch : lower)
                ch = char(std::tolower(static_cast<unsigned char>(ch)));
            const bool nonFinite =
                lower.find("nan") != std::string::npos || lower.find("inf") != std::string::npos;
            if (!numeric && !nonFinite)
                continue; // a word, such as a dtype
            char *end = nullptr;
            const double v = std::strtod(token.c_str(), &end);
            if (nonFinite || !std::isfinite(v))
                return token;
            continue;
        }
        ++i;
    }
    return {};
}

} // namespace

SniffResult ChakraTraceImporter::sniff(const QString &path, const QByteArray &head) const
{
    if (!path.endsWith(QLatin1String(".et")) || head.isEmpty())
        return {};
    // A varint length, then a GlobalMetadata (version or attr: 0x0a, 0x12) or a Node (id: 0x08).
    const char *p = head.constData(), *end = p + head.size();
    quint64 length = 0;
    if (!protowire::readVarint(p, end, length) || p >= end || length == 0)
        return {0, QStringLiteral("named .et but not a length-prefixed Chakra protobuf stream")};
    if (*p != 0x0a && *p != 0x12 && *p != 0x08)
        return {0,
                QStringLiteral("named .et but its first message is not Chakra metadata or a node")};
    return {90, {}};
}

namespace {

// What a Chakra trace's messages say: its metadata (schema, pid) and its nodes, in file order.
struct ChakraMessages
{
    QString schema;
    qint64 pid = -1;
    bool hasMetadata = false;
    std::vector<chakragraph::Node> nodes;
};

// Reads every length-delimited message of [begin, end) into `out`, checking each field; the
// outcome when the file cannot be read (where, and what was expected) or the import is cancelled.
std::optional<ImportOutcome> readMessages(const char *const begin, const char *const end,
                                          ImportContext &ctx, WarningLog &warnings,
                                          ChakraMessages &out)
{
    QString &schema = out.schema;
    qint64 &pid = out.pid;
    bool &hasMetadata = out.hasMetadata;
    std::vector<chakragraph::Node> &nodes = out.nodes;
    const char *p = begin;
    chakra::Node msg;
    for (qint64 index = 0; p < end; ++index) {
        const qint64 at = p - begin;
        const QString what = index == 0 ? QStringLiteral("the first message")
                                        : QStringLiteral("message %1").arg(index + 1);
        quint64 length = 0;
        if (!protowire::readVarint(p, end, length))
            return ImportOutcome::failure(
                at, QStringLiteral("the length of %1 is cut short or not a varint; "
                                   "expected a varint length and a Chakra message")
                        .arg(what));
        if (length > quint64(end - p))
            return ImportOutcome::failure(
                at, QStringLiteral("%1 says %2 bytes follow, but only %3 are left: the file was "
                                   "cut short or corrupted")
                        .arg(what)
                        .arg(length)
                        .arg(end - p));
        if (length > quint64(std::numeric_limits<int>::max()))
            return ImportOutcome::failure(
                at, QStringLiteral("%1 says it is %2 bytes long; libprotobuf reads messages "
                                   "of up to 2 GiB")
                        .arg(what)
                        .arg(length));
        const qint64 bodyAt = p - begin;
        const int size = int(length);
        // The first message is the GlobalMetadata unless it starts like a Node (id: 0x08).
        if (index == 0 && size > 0 && *p != 0x08) {
            chakra::GlobalMetadata meta;
            // Checked first: libprotobuf drops a known field in the wrong wire type.
            if (auto problem =
                    protowire::check(chakra::GlobalMetadata::descriptor(), p, size, bodyAt))
                return ImportOutcome::failure(problem->offset, problem->message);
            if (!meta.ParseFromArray(p, size))
                return ImportOutcome::failure(bodyAt,
                                              QStringLiteral("not a Chakra GlobalMetadata"));
            hasMetadata = true;
            schema = stdText(meta.version());
            for (const auto &a : meta.attr()) {
                if (a.name() == "schema" && schema.isEmpty()) {
                    schema = stdText(a.string_val());
                } else if (a.name() == "pid") {
                    pid = isInteger(a) ? intOf(a) : -1;
                    if (pid < 0)
                        warnings.add(
                            QStringLiteral("pid"), bodyAt,
                            QStringLiteral(
                                "the metadata's pid is %1; expected a process id (an integer "
                                ">= 0): the trace is linked without it")
                                .arg(describe(a)));
                }
            }
        } else {
            if (auto problem = protowire::check(chakra::Node::descriptor(), p, size, bodyAt))
                return ImportOutcome::failure(problem->offset, problem->message);
            if (!msg.ParseFromArray(p, size))
                return ImportOutcome::failure(bodyAt,
                                              QStringLiteral("%1 is not a Chakra Node").arg(what));
            chakragraph::Node n;
            n.id = msg.id();
            n.at = bodyAt;
            n.name = baseName(stdText(msg.name()));
            n.type = msg.type();
            if (n.type < 0 || n.type >= int(std::size(chakragraph::kNodeTypes)))
                warnings.add(
                    QStringLiteral("type"), bodyAt,
                    QStringLiteral(
                        "node %1 has type %2; expected a Chakra NodeType (0 to %3): counted "
                        "as 'type %2' and not as work of any kind")
                        .arg(n.id)
                        .arg(n.type)
                        .arg(std::size(chakragraph::kNodeTypes) - 1));
            n.duration = msg.duration_micros();
            if (n.duration > kMaxDurationUs) {
                warnings.add(
                    QStringLiteral("duration"), bodyAt,
                    QStringLiteral("node %1 has a duration of %2 µs, past a year; left out of the "
                                   "time totals")
                        .arg(n.id)
                        .arg(n.duration));
                n.duration = 0;
            }
            if (msg.start_time_micros() > kMaxStartUs)
                warnings.add(
                    QStringLiteral("start"), bodyAt,
                    QStringLiteral("node %1 starts at %2 µs, past what any clock reads (the year "
                                   "2065); the importer does not place nodes by it")
                        .arg(n.id)
                        .arg(msg.start_time_micros()));
            for (const auto *io : {&msg.inputs(), &msg.outputs()})
                if (!io->values().empty() && !isListText(io->values()))
                    warnings.add(
                        QStringLiteral("io"), bodyAt,
                        QStringLiteral(
                            "node %1 has %2 values that are not a list ('%3'); expected "
                            "[[tensor_id, storage_id, offset, numel, itemsize, device], ...] "
                            "(the importer does not use tensor values, so nothing else changes)")
                            .arg(n.id)
                            .arg(io == &msg.inputs() ? QStringLiteral("input")
                                                     : QStringLiteral("output"),
                                 stdText(io->values().substr(0, 40))));
                else if (const std::string bad = badIoNumber(io->values()); !bad.empty())
                    warnings.add(
                        QStringLiteral("io number"), bodyAt,
                        QStringLiteral(
                            "node %1 has %2 values with '%3', which no tensor id, offset or size "
                            "is "
                            "(not a finite number); expected [[tensor_id, storage_id, offset, "
                            "numel, itemsize, device], ...] (the importer does not use tensor "
                            "values, so nothing else changes)")
                            .arg(n.id)
                            .arg(io == &msg.inputs() ? QStringLiteral("input")
                                                     : QStringLiteral("output"),
                                 stdText(bad.substr(0, 40))));
            n.ctrl.assign(msg.ctrl_deps().begin(), msg.ctrl_deps().end());
            n.data.assign(msg.data_deps().begin(), msg.data_deps().end());
            for (const auto &a : msg.attr()) {
                const std::string &name = a.name();
                if (name == "is_cpu_op")
                    n.cpu = intOf(a) != 0;
                else if (name == "rf_id")
                    n.rfId = intOf(a);
                else if (name == "tid")
                    n.tid = intOf(a);
                else if (name == "scope")
                    n.scope = intOf(a);
                else if (name == "comm_type")
                    n.commType = intOf(a);
                else if (name == "comm_size")
                    n.commSize = intOf(a);
            }
            nodes.push_back(std::move(n));
        }
        p += length;
        if ((index & 0x3fff) == 0 && ctx.progress &&
            !ctx.progress(0.5 * double(p - begin) / double(end - begin)))
            return ImportOutcome{ImportOutcome::Status::Cancelled, -1, {}, {}};
    }
    return std::nullopt;
}

} // namespace

namespace {

// Operators, one per record-function id (the converter splits some into numbered parts), in
// record-function order.
std::vector<EtOperator> operatorsOf(const std::vector<chakragraph::Node> &nodes)
{
    std::vector<EtOperator> refs;
    std::set<qint64> seenRf;
    for (const chakragraph::Node &n : nodes)
        if (chakragraph::isOperator(n) && (n.rfId < 0 || seenRf.insert(n.rfId).second))
            refs.push_back({n.rfId, n.tid, n.name});
    std::stable_sort(refs.begin(), refs.end(),
                     [](const EtOperator &a, const EtOperator &b) { return a.rfId < b.rfId; });
    return refs;
}

// Stores each edge whose two operators were linked to slices of the run, once per pair of
// slices (data edges first); how many of each kind were stored.
std::pair<qint64, qint64> storeEdges(TraceWriter &w, const chakragraph::Dependencies &deps,
                                     const QHash<qint64, SliceId> &slices)
{
    auto sliceOf = [&](const chakragraph::Node *n) -> SliceId {
        if (!n || n->rfId < 0)
            return 0;
        auto it = slices.constFind(n->rfId);
        return it == slices.constEnd() ? 0 : *it;
    };
    std::set<std::pair<SliceId, SliceId>> stored;
    auto store = [&](const auto &edges, FlowKind kind) {
        qint64 count = 0;
        for (const auto &[from, to] : edges) {
            const SliceId a = sliceOf(from), b = sliceOf(to);
            if (a && b && a != b && stored.insert({a, b}).second) {
                w.addFlow(kind, a, b);
                ++count;
            }
        }
        return count;
    };
    const qint64 data = store(deps.data, FlowKind::Data);
    return {data, store(deps.ctrl, FlowKind::Sequence)};
}

// The warnings of the import beyond the linker's, in the order a user reads them.
QList<ImportWarning> importWarnings(const ChakraMessages &messages,
                                    const chakragraph::Dependencies &deps,
                                    const WarningLog &warnings, qint64 duplicateIds)
{
    QList<ImportWarning> out;
    if (!messages.hasMetadata)
        out.append(ImportWarning{
            QStringLiteral(
                "no GlobalMetadata message before the first node: the schema version and the "
                "process id are unknown, so the trace is linked by operator names only"),
            0, 1});
    if (deps.selfData + deps.selfCtrl > 0)
        out.append(ImportWarning{
            QStringLiteral(
                "%1 data and %2 control dependencies name the node they belong to; left out")
                .arg(deps.selfData)
                .arg(deps.selfCtrl),
            -1, deps.selfData + deps.selfCtrl});
    out.append(warnings.list());
    if (deps.missingDeps > 0)
        out.append(ImportWarning{
            QStringLiteral("%1 data dependencies name a node that is not in the file; left out")
                .arg(deps.missingDeps),
            -1, deps.missingDeps});
    if (duplicateIds > 0)
        out.append(ImportWarning{
            QStringLiteral(
                "%1 nodes repeat the id of an earlier node; dependencies on the id go to "
                "the first")
                .arg(duplicateIds),
            -1, duplicateIds});
    return out;
}

} // namespace

ImportOutcome ChakraTraceImporter::import(ImportContext &ctx) const
{
    QString error;
    const auto read =
        InputStream::readAll(ctx.path, kMaxChakraBytes, QStringLiteral("a Chakra trace"), &error,
                             &ctx.contentHash); // empty for gzip
    if (!read)
        return ImportOutcome::failure(-1, error);
    const char *const begin = read->constData(), *const end = begin + read->size();
    if (begin == end)
        return ImportOutcome::failure(0,
                                      QStringLiteral("empty; expected a Chakra execution trace"));

    WarningLog warnings;
    ChakraMessages messages;
    if (auto stop = readMessages(begin, end, ctx, warnings, messages))
        return *stop;
    const std::vector<chakragraph::Node> &nodes = messages.nodes;
    if (nodes.empty())
        return ImportOutcome::failure(
            0, QStringLiteral("no nodes; expected a Chakra execution trace"));

    std::unordered_map<quint64, size_t> byId;
    qint64 duplicateIds = 0;
    for (size_t i = 0; i < nodes.size(); ++i)
        if (!byId.emplace(nodes[i].id, i).second)
            ++duplicateIds;
    const std::vector<EtOperator> refs = operatorsOf(nodes);
    const qint64 operators = std::count_if(nodes.begin(), nodes.end(), chakragraph::isOperator);

    TraceWriter &w = *ctx.writer;
    QString linkError;
    const auto runLink = linkToRun(w, messages.pid, refs, &linkError);
    if (!runLink)
        return ImportOutcome::failure(-1, linkError);
    const chakragraph::Dependencies deps = chakragraph::dependencies(nodes, byId, warnings);
    const auto [dataStored, ctrlStored] = storeEdges(w, deps, runLink->link.slices);

    QJsonObject meta;
    meta.insert(QStringLiteral("schema"), messages.schema);
    meta.insert(QStringLiteral("pid"), messages.pid);
    chakragraph::insertCensus(meta, nodes, operators);
    meta.insert(QStringLiteral("data_deps"), deps.dataDeps);
    meta.insert(QStringLiteral("ctrl_deps"), deps.ctrlDeps);
    insertLinkMetadata(meta, *runLink);
    meta.insert(QStringLiteral("data_edges"), qint64(deps.data.size()));
    meta.insert(QStringLiteral("data_edges_stored"), dataStored);
    meta.insert(QStringLiteral("ctrl_edges"), qint64(deps.ctrl.size()));
    meta.insert(QStringLiteral("ctrl_edges_stored"), ctrlStored);
    w.setSourceMetadata(meta);

    ImportOutcome outcome;
    outcome.warnings =
        linkWarnings(*runLink, messages.pid, refs.size(), dataStored, deps.data.size());
    outcome.warnings.append(importWarnings(messages, deps, warnings, duplicateIds));
    return outcome;
}

} // namespace gml
