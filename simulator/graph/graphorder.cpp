// SPDX-License-Identifier: GPL-3.0-or-later
// The dependency graph's inferred waits, evaluation order, measured slack and work, and the
// structural edits what-if transforms make (dependencygraph.cpp builds it from a project).
#include "dependencygraph.h"

#include <QRegularExpression>

#include <algorithm>
#include <climits>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace gml::sim {

namespace {

// The node ends of a group of sibling resources (a process's threads, a device's streams) in
// one sorted list, to find the latest end before a moment on any sibling but the asking one
// in O(log n): a search per sibling cost O(siblings) per node, which is quadratic for a
// capture of 200,000 streams of one kernel each.
class SiblingEnds
{
public:
    SiblingEnds(const std::vector<int> &siblings, const std::vector<Resource> &resources,
                const std::vector<Node> &nodes)
    {
        for (int r : siblings)
            for (size_t k = 0; k < resources[size_t(r)].nodes.size(); ++k)
                m_entries.push_back({nodes[size_t(resources[size_t(r)].nodes[k])].end, r, int(k),
                                     resources[size_t(r)].nodes[k]});
        // Of equal ends, the first sibling and there its last node win (walked from the back).
        std::sort(m_entries.begin(), m_entries.end(), [](const Entry &a, const Entry &b) {
            return a.end != b.end             ? a.end < b.end
                   : a.resource != b.resource ? a.resource > b.resource
                                              : a.position < b.position;
        });
        m_otherBefore.resize(m_entries.size());
        for (size_t i = 0; i < m_entries.size(); ++i)
            m_otherBefore[i] = i == 0 ? -1
                               : m_entries[i - 1].resource != m_entries[i].resource
                                   ? int(i) - 1
                                   : m_otherBefore[i - 1];
    }
    // The node, not on `self`, whose end is the latest at or before `at`, later than `after`
    // and at most `window` before `at`; -1 if none.
    int latestEndBefore(int self, TimeNs at, TimeNs after, TimeNs window) const
    {
        auto it = std::upper_bound(m_entries.begin(), m_entries.end(), at,
                                   [](TimeNs t, const Entry &e) { return t < e.end; });
        int i = int(it - m_entries.begin()) - 1;
        if (i >= 0 && m_entries[size_t(i)].resource == self)
            i = m_otherBefore[size_t(i)];
        if (i < 0)
            return -1;
        const TimeNs end = m_entries[size_t(i)].end;
        return end > after && at - end <= window ? m_entries[size_t(i)].node : -1;
    }

private:
    struct Entry
    {
        TimeNs end;
        int resource;
        int position;
        int node;
    };
    std::vector<Entry> m_entries;
    std::vector<int> m_otherBefore; // the nearest entry before this one on another resource
};

} // namespace

void DependencyGraph::inferThreadWaits()
{
    constexpr TimeNs kWindow = 250'000; // Python waking up a thread takes tens to hundreds of us
    constexpr TimeNs kIdle = 5'000;
    std::map<std::tuple<SourceId, int, QString>, std::vector<int>> processes;
    for (size_t r = 0; r < m_resources.size(); ++r)
        if (!m_resources[r].gpu)
            processes[{m_resources[r].source, m_resources[r].rank, m_resources[r].pid}].push_back(
                int(r));
    // A node that opens slices (NllLossBackward around its first call) began when the
    // outermost of them did: that is the moment matched against the sibling threads.
    std::unordered_map<int, TimeNs> opened;
    for (const auto &c : m_containers)
        if (auto [it, fresh] = opened.emplace(c.first, c.start); !fresh)
            it->second = std::min(it->second, c.start);
    for (const auto &[key, threads] : processes) {
        if (threads.size() < 2)
            continue;
        const SiblingEnds ends(threads, m_resources, m_nodes);
        for (int res : threads) {
            const auto &ids = m_resources[size_t(res)].nodes;
            for (size_t k = 0; k < ids.size(); ++k) {
                const Node &n = m_nodes[size_t(ids[k])];
                const auto o = opened.find(ids[k]);
                const TimeNs began = o != opened.end() ? o->second : n.start;
                // A thread's first op waits for nothing on its thread: only a sibling explains it.
                const TimeNs ready =
                    k ? m_nodes[size_t(ids[k - 1])].end : std::numeric_limits<TimeNs>::min();
                if (k && n.start - ready <= kIdle)
                    continue;
                const int best = ends.latestEndBefore(res, began, ready, kWindow);
                if (best >= 0)
                    addEdge({best, ids[k], EdgeKind::ThreadWait, true, false,
                             n.start - m_nodes[size_t(best)].end});
            }
        }
    }
}

void DependencyGraph::inferStreamWaits()
{
    constexpr TimeNs kWindow = 10'000;
    // The ready time of each GPU node from its stream and its launch (measured).
    std::vector<TimeNs> launchReady(m_nodes.size(), std::numeric_limits<TimeNs>::min());
    for (const auto &e : m_edges)
        if (e.kind == EdgeKind::Launch)
            launchReady[size_t(e.to)] =
                std::max(launchReady[size_t(e.to)], m_nodes[size_t(e.from)].start + e.lag);
    for (const auto &streams : gpuDevices()) {
        if (streams.size() < 2)
            continue;
        const SiblingEnds ends(streams, m_resources, m_nodes);
        for (int res : streams) {
            const auto &ids = m_resources[size_t(res)].nodes;
            for (size_t k = 0; k < ids.size(); ++k) {
                const Node &n = m_nodes[size_t(ids[k])];
                TimeNs ready = std::max(launchReady[size_t(ids[k])], m_origin);
                if (k > 0)
                    ready = std::max(ready, m_nodes[size_t(ids[k - 1])].end);
                if (n.start - ready <= 1'000)
                    continue; // explained by its stream or launch
                const int best = ends.latestEndBefore(res, n.start, ready, kWindow);
                if (best >= 0)
                    addEdge({best, ids[k], EdgeKind::StreamWait, true, false,
                             n.start - m_nodes[size_t(best)].end});
            }
        }
    }
}

std::vector<std::vector<int>> DependencyGraph::gpuDevices() const
{
    std::map<std::tuple<SourceId, int, QString>, std::vector<int>> devices;
    for (size_t r = 0; r < m_resources.size(); ++r)
        if (m_resources[r].gpu)
            devices[{m_resources[r].source, m_resources[r].rank, m_resources[r].pid}].push_back(
                int(r));
    std::vector<std::vector<int>> out;
    for (auto &[key, streams] : devices)
        out.push_back(std::move(streams));
    return out;
}

void DependencyGraph::reorder()
{
    m_position.assign(m_nodes.size(), 0);
    for (const auto &r : m_resources)
        for (size_t k = 0; k < r.nodes.size(); ++k)
            m_position[size_t(r.nodes[k])] = int(k);
    // The inputs of each point as one array with offsets: the resource predecessor's end
    // first, then the edges in the order they were added (a replay breaks ties by it), then the
    // joins.
    const size_t nodePoints = 2 * m_nodes.size();
    const size_t points = this->points();
    m_inStart.assign(points + 1, 0);
    for (const auto &r : m_resources)
        for (size_t k = 1; k < r.nodes.size() && !r.concurrent; ++k)
            ++m_inStart[2 * size_t(r.nodes[k]) + 1];
    for (const auto &e : m_edges)
        ++m_inStart[2 * size_t(e.to) + (e.toEnd ? 1 : 0) + 1];
    for (size_t j = 0; j < m_joins.size(); ++j) {
        for (int b : m_joins[j].waiting)
            ++m_inStart[2 * size_t(b) + 2];
        m_inStart[nodePoints + j + 1] += int(m_joins[j].arriving.size());
    }
    for (size_t p = 0; p < points; ++p)
        m_inStart[p + 1] += m_inStart[p];
    m_inData.resize(size_t(m_inStart[points]));
    {
        std::vector<int> fill(m_inStart.begin(), m_inStart.end() - 1);
        for (const auto &r : m_resources)
            for (size_t k = 1; k < r.nodes.size() && !r.concurrent; ++k)
                m_inData[size_t(fill[2 * size_t(r.nodes[k])]++)] = {2 * r.nodes[k - 1] + 1, 0};
        for (const auto &e : m_edges) {
            const size_t to = 2 * size_t(e.to) + (e.toEnd ? 1 : 0);
            m_inData[size_t(fill[to]++)] = {2 * e.from + (e.fromEnd ? 1 : 0), e.lag};
        }
        for (size_t j = 0; j < m_joins.size(); ++j) {
            for (int b : m_joins[j].waiting)
                m_inData[size_t(fill[2 * size_t(b) + 1]++)] = {int(nodePoints + j), 0};
            for (int a : m_joins[j].arriving)
                m_inData[size_t(fill[nodePoints + j]++)] = {2 * a, 0};
        }
    }
    // Evaluation order: Kahn's algorithm over the same arrays turned around (a node's end also
    // waits for its start). Every edge was checked against the measured times and resource
    // order follows them, so a measured graph has no cycle; a transform's edit that made one
    // leaves the points on it, and those after them, out of the order (hasCycle()).
    std::vector<int> outStart(points + 1, 0), pending(points, 0);
    for (size_t p = 0; p < points; ++p) {
        for (const In &in : inputs(int(p)))
            ++outStart[size_t(in.from) + 1];
        pending[p] = int(m_inStart[p + 1] - m_inStart[p]) + int(p < nodePoints && p % 2);
    }
    for (size_t p = 0; p < nodePoints; p += 2)
        ++outStart[p + 1]; // start -> end
    for (size_t p = 0; p < points; ++p)
        outStart[p + 1] += outStart[p];
    std::vector<int> out(static_cast<size_t>(outStart[points]));
    {
        std::vector<int> fill(outStart.begin(), outStart.end() - 1);
        for (size_t p = 0; p < points; ++p) {
            if (p < nodePoints && p % 2)
                out[size_t(fill[p - 1]++)] = int(p);
            for (const In &in : inputs(int(p)))
                out[size_t(fill[size_t(in.from)]++)] = int(p);
        }
    }
    m_order.clear();
    m_order.reserve(points);
    for (size_t p = 0; p < points; ++p)
        if (pending[p] == 0)
            m_order.push_back(int(p));
    for (size_t head = 0; head < m_order.size(); ++head) {
        const int p = m_order[head];
        for (int k = outStart[size_t(p)]; k < outStart[size_t(p) + 1]; ++k)
            if (--pending[size_t(out[size_t(k)])] == 0)
                m_order.push_back(out[size_t(k)]);
    }
}

int DependencyGraph::addResource(Resource r)
{
    r.nodes.clear();
    m_resources.push_back(std::move(r));
    return int(m_resources.size()) - 1;
}

int DependencyGraph::insertNode(Node n, int after)
{
    const int idx = int(m_nodes.size());
    auto &order = m_resources[size_t(n.resource)].nodes;
    auto at = order.begin();
    if (after >= 0)
        at = std::find(order.begin(), order.end(), after) + 1;
    order.insert(at, idx);
    m_nodes.push_back(n);
    return idx;
}

int DependencyGraph::appendNode(const Node &n)
{
    const int idx = int(m_nodes.size());
    m_resources[size_t(n.resource)].nodes.push_back(idx);
    m_nodes.push_back(n);
    return idx;
}

StringId DependencyGraph::syntheticName(const QString &name)
{
    for (auto it = m_names.cbegin(); it != m_names.cend(); ++it)
        if (it.key() < 0 && it.value() == name)
            return it.key();
    StringId id = -1;
    for (auto it = m_names.cbegin(); it != m_names.cend(); ++it)
        id = std::min(id, it.key() - 1);
    m_names.insert(id, name);
    return id;
}

void DependencyGraph::measure()
{
    m_origin = std::numeric_limits<TimeNs>::max();
    m_end = std::numeric_limits<TimeNs>::min();
    bool anyBounds = false;
    for (const auto &n : m_nodes)
        anyBounds = anyBounds || n.bounds;
    for (const auto &n : m_nodes) {
        m_origin = std::min(m_origin, n.start);
        if (n.bounds || !anyBounds)
            m_end = std::max(m_end, n.end);
    }
    // Slack and work against the measured times (every edge was checked against them, so only
    // resource order can be contradicted: leaves overlapping on one thread or stream).
    std::vector<TimeNs> latestArrival(m_joins.size(), std::numeric_limits<TimeNs>::min());
    for (size_t j = 0; j < m_joins.size(); ++j)
        for (int a : m_joins[j].arriving)
            latestArrival[j] = std::max(latestArrival[j], m_nodes[size_t(a)].start);
    auto measured = [&](int point) {
        if (isJoin(point))
            return latestArrival[size_t(point) - 2 * m_nodes.size()];
        const Node &n = m_nodes[size_t(point / 2)];
        return point % 2 ? n.end : n.start;
    };
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        Node &n = m_nodes[i];
        TimeNs ready = m_origin;
        for (const In &in : inputs(int(2 * i)))
            ready = std::max(ready, measured(in.from) + in.lag);
        if (n.start < ready)
            ++m_violations;
        n.slack = std::max<TimeNs>(0, n.start - ready);
        TimeNs begin = n.start;
        for (const In &in : inputs(int(2 * i + 1)))
            begin = std::max(begin, measured(in.from) + in.lag);
        n.work = std::max<TimeNs>(0, n.end - begin);
    }
}

std::vector<int> DependencyGraph::steps() const
{
    // Host ranges only: Kineto also writes each step as a GPU user annotation on the streams
    // (cat gpu_user_annotation), which would count every iteration twice.
    // Each distinct name matched once (the regex per container was most of this function).
    std::unordered_map<StringId, bool> stepName;
    auto isStepName = [&](StringId name) {
        auto it = stepName.find(name);
        if (it == stepName.end())
            it = stepName.emplace(name, isProfilerStep(m_names.value(name))).first;
        return it->second;
    };
    std::vector<int> out;
    for (size_t i = 0; i < m_containers.size(); ++i) {
        const auto &c = m_containers[i];
        if (m_resources[size_t(c.resource)].gpu || !isStepName(c.name))
            continue;
        bool nested = false;
        for (int p = c.parent; p >= 0 && !nested; p = m_containers[size_t(p)].parent)
            nested = isStepName(m_containers[size_t(p)].name);
        if (!nested)
            out.push_back(int(i));
    }
    std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
        return m_containers[size_t(a)].start < m_containers[size_t(b)].start;
    });
    return out;
}

std::vector<int> DependencyGraph::iterations(int rank) const
{
    std::vector<int> out = steps();
    auto rankOf = [&](int c) {
        return std::max(m_resources[size_t(m_containers[size_t(c)].resource)].rank, 0);
    };
    if (rank < 0) {
        rank = INT_MAX;
        for (int c : out)
            rank = std::min(rank, rankOf(c));
    }
    std::erase_if(out, [&](int c) { return rankOf(c) != rank; });
    return out;
}

} // namespace gml::sim
