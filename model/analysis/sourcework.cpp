// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourcework.h"

#include "opcostscan.h"

#include "gputime.h"
#include "physical.h"
#include "project.h"
#include "sliceclass.h"
#include "slicestore.h"

#include <QHash>

#include <algorithm>
#include <bitset>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

namespace gml {

namespace {

// Names and categories, and what they say, worked out once per distinct string when it is
// first met and then read by id (ids are small and dense).
class Names
{
public:
    explicit Names(Project &project) : m_project(project) {}

    // Fetches the strings of `rows` not met yet, in one query.
    void fetch(const std::vector<NestRow> &rows)
    {
        m_unnamed.clear();
        unseenStrings(rows, m_seen, m_unnamed);
        if (m_seen.size() > m_facts.size())
            m_facts.resize(m_seen.size());
        if (m_unnamed.empty())
            return;
        QHash<StringId, QString> text;
        m_project.strings(m_unnamed, text);
        for (const StringId id : m_unnamed) {
            const QString t = text.value(id);
            Facts &f = m_facts[size_t(id)];
            f.category = categoryClass(t);
            f.name = nameClass(t);
            f.step = isProfilerStep(t);
            f.annotation = isGpuAnnotationCategory(t);
            f.precision = classifyKernel(t) != Bound::Compute ? 0 : usesHalfPrecision(t) ? 1 : 2;
        }
    }
    // Of ids fetched (0: no string).
    CategoryClass category(StringId id) const { return facts(id).category; }
    const NameClass &name(StringId id) const { return facts(id).name; }
    bool step(StringId id) const { return facts(id).step; }
    bool annotation(StringId cat) const { return facts(cat).annotation; }
    int precision(StringId id) const
    {
        return facts(id).precision;
    } // 0: not compute-bound, 1: half, 2: full

private:
    struct Facts
    {
        CategoryClass category = CategoryClass::Other;
        NameClass name;
        bool step = false;
        bool annotation = false;
        uint8_t precision = 0;
    };
    const Facts &facts(StringId id) const
    {
        static const Facts none = [] {
            Facts f;
            f.name = nameClass(QString());
            return f;
        }();
        return id > 0 && size_t(id) < m_facts.size() ? m_facts[size_t(id)] : none;
    }
    Project &m_project;
    std::vector<Facts> m_facts;
    std::vector<char> m_seen;
    std::vector<StringId> m_unnamed;
};

// A track's rows with a duration in nesting order (readNestRows), their strings fetched,
// without Kineto's cuda_sync markers (not work; see DependencyGraph::readNodes).
bool readTrack(slicestore::TrackReader &reader, Names &names, TrackId track, bool withArgs,
               std::vector<NestRow> &rows,
               const std::function<void(const slicestore::Row &, const NestRow &)> &args)
{
    if (!readNestRows(reader, track, withArgs, 0, rows, args))
        return false;
    names.fetch(rows);
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [&](const NestRow &row) {
                                  return names.category(row.cat) == CategoryClass::Sync;
                              }),
               rows.end());
    return true;
}

constexpr qint64 kNoEnd = std::numeric_limits<qint64>::min();

// The share of each bucket of [from, from + buckets * width) that a union covers, 0..255.
QByteArray shareByBucket(const Intervals &u, TimeNs from, TimeNs width, int buckets)
{
    std::vector<TimeNs> covered(size_t(buckets), 0);
    for (const auto &[a, b] : u) {
        for (TimeNs k = std::max<TimeNs>(0, (a - from) / width); k < buckets; ++k) {
            const TimeNs lo = from + k * width, hi = lo + width;
            if (lo >= b)
                break;
            covered[size_t(k)] += std::min(b, hi) - std::max(a, lo);
        }
    }
    QByteArray out(buckets, '\0');
    for (int k = 0; k < buckets; ++k)
        out[k] = char(quint8(
            std::clamp(std::lround(double(covered[size_t(k)]) * 255.0 / double(width)), 0L, 255L)));
    return out;
}

// Bucket width (a power of two) and start for a window in at most kActivityBuckets buckets.
SourceWork::Activity activityOf(TimeNs start, TimeNs end, const Intervals &busy,
                                const Intervals &communication)
{
    SourceWork::Activity a;
    TimeNs width = 1;
    auto floorTo = [](TimeNs t, TimeNs w) { return t >= 0 ? t / w * w : -((-t + w - 1) / w) * w; };
    while (width < (TimeNs(1) << 62) &&
           (end - floorTo(start, width) + width - 1) / width > kActivityBuckets)
        width *= 2;
    a.width = width;
    a.from = floorTo(start, width);
    const int buckets = int(std::max<TimeNs>(1, (end - a.from + width - 1) / width));
    a.busy = shareByBucket(busy, a.from, width, buckets);
    a.communication = shareByBucket(communication, a.from, width, buckets);
    return a;
}

} // namespace

std::optional<SourceWork> summarizeSource(Project &project, SourceId source, QString *error)
{
    auto fail = [&](const QString &why) -> std::optional<SourceWork> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    const SqliteDb &db = project.db();
    QString readError;
    const std::vector<WorkTrack> tracks = workTracksOfSource(project, source, &readError);
    if (!readError.isEmpty())
        return fail(readError);
    qint64 largest = 0; // slices of the largest track: the row buffers are sized once
    for (const WorkTrack &t : tracks)
        largest = std::max(largest, t.slices);
    SourceWork out;
    out.origin = std::numeric_limits<TimeNs>::max();
    out.end = std::numeric_limits<TimeNs>::min();
    Names names(project);
    slicestore::TrackReader reader(db);
    std::vector<NestRow> rows;
    std::vector<int> parent;
    rows.reserve(size_t(largest));
    parent.reserve(size_t(largest));
    auto node = [&](const NestRow &row) {
        ++out.nodes;
        out.origin = std::min(out.origin, row.start);
        out.end = std::max(out.end, row.end);
    };
    auto skipped = [&](const NestRow &row) {
        // The profiler's own span marks the capture window, not work: neither node nor container.
        return names.category(row.cat) == CategoryClass::Trace || names.name(row.name).profilerSpan;
    };

    // CPU threads: the iterations per rank, the runtime calls inside them, the recorded FLOPs.
    std::map<int, std::vector<std::pair<TimeNs, TimeNs>>> iterations; // by rank
    // The leaves inside an iteration, by chunk (a slice id is its chunk's and its row in it;
    // a chunk's rows are of one track, so of one rank).
    struct Calls
    {
        int rank = 0;
        std::bitset<slicestore::kChunkRows> rows;
    };
    std::unordered_map<qint64, Calls> insideCalls;
    std::vector<std::tuple<TimeNs, double, int>> flops; // (start, flops, rank)
    std::vector<int> iterationOf; // per row of a track (kept for the next track's rows)
    // Ops costed from their shapes (opcostscan.h), per track, as the graph costs them.
    OpCostScan opCosts(project);
    std::map<int, std::vector<TimeNs>> recordedAt; // per track index
    size_t t = 0;
    for (; t < tracks.size() && !tracks[t].gpu; ++t) {
        const int rank = std::max(tracks[t].rank, 0);
        const bool ok = readTrack(reader, names, tracks[t].id, true, rows,
                                  [&](const slicestore::Row &x, const NestRow &row) {
                                      opCosts.visit(reader, x, row.start, row.end, int(t));
                                      if (const auto f = reader.arg(x, "flops"))
                                          if (const auto v = physical::recordedFlops(*f)) {
                                              flops.emplace_back(row.start, *v, rank);
                                              recordedAt[int(t)].push_back(row.start);
                                          }
                                  });
        if (!ok)
            return fail(reader.errorString());
        nestRows(rows, parent);
        // The outermost iteration around each row (-1: none), as an index into `candidates`;
        // an iteration holding no work is not one.
        struct Candidate
        {
            TimeNs start, end;
            bool work = false;
        };
        std::vector<Candidate> candidates;
        iterationOf.assign(rows.size(), -1);
        for (size_t i = 0; i < rows.size(); ++i) {
            const NestRow &row = rows[i];
            const int inherited = parent[i] >= 0 ? iterationOf[size_t(parent[i])] : -1;
            iterationOf[i] = inherited;
            if (skipped(row))
                continue;
            if (!row.leaf) {
                if (inherited < 0 && names.step(row.name)) {
                    iterationOf[i] = int(candidates.size());
                    candidates.push_back({row.start, row.end});
                }
                continue;
            }
            node(row);
            if (inherited >= 0) {
                candidates[size_t(inherited)].work = true;
                Calls &c = insideCalls[row.id >> slicestore::kChunkRowBits];
                c.rank = rank;
                c.rows.set(size_t(row.id & (slicestore::kChunkRows - 1)));
            }
        }
        for (const Candidate &c : candidates)
            if (c.work)
                iterations[rank].emplace_back(c.start, c.end);
    }
    for (auto &[rank, list] : iterations)
        std::sort(list.begin(), list.end());
    for (auto &[track, starts] : recordedAt)
        std::sort(starts.begin(), starts.end());
    std::vector<std::tuple<TimeNs, double, int>> otherFlops; // costed ops' beyond the model's
    for (const CostedOp &c : opCosts.finish(recordedAt)) {
        const int rank = std::max(tracks[size_t(c.thread)].rank, 0);
        if (c.modelFlops)
            flops.emplace_back(c.start, c.flops, rank);
        else if (c.known && !c.recorded && c.flops > 0)
            otherFlops.emplace_back(c.start, c.flops, rank);
    }
    // FLOPs inside their rank's iterations (all of them without iterations).
    std::map<int, double> flopsInside, hardwareInside;
    auto inside = [&](const std::vector<std::tuple<TimeNs, double, int>> &list, double &total,
                      std::map<int, double> &byRank) {
        for (const auto &[ts, count, rank] : list) {
            total += count;
            const auto it = iterations.find(rank);
            if (it == iterations.end())
                continue;
            const auto &windows = it->second;
            const auto w = std::upper_bound(windows.begin(), windows.end(),
                                            std::make_pair(ts, std::numeric_limits<TimeNs>::max()));
            if (w != windows.begin() && ts < std::prev(w)->second)
                byRank[rank] += count;
        }
    };
    inside(flops, out.flops, flopsInside);
    out.hardwareFlops = out.flops;
    hardwareInside = flopsInside;
    inside(otherFlops, out.hardwareFlops, hardwareInside);
    // Only GPU work that ends after all of a source rank's iterations can end that rank's last
    // iteration (its end is the later of the two): such work is kept in the GPU pass, and the
    // launches then tell which of it came from inside an iteration.
    TimeNs threshold = std::numeric_limits<TimeNs>::max();
    for (const auto &[rank, list] : iterations) {
        TimeNs last = std::numeric_limits<TimeNs>::min();
        for (const auto &[a, b] : list)
            last = std::max(last, b);
        threshold = std::min(threshold, last);
    }
    std::vector<std::pair<SliceId, TimeNs>> late; // (GPU work, its end)
    std::map<int, TimeNs> workEnd;

    // GPU streams, by device: the work in three classes, its window.
    struct Device
    {
        TimeNs start = std::numeric_limits<TimeNs>::max();
        TimeNs end = std::numeric_limits<TimeNs>::min();
        bool work = false;
        Intervals compute, communication, copies;
    };
    std::map<std::pair<int, QString>, Device> devices;
    constexpr int kNone = -1;
    std::vector<int> firstKind; // per row of a track
    for (; t < tracks.size(); ++t) {
        if (!readTrack(reader, names, tracks[t].id, false, rows, {}))
            return fail(reader.errorString());
        nestRows(rows, parent);
        Device &d = devices[{tracks[t].rank, tracks[t].pid}];
        auto add = [&](GpuWork kind, TimeNs s, TimeNs e) {
            (kind == GpuWork::Kernel       ? d.compute
             : kind == GpuWork::Collective ? d.communication
                                           : d.copies)
                .emplace_back(s, e);
        };
        // A GPU slice nested in another (a container) is busy time too, counted as the kind of
        // the first work inside it; annotations are not.
        firstKind.assign(rows.size(), kNone);
        for (size_t i = 0; i < rows.size(); ++i) {
            const NestRow &row = rows[i];
            if (skipped(row) || !row.leaf)
                continue;
            const GpuWork kind = gpuWork(names.category(row.cat), names.name(row.name));
            node(row);
            d.work = true;
            d.start = std::min(d.start, row.start);
            d.end = std::max(d.end, row.end);
            add(kind, row.start, row.end);
            if (kind == GpuWork::Kernel)
                if (const int p = names.precision(row.name))
                    (p == 1 ? out.halfPrecisionNs : out.fullPrecisionNs) += row.end - row.start;
            for (int p = parent[i]; p >= 0 && firstKind[size_t(p)] == kNone; p = parent[size_t(p)])
                firstKind[size_t(p)] = int(kind);
            if (row.end > threshold)
                late.emplace_back(row.id, row.end);
        }
        for (size_t i = 0; i < rows.size(); ++i) {
            const NestRow &row = rows[i];
            if (row.leaf || firstKind[i] == kNone || skipped(row) || names.annotation(row.cat))
                continue;
            add(GpuWork(firstKind[i]), row.start, row.end);
            d.start = std::min(d.start, row.start);
            d.end = std::max(d.end, row.end);
        }
    }
    if (!late.empty() && !insideCalls.empty()) {
        std::sort(late.begin(), late.end());
        std::vector<slicestore::Flow> flows;
        QString why;
        if (!slicestore::readFlows(db, source, flows, &why))
            return fail(why);
        for (const auto &f : flows) {
            if (FlowKind(f.kind) != FlowKind::Launch)
                continue;
            const auto work = std::lower_bound(
                late.begin(), late.end(), std::make_pair(f.to, std::numeric_limits<TimeNs>::min()));
            if (work == late.end() || work->first != f.to)
                continue;
            const auto calls = insideCalls.find(f.from >> slicestore::kChunkRowBits);
            if (calls == insideCalls.end() ||
                !calls->second.rows.test(size_t(f.from & (slicestore::kChunkRows - 1))))
                continue;
            TimeNs &e = workEnd.try_emplace(calls->second.rank, kNoEnd).first->second;
            e = std::max(e, work->second);
        }
    }
    for (auto &[key, d] : devices) {
        if (!d.work)
            continue;
        const Intervals communication = unite(d.communication);
        const GpuPartition part = partitionGpuTime(d.end - d.start, std::move(d.compute),
                                                   std::move(d.communication), std::move(d.copies));
        SourceWork::Gpu g;
        g.rank = key.first;
        g.device = key.second;
        g.start = d.start;
        g.end = d.end;
        g.compute = part.time.compute;
        g.communication = part.time.communication;
        g.copies = part.time.copies;
        g.idle = part.time.idle;
        g.communicationTotal = part.communicationTotal;
        g.activity = activityOf(d.start, d.end, part.busy, communication);
        out.gpus.push_back(g);
    }
    for (auto &[rank, list] : iterations) {
        SourceWork::Rank r;
        r.rank = rank;
        r.iterations = std::move(list);
        const auto it = workEnd.find(rank);
        r.workEnd = it == workEnd.end() ? 0 : it->second;
        r.flops = flopsInside.count(rank) ? flopsInside.at(rank) : 0.0;
        r.hardwareFlops = hardwareInside.count(rank) ? hardwareInside.at(rank) : 0.0;
        out.ranks.push_back(std::move(r));
    }
    if (out.nodes == 0)
        out.origin = out.end = 0;
    return out;
}

std::optional<std::vector<RunSourceWork>> runSourceWork(Project &project, RunId run, QString *error)
{
    QString readError;
    const auto sources = sourcesWithWork(project, run, &readError);
    if (!readError.isEmpty()) {
        if (error)
            *error = readError;
        return std::nullopt;
    }
    std::vector<RunSourceWork> out;
    for (const auto &[source, offset] : sources) {
        auto summary = loadSourceSummary(project.db(), source);
        if (!summary) {
            summary = summarizeSource(project, source, error);
            if (!summary)
                return std::nullopt;
            // Kept for next time where the project can be written; a busy or read-only one
            // only costs the summary again.
            if (!project.isReadOnly()) {
                QString ignored;
                (void)storeSourceSummary(project.db(), source, *summary, &ignored);
            }
        }
        out.push_back({source, std::move(*summary), offset});
    }
    return out;
}

bool summarizeSourceInto(Project &project, SourceId source, QString *error)
{
    const auto summary = summarizeSource(project, source, error);
    return summary && storeSourceSummary(project.db(), source, *summary, error);
}

bool finishSource(TraceWriter &writer, const QList<ImportWarning> &warnings, QString *error)
{
    if (!writer.finish(warnings, error))
        return false;
    if (writer.sliceCount() == 0)
        return true;
    QString why;
    if (!summarizeSourceInto(writer.project(), writer.sourceId(), &why)) {
        if (error)
            *error = QStringLiteral("summarising the source: ") + why;
        return false;
    }
    return true;
}

} // namespace gml
