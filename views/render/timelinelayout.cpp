// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinelayout.h"

#include <QHash>

#include <algorithm>

namespace gml {

void TimelineLayout::build(const TimelineData &data, const QSet<qint64> &collapsed,
                           const QSet<qint64> &hidden, const TimelineMetrics &m, const TimelineFocus &focus)
{
    m_rows.clear();
    m_shiftOfRun.clear();
    m_shiftOfTrack.clear();
    // The runs to lay out, with their shifts: the first focused run with data is the anchor.
    std::vector<std::pair<const RunSummary *, TimeNs>> runs;
    QHash<RunId, const RunSummary *> byId;
    for (const auto &run : data.runs)
        byId.insert(run.id, &run);
    const auto hasData = [](const RunSummary &r) { return r.end > r.start; };
    if (focus.runs.isEmpty()) {
        for (const auto &run : data.runs)
            runs.emplace_back(&run, 0);
    } else {
        const RunSummary *anchor = nullptr;
        for (RunId id : focus.runs)
            if (const auto *r = byId.value(id); r && hasData(*r) && !anchor)
                anchor = r;
        for (RunId id : focus.runs) {
            const auto *r = byId.value(id);
            if (!r || m_shiftOfRun.contains(id))
                continue;
            const TimeNs shift = (focus.projectClock || !anchor || !hasData(*r)) ? 0 : r->start - anchor->start;
            runs.emplace_back(r, shift);
            m_shiftOfRun.insert(id, shift);
            // A live prediction sits right after the run it predicts, on its clock.
            const qsizetype at = r - data.runs.constData();
            if (at >= 0 && at + 1 < data.runs.size() && data.runs[at + 1].id == kLivePredictionRun)
                runs.emplace_back(&data.runs[at + 1], shift);
        }
    }
    m_spanStart = data.start;
    m_spanEnd = std::max(data.end, data.start + 1);
    bool first = true;
    for (const auto &[run, shift] : runs) {
        m_shiftOfRun.insert(run->id, shift);
        if (!hasData(*run) || focus.runs.isEmpty())
            continue;
        m_spanStart = first ? run->start - shift : std::min(m_spanStart, run->start - shift);
        m_spanEnd = first ? run->end - shift : std::max(m_spanEnd, run->end - shift);
        first = false;
    }
    m_spanEnd = std::max(m_spanEnd, m_spanStart + 1);
    int y = 0;
    for (const auto &[runPtr, shift] : runs) {
        const RunSummary &run = *runPtr;
        if (shift)
            for (const auto &t : run.tracks)
                m_shiftOfTrack.insert(t.id, shift);
        TimelineRow header;
        header.type = TimelineRow::Type::Run;
        header.run = run.id;
        header.label = run.kind == QLatin1String("measured")
                           ? run.name
                           : QStringLiteral("%1 (%2)").arg(run.name, run.kind);
        header.hasChildren = !run.tracks.isEmpty();
        header.expanded = !collapsed.contains(-run.id);
        header.y = y;
        header.height = m.groupHeight;
        if (hidden.contains(-run.id))
            continue;
        m_rows.push_back(header);
        y += header.height;
        if (!header.expanded)
            continue;
        // run.tracks is depth-first with siblings ordered, so one pass with the ancestor chain
        // decides visibility and indentation.
        QHash<TrackId, int> level;        // tree depth of each track
        QHash<TrackId, bool> shown;       // the track's row is shown
        QHash<TrackId, bool> childrenShown;
        QSet<TrackId> parents;
        for (const auto &t : run.tracks)
            if (t.parent)
                parents.insert(t.parent);
        for (const auto &t : run.tracks) {
            const bool parentOk = !t.parent || childrenShown.value(t.parent, false);
            const bool visible = parentOk && !hidden.contains(t.id);
            const int lvl = t.parent ? level.value(t.parent, 0) + 1 : 0;
            level.insert(t.id, lvl);
            shown.insert(t.id, visible);
            childrenShown.insert(t.id, visible && !collapsed.contains(t.id));
            if (!visible)
                continue;
            TimelineRow row;
            row.run = run.id;
            row.track = t.id;
            row.kind = t.kind;
            row.label = trackLabel(t);
            row.unit = t.unit;
            row.indent = lvl + 1;
            row.shift = shift;
            row.hasChildren = parents.contains(t.id);
            row.expanded = !collapsed.contains(t.id);
            row.y = y;
            if (const int depths = data.depthCount(t.id); depths > 0) {
                row.depthCount = depths;
                row.height = row.depthCount * m.depthHeight + 2 * m.rowPadding;
            } else if (data.counters.contains(t.id)) {
                row.isCounter = true;
                row.height = m.counterHeight;
            } else {
                row.height = m.groupHeight;
            }
            m_rows.push_back(row);
            y += row.height;
        }
    }
    m_contentHeight = y;
    ++m_version;
}

int TimelineLayout::rowAt(int y) const
{
    const auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y,
                                     [](int v, const TimelineRow &r) { return v < r.y; });
    if (it == m_rows.begin())
        return -1;
    const auto &r = *(it - 1);
    return y < r.y + r.height ? int(it - m_rows.begin()) - 1 : -1;
}

int TimelineLayout::rowOfTrack(TrackId track) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].type == TimelineRow::Type::Track && m_rows[i].track == track)
            return int(i);
    return -1;
}

QList<TrackId> TimelineLayout::sliceTracks() const
{
    QList<TrackId> out;
    for (const auto &r : m_rows)
        if (r.type == TimelineRow::Type::Track && r.depthCount > 0)
            out.append(r.track);
    return out;
}

} // namespace gml
