// SPDX-License-Identifier: GPL-3.0-or-later
// The strategy simulator's job graph: per worker and iteration the input pipeline, the layer
// passes on its GPU and its share of the strategy's communication, as a dependency graph with
// flows (replay.h, flownetwork.h), so the replay engine of the what-if panel schedules it.
#include "strategyinternal.h"

#include <QHash>

#include <algorithm>
#include <cmath>
#include <map>

namespace gml::sim::detail {

namespace {

class JobBuilder
{
public:
    JobBuilder(const SimConfig &cfg, SimResult &res)
        : m_cfg(cfg), m_cl(cfg.cluster), m_model(cfg.model), m_g(*res.graph), m_fs(*res.flows),
          m_res(res), m_measured(DeviceCatalog::builtin().device(cfg.model.measuredDevice))
    {
    }

    void build();

private:
    // Names, resources, nodes and flows.
    StringId name(const QString &n)
    {
        if (auto it = m_names.constFind(n); it != m_names.cend())
            return *it;
        const StringId id = m_g.syntheticName(n);
        m_names.insert(n, id);
        return id;
    }
    using Role = SimResult::Role;
    int resource(const QString &label, bool gpu, bool concurrent, int node, int worker, int server,
                 Role role)
    {
        Resource r;
        r.name = label;
        r.gpu = gpu;
        r.concurrent = concurrent;
        r.rank = worker;
        r.pid = QString::number(node);
        const int id = m_g.addResource(r);
        m_res.resources.push_back({node, worker, server, role});
        return id;
    }
    int node(int res, NodeKind kind, StringId nameId, TimeNs work, int iteration)
    {
        Node n;
        n.resource = res;
        n.kind = kind;
        n.name = nameId;
        n.work = work;
        const int id = m_g.appendNode(n);
        m_res.iterationOfNode.push_back(iteration);
        m_res.collectiveDone.push_back(-1);
        m_fs.flowOfNode.push_back(-1);
        return id;
    }
    int flow(int res, NodeKind kind, StringId nameId, double bytes, std::vector<int> path,
             TimeNs latency, int iteration)
    {
        const int id = node(res, kind, nameId, 0, iteration);
        m_fs.flowOfNode[size_t(id)] = int(m_fs.flows.size());
        m_fs.flows.push_back({bytes, latency, std::move(path)});
        return id;
    }
    int link(const QString &label, double gbps, int node)
    {
        m_fs.links.push_back({label, gbps}); // 1 GB/s is 1 byte/ns
        m_res.nodeOfLink.push_back(node);
        return int(m_fs.links.size()) - 1;
    }
    static TimeNs us(double micros) { return TimeNs(std::llround(1000 * micros)); }
    void after(int from, int to, EdgeKind kind = EdgeKind::Data)
    {
        m_g.addEdge({from, to, kind, true, false, 0});
    }
    void afterStart(int from, int to) { m_g.addEdge({from, to, EdgeKind::Data, false, false, 0}); }

    // Where things are.
    int nodeOf(int worker) const { return worker / m_cl.gpusPerNode; }
    // From one node to another: out of its interface, through the core, into the other's.
    void acrossNodes(std::vector<int> &path, int from, int to) const
    {
        path.push_back(m_nicUp[size_t(from)]);
        if (m_core >= 0)
            path.push_back(m_core);
        path.push_back(m_nicDown[size_t(to)]);
    }
    std::vector<int> gpuToGpu(int a, int b) const
    {
        if (nodeOf(a) == nodeOf(b))
            return {m_intraOut[size_t(a)], m_intraIn[size_t(b)]};
        std::vector<int> path;
        acrossNodes(path, nodeOf(a), nodeOf(b));
        return path;
    }
    TimeNs hopLatency(int a, int b) const
    {
        return us(nodeOf(a) == nodeOf(b) ? m_cl.intraLink.latencyUs : m_cl.network.latencyUs);
    }
    // A worker and a server: over the worker's PCIe link, across nodes unless they share one,
    // and through the server's memory (it copies the RPC's buffers into its variables).
    std::vector<int> gpuToServer(int w, int s) const
    {
        std::vector<int> path{m_hostUp[size_t(w)]};
        if (nodeOf(w) != m_serverNode[size_t(s)])
            acrossNodes(path, nodeOf(w), m_serverNode[size_t(s)]);
        path.push_back(m_serverMem[size_t(s)]);
        return path;
    }
    std::vector<int> serverToGpu(int s, int w) const
    {
        std::vector<int> path{m_serverMem[size_t(s)]};
        if (nodeOf(w) != m_serverNode[size_t(s)])
            acrossNodes(path, m_serverNode[size_t(s)], nodeOf(w));
        path.push_back(m_hostDown[size_t(w)]);
        return path;
    }
    TimeNs networkLatency(bool local) const
    {
        return us(local ? m_cl.hostLink.latencyUs : m_cl.network.latencyUs);
    }

    // Time of a layer pass on this cluster's GPU (roofline per part, plus kernel overheads).
    TimeNs passTime(const Layer &l, bool backward, int batch) const;
    // Every layer's forward and backward time at a batch (workers differ by one sample at most).
    struct PassTimes
    {
        std::vector<TimeNs> forward, backward;
    };
    const PassTimes &passTimes(int batch);
    TimeNs updateTime(qint64 params) const;

    void makeLinks();
    void makeBuckets();
    void allReduce(int iteration, int bucket, const std::vector<int> &ready);
    void parameterServerIteration(int iteration);

    const SimConfig &m_cfg;
    const SimCluster &m_cl;
    const LayerGraph &m_model;
    DependencyGraph &m_g;
    FlowSpec &m_fs;
    SimResult &m_res;
    QHash<QString, StringId> m_names;
    int m_workers = 1;
    std::vector<int> m_intraOut, m_intraIn, m_hostUp, m_hostDown, m_nicUp, m_nicDown,
        m_storageLocal, m_serverMem;
    std::vector<int> m_serverNode;
    int m_core = -1;
    int m_storageShared = -1;
    // Per worker: its resources.
    std::vector<int> m_compute, m_network, m_input, m_reader, m_copy;
    std::vector<int> m_serverRes;
    int m_barrier = -1;
    // Per worker, current iteration: node ids of the layer passes.
    std::vector<std::vector<int>> m_fwd, m_bwd;
    // Per worker, previous iteration: the nodes the next forward pass waits for, by layer (PS
    // pulls), and its first forward node (the prefetch bound).
    std::vector<std::vector<int>> m_pull;
    std::vector<int> m_firstForward;
    // Gradient buckets: closing layer (in backward order, its gradient completes the bucket)
    // and bytes.
    std::vector<std::pair<int, double>> m_buckets;
    std::vector<std::vector<int>> m_consumers;
    std::vector<int> m_serverOfLayer;
    const Device *m_measured;             // the device a measured layer graph ran on
    std::map<int, PassTimes> m_passTimes; // by batch
};

const JobBuilder::PassTimes &JobBuilder::passTimes(int batch)
{
    auto it = m_passTimes.find(batch);
    if (it != m_passTimes.end())
        return it->second;
    PassTimes t;
    for (const Layer &l : m_model.layers) {
        t.forward.push_back(passTime(l, false, batch));
        t.backward.push_back(passTime(l, true, batch));
    }
    return m_passTimes.emplace(batch, std::move(t)).first->second;
}

TimeNs JobBuilder::passTime(const Layer &l, bool backward, int batch) const
{
    const double mult = backward ? 2.0 : 1.0;
    const double peak = m_cl.gpu.fp32Tflops * 1e3 * m_cfg.computeEfficiency; // FLOP per ns
    const double bw = m_cl.gpu.memBwGBps * m_cfg.memoryEfficiency;           // bytes per ns
    if (l.forwardNs > 0 || l.backwardNs > 0) {
        // Measured: scale by batch, and by device for its compute-bound and memory-bound parts.
        double ratio = 1;
        if (m_measured && m_measured->fp32Tflops > 0 && m_measured->memBwGBps > 0)
            ratio = l.computeShare * m_measured->fp32Tflops / m_cl.gpu.fp32Tflops +
                    (1 - l.computeShare) * m_measured->memBwGBps / m_cl.gpu.memBwGBps;
        const double perSample =
            double(backward ? l.backwardNs : l.forwardNs) / std::max(1, m_model.measuredBatch);
        return TimeNs(std::llround(perSample * batch * ratio)) +
               (backward ? l.backwardGapNs : l.forwardGapNs);
    }
    const double compute = mult * batch * l.flops / peak;
    const double matMemory = mult * (batch * l.matBytes + 4.0 * double(l.params)) / bw;
    const double elementwise = mult * batch * l.elemBytes / bw;
    const double overhead = mult * l.kernels * double(m_cfg.kernelOverheadNs);
    return TimeNs(std::llround(std::max(compute, matMemory) + elementwise + overhead));
}

TimeNs JobBuilder::updateTime(qint64 params) const
{
    if (m_model.measuredUpdateNs > 0) {
        // As measured, scaled by memory bandwidth (an update is memory-bound).
        const double ratio = m_measured && m_measured->memBwGBps > 0
                                 ? m_measured->memBwGBps / m_cl.gpu.memBwGBps
                                 : 1;
        return TimeNs(std::llround(double(m_model.measuredUpdateNs) * ratio));
    }
    const double bw = m_cl.gpu.memBwGBps * m_cfg.memoryEfficiency;
    // A fused (multi-tensor) update: a few kernels per parameter group.
    return TimeNs(std::llround(double(params) * m_model.updateBytesPerParam() / bw +
                               4.0 * double(m_cfg.kernelOverheadNs)));
}

void JobBuilder::makeLinks()
{
    const int nodes = (m_workers + m_cl.gpusPerNode - 1) / m_cl.gpusPerNode;
    const int serverNodes =
        m_cfg.strategy == Strategy::ParameterServer ? std::min(m_cfg.servers, m_cl.nodes) : 0;
    const int usedNodes = std::max(nodes, serverNodes);
    // GPUs behind one PCIe switch share its uplink to the host (DGX-1: two per switch).
    const int perSwitch = std::max(1, m_cl.gpusPerHostLink);
    int upLink = -1, downLink = -1;
    for (int w = 0; w < m_workers; ++w) {
        const int local = w % m_cl.gpusPerNode;
        const QString gpu = QStringLiteral("node%1/gpu%2").arg(nodeOf(w)).arg(local);
        m_intraOut.push_back(
            link(gpu + QStringLiteral(" ") + m_cl.intraLink.name + QStringLiteral(" out"),
                 m_cl.intraLink.bwGBps, nodeOf(w)));
        m_intraIn.push_back(
            link(gpu + QStringLiteral(" ") + m_cl.intraLink.name + QStringLiteral(" in"),
                 m_cl.intraLink.bwGBps, nodeOf(w)));
        if (local % perSwitch == 0) {
            const QString group = perSwitch == 1
                                      ? gpu
                                      : QStringLiteral("node%1/gpu%2-%3")
                                            .arg(nodeOf(w))
                                            .arg(local)
                                            .arg(std::min(local + perSwitch, m_cl.gpusPerNode) - 1);
            upLink =
                link(group + QStringLiteral(" ") + m_cl.hostLink.name + QStringLiteral(" to host"),
                     m_cl.hostLink.bwGBps, nodeOf(w));
            downLink = link(group + QStringLiteral(" ") + m_cl.hostLink.name +
                                QStringLiteral(" from host"),
                            m_cl.hostLink.bwGBps, nodeOf(w));
        }
        m_hostUp.push_back(upLink);
        m_hostDown.push_back(downLink);
    }
    for (int n = 0; n < usedNodes; ++n) {
        m_nicUp.push_back(link(QStringLiteral("node%1 %2 out").arg(n).arg(m_cl.network.name),
                               m_cl.network.bwGBps, n));
        m_nicDown.push_back(link(QStringLiteral("node%1 %2 in").arg(n).arg(m_cl.network.name),
                                 m_cl.network.bwGBps, n));
        if (!m_cl.storage.shared)
            m_storageLocal.push_back(link(QStringLiteral("node%1 %2").arg(n).arg(m_cl.storage.name),
                                          m_cl.storage.readGBps, n));
    }
    if (m_cl.oversubscription > 1 && usedNodes > 1)
        m_core =
            link(QStringLiteral("network core (%1:1 oversubscribed)").arg(m_cl.oversubscription),
                 usedNodes * m_cl.network.bwGBps / m_cl.oversubscription, -1);
    if (m_cl.storage.shared)
        m_storageShared = link(m_cl.storage.name, m_cl.storage.readGBps, -1);
    for (int s = 0; m_cfg.strategy == Strategy::ParameterServer && s < m_cfg.servers; ++s) {
        const int n = s % m_cl.nodes;
        m_serverNode.push_back(n);
        m_res.serverMemory.emplace_back(int(m_fs.links.size()), n);
        m_serverMem.push_back(
            link(QStringLiteral("server%1 memory (node%2 %3)").arg(s).arg(n).arg(m_cl.cpu.name),
                 m_cl.cpu.memBwGBps * m_cfg.memoryEfficiency, n));
    }
}

void JobBuilder::makeBuckets()
{
    // Gradients complete in backward order; a bucket goes once it holds bucketMB (DDP).
    const double cap = m_cfg.strategy == Strategy::Mirrored ? 1e300 : m_cfg.bucketMB * 1e6;
    double bytes = 0;
    for (int l = int(m_model.layers.size()) - 1; l >= 0; --l) {
        bytes += 4.0 * double(m_model.layers[size_t(l)].params);
        if (bytes >= cap || (l == 0 && bytes > 0)) {
            m_buckets.emplace_back(l, bytes);
            bytes = 0;
        }
    }
}

// One all-reduce of a bucket across every worker: all join (a barrier), the bytes move as one
// flow per worker (ring: to the next worker, 2(N-1)/N of the bucket; tree: intra-node ring and
// two binary trees over the nodes, half the bucket each way), and all leave together.
void JobBuilder::allReduce(int iteration, int bucket, const std::vector<int> &ready)
{
    const int n = m_workers;
    const double bytes = m_buckets[size_t(bucket)].second;
    const StringId barrierName = name(QStringLiteral("all-reduce join"));
    const StringId leaveName = name(QStringLiteral("all-reduce done"));
    const int in = node(m_barrier, NodeKind::Cpu, barrierName, 0, iteration);
    for (int w = 0; w < n; ++w)
        after(ready[size_t(w)], in, EdgeKind::Collective);
    const int out = node(m_barrier, NodeKind::Cpu, leaveName, 0, iteration);
    const StringId flowName =
        name(QStringLiteral("ncclAllReduce bucket %1 (%2)").arg(bucket).arg(m_cfg.allReduce));
    auto addFlow = [&](int from, std::vector<int> path, double b, TimeNs latency) {
        const int f = flow(m_network[size_t(from)], NodeKind::Collective, flowName, b,
                           std::move(path), latency, iteration);
        after(in, f, EdgeKind::Collective);
        after(f, out, EdgeKind::Collective);
        m_res.collectiveDone[size_t(f)] = out;
    };
    const bool tree = m_cfg.allReduce == QLatin1String("tree") && n > m_cl.gpusPerNode;
    if (!tree) {
        TimeNs hop = 0;
        for (int w = 0; w < n; ++w)
            hop = std::max(hop, hopLatency(w, (w + 1) % n));
        const TimeNs latency = TimeNs(2 * (n - 1)) * hop;
        for (int w = 0; w < n; ++w)
            addFlow(w, gpuToGpu(w, (w + 1) % n), 2.0 * (n - 1) / n * bytes, latency);
    } else {
        const int nodes = (n + m_cl.gpusPerNode - 1) / m_cl.gpusPerNode;
        const int depth = int(std::ceil(std::log2(double(nodes))));
        const TimeNs netLat = us(m_cl.network.latencyUs);
        const TimeNs intraLat = us(m_cl.intraLink.latencyUs);
        const TimeNs latency = 2 * depth * netLat + 2 * (m_cl.gpusPerNode - 1) * intraLat;
        // Within each node: a ring over its GPUs.
        for (int node = 0; node < nodes; ++node) {
            const int first = node * m_cl.gpusPerNode;
            const int local = std::min(m_cl.gpusPerNode, n - first);
            for (int k = 0; local > 1 && k < local; ++k)
                addFlow(first + k, gpuToGpu(first + k, first + (k + 1) % local),
                        2.0 * (local - 1) / local * bytes, latency);
        }
        // Across nodes: two binary trees (the second mirrored), each carrying half, up and down.
        const int lead = m_cl.gpusPerNode;
        for (int t = 0; t < 2; ++t)
            for (int c = 1; c < nodes; ++c) {
                int child = c, parent = (c - 1) / 2;
                if (t == 1) {
                    child = nodes - 1 - c;
                    parent = nodes - 1 - (c - 1) / 2;
                }
                addFlow(child * lead, gpuToGpu(child * lead, parent * lead), bytes / 2, latency);
                addFlow(parent * lead, gpuToGpu(parent * lead, child * lead), bytes / 2, latency);
            }
    }
}

void JobBuilder::parameterServerIteration(int iteration)
{
    const int n = m_workers;
    const auto &layers = m_model.layers;
    for (int l = int(layers.size()) - 1; l >= 0; --l) {
        const qint64 params = layers[size_t(l)].params;
        if (!params)
            continue;
        const int s = m_serverOfLayer[size_t(l)];
        const double bytes = 4.0 * double(params);
        const StringId pushName = name(QStringLiteral("push %1").arg(layers[size_t(l)].name));
        const StringId pullName = name(QStringLiteral("pull %1").arg(layers[size_t(l)].name));
        const StringId updateName = name(QStringLiteral("apply %1").arg(layers[size_t(l)].name));
        std::vector<int> pushes(static_cast<size_t>(n));
        for (int w = 0; w < n; ++w) {
            const bool local = nodeOf(w) == m_serverNode[size_t(s)];
            pushes[size_t(w)] = flow(m_network[size_t(w)], NodeKind::Collective, pushName, bytes,
                                     gpuToServer(w, s), networkLatency(local), iteration);
            after(m_bwd[size_t(w)][size_t(l)], pushes[size_t(w)]);
        }
        auto pullTo = [&](int w, int update) {
            const bool local = nodeOf(w) == m_serverNode[size_t(s)];
            const int pull = flow(m_network[size_t(w)], NodeKind::Collective, pullName, bytes,
                                  serverToGpu(s, w), networkLatency(local), iteration);
            after(update, pull);
            m_pull[size_t(w)][size_t(l)] = pull;
        };
        if (m_cfg.asyncUpdates) {
            // Each worker's gradient is applied on arrival; it pulls the weights that result.
            for (int w = 0; w < n; ++w) {
                const int update = flow(m_serverRes[size_t(s)], NodeKind::Kernel, updateName,
                                        double(params) * m_model.updateBytesPerParam(),
                                        {m_serverMem[size_t(s)]}, 0, iteration);
                after(pushes[size_t(w)], update);
                pullTo(w, update);
            }
        } else {
            // The shard sums every worker's gradient, then updates once.
            const int update = flow(m_serverRes[size_t(s)], NodeKind::Kernel, updateName,
                                    double(params) * (4.0 * n + m_model.updateBytesPerParam()),
                                    {m_serverMem[size_t(s)]}, 0, iteration);
            for (int w = 0; w < n; ++w)
                after(pushes[size_t(w)], update);
            for (int w = 0; w < n; ++w)
                pullTo(w, update);
        }
    }
}

void JobBuilder::build()
{
    m_workers = m_cfg.workers;
    const int n = m_workers;
    const auto &layers = m_model.layers;
    const int count = int(layers.size());
    makeLinks();
    makeBuckets();
    m_consumers.assign(size_t(count), {});
    for (int l = 0; l < count; ++l)
        for (int i : layers[size_t(l)].inputs)
            m_consumers[size_t(i)].push_back(l);
    if (m_cfg.strategy == Strategy::ParameterServer) {
        // Variables go to the shards round-robin (TensorFlow's replica_device_setter).
        m_serverOfLayer.assign(size_t(count), 0);
        int next = 0;
        for (int l = 0; l < count; ++l)
            if (layers[size_t(l)].params)
                m_serverOfLayer[size_t(l)] = next++ % m_cfg.servers;
    }
    // Resources.
    for (int w = 0; w < n; ++w) {
        const int host = nodeOf(w);
        const QString gpu = QStringLiteral("worker %1 (node%2/gpu%3 %4)")
                                .arg(w)
                                .arg(host)
                                .arg(w % m_cl.gpusPerNode)
                                .arg(m_cl.gpu.id);
        m_compute.push_back(
            resource(gpu + QStringLiteral(" compute"), true, false, host, w, -1, Role::Compute));
        m_copy.push_back(resource(gpu + QStringLiteral(" host to device"), true, false, host, w, -1,
                                  Role::Copy));
        if (!m_cfg.syntheticData) {
            m_reader.push_back(resource(gpu + QStringLiteral(" storage reads"), false, false, host,
                                        w, -1, Role::Reader));
            m_input.push_back(resource(gpu + QStringLiteral(" input pipeline"), false, false, host,
                                       w, -1, Role::Input));
        }
        m_network.push_back(
            resource(gpu + QStringLiteral(" network"), false, true, host, w, -1, Role::Network));
    }
    for (int s = 0; s < int(m_serverMem.size()); ++s)
        m_serverRes.push_back(resource(QStringLiteral("parameter server %1 (node%2 %3)")
                                           .arg(s)
                                           .arg(m_serverNode[size_t(s)])
                                           .arg(m_cl.cpu.id),
                                       false, true, m_serverNode[size_t(s)], -1, s, Role::Server));
    // All-reduces only where there are gradients: a model without parameters (a run of
    // inference, made into a model by modelfromrun.cpp) has no bucket, and no barrier to leave.
    const bool collective =
        n > 1 && !m_buckets.empty() &&
        (m_cfg.strategy == Strategy::Mirrored || m_cfg.strategy == Strategy::MultiWorker);
    if (collective)
        m_barrier = resource(QStringLiteral("collectives"), false, false, 0, -1, -1, Role::Barrier);
    // Names, once.
    std::vector<StringId> fwdName(static_cast<size_t>(count)), bwdName(static_cast<size_t>(count));
    for (int l = 0; l < count; ++l) {
        fwdName[size_t(l)] = name(layers[size_t(l)].name + QStringLiteral(" forward"));
        bwdName[size_t(l)] = name(layers[size_t(l)].name + QStringLiteral(" backward"));
    }
    const StringId readName = name(QStringLiteral("read batch"));
    const StringId decodeName = name(QStringLiteral("decode and augment"));
    const StringId copyName = name(QStringLiteral("Memcpy HtoD (batch)"));
    const StringId updateName =
        name(QStringLiteral("optimizer update (%1)").arg(m_model.optimizer));
    // Cores per worker for decoding: the node's cores shared by its workers.
    const int perNode = std::min(n, m_cl.gpusPerNode);
    const double cores = std::max(1.0, double(m_cl.cpu.cores) * m_cl.cpusPerNode / perNode);
    m_fwd.assign(size_t(n), std::vector<int>(size_t(count), -1));
    m_bwd.assign(size_t(n), std::vector<int>(size_t(count), -1));
    m_pull.assign(size_t(n), std::vector<int>(size_t(count), -1));
    m_firstForward.assign(size_t(n), -1);
    const TimeNs update = updateTime(m_model.params());
    for (int it = 0; it < m_cfg.iterations; ++it) {
        for (int w = 0; w < n; ++w) {
            const int batch = m_cfg.batchOf(w);
            const PassTimes &times = passTimes(batch);
            const int host = nodeOf(w);
            // Input: read, decode, copy, each stage a pipeline of its own; a batch is read
            // ahead while the previous one computes. Synthetic data: none of it.
            int copy = -1;
            if (!m_cfg.syntheticData) {
                const double readBytes = batch * m_model.sampleBytes;
                const int read = flow(
                    m_reader[size_t(w)], NodeKind::Memcpy, readName, readBytes,
                    m_cl.storage.shared ? std::vector<int>{m_storageShared, m_nicDown[size_t(host)]}
                                        : std::vector<int>{m_storageLocal[size_t(host)]},
                    m_cl.storage.shared ? networkLatency(false) : 0, it);
                if (m_firstForward[size_t(w)] >= 0)
                    afterStart(m_firstForward[size_t(w)], read);
                const int decode =
                    node(m_input[size_t(w)], NodeKind::Cpu, decodeName,
                         TimeNs(std::llround(batch * m_model.preprocessNs / cores)), it);
                after(read, decode);
                copy =
                    flow(m_copy[size_t(w)], NodeKind::Memcpy, copyName, batch * m_model.inputBytes,
                         {m_hostDown[size_t(w)]}, us(m_cl.hostLink.latencyUs), it);
                after(decode, copy);
            }
            // Forward, in depth-first order.
            auto &fwd = m_fwd[size_t(w)];
            for (int l = 0; l < count; ++l) {
                const int f = node(m_compute[size_t(w)], NodeKind::Kernel, fwdName[size_t(l)],
                                   times.forward[size_t(l)], it);
                fwd[size_t(l)] = f;
                if (layers[size_t(l)].inputs.empty() && copy >= 0)
                    after(copy, f);
                for (int i : layers[size_t(l)].inputs)
                    after(fwd[size_t(i)], f);
                if (m_pull[size_t(w)][size_t(l)] >= 0)
                    after(m_pull[size_t(w)][size_t(l)], f);
            }
            m_firstForward[size_t(w)] = fwd.front();
            // Backward, in reverse.
            auto &bwd = m_bwd[size_t(w)];
            for (int l = count - 1; l >= 0; --l) {
                const int b = node(m_compute[size_t(w)], NodeKind::Kernel, bwdName[size_t(l)],
                                   times.backward[size_t(l)], it);
                bwd[size_t(l)] = b;
                for (int c : m_consumers[size_t(l)])
                    after(bwd[size_t(c)], b);
                if (l == count - 1)
                    after(fwd[size_t(l)], b);
            }
        }
        // Gradients.
        if (m_cfg.strategy == Strategy::ParameterServer) {
            parameterServerIteration(it);
            continue;
        }
        if (collective) {
            std::vector<int> ready(static_cast<size_t>(n));
            for (int b = 0; b < int(m_buckets.size()); ++b) {
                for (int w = 0; w < n; ++w)
                    ready[size_t(w)] = m_bwd[size_t(w)][size_t(m_buckets[size_t(b)].first)];
                allReduce(it, b, ready);
            }
        }
        const int leave = collective ? m_g.resources()[size_t(m_barrier)].nodes.back() : -1;
        for (int w = 0; w < n; ++w) {
            const int u = node(m_compute[size_t(w)], NodeKind::Kernel, updateName, update, it);
            if (leave >= 0)
                after(leave, u, EdgeKind::Collective);
        }
    }
}

} // namespace

void buildJob(const SimConfig &config, SimResult &result)
{
    result.graph = std::make_shared<DependencyGraph>();
    result.flows = std::make_shared<FlowSpec>();
    JobBuilder(config, result).build();
    result.graph->reorder();
}

} // namespace gml::sim::detail
