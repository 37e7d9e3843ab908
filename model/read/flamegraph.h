// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinedata.h"
#include "types.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <limits>
#include <unordered_map>
#include <vector>

namespace gml {

class Project;

// A flame graph (icicle) of a time range of a run: the call stacks of its CPU threads (the
// nesting of ranges, record_function, python_function and ops), merged by path.
//   CpuSelf: each slice weighs its self time inside the range (its clipped time less its
//     children's), so a thread's frames add up to the time some slice covered it in the range.
//   GpuTime: each piece of GPU work (kernel, copy, set, collective) inside the range weighs its
//     clipped time, attached under the stack of the runtime call that launched it (launch
//     flows; an op's External id link where no launch was recorded); work with no recorded
//     launch sits under "(launch not recorded)".
enum class FlameMetric { CpuSelf, GpuTime };

struct FlameRequest
{
    RunId run = 0;                                  // 0: every run
    int rank = -1;                                  // -1: every rank
    TimeNs t0 = std::numeric_limits<TimeNs>::min(); // project clock, half-open [t0, t1)
    TimeNs t1 = std::numeric_limits<TimeNs>::max();
    FlameMetric metric = FlameMetric::CpuSelf;
    QList<TrackId> tracks; // non-empty: only these tracks (the threads, or the GPU streams)
};

struct FlameFrame
{
    QString name;
    bool gpu = false; // GPU work (GpuTime's leaves)
    int parent = -1;
    int depth = 0;       // the root's children are depth 0
    TimeNs self = 0;     // the weight of this frame itself
    TimeNs total = 0;    // self and the children's totals
    TimeNs baseSelf = 0; // a diff's baseline (diffFlame): the frame's self in `before`
    TimeNs baseTotal = 0;
    qint64 count = 0;             // slices merged into it
    std::vector<int> children;    // by total, largest first (after finish())
    std::vector<SliceRef> slices; // the first kMaxSlices of them, to select in the timeline
};

class FlameGraph
{
public:
    static constexpr size_t kMaxSlices = 5000;
    FlameGraph();

    const std::vector<FlameFrame> &frames() const { return m_frames; }
    const FlameFrame &root() const { return m_frames.front(); }
    TimeNs total() const { return m_frames.front().total; }
    bool isDiff() const { return m_diff; }
    // The frames from the root's child down to `frame`, root-first, joined by ';'.
    QString path(int frame) const;

    // Brendan Gregg's folded stacks: a line per path with weight, "a;b;c 1234" (ns); a diff
    // writes both weights, "a;b;c before after" (difffolded.pl's output, which flamegraph.pl
    // draws as a differential flame graph). ';' in a name becomes ':'.
    QByteArray folded() const;
    // {"name", "self_ns", "total_ns", ["base_self_ns", "base_total_ns",] "count", "gpu",
    // "children"} from the root ("all").
    QJsonObject toJson() const;

    // Building: the child of `parent` named so (made when new), then weights and totals.
    int child(int parent, const QString &name, bool gpu);
    void add(int frame, TimeNs self, const SliceRef &slice);
    void finish(); // totals, children by total

    // After minus before, frame by frame (their union of paths): `self`/`total` are after's,
    // `baseSelf`/`baseTotal` before's.
    static FlameGraph diff(const FlameGraph &before, const FlameGraph &after);

private:
    std::vector<FlameFrame> m_frames;
    std::unordered_map<QString, int> m_index; // parent, kind and name -> frame
    bool m_diff = false;
};

// Builds the flame graph of `request` from the timeline data (paged tracks are read from the
// project for the range: run it off the GUI thread). GpuTime reads the launch flows from
// `project`. Returns false with *error set when a track or the flows cannot be read.
bool buildFlameGraph(const TimelineData &data, Project *project, const FlameRequest &request,
                     FlameGraph *out, QString *error);

} // namespace gml
