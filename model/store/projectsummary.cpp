// SPDX-License-Identifier: GPL-3.0-or-later
#include "projectsummary.h"

#include "project.h"
#include "projecttime.h"

#include <QHash>
#include <QJsonDocument>

#include <algorithm>
#include <functional>
#include <string>

namespace gml {

namespace {

QList<TrackSummary> orderTracks(QList<TrackSummary> tracks)
{
    QHash<TrackId, QList<int>> children;
    for (int i = 0; i < tracks.size(); ++i)
        children[tracks[i].parent].append(i);
    QList<TrackSummary> ordered;
    ordered.reserve(tracks.size());
    std::function<void(TrackId)> visit = [&](TrackId parent) {
        auto kids = children.value(parent);
        std::stable_sort(kids.begin(), kids.end(), [&](int a, int b) {
            if (tracks[a].sortKey != tracks[b].sortKey)
                return tracks[a].sortKey < tracks[b].sortKey;
            return tracks[a].name < tracks[b].name;
        });
        for (int k : kids) {
            ordered.append(tracks[k]);
            visit(tracks[k].id);
        }
    };
    visit(0);
    return ordered;
}

// Top-level GPU rows of monitoring logs (tid "monitor") join the run's other row for the same
// device index: the one row of a trace for that GPU when exactly one exists (several ranks of a
// multi-host job may each have a "GPU 0": then it is ambiguous and they stay apart), else the
// first monitoring row for it, preferring one that names the GPU model. The joined row's
// children move under the kept row and the joined row is dropped from the tree.
QList<TrackSummary> mergeDeviceRows(QList<TrackSummary> tracks)
{
    QHash<QString, QList<int>> traceGpus, monitorGpus;
    for (int i = 0; i < tracks.size(); ++i) {
        const auto &t = tracks[i];
        if (t.parent || t.kind != TrackKind::Gpu || t.pid.isEmpty())
            continue;
        (t.tid == QLatin1String("monitor") ? monitorGpus : traceGpus)[t.pid].append(i);
    }
    QHash<TrackId, TrackId> into;
    for (auto it = monitorGpus.cbegin(); it != monitorGpus.cend(); ++it) {
        const auto &monitors = it.value();
        const auto traces = traceGpus.value(it.key());
        int keep = -1;
        if (traces.size() == 1) {
            keep = traces.front();
        } else {
            keep = monitors.front();
            for (int m : monitors)
                if (tracks[m].name.size() > tracks[keep].name.size())
                    keep = m;
        }
        for (int m : monitors)
            if (m != keep)
                into.insert(tracks[m].id, tracks[keep].id);
    }
    if (into.isEmpty())
        return tracks;
    QList<TrackSummary> out;
    out.reserve(tracks.size());
    for (auto t : std::as_const(tracks)) {
        if (into.contains(t.id))
            continue;
        if (auto p = into.constFind(t.parent); p != into.constEnd())
            t.parent = *p;
        out.append(t);
    }
    return out;
}

} // namespace

QHash<RunId, std::pair<TimeNs, TimeNs>> runSpans(Project &project)
{
    QHash<RunId, std::pair<TimeNs, TimeNs>> out;
    auto ext = project.db().prepare(
        std::string("SELECT t.run_id, min(t.start_ns + coalesce(") + GML_SOURCE_OFFSET_SQL("src") +
        ", 0)), max(t.end_ns + coalesce(" + GML_SOURCE_OFFSET_SQL("src") +
        ", 0)) FROM track t LEFT JOIN source src ON src.id = t.source_id WHERE t.start_ns IS NOT "
        "NULL GROUP BY t.run_id");
    while (ext.step())
        out.insert(ext.int64(0), {ext.int64(1), ext.int64(2)});
    return out;
}

QList<RunSummary> summarizeProject(Project &project, QString *error)
{
    auto &db = project.db();
    QList<RunSummary> runs;
    QHash<RunId, int> index;
    auto r = db.prepare("SELECT id, name, kind, params FROM run ORDER BY id");
    while (r.step()) {
        RunSummary run;
        run.id = r.int64(0);
        run.name = r.text(1);
        run.kind = r.text(2);
        run.params = QJsonDocument::fromJson(r.text(3).toUtf8()).object();
        index.insert(run.id, int(runs.size()));
        runs.append(run);
    }
    auto s = db.prepare("SELECT id, run_id, path, format, status, error, warnings, slices, "
                        "counter_samples, flows, clock_offset_ns, NULL, align_ns, alignment, "
                        "align_user_ns FROM source ORDER BY path");
    while (s.step()) {
        SourceSummary src;
        src.id = s.int64(0);
        src.path = s.text(2);
        src.format = s.text(3);
        src.status = s.text(4);
        src.error = s.text(5);
        src.warnings = QJsonDocument::fromJson(s.text(6).toUtf8()).array();
        for (const auto &w : src.warnings)
            src.warningCount += w.toObject().value(QStringLiteral("count")).toInteger(1);
        src.slices = s.int64(7);
        src.counterSamples = s.int64(8);
        src.flows = s.int64(9);
        src.clockOffset = s.int64(10);
        src.alignOffset = s.int64(12);
        if (!s.isNull(13))
            src.alignment = SourceAlignment::fromRow(
                src.id, src.path, s.text(13),
                s.isNull(14) ? std::nullopt : std::optional<TimeNs>(s.int64(14)), src.alignOffset);
        if (auto it = index.constFind(s.int64(1)); it != index.constEnd()) {
            auto &run = runs[*it];
            run.slices += src.slices;
            run.counterSamples += src.counterSamples;
            run.flows += src.flows;
            run.sources.append(src);
        }
    }
    const auto spans = runSpans(project);
    for (auto it = spans.begin(); it != spans.end(); ++it)
        if (auto i = index.constFind(it.key()); i != index.constEnd()) {
            runs[*i].start = it->first;
            runs[*i].end = it->second;
        }
    QHash<RunId, QList<TrackSummary>> tracks;
    auto t =
        db.prepare("SELECT id, run_id, coalesce(parent_id, 0), kind, name, sort_key, "
                   "coalesce(rank, -1), unit, slice_count, counter_count, pid, tid FROM track");
    while (t.step()) {
        TrackSummary ts;
        ts.id = t.int64(0);
        ts.parent = t.int64(2);
        ts.kind = TrackKind(t.int64(3));
        ts.name = t.text(4);
        ts.sortKey = t.int64(5);
        ts.rank = int(t.int64(6));
        ts.unit = t.text(7);
        ts.slices = t.int64(8);
        ts.counterSamples = t.int64(9);
        ts.pid = t.text(10);
        ts.tid = t.text(11);
        tracks[t.int64(1)].append(ts);
    }
    for (auto &run : runs)
        run.tracks = orderTracks(mergeDeviceRows(tracks.value(run.id)));
    if (!r.errorString().isEmpty() && error)
        *error = r.errorString();
    return runs;
}

QJsonObject summaryToJson(const QList<RunSummary> &runs)
{
    QJsonArray jruns;
    for (const auto &run : runs) {
        QJsonObject o;
        o.insert(QStringLiteral("name"), run.name);
        o.insert(QStringLiteral("kind"), run.kind);
        o.insert(QStringLiteral("start_ns"), run.start);
        o.insert(QStringLiteral("end_ns"), run.end);
        o.insert(QStringLiteral("tracks"), qint64(run.tracks.size()));
        o.insert(QStringLiteral("slices"), run.slices);
        o.insert(QStringLiteral("counter_samples"), run.counterSamples);
        o.insert(QStringLiteral("flows"), run.flows);
        o.insert(QStringLiteral("params"), run.params);
        QJsonArray sources;
        for (const auto &src : run.sources) {
            QJsonObject so;
            so.insert(QStringLiteral("path"), src.path);
            so.insert(QStringLiteral("format"), src.format);
            so.insert(QStringLiteral("status"), src.status);
            so.insert(QStringLiteral("error"),
                      src.error.isEmpty() ? QJsonValue() : QJsonValue(src.error));
            so.insert(QStringLiteral("warnings"), src.warnings);
            so.insert(QStringLiteral("slices"), src.slices);
            so.insert(QStringLiteral("counter_samples"), src.counterSamples);
            so.insert(QStringLiteral("flows"), src.flows);
            so.insert(QStringLiteral("clock_offset_ns"), src.clockOffset);
            so.insert(QStringLiteral("align_offset_ns"), src.alignOffset);
            if (src.alignment)
                so.insert(QStringLiteral("clock_alignment"), src.alignment->toJson());
            sources.append(so);
        }
        o.insert(QStringLiteral("sources"), sources);
        QJsonArray jt;
        for (const auto &tr : run.tracks) {
            QJsonObject to;
            to.insert(QStringLiteral("id"), tr.id);
            to.insert(QStringLiteral("parent"), tr.parent ? QJsonValue(tr.parent) : QJsonValue());
            to.insert(QStringLiteral("kind"), trackKindName(tr.kind));
            to.insert(QStringLiteral("name"), tr.name);
            if (tr.rank >= 0)
                to.insert(QStringLiteral("rank"), tr.rank);
            if (!tr.unit.isEmpty())
                to.insert(QStringLiteral("unit"), tr.unit);
            to.insert(QStringLiteral("slices"), tr.slices);
            to.insert(QStringLiteral("counter_samples"), tr.counterSamples);
            jt.append(to);
        }
        o.insert(QStringLiteral("track_tree"), jt);
        jruns.append(o);
    }
    QJsonObject root;
    root.insert(QStringLiteral("runs"), jruns);
    return root;
}

static QString alignmentDuration(TimeNs ns)
{
    if (ns >= 1'000'000'000)
        return QString::number(double(ns) / 1e9, 'f', 3) + QStringLiteral(" s");
    if (ns >= 1'000'000)
        return QString::number(double(ns) / 1e6, 'f', 3) + QStringLiteral(" ms");
    if (ns >= 1'000)
        return QString::number(double(ns) / 1e3, 'f', 3) + QStringLiteral(" µs");
    return QString::number(ns) + QStringLiteral(" ns");
}

static QString signedDuration(TimeNs ns)
{
    return (ns < 0 ? QStringLiteral("-") : QStringLiteral("+")) +
           alignmentDuration(ns < 0 ? -ns : ns);
}

QString describeAlignment(const SourceAlignment &a)
{
    QString s;
    const QString who =
        a.rank >= 0 ? QStringLiteral("rank %1").arg(a.rank) : QStringLiteral("source");
    if (a.source == a.reference && a.computed)
        s = QStringLiteral("%1 is the reference of the run's clock alignment (%2 collectives)")
                .arg(who)
                .arg(a.collectives);
    else if (!a.computed)
        s = QStringLiteral("%1 not aligned: %2")
                .arg(who, a.note.isEmpty() ? QStringLiteral("no collectives") : a.note);
    else
        s = QStringLiteral("%1 vs %2 on %3 matched collectives: offset %4, residual %5, %6")
                .arg(who, a.referenceRank >= 0 ? QStringLiteral("rank %1").arg(a.referenceRank)
                                               : QStringLiteral("the reference"))
                .arg(a.matched)
                .arg(signedDuration(*a.computed), alignmentDuration(a.residual),
                     a.significant ? QStringLiteral("significant")
                                   : QStringLiteral("within noise (same clock)"));
    if (a.user)
        s += QStringLiteral("; user override %1").arg(signedDuration(*a.user));
    s += QStringLiteral("; applied %1").arg(signedDuration(a.applied));
    return s;
}

QString summaryToText(const QList<RunSummary> &runs)
{
    QString out;
    for (const auto &run : runs) {
        out += QStringLiteral("run %1 (%2): %3 sources, %4 tracks, %5 slices, %6 counter samples, "
                              "%7 flows, span %8\n")
                   .arg(run.name, run.kind)
                   .arg(run.sources.size())
                   .arg(run.tracks.size())
                   .arg(run.slices)
                   .arg(run.counterSamples)
                   .arg(run.flows)
                   .arg(alignmentDuration(run.end - run.start));
        for (const auto &src : run.sources) {
            out += QStringLiteral("  source %1 [%2] %3: %4 slices, %5 counter samples, %6 flows")
                       .arg(src.path, src.format, src.status)
                       .arg(src.slices)
                       .arg(src.counterSamples)
                       .arg(src.flows);
            if (src.warningCount)
                out += QStringLiteral(", %1 warnings").arg(src.warningCount);
            out += QLatin1Char('\n');
            if (src.alignment)
                out += QStringLiteral("    clock: ") + describeAlignment(*src.alignment) +
                       QLatin1Char('\n');
            if (!src.error.isEmpty()) // for a skipped file, the error column holds the reason
                out += (src.status == QLatin1String("skipped") ? QStringLiteral("    reason: ")
                                                               : QStringLiteral("    error: ")) +
                       src.error + QLatin1Char('\n');
            for (const auto &w : src.warnings) {
                const auto wo = w.toObject();
                out += QStringLiteral("    warning: ") +
                       wo.value(QStringLiteral("message")).toString();
                if (wo.value(QStringLiteral("count")).toInteger(1) > 1)
                    out +=
                        QStringLiteral(" (x%1)").arg(wo.value(QStringLiteral("count")).toInteger());
                out += QLatin1Char('\n');
            }
        }
        QHash<TrackId, int> depth;
        for (const auto &tr : run.tracks) {
            const int d = tr.parent ? depth.value(tr.parent) + 1 : 0;
            depth.insert(tr.id, d);
            out += QString(2 + 2 * d, QLatin1Char(' ')) + tr.name + QStringLiteral(" [") +
                   trackKindName(tr.kind) + QLatin1Char(']');
            if (tr.slices)
                out += QStringLiteral(" %1 slices").arg(tr.slices);
            if (tr.counterSamples)
                out += QStringLiteral(" %1 samples").arg(tr.counterSamples);
            if (!tr.unit.isEmpty())
                out += QStringLiteral(" (") + tr.unit + QLatin1Char(')');
            out += QLatin1Char('\n');
        }
    }
    return out;
}

} // namespace gml
