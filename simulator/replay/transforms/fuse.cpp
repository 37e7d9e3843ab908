// SPDX-License-Identifier: GPL-3.0-or-later
// fuse: runs of adjacent selected nodes on a resource become one. The first gets
// `duration_ns`, or by `model` the summed work ("sum") or the summed work less the per-kernel
// fixed cost of all but one ("overhead"); the others and their launch calls vanish.
#include "transformkind.h"

#include "jsonfields.h"
#include "timeformat.h"
#include "tracewriter.h"

#include <algorithm>
#include <limits>
#include <memory>

namespace gml::sim::detail {

namespace {

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

class FuseTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("fuse"); }
    std::vector<const char *> keys() const override
    {
        return {"duration_ns", "model", "overhead_ns"};
    }
    void read(JsonFields &f, Transform &t) const override
    {
        t.duration = f.integer("duration_ns", 0, 0, kMaxAbsTimeNs);
        t.model = f.string("model", QStringLiteral("sum"));
        t.overhead = f.integer("overhead_ns", -1, 0, kMaxAbsTimeNs);
    }
    QString invalid(const Transform &t) const override
    {
        if (t.model != QLatin1String("sum") && t.model != QLatin1String("overhead"))
            return QStringLiteral("model must be 'sum' or 'overhead'");
        return {};
    }
    void write(const Transform &t, QJsonObject &o) const override
    {
        if (t.duration > 0) {
            o.insert(QStringLiteral("duration_ns"), qint64(t.duration));
            return;
        }
        o.insert(QStringLiteral("model"), t.model);
        if (t.model == QLatin1String("overhead") && t.overhead >= 0)
            o.insert(QStringLiteral("overhead_ns"), qint64(t.overhead));
    }
    QString describe(const Transform &t, const QString &sel) const override
    {
        QString cost = QStringLiteral("summed time");
        if (t.duration > 0)
            cost = formatDuration(t.duration);
        else if (t.model == QLatin1String("overhead"))
            cost = t.overhead >= 0 ? QStringLiteral("summed time less %1 per kernel")
                                         .arg(formatDuration(t.overhead))
                                   : QStringLiteral("summed time less the per-kernel fixed cost");
        return QStringLiteral("fuse%1 into one (%2)").arg(sel, cost);
    }
    bool changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                     QString *) const override;
};

// Runs of adjacent selected nodes on a resource become one: the first holds the work (their
// sum, the given duration, or the sum less a fixed cost per kernel saved), the others none; a
// launch call whose kernels were all fused away goes too.
bool FuseTransform::changeTimes(TimingStep &s, const Transform &t, const NodeSelection &sel,
                                QString *) const
{
    const auto &nodes = s.nodes;
    const size_t n = nodes.size();
    std::vector<int> kept(n, 0); // per launcher: launched nodes that remain
    std::vector<char> removed(n, 0);
    int fused = 0;
    const bool overheadModel = t.duration <= 0 && t.model == QLatin1String("overhead");
    const auto shortest = overheadModel && t.overhead < 0 ? std::make_unique<ShortestWork>(s.g)
                                                          : std::unique_ptr<ShortestWork>();
    TimeNs saved = 0;
    for (const auto &r : s.g.resources()) {
        for (size_t k = 0; k < r.nodes.size();) {
            if (!sel[size_t(r.nodes[k])]) {
                ++k;
                continue;
            }
            size_t e = k;
            TimeNs sum = 0, longest = 0;
            while (e < r.nodes.size() && sel[size_t(r.nodes[e])]) {
                longest = std::max(longest, s.work[size_t(r.nodes[e])]);
                sum += s.work[size_t(r.nodes[e++])];
            }
            if (e - k >= 2) {
                TimeNs w = t.duration > 0 ? t.duration : sum;
                if (overheadModel) {
                    // Each kernel pays a fixed cost (launch ramp, tail) whatever its work; the
                    // fused one pays it once.
                    const TimeNs o =
                        t.overhead >= 0 ? t.overhead : shortest->of(nodes[size_t(r.nodes[k])]);
                    w = std::max(longest, sum - TimeNs(e - k - 1) * o);
                    saved += sum - w;
                }
                s.work[size_t(r.nodes[k])] = w;
                for (size_t j = k + 1; j < e; ++j) {
                    const auto x = size_t(r.nodes[j]);
                    s.work[x] = s.slack[x] = 0;
                    removed[x] = 1;
                }
                ++fused;
            }
            k = e;
        }
    }
    for (size_t i = 0; i < n; ++i)
        if (nodes[i].launcher >= 0 && !removed[i])
            ++kept[size_t(nodes[i].launcher)];
    for (size_t i = 0; i < n; ++i)
        if (removed[i] && nodes[i].launcher >= 0 && !kept[size_t(nodes[i].launcher)])
            s.work[size_t(nodes[i].launcher)] = s.slack[size_t(nodes[i].launcher)] = 0;
    s.out.notes << (overheadModel
                        ? QStringLiteral(
                              "fuse: %1 groups of adjacent slices fused, %2 of per-kernel fixed "
                              "cost saved (%3)")
                              .arg(fused)
                              .arg(formatDuration(saved),
                                   t.overhead >= 0
                                       ? QStringLiteral("%1 each").arg(formatDuration(t.overhead))
                                       : QStringLiteral("each the shortest kernel of its GPU"))
                        : QStringLiteral("fuse: %1 groups of adjacent slices fused").arg(fused));
    return true;
}

} // namespace

const TransformKind &fuseKind()
{
    static const FuseTransform kind;
    return kind;
}

} // namespace gml::sim::detail
