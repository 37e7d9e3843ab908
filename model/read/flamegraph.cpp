// SPDX-License-Identifier: GPL-3.0-or-later
#include "flamegraph.h"

#include "clusterproject.h"
#include "project.h"
#include "sliceclass.h"
#include "trackrows.h"

#include <QJsonArray>

#include <algorithm>
#include <functional>
#include <unordered_set>

namespace gml {

namespace {

QString key(int parent, const QString &name, bool gpu)
{
    return QString::number(parent) + (gpu ? QLatin1Char('g') : QLatin1Char('c')) + name;
}

TimeNs clipped(TimeNs s, TimeNs e, TimeNs t0, TimeNs t1)
{
    return std::max<TimeNs>(0, std::min(e, t1) - std::max(s, t0));
}

// A track of `kind` with slices, on the request's rank.
bool ofKind(const TrackSummary &t, const FlameRequest &r, TrackKind kind)
{
    return t.kind == kind && t.slices > 0 && (r.rank < 0 || std::max(t.rank, 0) == r.rank);
}

bool inRequest(const TrackSummary &t, const FlameRequest &r, TrackKind kind)
{
    return ofKind(t, r, kind) && (r.tracks.isEmpty() || r.tracks.contains(t.id));
}

// A track's slices over [t0, t1): false with *error set when it cannot be read; *out null
// when it has none.
bool readTrack(const TimelineData &data, TrackId id, TimeNs t0, TimeNs t1,
               std::shared_ptr<const SliceTrack> *out, QString *error)
{
    QString why;
    *out = data.slicesIn(id, t0, t1, &why);
    if (!*out && !why.isEmpty()) {
        *error = why;
        return false;
    }
    return true;
}

// The parent of each slice of a track (index, -1: top level), from the slice covering its start
// one depth up.
std::vector<qint64> parents(const SliceTrack &s)
{
    std::vector<qint64> out(s.size(), -1);
    for (int d = 1; d < s.depthCount(); ++d)
        for (size_t i = s.depthBegin(d); i < s.depthEnd(d); ++i)
            out[i] = s.sliceAt(d - 1, s.start(i));
    return out;
}

// Whether a slice holds another one (one depth down, starting inside it).
bool hasChild(const SliceTrack &s, size_t i)
{
    const int d = s.depth(i);
    if (d + 1 >= s.depthCount())
        return false;
    const size_t j = s.firstIndex(d + 1, s.start(i));
    return j < s.depthEnd(d + 1) && s.start(j) < s.end(i);
}

// What a name becomes as a frame: the step number folded ("ProfilerStep#*", so iterations
// merge), and whether the slice is left out (the profiler's own span: the capture window, not
// work; its children hang where it would).
class FrameNames
{
public:
    explicit FrameNames(const TimelineData &data) : m_data(data) {}
    const std::pair<QString, bool> &operator()(StringId id)
    {
        auto it = m_cache.find(id);
        if (it == m_cache.end()) {
            const QString name = m_data.name(id);
            it =
                m_cache
                    .emplace(id, std::make_pair(
                                     isProfilerStep(name) ? QStringLiteral("ProfilerStep#*") : name,
                                     nameClass(name).profilerSpan))
                    .first;
        }
        return it->second;
    }

private:
    const TimelineData &m_data;
    std::unordered_map<StringId, std::pair<QString, bool>> m_cache;
};

// The frame of each slice of a CPU track: its name under its parent's frame (-1: left out, its
// children hanging where it would). Made on first use, so only the stacks of the slices asked
// for become frames (a range of a track held whole, the launches of some GPU work).
class StackFrames
{
public:
    StackFrames(FlameGraph &g, FrameNames &names, const SliceTrack &s,
                const std::vector<qint64> &parent)
        : m_g(g), m_names(names), m_s(s), m_parent(parent), m_frame(s.size(), kUnknown)
    {
    }
    int of(size_t i)
    {
        if (m_frame[i] != kUnknown)
            return m_frame[i];
        int under = 0;
        for (qint64 q = m_parent[i]; q >= 0; q = m_parent[size_t(q)])
            if (const int f = of(size_t(q)); f >= 0) {
                under = f;
                break;
            }
        const auto &[name, skipped] = m_names(m_s.nameId(i));
        return m_frame[i] = skipped ? -1 : m_g.child(under, name, false);
    }

private:
    static constexpr int kUnknown = -2;
    FlameGraph &m_g;
    FrameNames &m_names;
    const SliceTrack &m_s;
    const std::vector<qint64> &m_parent;
    std::vector<int> m_frame;
};

bool cpuSelf(const TimelineData &data, const RunSummary &run, const FlameRequest &r, FlameGraph &g,
             QString *error)
{
    FrameNames names(data);
    for (const TrackSummary &t : run.tracks) {
        if (!inRequest(t, r, TrackKind::Thread))
            continue;
        std::shared_ptr<const SliceTrack> s;
        if (!readTrack(data, t.id, r.t0, r.t1, &s, error))
            return false;
        if (!s)
            continue;
        const auto parent = parents(*s);
        // Self time in range: the clipped time less the part each child covers of it (children
        // of one depth are disjoint; a child overlapping its parent's end keeps the rest).
        std::vector<TimeNs> self(s->size());
        for (size_t i = 0; i < s->size(); ++i)
            self[i] = clipped(s->start(i), s->end(i), r.t0, r.t1);
        for (size_t i = 0; i < s->size(); ++i)
            if (const qint64 p = parent[i]; p >= 0)
                self[size_t(p)] -= clipped(std::max(s->start(i), s->start(size_t(p))),
                                           std::min(s->end(i), s->end(size_t(p))), r.t0, r.t1);
        StackFrames frames(g, names, *s, parent);
        for (size_t i = 0; i < s->size(); ++i)
            if (inWindow(s->start(i), s->duration(i), r.t0, r.t1))
                if (const int f = frames.of(i); f >= 0)
                    g.add(f, std::max<TimeNs>(0, self[i]),
                          {t.id, s->id(i), s->start(i), s->end(i)});
    }
    return true;
}

bool gpuTime(const TimelineData &data, Project &project, const RunSummary &run,
             const FlameRequest &r, FlameGraph &g, QString *error)
{
    // Who launched what: runtime call -> GPU work, else op -> GPU work (External id).
    std::unordered_map<SliceId, SliceId> launcher;
    {
        std::unordered_map<SliceId, SliceId> byOp;
        std::vector<FlowRow> flows;
        for (const SourceSummary &src : run.sources) {
            flows.clear();
            if (!flowsOfSource(project, src.id, {FlowKind::Launch, FlowKind::CpuOpToGpu}, flows,
                               error))
                return false;
            for (const FlowRow &f : flows)
                (f.kind == FlowKind::Launch ? launcher : byOp).emplace(f.to, f.from);
        }
        for (const auto &[to, from] : byOp)
            launcher.emplace(to, from);
    }
    // The GPU work in range, and the launches it needs.
    struct Work
    {
        TrackId track;
        SliceId id;
        TimeNs start, end;
        StringId name;
    };
    std::vector<Work> work;
    std::unordered_set<SliceId> wanted;
    for (const TrackSummary &t : run.tracks) {
        if (!inRequest(t, r, TrackKind::Stream))
            continue;
        std::shared_ptr<const SliceTrack> s;
        if (!readTrack(data, t.id, r.t0, r.t1, &s, error))
            return false;
        if (!s)
            continue;
        s->forEachVisible(r.t0, r.t1, [&](size_t i) {
            const auto l = launcher.find(s->id(i));
            if (l == launcher.end() && hasChild(*s, i))
                return; // an annotation around the work (gpu_user_annotation), not work itself
            work.push_back({t.id, s->id(i), s->start(i), s->end(i), s->nameId(i)});
            if (l != launcher.end())
                wanted.insert(l->second);
        });
    }
    // The launching calls' stacks: the CPU threads of the run, whole (a launch precedes its
    // work, often by more than the range).
    std::unordered_map<SliceId, int> frameOfCall;
    FrameNames names(data);
    for (const TrackSummary &t : run.tracks) {
        if (wanted.empty() || !ofKind(t, r, TrackKind::Thread))
            continue;
        std::shared_ptr<const SliceTrack> s;
        if (!readTrack(data, t.id, std::numeric_limits<TimeNs>::min(),
                       std::numeric_limits<TimeNs>::max(), &s, error))
            return false;
        if (!s)
            continue;
        bool any = false;
        for (size_t i = 0; i < s->size() && !any; ++i)
            any = wanted.count(s->id(i)) > 0;
        if (!any)
            continue;
        const auto parent = parents(*s);
        StackFrames frames(g, names, *s, parent);
        for (size_t i = 0; i < s->size(); ++i)
            if (wanted.count(s->id(i)))
                if (const int f = frames.of(i); f >= 0)
                    frameOfCall.emplace(s->id(i), f);
    }
    const QString unknown = QStringLiteral("(launch not recorded)");
    for (const Work &w : work) {
        const auto l = launcher.find(w.id);
        const auto f = l == launcher.end() ? frameOfCall.end() : frameOfCall.find(l->second);
        const int under = f != frameOfCall.end() ? f->second : g.child(0, unknown, false);
        g.add(g.child(under, data.name(w.name), true), clipped(w.start, w.end, r.t0, r.t1),
              {w.track, w.id, w.start, w.end});
    }
    return true;
}

} // namespace

FlameGraph::FlameGraph()
{
    FlameFrame root;
    root.name = QStringLiteral("all");
    root.depth = -1;
    m_frames.push_back(root);
}

int FlameGraph::child(int parent, const QString &name, bool gpu)
{
    const QString k = key(parent, name, gpu);
    if (const auto it = m_index.find(k); it != m_index.end())
        return it->second;
    FlameFrame f;
    f.name = name;
    f.gpu = gpu;
    f.parent = parent;
    f.depth = m_frames[size_t(parent)].depth + 1;
    const int id = int(m_frames.size());
    m_frames.push_back(std::move(f));
    m_frames[size_t(parent)].children.push_back(id);
    m_index.emplace(k, id);
    return id;
}

void FlameGraph::add(int frame, TimeNs self, const SliceRef &slice)
{
    FlameFrame &f = m_frames[size_t(frame)];
    f.self += self;
    ++f.count;
    if (f.slices.size() < kMaxSlices)
        f.slices.push_back(slice);
}

void FlameGraph::finish()
{
    for (auto &f : m_frames) {
        f.total = f.self;
        f.baseTotal = f.baseSelf;
    }
    // Children always come after their parent: one pass from the end adds them up.
    for (size_t i = m_frames.size(); i-- > 1;) {
        FlameFrame &f = m_frames[i];
        m_frames[size_t(f.parent)].total += f.total;
        m_frames[size_t(f.parent)].baseTotal += f.baseTotal;
    }
    for (auto &f : m_frames)
        std::stable_sort(f.children.begin(), f.children.end(), [this](int a, int b) {
            const auto &x = m_frames[size_t(a)], &y = m_frames[size_t(b)];
            return std::max(x.total, x.baseTotal) > std::max(y.total, y.baseTotal);
        });
}

QString FlameGraph::path(int frame) const
{
    QStringList parts;
    for (int f = frame; f > 0; f = m_frames[size_t(f)].parent)
        parts.prepend(
            QString(m_frames[size_t(f)].name).replace(QLatin1Char(';'), QLatin1Char(':')));
    return parts.join(QLatin1Char(';'));
}

QByteArray FlameGraph::folded() const
{
    QByteArray out;
    for (size_t i = 1; i < m_frames.size(); ++i) {
        const FlameFrame &f = m_frames[i];
        if (f.self <= 0 && (!m_diff || f.baseSelf <= 0))
            continue;
        out += path(int(i)).toUtf8();
        if (m_diff)
            out += ' ' + QByteArray::number(f.baseSelf);
        out += ' ' + QByteArray::number(f.self) + '\n';
    }
    return out;
}

QJsonObject FlameGraph::toJson() const
{
    std::function<QJsonObject(int)> node = [&](int i) {
        const FlameFrame &f = m_frames[size_t(i)];
        QJsonObject o;
        o.insert(QStringLiteral("name"), f.name);
        o.insert(QStringLiteral("self_ns"), qint64(f.self));
        o.insert(QStringLiteral("total_ns"), qint64(f.total));
        if (m_diff) {
            o.insert(QStringLiteral("base_self_ns"), qint64(f.baseSelf));
            o.insert(QStringLiteral("base_total_ns"), qint64(f.baseTotal));
        }
        o.insert(QStringLiteral("count"), f.count);
        if (f.gpu)
            o.insert(QStringLiteral("gpu"), true);
        QJsonArray children;
        for (int c : f.children)
            children.append(node(c));
        if (!children.isEmpty())
            o.insert(QStringLiteral("children"), children);
        return o;
    };
    return node(0);
}

FlameGraph FlameGraph::diff(const FlameGraph &before, const FlameGraph &after)
{
    FlameGraph g;
    g.m_diff = true;
    // Each graph's frames mapped into the union by path (parents come first in both).
    auto merge = [&g](const FlameGraph &from, bool base) {
        std::vector<int> to(from.m_frames.size(), 0);
        for (size_t i = 1; i < from.m_frames.size(); ++i) {
            const FlameFrame &f = from.m_frames[i];
            // By the name as it stays across processes (no object addresses, no line numbers).
            to[i] = g.child(to[size_t(f.parent)], stableName(f.name), f.gpu);
            FlameFrame &t = g.m_frames[size_t(to[i])];
            if (base) {
                t.baseSelf += f.self;
            } else {
                t.self += f.self;
                t.count += f.count;
                t.slices.insert(t.slices.end(), f.slices.begin(), f.slices.end());
            }
        }
    };
    merge(before, true);
    merge(after, false);
    g.finish();
    return g;
}

bool buildFlameGraph(const TimelineData &data, Project *project, const FlameRequest &request,
                     FlameGraph *out, QString *error)
{
    QString why;
    FlameGraph g;
    if (request.metric == FlameMetric::GpuTime && project && cluster::isClusterProject(*project)) {
        if (error)
            *error =
                QStringLiteral("GPU time under its launches needs the launch flows, which a "
                               "cluster project leaves in "
                               "its shards: open a rank's shard for it (CPU self time works here)");
        return false;
    }
    for (const RunSummary &run : data.runs) {
        if (request.run && run.id != request.run)
            continue;
        const bool ok = request.metric == FlameMetric::CpuSelf
                            ? cpuSelf(data, run, request, g, &why)
                            : project && gpuTime(data, *project, run, request, g, &why);
        if (!ok) {
            if (error)
                *error = why.isEmpty() ? QStringLiteral("GPU time needs the project's launch flows")
                                       : why;
            return false;
        }
    }
    g.finish();
    *out = std::move(g);
    return true;
}

} // namespace gml
