// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicedetails.h"

#include "clusterproject.h"
#include "project.h"

#include <QJsonDocument>

#include <algorithm>
#include <unordered_map>

namespace gml {

namespace {

using namespace cluster;

// The details of a slice held by a shard (its id says which) and the slices linked to it, in
// the cluster's ids and on its clock. Opens the shard read-only for the call.
std::optional<SliceDetails> clusterSliceDetails(Project &cluster, SliceId id, QString *error)
{
    Shard sh;
    auto p = openShardOf(cluster, id, &sh, error);
    if (!p)
        return std::nullopt;
    auto st = p->db().prepare(
        "SELECT s.id, s.track_id, n.value, c.value, s.ts, s.dur, s.correlation, s.external_id, "
        "s.args, t.source_id "
        "FROM slice s JOIN track t ON t.id = s.track_id LEFT JOIN string n ON n.id = s.name_id "
        "LEFT JOIN string c ON c.id = s.cat_id WHERE s.id = ?");
    st.bind(1, storedSlice(id));
    if (!st.step()) {
        if (error)
            *error = st.errorString().isEmpty() ? QStringLiteral("not in its shard %1").arg(sh.path)
                                                : st.errorString();
        return std::nullopt;
    }
    SliceDetails d = sliceDetailsOf(st); // on the shard's ids and its source's clock
    d.id = id;
    d.track += sh.trackBase;
    d.start += clusterOffset(cluster, st.int64(9) + sh.sourceBase);
    return d;
}

QList<LinkedSlice> clusterLinkedSlices(Project &cluster, SliceId id)
{
    QList<LinkedSlice> out;
    Shard sh;
    auto p = openShardOf(cluster, id, &sh, nullptr);
    if (!p)
        return out;
    auto st = p->db().prepare(
        "SELECT f.kind, 1, s.id, s.track_id, t.source_id, n.value, s.ts, s.dur FROM flow f "
        "JOIN slice s ON s.id = f.to_slice JOIN track t ON t.id = s.track_id "
        "LEFT JOIN string n ON n.id = s.name_id WHERE f.from_slice = ?1 "
        "UNION ALL "
        "SELECT f.kind, 0, s.id, s.track_id, t.source_id, n.value, s.ts, s.dur FROM flow f "
        "JOIN slice s ON s.id = f.from_slice JOIN track t ON t.id = s.track_id "
        "LEFT JOIN string n ON n.id = s.name_id WHERE f.to_slice = ?1");
    st.bind(1, storedSlice(id));
    std::unordered_map<SourceId, TimeNs> offsets;
    while (st.step()) {
        const SourceId source = st.int64(4) + sh.sourceBase;
        auto off = offsets.find(source);
        if (off == offsets.end())
            off = offsets.emplace(source, clusterOffset(cluster, source)).first;
        LinkedSlice l;
        l.kind = FlowKind(st.int64(0));
        l.outgoing = st.int64(1) != 0;
        l.id = sliceIdOf(sh.id, st.int64(2));
        l.track = st.int64(3) + sh.trackBase;
        l.name = st.text(5);
        l.start = st.int64(6) + off->second;
        l.duration = st.int64(7);
        out.append(l);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const LinkedSlice &a, const LinkedSlice &b) { return a.start < b.start; });
    return out;
}

} // namespace

std::optional<SliceDetails> sliceDetails(Project &project, SliceId id, QString *error)
{
    if (cluster::shardOfSlice(id) > 0) // a cluster project's slice, held by its shard
        return clusterSliceDetails(project, id, error);
    auto st = project.db().prepare(
        "SELECT id, track_id, name, category, ts, dur, correlation, external_id, args "
        "FROM slice_abs WHERE id = ?");
    if (!st.isValid()) {
        if (error)
            *error = st.errorString();
        return std::nullopt;
    }
    st.bind(1, id);
    if (!st.step())
        return std::nullopt;
    return sliceDetailsOf(st);
}

SliceDetails sliceDetailsOf(const SqliteStatement &st)
{
    SliceDetails d;
    d.id = st.int64(0);
    d.track = st.int64(1);
    d.name = st.text(2);
    d.category = st.text(3);
    d.start = st.int64(4);
    d.duration = st.int64(5);
    if (!st.isNull(6))
        d.correlation = st.int64(6);
    if (!st.isNull(7))
        d.externalId = st.int64(7);
    if (!st.isNull(8))
        d.args = QJsonDocument::fromJson(st.text(8).toUtf8()).object();
    return d;
}

QList<LinkedSlice> linkedSlices(Project &project, SliceId id)
{
    if (cluster::shardOfSlice(id) > 0)
        return clusterLinkedSlices(project, id);
    QList<LinkedSlice> out;
    auto st =
        project.db().prepare("SELECT f.kind, 1, s.id, s.track_id, s.name, s.ts, s.dur FROM flow f "
                             "JOIN slice_abs s ON s.id = f.to_slice WHERE f.from_slice = ?1 "
                             "UNION ALL "
                             "SELECT f.kind, 0, s.id, s.track_id, s.name, s.ts, s.dur FROM flow f "
                             "JOIN slice_abs s ON s.id = f.from_slice WHERE f.to_slice = ?1 "
                             "ORDER BY 6");
    st.bind(1, id);
    while (st.step()) {
        LinkedSlice l;
        l.kind = FlowKind(st.int64(0));
        l.outgoing = st.int64(1) != 0;
        l.id = st.int64(2);
        l.track = st.int64(3);
        l.name = st.text(4);
        l.start = st.int64(5);
        l.duration = st.int64(6);
        out.append(l);
    }
    return out;
}

std::vector<SliceId> slicesHolding(Project &project, TrackId track, bool category,
                                   const QString &text, QString *error)
{
    std::vector<SliceId> out;
    if (cluster::isClusterProject(project)) {
        if (error)
            *error = QStringLiteral("cat: and arg: search a project's slices; a cluster "
                                    "project keeps them in its shards (open a shard to search)");
        return out;
    }
    // An arg value matches whatever its spacing: "[16,416]" finds "[16, 416]" (whitespace left
    // out of both sides).
    QString pattern = category ? text : text.simplified().remove(QLatin1Char(' '));
    pattern.replace(QLatin1Char('\\'), QLatin1String("\\\\"))
        .replace(QLatin1Char('%'), QLatin1String("\\%"))
        .replace(QLatin1Char('_'), QLatin1String("\\_"));
    auto st = project.db().prepare(
        category ? "SELECT id FROM slice WHERE track_id = ?1 AND cat_id IN "
                   "(SELECT id FROM string WHERE value LIKE ?2 ESCAPE '\\')"
                 : "SELECT id FROM slice WHERE track_id = ?1 AND replace(replace(replace(replace("
                   "args, ' ', ''), char(9), ''), char(10), ''), char(13), '') LIKE ?2 "
                   "ESCAPE '\\'");
    st.bind(1, qint64(track));
    st.bind(2, QLatin1Char('%') + pattern + QLatin1Char('%'));
    while (st.step())
        out.push_back(st.int64(0));
    if (!st.errorString().isEmpty() && error)
        *error = st.errorString();
    return out;
}

} // namespace gml
