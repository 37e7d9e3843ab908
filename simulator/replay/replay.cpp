// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay.h"

#include "tracewriter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <tuple>

namespace gml::sim {

namespace {

// `at` plus a duration, saturated at the project's time limit: work that adds up past it, or a
// flow over a link of almost no bandwidth, must never wrap into a negative time. Callers that
// find a time at the limit refuse the result (the strategy simulator) or never get there (the
// what-if checks the total work first).
inline TimeNs later(TimeNs at, TimeNs by)
{
    return by > kMaxAbsTimeNs - at ? kMaxAbsTimeNs : at + by;
}

} // namespace

QJsonObject Breakdown::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("compute_ns"), qint64(compute));
    o.insert(QStringLiteral("communication_ns"), qint64(communication));
    o.insert(QStringLiteral("memcpy_ns"), qint64(memcpy));
    o.insert(QStringLiteral("cpu_ns"), qint64(cpu));
    o.insert(QStringLiteral("idle_ns"), qint64(idle));
    return o;
}

ReplayInput ReplayInput::measured(const DependencyGraph &graph)
{
    ReplayInput in;
    in.work.reserve(graph.nodes().size());
    in.slack.reserve(graph.nodes().size());
    for (const auto &n : graph.nodes()) {
        in.work.push_back(n.work);
        in.slack.push_back(n.slack);
    }
    return in;
}

namespace {

// The replay from the time points and the input point that set each (-1: the origin): node
// times, the finish and the critical path's breakdown, walked back from the last end.
Replay assemble(const DependencyGraph &graph, const ReplayInput &input,
                const std::vector<TimeNs> &t, const std::vector<int> &bound)
{
    const auto &nodes = graph.nodes();
    const size_t n = nodes.size();
    const TimeNs origin = graph.origin();
    Replay r;
    r.origin = origin;
    r.start.resize(n);
    r.end.resize(n);
    // The finish: the latest end of a node that bounds the run (a wait, a background thread,
    // does not: Node::bounds), or of any node when none does. The latest end of all is found
    // first: it nearly always bounds, and the nodes (88 bytes each) are then read only once.
    int last = -1;
    for (size_t i = 0; i < n; ++i) {
        r.start[i] = t[2 * i];
        r.end[i] = t[2 * i + 1];
        if (last < 0 || r.end[i] > r.end[size_t(last)])
            last = int(i);
    }
    if (last >= 0 && !nodes[size_t(last)].bounds) {
        const int lastAny = last;
        last = -1;
        for (size_t i = 0; i < n; ++i)
            if (nodes[i].bounds && (last < 0 || r.end[i] > r.end[size_t(last)]))
                last = int(i);
        if (last < 0)
            last = lastAny;
    }
    r.finish = last >= 0 ? r.end[size_t(last)] : origin;
    // Each step of the critical path goes to what it is; a join is the latest arrival it passes
    // on, with no time of its own.
    for (int p = last >= 0 ? 2 * last + 1 : -1; p >= 0;) {
        const int by = bound[size_t(p)];
        if (graph.isJoin(p)) {
            p = by;
            continue;
        }
        const TimeNs dt = t[size_t(p)] - (by >= 0 ? t[size_t(by)] : origin);
        const Node &node = nodes[size_t(p / 2)];
        if (r.criticalPath.empty() || r.criticalPath.back().node != p / 2)
            r.criticalPath.push_back({p / 2, 0});
        r.criticalPath.back().time += dt;
        const bool gpu = graph.resources()[size_t(node.resource)].gpu;
        if (p % 2 == 0) {
            // Waiting to start: framework time on a CPU thread. On a GPU, the slack is latency
            // (idle); the rest is the lag of the edge it waited for: into a launch call (CPU),
            // or after work on another stream (idle).
            if (!gpu) {
                r.critical.cpu += dt;
            } else {
                const TimeNs slack = std::min(dt, input.slack[size_t(p / 2)]);
                r.critical.idle += slack;
                const bool fromCpu = by >= 0 && !graph.isJoin(by) &&
                                     !graph.resources()[size_t(nodes[size_t(by / 2)].resource)].gpu;
                (fromCpu ? r.critical.cpu : r.critical.idle) += dt - slack;
            }
        } else {
            switch (node.kind) {
            case NodeKind::Kernel:
                r.critical.compute += dt;
                break;
            case NodeKind::Collective:
                r.critical.communication += dt;
                break;
            case NodeKind::Memcpy:
            case NodeKind::Memset:
                r.critical.memcpy += dt;
                break;
            case NodeKind::Cpu:
            case NodeKind::Runtime:
                r.critical.cpu += dt;
                break;
            }
        }
        p = by;
    }
    std::reverse(r.criticalPath.begin(), r.criticalPath.end());
    return r;
}

Replay replayInOrder(const DependencyGraph &graph, const ReplayInput &input)
{
    std::vector<TimeNs> t(graph.points());
    std::vector<int> bound(graph.points(), -1);
    const TimeNs origin = graph.origin();
    for (const int p : graph.order()) {
        if (graph.isJoin(p)) { // the latest of its inputs (ties: the first)
            TimeNs at = origin;
            int by = -1;
            for (const auto &in : graph.inputs(p))
                if (by < 0 || t[size_t(in.from)] + in.lag > at) {
                    at = t[size_t(in.from)] + in.lag;
                    by = in.from;
                }
            t[size_t(p)] = at;
            bound[size_t(p)] = by;
            continue;
        }
        const size_t i = size_t(p / 2);
        const bool isStart = p % 2 == 0;
        // A start waits from the origin on, plus its slack; an end from its own start on, plus
        // its work; both for their inputs.
        TimeNs at = isStart ? origin : t[size_t(p) - 1];
        int by = isStart ? -1 : p - 1;
        if (isStart || input.waitsAtEnd(i))
            for (const auto &in : graph.inputs(p))
                if (t[size_t(in.from)] + in.lag > at) {
                    at = t[size_t(in.from)] + in.lag;
                    by = in.from;
                }
        t[size_t(p)] = later(at, isStart ? input.slack[i] : input.work[i]);
        bound[size_t(p)] = by;
    }
    return assemble(graph, input, t, bound);
}

// The event-driven replay for resources with priorities and for flows (replay.h). Nullopt
// when the order it picks would wait on itself.
std::optional<Replay> replayScheduled(const DependencyGraph &graph, const ReplayInput &input)
{
    const auto &nodes = graph.nodes();
    const auto &resources = graph.resources();
    const size_t n = nodes.size();
    const TimeNs origin = graph.origin();
    // Resources with a priority, and each one's levels: queues of nodes in measured order.
    struct Level
    {
        std::vector<int> nodes;
        size_t head = 0;
    };
    struct Scheduled
    {
        std::vector<Level> levels; // highest priority first
        TimeNs freeAt;
        int lastEnd = -1; // the end point that freed it
        bool busy = false;
        TimeNs dispatchAt = std::numeric_limits<TimeNs>::max(); // the pending dispatch, if any
    };
    std::vector<int> scheduledOf(resources.size(), -1);
    std::vector<Scheduled> scheduled;
    for (size_t r = 0; r < resources.size(); ++r) {
        const auto &order = resources[r].nodes;
        if (input.priority.empty() || std::none_of(order.begin(), order.end(), [&](int i) {
                return input.priority[size_t(i)] != 0;
            }))
            continue;
        Scheduled s;
        s.freeAt = origin;
        std::map<int, std::vector<int>, std::greater<>> levels;
        for (int i : order)
            levels[input.priority[size_t(i)]].push_back(i);
        for (auto &level : levels)
            s.levels.push_back({std::move(level.second)});
        scheduledOf[r] = int(scheduled.size());
        scheduled.push_back(std::move(s));
    }
    // The inputs of point p, less the measured predecessor's end for a scheduled node's start.
    const size_t points = graph.points();
    auto forEachInput = [&](size_t p, auto &&fn) {
        if (graph.isJoin(int(p))) {
            for (const auto &in : graph.inputs(int(p)))
                fn(in);
            return;
        }
        const size_t i = p / 2;
        const int resource = nodes[i].resource;
        const int pos = graph.position(int(i));
        const int chain = p % 2 == 0 && scheduledOf[size_t(resource)] >= 0 && pos > 0
                              ? 2 * resources[size_t(resource)].nodes[size_t(pos - 1)] + 1
                              : -1;
        if (p % 2 && !input.waitsAtEnd(i))
            return;
        bool skipped = false;
        for (const auto &in : graph.inputs(int(p))) {
            if (!skipped && in.from == chain && in.lag == 0) {
                skipped = true;
                continue;
            }
            fn(in);
        }
    };
    // Forward edges, as offsets into one array, and what each point still waits for.
    std::vector<int> pending(points, 0), first(points + 1, 0);
    for (size_t p = 0; p < points; ++p) {
        forEachInput(p, [&](const DependencyGraph::In &in) {
            ++first[size_t(in.from) + 1];
            ++pending[p];
        });
        if (p < 2 * n && p % 2)
            ++pending[p]; // its own start
    }
    for (size_t p = 0; p < points; ++p)
        first[p + 1] += first[p];
    std::vector<DependencyGraph::In> out(static_cast<size_t>(first[points]));
    {
        std::vector<int> fill(first.begin(), first.end() - 1);
        for (size_t p = 0; p < points; ++p)
            forEachInput(p, [&](const DependencyGraph::In &in) {
                out[size_t(fill[size_t(in.from)]++)] = {int(p), in.lag};
            });
    }
    std::vector<TimeNs> t(points, origin);
    std::vector<int> bound(points, -1);
    std::vector<char> ready(n, 0);
    // Events: (time, 0, point) a time point reached; (time, 1, resource) a dispatch; (time, 2,
    // flow) a flow starts moving; (time, 3, flow) a flow's predicted drain; (time, 4, 0) the
    // rates are shared again. Points first at equal times, so a dispatch sees every node that is
    // ready by then, and the rates are shared once after every flow of that time came or went.
    using Event = std::tuple<TimeNs, int, int>;
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
    size_t done = 0;
    enum { kPoint = 0, kDispatch = 1, kActivate = 2, kDrain = 3, kShare = 4 };
    // Flows (flownetwork.h): bytes left, rate, predicted drain, and the node each belongs to.
    const FlowSpec *flows = input.flows.get();
    std::optional<MaxMinSharing> sharing;
    std::vector<double> remaining, rate;
    std::vector<TimeNs> drainAt;
    std::vector<int> nodeOfFlow;
    TimeNs advancedTo = origin;
    TimeNs shareAt = std::numeric_limits<TimeNs>::min();
    std::vector<LinkLoad> loads;
    if (flows) {
        sharing.emplace(*flows);
        remaining.assign(flows->flows.size(), 0);
        rate.assign(flows->flows.size(), 0);
        drainAt.assign(flows->flows.size(), std::numeric_limits<TimeNs>::max());
        nodeOfFlow.assign(flows->flows.size(), -1);
        for (size_t i = 0; i < flows->flowOfNode.size() && i < n; ++i)
            if (flows->flowOfNode[i] >= 0)
                nodeOfFlow[size_t(flows->flowOfNode[i])] = int(i);
        loads.resize(flows->links.size());
    }
    auto flowOf = [&](size_t i) {
        return flows && i < flows->flowOfNode.size() ? flows->flowOfNode[i] : -1;
    };
    auto advance = [&](TimeNs at) { // moves the bytes of the active flows up to `at`
        if (at <= advancedTo)
            return;
        const double dt = double(at - advancedTo);
        for (const int f : sharing->active())
            remaining[size_t(f)] = std::max(0.0, remaining[size_t(f)] - rate[size_t(f)] * dt);
        advancedTo = at;
    };
    auto shareLater = [&](TimeNs at) {
        if (shareAt != at) {
            shareAt = at;
            events.emplace(at, kShare, 0);
        }
    };
    auto dispatchLater = [&](int s) {
        Scheduled &r = scheduled[size_t(s)];
        if (r.busy)
            return;
        TimeNs earliest = std::numeric_limits<TimeNs>::max();
        for (const auto &l : r.levels)
            if (l.head < l.nodes.size() && ready[size_t(l.nodes[l.head])])
                earliest = std::min(earliest, t[2 * size_t(l.nodes[l.head])]);
        if (earliest == std::numeric_limits<TimeNs>::max())
            return;
        const TimeNs at = std::max(r.freeAt, earliest);
        if (at < r.dispatchAt) {
            r.dispatchAt = at;
            events.emplace(at, kDispatch, s);
        }
    };
    auto complete = [&](int p) { // all inputs of p are in: its time is known, or it is ready
        if (graph.isJoin(p)) {
            events.emplace(t[size_t(p)], kPoint, p);
            return;
        }
        const size_t i = size_t(p / 2);
        if (p % 2) {
            if (const int f = flowOf(i); f >= 0) {
                if (flows->flows[size_t(f)].links.empty()) {
                    t[size_t(p)] = later(t[size_t(p)], flows->flows[size_t(f)].latency);
                    events.emplace(t[size_t(p)], kPoint, p);
                } else {
                    events.emplace(t[size_t(p)], kActivate, f);
                }
                return;
            }
            t[size_t(p)] = later(t[size_t(p)], input.work[i]);
            events.emplace(t[size_t(p)], kPoint, p);
            return;
        }
        if (const int s = scheduledOf[size_t(nodes[i].resource)]; s >= 0) {
            ready[i] = 1;
            dispatchLater(s);
            return;
        }
        t[size_t(p)] = later(t[size_t(p)], input.slack[i]);
        events.emplace(t[size_t(p)], kPoint, p);
    };
    for (size_t p = 0; p < 2 * n; p += 2)
        if (!pending[p])
            complete(int(p));
    while (!events.empty()) {
        const auto [at, kind, id] = events.top();
        events.pop();
        if (kind == kActivate) {
            advance(at);
            remaining[size_t(id)] = flows->flows[size_t(id)].bytes;
            rate[size_t(id)] = 0;
            sharing->add(id);
            shareLater(at);
            continue;
        }
        if (kind == kDrain) {
            if (drainAt[size_t(id)] != at)
                continue; // its rate changed since
            advance(at);
            sharing->remove(id);
            drainAt[size_t(id)] = std::numeric_limits<TimeNs>::max();
            rate[size_t(id)] = 0;
            const size_t endPoint = 2 * size_t(nodeOfFlow[size_t(id)]) + 1;
            t[endPoint] = later(at, flows->flows[size_t(id)].latency);
            events.emplace(t[endPoint], kPoint, int(endPoint));
            shareLater(at);
            continue;
        }
        if (kind == kShare) {
            advance(at);
            sharing->recompute();
            for (const int f : sharing->active()) {
                const double r = sharing->rate(f);
                if (r == rate[size_t(f)] &&
                    drainAt[size_t(f)] != std::numeric_limits<TimeNs>::max())
                    continue;
                rate[size_t(f)] = r;
                const double left = remaining[size_t(f)] / r;
                drainAt[size_t(f)] =
                    later(at, left < 9e18 ? TimeNs(std::ceil(left)) : kMaxAbsTimeNs);
                events.emplace(drainAt[size_t(f)], kDrain, f);
            }
            for (const int l : sharing->changedLinks())
                loads[size_t(l)].samples.emplace_back(at, sharing->load(l));
            continue;
        }
        if (kind == kDispatch) {
            Scheduled &r = scheduled[size_t(id)];
            if (r.busy || at != r.dispatchAt)
                continue; // superseded
            r.dispatchAt = std::numeric_limits<TimeNs>::max();
            Level *best = nullptr;
            for (auto &l : r.levels)
                if (l.head < l.nodes.size() && ready[size_t(l.nodes[l.head])] &&
                    t[2 * size_t(l.nodes[l.head])] <= at) {
                    best = &l;
                    break;
                }
            if (!best)
                continue;
            const int i = best->nodes[best->head++];
            const size_t sp = 2 * size_t(i);
            if (r.freeAt >= t[sp] && r.lastEnd >= 0) {
                t[sp] = r.freeAt;
                bound[sp] = r.lastEnd;
            }
            t[sp] = later(t[sp], input.slack[size_t(i)]);
            r.busy = true;
            events.emplace(t[sp], kPoint, int(sp));
            continue;
        }
        ++done;
        const size_t i = size_t(id / 2);
        for (int k = first[size_t(id)]; k < first[size_t(id) + 1]; ++k) {
            const auto &e = out[size_t(k)];
            if (at + e.lag > t[size_t(e.from)]) {
                t[size_t(e.from)] = at + e.lag;
                bound[size_t(e.from)] = id;
            }
            if (!--pending[size_t(e.from)])
                complete(e.from);
        }
        if (graph.isJoin(id))
            continue;
        if (id % 2 == 0) {
            const size_t endPoint = size_t(id) + 1; // its own end begins no earlier (ties: it)
            if (at >= t[endPoint]) {
                t[endPoint] = at;
                bound[endPoint] = id;
            }
            if (!--pending[endPoint])
                complete(int(endPoint));
        } else if (const int s = scheduledOf[size_t(nodes[i].resource)]; s >= 0) {
            Scheduled &r = scheduled[size_t(s)];
            r.busy = false;
            r.freeAt = at;
            r.lastEnd = id;
            dispatchLater(s);
        }
    }
    if (done != points)
        return std::nullopt;
    Replay r = assemble(graph, input, t, bound);
    r.linkLoads = std::move(loads);
    return r;
}

} // namespace

Replay replay(const DependencyGraph &graph, const ReplayInput &input)
{
    const bool prioritised =
        !input.priority.empty() &&
        std::any_of(input.priority.begin(), input.priority.end(), [](int p) { return p != 0; });
    if (prioritised || input.flows) {
        if (auto r = replayScheduled(graph, input))
            return *r;
        // The order the priorities pick waits on itself: the measured order instead.
        Replay r;
        if (input.flows) {
            ReplayInput inOrder = input;
            inOrder.priority.clear();
            if (auto again = replayScheduled(graph, inOrder))
                r = std::move(*again);
        } else {
            r = replayInOrder(graph, input);
        }
        r.rescheduleDeadlocked = true;
        return r;
    }
    return replayInOrder(graph, input);
}

std::pair<TimeNs, TimeNs> Replay::containerSpan(const DependencyGraph &graph, int container) const
{
    const Container &c = graph.containers()[size_t(container)];
    const Node &first = graph.nodes()[size_t(c.first)];
    const Node &last = graph.nodes()[size_t(c.last)];
    // The measured lead (before the first node) and tail (after the last) shrink with the gap
    // they sit in: where the replay brings the neighbouring nodes of the resource closer than
    // measured, by the same ratio. So a step that got shorter never overlaps the next one, and
    // containers nest and follow one another as measured (a parent's lead holds its child's).
    const auto &order = graph.resources()[size_t(c.resource)].nodes;
    const auto &nodes = graph.nodes();
    auto shrunk = [&](TimeNs part, int before, int after) {
        const TimeNs measuredGap = nodes[size_t(after)].start - nodes[size_t(before)].end;
        const TimeNs gap = start[size_t(after)] - end[size_t(before)];
        if (part <= 0 || measuredGap <= 0 || gap >= measuredGap)
            return std::max<TimeNs>(0, part);
        return gap <= 0 ? 0 : TimeNs(double(part) * double(gap) / double(measuredGap));
    };
    TimeNs lead = first.start - c.start, tail = c.end - last.end;
    if (const int p = graph.position(c.first); p > 0)
        lead = shrunk(lead, order[size_t(p - 1)], c.first);
    if (const int p = graph.position(c.last); p + 1 < int(order.size()))
        tail = shrunk(tail, c.last, order[size_t(p + 1)]);
    const TimeNs s = start[size_t(c.first)] - lead;
    const TimeNs e = end[size_t(c.last)] + tail;
    return {s, e};
}

} // namespace gml::sim
