// SPDX-License-Identifier: GPL-3.0-or-later
// insert: a new slice named `name` after each selected one, on the same resource (a kernel on a
// GPU, a CPU op on a thread), of `duration_ns`, or of `flops` and `bytes` on the roofline of
// the GPU in effect.
#include "transformkind.h"

#include "devicecatalog.h"
#include "jsonfields.h"
#include "timeformat.h"
#include "tracewriter.h"

namespace gml::sim::detail {

namespace {

class InsertTransform final : public TransformKind
{
public:
    QString op() const override { return QStringLiteral("insert"); }
    std::vector<const char *> keys() const override
    {
        return {"name", "duration_ns", "flops", "bytes", "precision"};
    }
    void read(JsonFields &f, Transform &t) const override
    {
        t.name = f.string("name", QStringLiteral("inserted"));
        t.duration = f.integer("duration_ns", 0, 0, kMaxAbsTimeNs);
        t.flops = f.number("flops", 0, 0, limits::kMaxFlops);
        t.bytes = f.number("bytes", 0, 0, limits::kMaxBytes);
        t.precision = f.string("precision", QStringLiteral("fp32"));
    }
    QString invalid(const Transform &t) const override
    {
        if (t.precision != QLatin1String("fp32") && t.precision != QLatin1String("fp16"))
            return QStringLiteral("precision must be 'fp32' or 'fp16'");
        return {};
    }
    void write(const Transform &t, QJsonObject &o) const override
    {
        o.insert(QStringLiteral("name"), t.name);
        if (!byRoofline(t)) {
            o.insert(QStringLiteral("duration_ns"), qint64(t.duration));
            return;
        }
        if (t.flops > 0)
            o.insert(QStringLiteral("flops"), t.flops);
        if (t.bytes > 0)
            o.insert(QStringLiteral("bytes"), t.bytes);
        o.insert(QStringLiteral("precision"), t.precision);
    }
    QString describe(const Transform &t, const QString &sel) const override
    {
        QString cost = formatDuration(t.duration);
        if (byRoofline(t))
            cost = QStringLiteral("%1 GFLOP %2, %3 MB by the roofline")
                       .arg(t.flops / 1e9, 0, 'g', 4)
                       .arg(t.precision)
                       .arg(t.bytes / 1e6, 0, 'g', 4);
        return QStringLiteral("insert '%1' (%2) after%3").arg(t.name, cost, sel);
    }
    bool structural(const Transform &, bool) const override { return true; }
    // Always structural: the inserted nodes have their work from build().
    bool build(StructureStep &step, const Transform &t, QString *error) const override;

private:
    static bool byRoofline(const Transform &t)
    {
        return t.duration <= 0 && (t.flops > 0 || t.bytes > 0);
    }
};

// The GPU the kernels run on after the transforms: the last device transform's, else the
// measured one.
const Device *deviceInEffect(const StructureStep &step, QString *error)
{
    if (const Device *d = step.cat.device(targetDevice(step.transforms)))
        return d;
    return measuredDevice(step.context, step.cat, error);
}

bool InsertTransform::build(StructureStep &step, const Transform &t, QString *error) const
{
    Structural &s = step.s;
    const NodeSelection sel(*s.graph, t.select, 0xff, error);
    if (!sel.valid())
        return false;
    TimeNs duration = t.duration;
    if (byRoofline(t)) {
        const Device *dev = deviceInEffect(step, error);
        if (!dev)
            return false;
        duration = rooflineTime(*dev, t.flops, t.bytes, t.precision == QLatin1String("fp16"));
        s.notes << QStringLiteral("insert '%1': %2 on %3 (roofline at %4% of peak)")
                       .arg(t.name, formatDuration(duration), dev->id)
                       .arg(kAchieved * 100);
    }
    const StringId name = s.graph->syntheticName(t.name);
    const size_t n = step.measured.nodes().size();
    for (size_t i = 0; i < n; ++i) {
        if (!sel[i])
            continue;
        Node node = s.graph->nodes()[i];
        node.slice = 0;
        node.cat = 0;
        node.name = name;
        node.launcher = -1;
        node.collectiveOp = -1;
        node.synchronising = false;
        node.bytes = 0;
        node.kind =
            s.graph->resources()[size_t(node.resource)].gpu ? NodeKind::Kernel : NodeKind::Cpu;
        node.start = node.end;
        node.slack = 0;
        node.work = duration;
        s.graph->insertNode(node, int(i));
    }
    return true;
}

} // namespace

const TransformKind &insertKind()
{
    static const InsertTransform kind;
    return kind;
}

} // namespace gml::sim::detail
