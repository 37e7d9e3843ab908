// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QString>

#include <memory>
#include <vector>

namespace gml::sim {

// Nodes of a dependency graph whose time is not fixed but set by shared capacity: transfers
// over network links and storage, and updates on a parameter server's memory. A flow moves
// `bytes` over every link of its path at once; the links are shared by the flows crossing
// them at the same time, max-min fairly (progressive filling: the most contended link fixes
// the rate of its flows, whose share of their other links is then set aside, and so on). A
// flow holds its links from the time its node may end (its start and end inputs met) until
// its bytes are through, then ends `latency` later (propagation and per-step latencies).
struct FlowLink
{
    QString name;
    double bytesPerNs = 0; // capacity (1 GB/s = 1 byte/ns)
};

struct Flow
{
    double bytes = 0;
    TimeNs latency = 0;
    std::vector<int> links; // the path; empty: only the latency
};

struct FlowSpec
{
    std::vector<FlowLink> links;
    std::vector<Flow> flows;
    std::vector<int> flowOfNode; // per graph node: its flow, -1: none
};

// The max-min fair rates of the active flows. Works on indices into a FlowSpec; the active set
// changes by add() and remove(), and rates() recomputes them all (a caller batches changes).
class MaxMinSharing
{
public:
    explicit MaxMinSharing(const FlowSpec &spec);

    void add(int flow);
    void remove(int flow);
    bool empty() const { return m_active.empty(); }
    const std::vector<int> &active() const { return m_active; }
    // Recomputes the rate of every active flow (bytes/ns); rate(f) reads them.
    void recompute();
    double rate(int flow) const { return m_rate[size_t(flow)]; }
    // The sum of the rates of the flows crossing each link, as of the last recompute.
    double load(int link) const { return m_load[size_t(link)]; }
    // Links whose load changed at the last recompute.
    const std::vector<int> &changedLinks() const { return m_changed; }

private:
    const FlowSpec &m_spec;
    std::vector<int> m_active;
    std::vector<int> m_slot; // per flow: its index in m_active, -1: inactive
    std::vector<double> m_rate;
    std::vector<double> m_load;
    std::vector<int> m_changed;
    // Scratch, per link: capacity left, unfixed flows crossing it, and when it was last touched.
    std::vector<double> m_left;
    std::vector<int> m_count;
    std::vector<int> m_seen;
    std::vector<int> m_position;
    std::vector<int> m_touched;
    int m_epoch = 0;
    // Scratch of recompute(), kept so that sharing again allocates nothing: the links touched
    // before, the flows by link (CSR offsets, fill cursors and entries), the bottleneck links of a
    // round and the loads summed.
    std::vector<int> m_previous, m_first, m_fill, m_flowsOf, m_bottlenecks;
    std::vector<double> m_sum;
};

// A link's load over time, as the replay saw it: (time, bytes/ns) at every change.
struct LinkLoad
{
    std::vector<std::pair<TimeNs, double>> samples;
};

} // namespace gml::sim
