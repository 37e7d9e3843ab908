// SPDX-License-Identifier: GPL-3.0-or-later
#include "devicecatalog.h"

#include "devicecatalog_data.h" // kDevicesJson, generated from resources/devices.json

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <deque>
#include <mutex>

namespace gml::sim {

static Range rangeOf(const QJsonValue &v)
{
    const QJsonArray a = v.toArray();
    return a.size() == 2 ? Range{a[0].toDouble(1), a[1].toDouble(1)} : Range{};
}

static Uncertainty uncertaintyOf(const QJsonObject &o)
{
    Uncertainty u;
    u.about = o.value(QStringLiteral("about")).toString();
    const QJsonObject eff = o.value(QStringLiteral("kernel_efficiency")).toObject();
    static const char *const groups[] = {"gemm", "attention", "memory", "other"};
    for (int other = 0; other < 2; ++other) {
        const QJsonObject g =
            eff.value(QLatin1String(other ? "other_vendor" : "same_vendor")).toObject();
        for (int k = 0; k < Uncertainty::Groups; ++k)
            u.efficiency[other][k] = rangeOf(g.value(QLatin1String(groups[k])));
    }
    u.hostCpu = rangeOf(o.value(QStringLiteral("host_cpu")));
    u.launch = rangeOf(o.value(QStringLiteral("launch")));
    const QJsonObject amp = o.value(QStringLiteral("amp")).toObject();
    u.ampCompute = rangeOf(amp.value(QStringLiteral("compute_speedup")));
    u.ampMemory = rangeOf(amp.value(QStringLiteral("memory_speedup")));
    u.calibrated = rangeOf(o.value(QStringLiteral("calibrated")));
    u.loaderWorker = rangeOf(o.value(QStringLiteral("loader_worker")));
    return u;
}

Uncertainty::Group Uncertainty::group(KernelKind::Family family)
{
    using F = KernelKind::Family;
    switch (family) {
    case F::Gemm:
    case F::Convolution:
        return Gemm;
    case F::Attention:
        return Attention;
    case F::Other:
        return Other;
    default:
        return Memory;
    }
}

QString Uncertainty::groupName(Group g)
{
    switch (g) {
    case Gemm:
        return QStringLiteral("matrix multiplies and convolutions");
    case Attention:
        return QStringLiteral("attention");
    case Memory:
        return QStringLiteral("memory-bound");
    default:
        return QStringLiteral("unrecognised");
    }
}

Range Uncertainty::kernel(KernelKind::Family family, bool sameVendor) const
{
    return efficiency[sameVendor ? 0 : 1][group(family)];
}

const DeviceCatalog &DeviceCatalog::builtin()
{
    static const DeviceCatalog catalog = [] {
        DeviceCatalog c;
        c.m_slices = std::make_shared<Slices>();
        const QJsonObject root = QJsonDocument::fromJson(QByteArray(kDevicesJson)).object();
        for (const auto &v : root.value(QStringLiteral("devices")).toArray()) {
            const QJsonObject o = v.toObject();
            Device d;
            d.id = o.value(QStringLiteral("id")).toString();
            d.name = o.value(QStringLiteral("name")).toString();
            d.vendor = o.value(QStringLiteral("vendor")).toString();
            for (const auto &m : o.value(QStringLiteral("match")).toArray())
                d.match << m.toString();
            d.fp32Tflops = o.value(QStringLiteral("fp32_tflops")).toDouble();
            d.fp16Tflops = o.value(QStringLiteral("fp16_tflops")).toDouble();
            d.bf16Tflops = o.value(QStringLiteral("bf16_tflops")).toDouble(d.fp16Tflops);
            d.memBwGBps = o.value(QStringLiteral("mem_bw_gbps")).toDouble();
            d.memGB = o.value(QStringLiteral("mem_gb")).toDouble();
            d.cus = o.value(QStringLiteral("cus")).toInt();
            d.maxW = o.value(QStringLiteral("max_w")).toDouble();
            d.idleW = o.value(QStringLiteral("idle_w")).toDouble();
            d.launchUs = o.value(QStringLiteral("launch_us")).toDouble();
            d.kernelFloorUs = o.value(QStringLiteral("kernel_floor_us")).toDouble();
            d.matrixAchievable = o.value(QStringLiteral("matrix_achievable")).toDouble();
            d.memoryAchievable = o.value(QStringLiteral("memory_achievable")).toDouble();
            d.hostLink = o.value(QStringLiteral("host_link")).toString();
            d.peerLink = o.value(QStringLiteral("peer_link")).toString();
            d.networkLink = o.value(QStringLiteral("network_link")).toString();
            d.nicsPerNode = o.value(QStringLiteral("nics_per_node")).toInt(8);
            d.source = o.value(QStringLiteral("source")).toString();
            c.m_devices.append(d);
        }
        for (const auto &v : root.value(QStringLiteral("links")).toArray()) {
            const QJsonObject o = v.toObject();
            c.m_links.append({o.value(QStringLiteral("id")).toString(),
                              o.value(QStringLiteral("name")).toString(),
                              o.value(QStringLiteral("bw_gbps")).toDouble(),
                              o.value(QStringLiteral("latency_us")).toDouble()});
        }
        for (const auto &v : root.value(QStringLiteral("cpus")).toArray()) {
            const QJsonObject o = v.toObject();
            Cpu cpu;
            cpu.id = o.value(QStringLiteral("id")).toString();
            cpu.name = o.value(QStringLiteral("name")).toString();
            cpu.vendor = o.value(QStringLiteral("vendor")).toString();
            cpu.cores = o.value(QStringLiteral("cores")).toInt();
            cpu.fp32Tflops = o.value(QStringLiteral("fp32_tflops")).toDouble();
            cpu.memBwGBps = o.value(QStringLiteral("mem_bw_gbps")).toDouble();
            cpu.maxW = o.value(QStringLiteral("max_w")).toDouble();
            cpu.idleW = o.value(QStringLiteral("idle_w")).toDouble();
            cpu.source = o.value(QStringLiteral("source")).toString();
            c.m_cpus.append(cpu);
        }
        for (const auto &v : root.value(QStringLiteral("storage")).toArray()) {
            const QJsonObject o = v.toObject();
            c.m_storage.append({o.value(QStringLiteral("id")).toString(),
                                o.value(QStringLiteral("name")).toString(),
                                o.value(QStringLiteral("read_gbps")).toDouble(),
                                o.value(QStringLiteral("shared")).toBool(),
                                o.value(QStringLiteral("source")).toString()});
        }
        c.m_uncertainty = uncertaintyOf(root.value(QStringLiteral("uncertainty")).toObject());
        return c;
    }();
    return catalog;
}

QString DeviceCatalog::deviceIds() const
{
    QStringList ids;
    for (const Device &d : m_devices)
        ids << d.id;
    return ids.join(QStringLiteral(", "));
}

QString DeviceCatalog::linkIds() const
{
    QStringList ids;
    for (const Link &l : m_links)
        ids << l.id;
    return ids.join(QStringLiteral(", "));
}

struct DeviceCatalog::Slices
{
    std::mutex lock;
    std::deque<Device> made; // never moved: device() hands out their addresses
};

Device migSlice(const Device &gpu, int g, double memGB, double boardGB)
{
    Device d = gpu;
    const double compute = std::clamp(g, 1, 7) / 7.0;
    const double eighth = boardGB > 0 ? boardGB / 8 : 0;
    const double memory =
        eighth > 0 ? std::clamp(std::round(memGB / eighth), 1.0, 8.0) / 8 : compute;
    const QString profile = QStringLiteral("%1g.%2gb").arg(g).arg(memGB, 0, 'f', 0);
    d.id = gpu.id + QStringLiteral("-MIG-") + profile;
    d.name = gpu.name + QStringLiteral(" MIG ") + profile;
    d.match.clear();
    d.fp32Tflops *= compute;
    d.fp16Tflops *= compute;
    d.bf16Tflops *= compute;
    d.cus = std::max(1, int(std::lround(gpu.cus * compute)));
    d.maxW *= compute;
    d.idleW *= compute;
    d.memBwGBps *= memory;
    d.memGB = memGB;
    d.source = QStringLiteral("a MIG instance %1 of the %2: %3/7 of its compute and %4/8 of its "
                              "memory (NVIDIA Multi-Instance GPU user guide, supported profiles); "
                              "the GPU: %5")
                   .arg(profile, gpu.id)
                   .arg(std::clamp(g, 1, 7))
                   .arg(std::lround(memory * 8))
                   .arg(gpu.source);
    return d;
}

const Device *DeviceCatalog::device(const QString &idOrName) const
{
    // "NVIDIA A100-SXM4-40GB MIG 3g.20gb" (CUDA's name of an instance), "A100-MIG-3g.20gb".
    static const QRegularExpression mig(QStringLiteral(R"(^(.*?)[\s-]+MIG[\s-]+(\d)g\.(\d+)gb)"),
                                        QRegularExpression::CaseInsensitiveOption);
    const auto m = mig.match(idOrName);
    if (!m.hasMatch())
        return wholeDevice(idOrName);
    const Device *gpu = wholeDevice(m.captured(1));
    if (!gpu || !m_slices)
        return gpu;
    // The board's memory as its name says ("A100-SXM4-40GB"), else the catalog's.
    static const QRegularExpression board(QStringLiteral(R"((\d+)\s*GB)"),
                                          QRegularExpression::CaseInsensitiveOption);
    const auto b = board.match(m.captured(1));
    const double boardGB = b.hasMatch() ? b.captured(1).toDouble() : gpu->memGB;
    const Device slice = migSlice(*gpu, m.captured(2).toInt(), m.captured(3).toDouble(), boardGB);
    const std::lock_guard hold(m_slices->lock);
    // By id ("A100-MIG-3g.20gb", no board named): the instance met already, if one was.
    for (const Device &d : m_slices->made)
        if (d.id == slice.id && (d.memBwGBps == slice.memBwGBps || !b.hasMatch()))
            return &d;
    m_slices->made.push_back(slice);
    return &m_slices->made.back();
}

const Device *DeviceCatalog::wholeDevice(const QString &idOrName) const
{
    for (const auto &d : m_devices)
        if (d.id.compare(idOrName, Qt::CaseInsensitive) == 0)
            return &d;
    for (const auto &d : m_devices)
        for (const auto &m : d.match)
            if (idOrName.contains(m, Qt::CaseInsensitive))
                return &d;
    return nullptr;
}

const Device *DeviceCatalog::identify(const QString &name, int cus, double memGiB, int warpSize,
                                      QString *why) const
{
    if (cus <= 0 || !(memGiB > 0))
        return nullptr;
    const QString vendor = warpSize == 64   ? QStringLiteral("AMD")
                           : warpSize == 32 ? QStringLiteral("NVIDIA")
                                            : QString();
    const Device *found = nullptr;
    for (const auto &d : m_devices) {
        if (d.cus != cus || std::abs(d.memGB - memGiB) > 0.05 * d.memGB ||
            (!vendor.isEmpty() && d.vendor != vendor))
            continue;
        if (found)
            return nullptr; // two devices alike: no guess
        found = &d;
    }
    if (found && why)
        *why = QStringLiteral("the trace names its GPU '%1'; taken as %2 from what it records "
                              "(%3 compute units, %4 GiB, warps of %5): a guess")
                   .arg(name, found->id)
                   .arg(cus)
                   .arg(memGiB, 0, 'f', 0)
                   .arg(warpSize);
    return found;
}

const Link *DeviceCatalog::link(const QString &id) const
{
    for (const auto &l : m_links)
        if (l.id.compare(id, Qt::CaseInsensitive) == 0)
            return &l;
    return nullptr;
}

const Cpu *DeviceCatalog::cpu(const QString &id) const
{
    for (const auto &c : m_cpus)
        if (c.id.compare(id, Qt::CaseInsensitive) == 0)
            return &c;
    return nullptr;
}

const Storage *DeviceCatalog::storageSystem(const QString &id) const
{
    for (const auto &s : m_storage)
        if (s.id.compare(id, Qt::CaseInsensitive) == 0)
            return &s;
    return nullptr;
}

} // namespace gml::sim
