// SPDX-License-Identifier: GPL-3.0-or-later
#include "flownetwork.h"

#include <algorithm>
#include <limits>

namespace gml::sim {

MaxMinSharing::MaxMinSharing(const FlowSpec &spec)
    : m_spec(spec), m_slot(spec.flows.size(), -1), m_rate(spec.flows.size(), 0),
      m_load(spec.links.size(), 0), m_left(spec.links.size(), 0), m_count(spec.links.size(), 0),
      m_seen(spec.links.size(), -1), m_position(spec.links.size(), 0)
{
}

void MaxMinSharing::add(int flow)
{
    if (m_slot[size_t(flow)] >= 0)
        return;
    m_slot[size_t(flow)] = int(m_active.size());
    m_active.push_back(flow);
}

void MaxMinSharing::remove(int flow)
{
    const int slot = m_slot[size_t(flow)];
    if (slot < 0)
        return;
    const int last = m_active.back();
    m_active[size_t(slot)] = last;
    m_slot[size_t(last)] = slot;
    m_active.pop_back();
    m_slot[size_t(flow)] = -1;
    m_rate[size_t(flow)] = 0;
}

void MaxMinSharing::recompute()
{
    ++m_epoch;
    // The links in use: capacity left and flows crossing; the links that carried load before
    // are visited too, so that a link whose last flow left drops to zero.
    std::vector<int> &previous = m_previous;
    previous.swap(m_touched);
    m_touched.clear();
    for (const int f : m_active)
        for (const int l : m_spec.flows[size_t(f)].links) {
            if (m_seen[size_t(l)] != m_epoch) {
                m_seen[size_t(l)] = m_epoch;
                m_left[size_t(l)] = m_spec.links[size_t(l)].bytesPerNs;
                m_count[size_t(l)] = 0;
                m_touched.push_back(l);
            }
            ++m_count[size_t(l)];
        }
    // Flows by link (CSR), to fix the flows of a bottleneck link.
    std::vector<int> &first = m_first;
    first.assign(m_touched.size() + 1, 0);
    std::vector<int> &position = m_position; // a link's index in m_touched
    for (size_t k = 0; k < m_touched.size(); ++k) {
        position[size_t(m_touched[k])] = int(k);
        first[k + 1] = first[k] + m_count[size_t(m_touched[k])];
    }
    std::vector<int> &flowsOf = m_flowsOf;
    flowsOf.resize(size_t(first.back()));
    m_fill.assign(first.begin(), first.end() - 1);
    for (const int f : m_active)
        for (const int l : m_spec.flows[size_t(f)].links)
            flowsOf[size_t(m_fill[size_t(position[size_t(l)])]++)] = f;
    // Progressive filling.
    for (const int f : m_active)
        m_rate[size_t(f)] = -1; // unfixed
    size_t fixed = 0;
    for (const int f : m_active)
        if (m_spec.flows[size_t(f)].links.empty()) {
            m_rate[size_t(f)] = std::numeric_limits<double>::infinity();
            ++fixed;
        }
    std::vector<int> &bottlenecks = m_bottlenecks;
    while (fixed < m_active.size()) {
        double share = std::numeric_limits<double>::infinity();
        for (const int l : m_touched)
            if (m_count[size_t(l)] > 0)
                share = std::min(share, m_left[size_t(l)] / m_count[size_t(l)]);
        if (!(share < std::numeric_limits<double>::infinity()))
            break;
        bottlenecks.clear();
        const double tolerance = share * 1e-9;
        for (const int l : m_touched)
            if (m_count[size_t(l)] > 0 &&
                m_left[size_t(l)] / m_count[size_t(l)] <= share + tolerance)
                bottlenecks.push_back(l);
        for (const int l : bottlenecks) {
            const size_t k = size_t(position[size_t(l)]);
            for (int j = first[k]; j < first[k + 1]; ++j) {
                const int f = flowsOf[size_t(j)];
                if (m_rate[size_t(f)] >= 0)
                    continue;
                m_rate[size_t(f)] = share;
                ++fixed;
                for (const int other : m_spec.flows[size_t(f)].links) {
                    m_left[size_t(other)] = std::max(0.0, m_left[size_t(other)] - share);
                    --m_count[size_t(other)];
                }
            }
        }
    }
    // Loads, and which changed.
    m_changed.clear();
    std::vector<double> &load = m_sum;
    load.assign(m_touched.size(), 0);
    for (size_t k = 0; k < m_touched.size(); ++k)
        for (int j = first[k]; j < first[k + 1]; ++j)
            load[k] += m_rate[size_t(flowsOf[size_t(j)])];
    for (const int l : previous)
        if (m_seen[size_t(l)] != m_epoch && m_load[size_t(l)] != 0) {
            m_load[size_t(l)] = 0;
            m_changed.push_back(l);
        }
    for (size_t k = 0; k < m_touched.size(); ++k) {
        const int l = m_touched[k];
        if (m_load[size_t(l)] != load[k]) {
            m_load[size_t(l)] = load[k];
            m_changed.push_back(l);
        }
    }
}

} // namespace gml::sim
