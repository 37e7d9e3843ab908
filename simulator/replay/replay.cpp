// SPDX-License-Identifier: GPL-3.0-or-later
#include "replayinternal.h"

#include <algorithm>

namespace gml::sim {

using detail::assemble;
using detail::later;
using detail::replayScheduled;

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

namespace detail {

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

} // namespace detail

namespace {

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
