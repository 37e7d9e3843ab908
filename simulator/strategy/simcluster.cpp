// SPDX-License-Identifier: GPL-3.0-or-later
#include "simcluster.h"

#include "smallinput.h"

#include "jsonfields.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <cmath>

namespace gml::sim {

namespace {

// What a cluster file may declare (docs/simulator.md).
constexpr qint64 kMaxClusterNodes = 1'000'000; // nodes, and GPUs in all
constexpr qint64 kMaxPerNode = 1024;           // GPUs, CPUs, GPUs behind one PCIe switch
constexpr double kMinGBps = 1e-3;              // 1 MB/s
constexpr double kMaxGBps = 1e6;               // 1 PB/s
constexpr double kMaxLatencyUs = 1e6;          // 1 s a message
constexpr double kMaxOversubscription = 1e3;

} // namespace

namespace {

struct Preset
{
    const char *name;
    const char *json;
};

// DGX-1: 8 V100 on NVLink 2, two Xeons, local NVMe. DGX A100: 8 A100 on NVLink 3 (NVSwitch),
// two EPYC 7742. A 12-node cluster of 4 V100 per node on EDR InfiniBand with Lustre, and a
// 9-node cluster with one GPU per node on 25 GbE, as the thesis's experiments use.
const Preset kPresets[] = {
    {"dgx1",
     R"J({"name": "DGX-1 (8x V100, NVLink 2)", "nodes": 1, "gpu": "V100", "gpus_per_node": 8,
                 "cpu": "xeon-6148", "cpus_per_node": 2, "intra_link": "nvlink2", "network": "ib-edr",
                 "storage": "nvme", "gpus_per_pcie_switch": 2})J"},
    {"dgx-a100",
     R"J({"name": "DGX A100 (8x A100, NVLink 3)", "nodes": 1, "gpu": "A100", "gpus_per_node": 8,
                     "cpu": "epyc-7742", "cpus_per_node": 2, "intra_link": "nvlink3", "network": "ib-hdr",
                     "storage": "nvme"})J"},
    {"12x4-v100-edr", R"J({"name": "12 nodes x 4 V100, EDR InfiniBand", "nodes": 12, "gpu": "V100",
                          "gpus_per_node": 4, "cpu": "xeon-6148", "cpus_per_node": 2, "intra_link": "nvlink2",
                          "network": "ib-edr", "storage": "lustre"})J"},
    {"9x1-v100-25gbe",
     R"J({"name": "9 nodes x 1 V100, 25 GbE", "nodes": 9, "gpu": "V100", "gpus_per_node": 1,
                           "cpu": "xeon-6148", "cpus_per_node": 2, "intra_link": "pcie3", "network": "eth25",
                           "storage": "nfs"})J"},
};

} // namespace

QStringList SimCluster::presets()
{
    QStringList out;
    for (const Preset &p : kPresets)
        out << QString::fromLatin1(p.name);
    return out;
}

std::optional<SimCluster> SimCluster::load(const QString &presetOrFile, QString *error)
{
    for (const Preset &p : kPresets)
        if (presetOrFile.compare(QLatin1String(p.name), Qt::CaseInsensitive) == 0) {
            auto c = fromJson(QJsonDocument::fromJson(QByteArray(p.json)).object(),
                              QStringLiteral("preset %1").arg(QLatin1String(p.name)), error);
            if (c)
                c->id = QLatin1String(p.name);
            return c;
        }
    if (!QFileInfo::exists(presetOrFile)) {
        if (error)
            *error =
                QStringLiteral("'%1' is neither a cluster preset (%2) nor a readable JSON file")
                    .arg(presetOrFile, presets().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    QString why;
    const auto bytes = readSmallInput(presetOrFile, QStringLiteral("a cluster file"), &why);
    if (!bytes) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(*bytes, &parse);
    if (parse.error != QJsonParseError::NoError || !doc.isObject()) {
        if (error)
            *error = parse.error != QJsonParseError::NoError
                         ? QStringLiteral("%1: byte %2: %3")
                               .arg(presetOrFile)
                               .arg(parse.offset)
                               .arg(parse.errorString())
                         : QStringLiteral("%1: expected a JSON object describing a cluster")
                               .arg(presetOrFile);
        return std::nullopt;
    }
    auto c = fromJson(doc.object(), presetOrFile, error);
    if (c)
        c->id = QFileInfo(presetOrFile).completeBaseName();
    return c;
}

std::optional<SimCluster> SimCluster::fromJson(const QJsonObject &o, const QString &origin,
                                               QString *error)
{
    const DeviceCatalog &cat = DeviceCatalog::builtin();
    // Keys are checked like a what-if transform's: an unknown one is a typo, a value of the
    // wrong type or out of range an error naming the key. The ranges keep every simulated time
    // far inside what a project holds (docs/simulator.md).
    JsonFields f(o, QString());
    f.onlyKnown({"id", "name", "nodes", "gpu", "gpus_per_node", "cpu", "cpus_per_node",
                 "gpus_per_pcie_switch", "intra_link", "intra_gbps", "host_link", "host_gbps",
                 "network", "network_gbps", "network_latency_us", "oversubscription", "storage",
                 "storage_gbps"});
    auto fail = [&](const QString &why) -> std::optional<SimCluster> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(origin, why);
        return std::nullopt;
    };
    SimCluster c;
    c.name = f.string("name", origin);
    c.id = f.string("id", QStringLiteral("custom"));
    c.nodes = int(f.integer("nodes", 1, 1, kMaxClusterNodes));
    c.gpusPerNode = int(f.integer("gpus_per_node", 1, 1, kMaxPerNode));
    c.cpusPerNode = int(f.integer("cpus_per_node", 2, 1, kMaxPerNode));
    c.gpusPerHostLink = int(f.integer("gpus_per_pcie_switch", 1, 1, kMaxPerNode));
    const QString gpu = f.string("gpu");
    const QString cpuId = f.string("cpu", QStringLiteral("xeon-6148"));
    const QString storageId = f.string("storage", QStringLiteral("nvme"));
    if (!f.ok())
        return fail(f.error());
    if (qint64(c.nodes) * c.gpusPerNode > kMaxClusterNodes)
        return fail(QStringLiteral("%1 nodes of %2 GPUs: at most %3 GPUs in all")
                        .arg(c.nodes)
                        .arg(c.gpusPerNode)
                        .arg(kMaxClusterNodes));
    const Device *d = cat.device(gpu);
    if (gpu.isEmpty() || !d)
        return fail(QStringLiteral("\"gpu\": '%1' is not in the device catalog (%2)")
                        .arg(gpu, cat.deviceIds()));
    c.gpu = *d;
    const Cpu *cpu = cat.cpu(cpuId);
    if (!cpu) {
        QStringList ids;
        for (const Cpu &x : cat.cpus())
            ids << x.id;
        return fail(QStringLiteral("\"cpu\": '%1' is not in the catalog (%2)")
                        .arg(cpuId, ids.join(QStringLiteral(", "))));
    }
    c.cpu = *cpu;
    for (auto [key, fallback, out] :
         {std::tuple{"intra_link", c.gpu.peerLink, &c.intraLink},
          std::tuple{"host_link", c.gpu.hostLink, &c.hostLink},
          std::tuple{"network", QStringLiteral("eth100"), &c.network}}) {
        const QString id = f.string(key, fallback);
        const Link *l = cat.link(id);
        if (!f.ok())
            return fail(f.error());
        if (!l)
            return fail(QStringLiteral("\"%1\": not in the catalog (%2)")
                            .arg(QLatin1String(key), cat.linkIds()));
        *out = *l;
    }
    const Storage *st = cat.storageSystem(storageId);
    if (!st) {
        QStringList ids;
        for (const Storage &x : cat.storage())
            ids << x.id;
        return fail(QStringLiteral("\"storage\": '%1' is not in the catalog (%2)")
                        .arg(storageId, ids.join(QStringLiteral(", "))));
    }
    c.storage = *st;
    // Overrides; a bandwidth must be above 0 (a link that moves nothing never finishes).
    c.intraLink.bwGBps = f.number("intra_gbps", c.intraLink.bwGBps, kMinGBps, kMaxGBps);
    c.hostLink.bwGBps = f.number("host_gbps", c.hostLink.bwGBps, kMinGBps, kMaxGBps);
    c.network.bwGBps = f.number("network_gbps", c.network.bwGBps, kMinGBps, kMaxGBps);
    c.storage.readGBps = f.number("storage_gbps", c.storage.readGBps, kMinGBps, kMaxGBps);
    c.network.latencyUs = f.number("network_latency_us", c.network.latencyUs, 0, kMaxLatencyUs);
    c.oversubscription = f.number("oversubscription", c.oversubscription, 1, kMaxOversubscription);
    if (!f.ok())
        return fail(f.error());
    return c;
}

QJsonObject SimCluster::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("id"), id);
    o.insert(QStringLiteral("name"), name);
    o.insert(QStringLiteral("nodes"), nodes);
    o.insert(QStringLiteral("gpu"), gpu.id);
    o.insert(QStringLiteral("gpus_per_node"), gpusPerNode);
    o.insert(QStringLiteral("cpu"), cpu.id);
    o.insert(QStringLiteral("cpus_per_node"), cpusPerNode);
    o.insert(QStringLiteral("gpus_per_pcie_switch"), gpusPerHostLink);
    o.insert(QStringLiteral("intra_link"), intraLink.id);
    o.insert(QStringLiteral("intra_gbps"), intraLink.bwGBps);
    o.insert(QStringLiteral("host_link"), hostLink.id);
    o.insert(QStringLiteral("host_gbps"), hostLink.bwGBps);
    o.insert(QStringLiteral("network"), network.id);
    o.insert(QStringLiteral("network_gbps"), network.bwGBps);
    o.insert(QStringLiteral("network_latency_us"), network.latencyUs);
    o.insert(QStringLiteral("oversubscription"), oversubscription);
    o.insert(QStringLiteral("storage"), storage.id);
    o.insert(QStringLiteral("storage_gbps"), storage.readGBps);
    return o;
}

} // namespace gml::sim
