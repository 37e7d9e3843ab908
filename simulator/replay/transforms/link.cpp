// SPDX-License-Identifier: GPL-3.0-or-later
// link: `link` "network" (the collectives) or "host" (host<->device copies) gets a new
// bandwidth, latency and/or collective algorithm. The network's are gathered for the
// collectives' one rescale (NetworkChange); each selected host copy pays one latency plus the
// bandwidth part of its measured time at the new bandwidth.
#include "transformkind.h"

#include "devicecatalog.h"
#include "jsonfields.h"

#include <algorithm>

namespace gml::sim::detail {

namespace {

bool isNetwork(const Transform &t)
{
    return t.link != QLatin1String("host");
}

class LinkTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("link"); }
    std::vector<const char *> keys() const override
    {
        return {"link", "bandwidth_gbps", "latency_us", "algorithm"};
    }
    void read(JsonFields &f, Transform &t) const override
    {
        t.link = f.string("link", QStringLiteral("network"));
        t.bandwidthGBps =
            f.number("bandwidth_gbps", 0, limits::kMinRate, limits::kMaxBandwidthGBps);
        t.latencyUs = f.number("latency_us", -1, 0, limits::kMaxLatencyUs);
        t.algorithm = f.string("algorithm");
    }
    QString invalid(const Transform &t) const override
    {
        if (t.link != QLatin1String("network") && t.link != QLatin1String("host"))
            return QStringLiteral("link must be 'network' or 'host'");
        if (t.bandwidthGBps <= 0 && t.latencyUs < 0 && t.algorithm.isEmpty())
            return QStringLiteral("give a bandwidth, a latency, an algorithm or some of them");
        if (!t.algorithm.isEmpty() && !collectiveAlgorithms().contains(t.algorithm))
            return QStringLiteral("algorithm must be 'ring' or 'tree'");
        return {};
    }
    void write(const Transform &t, QJsonObject &o) const override
    {
        o.insert(QStringLiteral("link"), t.link);
        if (t.bandwidthGBps > 0)
            o.insert(QStringLiteral("bandwidth_gbps"), t.bandwidthGBps);
        if (t.latencyUs >= 0)
            o.insert(QStringLiteral("latency_us"), t.latencyUs);
        if (!t.algorithm.isEmpty())
            o.insert(QStringLiteral("algorithm"), t.algorithm);
    }
    QString describe(const Transform &t, const QString &) const override
    {
        QStringList p;
        if (t.bandwidthGBps > 0)
            p << QStringLiteral("%1 GB/s").arg(t.bandwidthGBps);
        if (t.latencyUs >= 0)
            p << QStringLiteral("%1 us latency").arg(t.latencyUs);
        if (!t.algorithm.isEmpty())
            p << QStringLiteral("%1 collectives").arg(t.algorithm);
        return QStringLiteral("%1 link %2").arg(t.link, p.join(QStringLiteral(", ")));
    }
    quint8 nodeKinds(const Transform &t) const override
    {
        return isNetwork(t) ? bit(NodeKind::Collective) : bit(NodeKind::Memcpy);
    }
    bool changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                     QString *error) const override;
};

bool LinkTransform::changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                                QString *error) const
{
    const bool network = isNetwork(t);
    const Link *m = measuredLink(s.context, network, error);
    if (!m)
        return false;
    if (network) {
        s.net.apply(sel, [&](NetworkChange::State &c) {
            if (!t.algorithm.isEmpty())
                c.algorithm = t.algorithm;
            if (t.bandwidthGBps > 0)
                c.bwGBps = t.bandwidthGBps;
            if (t.latencyUs >= 0)
                c.latencyUs = t.latencyUs;
        });
        s.out.notes << QStringLiteral(
                           "network link: measured over %1 (%2 GB/s, %3 us, %4 collectives)")
                           .arg(m->name)
                           .arg(m->bwGBps)
                           .arg(m->latencyUs)
                           .arg(s.context.measuredAlgorithm);
        return true;
    }
    const double bw = t.bandwidthGBps > 0 ? t.bandwidthGBps : m->bwGBps;
    const double lat = t.latencyUs >= 0 ? t.latencyUs : m->latencyUs;
    for (size_t i = 0; i < s.nodes.size(); ++i) {
        if (!sel[i] || !isHostCopy(s.g.name(s.nodes[i].name)))
            continue;
        const TimeNs oldLat = TimeNs(m->latencyUs * 1e3);
        const TimeNs rest = std::max<TimeNs>(0, s.work[i] - oldLat);
        s.work[i] = TimeNs(lat * 1e3) + scaled(rest, m->bwGBps / bw);
    }
    s.out.notes << QStringLiteral("host link: measured over %1 (%2 GB/s, %3 us)")
                       .arg(m->name)
                       .arg(m->bwGBps)
                       .arg(m->latencyUs);
    return true;
}

} // namespace

const TransformKind &linkKind()
{
    static const LinkTransform kind;
    return kind;
}

} // namespace gml::sim::detail
