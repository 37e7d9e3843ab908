// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "devicecatalog.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace gml::sim {

// A cluster to simulate on (named SimCluster apart from the cluster project of a job imported
// in shards, simulator/cluster/): identical nodes, each with GPUs and CPUs from the catalog, the
// GPUs of a node joined by an intra-node link and each to its host by a host link, the nodes
// by a network (each node one interface up and one down, through a core that may be
// oversubscribed), and a storage system for the input data.
//
// As JSON (a file, or a preset):
//   {"name": "...", "nodes": 12, "gpu": "V100", "gpus_per_node": 4, "cpu": "xeon-6148",
//    "cpus_per_node": 2, "intra_link": "nvlink2", "host_link": "pcie3", "network": "ib-edr",
//    "oversubscription": 1, "storage": "lustre", "gpus_per_pcie_switch": 1}
// plus optional overrides of the catalog's figures: "intra_gbps", "host_gbps",
// "network_gbps", "network_latency_us", "storage_gbps" (GB/s per direction). host_link
// defaults to the GPU's own.
struct SimCluster
{
    QString id; // the preset's name, or the file's base name
    QString name;
    int nodes = 1;
    int gpusPerNode = 1;
    int cpusPerNode = 2;
    int gpusPerHostLink = 1;     // GPUs behind one PCIe switch, sharing its uplink to the host
    double oversubscription = 1; // the nodes' total network bandwidth over the core's
    Device gpu;
    Cpu cpu;
    Link intraLink;
    Link hostLink;
    Link network;
    Storage storage;

    int gpus() const { return nodes * gpusPerNode; }
    QJsonObject toJson() const;

    static QStringList presets();
    // A preset name or a JSON file; errors name the file and the field.
    static std::optional<SimCluster> load(const QString &presetOrFile, QString *error);
    static std::optional<SimCluster> fromJson(const QJsonObject &o, const QString &origin,
                                              QString *error);
};

} // namespace gml::sim
