// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourcework.h"

#include "memoryevents.h"
#include "opcostscan.h"

#include "gputime.h"
#include "physical.h"
#include "project.h"
#include "sliceclass.h"
#include "slicestore.h"
#include "trackrecords.h"

#include <QHash>

#include <algorithm>
#include <bitset>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

namespace gml {

namespace {

// Names and categories, and what they say, worked out once per distinct string when it is
// first met and then read by id (ids are small and dense).
class Names
{
public:
    explicit Names(Project &project) : m_project(project) {}

    // Fetches the strings of `rows` not met yet, in one query; with `kernels` (a GPU stream's
    // rows) also what their names say of precision, once per name. Only kernels ask it: the
    // kernel rules tried on each of a CPU thread's op names were 8% of a generated trace's
    // import (1,679 names, none a kernel).
    void fetch(const std::vector<NestRow> &rows, bool kernels)
    {
        m_unnamed.clear();
        unseenStrings(rows, m_seen, m_unnamed);
        if (m_seen.size() > m_facts.size())
            m_facts.resize(m_seen.size());
        QHash<StringId, QString> text;
        if (!m_unnamed.empty())
            m_project.strings(m_unnamed, text);
        for (const StringId id : m_unnamed) {
            const QString t = text.value(id);
            Facts &f = m_facts[size_t(id)];
            f.category = categoryClass(t);
            f.name = nameClass(t);
            f.step = isProfilerStep(t);
            f.annotation = isGpuAnnotationCategory(t);
        }
        if (!kernels)
            return;
        m_unnamed.clear();
        for (const NestRow &row : rows)
            if (row.name > 0 && !m_facts[size_t(row.name)].precisionSet && !text.contains(row.name))
                m_unnamed.push_back(row.name);
        std::sort(m_unnamed.begin(), m_unnamed.end());
        m_unnamed.erase(std::unique(m_unnamed.begin(), m_unnamed.end()), m_unnamed.end());
        if (!m_unnamed.empty())
            m_project.strings(m_unnamed, text);
        for (const NestRow &row : rows) {
            if (row.name <= 0 || m_facts[size_t(row.name)].precisionSet)
                continue;
            Facts &f = m_facts[size_t(row.name)];
            const QString t = text.value(row.name);
            f.precision = classifyKernel(t) != Bound::Compute ? 0 : usesHalfPrecision(t) ? 1 : 2;
            f.precisionSet = true;
        }
    }
    // Of ids fetched (0: no string).
    CategoryClass category(StringId id) const { return facts(id).category; }
    const NameClass &name(StringId id) const { return facts(id).name; }
    bool step(StringId id) const { return facts(id).step; }
    bool annotation(StringId cat) const { return facts(cat).annotation; }
    // Of names fetched with `kernels`: 0 not compute-bound, 1 half, 2 full precision.
    int precision(StringId id) const { return facts(id).precision; }

private:
    struct Facts
    {
        CategoryClass category = CategoryClass::Other;
        NameClass name;
        bool step = false;
        bool annotation = false;
        uint8_t precision = 0;
        bool precisionSet = false; // worked out (fetch with kernels)
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
// without Kineto's cuda_sync markers (not work; see DependencyGraph::readNodes). A CPU
// thread's are read with their args; a GPU stream's names say what a kernel's name says.
enum class TrackSide { Cpu, Gpu };
bool readTrack(slicestore::TrackReader &reader, Names &names, TrackId track, TrackSide side,
               std::vector<NestRow> &rows,
               const std::function<void(const slicestore::Row &, const NestRow &)> &args,
               const std::function<void(const slicestore::Row &)> &instant = {})
{
    if (!readNestRows(reader, track, side == TrackSide::Cpu, 0, rows, args, instant))
        return false;
    names.fetch(rows, side == TrackSide::Gpu);
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

namespace {

using FlopsAt = std::tuple<TimeNs, double, int>; // (start, flops, rank)

// summarizeSource's passes over one source's tracks, and what each leaves for the next.
class SourceSummarizer
{
public:
    SourceSummarizer(Project &project, SourceId source, std::vector<WorkTrack> tracks)
        : m_project(project), m_source(source), m_tracks(std::move(tracks)), m_names(project),
          m_reader(project.db()),
          m_memory(existingString(project, QStringLiteral("[memory]")), MemoryDetail::Peaks)
    {
        qint64 largest = 0; // slices of the largest track: the row buffers are sized once
        for (const WorkTrack &t : m_tracks)
            largest = std::max(largest, t.slices);
        m_rows.reserve(size_t(largest));
        m_parent.reserve(size_t(largest));
        m_out.origin = std::numeric_limits<TimeNs>::max();
        m_out.end = std::numeric_limits<TimeNs>::min();
    }

    // The passes, in order; each false with `error` when a read fails.
    bool readCpuTracks(QString *error);
    void countFlops();
    bool readGpuTracks(QString *error);
    bool readLateWorkEnds(QString *error);
    SourceWork finish();

private:
    void node(const NestRow &row)
    {
        ++m_out.nodes;
        m_out.origin = std::min(m_out.origin, row.start);
        m_out.end = std::max(m_out.end, row.end);
    }
    // The profiler's own span marks the capture window, not work: neither node nor container.
    bool skipped(const NestRow &row)
    {
        return m_names.category(row.cat) == CategoryClass::Trace ||
               m_names.name(row.name).profilerSpan;
    }
    // A CPU track's iterations (the outermost step ranges holding work) and the leaves inside
    // them.
    void findIterations(int rank);
    // The FLOPs of `list` into `total`, and those inside their rank's iterations (all of them
    // without iterations) into `byRank`.
    void addInside(const std::vector<FlopsAt> &list, double &total, std::map<int, double> &byRank);

    Project &m_project;
    const SourceId m_source;
    const std::vector<WorkTrack> m_tracks;
    size_t m_firstGpu = 0; // the tracks are CPU threads first, then GPU streams
    Names m_names;
    slicestore::TrackReader m_reader;
    std::vector<NestRow> m_rows;
    std::vector<int> m_parent;
    SourceWork m_out;

    // CPU threads: the iterations per rank, the runtime calls inside them, the recorded FLOPs.
    std::map<int, std::vector<std::pair<TimeNs, TimeNs>>> m_iterations; // by rank
    // The leaves inside an iteration, by chunk (a slice id is its chunk's and its row in it;
    // a chunk's rows are of one track, so of one rank).
    struct Calls
    {
        int rank = 0;
        std::bitset<slicestore::kChunkRows> rows;
    };
    std::unordered_map<qint64, Calls> m_insideCalls;
    std::vector<FlopsAt> m_flops;
    std::vector<int> m_iterationOf; // per row of a track (kept for the next track's rows)
    std::map<int, std::vector<TimeNs>> m_recordedAt; // recorded FLOPs' starts, per track index
    std::optional<OpCostScan> m_opCosts; // ops costed from their shapes, as the graph costs them
    std::map<int, double> m_flopsInside, m_hardwareInside;
    // The [memory] events of the threads and their processes' steps: each device's peaks.
    MemoryEvents m_memory;

    // GPU streams, by device: the work in three classes, its window.
    struct Device
    {
        TimeNs start = std::numeric_limits<TimeNs>::max();
        TimeNs end = std::numeric_limits<TimeNs>::min();
        bool work = false;
        Intervals compute, communication, copies;
    };
    std::map<std::pair<int, QString>, Device> m_devices;
    // Only GPU work that ends after all of a source rank's iterations can end that rank's last
    // iteration (its end is the later of the two): such work is kept in the GPU pass, and the
    // launches then tell which of it came from inside an iteration.
    std::vector<std::pair<SliceId, TimeNs>> m_late; // (GPU work, its end)
    std::map<int, TimeNs> m_workEnd;
    std::vector<CollectiveEnd> m_collectives; // stream by stream, each in nesting order
};

bool SourceSummarizer::readCpuTracks(QString *error)
{
    m_opCosts.emplace(m_project);
    OpCostScan &opCosts = *m_opCosts;
    size_t t = 0;
    for (; t < m_tracks.size() && !m_tracks[t].gpu; ++t) {
        const int rank = std::max(m_tracks[t].rank, 0);
        const MemoryThread thread{m_tracks[t].id, m_tracks[t].rank, m_source,
                                  m_tracks[t].processPid};
        const bool ok = readTrack(
            m_reader, m_names, m_tracks[t].id, TrackSide::Cpu, m_rows,
            [&](const slicestore::Row &x, const NestRow &row) {
                opCosts.visit(m_reader, x, row.start, row.end, int(t));
                if (const auto f = m_reader.arg(x, "flops"))
                    if (const auto v = physical::recordedFlops(*f)) {
                        m_flops.emplace_back(row.start, *v, rank);
                        m_recordedAt[int(t)].push_back(row.start);
                    }
            },
            [&](const slicestore::Row &x) { m_memory.onRow(m_reader, x, thread, 0); });
        if (!ok) {
            *error = m_reader.errorString();
            return false;
        }
        nestRows(m_rows, m_parent);
        // The memory report's steps: every outermost ProfilerStep range (with work or not).
        for (size_t i = 0; i < m_rows.size(); ++i)
            if (m_parent[i] < 0 && m_names.step(m_rows[i].name))
                m_memory.addStep(thread, m_rows[i].start, m_rows[i].end);
        findIterations(rank);
    }
    m_firstGpu = t;
    for (auto &[rank, list] : m_iterations)
        std::sort(list.begin(), list.end());
    for (auto &[track, starts] : m_recordedAt)
        std::sort(starts.begin(), starts.end());
    return true;
}

void SourceSummarizer::findIterations(int rank)
{
    // The outermost iteration around each row (-1: none), as an index into `candidates`; an
    // iteration holding no work is not one.
    struct Candidate
    {
        TimeNs start, end;
        bool work = false;
    };
    std::vector<Candidate> candidates;
    m_iterationOf.assign(m_rows.size(), -1);
    for (size_t i = 0; i < m_rows.size(); ++i) {
        const NestRow &row = m_rows[i];
        const int inherited = m_parent[i] >= 0 ? m_iterationOf[size_t(m_parent[i])] : -1;
        m_iterationOf[i] = inherited;
        if (skipped(row))
            continue;
        if (!row.leaf) {
            if (inherited < 0 && m_names.step(row.name)) {
                m_iterationOf[i] = int(candidates.size());
                candidates.push_back({row.start, row.end});
            }
            continue;
        }
        node(row);
        if (inherited >= 0) {
            candidates[size_t(inherited)].work = true;
            Calls &c = m_insideCalls[row.id >> slicestore::kChunkRowBits];
            c.rank = rank;
            c.rows.set(size_t(row.id & (slicestore::kChunkRows - 1)));
        }
    }
    for (const Candidate &c : candidates)
        if (c.work)
            m_iterations[rank].emplace_back(c.start, c.end);
}

void SourceSummarizer::addInside(const std::vector<FlopsAt> &list, double &total,
                                 std::map<int, double> &byRank)
{
    for (const auto &[ts, count, rank] : list) {
        total += count;
        const auto it = m_iterations.find(rank);
        if (it == m_iterations.end())
            continue;
        const auto &windows = it->second;
        const auto w = std::upper_bound(windows.begin(), windows.end(),
                                        std::make_pair(ts, std::numeric_limits<TimeNs>::max()));
        if (w != windows.begin() && ts < std::prev(w)->second)
            byRank[rank] += count;
    }
}

void SourceSummarizer::countFlops()
{
    std::vector<FlopsAt> otherFlops; // costed ops' beyond the model's
    m_opCosts->finish(m_recordedAt, [&](CostedOp &&c) {
        const int rank = std::max(m_tracks[size_t(c.thread)].rank, 0);
        if (c.modelFlops)
            m_flops.emplace_back(c.start, c.flops, rank);
        else if (c.known && !c.recorded && c.flops > 0)
            otherFlops.emplace_back(c.start, c.flops, rank);
    });
    m_opCosts.reset(); // its parsed shapes, before the GPU pass reads the streams
    addInside(m_flops, m_out.flops, m_flopsInside);
    m_out.hardwareFlops = m_out.flops;
    m_hardwareInside = m_flopsInside;
    addInside(otherFlops, m_out.hardwareFlops, m_hardwareInside);
}

bool SourceSummarizer::readGpuTracks(QString *error)
{
    TimeNs threshold = std::numeric_limits<TimeNs>::max();
    for (const auto &[rank, list] : m_iterations) {
        TimeNs last = std::numeric_limits<TimeNs>::min();
        for (const auto &[a, b] : list)
            last = std::max(last, b);
        threshold = std::min(threshold, last);
    }
    constexpr int kNone = -1;
    std::vector<int> firstKind; // per row of a track
    for (size_t t = m_firstGpu; t < m_tracks.size(); ++t) {
        if (!readTrack(m_reader, m_names, m_tracks[t].id, TrackSide::Gpu, m_rows, {})) {
            *error = m_reader.errorString();
            return false;
        }
        nestRows(m_rows, m_parent);
        Device &d = m_devices[{m_tracks[t].rank, m_tracks[t].pid}];
        auto add = [&](GpuWork kind, TimeNs s, TimeNs e) {
            (kind == GpuWork::Kernel       ? d.compute
             : kind == GpuWork::Collective ? d.communication
                                           : d.copies)
                .emplace_back(s, e);
        };
        // A GPU slice nested in another (a container) is busy time too, counted as the kind of
        // the first work inside it; annotations are not.
        firstKind.assign(m_rows.size(), kNone);
        for (size_t i = 0; i < m_rows.size(); ++i) {
            const NestRow &row = m_rows[i];
            if (const int op = m_names.name(row.name).collective; op >= 0)
                m_collectives.push_back({op, row.start, row.end});
            if (skipped(row) || !row.leaf)
                continue;
            const GpuWork kind = gpuWork(m_names.category(row.cat), m_names.name(row.name));
            node(row);
            d.work = true;
            d.start = std::min(d.start, row.start);
            d.end = std::max(d.end, row.end);
            add(kind, row.start, row.end);
            if (kind == GpuWork::Kernel)
                if (const int p = m_names.precision(row.name))
                    (p == 1 ? m_out.halfPrecisionNs : m_out.fullPrecisionNs) += row.end - row.start;
            for (int p = m_parent[i]; p >= 0 && firstKind[size_t(p)] == kNone;
                 p = m_parent[size_t(p)])
                firstKind[size_t(p)] = int(kind);
            if (row.end > threshold)
                m_late.emplace_back(row.id, row.end);
        }
        for (size_t i = 0; i < m_rows.size(); ++i) {
            const NestRow &row = m_rows[i];
            if (row.leaf || firstKind[i] == kNone || skipped(row) || m_names.annotation(row.cat))
                continue;
            add(GpuWork(firstKind[i]), row.start, row.end);
            d.start = std::min(d.start, row.start);
            d.end = std::max(d.end, row.end);
        }
    }
    return true;
}

bool SourceSummarizer::readLateWorkEnds(QString *error)
{
    if (m_late.empty() || m_insideCalls.empty())
        return true;
    std::sort(m_late.begin(), m_late.end());
    std::vector<slicestore::Flow> flows;
    if (!slicestore::readFlows(m_project.db(), m_source, flows, error))
        return false;
    for (const auto &f : flows) {
        if (FlowKind(f.kind) != FlowKind::Launch)
            continue;
        const auto work = std::lower_bound(
            m_late.begin(), m_late.end(), std::make_pair(f.to, std::numeric_limits<TimeNs>::min()));
        if (work == m_late.end() || work->first != f.to)
            continue;
        const auto calls = m_insideCalls.find(f.from >> slicestore::kChunkRowBits);
        if (calls == m_insideCalls.end() ||
            !calls->second.rows.test(size_t(f.from & (slicestore::kChunkRows - 1))))
            continue;
        TimeNs &e = m_workEnd.try_emplace(calls->second.rank, kNoEnd).first->second;
        e = std::max(e, work->second);
    }
    return true;
}

SourceWork SourceSummarizer::finish()
{
    for (auto &[key, d] : m_devices) {
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
        m_out.gpus.push_back(g);
    }
    for (auto &[rank, list] : m_iterations) {
        SourceWork::Rank r;
        r.rank = rank;
        r.iterations = std::move(list);
        const auto it = m_workEnd.find(rank);
        r.workEnd = it == m_workEnd.end() ? 0 : it->second;
        r.flops = m_flopsInside.count(rank) ? m_flopsInside.at(rank) : 0.0;
        r.hardwareFlops = m_hardwareInside.count(rank) ? m_hardwareInside.at(rank) : 0.0;
        m_out.ranks.push_back(std::move(r));
    }
    if (m_out.nodes == 0)
        m_out.origin = m_out.end = 0;
    m_out.collectives = encodeCollectives(m_collectives);
    if (m_memory.size() > 0) {
        MemoryReport peaks;
        m_memory.finish(peaks, {});
        for (const DeviceMemory &d : peaks.devices) {
            SourceWork::Memory m;
            m.rank = d.rank;
            m.pid = d.pid;
            m.device = d.device;
            m.events = d.events;
            m.peakAllocated = d.peakAllocated;
            m.peakAt = d.peakAt;
            m.peakReserved = d.peakReserved;
            m.totalsRecorded = d.totalsRecorded;
            m.byAddress = d.byAddress;
            m.unmatchedFrees = d.unmatchedFrees;
            m.unmatchedFreeBytes = d.unmatchedFreeBytes;
            for (const MemoryIteration &it : d.iterations)
                m.iterations.push_back({it.start, it.end, it.atStart, it.peak, it.atEnd});
            m_out.memory.push_back(std::move(m));
        }
    }
    return std::move(m_out);
}

} // namespace

std::optional<SourceWork> summarizeSource(Project &project, SourceId source, QString *error)
{
    QString why;
    std::vector<WorkTrack> tracks = workTracksOfSource(project, source, &why);
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    SourceSummarizer summary(project, source, std::move(tracks));
    bool ok = summary.readCpuTracks(&why);
    if (ok) {
        summary.countFlops();
        ok = summary.readGpuTracks(&why) && summary.readLateWorkEnds(&why);
    }
    if (!ok) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    return summary.finish();
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
