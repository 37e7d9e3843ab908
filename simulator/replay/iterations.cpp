// SPDX-License-Identifier: GPL-3.0-or-later
#include "iterations.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gml::sim {

std::vector<TimeNs> Iterations::times() const
{
    std::vector<TimeNs> out;
    out.reserve(starts.size());
    for (size_t k = 0; k < starts.size(); ++k) {
        const TimeNs next = k + 1 < starts.size() ? starts[k + 1] : workEnd;
        out.push_back(std::max<TimeNs>(0, next - starts[k]));
    }
    return out;
}

TimeNs Iterations::mean() const
{
    if (starts.empty())
        return 0;
    // Rounded as the mean of times() is (runmetrics.h's step_mean_ns).
    const TimeNs first = *std::min_element(starts.begin(), starts.end());
    return TimeNs(
        std::llround(double(std::max<TimeNs>(0, workEnd - first)) / double(starts.size())));
}

TimeNs Iterations::steadyMean(int skip) const
{
    if (skip <= 0 || size_t(skip) >= starts.size())
        return mean();
    std::vector<TimeNs> sorted = starts;
    std::sort(sorted.begin(), sorted.end());
    const TimeNs first = sorted[size_t(skip)];
    return TimeNs(std::llround(double(std::max<TimeNs>(0, workEnd - first)) /
                               double(starts.size() - size_t(skip))));
}

TimeNs Iterations::quantile(double q) const
{
    return gml::quantile(times(), q);
}

namespace {

// `span(c)`: a step's host span; `endOf(i)`: node i's end.
template <typename Span, typename End>
Iterations collect(const DependencyGraph &graph, Span span, End endOf)
{
    Iterations out;
    const auto its = graph.iterations();
    if (its.empty())
        return out;
    const auto &cs = graph.containers();
    TimeNs to = std::numeric_limits<TimeNs>::min();
    // Per resource, the node positions each step holds (steps of one thread never overlap).
    std::vector<std::vector<std::pair<int, int>>> inside(graph.resources().size());
    for (int c : its) {
        const auto [s, e] = span(c);
        out.starts.push_back(s);
        to = std::max(to, e);
        const Container &con = cs[size_t(c)];
        if (con.first >= 0)
            inside[size_t(con.resource)].emplace_back(graph.position(con.first),
                                                      graph.position(con.last));
    }
    for (auto &ranges : inside)
        std::sort(ranges.begin(), ranges.end());
    const auto &nodes = graph.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
        const int l = nodes[i].launcher;
        if (l < 0 || endOf(i) <= to)
            continue;
        const auto &ranges = inside[size_t(nodes[size_t(l)].resource)];
        const int pos = graph.position(l);
        auto it = std::upper_bound(ranges.begin(), ranges.end(),
                                   std::make_pair(pos, std::numeric_limits<int>::max()));
        if (it != ranges.begin() && std::prev(it)->second >= pos)
            to = endOf(i);
    }
    out.workEnd = to;
    return out;
}

} // namespace

Iterations measuredIterations(const DependencyGraph &graph)
{
    const auto &cs = graph.containers();
    const auto &nodes = graph.nodes();
    return collect(
        graph, [&](int c) { return std::make_pair(cs[size_t(c)].start, cs[size_t(c)].end); },
        [&](size_t i) { return nodes[i].end; });
}

Iterations replayedIterations(const DependencyGraph &graph, const Replay &replay)
{
    return collect(
        graph, [&](int c) { return replay.containerSpan(graph, c); },
        [&](size_t i) { return replay.end[i]; });
}

TimeNs meanIteration(const DependencyGraph &graph, const Replay &replay)
{
    const Iterations its = replayedIterations(graph, replay);
    return its.empty() ? replay.makespan() : its.mean();
}

TimeNs steadyIteration(const DependencyGraph &graph, const Replay &replay, int warmup)
{
    const Iterations its = replayedIterations(graph, replay);
    return its.empty() ? replay.makespan() : its.steadyMean(warmup);
}

} // namespace gml::sim
