// SPDX-License-Identifier: GPL-3.0-or-later
// device: run on catalog device `target` instead of the measured one: kernels by the peak
// rates' ratios, launch calls by the vendors' launch-cost ratio, pinned host copies over the new
// host link, and the host path (as the host transform) `host_factor` times faster when the user
// gives one.
#include "transformkind.h"

#include "clockalignment.h"
#include "devicecatalog.h"
#include "jsonfields.h"
#include "timeformat.h"

#include <algorithm>
#include <cmath>

namespace gml::sim::detail {

namespace {

class DeviceTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("device"); }
    std::vector<const char *> keys() const override { return {"target", "host_factor"}; }
    void read(JsonFields &f, Transform &t) const override
    {
        t.target = f.string("target");
        t.hostFactor = f.number("host_factor", 0, 0, limits::kMaxFactor);
    }
    QString invalid(const Transform &t) const override
    {
        if (!DeviceCatalog::builtin().device(t.target))
            return QStringLiteral("no device '%1' in the catalog").arg(t.target);
        return {};
    }
    void write(const Transform &t, QJsonObject &o) const override
    {
        o.insert(QStringLiteral("target"), t.target);
        if (t.hostFactor > 0)
            o.insert(QStringLiteral("host_factor"), t.hostFactor);
    }
    QString describe(const Transform &t, const QString &sel) const override
    {
        return QStringLiteral("run on %1%2%3")
            .arg(t.target,
                 t.hostFactor > 0 ? QStringLiteral(", host CPU %1x faster").arg(t.hostFactor)
                                  : QString(),
                 sel);
    }
    quint8 nodeKinds(const Transform &) const override
    {
        return bit(NodeKind::Kernel) | bit(NodeKind::Memset) | bit(NodeKind::Memcpy);
    }
    bool changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                     QString *error) const override;

private:
    static bool changeHost(TimingStep &s, const Transform &t, QString *error);
    static void noteEfficiencyBand(TimingStep &s, const Device &from, const Device &to);
    static void changeLaunchCost(TimingStep &s, const Device &from, const Device &to,
                                 const NodeSelection &sel);
    static void changeHostLink(TimingStep &s, const Device &from, const Device &to,
                               const NodeSelection &sel);
    static void setFloors(TimingStep &s, const Device &from, const Device &to, KernelFactors &f);
    static void applyAchievable(TimingStep &s, const Device &from, const Device &to,
                                KernelFactors &f);
};

// Another GPU: the kernels' factors from the peak rates' ratios, the launch calls by the
// vendors' launch costs, the host path by the factor given.
bool DeviceTransform::changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                                  QString *error) const
{
    const Device *from = measuredDevice(s.context, s.cat, error);
    if (!from)
        return false;
    const Device *to = s.cat.device(t.target);
    if (!to) {
        *error = QStringLiteral("no device '%1' in the catalog").arg(t.target);
        return false;
    }
    if (!s.context.measuredDeviceGuess.isEmpty())
        s.out.notes << s.context.measuredDeviceGuess;
    KernelFactors f;
    f.computeFp32 = from->fp32Tflops / to->fp32Tflops;
    f.computeFp16 = from->fp16Tflops / to->fp16Tflops;
    f.memory = from->memBwGBps / to->memBwGBps;
    s.out.notes << QStringLiteral(
                       "%1 -> %2: compute-bound kernels x%3 (fp32) / x%4 (fp16), memory-bound "
                       "x%5 (the peak rates' ratios)")
                       .arg(from->id, to->id)
                       .arg(f.computeFp32, 0, 'f', 3)
                       .arg(f.computeFp16, 0, 'f', 3)
                       .arg(f.memory, 0, 'f', 3);
    applyAchievable(s, *from, *to, f);
    f.sameVendor = from->vendor == to->vendor;
    noteEfficiencyBand(s, *from, *to);
    if (from->vendor != to->vendor && to->launchUs > 0)
        changeLaunchCost(s, *from, *to, sel);
    if (!s.explicitHostLink && from->hostLink != to->hostLink)
        changeHostLink(s, *from, *to, sel);
    if (!changeHost(s, t, error))
        return false;
    setFloors(s, *from, *to, f);
    const FloorShare share = rescaleKernels(s, sel, f);
    if (f.floorTo > 0)
        s.out.notes << QStringLiteral("%1 of %2 kernels (%3 of their %4 on %5) are decided by "
                                      "its per-kernel floor: more than half of their time")
                           .arg(share.decided)
                           .arg(share.kernels)
                           .arg(formatDuration(share.decidedTime), formatDuration(share.kernelTime),
                                to->id);
    return true;
}

// The fraction of its peak each GPU's library reaches (devices.json cites them): where both
// GPUs have the figure, the peak ratios become the achievable rates' ratios; else each kernel
// is taken as efficient on the target as measured.
void DeviceTransform::applyAchievable(TimingStep &s, const Device &from, const Device &to,
                                      KernelFactors &f)
{
    QStringList parts;
    auto achievable = [&](double Device::*rate, double &factor, const QString &what) {
        if (!(from.*rate > 0) || !(to.*rate > 0))
            return;
        const double x = from.*rate / to.*rate;
        factor *= x;
        parts << QStringLiteral("%1 x%2 (%3 of peak on %4, %5 on %6)")
                     .arg(what)
                     .arg(x, 0, 'f', 2)
                     .arg(from.*rate)
                     .arg(from.id)
                     .arg(to.*rate)
                     .arg(to.id);
    };
    achievable(&Device::matrixAchievable, f.computeFp16,
               QStringLiteral("half-precision matrix work"));
    achievable(&Device::memoryAchievable, f.memory, QStringLiteral("memory-bound"));
    if (parts.isEmpty())
        s.out.notes << QStringLiteral("each kernel assumed as efficient on %1 as measured on %2 "
                                      "(the catalog has no achievable rate for both)")
                           .arg(to.id, from.id);
    else
        s.out.notes << QStringLiteral("the achievable rates, not the peaks: %1 (devices.json "
                                      "cites them)")
                           .arg(parts.join(QStringLiteral(", ")));
}

// The shortest a kernel takes, on the measured GPU and on the target: the run's own (the 1st
// percentile of its kernels, when it has 100 or more) else the catalog's, and the target's
// from the catalog. No floor when the catalog has none for either GPU.
void DeviceTransform::setFloors(TimingStep &s, const Device &from, const Device &to,
                                KernelFactors &f)
{
    if (from.kernelFloorUs <= 0 || to.kernelFloorUs <= 0)
        return;
    std::vector<TimeNs> kernels;
    for (const Node &n : s.g.nodes())
        if (n.kind == NodeKind::Kernel && n.slice != 0)
            kernels.push_back(n.work);
    const bool own = kernels.size() >= 100;
    if (own) {
        const auto at = kernels.begin() + qsizetype(kernels.size() / 100);
        std::nth_element(kernels.begin(), at, kernels.end());
        f.floorFrom = std::max<TimeNs>(1, *at);
    } else {
        f.floorFrom = TimeNs(std::llround(from.kernelFloorUs * 1e3));
    }
    f.floorTo = TimeNs(std::llround(to.kernelFloorUs * 1e3));
    s.out.notes << QStringLiteral("per-kernel floor (dispatch, first wave, end-of-kernel "
                                  "writeback: it does not scale with the rates): %1 %2 us "
                                  "(%3), %4 %5 us (the catalog's, from the 1st percentile of "
                                  "real traces' kernels)")
                       .arg(from.id)
                       .arg(double(f.floorFrom) / 1e3, 0, 'f', 1)
                       .arg(own ? QStringLiteral("this run's 1st percentile of %1 kernels")
                                      .arg(kernels.size())
                                : QStringLiteral("the catalog's"),
                            to.id)
                       .arg(to.kernelFloorUs, 0, 'f', 1);
}

// The new machine's host path: `host_factor` times faster when given, else assumed unchanged
// (and an unknown of the band).
bool DeviceTransform::changeHost(TimingStep &s, const Transform &t, QString *error)
{
    Selector all;
    const NodeSelection host(s.g, all, quint8(bit(NodeKind::Cpu) | bit(NodeKind::Runtime)), error);
    if (t.hostFactor > 0) {
        const auto changed = speedUpHostPath(s, host, t.hostFactor, error);
        if (!changed)
            return false;
        s.out.notes << QStringLiteral("host CPU %1x faster, as given: %2 CPU ops and "
                                      "runtime calls on launching "
                                      "threads")
                           .arg(t.hostFactor)
                           .arg(*changed);
        return true;
    }
    const Range cpu = s.cat.uncertainty().hostCpu;
    s.out.notes << QStringLiteral(
        "host CPU assumed unchanged (give host_factor when the new machine's CPU "
        "differs: a vendor change often moves the host path too)");
    s.out.unknowns << QStringLiteral("host CPU of the new machine: its launch path x%1 to x%2")
                          .arg(cpu.low)
                          .arg(cpu.high);
    const double x = s.vary(QStringLiteral("host CPU"), cpu);
    return x == 1 || speedUpHostPath(s, host, 1.0 / x, error).has_value();
}

// The kernels' efficiency on the target, which the peak rates' ratios take as the source's.
void DeviceTransform::noteEfficiencyBand(TimingStep &s, const Device &from, const Device &to)
{
    const Uncertainty &u = s.cat.uncertainty();
    const bool same = from.vendor == to.vendor;
    using F = KernelKind::Family;
    auto r = [&](F family) {
        const Range x = u.kernel(family, same);
        return QStringLiteral("x%1 to x%2").arg(x.low).arg(x.high);
    };
    s.out.unknowns << QStringLiteral("kernel efficiency on %1 (%2): matrix multiplies and "
                                     "convolutions %3, attention %4, memory-bound %5, "
                                     "unrecognised %6 of the peak-rate prediction")
                          .arg(to.id,
                               same ? QStringLiteral("same vendor")
                                    : QStringLiteral("another vendor"),
                               r(F::Gemm), r(F::Attention), r(F::Elementwise), r(F::Other));
}

// Another vendor's runtime launches at another cost. A launching call's time is the launch
// overhead, plus (for a pageable or synchronous copy) a copy over the host link, plus what it
// waited for; only the overhead is the runtime's. So each launch call of the selected work gets
// the difference of the two overheads added, once. The source's is this run's own (the median
// of its kernel launch calls): it holds the host CPU and driver that ran them, which set most of
// a launch call's time (the shared traces' medians run from 3.3 us on an H100 host of 2025 to
// 18 us on an RTX 2080 Ti host of 2021, one runtime). The target's is the source's times the
// ratio of the two runtimes' typical costs (the catalog's launch_us, a ratio as its "about"
// says): the new runtime on a host like this one. Without a measured launch, the catalog's
// figures are taken as they are.
void DeviceTransform::changeLaunchCost(TimingStep &s, const Device &from, const Device &to,
                                       const NodeSelection &sel)
{
    const LaunchCost measured = measuredLaunchCost(s.g);
    const bool own = measured.calls > 0 && from.launchUs > 0;
    const double sourceUs = own ? double(measured.median) / 1e3 : from.launchUs;
    const double typicalUs = own ? sourceUs * to.launchUs / from.launchUs : to.launchUs;
    const Range band = s.cat.uncertainty().launch;
    const double targetUs = typicalUs * s.vary(QStringLiteral("launch cost"), band);
    const TimeNs delta = TimeNs(std::llround((targetUs - sourceUs) * 1e3));
    std::vector<char> done(s.nodes.size(), 0);
    qint64 calls = 0;
    for (size_t i = 0; i < s.nodes.size(); ++i) {
        const int l = s.nodes[i].launcher;
        if (!sel[i] || l < 0 || done[size_t(l)] || s.nodes[size_t(l)].kind != NodeKind::Runtime)
            continue;
        done[size_t(l)] = 1;
        s.work[size_t(l)] = std::max<TimeNs>(0, s.work[size_t(l)] + delta);
        ++calls;
    }
    const QString source =
        own ? QStringLiteral("this run's %1 kernel launches took a median %2 us; %3 x%4, the "
                             "ratio of the runtimes' typical costs (%5 %6 us, %7 %8 us)")
                  .arg(measured.calls)
                  .arg(sourceUs, 0, 'f', 1)
                  .arg(to.vendor)
                  .arg(to.launchUs / from.launchUs, 0, 'f', 2)
                  .arg(from.vendor)
                  .arg(from.launchUs)
                  .arg(to.vendor)
                  .arg(to.launchUs)
            : QStringLiteral("no kernel launch measured here: %1 launches in about %2 us, %3 in "
                             "about %4 us, the catalog's typical figures")
                  .arg(from.vendor)
                  .arg(from.launchUs)
                  .arg(to.vendor)
                  .arg(to.launchUs);
    s.out.notes << QStringLiteral("%1 launch calls %2%3 us each (%4); their copies and waits kept")
                       .arg(calls)
                       .arg(delta >= 0 ? QStringLiteral("+") : QString())
                       .arg(double(delta) / 1e3, 0, 'f', 1)
                       .arg(source);
    s.out.unknowns << QStringLiteral("%1 launch cost: %2 to %3 us (%4 us x%5 to x%6)")
                          .arg(to.vendor)
                          .arg(typicalUs * band.low, 0, 'f', 1)
                          .arg(typicalUs * band.high, 0, 'f', 1)
                          .arg(typicalUs, 0, 'f', 1)
                          .arg(band.low)
                          .arg(band.high);
}

// The new GPU's host link: each selected pinned host copy pays the new link's latency and its
// bandwidth part at the new bandwidth. A pageable copy is staged through host memory, whose
// speed the new link does not change: kept as measured. A host link transform given with the
// device change decides instead.
void DeviceTransform::changeHostLink(TimingStep &s, const Device &from, const Device &to,
                                     const NodeSelection &sel)
{
    const Link *a = s.cat.link(from.hostLink), *b = s.cat.link(to.hostLink);
    if (!a || !b || a->bwGBps <= 0 || b->bwGBps <= 0)
        return;
    qint64 pinned = 0, pageable = 0;
    for (size_t i = 0; i < s.nodes.size(); ++i) {
        if (!sel[i] || s.nodes[i].kind != NodeKind::Memcpy || s.nodes[i].slice == 0)
            continue;
        const QString name = s.g.name(s.nodes[i].name);
        if (!isHostCopy(name))
            continue;
        if (name.contains(QLatin1String("Pageable"))) {
            ++pageable;
            continue;
        }
        const TimeNs oldLat = TimeNs(a->latencyUs * 1e3);
        const TimeNs rest = std::max<TimeNs>(0, s.work[i] - oldLat);
        s.work[i] = TimeNs(b->latencyUs * 1e3) + scaled(rest, a->bwGBps / b->bwGBps);
        ++pinned;
    }
    s.out.notes << QStringLiteral("host link %1 (%2 GB/s) -> %3 (%4 GB/s): %5 pinned host copies "
                                  "x%6; %7 pageable copies kept (staged through host memory)")
                       .arg(a->name)
                       .arg(a->bwGBps)
                       .arg(b->name)
                       .arg(b->bwGBps)
                       .arg(pinned)
                       .arg(a->bwGBps / b->bwGBps, 0, 'f', 2)
                       .arg(pageable);
}

} // namespace

const TransformKind &deviceKind()
{
    static const DeviceTransform kind;
    return kind;
}

} // namespace gml::sim::detail

namespace gml::sim {

std::vector<char> kernelLaunchCalls(const DependencyGraph &g)
{
    const auto &nodes = g.nodes();
    std::vector<char> launch(nodes.size(), 0);
    for (const Node &n : nodes)
        if (n.kind == NodeKind::Kernel && n.launcher >= 0) {
            const Node &call = nodes[size_t(n.launcher)];
            if (call.kind == NodeKind::Runtime && !call.synchronising && call.slice != 0)
                launch[size_t(n.launcher)] = 1;
        }
    return launch;
}

LaunchCost measuredLaunchCost(const DependencyGraph &g)
{
    const std::vector<char> launch = kernelLaunchCalls(g);
    std::vector<TimeNs> times;
    for (size_t i = 0; i < launch.size(); ++i)
        if (launch[i])
            times.push_back(g.nodes()[i].work);
    LaunchCost c;
    c.calls = qint64(times.size());
    if (!times.empty()) {
        std::nth_element(times.begin(), times.begin() + qsizetype(times.size() / 2), times.end());
        c.median = times[times.size() / 2];
    }
    return c;
}

} // namespace gml::sim
