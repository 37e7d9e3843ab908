// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The costed operators of a run's or a source's CPU threads (opcost.h), gathered while their
// slices are read and resolved once all are: the outermost costed op of each stack on a thread,
// a forward convolution's output from a backward of the same shapes, which parts of a backward
// convolution ran, and the FLOPs the profiler recorded ("flops", with_flops=True), which win.
// The dependency graph (opCosts(), MFU) and the source summaries (the Runs pane's MFU) read
// the same ops the same way.

#include "opcost.h"
#include "slicestore.h"
#include "types.h"

#include <QString>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gml {

class Project;

struct CostedOp
{
    int thread = 0; // the caller's key for the slice's thread (a resource, a track)
    SliceId slice = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    StringId name = 0;
    OpClass cls = OpClass::None;
    double flops = 0;
    double bytes = 0;
    bool known = false;    // false: shapes missing (`missing` says which)
    bool recorded = false; // flops is the profiler's own count
    bool half = false;
    bool bf16 = false; // half, and bfloat16
    // Model FLOPs (matmul, convolution, attention) from shapes, for an op that holds no
    // recorded count: what MFU adds to the recorded ones.
    bool modelFlops = false;
    QString missing;
    // Its shapes or recorded FLOPs lie outside physical bounds (physical.h): not costed, and
    // `missing` says what was dropped; callers count these and warn.
    bool outOfDomain = false;
};

class OpCostScan
{
public:
    explicit OpCostScan(Project &project);
    // A CPU slice as it is read (its args are readable now); `thread` keys its thread.
    void visit(slicestore::TrackReader &reader, const slicestore::Row &x, TimeNs start, TimeNs end,
               int thread);
    // The outermost costed ops. `recordedAt`: per thread, the starts of the slices that carry a
    // recorded "flops" (an op holding one is counted by it).
    std::vector<CostedOp> finish(const std::map<int, std::vector<TimeNs>> &recordedAt);
    // The same ops handed to `each` one by one, in the same order, none kept: a caller that
    // only sums them holds no list as long as the source's ops (41 MB of a 256 MB trace's
    // import, at its peak).
    void finish(const std::map<int, std::vector<TimeNs>> &recordedAt,
                const std::function<void(CostedOp &&)> &each);

private:
    struct Parsed
    {
        std::optional<OpInputs> inputs;
        QString outside;
    };
    // A costed op as visited: its shapes are the parsed text it shares with every op of the same
    // args (a pointer into m_parsed, whose entries never move), not a copy of them each (a
    // vector of dims a visit, and most of the scan's page faults on a 256 MB trace).
    struct Seen
    {
        int thread;
        SliceId slice;
        TimeNs start, end;
        StringId name;
        OpClass cls;
        const Parsed *shapes; // null: no shapes recorded
        std::optional<double> recorded;
        int parts = 0;
        bool nested = false;
        QString badFlops; // a recorded count outside physical bounds (dropped)

        const OpInputs *inputs() const
        {
            return shapes && shapes->inputs ? &*shapes->inputs : nullptr;
        }
        // What lay outside physical bounds (the op is dropped), empty when nothing did.
        const QString &outside() const
        {
            static const QString none;
            return !badFlops.isEmpty() ? badFlops : shapes ? shapes->outside : none;
        }
    };
    // A name's class (None: not costed) and text, looked up the first time the name is seen: a
    // source uses a few dozen names, where the costed ones are two hundred (issue 74).
    const std::pair<OpClass, QString> &classOf(StringId name);
    Project &m_project;
    std::unordered_map<StringId, std::pair<OpClass, QString>> m_classOf;
    std::vector<Seen> m_seen;
    std::unordered_map<std::string, Parsed> m_parsed; // by dims, types, concrete
    std::string m_key;
};

} // namespace gml
