// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "executionmodel.h"

#include <QSet>
#include <QString>

#include <memory>
#include <vector>

namespace gml {

// What the graph view shows of an execution model: a focus node (the breadcrumb's last crumb)
// and the part of its subtree that fits. Starting from the focus's children, the largest shown
// item is opened (a node into its children, a ×N group of repeats into its members) while the
// count stays within `budget` and the items stay at or above `level`. The user's own choices
// win: a node in `opened` is always open, one in `closed` never; a group whose first member is
// in `unfolded` always shows its members.
struct GraphCollapse
{
    int focus = 0;
    // Module level: iteration > phase > module, what a reader of a run looks for first; a
    // phase or a module opens into its operators on a double-click.
    sim::Level level = sim::Level::Scope;
    int budget = 150;
    // Sync edges (a host waiting for the device) are drawn on demand: at every level they
    // join most boxes to a synchronize and say little; those on the critical path always show.
    bool syncEdges = false;
    QSet<int> opened;
    QSet<int> closed;
    QSet<int> unfolded;  // first member of a group; GraphItem::rangeKey(first) of a range
    quint64 key() const; // equal states have equal keys (the layout cache)
};

// One box of the view: a model node, or a group of `count` repeats of a block of `period`
// siblings, represented by the block's largest node, or a range of `count` successive nodes
// (one rank's, or a run of them) where there were more boxes than the budget.
struct GraphItem
{
    int node = 0;
    int count = 1;  // ×N: repeats of a block
    int period = 1; // nodes per block (ProfilerStep#N and the aten::zeros after it: 2)
    int first = 0;  // the group's first member (GraphCollapse::unfolded)
    int last = 0;   // the group's last member
    TimeNs start = 0, end = 0;
    TimeNs time = 0; // inclusive, added up over the group
    TimeNs self = 0;
    TimeNs critical = 0; // critical-path time under it
    sim::ResourceMix mix;
    bool openable = false; // has children at or above the level, or is a group
    bool range = false;
    QString label; // the node's name (a range: its first's and its last's)
    bool isGroup() const { return range || count * period > 1; } // opens by unfolding
    // What GraphCollapse::unfolded holds for it: a group's first member, or rangeKey(first).
    int unfoldKey() const { return range ? rangeKey(first) : first; }
    static int rangeKey(int first) { return -2 - first; }
};

struct GraphSceneEdge
{
    int from = 0; // item indices
    int to = 0;
    sim::ModelEdge::Kind kind = sim::ModelEdge::Kind::ProgramOrder;
    qint64 count = 0;
    bool critical = false; // the critical path goes from `from` straight to `to`
};

// The items and edges of one collapse state. Leaf edges between nodes under two different
// items become one edge per kind; program order joins successive items of one resource. Edges
// from outside the focus are dropped (the breadcrumb shows where the focus sits).
struct GraphScene
{
    std::shared_ptr<const sim::ExecutionModel> model;
    GraphCollapse collapse;
    std::vector<GraphItem> items;
    std::vector<GraphSceneEdge> edges;
    std::vector<int> itemOfNode; // model node -> item, -1 outside the focus's subtree
    TimeNs total = 0;            // the focus's inclusive time
    TimeNs criticalLength = 0;
    int hiddenForBudget = 0; // items an opening would have added beyond the budget
    int hiddenSync = 0;      // sync edges left out (GraphCollapse::syncEdges)

    static GraphScene build(std::shared_ptr<const sim::ExecutionModel> model,
                            const GraphCollapse &collapse);
    // The item that shows model node `node` (its own or an ancestor's), -1: not in view.
    int itemOf(int node) const
    {
        return node >= 0 && size_t(node) < itemOfNode.size() ? itemOfNode[size_t(node)] : -1;
    }
    // The focus and its ancestors, outermost first (the breadcrumb).
    std::vector<int> breadcrumb() const;
};

} // namespace gml
