// SPDX-License-Identifier: GPL-3.0-or-later
// The what-if transforms: each kind once, in the order of the reference (docs/whatif.md). A new
// transform is a file of its own in this folder (a TransformKind, transformkind.h) and one line
// in each list below.
#include "transformkind.h"

#include "jsonfields.h"

namespace gml::sim::detail {

const TransformKind &scaleKind();
const TransformKind &removeKind();
const TransformKind &setKind();
const TransformKind &insertKind();
const TransformKind &fuseKind();
const TransformKind &deviceKind();
const TransformKind &ampKind();
const TransformKind &computeKind();
const TransformKind &memoryKind();
const TransformKind &inputKind();
const TransformKind &linkKind();
const TransformKind &workersKind();
const TransformKind &rescheduleKind();
const TransformKind &hostKind();
const TransformKind &unsyncKind();

const std::vector<const TransformKind *> &transformKinds()
{
    static const std::vector<const TransformKind *> kinds = {
        &scaleKind(),  &removeKind(),  &setKind(),        &insertKind(), &fuseKind(),
        &deviceKind(), &ampKind(),     &computeKind(),    &memoryKind(), &inputKind(),
        &linkKind(),   &workersKind(), &rescheduleKind(), &hostKind(),   &unsyncKind(),
    };
    return kinds;
}

const TransformKind *transformKind(const QString &op)
{
    for (const TransformKind *k : transformKinds())
        if (k->op() == op)
            return k;
    return nullptr;
}

void FactorTransform::read(JsonFields &f, Transform &t) const
{
    t.factor = f.number("factor", 1, minFactor(), limits::kMaxFactor);
}

void FactorTransform::write(const Transform &t, QJsonObject &o) const
{
    o.insert(QStringLiteral("factor"), t.factor);
}

TimingStep::TimingStep(Prepared &out, const WhatIfContext &context, const DeviceCatalog &cat,
                       NetworkChange &net, bool explicitHostLink)
    : g(*out.graph), nodes(g.nodes()), out(out), work(out.input.work), slack(out.input.slack),
      context(context), cat(cat), net(net), explicitHostLink(explicitHostLink)
{
}

} // namespace gml::sim::detail

namespace gml::sim {

QStringList transformOps()
{
    QStringList ops;
    for (const detail::TransformKind *k : detail::transformKinds())
        ops << k->op();
    return ops;
}

} // namespace gml::sim
