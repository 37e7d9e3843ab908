// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakragraph.h"

#include <QJsonArray>

#include <algorithm>
#include <map>

namespace gml::chakragraph {

namespace {

// The operator a node stands for: itself, or for GPU work the operator it depends on.
const Node *operatorOf(const std::vector<Node> &nodes,
                       const std::unordered_map<quint64, size_t> &byId, quint64 id)
{
    auto it = byId.find(id);
    if (it == byId.end())
        return nullptr;
    const Node &n = nodes[it->second];
    if (isOperator(n))
        return &n;
    if (!n.cpu)
        for (quint64 d : n.data) {
            auto j = byId.find(d);
            if (j != byId.end() && isOperator(nodes[j->second]))
                return &nodes[j->second];
        }
    return nullptr;
}

// A warning for the nodes on a data cycle, else for those on a control cycle.
void warnCycles(const std::vector<Node> &nodes, const std::vector<char> &dataCycle,
                const std::vector<char> &anyCycle, WarningLog &warnings)
{
    for (const auto *cycle : {&dataCycle, &anyCycle}) {
        const qint64 count = std::count(cycle->begin(), cycle->end(), 1);
        if (count == 0 ||
            (cycle == &anyCycle && std::count(dataCycle.begin(), dataCycle.end(), 1) > 0))
            continue;
        const Node &first =
            nodes[size_t(std::find(cycle->begin(), cycle->end(), 1) - cycle->begin())];
        warnings.add(
            QStringLiteral("cycle"), first.at,
            QStringLiteral(
                "%1 nodes are on a cycle of %2 dependencies or wait for one (the first in the "
                "file: node %3); a Chakra trace is a graph without cycles, so the %4 edges "
                "among them are not stored")
                .arg(count)
                .arg(cycle == &dataCycle ? QStringLiteral("data") : QStringLiteral("control"))
                .arg(first.id)
                .arg(cycle == &dataCycle ? QStringLiteral("data and control")
                                         : QStringLiteral("control")));
    }
}

} // namespace

std::vector<char> nodesOnCycles(const std::vector<Node> &nodes,
                                const std::unordered_map<quint64, size_t> &byId, bool control)
{
    std::vector<int> pending(nodes.size(), 0);
    std::vector<std::vector<size_t>> dependents(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i)
        for (const auto *deps : {&nodes[i].data, &nodes[i].ctrl}) {
            if (deps == &nodes[i].ctrl && !control)
                continue;
            for (quint64 d : *deps) {
                auto it = byId.find(d);
                if (it == byId.end())
                    continue;
                if (it->second == i)
                    continue; // counted below
                ++pending[i];
                dependents[it->second].push_back(i);
            }
        }
    std::vector<size_t> ready;
    for (size_t i = 0; i < nodes.size(); ++i)
        if (pending[i] == 0)
            ready.push_back(i);
    while (!ready.empty()) {
        const size_t i = ready.back();
        ready.pop_back();
        for (size_t j : dependents[i])
            if (--pending[j] == 0)
                ready.push_back(j);
    }
    std::vector<char> left(nodes.size(), 0);
    for (size_t i = 0; i < nodes.size(); ++i)
        left[i] = pending[i] > 0;
    return left;
}

Dependencies dependencies(const std::vector<Node> &nodes,
                          const std::unordered_map<quint64, size_t> &byId, WarningLog &warnings)
{
    Dependencies out;
    for (const Node &n : nodes) {
        out.selfData += std::count(n.data.begin(), n.data.end(), n.id);
        out.selfCtrl += std::count(n.ctrl.begin(), n.ctrl.end(), n.id);
    }
    const std::vector<char> dataCycle = nodesOnCycles(nodes, byId, false),
                            anyCycle = nodesOnCycles(nodes, byId, true);
    warnCycles(nodes, dataCycle, anyCycle, warnings);
    auto on = [&](const std::vector<char> &cycle, const Node *n) {
        return cycle[size_t(n - nodes.data())] != 0;
    };
    for (const Node &n : nodes) {
        const Node *to = operatorOf(nodes, byId, n.id);
        for (quint64 d : n.data) {
            ++out.dataDeps;
            if (!byId.count(d)) {
                ++out.missingDeps;
                continue;
            }
            const Node *from = operatorOf(nodes, byId, d);
            if (from && to && from != to &&
                !(on(dataCycle, &n) && on(dataCycle, &nodes[byId.at(d)])))
                out.data.insert({from, to});
        }
        for (quint64 d : n.ctrl) {
            ++out.ctrlDeps;
            auto it = byId.find(d);
            if (it == byId.end())
                continue; // the converter's root node, not written
            if (isOperator(n) && isOperator(nodes[it->second]) && &nodes[it->second] != &n &&
                !(on(anyCycle, &n) && on(anyCycle, &nodes[it->second])))
                out.ctrl.insert({&nodes[it->second], &n});
        }
    }
    return out;
}

void insertCensus(QJsonObject &meta, const std::vector<Node> &nodes, qint64 operators)
{
    quint64 cpuUs = 0, gpuUs = 0, commUs = 0;
    std::map<QString, std::pair<qint64, qint64>> collectives; // type -> (count, bytes)
    std::map<QString, qint64> collectiveCalls;                // CPU call name -> count
    std::set<qint64> collectiveCallIds;
    std::map<int, qint64> byType;
    qint64 gpuNodes = 0;
    for (const Node &n : nodes) {
        ++byType[n.type];
        (n.cpu ? cpuUs : gpuUs) += n.duration;
        gpuNodes += n.cpu ? 0 : 1;
        if (n.type >= 5 && n.type <= 7) {
            commUs += n.duration;
            // The node that carries the collective's type and size (the converter's GPU side);
            // the CPU calls (c10d::allreduce_) without them are counted by name, once per call.
            if (n.type != 7 || n.commType >= 0) {
                const QString type = n.type != 7 ? QLatin1String(kNodeTypes[n.type])
                                     : n.commType < qint64(std::size(kCollectives))
                                         ? QLatin1String(kCollectives[n.commType])
                                         : QStringLiteral("collective type %1").arg(n.commType);
                auto &c = collectives[type];
                ++c.first;
                c.second += std::max<qint64>(0, n.commSize);
            } else if (n.rfId < 0 || collectiveCallIds.insert(n.rfId).second) {
                ++collectiveCalls[n.name];
            }
        }
    }
    meta.insert(QStringLiteral("nodes"), qint64(nodes.size()));
    QJsonObject types;
    for (const auto &[type, count] : byType)
        types.insert(type >= 0 && type < int(std::size(kNodeTypes))
                         ? QLatin1String(kNodeTypes[type])
                         : QStringLiteral("type %1").arg(type),
                     count);
    meta.insert(QStringLiteral("node_types"), types);
    meta.insert(QStringLiteral("gpu_nodes"), gpuNodes);
    meta.insert(QStringLiteral("operators"), operators);
    meta.insert(QStringLiteral("cpu_time_us"), qint64(cpuUs));
    meta.insert(QStringLiteral("gpu_time_us"), qint64(gpuUs));
    meta.insert(QStringLiteral("communication_time_us"), qint64(commUs));
    QJsonArray comms;
    for (const auto &[type, c] : collectives)
        comms.append(QJsonObject{{QStringLiteral("type"), type},
                                 {QStringLiteral("count"), c.first},
                                 {QStringLiteral("bytes"), c.second}});
    meta.insert(QStringLiteral("collectives"), comms);
    QJsonObject calls;
    for (const auto &[name, count] : collectiveCalls)
        calls.insert(name, count);
    if (!calls.isEmpty())
        meta.insert(QStringLiteral("collective_calls"), calls);
}

} // namespace gml::chakragraph
