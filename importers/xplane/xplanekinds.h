// SPDX-License-Identifier: GPL-3.0-or-later
// What an XPlane's metadata says of its events and stats, and the text helpers the XPlane
// importer writes args with. Shared by xplaneimporter.cpp and xplanekinds.cpp only.
#pragma once

#include "proto/xplane.pb.h"
#include "tracewriter.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace gml::xplanedetail {

// Text as UTF-8, invalid sequences replaced.
std::string utf8(const std::string &s);
// `s` as a JSON string, quoted and escaped, appended to `out`.
void appendJsonString(std::string &out, std::string_view s);
// A TensorFlow op's full name, "scope/name:Type", by tf_op_utils' rule: split at the first
// colon, a name of [A-Za-z0-9.][A-Za-z0-9_./>-]* and a type of [A-Z_][A-Za-z0-9_]* (so
// "ExecutorState::Process" is not one).
bool isTfOpName(const std::string &full);
inline bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

// What one plane's metadata says of its events and stats (names, categories, the args every
// event of a kind has), worked out once per id as importPlane meets them.
class PlaneKinds
{
public:
    struct Kind
    {
        StringId name = 0;
        std::string longName; // set when the display name is shown
        bool tfOp = false;
        bool memcpy = false, memset = false;
        std::string args;   // the metadata's stats, as JSON members
        bool cupti = false; // a CUDA API call ("cu…" name) on a host plane
        bool driver = false;
    };

    PlaneKinds(const xplane::XPlane &plane, TraceWriter &w, bool device, qint64 &noMetadata);
    const std::string &statName(qint64 id) const;
    // Stat ids the importer reads, by name.
    qint64 statId(const char *name) const;
    // A stat as a JSON member appended to `out` (not the ones kept out of args).
    void appendStat(std::string &out, const xplane::XStat &stat) const;
    const Kind &kindOf(qint64 id);
    StringId category(const std::string &c);

private:
    const xplane::XPlane &plane;
    TraceWriter &w;
    const bool device;
    qint64 &noMetadata;
    const qint64 memcpyStat, memsetStat;
    std::unordered_map<qint64, Kind> kinds;
    std::unordered_map<std::string, StringId> categories;
};

} // namespace gml::xplanedetail
