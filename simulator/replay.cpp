// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay.h"

#include <algorithm>

namespace gml::sim {

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

Replay replay(const DependencyGraph &graph, const ReplayInput &input)
{
    const auto &nodes = graph.nodes();
    const size_t n = nodes.size();
    std::vector<TimeNs> t(2 * n);
    std::vector<int> bound(2 * n, -1); // the input point that set each point; -1: the origin
    const TimeNs origin = graph.origin();
    for (const int p : graph.order()) {
        const size_t i = size_t(p / 2);
        if (p % 2 == 0) {
            TimeNs ready = origin;
            int by = -1;
            for (const auto &in : graph.inputs(p))
                if (t[size_t(in.from)] + in.lag > ready) {
                    ready = t[size_t(in.from)] + in.lag;
                    by = in.from;
                }
            t[size_t(p)] = ready + input.slack[i];
            bound[size_t(p)] = by;
        } else {
            TimeNs begin = t[size_t(p) - 1];
            int by = p - 1;
            for (const auto &in : graph.inputs(p))
                if (t[size_t(in.from)] + in.lag > begin) {
                    begin = t[size_t(in.from)] + in.lag;
                    by = in.from;
                }
            t[size_t(p)] = begin + input.work[i];
            bound[size_t(p)] = by;
        }
    }
    Replay r;
    r.origin = origin;
    r.start.resize(n);
    r.end.resize(n);
    int last = -1;
    for (size_t i = 0; i < n; ++i) {
        r.start[i] = t[2 * i];
        r.end[i] = t[2 * i + 1];
        if (last < 0 || r.end[i] > r.end[size_t(last)])
            last = int(i);
    }
    r.finish = last >= 0 ? r.end[size_t(last)] : origin;
    // The critical path, walked back from the last end; each step's time goes to what it is.
    for (int p = last >= 0 ? 2 * last + 1 : -1; p >= 0;) {
        const int by = bound[size_t(p)];
        const TimeNs dt = t[size_t(p)] - (by >= 0 ? t[size_t(by)] : origin);
        const Node &node = nodes[size_t(p / 2)];
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
                const bool fromCpu = by >= 0 && !graph.resources()[size_t(nodes[size_t(by / 2)].resource)].gpu;
                (fromCpu ? r.critical.cpu : r.critical.idle) += dt - slack;
            }
        } else {
            switch (node.kind) {
            case NodeKind::Kernel: r.critical.compute += dt; break;
            case NodeKind::Collective: r.critical.communication += dt; break;
            case NodeKind::Memcpy:
            case NodeKind::Memset: r.critical.memcpy += dt; break;
            case NodeKind::Cpu:
            case NodeKind::Runtime: r.critical.cpu += dt; break;
            }
        }
        p = by;
    }
    return r;
}

std::pair<TimeNs, TimeNs> Replay::containerSpan(const DependencyGraph &graph, int container) const
{
    const Container &c = graph.containers()[size_t(container)];
    const Node &first = graph.nodes()[size_t(c.first)];
    const Node &last = graph.nodes()[size_t(c.last)];
    TimeNs s = start[size_t(c.first)] - (first.start - c.start);
    TimeNs e = end[size_t(c.last)] + (c.end - last.end);
    // The measured lead and tail never reach over the neighbouring nodes of the resource (a
    // step that got shorter does not overlap the next one).
    const auto &order = graph.resources()[size_t(c.resource)].nodes;
    if (const int p = graph.position(c.first); p > 0)
        s = std::max(s, std::min(start[size_t(c.first)], end[size_t(order[size_t(p - 1)])]));
    if (const int p = graph.position(c.last); p + 1 < int(order.size()))
        e = std::min(e, std::max(end[size_t(c.last)], start[size_t(order[size_t(p + 1)])]));
    return {s, e};
}

} // namespace gml::sim
