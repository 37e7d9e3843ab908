// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to DependencyGraph::build: the costed operators of a run's CPU threads, gathered
// while the slices are read (graphread.cpp) and resolved once all are (opCosts()).

#include "dependencygraph.h"
#include "slicestore.h"

#include <unordered_map>
#include <vector>

namespace gml::sim {

class OpCostCollector
{
public:
    explicit OpCostCollector(Project &project);
    // A CPU slice as it is read (its args are readable now).
    void visit(slicestore::TrackReader &reader, const slicestore::Row &x, TimeNs start, TimeNs end,
               int resource);
    // Outermost ops, convolution outputs from their backward, parts of backward convolutions,
    // the profiler's counts; into g.m_opCosts, g.m_opGaps and the model FLOPs into g.m_flops.
    void finish(DependencyGraph &g);

private:
    struct Seen
    {
        int resource;
        TimeNs start, end;
        StringId name;
        OpClass cls;
        OpInputs inputs;
        bool parsed;
        std::optional<double> recorded;
        int parts = 0;
        bool nested = false;
    };
    std::unordered_map<StringId, OpClass> m_classOf;
    std::vector<Seen> m_seen;
};

} // namespace gml::sim
