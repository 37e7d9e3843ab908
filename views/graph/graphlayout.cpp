// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphlayout.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>

#include <algorithm>
#include <climits>
#include <map>
#include <numeric>
#include <set>

namespace gml {

namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                    boost::property<boost::edge_index_t, int>>;

// Marks the edges that close a cycle in a depth-first search from the nodes in index order.
struct BackEdges : boost::default_dfs_visitor
{
    std::vector<bool> *reversed;
    template <typename E, typename G> void back_edge(E e, const G &g) const
    {
        (*reversed)[size_t(boost::get(boost::edge_index, g, e))] = true;
    }
};

// Least squares under order constraints: positions y (centres) closest to `want` (weighted)
// with y[i+1] - y[i] >= gap[i]. Substituting z = y - offset turns it into isotonic regression,
// solved by pooling adjacent violators.
std::vector<double> place(const std::vector<double> &want, const std::vector<double> &weight,
                          const std::vector<double> &gap)
{
    const size_t n = want.size();
    std::vector<double> offset(n, 0);
    for (size_t i = 1; i < n; ++i)
        offset[i] = offset[i - 1] + gap[i - 1];
    struct Block
    {
        double sum, weight;
        size_t count;
    };
    std::vector<Block> blocks;
    for (size_t i = 0; i < n; ++i) {
        blocks.push_back({(want[i] - offset[i]) * weight[i], weight[i], 1});
        while (blocks.size() > 1) {
            const Block &b = blocks.back(), &a = blocks[blocks.size() - 2];
            if (a.sum / a.weight <= b.sum / b.weight)
                break;
            const Block merged{a.sum + b.sum, a.weight + b.weight, a.count + b.count};
            blocks.pop_back();
            blocks.back() = merged;
        }
    }
    std::vector<double> y(n);
    size_t i = 0;
    for (const Block &b : blocks)
        for (size_t k = 0; k < b.count; ++k, ++i)
            y[i] = b.sum / b.weight + offset[i];
    return y;
}

// Crossings between two layers: inversions of the lower ends when the segments are sorted by
// their upper ends (merge sort count).
long long inversions(std::vector<std::pair<int, int>> segs)
{
    std::sort(segs.begin(), segs.end());
    std::vector<int> v;
    v.reserve(segs.size());
    for (const auto &s : segs)
        v.push_back(s.second);
    std::vector<int> tmp(v.size());
    long long count = 0;
    for (size_t width = 1; width < v.size(); width *= 2) {
        for (size_t lo = 0; lo < v.size(); lo += 2 * width) {
            const size_t mid = std::min(lo + width, v.size()),
                         hi = std::min(lo + 2 * width, v.size());
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) {
                if (v[b] < v[a]) {
                    count += static_cast<long long>(mid - a);
                    tmp[k++] = v[b++];
                } else {
                    tmp[k++] = v[a++];
                }
            }
            while (a < mid)
                tmp[k++] = v[a++];
            while (b < hi)
                tmp[k++] = v[b++];
        }
        std::swap(v, tmp);
    }
    return count;
}

} // namespace

namespace {

// Step 4 of the layout: the order of the nodes (dummies included) within each layer, from their
// initial `key`s, improved by up to 12 median sweeps (down, then up) and the order with the
// fewest edge crossings kept. `pos` gets each node's index in its layer, `crossingsLeft` the
// crossings of the order returned.
std::vector<std::vector<int>> orderWithinLayers(int layers, const std::vector<int> &layerOf,
                                                const std::vector<double> &key,
                                                const std::vector<std::vector<int>> &up,
                                                const std::vector<std::vector<int>> &down,
                                                std::vector<int> &pos, long long *crossingsLeft)
{
    const size_t total = layerOf.size();
    std::vector<std::vector<int>> rows(static_cast<size_t>(layers));
    for (size_t v = 0; v < total; ++v)
        rows[size_t(layerOf[v])].push_back(int(v));
    for (auto &row : rows)
        std::sort(row.begin(), row.end(),
                  [&](int a, int b) { return key[size_t(a)] < key[size_t(b)]; });
    auto index = [&] {
        for (auto &row : rows)
            for (size_t k = 0; k < row.size(); ++k)
                pos[size_t(row[k])] = int(k);
    };
    auto crossings = [&] {
        long long c = 0;
        for (int l = 0; l + 1 < layers; ++l) {
            std::vector<std::pair<int, int>> segs;
            for (int v : rows[size_t(l)])
                for (int w : down[size_t(v)])
                    segs.emplace_back(pos[size_t(v)], pos[size_t(w)]);
            c += inversions(std::move(segs));
        }
        return c;
    };
    index();
    long long best = crossings();
    auto bestRows = rows;
    for (int sweep = 0; sweep < 12 && best > 0; ++sweep) {
        const bool forward = sweep % 2 == 0;
        for (int step = 1; step < layers; ++step) {
            const int l = forward ? step : layers - 1 - step;
            auto &row = rows[size_t(l)];
            std::vector<std::pair<double, int>> keyed;
            for (size_t k = 0; k < row.size(); ++k) {
                const auto &nb = forward ? up[size_t(row[k])] : down[size_t(row[k])];
                double m = double(pos[size_t(row[k])]);
                if (!nb.empty()) {
                    std::vector<int> p;
                    for (int w : nb)
                        p.push_back(pos[size_t(w)]);
                    std::sort(p.begin(), p.end());
                    m = p.size() % 2 ? p[p.size() / 2]
                                     : 0.5 * (p[p.size() / 2 - 1] + p[p.size() / 2]);
                }
                keyed.emplace_back(m, row[k]);
            }
            std::stable_sort(keyed.begin(), keyed.end(),
                             [](const auto &a, const auto &b) { return a.first < b.first; });
            for (size_t k = 0; k < row.size(); ++k) {
                row[k] = keyed[k].second;
                pos[size_t(row[k])] = int(k);
            }
        }
        const long long c = crossings();
        if (c < best) {
            best = c;
            bestRows = rows;
        }
    }
    rows = bestRows;
    index();
    *crossingsLeft = best;
    return rows;
}

// Step 5: each node's position across its layer (dummies included): stacked with their gaps,
// then 8 passes, down and up, that pull each node towards the mean of its neighbours (dummies
// weigh more, so long edges stay straight) while keeping the gaps (`place`).
std::vector<double> verticalPositions(const std::vector<std::vector<int>> &rows, int n,
                                      const std::vector<double> &height,
                                      const std::vector<std::vector<int>> &up,
                                      const std::vector<std::vector<int>> &down, double nodeGap)
{
    const int layers = int(rows.size());
    std::vector<double> y(height.size(), 0);
    auto gapAfter = [&](int a, int b) {
        const bool dummyA = a >= n, dummyB = b >= n;
        const double g = dummyA && dummyB ? 6 : (dummyA || dummyB ? nodeGap * 0.6 : nodeGap);
        return 0.5 * height[size_t(a)] + g + 0.5 * height[size_t(b)];
    };
    for (auto &row : rows) {
        double at = 0;
        for (size_t k = 0; k < row.size(); ++k) {
            if (k > 0)
                at += gapAfter(row[k - 1], row[k]);
            y[size_t(row[k])] = at;
        }
    }
    for (int pass = 0; pass < 8; ++pass) {
        const bool forward = pass % 2 == 0;
        for (int step = 0; step < layers; ++step) {
            const int l = forward ? step : layers - 1 - step;
            const auto &row = rows[size_t(l)];
            std::vector<double> want(row.size()), weight(row.size()), gap(row.size(), 0);
            for (size_t k = 0; k < row.size(); ++k) {
                const int v = row[k];
                double sum = 0;
                int count = 0;
                for (const auto *nb : {&up[size_t(v)], &down[size_t(v)]})
                    for (int w : *nb) {
                        sum += y[size_t(w)];
                        ++count;
                    }
                want[k] = count ? sum / count : y[size_t(v)];
                weight[k] = v >= n ? 4.0 : (count ? 1.0 : 0.2); // dummies keep long edges straight
                if (k + 1 < row.size())
                    gap[k] = gapAfter(v, row[k + 1]);
            }
            const auto placed = place(want, weight, gap);
            for (size_t k = 0; k < row.size(); ++k)
                y[size_t(row[k])] = placed[k];
        }
    }
    return y;
}

// Step 1: the distinct edges (no self loops, no ends out of range), each input edge's index
// among them (-1: dropped), and the back edges of a DFS in the given order reversed so that
// the edges point one way (`dag`, in layer direction).
struct AcyclicEdges
{
    std::vector<std::pair<int, int>> edges;
    std::vector<int> edgeOf; // per input edge
    std::vector<bool> reversed;
    std::vector<std::pair<int, int>> dag; // per distinct edge
};

AcyclicEdges acyclicEdges(const std::vector<std::pair<int, int>> &input, int n)
{
    AcyclicEdges e;
    e.edgeOf.assign(input.size(), -1);
    std::map<std::pair<int, int>, int> seen;
    for (size_t i = 0; i < input.size(); ++i) {
        const auto [a, b] = input[i];
        if (a == b || a < 0 || b < 0 || a >= n || b >= n)
            continue;
        const auto [it, fresh] = seen.emplace(std::pair(a, b), int(e.edges.size()));
        if (fresh)
            e.edges.emplace_back(a, b);
        e.edgeOf[i] = it->second;
    }
    e.reversed.assign(e.edges.size(), false);
    Graph g(static_cast<size_t>(n));
    for (size_t i = 0; i < e.edges.size(); ++i)
        boost::add_edge(size_t(e.edges[i].first), size_t(e.edges[i].second), int(i), g);
    BackEdges visitor;
    visitor.reversed = &e.reversed;
    boost::depth_first_search(g, boost::visitor(visitor));
    // An edge a->b and b->a both present: after reversing, both point one way.
    for (size_t i = 0; i < e.edges.size(); ++i)
        e.dag.push_back(e.reversed[i] ? std::pair(e.edges[i].second, e.edges[i].first)
                                      : e.edges[i]);
    return e;
}

// Step 2: longest-path layers in topological order, then sources pulled next to their targets.
// The number of layers.
int assignLayers(int n, const std::vector<std::pair<int, int>> &dag, std::vector<int> &layer)
{
    std::vector<std::vector<int>> succ(static_cast<size_t>(n)), pred(static_cast<size_t>(n));
    for (const auto &[a, b] : dag) {
        succ[size_t(a)].push_back(b);
        pred[size_t(b)].push_back(a);
    }
    std::vector<int> order;
    Graph g(static_cast<size_t>(n));
    for (size_t i = 0; i < dag.size(); ++i)
        boost::add_edge(size_t(dag[i].first), size_t(dag[i].second), int(i), g);
    std::vector<size_t> topo;
    boost::topological_sort(g, std::back_inserter(topo)); // reverse topological order
    for (auto it = topo.rbegin(); it != topo.rend(); ++it)
        order.push_back(int(*it));
    for (int v : order)
        for (int w : succ[size_t(v)])
            layer[size_t(w)] = std::max(layer[size_t(w)], layer[size_t(v)] + 1);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int v = *it;
        if (pred[size_t(v)].empty() && !succ[size_t(v)].empty()) {
            int lowest = INT_MAX;
            for (int w : succ[size_t(v)])
                lowest = std::min(lowest, layer[size_t(w)]);
            layer[size_t(v)] = lowest - 1;
        }
    }
    return 1 + *std::max_element(layer.begin(), layer.end());
}

// Step 3: the graph with a dummy node (ids from n on) in each layer an edge crosses; each
// distinct edge's chain of nodes in layer direction, and every node's neighbours in the layer
// before and after.
struct ProperGraph
{
    std::vector<int> layerOf;
    std::vector<double> height;
    std::vector<double> key; // initial order within a layer
    std::vector<std::vector<int>> chains;
    std::vector<std::vector<int>> up, down;
    int dummies = 0;
};

ProperGraph insertDummies(const std::vector<QSizeF> &sizes, const std::vector<int> &layer,
                          const std::vector<std::pair<int, int>> &dag)
{
    const size_t n = sizes.size();
    ProperGraph pg;
    pg.layerOf.assign(layer.begin(), layer.end());
    pg.height.resize(n);
    for (size_t i = 0; i < n; ++i)
        pg.height[i] = sizes[i].height();
    pg.key.resize(n);
    std::iota(pg.key.begin(), pg.key.end(), 0.0);
    pg.chains.resize(dag.size());
    pg.up.resize(n);
    pg.down.resize(n);
    for (size_t i = 0; i < dag.size(); ++i) {
        const auto [a, b] = dag[i];
        std::vector<int> &chain = pg.chains[i];
        chain.push_back(a);
        for (int l = layer[size_t(a)] + 1; l < layer[size_t(b)]; ++l) {
            const int d = int(pg.layerOf.size());
            pg.layerOf.push_back(l);
            pg.height.push_back(2);
            // Right after its source in the initial order.
            pg.key.push_back(pg.key[size_t(a)] + 0.5 + 1e-6 * double(i));
            pg.up.emplace_back();
            pg.down.emplace_back();
            chain.push_back(d);
            ++pg.dummies;
        }
        chain.push_back(b);
        for (size_t k = 1; k < chain.size(); ++k) {
            pg.down[size_t(chain[k - 1])].push_back(chain[k]);
            pg.up[size_t(chain[k])].push_back(chain[k - 1]);
        }
    }
    return pg;
}

// Step 6: columns, and their wrapping (ELK's "graph wrapping"): a long, thin graph (a thread's
// operators one after the other) is cut into bands of consecutive layers stacked top to
// bottom, so it reads like lines of text instead of one strip 50,000 pixels wide.
class Bands
{
public:
    Bands(const GraphLayoutInput &input, const std::vector<int> &layer, int layers,
          const std::vector<double> &y, const std::vector<double> &height)
        : m_input(input), m_width(size_t(layers), 0), m_left(size_t(layers), 0)
    {
        const int n = int(input.sizes.size());
        for (int v = 0; v < n; ++v)
            m_width[size_t(layer[size_t(v)])] =
                std::max(m_width[size_t(layer[size_t(v)])], input.sizes[size_t(v)].width());
        for (int l = 0; l < layers; ++l) {
            m_width[size_t(l)] = std::max(m_width[size_t(l)], 12.0); // a layer of dummies only
            if (l > 0)
                m_left[size_t(l)] = m_left[size_t(l - 1)] + m_width[size_t(l - 1)] + input.layerGap;
        }
        double bottom = m_top = y.empty() ? 0 : y[0];
        for (size_t v = 0; v < y.size(); ++v) {
            m_top = std::min(m_top, y[v] - 0.5 * height[v]);
            bottom = std::max(bottom, y[v] + 0.5 * height[v]);
        }
        m_bandHeight = bottom - m_top;
        const double fullWidth = m_left.back() + m_width.back();
        // Bands start at these layers: the rows the caller asked for (one per iteration), or
        // equal cuts of a thin graph (few boxes per layer: cutting a wide one sends its many
        // long edges across the bands).
        m_start = {0};
        if (!input.rowStarts.empty()) {
            for (int v : input.rowStarts)
                if (v >= 0 && v < n && layer[size_t(v)] > 0)
                    m_start.push_back(layer[size_t(v)]);
            std::sort(m_start.begin(), m_start.end());
            m_start.erase(std::unique(m_start.begin(), m_start.end()), m_start.end());
        } else if (input.aspect > 0 && double(n) <= input.wrapBelow * double(layers) &&
                   fullWidth > input.aspect * 1.5 * (m_bandHeight + input.bandGap)) {
            const int bands = int(
                std::ceil(std::sqrt(fullWidth / (input.aspect * (m_bandHeight + input.bandGap)))));
            const int perBand = std::max(2, (layers + bands - 1) / bands);
            for (int l = perBand; l < layers; l += perBand)
                m_start.push_back(l);
        }
        m_right.assign(m_start.size(), 0);
        for (int l = 0; l < layers; ++l)
            m_right[size_t(band(l))] =
                std::max(m_right[size_t(band(l))], m_left[size_t(l)] + m_width[size_t(l)] -
                                                       m_left[size_t(m_start[size_t(band(l))])]);
    }
    int count() const { return int(m_start.size()); }
    int band(int l) const
    {
        return int(std::upper_bound(m_start.begin(), m_start.end(), l) - m_start.begin()) - 1;
    }
    double left(int l) const { return m_left[size_t(l)]; }
    double width(int l) const { return m_width[size_t(l)]; }
    // A point of the unwrapped layout, in layer l, where the wrapped one draws it.
    QPointF place(double x, double y, int l) const
    {
        const int b = band(l);
        return QPointF(x - m_left[size_t(m_start[size_t(b)])],
                       y - m_top + b * (m_bandHeight + m_input.bandGap));
    }
    // Out of band `from` on the right, back along the gap below it, into the next band at the
    // height of `to` (lane: a few pixels apart per edge); the bounds grow to hold the detour.
    void detour(std::vector<QPointF> &route, int from, double lane, const QPointF &to,
                QRectF &bounds) const
    {
        const double gapY =
            (from + 1) * (m_bandHeight + m_input.bandGap) - 0.5 * m_input.bandGap + lane;
        const double rightX = m_right[size_t(from)] + 0.5 * m_input.layerGap + lane;
        const QPointF p = route.back();
        route.emplace_back(rightX, p.y());
        route.emplace_back(rightX, gapY);
        route.emplace_back(-0.5 * m_input.layerGap - lane, gapY);
        route.emplace_back(-0.5 * m_input.layerGap - lane, to.y());
        bounds = bounds.united(
            QRectF(-0.5 * m_input.layerGap - lane, p.y(), rightX + m_input.layerGap, 1));
    }

private:
    const GraphLayoutInput &m_input;
    std::vector<double> m_width, m_left; // per layer
    std::vector<int> m_start;            // the first layer of each band
    std::vector<double> m_right;         // per band: its width
    double m_top = 0, m_bandHeight = 0;
};

// The route of distinct edge i along its chain: out of its source's right side, through its
// dummies, into its target's left side, wrapped with the bands.
std::vector<QPointF> routeChain(const GraphLayoutInput &input, const ProperGraph &pg,
                                const std::vector<double> &y, const Bands &bands, size_t i,
                                QRectF &bounds)
{
    const auto &chain = pg.chains[i];
    const auto &layer = pg.layerOf;
    std::vector<std::pair<QPointF, int>> r; // unwrapped point, its layer
    const int a = chain.front(), b = chain.back();
    const int la = layer[size_t(a)], lb = layer[size_t(b)];
    r.push_back({QPointF(bands.left(la) + 0.5 * (bands.width(la) + input.sizes[size_t(a)].width()),
                         y[size_t(a)]),
                 la});
    for (size_t k = 1; k + 1 < chain.size(); ++k) {
        const int d = chain[k];
        const int l = layer[size_t(d)];
        r.push_back({QPointF(bands.left(l), y[size_t(d)]), l});
        r.push_back({QPointF(bands.left(l) + bands.width(l), y[size_t(d)]), l});
    }
    r.push_back({QPointF(bands.left(lb) + 0.5 * (bands.width(lb) - input.sizes[size_t(b)].width()),
                         y[size_t(b)]),
                 lb});
    std::vector<QPointF> route;
    for (size_t k = 0; k < r.size(); ++k) {
        const QPointF q = bands.place(r[k].first.x(), r[k].first.y(), r[k].second);
        if (k > 0 && bands.band(r[k].second) != bands.band(r[k - 1].second))
            bands.detour(route, bands.band(r[k - 1].second), double(i % 7) * 3.0, q, bounds);
        route.push_back(q);
    }
    return route;
}

} // namespace

GraphLayoutResult layoutGraph(const GraphLayoutInput &input)
{
    GraphLayoutResult out;
    const int n = int(input.sizes.size());
    out.boxes.resize(size_t(n));
    out.routes.resize(input.edges.size());
    out.reversed.assign(input.edges.size(), false);
    out.layer.assign(size_t(n), 0);
    if (n == 0)
        return out;

    // 1. Distinct edges, then the back edges of a DFS in the given order.
    const AcyclicEdges edges = acyclicEdges(input.edges, n);
    // 2. Layers.
    const int layers = assignLayers(n, edges.dag, out.layer);
    out.layers = layers;
    // 3. Dummies.
    ProperGraph pg = insertDummies(input.sizes, out.layer, edges.dag);
    out.dummies = pg.dummies;
    // 4. Order within layers.
    std::vector<int> pos(pg.layerOf.size());
    std::vector<std::vector<int>> rows =
        orderWithinLayers(layers, pg.layerOf, pg.key, pg.up, pg.down, pos, &out.crossings);
    // 5. Vertical positions.
    const std::vector<double> y =
        verticalPositions(rows, n, pg.height, pg.up, pg.down, input.nodeGap);
    // 6. Columns, bands, boxes and routes.
    const Bands bands(input, out.layer, layers, y, pg.height);
    out.bands = bands.count();
    for (int v = 0; v < n; ++v) {
        const QSizeF s = input.sizes[size_t(v)];
        const int l = out.layer[size_t(v)];
        const QPointF c = bands.place(bands.left(l) + 0.5 * bands.width(l), y[size_t(v)], l);
        out.boxes[size_t(v)] =
            QRectF(c.x() - 0.5 * s.width(), c.y() - 0.5 * s.height(), s.width(), s.height());
        out.bounds = v == 0 ? out.boxes[0] : out.bounds.united(out.boxes[size_t(v)]);
    }
    std::vector<std::vector<QPointF>> dagRoutes(edges.dag.size());
    for (size_t i = 0; i < edges.dag.size(); ++i)
        dagRoutes[i] = routeChain(input, pg, y, bands, i, out.bounds);
    for (size_t i = 0; i < input.edges.size(); ++i) {
        const int e = edges.edgeOf[i];
        if (e < 0)
            continue;
        out.routes[i] = dagRoutes[size_t(e)];
        if (edges.reversed[size_t(e)]) {
            std::reverse(out.routes[i].begin(), out.routes[i].end());
            out.reversed[i] = true;
        }
    }
    return out;
}

} // namespace gml
