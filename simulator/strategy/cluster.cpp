// SPDX-License-Identifier: GPL-3.0-or-later
#include "cluster.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <cmath>

namespace gml::sim {

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
    {"dgx1", R"J({"name": "DGX-1 (8x V100, NVLink 2)", "nodes": 1, "gpu": "V100", "gpus_per_node": 8,
                 "cpu": "xeon-6148", "cpus_per_node": 2, "intra_link": "nvlink2", "network": "ib-edr",
                 "storage": "nvme", "gpus_per_pcie_switch": 2})J"},
    {"dgx-a100", R"J({"name": "DGX A100 (8x A100, NVLink 3)", "nodes": 1, "gpu": "A100", "gpus_per_node": 8,
                     "cpu": "epyc-7742", "cpus_per_node": 2, "intra_link": "nvlink3", "network": "ib-hdr",
                     "storage": "nvme"})J"},
    {"12x4-v100-edr", R"J({"name": "12 nodes x 4 V100, EDR InfiniBand", "nodes": 12, "gpu": "V100",
                          "gpus_per_node": 4, "cpu": "xeon-6148", "cpus_per_node": 2, "intra_link": "nvlink2",
                          "network": "ib-edr", "storage": "lustre"})J"},
    {"9x1-v100-25gbe", R"J({"name": "9 nodes x 1 V100, 25 GbE", "nodes": 9, "gpu": "V100", "gpus_per_node": 1,
                           "cpu": "xeon-6148", "cpus_per_node": 2, "intra_link": "pcie3", "network": "eth25",
                           "storage": "nfs"})J"},
};

} // namespace

QStringList Cluster::presets()
{
    QStringList out;
    for (const Preset &p : kPresets)
        out << QString::fromLatin1(p.name);
    return out;
}

std::optional<Cluster> Cluster::load(const QString &presetOrFile, QString *error)
{
    for (const Preset &p : kPresets)
        if (presetOrFile.compare(QLatin1String(p.name), Qt::CaseInsensitive) == 0) {
            auto c = fromJson(QJsonDocument::fromJson(QByteArray(p.json)).object(),
                              QStringLiteral("preset %1").arg(QLatin1String(p.name)), error);
            if (c)
                c->id = QLatin1String(p.name);
            return c;
        }
    QFile f(presetOrFile);
    if (!QFileInfo(presetOrFile).isFile() || !f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("'%1' is neither a cluster preset (%2) nor a readable JSON file")
                         .arg(presetOrFile, presets().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &parse);
    if (parse.error != QJsonParseError::NoError || !doc.isObject()) {
        if (error)
            *error = parse.error != QJsonParseError::NoError
                         ? QStringLiteral("%1: byte %2: %3").arg(presetOrFile).arg(parse.offset).arg(parse.errorString())
                         : QStringLiteral("%1: expected a JSON object describing a cluster").arg(presetOrFile);
        return std::nullopt;
    }
    auto c = fromJson(doc.object(), presetOrFile, error);
    if (c)
        c->id = QFileInfo(presetOrFile).completeBaseName();
    return c;
}

std::optional<Cluster> Cluster::fromJson(const QJsonObject &o, const QString &origin, QString *error)
{
    const DeviceCatalog &cat = DeviceCatalog::builtin();
    auto fail = [&](const QString &why) -> std::optional<Cluster> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(origin, why);
        return std::nullopt;
    };
    Cluster c;
    c.name = o.value(QStringLiteral("name")).toString(origin);
    c.id = o.value(QStringLiteral("id")).toString(QStringLiteral("custom"));
    auto count = [&](const char *key, int fallback, int *out) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined()) {
            *out = fallback;
            return true;
        }
        const double d = v.toDouble(-1);
        if (!v.isDouble() || d < 1 || d != std::floor(d) || d > 1e6)
            return false;
        *out = int(d);
        return true;
    };
    if (!count("nodes", 1, &c.nodes))
        return fail(QStringLiteral("\"nodes\" must be a whole number of at least 1"));
    if (!count("gpus_per_node", 1, &c.gpusPerNode))
        return fail(QStringLiteral("\"gpus_per_node\" must be a whole number of at least 1"));
    if (!count("cpus_per_node", 2, &c.cpusPerNode))
        return fail(QStringLiteral("\"cpus_per_node\" must be a whole number of at least 1"));
    if (!count("gpus_per_pcie_switch", 1, &c.gpusPerHostLink))
        return fail(QStringLiteral("\"gpus_per_pcie_switch\" must be a whole number of at least 1"));
    const QString gpu = o.value(QStringLiteral("gpu")).toString();
    const Device *d = cat.device(gpu);
    if (gpu.isEmpty() || !d) {
        QStringList ids;
        for (const Device &x : cat.devices())
            ids << x.id;
        return fail(QStringLiteral("\"gpu\": '%1' is not in the device catalog (%2)").arg(gpu, ids.join(QStringLiteral(", "))));
    }
    c.gpu = *d;
    const QString cpuId = o.value(QStringLiteral("cpu")).toString(QStringLiteral("xeon-6148"));
    const Cpu *cpu = cat.cpu(cpuId);
    if (!cpu) {
        QStringList ids;
        for (const Cpu &x : cat.cpus())
            ids << x.id;
        return fail(QStringLiteral("\"cpu\": '%1' is not in the catalog (%2)").arg(cpuId, ids.join(QStringLiteral(", "))));
    }
    c.cpu = *cpu;
    auto link = [&](const char *key, const QString &fallback, Link *out) {
        const QString id = o.value(QLatin1String(key)).toString(fallback);
        const Link *l = cat.link(id);
        if (!l)
            return false;
        *out = *l;
        return true;
    };
    QStringList linkIds;
    for (const Link &l : cat.links())
        linkIds << l.id;
    if (!link("intra_link", c.gpu.peerLink, &c.intraLink))
        return fail(QStringLiteral("\"intra_link\": not in the catalog (%1)").arg(linkIds.join(QStringLiteral(", "))));
    if (!link("host_link", c.gpu.hostLink, &c.hostLink))
        return fail(QStringLiteral("\"host_link\": not in the catalog (%1)").arg(linkIds.join(QStringLiteral(", "))));
    if (!link("network", QStringLiteral("eth100"), &c.network))
        return fail(QStringLiteral("\"network\": not in the catalog (%1)").arg(linkIds.join(QStringLiteral(", "))));
    const QString storageId = o.value(QStringLiteral("storage")).toString(QStringLiteral("nvme"));
    const Storage *st = cat.storageSystem(storageId);
    if (!st) {
        QStringList ids;
        for (const Storage &x : cat.storage())
            ids << x.id;
        return fail(QStringLiteral("\"storage\": '%1' is not in the catalog (%2)").arg(storageId, ids.join(QStringLiteral(", "))));
    }
    c.storage = *st;
    // Overrides; a bandwidth must be positive (a link that moves nothing never finishes).
    auto positive = [&](const char *key, double *target) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined())
            return true;
        if (!v.isDouble() || !(v.toDouble() > 0) || !std::isfinite(v.toDouble()))
            return false;
        *target = v.toDouble();
        return true;
    };
    for (auto [key, target] : {std::pair{"intra_gbps", &c.intraLink.bwGBps}, std::pair{"host_gbps", &c.hostLink.bwGBps},
                               std::pair{"network_gbps", &c.network.bwGBps}, std::pair{"storage_gbps", &c.storage.readGBps}})
        if (!positive(key, target))
            return fail(QStringLiteral("\"%1\" must be a bandwidth above 0 GB/s").arg(QLatin1String(key)));
    if (o.contains(QStringLiteral("network_latency_us"))) {
        const double lat = o.value(QStringLiteral("network_latency_us")).toDouble(-1);
        if (!(lat >= 0))
            return fail(QStringLiteral("\"network_latency_us\" must be 0 or more"));
        c.network.latencyUs = lat;
    }
    if (o.contains(QStringLiteral("oversubscription"))) {
        const double over = o.value(QStringLiteral("oversubscription")).toDouble(-1);
        if (!(over >= 1))
            return fail(QStringLiteral("\"oversubscription\" must be 1 (none) or more"));
        c.oversubscription = over;
    }
    return c;
}

QJsonObject Cluster::toJson() const
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
