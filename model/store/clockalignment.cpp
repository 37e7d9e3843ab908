// SPDX-License-Identifier: GPL-3.0-or-later
#include "clockalignment.h"

#include "project.h"
#include "slicestore.h"

#include <QJsonDocument>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <thread>

namespace gml {

namespace {

constexpr int kMaxShift = 16;
constexpr TimeNs kMinSignificantNs = 20'000;
constexpr int kResidualFactor = 4;

TimeNs median(std::vector<TimeNs> v)
{
    if (v.empty())
        return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
    const TimeNs hi = v[mid];
    if (v.size() % 2)
        return hi;
    const TimeNs lo = *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid));
    return lo + (hi - lo) / 2;
}

struct Candidate
{
    int shift = 0;
    std::vector<TimeNs> diffs;
    TimeNs offset = 0;
    TimeNs mad = 0;
};

QJsonValue optionalNs(const std::optional<TimeNs> &v)
{
    return v ? QJsonValue(qint64(*v)) : QJsonValue();
}

} // namespace

std::optional<AlignmentFit> fitCollectives(const std::vector<CollectiveEnd> &reference,
                                           const std::vector<CollectiveEnd> &other)
{
    const int n = int(reference.size());
    const int m = int(other.size());
    if (!n || !m)
        return std::nullopt;
    // The same-operation pairs at each shift; only shifts with at least half of the most pairs
    // are candidates, and only theirs get the two medians (most of the cost).
    std::vector<Candidate> candidates;
    size_t most = 0;
    for (int s = -std::min(kMaxShift, n - 1); s <= std::min(kMaxShift, m - 1); ++s) {
        Candidate c;
        c.shift = s;
        for (int i = std::max(0, -s); i < n && i + s < m; ++i)
            if (reference[size_t(i)].op == other[size_t(i + s)].op)
                c.diffs.push_back(reference[size_t(i)].end - other[size_t(i + s)].end);
        most = std::max(most, c.diffs.size());
        candidates.push_back(std::move(c));
    }
    if (most == 0)
        return std::nullopt;
    std::erase_if(candidates, [&](const Candidate &c) { return 2 * c.diffs.size() < most; });
    for (Candidate &c : candidates) {
        c.offset = median(c.diffs);
        std::vector<TimeNs> dev;
        dev.reserve(c.diffs.size());
        for (TimeNs d : c.diffs)
            dev.push_back(std::abs(d - c.offset));
        c.mad = median(std::move(dev));
    }
    // The tightest agreement among them...
    const Candidate *tight = &candidates.front();
    for (const auto &c : candidates)
        if (c.mad < tight->mad)
            tight = &c;
    // ...then, among shifts agreeing nearly as well, the one with most pairs and least shift:
    // a periodic job agrees as well one iteration off, with fewer pairs.
    const TimeNs near = 2 * tight->mad + 2'000;
    const Candidate *best = tight;
    for (const auto &c : candidates) {
        if (c.mad > near)
            continue;
        if (c.diffs.size() > best->diffs.size() ||
            (c.diffs.size() == best->diffs.size() && std::abs(c.shift) < std::abs(best->shift)))
            best = &c;
    }
    double sq = 0;
    for (TimeNs d : best->diffs)
        sq += double(d - best->offset) * double(d - best->offset);
    AlignmentFit fit;
    fit.matched = int(best->diffs.size());
    fit.shift = best->shift;
    fit.offset = best->offset;
    fit.residual = TimeNs(std::llround(std::sqrt(sq / double(best->diffs.size()))));
    return fit;
}

QJsonObject SourceAlignment::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("rank"), rank);
    o.insert(QStringLiteral("collectives"), collectives);
    o.insert(QStringLiteral("reference_source"), qint64(reference));
    o.insert(QStringLiteral("reference_rank"), referenceRank);
    o.insert(QStringLiteral("matched"), matched);
    o.insert(QStringLiteral("computed_offset_ns"), optionalNs(computed));
    o.insert(QStringLiteral("residual_ns"), qint64(residual));
    o.insert(QStringLiteral("significant"), significant);
    o.insert(QStringLiteral("user_offset_ns"), optionalNs(user));
    o.insert(QStringLiteral("applied_offset_ns"), qint64(applied));
    if (!note.isEmpty())
        o.insert(QStringLiteral("note"), note);
    return o;
}

SourceAlignment SourceAlignment::fromJson(const QJsonObject &o)
{
    SourceAlignment a;
    a.rank = o.value(QStringLiteral("rank")).toInt(-1);
    a.collectives = o.value(QStringLiteral("collectives")).toInt();
    a.reference = o.value(QStringLiteral("reference_source")).toInteger();
    a.referenceRank = o.value(QStringLiteral("reference_rank")).toInt(-1);
    a.matched = o.value(QStringLiteral("matched")).toInt();
    if (const auto v = o.value(QStringLiteral("computed_offset_ns"));
        !v.isNull() && !v.isUndefined())
        a.computed = v.toInteger();
    a.residual = o.value(QStringLiteral("residual_ns")).toInteger();
    a.significant = o.value(QStringLiteral("significant")).toBool();
    if (const auto v = o.value(QStringLiteral("user_offset_ns")); !v.isNull() && !v.isUndefined())
        a.user = v.toInteger();
    a.applied = o.value(QStringLiteral("applied_offset_ns")).toInteger();
    a.note = o.value(QStringLiteral("note")).toString();
    return a;
}

SourceAlignment SourceAlignment::fromRow(SourceId source, const QString &path,
                                         const QString &record, std::optional<TimeNs> user,
                                         TimeNs applied)
{
    auto a = fromJson(QJsonDocument::fromJson(record.toUtf8()).object());
    a.source = source;
    a.path = path;
    a.user = user;
    a.applied = applied;
    return a;
}

static TimeNs appliedOffset(const SourceAlignment &a)
{
    if (a.user)
        return *a.user;
    return a.significant && a.computed ? *a.computed : 0;
}

std::vector<SourceAlignment> computeAlignment(std::vector<AlignmentInput> sources)
{
    // Reference: the lowest known rank with collectives, else the first path.
    const AlignmentInput *ref = nullptr;
    auto key = [](const AlignmentInput &x) { return std::make_tuple(x.rank < 0, x.rank, x.path); };
    for (AlignmentInput &s : sources) {
        std::sort(s.ends.begin(), s.ends.end(),
                  [](const CollectiveEnd &a, const CollectiveEnd &b) { return a.start < b.start; });
        if (!s.ends.empty() && (!ref || key(s) < key(*ref)))
            ref = &s;
    }
    // Each source's fit against the reference, on every core: the medians of every shift are
    // most of an alignment's time, and it runs after an import's workers stopped.
    std::vector<std::optional<AlignmentFit>> fits(sources.size());
    if (ref && sources.size() > 1) {
        std::atomic<size_t> next{0};
        auto fitSome = [&] {
            for (size_t i; (i = next++) < sources.size();)
                if (&sources[i] != ref && !sources[i].ends.empty())
                    fits[i] = fitCollectives(ref->ends, sources[i].ends);
        };
        const size_t helpers = std::min<size_t>({std::max(1u, std::thread::hardware_concurrency()),
                                                 16, sources.size()}) -
                               1;
        std::vector<std::thread> threads;
        for (size_t t = 0; t < helpers; ++t)
            threads.emplace_back(fitSome);
        fitSome();
        for (std::thread &t : threads)
            t.join();
    }
    std::vector<SourceAlignment> out;
    out.reserve(sources.size());
    for (const AlignmentInput &s : sources) {
        SourceAlignment a;
        a.source = s.source;
        a.path = s.path;
        a.rank = s.rank;
        a.user = s.user;
        a.collectives = int(s.ends.size());
        if (ref && sources.size() > 1 && !s.ends.empty()) {
            a.reference = ref->source;
            a.referenceRank = ref->rank;
            if (&s == ref) {
                a.computed = 0;
                a.matched = a.collectives;
                a.note = QStringLiteral("reference");
            } else if (const auto &fit = fits[size_t(&s - sources.data())]) {
                a.computed = fit->offset;
                a.residual = fit->residual;
                a.matched = fit->matched;
                a.significant = std::abs(fit->offset) > kMinSignificantNs &&
                                std::abs(fit->offset) > kResidualFactor * fit->residual;
            } else {
                a.note = QStringLiteral("no collective of the same operation as the reference's");
            }
        }
        a.applied = appliedOffset(a);
        out.push_back(std::move(a));
    }
    return out;
}

bool storeAlignment(SqliteDb &db, const std::vector<SourceAlignment> &alignment, QString *error)
{
    auto up = db.prepare("UPDATE source SET alignment = ?, align_ns = ? WHERE id = ?");
    for (const SourceAlignment &a : alignment) {
        up.reset();
        if (a.reference != 0 || a.user)
            up.bindJson(1, a.toJson());
        else
            up.bindNull(1);
        up.bind(2, qint64(a.applied));
        up.bind(3, qint64(a.source));
        if (!up.exec()) {
            if (error)
                *error = up.errorString();
            return false;
        }
    }
    return true;
}

std::map<SourceId, AlignmentInput> alignmentSources(SqliteDb &db, RunId run,
                                                    std::map<SourceId, TimeNs> *clockOffsets)
{
    std::map<SourceId, AlignmentInput> sources;
    auto st = db.prepare("SELECT src.id, src.path, src.align_user_ns, "
                         "(SELECT min(rank) FROM track WHERE source_id = src.id), "
                         "src.clock_offset_ns FROM source src "
                         "WHERE src.run_id = ? AND src.status = 'imported'");
    st.bind(1, run);
    while (st.step()) {
        AlignmentInput s;
        s.source = st.int64(0);
        s.path = st.text(1);
        if (!st.isNull(2))
            s.user = st.int64(2);
        s.rank = st.isNull(3) ? -1 : int(st.int64(3));
        if (clockOffsets)
            (*clockOffsets)[s.source] = st.int64(4);
        sources.emplace(s.source, std::move(s));
    }
    return sources;
}

// alignRunClocks inside the caller's transaction.
static bool alignRun(Project &project, RunId run, QString *error)
{
    auto &db = project.db();
    std::map<SourceId, TimeNs> clockOffsets;
    std::map<SourceId, AlignmentInput> sources = alignmentSources(db, run, &clockOffsets);
    // Each source's collectives as its summary keeps them (sourcesummary.h), worked out where it
    // was imported; only a source without one of this version (a project of an older program,
    // a source without slices) has its GPU streams read here. Reading every stream of the run
    // again was the alignment's whole cost, on the import's thread after its workers stopped.
    std::set<SourceId> unread;
    std::vector<CollectiveEnd> ends;
    for (auto &[id, s] : sources) {
        ends.clear();
        const auto summary = loadSourceSummary(db, id);
        if (!summary || !decodeCollectives(summary->collectives, ends)) {
            unread.insert(id);
            continue;
        }
        const TimeNs offset = clockOffsets[id];
        for (const CollectiveEnd &c : ends)
            s.ends.push_back({c.op, c.start + offset, c.end + offset});
    }
    // The collective kernel names of the project (a few dozen strings at most).
    QHash<StringId, int> ops;
    if (!unread.empty()) {
        auto st = db.prepare("SELECT id, value FROM string WHERE value LIKE '%ccl%kernel%'");
        while (st.step())
            if (const int op = collectiveOperation(st.text(1)); op >= 0)
                ops.insert(st.int64(0), op);
    }
    if (!ops.isEmpty()) {
        // The collective kernels of the unread sources' GPU and stream tracks that have a
        // duration, as the summary keeps them: read from the chunks without args, track by
        // track in id order and each track's in the table's order (slicestore::before).
        auto tracks = db.prepare("SELECT id, source_id FROM track WHERE run_id = ? AND kind IN (" +
                                 std::to_string(int(TrackKind::Gpu)) + "," +
                                 std::to_string(int(TrackKind::Stream)) + ") ORDER BY id");
        tracks.bind(1, run);
        std::vector<std::pair<TrackId, SourceId>> gpuTracks;
        while (tracks.step())
            if (unread.count(tracks.int64(1)))
                gpuTracks.emplace_back(tracks.int64(0), tracks.int64(1));
        slicestore::TrackReader reader(db);
        std::vector<slicestore::Row> found;
        for (const auto &[track, source] : gpuTracks) {
            const auto it = sources.find(source);
            if (it == sources.end())
                continue;
            found.clear();
            if (!reader.read(track, false, [&](const slicestore::Row &r) {
                    if (r.dur > 0 && ops.contains(r.name))
                        found.push_back(r);
                })) {
                if (error)
                    *error = reader.errorString();
                return false;
            }
            std::sort(found.begin(), found.end(), slicestore::before);
            const TimeNs offset = clockOffsets[source];
            for (const slicestore::Row &r : found) {
                const TimeNs ts = r.ts + offset;
                it->second.ends.push_back({ops.value(r.name), ts, ts + r.dur});
            }
        }
    }
    std::vector<AlignmentInput> inputs;
    for (auto &[id, s] : sources)
        inputs.push_back(std::move(s));
    return storeAlignment(db, computeAlignment(std::move(inputs)), error);
}

bool alignRunClocks(Project &project, RunId run, QString *error)
{
    if (!project.begin(error))
        return false;
    if (!alignRun(project, run, error)) {
        project.rollback();
        return false;
    }
    return project.commit(error);
}

QList<SourceAlignment> loadRunAlignment(Project &project, RunId run)
{
    QList<SourceAlignment> out;
    auto st =
        project.db().prepare("SELECT id, path, alignment, align_user_ns, align_ns FROM source "
                             "WHERE run_id = ? AND alignment IS NOT NULL");
    st.bind(1, run);
    while (st.step())
        out.append(SourceAlignment::fromRow(
            st.int64(0), st.text(1), st.text(2),
            st.isNull(3) ? std::nullopt : std::optional<TimeNs>(st.int64(3)), st.int64(4)));
    std::sort(out.begin(), out.end(), [](const SourceAlignment &x, const SourceAlignment &y) {
        return std::make_tuple(x.rank < 0, x.rank, x.path) <
               std::make_tuple(y.rank < 0, y.rank, y.path);
    });
    return out;
}

bool setAlignmentOverride(Project &project, SourceId source, std::optional<TimeNs> offset,
                          QString *error)
{
    auto &db = project.db();
    RunId run = 0;
    {
        auto st = db.prepare("SELECT run_id FROM source WHERE id = ?");
        st.bind(1, qint64(source));
        if (!st.step()) {
            if (error)
                *error = QStringLiteral("no source with id %1").arg(source);
            return false;
        }
        run = st.int64(0);
    }
    if (!project.begin(error))
        return false;
    auto up = db.prepare("UPDATE source SET align_user_ns = ? WHERE id = ?");
    if (offset)
        up.bind(1, qint64(*offset));
    else
        up.bindNull(1);
    up.bind(2, qint64(source));
    if (!up.exec() || !alignRun(project, run, error)) {
        if (error && error->isEmpty())
            *error = up.errorString();
        project.rollback();
        return false;
    }
    return project.commit(error);
}

} // namespace gml
