// SPDX-License-Identifier: GPL-3.0-or-later
#include "rungrouping.h"

#include "importer.h"
#include "project.h"
#include "runrecords.h"
#include "timeformat.h"
#include "tracewriter.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

namespace gml {

namespace {

constexpr TimeNs kEpoch2001 = 1'000'000'000'000'000'000; // ns since 1970: Sept 2001
constexpr TimeNs kApart = 600'000'000'000;               // 10 min

struct Source
{
    SourceId id = 0;
    RunId run = 0;
    QString runName;
    QString path;
    bool trace = false;
    int rank = -1;
    int world = -1;
    bool hasSpan = false;
    TimeNs start = 0;
    TimeNs end = 0;
    bool absolute() const { return hasSpan && start > kEpoch2001; }
};

// What the importer of a stored format says its files are (Importer::kind).
Importer::Kind kindOf(const QString &format)
{
    const Importer *importer = importerOf(format);
    return importer ? importer->kind() : Importer::Kind::Other;
}

TimeNs overlap(const Source &a, const Source &b)
{
    return std::max<TimeNs>(0, std::min(a.end, b.end) - std::max(a.start, b.start));
}

bool overlapping(const Source &a, const Source &b)
{
    return a.absolute() && b.absolute() && a.start < b.end && b.start < a.end;
}

bool apart(const Source &a, const Source &b)
{
    return a.absolute() && b.absolute() &&
           std::max(a.start, b.start) - std::min(a.end, b.end) > kApart;
}

// Why two traces are ranks of one job; empty: they are not.
QString sameJob(const Source &a, const Source &b)
{
    if (a.rank >= 0 && b.rank >= 0 && a.rank != b.rank && a.world == b.world && !apart(a, b))
        return QStringLiteral("distributed info");
    if (overlapping(a, b))
        return QStringLiteral("clock");
    return {};
}

QString stem(const QString &path)
{
    const QString name = QFileInfo(path).fileName();
    const int dot = int(name.indexOf(QLatin1Char('.')));
    return dot > 0 ? name.left(dot) : name;
}

QString when(const Source &s)
{
    if (!s.hasSpan)
        return QStringLiteral("no data");
    if (!s.absolute())
        return QStringLiteral("relative clock, %1").arg(formatDuration(s.end - s.start));
    return QStringLiteral("%1, %2").arg(formatUtc(s.start), formatDuration(s.end - s.start));
}

QString rankText(const Source &s)
{
    if (s.rank < 0)
        return QStringLiteral("no distributed info");
    return s.world > 0 ? QStringLiteral("rank %1 of %2").arg(s.rank).arg(s.world)
                       : QStringLiteral("rank %1").arg(s.rank);
}

struct Plan
{
    SourceId source;
    QString from;
    RunId fromId;
    QString to;
    QString path;
};

// The placed traces and monitoring logs of a folder's paths.
void readSources(PlacedSourceReader &placedSources, const QStringList &paths,
                 std::vector<Source> &traces, std::vector<Source> &monitors)
{
    for (const QString &path : paths) {
        const auto placed = placedSources.at(path);
        if (!placed)
            continue;
        Source s;
        s.id = placed->id;
        s.run = placed->run;
        s.runName = placed->runName;
        s.path = path;
        const Importer::Kind kind = kindOf(placed->format);
        s.trace = kind == Importer::Kind::Trace;
        if (kind == Importer::Kind::Other)
            continue;
        s.rank = placed->rank.value_or(placed->trackRank.value_or(-1));
        s.world = placed->worldSize.value_or(-1);
        s.hasSpan = placed->start && placed->end;
        s.start = placed->start.value_or(0);
        s.end = placed->end.value_or(0);
        (s.trace ? traces : monitors).push_back(s);
    }
}

// The traces in components of "same job" (sameJob), each by path, the components by their first
// path; why any two were joined in `why`.
std::vector<std::vector<size_t>> sameJobGroups(const std::vector<Source> &traces,
                                               QSet<QString> &why)
{
    // Components of "same job".
    std::vector<size_t> parent(traces.size());
    std::iota(parent.begin(), parent.end(), size_t(0));
    std::function<size_t(size_t)> root = [&](size_t i) {
        return parent[i] == i ? i : parent[i] = root(parent[i]);
    };
    for (size_t i = 0; i < traces.size(); ++i)
        for (size_t j = i + 1; j < traces.size(); ++j)
            if (const QString w = sameJob(traces[i], traces[j]); !w.isEmpty()) {
                parent[root(j)] = root(i);
                why.insert(w);
            }
    std::map<size_t, std::vector<size_t>> groups; // root -> members (paths sorted: first is lowest)
    for (size_t i = 0; i < traces.size(); ++i)
        groups[root(i)].push_back(i);
    std::vector<std::vector<size_t>> ordered;
    for (auto &[r, members] : groups)
        ordered.push_back(members);
    std::sort(ordered.begin(), ordered.end(), [&](const auto &x, const auto &y) {
        return traces[x.front()].path < traces[y.front()].path;
    });
    return ordered;
}

// What a run of a folder is made of: its traces (up to three by name, else how many and their
// ranks) and why they are one job.
QString groupLine(const QString &name, const std::vector<size_t> &members,
                  const std::vector<Source> &traces, const QSet<QString> &why)
{
    QStringList what;
    if (members.size() <= 3) {
        for (size_t m : members)
            what << QStringLiteral("%1 (%2; %3)")
                        .arg(QFileInfo(traces[m].path).fileName(), rankText(traces[m]),
                             when(traces[m]));
    } else {
        QList<int> ranks;
        for (size_t m : members)
            if (traces[m].rank >= 0)
                ranks << traces[m].rank;
        std::sort(ranks.begin(), ranks.end());
        QString r = ranks.size() == qsizetype(members.size()) &&
                            ranks.back() - ranks.front() + 1 == ranks.size()
                        ? QStringLiteral("ranks %1-%2").arg(ranks.front()).arg(ranks.back())
                        : QStringLiteral("%1 with a rank").arg(ranks.size());
        if (traces[members.front()].world > 0)
            r += QStringLiteral(" of %1").arg(traces[members.front()].world);
        what << QStringLiteral("%1 traces, %2 and %3 more (%4; from %5)")
                    .arg(members.size())
                    .arg(QFileInfo(traces[members.front()].path).fileName())
                    .arg(members.size() - 1)
                    .arg(r, when(traces[members.front()]));
    }
    QString line = QStringLiteral("%1: %2").arg(name, what.join(QStringLiteral(", ")));
    if (members.size() > 1) {
        QSet<int> ranks;
        for (size_t m : members)
            ranks.insert(traces[m].rank);
        line += why.contains(QStringLiteral("distributed info")) && !ranks.contains(-1)
                    ? QStringLiteral(": ranks of one job (their distributed info)")
                    : QStringLiteral(": processes of one job (their clocks overlap)");
    }
    return line;
}

// Moves the planned sources, sets the runs' params from their sources again and joins the
// runs split from a folder in its workload, in one transaction.
RegroupResult applyPlans(Project &project, const QList<Plan> &plans,
                         const QHash<QString, QString> &workloadOf, RegroupResult result)
{
    QString error;
    if (!project.begin(&error)) {
        result.errors << QStringLiteral("runs not regrouped: ") + error;
        return result;
    }
    auto fail = [&](const QString &why) {
        project.rollback();
        result.errors << QStringLiteral("runs not regrouped: ") + why;
        result.moved.clear();
        result.touchedRuns.clear();
        result.leftRuns.clear();
        return result;
    };
    QSet<RunId> touchedIds;
    for (const Plan &p : plans) {
        const RunId to = project.ensureRun(p.to, &error);
        if (!to)
            return fail(error);
        if (!moveSource(project, p.source, to, &error))
            return fail(error);
        result.moved.insert(p.path, p.to);
        result.touchedRuns << p.from << p.to;
        result.leftRuns.insert(p.fromId);
        touchedIds << p.fromId << to;
    }
    // Params again from the sources now in each run (those imported before run_params was
    // kept add the run's old params).
    for (RunId run : std::as_const(touchedIds)) {
        QJsonObject params;
        bool complete = true;
        for (const auto &sourceParams : sourceRunParams(project, run)) {
            if (!sourceParams)
                complete = false;
            else
                mergeParams(params, *sourceParams);
        }
        if (!complete)
            mergeParams(params, runParams(project, run));
        if (!setRunParams(project, run, params, &error))
            return fail(error);
    }
    // The runs split from one folder are one workload, named after it (in no experiment unless
    // the user put it in one).
    for (auto it = workloadOf.begin(); it != workloadOf.end(); ++it)
        if (!joinWorkloadByName(project, it.key(), it.value(), &error))
            return fail(error);
    if (!project.commit(&error))
        return fail(error);
    return result;
}

} // namespace

RegroupResult regroupFolderRuns(Project &project, const QList<ScannedFile> &files,
                                const QSet<QString> &changedRuns)
{
    RegroupResult result;
    std::map<QString, QStringList> folders; // folder run -> paths
    for (const ScannedFile &f : files)
        if (f.runFromFolder && f.importer && changedRuns.contains(f.runName))
            folders[f.runName].append(f.path);
    if (folders.empty())
        return result;
    // What earlier imports put in the same-named runs is grouped with them: a file of another
    // folder of the same name (another host, another GPU, days later) joins the run only when
    // it is a rank of the same job or was recorded at the same time. Those earlier sources keep
    // their run's name (its notes and scenarios stay with it).
    QSet<QString> earlier;
    for (auto &[folderRun, paths] : folders) {
        const QSet<QString> now(paths.begin(), paths.end());
        for (const QString &path : importedPathsOfRunFamily(project, folderRun))
            if (!now.contains(path)) {
                paths.append(path);
                earlier.insert(path);
            }
        paths.sort();
    }

    PlacedSourceReader placedSources(project);
    QList<Plan> plans;
    QHash<QString, QString> workloadOf; // run -> the workload it joins
    for (const auto &folder : folders) {
        const QString &folderRun =
            folder.first; // named: lambdas below capture it (no structured binding)
        const QStringList &paths = folder.second;
        std::vector<Source> traces, monitors;
        readSources(placedSources, paths, traces, monitors);
        if (traces.size() < 2 && std::all_of(traces.begin(), traces.end(), [&](const Source &s) {
                return s.runName == folderRun;
            }))
            continue;
        QSet<QString> why;
        const std::vector<std::vector<size_t>> ordered = sameJobGroups(traces, why);
        RunGrouping g;
        g.folderRun = folderRun;
        std::vector<QString> target(traces.size());
        QSet<QString> names;
        // A group with a trace of an earlier import keeps that trace's run (and its name).
        std::vector<QString> keptName(ordered.size());
        for (size_t k = 0; k < ordered.size(); ++k)
            for (size_t m : ordered[k])
                if (earlier.contains(traces[m].path) && !names.contains(traces[m].runName)) {
                    keptName[k] = traces[m].runName;
                    names.insert(keptName[k]);
                    break;
                }
        for (size_t k = 0; k < ordered.size(); ++k) {
            const auto &members = ordered[k];
            QString name = keptName[k].isEmpty() ? folderRun : keptName[k];
            if (ordered.size() > 1 && keptName[k].isEmpty()) {
                const QString base =
                    folderRun + QLatin1Char('/') + stem(traces[members.front()].path);
                name = base;
                for (int n = 2; names.contains(name); ++n)
                    name = base + QStringLiteral("-%1").arg(n);
            }
            names.insert(name);
            for (size_t m : members)
                target[m] = name;
            g.runs.append(name);
            if (ordered.size() > 1)
                workloadOf.insert(name, folderRun);
            g.reasons << groupLine(name, members, traces, why);
        }
        if (ordered.size() > 1)
            g.reasons
                << QStringLiteral(
                       "separate runs of workload '%1': their distributed info does not make them "
                       "ranks of one job and their clocks do not overlap")
                       .arg(folderRun);
        for (size_t i = 0; i < traces.size(); ++i)
            if (traces[i].runName != target[i])
                plans.append(
                    {traces[i].id, traces[i].runName, traces[i].run, target[i], traces[i].path});
        // Monitoring logs: with the run they overlap most.
        for (const Source &m : monitors) {
            QString to = folderRun;
            TimeNs best = 0;
            for (size_t i = 0; i < traces.size(); ++i)
                if (const TimeNs o =
                        m.absolute() && traces[i].absolute() ? overlap(m, traces[i]) : 0;
                    o > best) {
                    best = o;
                    to = target[i];
                }
            if (ordered.size() > 1 && best > 0)
                g.reasons << QStringLiteral("%1: with %2 (recorded at the same time)")
                                 .arg(QFileInfo(m.path).fileName(), to);
            if (m.runName != to)
                plans.append({m.id, m.runName, m.run, to, m.path});
        }
        if (ordered.size() > 1 &&
            std::any_of(monitors.begin(), monitors.end(), [&](const Source &m) {
                return std::none_of(plans.begin(), plans.end(),
                                    [&](const Plan &p) { return p.source == m.id; }) &&
                       m.runName == folderRun;
            })) {
            workloadOf.insert(folderRun, folderRun);
            g.runs.append(folderRun);
        }
        result.groupings.append(g);
    }
    if (plans.isEmpty() && workloadOf.isEmpty())
        return result;

    return applyPlans(project, plans, workloadOf, result);
}

QStringList describeGroupings(const QList<RunGrouping> &groupings)
{
    QStringList out;
    for (const RunGrouping &g : groupings) {
        out << (g.runs.size() == 1 ? QStringLiteral("folder '%1': one run").arg(g.folderRun)
                                   : QStringLiteral("folder '%1': %2 runs of workload '%1'")
                                         .arg(g.folderRun)
                                         .arg(g.runs.size()));
        for (const QString &r : g.reasons)
            out << QStringLiteral("  ") + r;
    }
    return out;
}

} // namespace gml
