// SPDX-License-Identifier: GPL-3.0-or-later
// The event-driven replay (replay.h): resources with priorities pick their next node from
// queues, flows share their links max-min fairly. One ScheduledReplay per call: its state is
// the time points, what each still waits for, the event queue, the scheduled resources and
// the active flows; each kind of event has a handler of its own.
#include "replayinternal.h"

#include "tracewriter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <tuple>

namespace gml::sim::detail {

namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

class ScheduledReplay
{
public:
    ScheduledReplay(const DependencyGraph &graph, const ReplayInput &input);
    std::optional<Replay> run();

private:
    // A resource with a priority: its levels are queues of nodes in measured order.
    struct Level
    {
        std::vector<int> nodes;
        size_t head = 0;
    };
    struct Scheduled
    {
        std::vector<Level> levels; // highest priority first
        TimeNs freeAt = 0;
        int lastEnd = -1; // the end point that freed it
        bool busy = false;
        TimeNs dispatchAt = kNever; // the pending dispatch, if any
    };
    // Events: (time, kPoint, point) a time point reached; (time, kDispatch, resource) a
    // dispatch; (time, kActivate, flow) a flow starts moving; (time, kDrain, flow) a flow's
    // predicted drain; (time, kShare, 0) the rates are shared again. Points first at equal
    // times, so a dispatch sees every node that is ready by then, and the rates are shared once
    // after every flow of that time came or went.
    enum { kPoint = 0, kDispatch = 1, kActivate = 2, kDrain = 3, kShare = 4 };
    using Event = std::tuple<TimeNs, int, int>;

    void scheduleResources();
    void linkPoints();
    void setUpFlows();
    template <typename Fn> void forEachInput(size_t p, Fn &&fn) const;
    int flowOf(size_t node) const;
    void advance(TimeNs at);
    void shareLater(TimeNs at);
    void dispatchLater(int s);
    void complete(int p);
    void onActivate(TimeNs at, int flow);
    void onDrain(TimeNs at, int flow);
    void onShare(TimeNs at);
    void onDispatch(TimeNs at, int s);
    void onPoint(TimeNs at, int p);

    const DependencyGraph &graph_;
    const ReplayInput &input_;
    const std::vector<Node> &nodes_;
    const std::vector<Resource> &resources_;
    const size_t n_;
    const size_t points_;
    std::vector<int> scheduledOf_; // per resource: its index in scheduled_, or -1
    std::vector<Scheduled> scheduled_;
    // Forward edges, as offsets into one array, and what each point still waits for.
    std::vector<int> pending_, first_;
    std::vector<DependencyGraph::In> out_;
    std::vector<TimeNs> t_;
    std::vector<int> bound_;
    std::vector<char> ready_; // per node: its start's inputs are in (scheduled resources)
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
    size_t done_ = 0;
    // Flows (flownetwork.h): bytes left, rate, predicted drain, and the node each belongs to.
    const FlowSpec *flows_;
    std::optional<MaxMinSharing> sharing_;
    std::vector<double> remaining_, rate_;
    std::vector<TimeNs> drainAt_;
    std::vector<int> nodeOfFlow_;
    TimeNs advancedTo_;
    TimeNs shareAt_ = std::numeric_limits<TimeNs>::min();
    std::vector<LinkLoad> loads_;
};

ScheduledReplay::ScheduledReplay(const DependencyGraph &graph, const ReplayInput &input)
    : graph_(graph), input_(input), nodes_(graph.nodes()), resources_(graph.resources()),
      n_(nodes_.size()), points_(graph.points()), t_(points_, graph.origin()), bound_(points_, -1),
      ready_(n_, 0), flows_(input.flows.get()), advancedTo_(graph.origin())
{
    scheduleResources();
    linkPoints();
    setUpFlows();
}

void ScheduledReplay::scheduleResources()
{
    scheduledOf_.assign(resources_.size(), -1);
    for (size_t r = 0; r < resources_.size(); ++r) {
        const auto &order = resources_[r].nodes;
        if (input_.priority.empty() || std::none_of(order.begin(), order.end(), [&](int i) {
                return input_.priority[size_t(i)] != 0;
            }))
            continue;
        Scheduled s;
        s.freeAt = graph_.origin();
        std::map<int, std::vector<int>, std::greater<>> levels;
        for (int i : order)
            levels[input_.priority[size_t(i)]].push_back(i);
        for (auto &level : levels)
            s.levels.push_back({std::move(level.second)});
        scheduledOf_[r] = int(scheduled_.size());
        scheduled_.push_back(std::move(s));
    }
}

// The inputs of point p, less the measured predecessor's end for a scheduled node's start.
template <typename Fn> void ScheduledReplay::forEachInput(size_t p, Fn &&fn) const
{
    if (graph_.isJoin(int(p))) {
        for (const auto &in : graph_.inputs(int(p)))
            fn(in);
        return;
    }
    const size_t i = p / 2;
    const int resource = nodes_[i].resource;
    const int pos = graph_.position(int(i));
    const int chain = p % 2 == 0 && scheduledOf_[size_t(resource)] >= 0 && pos > 0
                          ? 2 * resources_[size_t(resource)].nodes[size_t(pos - 1)] + 1
                          : -1;
    if (p % 2 && !input_.waitsAtEnd(i))
        return;
    bool skipped = false;
    for (const auto &in : graph_.inputs(int(p))) {
        if (!skipped && in.from == chain && in.lag == 0) {
            skipped = true;
            continue;
        }
        fn(in);
    }
}

void ScheduledReplay::linkPoints()
{
    pending_.assign(points_, 0);
    first_.assign(points_ + 1, 0);
    for (size_t p = 0; p < points_; ++p) {
        forEachInput(p, [&](const DependencyGraph::In &in) {
            ++first_[size_t(in.from) + 1];
            ++pending_[p];
        });
        if (p < 2 * n_ && p % 2)
            ++pending_[p]; // its own start
    }
    for (size_t p = 0; p < points_; ++p)
        first_[p + 1] += first_[p];
    out_.resize(static_cast<size_t>(first_[points_]));
    std::vector<int> fill(first_.begin(), first_.end() - 1);
    for (size_t p = 0; p < points_; ++p)
        forEachInput(p, [&](const DependencyGraph::In &in) {
            out_[size_t(fill[size_t(in.from)]++)] = {int(p), in.lag};
        });
}

void ScheduledReplay::setUpFlows()
{
    if (!flows_)
        return;
    sharing_.emplace(*flows_);
    remaining_.assign(flows_->flows.size(), 0);
    rate_.assign(flows_->flows.size(), 0);
    drainAt_.assign(flows_->flows.size(), kNever);
    nodeOfFlow_.assign(flows_->flows.size(), -1);
    for (size_t i = 0; i < flows_->flowOfNode.size() && i < n_; ++i)
        if (flows_->flowOfNode[i] >= 0)
            nodeOfFlow_[size_t(flows_->flowOfNode[i])] = int(i);
    loads_.resize(flows_->links.size());
}

int ScheduledReplay::flowOf(size_t node) const
{
    return flows_ && node < flows_->flowOfNode.size() ? flows_->flowOfNode[node] : -1;
}

// Moves the bytes of the active flows up to `at`.
void ScheduledReplay::advance(TimeNs at)
{
    if (at <= advancedTo_)
        return;
    const double dt = double(at - advancedTo_);
    for (const int f : sharing_->active())
        remaining_[size_t(f)] = std::max(0.0, remaining_[size_t(f)] - rate_[size_t(f)] * dt);
    advancedTo_ = at;
}

void ScheduledReplay::shareLater(TimeNs at)
{
    if (shareAt_ != at) {
        shareAt_ = at;
        events_.emplace(at, kShare, 0);
    }
}

void ScheduledReplay::dispatchLater(int s)
{
    Scheduled &r = scheduled_[size_t(s)];
    if (r.busy)
        return;
    TimeNs earliest = kNever;
    for (const auto &l : r.levels)
        if (l.head < l.nodes.size() && ready_[size_t(l.nodes[l.head])])
            earliest = std::min(earliest, t_[2 * size_t(l.nodes[l.head])]);
    if (earliest == kNever)
        return;
    const TimeNs at = std::max(r.freeAt, earliest);
    if (at < r.dispatchAt) {
        r.dispatchAt = at;
        events_.emplace(at, kDispatch, s);
    }
}

// All inputs of p are in: its time is known, or it is ready.
void ScheduledReplay::complete(int p)
{
    if (graph_.isJoin(p)) {
        events_.emplace(t_[size_t(p)], kPoint, p);
        return;
    }
    const size_t i = size_t(p / 2);
    if (p % 2) {
        if (const int f = flowOf(i); f >= 0) {
            if (flows_->flows[size_t(f)].links.empty()) {
                t_[size_t(p)] = later(t_[size_t(p)], flows_->flows[size_t(f)].latency);
                events_.emplace(t_[size_t(p)], kPoint, p);
            } else {
                events_.emplace(t_[size_t(p)], kActivate, f);
            }
            return;
        }
        t_[size_t(p)] = later(t_[size_t(p)], input_.work[i]);
        events_.emplace(t_[size_t(p)], kPoint, p);
        return;
    }
    if (const int s = scheduledOf_[size_t(nodes_[i].resource)]; s >= 0) {
        ready_[i] = 1;
        dispatchLater(s);
        return;
    }
    t_[size_t(p)] = later(t_[size_t(p)], input_.slack[i]);
    events_.emplace(t_[size_t(p)], kPoint, p);
}

void ScheduledReplay::onActivate(TimeNs at, int flow)
{
    advance(at);
    remaining_[size_t(flow)] = flows_->flows[size_t(flow)].bytes;
    rate_[size_t(flow)] = 0;
    sharing_->add(flow);
    shareLater(at);
}

void ScheduledReplay::onDrain(TimeNs at, int flow)
{
    if (drainAt_[size_t(flow)] != at)
        return; // its rate changed since
    advance(at);
    sharing_->remove(flow);
    drainAt_[size_t(flow)] = kNever;
    rate_[size_t(flow)] = 0;
    const size_t endPoint = 2 * size_t(nodeOfFlow_[size_t(flow)]) + 1;
    t_[endPoint] = later(at, flows_->flows[size_t(flow)].latency);
    events_.emplace(t_[endPoint], kPoint, int(endPoint));
    shareLater(at);
}

void ScheduledReplay::onShare(TimeNs at)
{
    advance(at);
    sharing_->recompute();
    for (const int f : sharing_->active()) {
        const double r = sharing_->rate(f);
        if (r == rate_[size_t(f)] && drainAt_[size_t(f)] != kNever)
            continue;
        rate_[size_t(f)] = r;
        const double left = remaining_[size_t(f)] / r;
        drainAt_[size_t(f)] = later(at, left < 9e18 ? TimeNs(std::ceil(left)) : kMaxAbsTimeNs);
        events_.emplace(drainAt_[size_t(f)], kDrain, f);
    }
    for (const int l : sharing_->changedLinks())
        loads_[size_t(l)].samples.emplace_back(at, sharing_->load(l));
}

void ScheduledReplay::onDispatch(TimeNs at, int s)
{
    Scheduled &r = scheduled_[size_t(s)];
    if (r.busy || at != r.dispatchAt)
        return; // superseded
    r.dispatchAt = kNever;
    Level *best = nullptr;
    for (auto &l : r.levels)
        if (l.head < l.nodes.size() && ready_[size_t(l.nodes[l.head])] &&
            t_[2 * size_t(l.nodes[l.head])] <= at) {
            best = &l;
            break;
        }
    if (!best)
        return;
    const int i = best->nodes[best->head++];
    const size_t sp = 2 * size_t(i);
    if (r.freeAt >= t_[sp] && r.lastEnd >= 0) {
        t_[sp] = r.freeAt;
        bound_[sp] = r.lastEnd;
    }
    t_[sp] = later(t_[sp], input_.slack[size_t(i)]);
    r.busy = true;
    events_.emplace(t_[sp], kPoint, int(sp));
}

void ScheduledReplay::onPoint(TimeNs at, int id)
{
    ++done_;
    for (int k = first_[size_t(id)]; k < first_[size_t(id) + 1]; ++k) {
        const auto &e = out_[size_t(k)];
        if (at + e.lag > t_[size_t(e.from)]) {
            t_[size_t(e.from)] = at + e.lag;
            bound_[size_t(e.from)] = id;
        }
        if (!--pending_[size_t(e.from)])
            complete(e.from);
    }
    if (graph_.isJoin(id))
        return;
    if (id % 2 == 0) {
        const size_t endPoint = size_t(id) + 1; // its own end begins no earlier (ties: it)
        if (at >= t_[endPoint]) {
            t_[endPoint] = at;
            bound_[endPoint] = id;
        }
        if (!--pending_[endPoint])
            complete(int(endPoint));
    } else if (const int s = scheduledOf_[size_t(nodes_[size_t(id / 2)].resource)]; s >= 0) {
        Scheduled &r = scheduled_[size_t(s)];
        r.busy = false;
        r.freeAt = at;
        r.lastEnd = id;
        dispatchLater(s);
    }
}

std::optional<Replay> ScheduledReplay::run()
{
    for (size_t p = 0; p < 2 * n_; p += 2)
        if (!pending_[p])
            complete(int(p));
    while (!events_.empty()) {
        const auto [at, kind, id] = events_.top();
        events_.pop();
        switch (kind) {
        case kActivate:
            onActivate(at, id);
            break;
        case kDrain:
            onDrain(at, id);
            break;
        case kShare:
            onShare(at);
            break;
        case kDispatch:
            onDispatch(at, id);
            break;
        default:
            onPoint(at, id);
        }
    }
    if (done_ != points_)
        return std::nullopt;
    Replay r = assemble(graph_, input_, t_, bound_);
    r.linkLoads = std::move(loads_);
    return r;
}

} // namespace

std::optional<Replay> replayScheduled(const DependencyGraph &graph, const ReplayInput &input)
{
    return ScheduledReplay(graph, input).run();
}

} // namespace gml::sim::detail
