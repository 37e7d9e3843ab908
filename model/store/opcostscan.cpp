// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphopcost.h"

#include "trackrecords.h"

#include <algorithm>
#include <map>
#include <string>

namespace gml::sim {

OpCostCollector::OpCostCollector(Project &project)
{
    for (const QString &name : costedOpNames())
        if (const StringId id = existingString(project, name))
            m_classOf.emplace(id, opClass(name));
}

void OpCostCollector::visit(slicestore::TrackReader &reader, const slicestore::Row &x, TimeNs start,
                            TimeNs end, int resource)
{
    const auto it = m_classOf.find(x.name);
    if (it == m_classOf.end())
        return;
    Seen s{resource, start, end, x.name, it->second, {}, false, std::nullopt};
    if (it->second != OpClass::ConvBackwardPart) {
        const auto dims = reader.arg(x, "Input Dims");
        const auto types = reader.arg(x, "Input type");
        const auto concrete = reader.arg(x, "Concrete Inputs");
        if (dims) {
            if (auto in = OpInputs::parse(*dims, types.value_or(std::string_view()),
                                          concrete.value_or(std::string_view()))) {
                s.inputs = std::move(*in);
                s.parsed = true;
            }
        }
        if (const auto f = reader.arg(x, "flops"))
            s.recorded = std::strtod(std::string(*f).c_str(), nullptr);
    }
    m_seen.push_back(std::move(s));
}

void OpCostCollector::finish(DependencyGraph &g)
{
    // Nesting, per thread: an op inside another costed op is part of it; the parts of a
    // backward convolution say which of grad input and grad weight ran.
    std::sort(m_seen.begin(), m_seen.end(), [](const Seen &a, const Seen &b) {
        return std::tie(a.resource, a.start, b.end) < std::tie(b.resource, b.start, a.end);
    });
    std::vector<size_t> open;
    for (size_t i = 0; i < m_seen.size(); ++i) {
        Seen &s = m_seen[i];
        while (!open.empty() &&
               (m_seen[open.back()].resource != s.resource || m_seen[open.back()].end <= s.start))
            open.pop_back();
        if (!open.empty()) {
            s.nested = true;
            if (s.cls == OpClass::ConvBackwardPart)
                for (auto o = open.rbegin(); o != open.rend(); ++o)
                    if (m_seen[*o].cls == OpClass::ConvBackward) {
                        ++m_seen[*o].parts;
                        break;
                    }
        }
        open.push_back(i);
    }
    // A forward convolution's output: the grad output of a backward of the same input and
    // weight shapes (one answer only; two different ones leave it unknown).
    std::map<std::pair<Dims, Dims>, std::optional<Dims>> outputOf;
    for (const Seen &s : m_seen) {
        if (s.nested || s.cls != OpClass::ConvBackward || !s.parsed || s.inputs.dims.size() < 3)
            continue;
        const QString name = g.name(s.name);
        const bool generic = name.contains(QLatin1String("aten::convolution_backward"));
        const Dims &gout = s.inputs.dims[generic ? 0 : 1], &in = s.inputs.dims[generic ? 1 : 0];
        const auto key = std::make_pair(in, s.inputs.dims[2]);
        const auto it = outputOf.find(key);
        if (it == outputOf.end())
            outputOf.emplace(key, gout);
        else if (it->second && *it->second != gout)
            it->second.reset();
    }
    // Recorded counts, per thread by start: an op that holds one is counted by it.
    std::map<int, std::vector<TimeNs>> recordedAt;
    for (const auto &f : g.m_flops)
        recordedAt[f.resource].push_back(f.start);
    for (auto &[r, v] : recordedAt)
        std::sort(v.begin(), v.end());
    auto holdsRecorded = [&](const Seen &s) {
        const auto it = recordedAt.find(s.resource);
        if (it == recordedAt.end())
            return false;
        const auto f = std::lower_bound(it->second.begin(), it->second.end(), s.start);
        return f != it->second.end() && *f < s.end;
    };
    for (const Seen &s : m_seen) {
        if (s.nested || s.cls == OpClass::ConvBackwardPart)
            continue;
        DependencyGraph::OpCostRecord r;
        r.resource = s.resource;
        r.start = s.start;
        r.end = s.end;
        r.name = s.name;
        r.cls = s.cls;
        const QString name = g.name(s.name);
        OpCost c;
        if (!s.parsed) {
            c.missing = QStringLiteral("no shapes recorded (record_shapes=False)");
        } else {
            const Dims *out = nullptr;
            if (s.cls == OpClass::Convolution && s.inputs.dims.size() >= 2) {
                const auto it = outputOf.find({s.inputs.dims[0], s.inputs.dims[1]});
                if (it != outputOf.end() && it->second)
                    out = &*it->second;
            }
            c = opCost(name, s.inputs, out, s.parts > 0 ? s.parts : 2);
        }
        r.known = c.known;
        r.flops = c.flops;
        r.bytes = c.bytes;
        r.half = c.halfPrecision;
        if (s.recorded) {
            r.flops = *s.recorded;
            r.recorded = true;
            r.known = true;
        } else if (c.known && isModelFlops(s.cls) && !holdsRecorded(s)) {
            g.m_flops.push_back({s.start, c.flops, s.resource});
            r.modelFlopsAdded = true;
        }
        if (!r.known) {
            ++g.m_opGaps.ops;
            ++g.m_opGaps.why[QStringLiteral("%1: %2").arg(name, c.missing)];
        }
        g.m_opCosts.push_back(r);
    }
    m_seen.clear();
}

} // namespace gml::sim
