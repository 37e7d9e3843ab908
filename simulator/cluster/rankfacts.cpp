// SPDX-License-Identifier: GPL-3.0-or-later
#include "rankfacts.h"

#include "dependencygraph.h"
#include "project.h"
#include "projecttime.h"
#include "sourcesummary.h"
#include "trackrecords.h"

#include <QCborArray>
#include <QCborMap>
#include <QCborValue>

#include <algorithm>

namespace gml::sim {

QByteArray RankFacts::toCbor() const
{
    QCborArray cs;
    for (const CollectiveArrival &c : collectives)
        cs.append(QCborArray{
            c.rank, c.op, c.operation, c.start, c.end,
            c.prevEnd == std::numeric_limits<TimeNs>::min() ? QCborValue() : QCborValue(c.prevEnd),
            c.prevName, c.hostBefore});
    QCborArray ls;
    for (const RankLoad &l : loads)
        ls.append(QCborArray{l.rank, l.compute, l.communication});
    QCborArray fs;
    for (const KernelFamily &f : families)
        fs.append(QCborArray{f.family, f.count, f.time});
    return QCborMap{{QStringLiteral("collectives"), cs},
                    {QStringLiteral("loads"), ls},
                    {QStringLiteral("families"), fs}}
        .toCborValue()
        .toCbor();
}

std::optional<RankFacts> RankFacts::fromCbor(const QByteArray &data)
{
    QCborParserError err;
    const QCborValue v = QCborValue::fromCbor(data, &err);
    if (err.error != QCborError::NoError || !v.isMap())
        return std::nullopt;
    const QCborMap m = v.toMap();
    RankFacts f;
    for (const QCborValue &cv : m.value(QStringLiteral("collectives")).toArray()) {
        const QCborArray a = cv.toArray();
        if (a.size() != 8)
            return std::nullopt;
        CollectiveArrival c;
        c.rank = int(a[0].toInteger());
        c.op = int(a[1].toInteger());
        c.operation = a[2].toString();
        c.start = a[3].toInteger();
        c.end = a[4].toInteger();
        if (a[5].isInteger())
            c.prevEnd = a[5].toInteger();
        c.prevName = a[6].toString();
        c.hostBefore = a[7].toString();
        f.collectives.push_back(std::move(c));
    }
    for (const QCborValue &lv : m.value(QStringLiteral("loads")).toArray()) {
        const QCborArray a = lv.toArray();
        if (a.size() != 3)
            return std::nullopt;
        f.loads.push_back({int(a[0].toInteger()), a[1].toInteger(), a[2].toInteger(), 0});
    }
    for (const QCborValue &fv : m.value(QStringLiteral("families")).toArray()) {
        const QCborArray a = fv.toArray();
        if (a.size() != 3)
            return std::nullopt;
        f.families.push_back({a[0].toString(), a[1].toInteger(), a[2].toInteger()});
    }
    return f;
}

std::optional<std::map<SourceId, RankFacts>> computeRankFacts(Project &project, RunId run,
                                                              QString *error)
{
    // A run of counters only, or whose traces all failed, has no execution model: no facts.
    if (!runHasSlices(project, run))
        return std::map<SourceId, RankFacts>{};
    auto graph = DependencyGraph::build(project, run, error);
    if (!graph)
        return std::nullopt;
    const DependencyGraph &g = *graph;
    // The offset that put each source on the project clock, taken off again.
    std::map<SourceId, TimeNs> offset;
    for (const auto &[source, sourceOffset] : sourceOffsets(project, run))
        offset[source] = sourceOffset;
    std::map<SourceId, RankFacts> out;
    std::map<SourceId, std::map<QString, KernelFamily>> families;
    const auto &nodes = g.nodes();
    const auto &resources = g.resources();
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Node &n = nodes[i];
        const Resource &r = resources[size_t(n.resource)];
        if (!r.gpu)
            continue;
        const TimeNs off = offset[r.source];
        KernelFamily &f = families[r.source][kernelFamily(g.name(n.name), n.kind)];
        ++f.count;
        f.time += n.end - n.start;
        if (n.kind != NodeKind::Collective)
            continue;
        CollectiveArrival a = collectiveArrival(g, int(i));
        a.start -= off;
        a.end -= off;
        if (a.prevEnd != std::numeric_limits<TimeNs>::min())
            a.prevEnd -= off;
        out[r.source].collectives.push_back(std::move(a));
    }
    for (auto &[source, byName] : families) {
        RankFacts &facts = out[source];
        for (auto &[name, f] : byName) {
            f.family = name;
            facts.families.push_back(f);
        }
        std::stable_sort(facts.collectives.begin(), facts.collectives.end(),
                         [](const CollectiveArrival &x, const CollectiveArrival &y) {
                             return x.start < y.start;
                         });
    }
    // Each rank's compute and communication, as the analysis adds them up, to the source of
    // its GPUs.
    const Analysis whole = analyze(g);
    std::map<int, SourceId> sourceOfRank;
    for (const Resource &r : resources)
        if (r.gpu && !r.nodes.empty())
            sourceOfRank.try_emplace(r.rank, r.source);
    for (const RankLoad &l : whole.ranks)
        if (auto it = sourceOfRank.find(l.rank); it != sourceOfRank.end())
            out[it->second].loads.push_back({l.rank, l.compute, l.communication, 0});
    return out;
}

bool storeRankFacts(Project &project, const QList<RunId> &runs, QString *error)
{
    std::vector<std::pair<SourceId, QByteArray>> rows;
    for (RunId run : runs) {
        const auto facts = computeRankFacts(project, run, error);
        if (!facts)
            return false;
        for (const auto &[source, f] : *facts)
            rows.emplace_back(source,
                              qCompress(f.toCbor())); // names repeat: about a tenth the size
    }
    if (!project.begin(error))
        return false;
    for (const auto &[source, data] : rows)
        if (!storeSourceBlob(project.db(), "rank_facts", source, kRankFactsVersion, data, error)) {
            project.rollback();
            return false;
        }
    return project.commit(error);
}

std::optional<RankFacts> loadRankFacts(const SqliteDb &db, SourceId source)
{
    const auto data = loadSourceBlob(db, "rank_facts", source, kRankFactsVersion);
    // qCompress's header names the size it expands to; a damaged blob naming gigabytes would be
    // allocated whole before zlib said anything (found by fuzz_shardmeta). A rank's facts are
    // a few hundred KB.
    constexpr quint32 kMaxFactsBytes = quint32(256) << 20;
    if (!data || data->size() < 4)
        return std::nullopt;
    const auto *head = reinterpret_cast<const uchar *>(data->constData());
    const quint32 expanded = (quint32(head[0]) << 24) | (quint32(head[1]) << 16) |
                             (quint32(head[2]) << 8) | quint32(head[3]);
    if (expanded > kMaxFactsBytes)
        return std::nullopt;
    return RankFacts::fromCbor(qUncompress(*data));
}

} // namespace gml::sim
