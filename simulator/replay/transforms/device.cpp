// SPDX-License-Identifier: GPL-3.0-or-later
// The transforms that change the nodes' times (not the graph): scale, remove, set, fuse,
// device, amp, compute, memory, input, host, unsync, link, workers, reschedule. Each one is a
// method of TimingChange, applied in order by prepare() (transforms.cpp).
#include "transformsinternal.h"

#include "clockalignment.h"
#include "devicecatalog.h"
#include "timeformat.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace gml::sim::detail {

namespace {

// The kinds of node a transform may select.
quint8 kindsOf(const Transform &t)
{
    switch (t.op) {
    case Transform::Op::Device:
    case Transform::Op::Memory:
        return bit(NodeKind::Kernel) | bit(NodeKind::Memset) | bit(NodeKind::Memcpy);
    case Transform::Op::Amp:
    case Transform::Op::Compute:
        return bit(NodeKind::Kernel);
    case Transform::Op::Input:
    case Transform::Op::Host:
        return bit(NodeKind::Cpu) | bit(NodeKind::Runtime);
    case Transform::Op::Unsync:
        return bit(NodeKind::Runtime);
    case Transform::Op::Link:
        return t.link == QLatin1String("host") ? bit(NodeKind::Memcpy) : bit(NodeKind::Collective);
    case Transform::Op::Workers:
        return bit(NodeKind::Collective);
    case Transform::Op::Fuse:
    case Transform::Op::Reschedule:
    case Transform::Op::Scale:
    case Transform::Op::Remove:
    case Transform::Op::SetDuration:
    case Transform::Op::Insert:
        break;
    }
    return 0xff;
}

// The shortest measured work of each node kind on each GPU (all its streams) or CPU thread.
class ShortestWork
{
public:
    explicit ShortestWork(const DependencyGraph &g) : m_group(g.resources().size())
    {
        QHash<QString, int> gpuGroup; // source/device -> group
        int groups = 0;
        for (size_t r = 0; r < g.resources().size(); ++r) {
            const Resource &res = g.resources()[r];
            if (!res.gpu) {
                m_group[r] = groups++;
                continue;
            }
            const QString key = QStringLiteral("%1/%2").arg(res.source).arg(res.pid);
            auto it = gpuGroup.find(key);
            if (it == gpuGroup.end())
                it = gpuGroup.insert(key, groups++);
            m_group[r] = *it;
        }
        m_shortest.assign(size_t(groups) * kKinds, std::numeric_limits<TimeNs>::max());
        for (const auto &n : g.nodes())
            if (n.slice != 0 && n.work > 0)
                slot(n) = std::min(slot(n), n.work);
    }
    // 0 when no measured node of its kind has work there.
    TimeNs of(const Node &n) const
    {
        const TimeNs v = m_shortest[index(n)];
        return v == std::numeric_limits<TimeNs>::max() ? 0 : v;
    }

private:
    static constexpr size_t kKinds = 6;
    size_t index(const Node &n) const
    {
        return size_t(m_group[size_t(n.resource)]) * kKinds + size_t(n.kind);
    }
    TimeNs &slot(const Node &n) { return m_shortest[index(n)]; }

    std::vector<int> m_group;       // per resource
    std::vector<TimeNs> m_shortest; // per group and kind
};

} // namespace

TimingChange::TimingChange(Prepared &out, const WhatIfContext &context, const DeviceCatalog &cat,
                           NetworkChange &net, bool explicitHostLink)
    : m_g(*out.graph), m_nodes(m_g.nodes()), m_out(out), m_work(out.input.work),
      m_slack(out.input.slack), m_context(context), m_cat(cat), m_net(net),
      m_explicitHostLink(explicitHostLink)
{
}

bool TimingChange::apply(const Transform &t, QString *error)
{
    Selector select = t.select;
    if (t.op == Transform::Op::Input && select.name.isEmpty() && select.within.isEmpty())
        select.within = inputPattern();
    const NodeSelection sel(m_g, select, kindsOf(t), error);
    if (!sel.valid())
        return false;
    const size_t n = m_nodes.size();
    switch (t.op) {
    case Transform::Op::Scale:
        for (size_t i = 0; i < n; ++i)
            if (sel[i]) {
                m_work[i] = scaled(m_work[i], t.factor);
                if (t.factor == 0)
                    m_slack[i] = 0;
            }
        return true;
    case Transform::Op::Remove:
        for (size_t i = 0; i < n; ++i)
            if (sel[i])
                m_work[i] = m_slack[i] = 0;
        return true;
    case Transform::Op::SetDuration:
        for (size_t i = 0; i < n; ++i)
            if (sel[i])
                m_work[i] = t.duration;
        return true;
    case Transform::Op::Fuse:
        fuse(t, sel);
        return true;
    case Transform::Op::Device:
    case Transform::Op::Amp:
    case Transform::Op::Compute:
    case Transform::Op::Memory:
        return rescaleWork(t, sel, error);
    case Transform::Op::Input:
        for (size_t i = 0; i < n; ++i)
            if (sel[i]) {
                const double f = t.factor > 0 ? 1.0 / t.factor : 0.0;
                m_work[i] = scaled(m_work[i], f);
                m_slack[i] = scaled(m_slack[i], f);
            }
        return true;
    case Transform::Op::Host:
        return speedUpHost(t, sel, error);
    case Transform::Op::Unsync:
        unsync(sel);
        return true;
    case Transform::Op::Link:
        return changeLink(t, sel, error);
    case Transform::Op::Workers:
        m_net.apply(t, sel);
        m_out.notes << QStringLiteral(
                           "workers: measured collectives of %1 ranks (%2) rescaled to %3 (%4)")
                           .arg(m_net.measuredRanks())
                           .arg(m_context.measuredAlgorithm)
                           .arg(t.workers)
                           .arg(t.algorithm.isEmpty() ? m_context.measuredAlgorithm : t.algorithm);
        return true;
    case Transform::Op::Reschedule:
        if (m_out.input.priority.empty())
            m_out.input.priority.assign(n, 0);
        for (size_t i = 0; i < n; ++i)
            if (sel[i])
                m_out.input.priority[i] = t.priority;
        return true;
    case Transform::Op::Insert:
        return true;
    }
    return true;
}

// Runs of adjacent selected nodes on a resource become one: the first holds the work (their
// sum, the given duration, or the sum less a fixed cost per kernel saved), the others none; a
// launch call whose kernels were all fused away goes too.
void TimingChange::fuse(const Transform &t, const NodeSelection &sel)
{
    const size_t n = m_nodes.size();
    std::vector<int> kept(n, 0); // per launcher: launched nodes that remain
    std::vector<char> removed(n, 0);
    int fused = 0;
    const bool overheadModel = t.duration <= 0 && t.model == QLatin1String("overhead");
    const auto shortest = overheadModel && t.overhead < 0 ? std::make_unique<ShortestWork>(m_g)
                                                          : std::unique_ptr<ShortestWork>();
    TimeNs saved = 0;
    for (const auto &r : m_g.resources()) {
        for (size_t k = 0; k < r.nodes.size();) {
            if (!sel[size_t(r.nodes[k])]) {
                ++k;
                continue;
            }
            size_t e = k;
            TimeNs sum = 0, longest = 0;
            while (e < r.nodes.size() && sel[size_t(r.nodes[e])]) {
                longest = std::max(longest, m_work[size_t(r.nodes[e])]);
                sum += m_work[size_t(r.nodes[e++])];
            }
            if (e - k >= 2) {
                TimeNs w = t.duration > 0 ? t.duration : sum;
                if (overheadModel) {
                    // Each kernel pays a fixed cost (launch ramp, tail) whatever its work; the
                    // fused one pays it once.
                    const TimeNs o =
                        t.overhead >= 0 ? t.overhead : shortest->of(m_nodes[size_t(r.nodes[k])]);
                    w = std::max(longest, sum - TimeNs(e - k - 1) * o);
                    saved += sum - w;
                }
                m_work[size_t(r.nodes[k])] = w;
                for (size_t j = k + 1; j < e; ++j) {
                    const auto x = size_t(r.nodes[j]);
                    m_work[x] = m_slack[x] = 0;
                    removed[x] = 1;
                }
                ++fused;
            }
            k = e;
        }
    }
    for (size_t i = 0; i < n; ++i)
        if (m_nodes[i].launcher >= 0 && !removed[i])
            ++kept[size_t(m_nodes[i].launcher)];
    for (size_t i = 0; i < n; ++i)
        if (removed[i] && m_nodes[i].launcher >= 0 && !kept[size_t(m_nodes[i].launcher)])
            m_work[size_t(m_nodes[i].launcher)] = m_slack[size_t(m_nodes[i].launcher)] = 0;
    m_out.notes << (overheadModel
                        ? QStringLiteral(
                              "fuse: %1 groups of adjacent slices fused, %2 of per-kernel fixed "
                              "cost saved (%3)")
                              .arg(fused)
                              .arg(formatDuration(saved),
                                   t.overhead >= 0
                                       ? QStringLiteral("%1 each").arg(formatDuration(t.overhead))
                                       : QStringLiteral("each the shortest kernel of its GPU"))
                        : QStringLiteral("fuse: %1 groups of adjacent slices fused").arg(fused));
}

// Device, amp, compute and memory: each selected kernel's work by the factor of its bound
// (compute-bound ones by the fp32 or fp16 factor, the others by the memory factor); copies
// over the host link are left to the link.
bool TimingChange::rescaleWork(const Transform &t, const NodeSelection &sel, QString *error)
{
    Factors f;
    if (t.op == Transform::Op::Compute || t.op == Transform::Op::Memory) {
        const double x = t.factor > 0 ? 1.0 / t.factor : 1.0;
        f.computeFp32 = f.computeFp16 = t.op == Transform::Op::Compute ? x : 1.0;
        f.memory = t.op == Transform::Op::Memory ? x : 1.0;
    }
    if (t.op == Transform::Op::Amp) {
        const Uncertainty &u = m_cat.uncertainty();
        m_out.unknowns << QStringLiteral("mixed precision: compute-bound kernels %1x to %2x "
                                         "faster, memory-bound %3x to %4x (as modelled: 3x, 2x)")
                              .arg(u.ampCompute.low)
                              .arg(u.ampCompute.high)
                              .arg(u.ampMemory.low)
                              .arg(u.ampMemory.high);
        if (banded()) {
            f.computeFp32 = f.computeFp16 = 1.0 / u.ampCompute.at(!slow());
            f.memory = 1.0 / u.ampMemory.at(!slow());
        }
    }
    if (t.op == Transform::Op::Device && !changeDevice(t, sel, f, error))
        return false;
    QHash<StringId, double> factorOf;
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        if (!sel[i] || m_nodes[i].slice == 0)
            continue; // inserted nodes keep the duration given or modelled
        const Node &n = m_nodes[i];
        if (n.kind == NodeKind::Memcpy && isHostCopy(m_g.name(n.name)))
            continue; // over the host link, not device memory
        auto it = factorOf.find(n.name);
        if (it == factorOf.end()) {
            const QString name = m_g.name(n.name);
            double x = f.memory;
            if (n.kind == NodeKind::Kernel && classifyKernel(name) == Bound::Compute)
                x = usesHalfPrecision(name) || t.op == Transform::Op::Amp ? f.computeFp16
                                                                          : f.computeFp32;
            if (f.sameVendor && banded())
                x *= m_cat.uncertainty().kernel(kernelKind(name).family, *f.sameVendor).at(slow());
            it = factorOf.insert(n.name, x);
        }
        m_work[i] = scaled(m_work[i], *it);
    }
    return true;
}

// Another GPU: the kernels' factors from the peak rates' ratios, the launch calls by the
// vendors' launch costs, the host path by the factor given.
bool TimingChange::changeDevice(const Transform &t, const NodeSelection &sel, Factors &f,
                                QString *error)
{
    const Device *from = measuredDevice(m_context, m_cat, error);
    if (!from)
        return false;
    const Device *to = m_cat.device(t.target);
    if (!to) {
        *error = QStringLiteral("no device '%1' in the catalog").arg(t.target);
        return false;
    }
    f.computeFp32 = from->fp32Tflops / to->fp32Tflops;
    f.computeFp16 = from->fp16Tflops / to->fp16Tflops;
    f.memory = from->memBwGBps / to->memBwGBps;
    m_out.notes << QStringLiteral(
                       "%1 -> %2: compute-bound kernels x%3 (fp32) / x%4 (fp16), memory-bound "
                       "x%5 (the peak rates' ratios: each kernel assumed as efficient on the "
                       "new "
                       "GPU, its own kernels' algorithms unknown)")
                       .arg(from->id, to->id)
                       .arg(f.computeFp32, 0, 'f', 3)
                       .arg(f.computeFp16, 0, 'f', 3)
                       .arg(f.memory, 0, 'f', 3);
    f.sameVendor = from->vendor == to->vendor;
    noteEfficiencyBand(*from, *to);
    if (from->vendor != to->vendor && to->launchUs > 0)
        changeLaunchCost(*from, *to, sel);
    if (!m_explicitHostLink && from->hostLink != to->hostLink)
        changeHostLink(*from, *to, sel);
    if (t.hostFactor > 0) {
        Selector all;
        const NodeSelection host(m_g, all, quint8(bit(NodeKind::Cpu) | bit(NodeKind::Runtime)),
                                 error);
        const auto changed = speedUpHostPath(host, t.hostFactor, error);
        if (!changed)
            return false;
        m_out.notes << QStringLiteral("host CPU %1x faster, as given: %2 CPU ops and "
                                      "runtime calls on launching "
                                      "threads")
                           .arg(t.hostFactor)
                           .arg(*changed);
        return true;
    }
    const Range cpu = m_cat.uncertainty().hostCpu;
    m_out.notes << QStringLiteral(
        "host CPU assumed unchanged (give host_factor when the new machine's CPU "
        "differs: a vendor change often moves the host path too)");
    m_out.unknowns << QStringLiteral("host CPU of the new machine: its launch path x%1 to x%2")
                          .arg(cpu.low)
                          .arg(cpu.high);
    if (banded()) {
        Selector all;
        const NodeSelection host(m_g, all, quint8(bit(NodeKind::Cpu) | bit(NodeKind::Runtime)),
                                 error);
        if (!speedUpHostPath(host, 1.0 / cpu.at(slow()), error))
            return false;
    }
    return true;
}

// The kernels' efficiency on the target, which the peak rates' ratios take as the source's.
void TimingChange::noteEfficiencyBand(const Device &from, const Device &to)
{
    const Uncertainty &u = m_cat.uncertainty();
    const bool same = from.vendor == to.vendor;
    using F = KernelKind::Family;
    auto r = [&](F family) {
        const Range x = u.kernel(family, same);
        return QStringLiteral("x%1 to x%2").arg(x.low).arg(x.high);
    };
    m_out.unknowns << QStringLiteral("kernel efficiency on %1 (%2): matrix multiplies and "
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
// the difference of the two overheads added, once: this run's own (the median of its kernel
// launch calls) for the source, the catalog's figure for the target. The copy stays with the
// host link (the link transform), the wait with the replay.
void TimingChange::changeLaunchCost(const Device &from, const Device &to, const NodeSelection &sel)
{
    const LaunchCost measured = measuredLaunchCost(m_g);
    const double sourceUs = measured.calls > 0 ? double(measured.median) / 1e3 : from.launchUs;
    const Range band = m_cat.uncertainty().launch;
    const double targetUs = to.launchUs * (banded() ? band.at(slow()) : 1.0);
    const TimeNs delta = TimeNs(std::llround((targetUs - sourceUs) * 1e3));
    std::vector<char> done(m_nodes.size(), 0);
    qint64 calls = 0;
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        const int l = m_nodes[i].launcher;
        if (!sel[i] || l < 0 || done[size_t(l)] || m_nodes[size_t(l)].kind != NodeKind::Runtime)
            continue;
        done[size_t(l)] = 1;
        m_work[size_t(l)] = std::max<TimeNs>(0, m_work[size_t(l)] + delta);
        ++calls;
    }
    const QString source =
        measured.calls > 0
            ? QStringLiteral("this run's %1 kernel launches took a median %2 us")
                  .arg(measured.calls)
                  .arg(sourceUs, 0, 'f', 1)
            : QStringLiteral("no kernel launch measured here: %1 launches in about %2 us, the "
                             "catalog's typical figure")
                  .arg(from.vendor)
                  .arg(from.launchUs);
    m_out.notes << QStringLiteral("%1 launch calls %2%3 us each (%4; %5 launches in about %6 us, "
                                  "the catalog's typical figure); their copies and waits kept")
                       .arg(calls)
                       .arg(delta >= 0 ? QStringLiteral("+") : QString())
                       .arg(double(delta) / 1e3, 0, 'f', 1)
                       .arg(source, to.vendor)
                       .arg(to.launchUs);
    m_out.unknowns << QStringLiteral("%1 launch cost: %2 to %3 us (the catalog's %4 us x%5 to x%6)")
                          .arg(to.vendor)
                          .arg(to.launchUs * band.low)
                          .arg(to.launchUs * band.high)
                          .arg(to.launchUs)
                          .arg(band.low)
                          .arg(band.high);
}

// The new GPU's host link: each selected pinned host copy pays the new link's latency and its
// bandwidth part at the new bandwidth. A pageable copy is staged through host memory, whose
// speed the new link does not change: kept as measured. A host link transform given with the
// device change decides instead.
void TimingChange::changeHostLink(const Device &from, const Device &to, const NodeSelection &sel)
{
    const Link *a = m_cat.link(from.hostLink), *b = m_cat.link(to.hostLink);
    if (!a || !b || a->bwGBps <= 0 || b->bwGBps <= 0)
        return;
    qint64 pinned = 0, pageable = 0;
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        if (!sel[i] || m_nodes[i].kind != NodeKind::Memcpy || m_nodes[i].slice == 0)
            continue;
        const QString name = m_g.name(m_nodes[i].name);
        if (!isHostCopy(name))
            continue;
        if (name.contains(QLatin1String("Pageable"))) {
            ++pageable;
            continue;
        }
        const TimeNs oldLat = TimeNs(a->latencyUs * 1e3);
        const TimeNs rest = std::max<TimeNs>(0, m_work[i] - oldLat);
        m_work[i] = TimeNs(b->latencyUs * 1e3) + scaled(rest, a->bwGBps / b->bwGBps);
        ++pinned;
    }
    m_out.notes << QStringLiteral("host link %1 (%2 GB/s) -> %3 (%4 GB/s): %5 pinned host copies "
                                  "x%6; %7 pageable copies kept (staged through host memory)")
                       .arg(a->name)
                       .arg(a->bwGBps)
                       .arg(b->name)
                       .arg(b->bwGBps)
                       .arg(pinned)
                       .arg(a->bwGBps / b->bwGBps, 0, 'f', 2)
                       .arg(pageable);
}

} // namespace gml::sim::detail

namespace gml::sim {

LaunchCost measuredLaunchCost(const DependencyGraph &g)
{
    const auto &nodes = g.nodes();
    std::vector<char> seen(nodes.size(), 0);
    std::vector<TimeNs> times;
    for (const Node &n : nodes) {
        if (n.kind != NodeKind::Kernel || n.launcher < 0 || seen[size_t(n.launcher)])
            continue;
        seen[size_t(n.launcher)] = 1;
        const Node &call = nodes[size_t(n.launcher)];
        if (call.kind == NodeKind::Runtime && !call.synchronising && call.slice != 0)
            times.push_back(call.work);
    }
    LaunchCost c;
    c.calls = qint64(times.size());
    if (!times.empty()) {
        std::nth_element(times.begin(), times.begin() + qsizetype(times.size() / 2), times.end());
        c.median = times[times.size() / 2];
    }
    return c;
}

} // namespace gml::sim

namespace gml::sim::detail {

bool TimingChange::speedUpHost(const Transform &t, const NodeSelection &sel, QString *error)
{
    const auto changed = speedUpHostPath(sel, t.factor, error);
    if (!changed)
        return false;
    m_out.notes << QStringLiteral("host: %1 CPU ops and runtime calls on launching threads %2")
                       .arg(*changed)
                       .arg(t.factor > 0 ? QStringLiteral("%1x faster").arg(t.factor)
                                         : QStringLiteral("free"));
    return true;
}

// The host's launch path `factor` times faster (0: free): on the threads that launch GPU work,
// the work and the gap before it of what `sel` picks, less data loading and what waits for the
// GPU (hostRoles). The count changed; nullopt with *error on a bad pattern.
std::optional<qint64> TimingChange::speedUpHostPath(const NodeSelection &sel, double factor,
                                                    QString *error)
{
    const auto roles = hostRoles(m_g, error);
    if (!roles)
        return std::nullopt;
    const double f = factor > 0 ? 1.0 / factor : 0.0;
    qint64 changed = 0;
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        if (!sel[i] || (*roles)[i] != HostRole::LaunchPath)
            continue;
        m_work[i] = scaled(m_work[i], f);
        m_slack[i] = scaled(m_slack[i], f);
        ++changed;
    }
    return changed;
}

std::optional<std::vector<HostRole>> hostRoles(const DependencyGraph &g, QString *error)
{
    const auto &nodes = g.nodes();
    std::vector<char> launches(g.resources().size(), 0);
    for (const auto &n : nodes)
        if (n.launcher >= 0)
            launches[size_t(nodes[size_t(n.launcher)].resource)] = 1;
    Selector loading;
    loading.within = inputPattern();
    const NodeSelection input(g, loading, quint8(bit(NodeKind::Cpu) | bit(NodeKind::Runtime)),
                              error);
    if (!input.valid())
        return std::nullopt;
    std::vector<HostRole> roles(nodes.size(), HostRole::None);
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Node &n = nodes[i];
        if (n.kind != NodeKind::Cpu && n.kind != NodeKind::Runtime)
            continue;
        if (input[i])
            roles[i] = HostRole::Loading;
        else if (launches[size_t(n.resource)] && !n.synchronising)
            roles[i] = HostRole::LaunchPath;
    }
    return roles;
}

void TimingChange::unsync(const NodeSelection &sel)
{
    qint64 changed = 0;
    for (size_t i = 0; i < m_nodes.size(); ++i)
        if (sel[i] && m_nodes[i].synchronising) {
            if (m_out.input.unsynced.empty())
                m_out.input.unsynced.assign(m_nodes.size(), 0);
            m_out.input.unsynced[i] = 1;
            ++changed;
        }
    m_out.notes
        << QStringLiteral("unsync: %1 synchronising calls no longer wait for the GPU").arg(changed);
}

// The network link: gathered for the collectives' rescale. The host link: each selected host
// copy pays one latency plus the bandwidth part of its measured time at the new bandwidth.
bool TimingChange::changeLink(const Transform &t, const NodeSelection &sel, QString *error)
{
    const bool network = t.link != QLatin1String("host");
    const Link *m = measuredLink(m_context, network, error);
    if (!m)
        return false;
    if (network) {
        m_net.apply(t, sel);
        m_out.notes << QStringLiteral(
                           "network link: measured over %1 (%2 GB/s, %3 us, %4 collectives)")
                           .arg(m->name)
                           .arg(m->bwGBps)
                           .arg(m->latencyUs)
                           .arg(m_context.measuredAlgorithm);
        return true;
    }
    const double bw = t.bandwidthGBps > 0 ? t.bandwidthGBps : m->bwGBps;
    const double lat = t.latencyUs >= 0 ? t.latencyUs : m->latencyUs;
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        if (!sel[i] || !isHostCopy(m_g.name(m_nodes[i].name)))
            continue;
        const TimeNs oldLat = TimeNs(m->latencyUs * 1e3);
        const TimeNs rest = std::max<TimeNs>(0, m_work[i] - oldLat);
        m_work[i] = TimeNs(lat * 1e3) + scaled(rest, m->bwGBps / bw);
    }
    m_out.notes << QStringLiteral("host link: measured over %1 (%2 GB/s, %3 us)")
                       .arg(m->name)
                       .arg(m->bwGBps)
                       .arg(m->latencyUs);
    return true;
}

} // namespace gml::sim::detail
