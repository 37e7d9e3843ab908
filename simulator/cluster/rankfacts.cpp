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
#include <cmath>
#include <memory>

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
    QCborMap m{{QStringLiteral("collectives"), cs},
               {QStringLiteral("loads"), ls},
               {QStringLiteral("families"), fs}};
    if (findingsSearched) {
        QCborArray found;
        for (const Finding &f : findings) {
            QCborArray evidence;
            for (const Evidence &e : f.evidence)
                evidence.append(QCborArray{e.what, e.rank, e.start, e.end});
            found.append(QCborMap{{QStringLiteral("rule"), f.rule},
                                  {QStringLiteral("title"), f.title},
                                  {QStringLiteral("detail"), f.detail},
                                  {QStringLiteral("share"), f.share},
                                  {QStringLiteral("no_fix"), f.noFix},
                                  {QStringLiteral("priced"), f.priced},
                                  {QStringLiteral("price_error"), f.priceError},
                                  {QStringLiteral("before"), f.before},
                                  {QStringLiteral("after"), f.after},
                                  {QStringLiteral("notes"), QCborArray::fromStringList(f.notes)},
                                  {QStringLiteral("evidence"), evidence}});
        }
        QCborArray ranks;
        for (int r : shardRanks)
            ranks.append(r);
        m.insert(QStringLiteral("findings"), found);
        m.insert(QStringLiteral("shard_ranks"), ranks);
    }
    detailToCbor(detail, m);
    return m.toCborValue().toCbor();
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
    // Findings: absent in facts written before issue 57.
    if (m.contains(QStringLiteral("findings"))) {
        f.findingsSearched = true;
        for (const QCborValue &fv : m.value(QStringLiteral("findings")).toArray()) {
            const QCborMap o = fv.toMap();
            Finding x;
            x.rule = o.value(QStringLiteral("rule")).toString();
            x.title = o.value(QStringLiteral("title")).toString();
            x.detail = o.value(QStringLiteral("detail")).toString();
            x.share = o.value(QStringLiteral("share")).toDouble();
            x.noFix = o.value(QStringLiteral("no_fix")).toString();
            x.priced = o.value(QStringLiteral("priced")).toBool();
            x.priceError = o.value(QStringLiteral("price_error")).toString();
            x.before = std::max<TimeNs>(0, o.value(QStringLiteral("before")).toInteger());
            x.after = std::max<TimeNs>(0, o.value(QStringLiteral("after")).toInteger());
            for (const QCborValue &n : o.value(QStringLiteral("notes")).toArray())
                x.notes.append(n.toString());
            for (const QCborValue &ev : o.value(QStringLiteral("evidence")).toArray()) {
                const QCborArray a = ev.toArray();
                if (a.size() != 4)
                    return std::nullopt;
                x.evidence.push_back(
                    {a[0].toString(), int(a[1].toInteger()), a[2].toInteger(), a[3].toInteger()});
            }
            if (x.rule.isEmpty() || !std::isfinite(x.share))
                return std::nullopt;
            f.findings.push_back(std::move(x));
        }
        for (const QCborValue &r : m.value(QStringLiteral("shard_ranks")).toArray())
            f.shardRanks.push_back(int(r.toInteger()));
    }
    if (!detailFromCbor(m, &f.detail))
        return std::nullopt;
    return f;
}

std::optional<std::map<SourceId, RankFacts>> computeRankFacts(Project &project, RunId run,
                                                              QString *error)
{
    // A run of counters only, or whose traces all failed, has no execution model: no facts.
    if (!runHasSlices(project, run))
        return std::map<SourceId, RankFacts>{};
    // The run analysed as any run is (its findings priced on its own graph), its graph reused
    // for the facts; a run the analysis refuses still gets its facts.
    std::shared_ptr<const DependencyGraph> graph;
    QString why;
    std::optional<RunReport> report = analyzeRun(project, run, QString(), {}, &why, {}, &graph);
    if (!graph) {
        auto built = DependencyGraph::build(project, run, error);
        if (!built)
            return std::nullopt;
        graph = std::make_shared<const DependencyGraph>(std::move(*built));
    }
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
    const Analysis whole = report && report->analysis ? *report->analysis : analyze(g);
    std::map<int, SourceId> sourceOfRank;
    for (const Resource &r : resources)
        if (r.gpu && !r.nodes.empty())
            sourceOfRank.try_emplace(r.rank, r.source);
    for (const RankLoad &l : whole.ranks)
        if (auto it = sourceOfRank.find(l.rank); it != sourceOfRank.end())
            out[it->second].loads.push_back({l.rank, l.compute, l.communication, 0});
    // Each rank's GPUs and iterations to the source of its GPUs, on that source's own clock;
    // the shard's kernels, launches, FLOPs and step time to its first source (rankdetail.h).
    for (auto &[source, facts] : out)
        facts.detail.carried = true;
    const auto holderOf = [&](int rank) -> std::pair<RankDetail *, TimeNs> {
        const auto it = sourceOfRank.find(rank);
        if (it == sourceOfRank.end() || !out.count(it->second))
            return {nullptr, 0};
        return {&out[it->second].detail, offset[it->second]};
    };
    for (GpuBreakdown b : whole.gpus)
        if (auto [detail, off] = holderOf(b.rank); detail) {
            b.start -= off;
            b.end -= off;
            for (IdleGap &gap : b.longestGaps)
                gap.start -= off, gap.end -= off, gap.work = -1;
            for (QueueSample &q : b.queue)
                q.start -= off, q.end -= off;
            detail->gpus.push_back(std::move(b));
        }
    for (IterationBreakdown it : whole.iterations)
        if (auto [detail, off] = holderOf(it.rank); detail) {
            it.start -= off;
            it.end -= off;
            detail->iterations.push_back(std::move(it));
        }
    if (!out.empty())
        out.begin()->second.detail.shard = ShardDetail{
            whole.kernels, whole.launch, sourceOfRank.empty() ? -1 : sourceOfRank.begin()->first,
            report ? report->summary : RunSummary()};
    // The findings ride with the first source with GPU work; their evidence on its rank's
    // source's own clock.
    if (report && !out.empty()) {
        RankFacts &holder = out.begin()->second;
        holder.findingsSearched = true;
        for (const auto &[rank, source] : sourceOfRank)
            holder.shardRanks.push_back(rank);
        for (Finding f : report->findings) {
            f.fix.clear();
            for (Evidence &e : f.evidence) {
                const auto source = sourceOfRank.find(e.rank);
                const TimeNs off = source != sourceOfRank.end() ? offset[source->second] : 0;
                if (source == sourceOfRank.end() || e.end < e.start || (e.start == 0 && e.end == 0))
                    e.start = e.end = 0;
                else
                    e.start -= off, e.end -= off;
                e.slice = 0;
                e.track = 0;
            }
            holder.findings.push_back(std::move(f));
        }
    }
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
