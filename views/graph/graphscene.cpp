// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphscene.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <tuple>

namespace gml {

using sim::Level;
using sim::ModelEdge;
using sim::ModelNode;

quint64 GraphCollapse::key() const
{
    auto sorted = [](const QSet<int> &set) {
        std::vector<int> v(set.begin(), set.end());
        std::sort(v.begin(), v.end());
        return v;
    };
    quint64 h = qHash(focus, (quint64(level) * 31 + quint64(budget)) * 2 + quint64(syncEdges));
    for (const QSet<int> *set : {&opened, &closed, &unfolded}) {
        h = h * 1099511628211ull + 0x9e3779b97f4a7c15ull;
        for (int v : sorted(*set))
            h = (h ^ quint64(v)) * 1099511628211ull;
    }
    return h;
}

namespace {

// What opening something shows, one box each: a node, a group of repeats, or a range of
// successive boxes (when there are more than the budget) that opens into its parts.
struct Kid
{
    std::vector<int> members; // one node, a group's nodes, or a range's nodes
    int period = 1;           // a group: members per repeat
    bool range = false;
    std::vector<Kid> parts; // a range: its boxes
};

// A box while the scene is being opened: a node, a group of repeats or a range, or (when
// open) the parent of the entries that replaced it.
struct Entry
{
    std::vector<int> members;
    int period = 1;
    bool range = false;
    std::vector<Kid> parts;
    TimeNs time = 0;
    bool open = false;
    std::vector<int> children; // entries, once open
};

// The scene's edges: the leaf edges between its items, program order on each resource, the
// critical path's pairs marked, and a collective's all-to-all edges joined into one chain in rank
// order; sync edges off the critical path are left out unless asked for (counted).
void addEdges(GraphScene &scene, const sim::ExecutionModel &model, bool syncEdges)
{
    const auto &nodes = model.nodes();
    // Edges: the leaf edges between items, then program order on each resource.
    auto folded = model.foldLeafEdges([&](int node) { return scene.itemOf(node); });
    std::map<int, std::vector<int>> lanes;
    for (size_t i = 0; i < scene.items.size(); ++i) {
        const int resource = nodes[size_t(scene.items[i].node)].resource;
        if (resource >= 0)
            lanes[resource].push_back(int(i));
    }
    for (auto &[resource, list] : lanes) {
        std::sort(list.begin(), list.end(), [&](int a, int b) {
            return std::tie(scene.items[size_t(a)].start, a) <
                   std::tie(scene.items[size_t(b)].start, b);
        });
        for (size_t k = 1; k < list.size(); ++k)
            ++folded[{list[k - 1], list[k], int(ModelEdge::Kind::ProgramOrder)}];
    }
    std::set<std::pair<int, int>> criticalPairs;
    int previous = -1;
    for (int n : model.criticalNodes()) {
        const int item = scene.itemOf(n);
        if (item < 0)
            continue;
        if (previous >= 0 && previous != item)
            criticalPairs.insert({previous, item});
        previous = item;
    }
    // A collective links every rank to every other (8 ranks: 56 edges per all-reduce). The
    // view joins the boxes of one collective in rank order instead, a chain that says the same.
    std::vector<int> group(scene.items.size());
    std::iota(group.begin(), group.end(), 0);
    std::function<int(int)> find = [&](int x) {
        return group[size_t(x)] == x ? x : group[size_t(x)] = find(group[size_t(x)]);
    };
    std::map<std::pair<int, int>, qint64> collective;
    for (auto it = folded.begin(); it != folded.end();) {
        const auto [a, b, kind] = it->first;
        if (ModelEdge::Kind(kind) != ModelEdge::Kind::Collective) {
            ++it;
            continue;
        }
        group[size_t(find(a))] = find(b);
        collective[{std::min(a, b), std::max(a, b)}] += it->second;
        it = folded.erase(it);
    }
    std::map<int, std::vector<int>> members;
    for (const auto &[pair, count] : collective) {
        members[find(pair.first)].push_back(pair.first);
        members[find(pair.first)].push_back(pair.second);
    }
    for (auto &[r, list] : members) {
        std::sort(list.begin(), list.end(), [&](int a, int b) {
            const auto &na = nodes[size_t(scene.items[size_t(a)].node)],
                       &nb = nodes[size_t(scene.items[size_t(b)].node)];
            return std::tie(na.rank, scene.items[size_t(a)].start, a) <
                   std::tie(nb.rank, scene.items[size_t(b)].start, b);
        });
        list.erase(std::unique(list.begin(), list.end()), list.end());
        for (size_t k = 1; k < list.size(); ++k) {
            const auto c =
                collective.find({std::min(list[k - 1], list[k]), std::max(list[k - 1], list[k])});
            folded[{list[k - 1], list[k], int(ModelEdge::Kind::Collective)}] +=
                c != collective.end() ? c->second : 1;
        }
    }
    for (const auto &[key, count] : folded) {
        const auto [a, b, kind] = key;
        const bool critical = criticalPairs.count({a, b}) > 0 ||
                              (ModelEdge::Kind(kind) == ModelEdge::Kind::Collective &&
                               criticalPairs.count({b, a}) > 0);
        if (ModelEdge::Kind(kind) == ModelEdge::Kind::Sync && !syncEdges && !critical) {
            ++scene.hiddenSync;
            continue;
        }
        scene.edges.push_back({a, b, ModelEdge::Kind(kind), count, critical});
    }
}

// The box a closed entry is drawn as: a group stands for its first block (named by the block's
// largest node), a range for its parts ("ProfilerStep#0 … #263 · rank 5"), with the time, self
// time, critical time and mix of every member.
GraphItem itemOfEntry(const Entry &e, const std::vector<ModelNode> &nodes)
{
    GraphItem item;
    // A group stands for its first block; the block's largest node names it.
    item.node = e.members.front();
    for (int k = 1; k < e.period; ++k)
        if (nodes[size_t(e.members[size_t(k)])].inclusive() > nodes[size_t(item.node)].inclusive())
            item.node = e.members[size_t(k)];
    item.first = e.members.front();
    item.last = e.members.back();
    item.period = e.period;
    item.count = int(e.members.size()) / e.period;
    item.range = e.range;
    const ModelNode &first = nodes[size_t(item.node)];
    if (e.range) { // "ProfilerStep#0 … #263 · rank 5": the name and the rank said once
        QString tail = nodes[size_t(item.last)].name;
        QString head = first.name;
        if (const qsizetype at = tail.lastIndexOf(QStringLiteral(" · rank "));
            at > 0 && head.endsWith(tail.mid(at)))
            head.chop(tail.size() - at);
        if (const qsizetype hash = head.lastIndexOf(QLatin1Char('#'));
            hash > 0 && tail.startsWith(head.first(hash + 1)))
            tail.remove(0, hash);
        item.label = QStringLiteral("%1 … %2").arg(head, tail);
    } else {
        item.label = first.name;
    }
    item.start = nodes[size_t(e.members.front())].start;
    item.end = nodes[size_t(item.last)].end;
    for (int m : e.members) {
        const ModelNode &n = nodes[size_t(m)];
        item.time += n.inclusive();
        item.self += n.self;
        item.critical += n.critical;
        item.mix += n.mix;
    }
    item.openable = e.members.size() > 1 || !first.children.empty();
    if (e.range) { // spans its first to its last part
        item.start = std::numeric_limits<TimeNs>::max();
        item.end = std::numeric_limits<TimeNs>::min();
        for (int m : e.members) {
            item.start = std::min(item.start, nodes[size_t(m)].start);
            item.end = std::max(item.end, nodes[size_t(m)].end);
        }
    }
    return item;
}

// Opens the scene's tree of entries from the focus down: the level chosen, what the user
// opened or closed, lone children, then the largest closed entries while the budget holds.
class Opener
{
public:
    Opener(const sim::ExecutionModel &model, const GraphCollapse &collapse)
        : m_model(model), m_nodes(model.nodes()), m_collapse(collapse),
          m_budget(size_t(std::max(collapse.budget, 8)))
    {
    }
    const std::vector<Entry> &entries() const { return m_entries; }
    int hiddenForBudget() const { return m_hiddenForBudget; }

    // The root entry (the focus), opened to the level below it and through lone children.
    int openRoot(int focus)
    {
        const int root = makeEntry({{focus}, 1, false, {}});
        open(root, levelBelow(focus));
        // A lone child is opened too (the workflow of one run, a step of one iteration): one
        // box would say nothing. Past the budget if need be, up to 4 times it (a wrapped chain
        // of 400 operators still reads; 5,000 would not).
        for (int lone = root; m_entries[size_t(lone)].children.size() == 1;) {
            lone = m_entries[size_t(lone)].children.front();
            const Entry &e = m_entries[size_t(lone)];
            if (e.open || e.members.size() != 1 || m_collapse.closed.contains(e.members.front()) ||
                childrenOf(lone, levelBelow(e.members.front())).size() >
                    size_t(4 * m_collapse.budget))
                break;
            open(lone, levelBelow(e.members.front()));
        }
        return root;
    }

    // Then the largest closed entries, while they fit.
    void openLargest(int root)
    {
        enqueueLeaves(root);
        while (!m_queue.empty()) {
            const int entry = m_queue.top();
            m_queue.pop();
            const Entry &e = m_entries[size_t(entry)];
            if (m_collapse.closed.contains(e.members.front())) // a node, or a group by its first
                continue;
            const auto kids = childrenOf(entry, m_collapse.level);
            if (kids.empty())
                continue;
            if (m_shown + int(kids.size()) - 1 > m_collapse.budget) {
                if (!openFirstBlock(entry))
                    ++m_hiddenForBudget;
                continue;
            }
            open(entry, m_collapse.level);
            for (int c : m_entries[size_t(entry)].children)
                enqueueLeaves(c);
        }
    }

private:
    struct ByTime
    {
        const std::vector<Entry> *entries;
        bool operator()(int a, int b) const
        {
            return (*entries)[size_t(a)].time < (*entries)[size_t(b)].time;
        }
    };

    int makeEntry(Kid kid)
    {
        Entry e;
        e.members = std::move(kid.members);
        e.period = kid.period;
        e.range = kid.range;
        e.parts = std::move(kid.parts);
        for (int m : e.members)
            e.time += m_nodes[size_t(m)].inclusive();
        m_entries.push_back(std::move(e));
        return int(m_entries.size() - 1);
    }

    // More boxes than the budget (a step of 64 ranks x 264 iterations, a group of 16,000
    // repeats unfolded) become ranges: one per rank when the boxes are of several ranks and
    // that fits, else runs of successive boxes, at most half the budget of them. A range
    // opens into its boxes, ranged again if need be.
    std::vector<Kid> ranged(std::vector<Kid> list) const
    {
        if (list.size() <= m_budget)
            return list;
        std::vector<Kid> out;
        auto range = [&](size_t a, size_t b) {
            if (b - a == 1) {
                out.push_back(std::move(list[a]));
                return;
            }
            Kid r;
            r.range = true;
            for (size_t k = a; k < b; ++k) {
                r.members.insert(r.members.end(), list[k].members.begin(), list[k].members.end());
                r.parts.push_back(std::move(list[k]));
            }
            out.push_back(std::move(r));
        };
        std::vector<size_t> cuts{0};
        for (size_t k = 1; k < list.size(); ++k)
            if (m_nodes[size_t(list[k].members.front())].rank !=
                m_nodes[size_t(list[k - 1].members.front())].rank)
                cuts.push_back(k);
        cuts.push_back(list.size());
        if (cuts.size() > 2 && cuts.size() - 1 <= m_budget) {
            for (size_t k = 0; k + 1 < cuts.size(); ++k)
                range(cuts[k], cuts[k + 1]);
        } else {
            const size_t per = (list.size() + m_budget / 2 - 1) / (m_budget / 2);
            for (size_t a = 0; a < list.size(); a += per)
                range(a, std::min(list.size(), a + per));
        }
        return out;
    }

    // What opening an entry would show: a range's parts, a group's members, a node's children
    // (grouped).
    std::vector<Kid> childrenOf(int entry, Level upTo) const
    {
        std::vector<Kid> out;
        const Entry &e = m_entries[size_t(entry)];
        if (e.range)
            return ranged(e.parts);
        if (e.members.size() > 1) {
            for (int m : e.members)
                out.push_back({{m}, 1, false, {}});
            return ranged(std::move(out));
        }
        const int node = e.members.front();
        if (m_nodes[size_t(node)].level >= upTo)
            return out;
        for (auto &f : m_model.foldedChildren(node, upTo))
            out.push_back({std::move(f.members), f.period, false, {}});
        return ranged(std::move(out));
    }

    bool forcedOpen(const Entry &e) const
    {
        return e.range ? m_collapse.unfolded.contains(GraphItem::rangeKey(e.members.front()))
               : e.members.size() > 1 ? m_collapse.unfolded.contains(e.members.front())
                                      : m_collapse.opened.contains(e.members.front());
    }

    // Opens an entry, then whatever the user opened inside it.
    void open(int entry, Level upTo)
    {
        auto kids = childrenOf(entry, upTo);
        if (kids.empty())
            return;
        m_entries[size_t(entry)].open = true;
        m_shown += int(kids.size()) - 1;
        std::vector<int> ids;
        for (auto &kid : kids)
            ids.push_back(makeEntry(std::move(kid)));
        m_entries[size_t(entry)].children = ids;
        for (int c : ids)
            if (forcedOpen(m_entries[size_t(c)]))
                open(c, Level::GpuWork);
    }

    // A group too big to show whole shows its first block, the rest staying a group (8 ranks'
    // first iterations, then "×39"): the structure, at the cost of a block. False when even
    // that does not fit.
    bool openFirstBlock(int entry)
    {
        const Entry &e = m_entries[size_t(entry)];
        const int period = e.period;
        if (e.range || e.members.size() < size_t(2 * period) ||
            m_shown + period > m_collapse.budget)
            return false;
        std::vector<int> rest(e.members.begin() + period, e.members.end());
        std::vector<int> ids;
        for (int k = 0; k < period; ++k)
            ids.push_back(makeEntry({{m_entries[size_t(entry)].members[size_t(k)]}, 1, false, {}}));
        ids.push_back(makeEntry({std::move(rest), period, false, {}}));
        m_entries[size_t(entry)].open = true;
        m_entries[size_t(entry)].children = ids;
        m_shown += period;
        for (int c : ids) {
            if (forcedOpen(m_entries[size_t(c)]))
                open(c, Level::GpuWork);
            enqueueLeaves(c);
        }
        return true;
    }

    // The level a node opens down to: the one chosen, or deeper when its children all are (a
    // phase of operators opened at module level shows its operators, not nothing).
    Level levelBelow(int node) const
    {
        Level level =
            std::max(m_collapse.level,
                     Level(std::min(int(m_nodes[size_t(node)].level) + 1, sim::kLevels - 1)));
        const auto &children = m_nodes[size_t(node)].children;
        if (!children.empty()) {
            Level shallowest = Level::GpuWork;
            for (int c : children)
                shallowest = std::min(shallowest, m_nodes[size_t(c)].level);
            level = std::max(level, shallowest);
        }
        return level;
    }

    void enqueueLeaves(int entry)
    {
        const Entry &e = m_entries[size_t(entry)];
        if (!e.open) {
            m_queue.push(entry);
            return;
        }
        for (int c : e.children)
            enqueueLeaves(c);
    }

    const sim::ExecutionModel &m_model;
    const std::vector<ModelNode> &m_nodes;
    const GraphCollapse &m_collapse;
    const size_t m_budget;
    std::vector<Entry> m_entries;
    int m_shown = 1;
    int m_hiddenForBudget = 0;
    std::priority_queue<int, std::vector<int>, ByTime> m_queue{ByTime{&m_entries}};
};

} // namespace

GraphScene GraphScene::build(std::shared_ptr<const sim::ExecutionModel> modelPtr,
                             const GraphCollapse &collapse)
{
    GraphScene scene;
    scene.model = modelPtr;
    scene.collapse = collapse;
    const sim::ExecutionModel &model = *modelPtr;
    const auto &nodes = model.nodes();
    if (nodes.empty())
        return scene;
    if (scene.collapse.focus < 0 || size_t(scene.collapse.focus) >= nodes.size())
        scene.collapse.focus = 0;
    const int focus = scene.collapse.focus;
    scene.total = nodes[size_t(focus)].inclusive();
    scene.criticalLength = model.criticalLength();

    Opener opener(model, collapse);
    const int root = opener.openRoot(focus);
    opener.openLargest(root);
    scene.hiddenForBudget = opener.hiddenForBudget();

    // The closed entries, in tree order, are the items.
    const std::vector<Entry> &entries = opener.entries();
    scene.itemOfNode.assign(nodes.size(), -1);
    std::vector<int> stack{root};
    while (!stack.empty()) {
        const int entry = stack.back();
        stack.pop_back();
        const Entry &e = entries[size_t(entry)];
        if (e.open) {
            for (auto c = e.children.rbegin(); c != e.children.rend(); ++c)
                stack.push_back(*c);
            continue;
        }
        GraphItem item = itemOfEntry(e, nodes);
        const int index = int(scene.items.size());
        scene.items.push_back(std::move(item));
        std::vector<int> sub(e.members.begin(), e.members.end());
        while (!sub.empty()) {
            const int n = sub.back();
            sub.pop_back();
            scene.itemOfNode[size_t(n)] = index;
            for (int c : nodes[size_t(n)].children)
                sub.push_back(c);
        }
    }

    addEdges(scene, model, collapse.syncEdges);
    return scene;
}

std::vector<int> GraphScene::breadcrumb() const
{
    std::vector<int> out;
    if (!model || model->nodes().empty())
        return out;
    for (int n = collapse.focus; n >= 0; n = model->nodes()[size_t(n)].parent)
        out.push_back(n);
    std::reverse(out.begin(), out.end());
    return out;
}

} // namespace gml
