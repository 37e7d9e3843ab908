// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinelayout.h"

#include <QRegularExpression>

#include <QHash>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace gml {

namespace {

// What the tracks of a run hold below them, for summary rows: each track's descendant slice
// tracks (GPU streams apart from the rest), and each rank's (keyed -rank - 1) when its
// top-level tracks carry a rank.
struct Held
{
    std::unordered_map<TrackId, std::vector<TrackId>> gpu, cpu;
    std::unordered_map<TrackId, TrackId> top;     // each track's top-level ancestor (or itself)
    std::unordered_map<TrackId, int> rankOfTop;   // top-level tracks with a rank
    std::unordered_map<int, TrackId> firstOfRank; // a rank's first top-level track
    std::unordered_set<int> shownRanks;           // ranks with a track neither hidden nor filtered
    TrackId topOf(TrackId id) const
    {
        const auto it = top.find(id);
        return it == top.end() ? id : it->second;
    }
};

Held heldTracks(const RunSummary &run, const QSet<qint64> &hidden, const QSet<TrackId> *kept)
{
    Held h;
    std::unordered_map<TrackId, TrackId> parentOf;
    std::unordered_map<TrackId, bool> underGpu;
    for (const auto &t : run.tracks) {
        parentOf[t.id] = t.parent;
        h.top[t.id] = t.parent ? h.topOf(t.parent) : t.id;
        underGpu[t.id] = t.kind == TrackKind::Gpu || t.kind == TrackKind::Stream ||
                         (t.parent && underGpu[t.parent]);
        if (!t.parent && t.rank >= 0) {
            h.rankOfTop[t.id] = t.rank;
            h.firstOfRank.emplace(t.rank, t.id);
        }
    }
    for (const auto &t : run.tracks) {
        const bool shown = !hidden.contains(t.id) && (!kept || kept->contains(t.id));
        const TrackId top = h.topOf(t.id);
        const auto rank = h.rankOfTop.find(top);
        if (shown && rank != h.rankOfTop.end() && !hidden.contains(top))
            h.shownRanks.insert(rank->second);
        if (t.slices <= 0 || !shown)
            continue;
        auto &into = underGpu[t.id] ? h.gpu : h.cpu;
        for (TrackId p = t.parent; p; p = parentOf[p])
            into[p].push_back(t.id);
        if (rank != h.rankOfTop.end())
            into[-TrackId(rank->second) - 1].push_back(t.id);
    }
    return h;
}

using ShownRuns = std::vector<std::pair<const RunSummary *, TimeNs>>;

// The runs to lay out, with their shifts: every run, or the focused ones, the first with data the
// anchor the others are shifted to (unless on the project clock).
ShownRuns runsToLayOut(const TimelineData &data, const TimelineFocus &focus)
{
    std::vector<std::pair<const RunSummary *, TimeNs>> runs;
    QHash<RunId, const RunSummary *> byId;
    for (const auto &run : data.runs)
        byId.insert(run.id, &run);
    const auto hasData = [](const RunSummary &r) { return r.end > r.start; };
    const auto add = [&](const RunSummary *r, TimeNs shift) { runs.emplace_back(r, shift); };
    if (focus.runs.isEmpty()) {
        for (const auto &run : data.runs)
            add(&run, 0);
    } else {
        const RunSummary *anchor = nullptr;
        for (RunId id : focus.runs)
            if (const auto *r = byId.value(id); r && hasData(*r) && !anchor)
                anchor = r;
        for (RunId id : focus.runs) {
            const auto *r = byId.value(id);
            if (!r || std::any_of(runs.begin(), runs.end(),
                                  [&](const auto &x) { return x.first->id == id; }))
                continue;
            const TimeNs shift =
                (focus.projectClock || !anchor || !hasData(*r)) ? 0 : r->start - anchor->start;
            add(r, shift);
            // A live prediction sits right after the run it predicts, on its clock.
            const qsizetype at = r - data.runs.constData();
            if (at >= 0 && at + 1 < data.runs.size() && data.runs[at + 1].id == kLivePredictionRun)
                add(&data.runs[at + 1], shift);
        }
    }
    return runs;
}

// Which tracks the filter keeps: those that match it (kind and name, the name with its
// ancestors', so "rank 3" keeps rank 3's threads; what they hold when the filter keeps that
// too), and their ancestors for context.
QSet<TrackId> keptTracks(const ShownRuns &runs, const TimelineTrackFilter &filter)
{
    QSet<TrackId> kept;
    const QString text = filter.text.trimmed();
    for (const auto &[runPtr, shift] : runs) {
        QHash<TrackId, TrackKind> kindOf;
        QHash<TrackId, TrackId> parentOf;
        QHash<TrackId, QString> pathOf;
        std::vector<TrackId> matched;
        for (const auto &t : runPtr->tracks) {
            kindOf.insert(t.id, t.kind);
            parentOf.insert(t.id, t.parent);
            const QString path =
                (t.parent ? pathOf.value(t.parent) + QStringLiteral(" › ") : QString()) +
                trackLabel(t);
            pathOf.insert(t.id, path);
            // A counter belongs to the side of the row it sits under (a GPU's utilisation).
            bool onGpu = t.kind == TrackKind::Gpu || t.kind == TrackKind::Stream;
            for (TrackId p = t.parent; p && !onGpu; p = parentOf.value(p))
                onGpu = kindOf.value(p) == TrackKind::Gpu;
            const bool kindOk = filter.only == TimelineTrackFilter::Only::All ||
                                (filter.only == TimelineTrackFilter::Only::Gpu
                                     ? (t.kind == TrackKind::Gpu || t.kind == TrackKind::Stream)
                                     : !onGpu);
            // The name with its ancestors', the run's, the kind ("stream", "counter") and
            // what the track holds.
            const bool textOk = text.isEmpty() || path.contains(text, Qt::CaseInsensitive) ||
                                runPtr->name.contains(text, Qt::CaseInsensitive) ||
                                trackKindName(t.kind).contains(text, Qt::CaseInsensitive) ||
                                (filter.keepHolding && filter.holding.contains(t.id));
            const bool chosenOk = filter.chosen.isEmpty() || filter.chosen.contains(t.id);
            if (kindOk && textOk && chosenOk)
                matched.push_back(t.id);
        }
        for (TrackId id : matched)
            for (TrackId p = id; p && !kept.contains(p); p = parentOf.value(p))
                kept.insert(p);
    }
    return kept;
}

// One layout pass's rows of the runs.
struct RowsPass
{
    const TimelineData &data;
    const QSet<qint64> &collapsed;
    const QSet<qint64> &hidden;
    const TimelineMetrics &m;
    const TimelineFocus &focus;
    const bool filtering;
    const QSet<TrackId> &kept;
    const QSet<TrackId> &pinnedSet;
    std::vector<TimelineRow> &rows;

    TimelineRow trackRow(const TrackSummary &t, RunId run, TimeNs shift, int indent) const
    {
        TimelineRow row;
        row.run = run;
        row.track = t.id;
        row.kind = t.kind;
        row.label = trackLabel(t);
        row.unit = t.unit;
        row.indent = indent;
        row.shift = shift;
        if (const int depths = data.depthCount(t.id); depths > 0) {
            row.depthCount = depths;
            row.height = row.depthCount * m.depthHeight + 2 * m.rowPadding;
        } else if (data.counters.contains(t.id)) {
            row.isCounter = true;
            row.height = m.counterHeight;
        } else {
            row.height = m.groupHeight;
        }
        return row;
    }
    // A run's header and its visible tracks from `y`; the y after them.
    int addRun(const RunSummary &run, TimeNs shift, int y) const;
};

int RowsPass::addRun(const RunSummary &run, TimeNs shift, int y) const
{
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
        return y;
    if (filtering && std::none_of(run.tracks.begin(), run.tracks.end(),
                                  [&](const TrackSummary &t) { return kept.contains(t.id); }))
        return y;
    rows.push_back(header);
    y += header.height;
    if (!header.expanded)
        return y;
    // run.tracks is depth-first with siblings ordered, so one pass with the ancestor chain
    // decides visibility and indentation.
    QHash<TrackId, int> level; // tree depth of each track
    QHash<TrackId, bool> childrenShown;
    QSet<TrackId> parents;
    for (const auto &t : run.tracks)
        if (t.parent)
            parents.insert(t.parent);
    // Only when a row can summarise: a collapsed one, or ranks as rows.
    const Held held = focus.rankRows || !collapsed.isEmpty()
                          ? heldTracks(run, hidden, filtering ? &kept : nullptr)
                          : Held{};
    const auto summarise = [&](TimelineRow &row, TrackId holder) {
        const auto gpu = held.gpu.find(holder);
        const auto cpu = held.cpu.find(holder);
        row.summaryOnGpu = gpu != held.gpu.end();
        row.summarised = row.summaryOnGpu        ? gpu->second
                         : cpu != held.cpu.end() ? cpu->second
                                                 : std::vector<TrackId>{};
        if (row.isSummary())
            row.height = m.summaryHeight;
    };
    for (const auto &t : run.tracks) {
        const bool parentOk = !t.parent || childrenShown.value(t.parent, false);
        const bool visible =
            parentOk && !hidden.contains(t.id) && (!filtering || kept.contains(t.id));
        const int lvl = t.parent ? level.value(t.parent, 0) + 1 : 0;
        level.insert(t.id, lvl);
        childrenShown.insert(t.id, visible && !collapsed.contains(t.id));
        if (focus.rankRows && held.rankOfTop.count(held.topOf(t.id))) {
            // A rank's tracks: one row for them all, at its first top-level track.
            childrenShown.insert(t.id, false);
            const int rank = held.rankOfTop.at(held.topOf(t.id));
            if (held.firstOfRank.at(rank) != t.id || !held.shownRanks.count(rank))
                continue;
            TimelineRow row = trackRow(t, run.id, shift, 1);
            row.kind = TrackKind::Process;
            row.label = QStringLiteral("rank %1").arg(rank);
            row.depthCount = 0;
            row.isCounter = false;
            summarise(row, -TrackId(rank) - 1);
            row.height = m.summaryHeight;
            row.y = y;
            rows.push_back(row);
            y += row.height;
            continue;
        }
        if (!visible || pinnedSet.contains(t.id))
            continue;
        TimelineRow row = trackRow(t, run.id, shift, lvl + 1);
        row.hasChildren = parents.contains(t.id);
        row.expanded = !collapsed.contains(t.id);
        if (row.hasChildren && !row.expanded && row.depthCount == 0 && !row.isCounter)
            summarise(row, t.id);
        if (data.waitingThreads.contains(t.id)) {
            row.waitsOnly = true;
            row.label += QStringLiteral(" \u00b7 only waits");
            if (!row.expanded && row.depthCount > 0) { // folded: one row of its own activity
                row.summarised = {t.id};
                row.summaryOnGpu = false;
                row.height = m.summaryHeight;
            }
        }
        row.y = y;
        rows.push_back(row);
        y += row.height;
    }
    return y;
}

} // namespace

void TimelineLayout::build(const TimelineData &data, const QSet<qint64> &collapsed,
                           const QSet<qint64> &hidden, const TimelineMetrics &m,
                           const TimelineFocus &focus, const TimelineTrackFilter &filter)
{
    m_rows.clear();
    m_shiftOfRun.clear();
    m_shiftOfTrack.clear();
    const ShownRuns runs = runsToLayOut(data, focus);
    for (const auto &[run, shift] : runs)
        m_shiftOfRun.insert(run->id, shift);
    const auto hasData = [](const RunSummary &r) { return r.end > r.start; };
    m_spanStart = data.start;
    m_spanEnd = std::max(data.end, data.start + 1);
    bool first = true;
    for (const auto &[run, shift] : runs) {
        if (!hasData(*run) || focus.runs.isEmpty())
            continue;
        m_spanStart = first ? run->start - shift : std::min(m_spanStart, run->start - shift);
        m_spanEnd = first ? run->end - shift : std::max(m_spanEnd, run->end - shift);
        first = false;
    }
    m_spanEnd = std::max(m_spanEnd, m_spanStart + 1);
    const bool filtering = filter.active();
    const QSet<TrackId> kept = filtering ? keptTracks(runs, filter) : QSet<TrackId>();
    // Pinned tracks first, in a band of their own (their own y, from 0), then the rest.
    QHash<TrackId, const TrackSummary *> byTrack; // of the focused runs, only when some are pinned
    QHash<TrackId, std::pair<RunId, TimeNs>> runOfTrack;
    if (!filter.pinned.isEmpty())
        for (const auto &[runPtr, shift] : runs)
            for (const auto &t : runPtr->tracks) {
                byTrack.insert(t.id, &t);
                runOfTrack.insert(t.id, {runPtr->id, shift});
            }
    QSet<TrackId> pinnedSet;
    const RowsPass pass{data, collapsed, hidden, m, focus, filtering, kept, pinnedSet, m_rows};
    m_pinnedHeight = 0;
    for (TrackId id : filter.pinned) {
        const auto *t = byTrack.value(id);
        if (!t || pinnedSet.contains(id))
            continue;
        const auto [run, shift] = runOfTrack.value(id);
        TimelineRow row = pass.trackRow(*t, run, shift, 1);
        row.label = data.trackPath(id); // out of its tree: the whole path says which it is
        row.pinned = true;
        row.y = m_pinnedHeight;
        m_pinnedHeight += row.height;
        m_rows.push_back(row);
        pinnedSet.insert(id);
    }
    m_firstScrolling = m_rows.size();
    int y = 0;
    for (const auto &[runPtr, shift] : runs) {
        if (shift)
            for (const auto &t : runPtr->tracks)
                m_shiftOfTrack.insert(t.id, shift);
        y = pass.addRun(*runPtr, shift, y);
    }
    m_contentHeight = y;
    ++m_version;
}

int TimelineLayout::rowAt(int y) const
{
    const auto first = m_rows.begin() + qsizetype(m_firstScrolling);
    const auto it = std::upper_bound(first, m_rows.end(), y,
                                     [](int v, const TimelineRow &r) { return v < r.y; });
    if (it == first)
        return -1;
    const auto &r = *(it - 1);
    return y < r.y + r.height ? int(it - m_rows.begin()) - 1 : -1;
}

int TimelineLayout::pinnedRowAt(int y) const
{
    for (size_t i = 0; i < m_firstScrolling; ++i)
        if (y >= m_rows[i].y && y < m_rows[i].y + m_rows[i].height)
            return int(i);
    return -1;
}

QList<qint64> TimelineLayout::parentKeys(const TimelineData &data, const TimelineFocus &focus)
{
    QList<qint64> out;
    for (const auto &run : data.runs) {
        if (!focus.runs.isEmpty() && !focus.runs.contains(run.id))
            continue;
        out << -run.id;
        QSet<TrackId> parents;
        for (const auto &t : run.tracks)
            if (t.parent)
                parents.insert(t.parent);
        for (const auto &t : run.tracks)
            if (parents.contains(t.id))
                out << t.id;
    }
    return out;
}

int TimelineLayout::rowOfTrack(TrackId track) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].type == TimelineRow::Type::Track && m_rows[i].track == track)
            return int(i);
    return -1;
}

std::vector<AggregateTrack> TimelineLayout::aggregateTracks() const
{
    std::vector<AggregateTrack> out;
    for (const auto &r : m_rows)
        if (r.type == TimelineRow::Type::Track && r.depthCount > 0)
            out.push_back({r.track, r.run, r.shift});
    return out;
}

QList<TrackId> TimelineLayout::sliceTracks() const
{
    QList<TrackId> out;
    for (const auto &r : m_rows)
        if (r.type == TimelineRow::Type::Track && r.depthCount > 0)
            out.append(r.track);
    return out;
}

QString elideParts(const QFontMetricsF &fm, const QString &label, double width)
{
    if (fm.horizontalAdvance(label) <= width)
        return label;
    const QString sep = QStringLiteral(" \u00b7 ");
    const QStringList parts = label.split(sep);
    for (qsizetype keep = parts.size() - 2; keep >= 0 && parts.size() > 1; --keep) {
        QStringList shown{parts.first(), QStringLiteral("\u2026")};
        shown += parts.mid(parts.size() - keep);
        const QString text = shown.join(sep);
        if (fm.horizontalAdvance(text) <= width)
            return text;
    }
    return fm.elidedText(parts.first(), Qt::ElideRight, width);
}

QString shortDeviceName(const QString &device)
{
    QString d = device.trimmed();
    for (const char *vendor : {"NVIDIA ", "Tesla ", "GeForce ", "AMD ", "Instinct ", "Radeon "})
        if (d.startsWith(QLatin1String(vendor)))
            d = d.mid(int(qstrlen(vendor)));
    d = d.section(QLatin1Char('-'), 0, 0).trimmed();
    if (d.size() > 12) // "H100 80GB HBM3": its first word with a digit
        for (const QString &word : d.split(QLatin1Char(' '), Qt::SkipEmptyParts))
            if (std::any_of(word.begin(), word.end(), [](QChar c) { return c.isDigit(); }))
                return word;
    return d;
}

QString figureLabel(const TimelineRow &row)
{
    static const QRegularExpression parenthesis(QStringLiteral(R"(\s*\([^()]*\))"));
    static const QRegularExpression rankPrefix(QStringLiteral(R"(^rank \d+ · )"));
    QString label = row.label;
    if (row.type == TimelineRow::Type::Run)
        return label;
    QStringList parts = label.split(QStringLiteral(" · "));
    switch (row.kind) {
    case TrackKind::Thread: // "thread 59811 (python3) · main thread" -> "main thread"
        return parts.size() > 1 ? parts.last() : QString(label).remove(parenthesis);
    case TrackKind::Process: // "rank 0 · python3 (pid 59811)" -> "rank 0"
        if (parts.size() == 2 && parts[0].startsWith(QLatin1String("rank ")) &&
            parts[1].contains(QLatin1String("(pid ")))
            return parts[0];
        return QString(label).remove(parenthesis);
    case TrackKind::Gpu: { // "rank 0 · GPU 0 · Tesla V100-SXM2-32GB" -> "GPU 0 · V100"
        label.remove(rankPrefix);
        parts = label.split(QStringLiteral(" · "));
        if (parts.size() >= 2)
            parts.last() = shortDeviceName(parts.last());
        return parts.join(QStringLiteral(" · "));
    }
    default:
        return label;
    }
}

} // namespace gml
