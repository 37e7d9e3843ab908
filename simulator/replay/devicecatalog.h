// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kerneltaxonomy.h"
#include "sliceclass.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

namespace gml::sim {

// A GPU of the catalog (resources/devices.json, compiled in): the vendor's published peak
// rates. fp16 is the dense tensor/matrix FP16 rate where the part has one.
struct Device
{
    QString id;
    QString name;
    QString vendor;
    QStringList match; // substrings of a measured device name (deviceProperties) that mean this
    double fp32Tflops = 0;
    double fp16Tflops = 0;
    // Dense bf16 tensor/matrix rate: the fp16 one where the part has both, its fp32 rate where
    // it has no bf16 unit (devices.json's bf16_tflops; absent: the fp16 rate).
    double bf16Tflops = 0;
    double memBwGBps = 0;
    double memGB = 0;
    int cus = 0; // compute units (AMD) or SMs (NVIDIA), as deviceProperties' numSms says
    double maxW = 0;
    double idleW = 0; // a typical reading, not a vendor figure
    // The host-side time of one kernel launch through the vendor's runtime, typical (not a
    // vendor figure): moving to another vendor adds, to each launch call, this figure less the
    // run's own measured launch cost (measuredLaunchCost, transforms.h).
    double launchUs = 0;
    // The shortest time a kernel takes on it (dispatch, first wave, end-of-kernel writeback),
    // the 1st percentile of the kernels of real traces (devices.json says which); 0: unknown.
    double kernelFloorUs = 0;
    // The fraction of the datasheet peak its vendor library reaches on large matrix multiplies,
    // and of the datasheet bandwidth a stream-like kernel reaches (devices.json's
    // matrix_achievable, memory_achievable, each cited there); 0: not known. A device change
    // between two GPUs that both have the figure scales compute-bound or memory-bound kernels
    // by the ratio of achievable rates, not of peaks.
    double matrixAchievable = 0;
    double memoryAchievable = 0;
    QString hostLink; // link ids
    QString peerLink;
    // The scale-out network of the GPU's reference server (DGX, the vendor's platform) and its
    // NICs per node of 8 GPUs (devices.json's network_link, nics_per_node, cited there): what a
    // collective across nodes is held against when the run names no network. Empty: none.
    QString networkLink;
    int nicsPerNode = 0;
    QString source;
};

// A host CPU (parameter servers, input pipelines): peak FP32 over all cores and the memory
// bandwidth of all channels, as published.
struct Cpu
{
    QString id;
    QString name;
    QString vendor;
    int cores = 0;
    double fp32Tflops = 0;
    double memBwGBps = 0;
    double maxW = 0;  // TDP
    double idleW = 0; // a typical reading, not a vendor figure
    QString source;
};

// Where input data is read from: local (each node its own) or shared by all nodes.
struct Storage
{
    QString id;
    QString name;
    double readGBps = 0;
    bool shared = false;
    QString source;
};

struct Link
{
    QString id;
    QString name;
    double bwGBps = 0; // per direction
    double latencyUs = 0;
};

// A factor the model does not know, as a range: `low` where every unknown is at its fast end,
// `high` at its slow end (1 and 1: known).
struct Range
{
    double low = 1;
    double high = 1;
    bool known() const { return low == 1 && high == 1; }
    double at(bool slow) const { return slow ? high : low; }
};

// What a prediction on other hardware cannot know (resources/devices.json "uncertainty", with
// the public figures behind each range): ranges on the predicted time.
struct Uncertainty
{
    // A kernel's time on the target relative to the peak-rate prediction, by family group
    // (gemm: matrix multiplies and convolutions; attention; memory: memory-bound families;
    // other: names no rule knows), on a GPU of the same vendor or of another one.
    Range kernel(KernelKind::Family family, bool sameVendor) const;
    Range hostCpu;    // the launch path's time on another machine's host CPU
    Range launch;     // the target vendor's launch cost relative to the catalog's figure
    Range ampCompute; // mixed precision's speed-up of compute-bound kernels (2 to 4)
    Range ampMemory;  // of memory-bound ones
    Range calibrated; // a calibrated class carried to another run (calibration.h)
    // A batch's loading time on a DataLoader worker against the step's thread's (input's
    // workers: cores, memory and storage shared by N workers, the hand-over to the main process)
    Range loaderWorker;
    QString about;

    enum Group { Gemm, Attention, Memory, Other, Groups };
    Range efficiency[2][Groups]; // [other vendor][group]
    static Group group(KernelKind::Family family);
    // "matrix multiplies and convolutions", "attention", "memory-bound", "unrecognised"
    static QString groupName(Group g);
};

class DeviceCatalog
{
public:
    // The catalog shipped in resources/devices.json.
    static const DeviceCatalog &builtin();

    const QList<Device> &devices() const { return m_devices; }
    const QList<Link> &links() const { return m_links; }
    const QList<Cpu> &cpus() const { return m_cpus; }
    const QList<Storage> &storage() const { return m_storage; }
    // "K80, P100, ...": the GPUs' and the links' ids, for an error naming what there is.
    QString deviceIds() const;
    QString linkIds() const;
    const Cpu *cpu(const QString &id) const;
    const Storage *storageSystem(const QString &id) const;
    // By id ("H100", case-insensitive) or by a measured name ("Tesla V100-SXM2-32GB"). A MIG
    // instance ("NVIDIA A100-SXM4-40GB MIG 3g.20gb", or the id "A100-MIG-3g.20gb") is what one
    // rank sees: its GPU's slice (migSlice), made once and kept.
    const Device *device(const QString &idOrName) const;
    // A GPU the trace names generically ("AMD Radeon Graphics" for an MI250): the catalog's one
    // device with its compute units (SMs) and memory (GiB, within 5%), of the vendor its warp
    // size says (64: AMD, 32: NVIDIA); null when none or several. `why` says it is a guess and
    // from what.
    const Device *identify(const QString &name, int cus, double memGiB, int warpSize,
                           QString *why) const;
    const Link *link(const QString &id) const;
    const Uncertainty &uncertainty() const { return m_uncertainty; }

private:
    const Device *wholeDevice(const QString &idOrName) const;
    QList<Device> m_devices;
    struct Slices; // the MIG instances met, each made once (stable addresses, thread-safe)
    std::shared_ptr<Slices> m_slices;
    QList<Link> m_links;
    QList<Cpu> m_cpus;
    QList<Storage> m_storage;
    Uncertainty m_uncertainty;
};

// A MIG instance of `gpu`, by its profile: `g` of the GPU's 7 compute slices and `memGB` of the
// board's `boardGB` (the NVIDIA Multi-Instance GPU user guide's profiles: on an A100 40GB a
// 1g.5gb instance has 1/7 of the compute and 1/8 of the memory, a 3g.20gb 3/7 and 4/8): peak
// rates, SMs and power scale by g/7, memory capacity and bandwidth by the memory slices (the
// instance's GB over the board's eighth, rounded) out of 8.
Device migSlice(const Device &gpu, int g, double memGB, double boardGB);

// classifyKernel() and usesHalfPrecision(): model/core/sliceclass.h.

} // namespace gml::sim
