// SPDX-License-Identifier: GPL-3.0-or-later
#include "etlinker.h"

#include "runrecords.h"

#include <QFileInfo>

#include "project.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace gml {

namespace {

struct CpuOp
{
    SliceId id = 0;
    TrackId track = 0;
    TimeNs ts = 0;
    TimeNs end = 0;
    int name = 0; // index into the shared name table
    qint64 external = -1;
    qint64 recordFunction = -1;
};

constexpr size_t kWindow = 32;     // how far ahead an operator's slice may be (skipped slices)
constexpr size_t kProbe = 64;      // operators scored for each candidate start
constexpr double kMaxCells = 64e6; // the largest alignment table (bytes); beyond it, greedy

// Greedy in-order alignment of `names` (the ET's) with `seq` (the trace's) from `start`;
// calls `onMatch(i, k)` for each pair and returns how many matched.
template <typename F>
qint64 align(const std::vector<int> &names, size_t count, const std::vector<int> &seq, size_t start,
             F &&onMatch)
{
    qint64 matched = 0;
    size_t j = start;
    for (size_t i = 0; i < count && j < seq.size(); ++i) {
        const size_t stop = std::min(seq.size(), j + kWindow);
        for (size_t k = j; k < stop; ++k)
            if (seq[k] == names[i]) {
                onMatch(i, k);
                ++matched;
                j = k + 1;
                break;
            }
    }
    return matched;
}

// A longest common subsequence of `a` and `b` (dynamic programming, one byte per cell);
// calls `onMatch(i, k)` for each pair, in order.
template <typename F>
void commonSubsequence(const std::vector<int> &a, const std::vector<int> &b, F &&onMatch)
{
    const size_t n = a.size(), m = b.size();
    std::vector<uint8_t> dir(n * m); // 0: both, 1: skip a[i], 2: skip b[k]
    std::vector<uint32_t> prev(m + 1, 0), cur(m + 1, 0);
    for (size_t i = 1; i <= n; ++i) {
        cur[0] = 0;
        for (size_t k = 1; k <= m; ++k) {
            uint8_t &d = dir[(i - 1) * m + (k - 1)];
            if (a[i - 1] == b[k - 1]) {
                cur[k] = prev[k - 1] + 1;
                d = 0;
            } else if (prev[k] >= cur[k - 1]) {
                cur[k] = prev[k];
                d = 1;
            } else {
                cur[k] = cur[k - 1];
                d = 2;
            }
        }
        std::swap(prev, cur);
    }
    std::vector<std::pair<size_t, size_t>> pairs;
    for (size_t i = n, k = m; i > 0 && k > 0;) {
        const uint8_t d = dir[(i - 1) * m + (k - 1)];
        if (d == 0) {
            pairs.emplace_back(i - 1, k - 1);
            --i;
            --k;
        } else if (d == 1) {
            --i;
        } else {
            --k;
        }
    }
    for (auto it = pairs.rbegin(); it != pairs.rend(); ++it)
        onMatch(it->first, it->second);
}

} // namespace

QString methodName(EtLink::Method method)
{
    switch (method) {
    case EtLink::Method::RecordFunctionId:
        return QStringLiteral("Record function id");
    case EtLink::Method::ExternalId:
        return QStringLiteral("External id");
    case EtLink::Method::Order:
        return QStringLiteral("operator order and names");
    case EtLink::Method::None:
        break;
    }
    return QStringLiteral("none");
}

EtLink linkOperators(Project &project, RunId run, qint64 pid, StringId cpuOp,
                     const std::vector<EtOperator> &ops)
{
    EtLink best;
    best.run = run;
    QHash<QString, int> nameIndex;
    auto indexOf = [&](const QString &name) {
        auto it = nameIndex.constFind(name);
        if (it != nameIndex.constEnd())
            return *it;
        const int index = int(nameIndex.size());
        nameIndex.insert(name, index);
        return index;
    };
    QHash<StringId, int> byStringId;
    std::vector<CpuOp> slices;
    for (const ProcessOp &op : processOps(project, run, pid, cpuOp)) {
        CpuOp c;
        c.id = op.id;
        c.track = op.track;
        c.ts = op.ts;
        c.end = c.ts + op.dur;
        const StringId sid = op.name;
        auto n = byStringId.constFind(sid);
        c.name =
            n != byStringId.constEnd() ? *n : *byStringId.insert(sid, indexOf(project.string(sid)));
        c.external = op.external.value_or(-1);
        c.recordFunction = op.recordFunction.value_or(-1);
        slices.push_back(c);
    }
    if (slices.empty() || ops.empty())
        return best;
    std::vector<int> etNames;
    etNames.reserve(ops.size());
    for (const auto &op : ops)
        etNames.push_back(indexOf(op.name));

    // By id.
    const bool byRecordFunction = std::any_of(slices.begin(), slices.end(),
                                              [](const CpuOp &c) { return c.recordFunction >= 0; });
    {
        QHash<qint64, const CpuOp *> byId;
        for (const auto &c : slices) {
            const qint64 key = byRecordFunction ? c.recordFunction : c.external;
            if (key >= 0)
                byId.insert(key, &c);
        }
        best.method =
            byRecordFunction ? EtLink::Method::RecordFunctionId : EtLink::Method::ExternalId;
        for (size_t i = 0; i < ops.size(); ++i) {
            auto c = byId.constFind(ops[i].rfId);
            if (c == byId.constEnd())
                continue;
            if ((*c)->name == etNames[i])
                best.slices.insert(ops[i].rfId, (*c)->id);
            else
                ++best.idMismatches;
        }
        best.matched = best.slices.size();
    }
    if (best.idMismatches * 10 <= best.matched) // ids agree with names: done
        return best;

    // By order: the top-level slices (not inside another cpu_op of their thread) in time order.
    std::map<TrackId, std::vector<const CpuOp *>> threads;
    {
        std::vector<const CpuOp *> open;
        TrackId track = 0;
        for (const auto &c : slices) {
            if (c.track != track) {
                open.clear();
                track = c.track;
            }
            while (!open.empty() && open.back()->end <= c.ts)
                open.pop_back();
            if (open.empty())
                threads[c.track].push_back(&c);
            open.push_back(&c);
        }
    }
    // The ET's threads, largest first, each with its operators in rf_id order.
    std::map<qint64, std::vector<size_t>> byTid;
    for (size_t i = 0; i < ops.size(); ++i)
        byTid[ops[i].tid].push_back(i);
    std::vector<const std::vector<size_t> *> groups;
    for (const auto &[tid, members] : byTid)
        groups.push_back(&members);
    std::stable_sort(groups.begin(), groups.end(),
                     [](const auto *x, const auto *y) { return x->size() > y->size(); });

    EtLink order;
    order.run = run;
    order.method = EtLink::Method::Order;
    order.idMismatches = best.idMismatches;
    std::set<TrackId> used;
    for (const auto *group : groups) {
        std::vector<int> names;
        for (size_t i : *group)
            names.push_back(etNames[i]);
        // The thread and start that align the first operators best (the trace may hold
        // several iterations and the ET one of them: the earliest best one is taken).
        const size_t probe = std::min(kProbe, names.size());
        qint64 bestScore = 0;
        TrackId bestTrack = 0;
        size_t bestStart = 0;
        for (const auto &[track, members] : threads) {
            if (used.count(track))
                continue;
            std::vector<int> seq;
            for (const CpuOp *c : members)
                seq.push_back(c->name);
            for (size_t s = 0; s < seq.size(); ++s) {
                if (std::find(names.begin(), names.begin() + std::min<size_t>(4, names.size()),
                              seq[s]) == names.begin() + std::min<size_t>(4, names.size()))
                    continue;
                const qint64 score = align(names, probe, seq, s, [](size_t, size_t) {});
                if (score > bestScore) {
                    bestScore = score;
                    bestTrack = track;
                    bestStart = s;
                }
            }
        }
        if (bestScore == 0)
            continue;
        used.insert(bestTrack);
        const auto &members = threads[bestTrack];
        std::vector<int> seq;
        const size_t stop =
            std::min(members.size(), bestStart + names.size() + names.size() / 2 + kWindow);
        for (size_t k = bestStart; k < stop; ++k)
            seq.push_back(members[k]->name);
        auto onMatch = [&](size_t i, size_t k) {
            order.slices.insert(ops[(*group)[i]].rfId, members[bestStart + k]->id);
        };
        if (double(names.size()) * double(seq.size()) <= kMaxCells)
            commonSubsequence(names, seq, onMatch);
        else
            align(names, names.size(), seq, 0, onMatch);
    }
    order.matched = order.slices.size();
    return order.matched > best.matched ? order : best;
}

std::optional<EtRunLink> linkToRun(TraceWriter &w, qint64 pid, const std::vector<EtOperator> &ops,
                                   QString *error)
{
    const StringId cpuOp = w.intern("cpu_op");
    const RunId ownRun = w.runId();
    EtRunLink out;
    out.link = linkOperators(w.project(), ownRun, pid, cpuOp, ops);
    if (out.link.matched > 0)
        return out;
    for (const QString &path :
         importedPaths(w.project(), ownRun, QStringLiteral("chrome-trace"), 4))
        out.kinetoTraces.append(QFileInfo(path).fileName());
    EtLink best;
    QString bestName;
    for (const auto &[otherRun, otherName] : measuredRunsWithProcess(w.project(), pid, ownRun)) {
        EtLink l = linkOperators(w.project(), otherRun, pid, cpuOp, ops);
        // The same pid on another host is another process: most operators must be found, by
        // name, in the other run.
        if (l.matched * 2 >= qint64(ops.size()) && l.matched > best.matched) {
            best = std::move(l);
            bestName = otherName;
        }
    }
    if (best.matched > 0) {
        QString moveError;
        if (!w.moveToRun(best.run, &moveError)) {
            *error = QStringLiteral("could not write to the project: ") + moveError;
            return std::nullopt;
        }
        out.link = std::move(best);
        out.joinedRun = bestName;
    }
    return out;
}

void insertLinkMetadata(QJsonObject &meta, const EtRunLink &l)
{
    meta.insert(QStringLiteral("matched_operators"), l.link.matched);
    meta.insert(QStringLiteral("matched_by"), methodName(l.link.method));
    meta.insert(QStringLiteral("id_name_mismatches"), l.link.idMismatches);
    if (!l.joinedRun.isEmpty())
        meta.insert(QStringLiteral("joined_run"), l.joinedRun);
}

QList<ImportWarning> linkWarnings(const EtRunLink &l, qint64 pid, size_t ops, qint64 stored,
                                  size_t edges)
{
    QList<ImportWarning> out;
    const qint64 matched = l.link.matched;
    const QString by = methodName(l.link.method);
    if (!l.joinedRun.isEmpty())
        out.append(ImportWarning{
            QStringLiteral("no operator matched a slice of its own run; joined run '%1', where "
                           "process %2's cpu_op slices match %3 of %4 operators by %5")
                .arg(l.joinedRun)
                .arg(pid)
                .arg(matched)
                .arg(ops)
                .arg(by),
            -1, 1});
    if (matched == 0 && ops > 0 && !l.kinetoTraces.isEmpty() && l.joinedRun.isEmpty())
        out.append(ImportWarning{
            QStringLiteral(
                "matched nothing: the run's Kineto trace (%1) has no cpu_op slice of process %2 "
                "that matches "
                "an operator (by rf_id or by order and name), so none of its %3 data edges is in "
                "the graph; "
                "were the two recorded by different processes, or over different iterations?")
                .arg(l.kinetoTraces.join(QStringLiteral(", ")))
                .arg(pid)
                .arg(edges),
            -1, 1});
    else if (matched == 0 && ops > 0)
        out.append(ImportWarning{
            QStringLiteral("matched nothing: no cpu_op slice of process %1 in this run or any "
                           "other matches an operator (by rf_id or by order and name), so none of "
                           "its %2 data edges is in the graph (import the Kineto trace of the same "
                           "job; it is linked then, whichever is imported first)")
                .arg(pid)
                .arg(edges),
            -1, 1});
    else if (matched < qint64(ops))
        out.append(ImportWarning{
            QStringLiteral("%1 of %2 operators (pid %3) have no cpu_op slice of the same name "
                           "(matched by %4)%5; %6 of %7 data edges are kept")
                .arg(qint64(ops) - matched)
                .arg(ops)
                .arg(pid)
                .arg(by)
                .arg(l.link.method == EtLink::Method::Order && l.link.idMismatches > 0
                         ? QStringLiteral(", as %1 ids pointed at a slice of another operator")
                               .arg(l.link.idMismatches)
                         : QString())
                .arg(stored)
                .arg(edges),
            -1, 1});
    return out;
}

} // namespace gml
