// SPDX-License-Identifier: GPL-3.0-or-later
#include "opcostscan.h"

#include "physical.h"
#include "trackrecords.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>

namespace gml {

OpCostScan::OpCostScan(Project &project) : m_project(project) {}

const std::pair<OpClass, QString> &OpCostScan::classOf(StringId name)
{
    auto it = m_classOf.find(name);
    if (it == m_classOf.end()) {
        QString text = m_project.string(name);
        const OpClass c = opClass(text);
        it =
            m_classOf.emplace(name, std::make_pair(c, c == OpClass::None ? QString() : text)).first;
    }
    return it->second;
}

void OpCostScan::visit(slicestore::TrackReader &reader, const slicestore::Row &x, TimeNs start,
                       TimeNs end, int thread)
{
    const OpClass cls = classOf(x.name).first;
    if (cls == OpClass::None)
        return;
    Seen s{thread, x.id, start, end, x.name, cls, nullptr, std::nullopt, 0, false, {}};
    if (cls != OpClass::ConvBackwardPart) {
        // The op's shapes and its recorded FLOPs, in one pass over its args.
        static constexpr std::string_view kKeys[] = {"Input Dims", "Input type", "Concrete Inputs",
                                                     "flops"};
        std::array<std::optional<std::string_view>, std::size(kKeys)> v;
        reader.args(x, kKeys, v);
        const auto &[dims, types, concrete, flops] = v;
        if (dims) {
            // Most calls repeat a few shapes (every step runs the same layers): each distinct
            // text is parsed once.
            m_key.assign(*dims);
            m_key += '\x1f';
            m_key += types.value_or(std::string_view());
            m_key += '\x1f';
            m_key += concrete.value_or(std::string_view());
            auto it = m_parsed.find(m_key);
            if (it == m_parsed.end()) {
                Parsed p;
                p.inputs = OpInputs::parse(*dims, types.value_or(std::string_view()),
                                           concrete.value_or(std::string_view()), &p.outside);
                it = m_parsed.emplace(m_key, std::move(p)).first;
            }
            s.shapes = &it->second;
        }
        if (const auto &f = flops) {
            s.recorded = physical::recordedFlops(*f);
            if (!s.recorded)
                s.badFlops = QStringLiteral("recorded flops %1 (a count is from 0 to 2^60)")
                                 .arg(QString::fromUtf8(
                                     f->data(), qsizetype(std::min<size_t>(f->size(), 40))));
        }
    }
    m_seen.push_back(std::move(s));
}

std::vector<CostedOp> OpCostScan::finish(const std::map<int, std::vector<TimeNs>> &recordedAt)
{
    std::vector<CostedOp> out;
    finish(recordedAt, [&](CostedOp &&op) { out.push_back(std::move(op)); });
    return out;
}

void OpCostScan::finish(const std::map<int, std::vector<TimeNs>> &recordedAt,
                        const std::function<void(CostedOp &&)> &each)
{
    auto nameOf = [&](StringId id) { return m_classOf.at(id).second; };
    // Nesting, per thread: an op inside another costed op is part of it; the parts of a
    // backward convolution say which of grad input and grad weight ran.
    std::sort(m_seen.begin(), m_seen.end(), [](const Seen &a, const Seen &b) {
        return std::tie(a.thread, a.start, b.end) < std::tie(b.thread, b.start, a.end);
    });
    std::vector<size_t> open;
    for (size_t i = 0; i < m_seen.size(); ++i) {
        Seen &s = m_seen[i];
        while (!open.empty() &&
               (m_seen[open.back()].thread != s.thread || m_seen[open.back()].end <= s.start))
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
        const OpInputs *inputs = s.inputs();
        if (s.nested || s.cls != OpClass::ConvBackward || !inputs || inputs->dims.size() < 3)
            continue;
        const bool generic = nameOf(s.name).startsWith(QLatin1String("aten::convolution_backward"));
        const Dims &gout = inputs->dims[generic ? 0 : 1], &in = inputs->dims[generic ? 1 : 0];
        const auto key = std::make_pair(in, inputs->dims[2]);
        const auto it = outputOf.find(key);
        if (it == outputOf.end())
            outputOf.emplace(key, gout);
        else if (it->second && *it->second != gout)
            it->second.reset();
    }
    auto holdsRecorded = [&](const Seen &s) {
        const auto it = recordedAt.find(s.thread);
        if (it == recordedAt.end())
            return false;
        const auto f = std::lower_bound(it->second.begin(), it->second.end(), s.start);
        return f != it->second.end() && *f < s.end;
    };
    for (const Seen &s : m_seen) {
        if (s.nested || s.cls == OpClass::ConvBackwardPart)
            continue;
        CostedOp r;
        r.thread = s.thread;
        r.slice = s.slice;
        r.start = s.start;
        r.end = s.end;
        r.name = s.name;
        r.cls = s.cls;
        OpCost c;
        if (const QString &outside = s.outside(); !outside.isEmpty()) {
            r.outOfDomain = true;
            r.missing = QStringLiteral("dropped, outside physical bounds: ") + outside;
            each(std::move(r));
            continue;
        }
        if (const OpInputs *inputs = s.inputs(); !inputs) {
            c.missing = QStringLiteral("no shapes recorded (record_shapes=False)");
        } else {
            const Dims *conv = nullptr;
            if (s.cls == OpClass::Convolution && inputs->dims.size() >= 2) {
                const auto it = outputOf.find({inputs->dims[0], inputs->dims[1]});
                if (it != outputOf.end() && it->second)
                    conv = &*it->second;
            }
            c = opCost(nameOf(s.name), *inputs, conv, s.parts > 0 ? s.parts : 2);
            if (c.known && (!std::isfinite(c.flops) || c.flops > physical::kMaxOpFlops ||
                            !std::isfinite(c.bytes))) {
                r.outOfDomain = true;
                r.missing = QStringLiteral("dropped, outside physical bounds: %1 FLOPs from its "
                                           "shapes (more than 2^60)")
                                .arg(c.flops, 0, 'g', 3);
                each(std::move(r));
                continue;
            }
        }
        r.known = c.known;
        r.flops = c.flops;
        r.bytes = c.bytes;
        r.half = c.halfPrecision;
        r.bf16 = c.bf16;
        r.missing = c.missing;
        if (s.recorded) {
            r.flops = *s.recorded;
            r.recorded = true;
            r.known = true;
        } else {
            r.modelFlops = c.known && isModelFlops(s.cls) && !holdsRecorded(s);
        }
        each(std::move(r));
    }
    m_seen = {};
}

} // namespace gml
