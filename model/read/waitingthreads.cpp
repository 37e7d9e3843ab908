// SPDX-License-Identifier: GPL-3.0-or-later
#include "waitingthreads.h"

#include "sliceclass.h"
#include "slicetrack.h"

#include <QHash>

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace gml {

bool onlyWaits(const SliceTrack &track, const std::vector<QString> &names)
{
    if (track.isEmpty())
        return false;
    QHash<StringId, bool> python, waits; // by name: each distinct name classified once
    const auto is = [&](QHash<StringId, bool> &cache, StringId id, auto &&test) {
        const auto it = cache.constFind(id);
        if (it != cache.constEnd())
            return *it;
        const bool yes = test(id >= 0 && size_t(id) < names.size() ? names[size_t(id)] : QString());
        cache.insert(id, yes);
        return yes;
    };
    const auto isPython = [](const QString &n) { return sliceRole(n, false) == SliceRole::Python; };
    for (int d = 0; d < track.depthCount(); ++d)
        for (size_t i = track.depthBegin(d); i < track.depthEnd(d); ++i) {
            if (!is(python, track.nameId(i), isPython))
                return false;
            // Innermost: nothing at the next depth starts inside it.
            bool leaf = d + 1 >= track.depthCount();
            if (!leaf) {
                const size_t j = track.firstIndex(d + 1, track.start(i));
                leaf = j >= track.depthEnd(d + 1) || track.start(j) >= track.end(i);
            }
            if (leaf && !is(waits, track.nameId(i), isWaitFrame))
                return false;
        }
    return true;
}

QSet<TrackId>
sortWaitingThreadsLast(QList<RunSummary> &runs, const std::vector<QString> &names,
                       const std::function<std::shared_ptr<const SliceTrack>(TrackId)> &slicesOf)
{
    QSet<TrackId> waiting;
    for (auto &run : runs) {
        bool any = false;
        for (const auto &t : run.tracks) {
            // A main thread runs the program: never read for this (at 1,024 ranks, reading
            // each rank's main thread added 74 ms to the open, 2.9x its load).
            if (t.kind != TrackKind::Thread || t.slices <= 0 || t.slices > kMaxWaitingSlices ||
                isMainThreadId(t.pid, t.tid))
                continue;
            const std::shared_ptr<const SliceTrack> held = slicesOf(t.id);
            if (!held)
                continue; // not read: shown as any thread
            if (onlyWaits(*held, names)) {
                waiting.insert(t.id);
                any = true;
            }
        }
        if (!any)
            continue;
        // run.tracks is depth-first with siblings in order: rebuild it with each parent's
        // waiting threads after its other children (their subtrees move with them).
        std::unordered_map<TrackId, std::vector<const TrackSummary *>> children;
        std::vector<const TrackSummary *> roots;
        for (const auto &t : run.tracks)
            (t.parent ? children[t.parent] : roots).push_back(&t);
        const auto waitingLast = [&](std::vector<const TrackSummary *> &v) {
            std::stable_partition(v.begin(), v.end(),
                                  [&](const TrackSummary *t) { return !waiting.contains(t->id); });
        };
        QList<TrackSummary> ordered;
        ordered.reserve(run.tracks.size());
        const auto append = [&](const auto &self, const TrackSummary *t) -> void {
            ordered.push_back(*t);
            const auto it = children.find(t->id);
            if (it == children.end())
                return;
            waitingLast(it->second);
            for (const TrackSummary *c : it->second)
                self(self, c);
        };
        waitingLast(roots);
        for (const TrackSummary *t : roots)
            append(append, t);
        if (ordered.size() == run.tracks.size()) // a tree whose parents are all in the run
            run.tracks = std::move(ordered);
    }
    return waiting;
}

} // namespace gml
