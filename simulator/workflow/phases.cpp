// SPDX-License-Identifier: GPL-3.0-or-later
// The phases of an iteration: what a reader calls data loading, forward, backward and
// optimizer, told from the names PyTorch, HTA-style record_function markers and the common
// training loops give their work.
#include "executionmodel.h"

#include <QRegularExpression>

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>

namespace gml::sim {

namespace {

enum class Phase : uint8_t { Data, Forward, Backward, Optimizer };

const char *phaseName(Phase p)
{
    static const char *names[] = {"data loading", "forward", "backward", "optimizer"};
    return names[int(p)];
}

// What a top-level piece of an iteration says it is; nullopt: nothing (an aten:: op, a
// kernel, a synchronize), so it belongs to the phase it runs in.
std::optional<Phase> phaseOfName(const QString &name)
{
    static const QRegularExpression data(
        QStringLiteral(R"(dataloader|data[ _]?load|^enumerate\(|^## data)"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression backward(
        QStringLiteral(R"(backward|^autograd::engine::evaluate_function)"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression optimizer(
        QStringLiteral(R"(^optimizer\.|optimizer|zero_grad|^aten::_foreach_|clip_grad)"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression forward(QStringLiteral(R"(\bforward\b|^nn\.Module: )"),
                                            QRegularExpression::CaseInsensitiveOption);
    // Backward first: "## backward ##" and "ConvolutionBackward0"; a forward() of a module
    // named like an optimizer is rare next to an optimizer's own "forward" nothing.
    if (backward.match(name).hasMatch())
        return Phase::Backward;
    if (data.match(name).hasMatch())
        return Phase::Data;
    if (optimizer.match(name).hasMatch())
        return Phase::Optimizer;
    if (forward.match(name).hasMatch())
        return Phase::Forward;
    return std::nullopt;
}

} // namespace

// An iteration's children, in start order, each get a phase: its own when its name says one;
// before anything says one, the first phase named (the allocations before the DataLoader are
// data loading's); before the first backward piece, forward (the loss, the input's copy to
// the device), unless a zero_grad came between the forward pass and it (then it is the
// backward call's own work); after it, the phase of the piece before that is not data
// loading. A run of
// children of one phase becomes one phase node. An iteration of one phase gets none: a single
// box would say nothing.
void ExecutionModel::addPhases(std::vector<int> &modelOf)
{
    // The iterations' children, grouped by iteration: (iteration, child) pairs (a vector per
    // node of a 1.8 M-node model was 44 MB of empty vectors).
    std::vector<std::pair<int, int>> pairs;
    for (size_t k = 0; k < m_nodes.size(); ++k) {
        const int p = m_nodes[k].parent;
        if (p >= 0 && m_nodes[size_t(p)].level == Level::Iteration)
            pairs.emplace_back(p, int(k));
    }
    if (pairs.empty())
        return;
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    bool added = false;
    std::vector<int> list;
    for (size_t from = 0; from < pairs.size();) {
        const size_t it = size_t(pairs[from].first);
        size_t to = from;
        list.clear();
        for (; to < pairs.size() && size_t(pairs[to].first) == it; ++to)
            list.push_back(pairs[to].second);
        from = to;
        if (list.size() < 2)
            continue;
        std::sort(list.begin(), list.end(), [&](int a, int b) {
            return std::tie(m_nodes[size_t(a)].start, a) < std::tie(m_nodes[size_t(b)].start, b);
        });
        std::vector<std::optional<Phase>> said(list.size());
        std::optional<Phase> first;
        std::optional<TimeNs> firstBackward;
        for (size_t k = 0; k < list.size(); ++k) {
            const ModelNode &n = m_nodes[size_t(list[k])];
            if (n.level != Level::GpuWork)
                said[k] = phaseOfName(n.name);
            if (said[k] && !first)
                first = said[k];
            if (said[k] == Phase::Backward && !firstBackward)
                firstBackward = n.start;
        }
        if (!first)
            continue;
        std::vector<Phase> phase(list.size());
        std::optional<Phase> current;
        bool named = false; // a child before this one said its phase
        bool sawForward = false;
        for (size_t k = 0; k < list.size(); ++k) {
            const ModelNode &n = m_nodes[size_t(list[k])];
            if (said[k]) {
                phase[k] = *said[k];
                if (*said[k] != Phase::Data)
                    current = said[k];
            } else if (!named) {
                phase[k] = *first == Phase::Backward ? Phase::Forward : *first;
            } else if (!firstBackward || n.start < *firstBackward) {
                // The loss.backward() call's own work (the gradient's seed) after a zero_grad
                // that followed the forward pass is the backward's.
                phase[k] = firstBackward && current == Phase::Optimizer && sawForward
                               ? Phase::Backward
                               : Phase::Forward;
            } else {
                phase[k] = current.value_or(Phase::Backward);
            }
            named = named || said[k].has_value();
            sawForward = sawForward || phase[k] == Phase::Forward;
            if (phase[k] != Phase::Data)
                current = phase[k];
        }
        std::vector<std::pair<size_t, size_t>> runs; // [from, to) in list
        for (size_t k = 0; k < list.size(); ++k)
            if (runs.empty() || phase[runs.back().first] != phase[k])
                runs.emplace_back(k, k + 1);
            else
                runs.back().second = k + 1;
        if (runs.size() < 2)
            continue;
        const ModelNode &iteration = m_nodes[it];
        const int rank = iteration.rank;
        for (const auto &[from, to] : runs) {
            const int node = add(Level::Phase, int(it), QLatin1String(phaseName(phase[from])), rank,
                                 m_nodes[size_t(list[from])].resource);
            for (size_t k = from; k < to; ++k)
                m_nodes[size_t(list[k])].parent = node;
        }
        added = true;
    }
    if (!added)
        return;
    // Parents first again: by depth, in the order built within a depth.
    std::vector<int> depth(m_nodes.size(), 0);
    std::function<int(int)> depthOf = [&](int k) -> int {
        if (depth[size_t(k)] > 0 || m_nodes[size_t(k)].parent < 0)
            return depth[size_t(k)];
        return depth[size_t(k)] = depthOf(m_nodes[size_t(k)].parent) + 1;
    };
    std::vector<int> order(m_nodes.size());
    std::iota(order.begin(), order.end(), 0);
    for (int k : order)
        depthOf(k);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return depth[size_t(a)] < depth[size_t(b)]; });
    std::vector<int> renumbered(m_nodes.size());
    for (size_t k = 0; k < order.size(); ++k)
        renumbered[size_t(order[k])] = int(k);
    // In place, cycle by cycle: position k takes old node order[k]. A second array of nodes
    // was the model's peak (277 MB for the 1 GB trace, issue 57: 1,094 MiB in all, 968 MiB
    // without it); at the price of about 10% of the model's build time, the misses of a
    // permutation in place. A cycle's positions are listed first (from `order` alone), so
    // that its moves fetch the nodes a few ahead.
    std::vector<char> placed(m_nodes.size(), 0);
    std::vector<size_t> cycle;
    constexpr size_t kAhead = 8;
    for (size_t start = 0; start < m_nodes.size(); ++start) {
        if (placed[start])
            continue;
        cycle.clear();
        for (size_t at = start; !placed[at]; at = size_t(order[at])) {
            placed[at] = 1;
            cycle.push_back(at);
        }
        if (cycle.size() < 2)
            continue;
        ModelNode held = std::move(m_nodes[cycle.front()]);
        for (size_t i = 0; i + 1 < cycle.size(); ++i) {
            if (i + kAhead < cycle.size())
                __builtin_prefetch(&m_nodes[cycle[i + kAhead]]);
            m_nodes[cycle[i]] = std::move(m_nodes[cycle[i + 1]]);
        }
        m_nodes[cycle.back()] = std::move(held);
    }
    for (ModelNode &n : m_nodes)
        if (n.parent >= 0)
            n.parent = renumbered[size_t(n.parent)];
    for (int &k : modelOf)
        if (k >= 0)
            k = renumbered[size_t(k)];
    for (int &k : m_ofGraphNode)
        if (k >= 0)
            k = renumbered[size_t(k)];
}

} // namespace gml::sim
