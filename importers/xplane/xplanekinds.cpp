// SPDX-License-Identifier: GPL-3.0-or-later
#include "xplanekinds.h"

#include "jsonscan.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace gml::xplanedetail {

// Text as UTF-8, invalid sequences replaced.
std::string utf8(const std::string &s)
{
    return json::findInvalidUtf8(s.data(), s.size()) < 0 ? s : json::repairUtf8(s);
}

void appendJsonString(std::string &out, std::string_view s)
{
    out += '"';
    for (const char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

// A TensorFlow op's full name, "scope/name:Type", by tf_op_utils' rule: split at the first
// colon, a name of [A-Za-z0-9.][A-Za-z0-9_./>-]* and a type of [A-Z_][A-Za-z0-9_]* (so
// "ExecutorState::Process" is not one).
bool isTfOpName(const std::string &full)
{
    const size_t colon = full.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 >= full.size())
        return false;
    auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    if (!(alnum(full[0]) || full[0] == '.'))
        return false;
    for (size_t i = 1; i < colon; ++i) {
        const char c = full[i];
        if (!(alnum(c) || c == '_' || c == '.' || c == '/' || c == '>' || c == '-'))
            return false;
    }
    const char first = full[colon + 1];
    if (!(std::isupper(static_cast<unsigned char>(first)) || first == '_'))
        return false;
    for (size_t i = colon + 2; i < full.size(); ++i)
        if (!(alnum(full[i]) || full[i] == '_'))
            return false;
    return true;
}

PlaneKinds::PlaneKinds(const xplane::XPlane &plane, TraceWriter &w, bool device, qint64 &noMetadata)
    : plane(plane), w(w), device(device), noMetadata(noMetadata),
      memcpyStat(statId("memcpy_details")), memsetStat(statId("memset_details"))
{
}

const std::string &PlaneKinds::statName(qint64 id) const
{
    static const std::string none;
    auto it = plane.stat_metadata().find(id);
    return it == plane.stat_metadata().end() ? none : it->second.name();
}
qint64 PlaneKinds::statId(const char *name) const
{
    for (const auto &[id, m] : plane.stat_metadata())
        if (m.name() == name)
            return id;
    return -1;
}
void PlaneKinds::appendStat(std::string &out, const xplane::XStat &stat) const
{
    const std::string &name = statName(stat.metadata_id());
    if (name.empty() || name[0] == '_' || stat.value_case() == xplane::XStat::kBytesValue ||
        stat.value_case() == xplane::XStat::VALUE_NOT_SET)
        return;
    if (!out.empty())
        out += ',';
    appendJsonString(out, utf8(name));
    out += ':';
    char buf[32];
    switch (stat.value_case()) {
    case xplane::XStat::kDoubleValue: {
        const double v = stat.double_value();
        if (std::isfinite(v)) {
            auto r = std::to_chars(buf, buf + sizeof buf, v);
            out.append(buf, r.ptr);
        } else {
            out += "null";
        }
        break;
    }
    case xplane::XStat::kUint64Value: {
        auto r = std::to_chars(buf, buf + sizeof buf, stat.uint64_value());
        out.append(buf, r.ptr);
        break;
    }
    case xplane::XStat::kInt64Value: {
        auto r = std::to_chars(buf, buf + sizeof buf, stat.int64_value());
        out.append(buf, r.ptr);
        break;
    }
    case xplane::XStat::kStrValue:
        appendJsonString(out, utf8(stat.str_value()));
        break;
    case xplane::XStat::kRefValue:
        appendJsonString(out, utf8(statName(qint64(stat.ref_value()))));
        break;
    default:
        break;
    }
}
const PlaneKinds::Kind &PlaneKinds::kindOf(qint64 id)
{
    auto it = kinds.find(id);
    if (it != kinds.end())
        return it->second;
    Kind k;
    auto m = plane.event_metadata().find(id);
    if (m == plane.event_metadata().end()) {
        ++noMetadata;
        k.name = w.intern("event " + std::to_string(id));
        return kinds.emplace(id, std::move(k)).first->second;
    }
    const std::string name = utf8(m->second.name()), display = utf8(m->second.display_name());
    k.name = w.intern(display.empty() ? name : display);
    if (!display.empty() && display != name)
        k.longName = name;
    k.tfOp = isTfOpName(name);
    k.memcpy = startsWith(display.empty() ? name : display, "Memcpy") || startsWith(name, "memcpy");
    k.memset = startsWith(display.empty() ? name : display, "Memset") || startsWith(name, "memset");
    k.cupti = !device && startsWith(name, "cu");
    k.driver = k.cupti && !startsWith(name, "cuda");
    for (const auto &stat : m->second.stats()) {
        appendStat(k.args, stat);
        if (stat.metadata_id() == memcpyStat && memcpyStat >= 0)
            k.memcpy = true;
        else if (stat.metadata_id() == memsetStat && memsetStat >= 0)
            k.memset = true;
    }
    return kinds.emplace(id, std::move(k)).first->second;
}
StringId PlaneKinds::category(const std::string &c)
{
    auto it = categories.find(c);
    return it != categories.end() ? it->second : categories.emplace(c, w.intern(c)).first->second;
}

} // namespace gml::xplanedetail
