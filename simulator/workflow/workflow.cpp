// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow.h"

#include "gputime.h"
#include "project.h"
#include "runrecords.h"
#include "timeformat.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QSet>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

namespace gml::sim {

namespace {

constexpr int kProblemsListed = 20; // steps matching no run, per declaration; the rest are counted

bool hasData(const RunSummary &run)
{
    return run.kind == QLatin1String("measured") && (run.slices > 0 || run.counterSamples > 0);
}

// A run is under a folder when one of its files is.
bool runUnder(const RunSummary &run, const QString &folder)
{
    const QString prefix = folder.endsWith(QLatin1Char('/')) ? folder : folder + QLatin1Char('/');
    return std::any_of(run.sources.begin(), run.sources.end(),
                       [&](const SourceSummary &s) { return s.path.startsWith(prefix); });
}

void addRun(WorkflowStep &step, const RunSummary &run)
{
    step.runs << run.name;
    if (run.end > run.start) {
        const bool first = step.end <= step.start;
        step.start = first ? run.start : std::min(step.start, run.start);
        step.end = first ? run.end : std::max(step.end, run.end);
    }
    step.slices += run.slices;
    step.counterSamples += run.counterSamples;
    for (const auto &s : run.sources)
        if (s.status == QLatin1String("imported") && !step.formats.contains(s.format))
            step.formats << s.format;
}

// Edges i -> j for steps that ran one after the other: i ends before j starts, and no step
// lies wholly between them. Sorted by end, the steps before j are a prefix; its members that
// end after the latest start within it are the ones with nothing in between.
std::vector<WorkflowEdge> inferOrder(const std::vector<WorkflowStep> &steps,
                                     const std::vector<int> &among)
{
    std::vector<int> byEnd = among;
    std::sort(byEnd.begin(), byEnd.end(), [&](int a, int b) {
        return std::tie(steps[size_t(a)].end, a) < std::tie(steps[size_t(b)].end, b);
    });
    std::vector<TimeNs> maxStart(byEnd.size());
    for (size_t k = 0; k < byEnd.size(); ++k)
        maxStart[k] = std::max(k ? maxStart[k - 1] : std::numeric_limits<TimeNs>::min(),
                               steps[size_t(byEnd[k])].start);
    std::vector<WorkflowEdge> out;
    for (int j : among) {
        const TimeNs start = steps[size_t(j)].start;
        // The prefix of steps that end by the time j starts.
        const size_t n =
            size_t(std::upper_bound(byEnd.begin(), byEnd.end(), start,
                                    [&](TimeNs t, int s) { return t < steps[size_t(s)].end; }) -
                   byEnd.begin());
        if (n == 0)
            continue;
        const TimeNs latestStart = maxStart[n - 1];
        for (size_t k = n; k-- > 0;) {
            const int i = byEnd[k];
            if (steps[size_t(i)].end <= latestStart)
                break;
            if (i != j)
                out.push_back({i, j, true});
        }
    }
    std::sort(out.begin(), out.end(), [](const WorkflowEdge &a, const WorkflowEdge &b) {
        return std::tie(a.from, a.to) < std::tie(b.from, b.to);
    });
    return out;
}

// The inferred edges, among runs that belong together only: the steps are split into groups
// (one workload or experiment, or one trace folder, in common), each ordered on its own, and an
// edge over more than a day is dropped. A step alone in its group gets no edge, and the notes
// say so.
void inferWithinGroups(Workflow &w, const QList<RunSummary> &runs,
                       const QHash<QString, QStringList> &groups)
{
    QHash<QString, QStringList> keysOf; // run -> its workload, experiment and folder keys
    for (const RunSummary &run : runs) {
        QStringList keys = groups.value(run.name);
        for (const SourceSummary &src : run.sources)
            keys << QStringLiteral("folder:") + QFileInfo(src.path).absolutePath();
        keysOf.insert(run.name, keys);
    }
    // Union-find over the steps by shared keys.
    const size_t n = w.steps.size();
    std::vector<int> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    const std::function<int(int)> root = [&](int i) {
        return parent[size_t(i)] == i ? i : parent[size_t(i)] = root(parent[size_t(i)]);
    };
    QHash<QString, int> firstWithKey;
    for (size_t i = 0; i < n; ++i)
        for (const QString &run : w.steps[i].runs)
            for (const QString &key : keysOf.value(run)) {
                const auto it = firstWithKey.constFind(key);
                if (it == firstWithKey.constEnd())
                    firstWithKey.insert(key, int(i));
                else
                    parent[size_t(root(int(i)))] = root(*it);
            }
    std::map<int, std::vector<int>> members;
    for (size_t i = 0; i < n; ++i)
        members[root(int(i))].push_back(int(i));
    QStringList alone;
    qint64 apart = 0;
    for (const auto &[group, steps] : members) {
        if (steps.size() == 1) {
            alone << w.steps[size_t(steps.front())].name;
            continue;
        }
        for (const WorkflowEdge &e : inferOrder(w.steps, steps)) {
            if (w.steps[size_t(e.to)].start - w.steps[size_t(e.from)].end >
                Workflow::kTogetherWithin) {
                ++apart;
                continue;
            }
            w.edges.push_back(e);
        }
    }
    std::sort(w.edges.begin(), w.edges.end(), [](const WorkflowEdge &a, const WorkflowEdge &b) {
        return std::tie(a.from, a.to) < std::tie(b.from, b.to);
    });
    if (!alone.isEmpty() && n > 1) {
        constexpr int kListed = 8;
        const QString listed =
            alone.mid(0, kListed).join(QStringLiteral(", ")) +
            (alone.size() > kListed ? QStringLiteral(" and %1 more").arg(alone.size() - kListed)
                                    : QString());
        w.notes << QStringLiteral("%1 run(s) share no workload, experiment or trace folder with "
                                  "another run, so nothing "
                                  "says what feeds them: shown as separate steps with no edges "
                                  "(%2); declare a workflow in "
                                  "grademl.json to connect them")
                       .arg(alone.size())
                       .arg(listed);
    }
    if (apart > 0)
        w.notes << QStringLiteral(
                       "%1 possible edge(s) left out: the runs are more than a day apart")
                       .arg(apart);
}

// One loop among the edges (step names, the first repeated at the end), empty when none.
QStringList findLoop(const Workflow &w)
{
    const size_t n = w.steps.size();
    std::vector<std::vector<int>> out(n);
    for (const auto &e : w.edges)
        out[size_t(e.from)].push_back(e.to);
    std::vector<int> state(n, 0), parent(n, -1); // 0 new, 1 on the stack, 2 done
    for (size_t root = 0; root < n; ++root) {
        if (state[root])
            continue;
        std::vector<std::pair<int, size_t>> stack{{int(root), 0}};
        state[root] = 1;
        while (!stack.empty()) {
            auto &[v, next] = stack.back();
            if (next == out[size_t(v)].size()) {
                state[size_t(v)] = 2;
                stack.pop_back();
                continue;
            }
            const int to = out[size_t(v)][next++];
            if (state[size_t(to)] == 1) { // back edge: the loop is to ... v -> to
                QStringList loop{w.steps[size_t(to)].name};
                for (auto it = stack.begin(); it != stack.end(); ++it)
                    if (it->first == to)
                        for (auto k = it + 1; k != stack.end(); ++k)
                            loop << w.steps[size_t(k->first)].name;
                loop << w.steps[size_t(to)].name;
                return loop;
            }
            if (state[size_t(to)] == 0) {
                state[size_t(to)] = 1;
                parent[size_t(to)] = v;
                stack.push_back({to, 0});
            }
        }
    }
    return {};
}

} // namespace

int Workflow::find(const QString &step) const
{
    for (size_t i = 0; i < steps.size(); ++i)
        if (steps[i].name == step)
            return int(i);
    return -1;
}

Workflow Workflow::resolve(const std::vector<WorkflowDeclaration> &declarations,
                           const QList<RunSummary> &runs, const QHash<QString, QStringList> &groups)
{
    Workflow w;
    QHash<QString, QString> stepOfRun; // run -> the declared step that took it first
    QSet<QString> named;
    for (const WorkflowDeclaration &d : declarations) {
        w.declaredIn << d.path;
        if (w.name.isEmpty())
            w.name = d.name;
        const int first = int(w.steps.size());
        int emptySteps = 0;
        for (const auto &decl : d.steps) {
            WorkflowStep step;
            step.name = decl.name;
            step.declared = true;
            if (named.contains(step.name)) {
                w.problems << QStringLiteral(
                                  "%1: step '%2' is declared by another grademl.json too; "
                                  "this one is shown as '%2 (%3)'")
                                  .arg(d.path, step.name, d.name);
                step.name = QStringLiteral("%1 (%2)").arg(step.name, d.name);
            }
            named.insert(step.name);
            for (const RunSummary &run : runs) {
                const bool byName = decl.runs.contains(run.name);
                const bool byFolder =
                    std::any_of(decl.folders.begin(), decl.folders.end(),
                                [&](const QString &f) { return runUnder(run, f); });
                if (!byName && !(byFolder && hasData(run)))
                    continue;
                if (auto other = stepOfRun.constFind(run.name); other != stepOfRun.constEnd()) {
                    w.problems << QStringLiteral(
                                      "%1: run '%2' is in step '%3' and in step '%4'; it "
                                      "counts in both")
                                      .arg(d.path, run.name, *other, step.name);
                } else {
                    stepOfRun.insert(run.name, step.name);
                }
                addRun(step, run);
            }
            // Listed up to a point: a declaration of 1,000 steps and no runs yet is one problem.
            if (step.runs.isEmpty() && ++emptySteps <= kProblemsListed) {
                QStringList what;
                for (const auto &r : decl.runs)
                    what << QStringLiteral("no run is named '%1'").arg(r);
                for (const auto &f : decl.folders)
                    what << QStringLiteral("no imported run has files under %1").arg(f);
                w.problems << QStringLiteral("%1: step '%2' matches no run (%3); it is shown empty")
                                  .arg(d.path, step.name, what.join(QStringLiteral("; ")));
            }
            w.steps.push_back(std::move(step));
        }
        if (emptySteps > kProblemsListed)
            w.problems << QStringLiteral("%1: %2 more steps match no run; they are shown empty")
                              .arg(d.path)
                              .arg(emptySteps - kProblemsListed);
        auto index = [&](const QString &name) {
            for (int i = first; i < int(w.steps.size()); ++i)
                if (w.steps[size_t(i)].name == name)
                    return i;
            return -1;
        };
        for (const auto &[from, to] : d.edges) {
            const int a = index(from), b = index(to);
            if (a < 0 || b < 0) {
                w.problems << QStringLiteral(
                                  "%1: the edge %2 → %3 names no step '%4'; it is left out")
                                  .arg(d.path, from, to, a < 0 ? from : to);
                continue;
            }
            if (a == b) {
                w.problems << QStringLiteral(
                                  "%1: the edge %2 → %2 makes a step feed itself; it is left out")
                                  .arg(d.path, from);
                continue;
            }
            w.edges.push_back({a, b, false});
        }
    }
    if (w.name.isEmpty())
        w.name = QStringLiteral("workflow");
    if (!w.declaredIn.isEmpty()) {
        if (QStringList loop = findLoop(w); !loop.isEmpty()) {
            if (loop.size() > 12) { // the first and last steps, and how many between
                const qsizetype between = loop.size() - 10;
                loop = loop.mid(0, 5) +
                       QStringList{QStringLiteral("(%1 more steps)").arg(between)} +
                       loop.mid(loop.size() - 5);
            }
            w.problems << QStringLiteral("the declared edges make a loop: %1; a workflow's steps "
                                         "must run one after another, so the edges are shown but "
                                         "the critical path leaves the loop's last edge out")
                              .arg(loop.join(QStringLiteral(" → ")));
        }
        for (const auto &e : w.edges) {
            const WorkflowStep &a = w.steps[size_t(e.from)], &b = w.steps[size_t(e.to)];
            if (a.end > a.start && b.end > b.start && b.start < a.end)
                w.notes << QStringLiteral("step '%1' starts %2 before step '%3' ends, though '%3' "
                                          "feeds it (clocks of different hosts?)")
                               .arg(b.name, formatDuration(a.end - b.start), a.name);
        }
    }
    // Runs with data that no declared step names: steps of their own, in time order.
    std::vector<int> loose;
    for (const RunSummary &run : runs) {
        if (!hasData(run) || stepOfRun.contains(run.name))
            continue;
        WorkflowStep step;
        step.name = run.name;
        addRun(step, run);
        loose.push_back(int(w.steps.size()));
        w.steps.push_back(std::move(step));
    }
    if (w.declaredIn.isEmpty()) {
        std::sort(w.steps.begin(), w.steps.end(), [](const WorkflowStep &a, const WorkflowStep &b) {
            return std::tie(a.start, a.name) < std::tie(b.start, b.name);
        });
        inferWithinGroups(w, runs, groups);
    } else if (!loose.empty()) {
        QStringList names;
        for (int i : loose)
            names << w.steps[size_t(i)].name;
        w.notes << QStringLiteral("%1 runs are in no declared step and are shown on their own: %2")
                       .arg(loose.size())
                       .arg(names.join(QStringLiteral(", ")));
    }
    return w;
}

std::optional<Workflow> Workflow::load(Project &project, QString *error)
{
    QString e;
    const QList<RunSummary> runs = summarizeProject(project, &e);
    if (!e.isEmpty()) {
        if (error)
            *error = e;
        return std::nullopt;
    }
    QString declError;
    const auto declarations = workflowDeclarations(project, &declError);
    // Each run's workload and experiment, which say which runs belong together.
    QHash<QString, QStringList> groups;
    for (const RunPlacement &r : runPlacements(project)) {
        QStringList &keys = groups[r.name];
        if (r.workload)
            keys << QStringLiteral("workload:%1").arg(*r.workload);
        if (r.experiment)
            keys << QStringLiteral("experiment:%1").arg(*r.experiment);
    }
    Workflow w = resolve(declarations, runs, groups);
    if (!declError.isEmpty())
        w.problems.prepend(declError);
    return w;
}

QJsonObject Workflow::toJson() const
{
    QJsonArray stepList;
    for (const auto &s : steps)
        stepList.append(
            QJsonObject{{QStringLiteral("name"), s.name},
                        {QStringLiteral("runs"), QJsonArray::fromStringList(s.runs)},
                        {QStringLiteral("declared"), s.declared},
                        {QStringLiteral("start_ns"), s.start},
                        {QStringLiteral("end_ns"), s.end},
                        {QStringLiteral("duration_ns"), s.duration()},
                        {QStringLiteral("slices"), s.slices},
                        {QStringLiteral("counter_samples"), s.counterSamples},
                        {QStringLiteral("formats"), QJsonArray::fromStringList(s.formats)}});
    QJsonArray edgeList;
    for (const auto &e : edges)
        edgeList.append(
            QJsonObject{{QStringLiteral("from"), steps[size_t(e.from)].name},
                        {QStringLiteral("to"), steps[size_t(e.to)].name},
                        {QStringLiteral("kind"), e.inferred ? QStringLiteral("workflow_inferred")
                                                            : QStringLiteral("workflow")}});
    return {{QStringLiteral("name"), name},
            {QStringLiteral("inferred"), inferred()},
            {QStringLiteral("declared_in"), QJsonArray::fromStringList(declaredIn)},
            {QStringLiteral("steps"), stepList},
            {QStringLiteral("edges"), edgeList},
            {QStringLiteral("problems"), QJsonArray::fromStringList(problems)},
            {QStringLiteral("notes"), QJsonArray::fromStringList(notes)}};
}

QString Workflow::toText() const
{
    QString out =
        inferred() ? QStringLiteral("workflow (inferred from the runs' order in time): %1 steps\n")
                         .arg(steps.size())
                   : QStringLiteral("workflow '%1' declared in %2: %3 steps\n")
                         .arg(name, declaredIn.join(QStringLiteral(", ")))
                         .arg(steps.size());
    for (const auto &s : steps) {
        out += QStringLiteral("  step %1: %2")
                   .arg(s.name,
                        s.runs.isEmpty() ? QStringLiteral("no run") : formatDuration(s.duration()));
        if (!s.runs.isEmpty() && (s.runs.size() > 1 || s.runs.front() != s.name))
            out += QStringLiteral(", runs %1").arg(s.runs.join(QStringLiteral(", ")));
        if (!s.formats.isEmpty())
            out += QStringLiteral(" [%1]").arg(s.formats.join(QStringLiteral(", ")));
        out += QLatin1Char('\n');
    }
    for (const auto &e : edges)
        out += QStringLiteral("  %1 → %2%3\n")
                   .arg(steps[size_t(e.from)].name, steps[size_t(e.to)].name,
                        e.inferred ? QStringLiteral(" (inferred)") : QString());
    for (const auto &p : problems)
        out += QStringLiteral("problem: %1\n").arg(p);
    for (const auto &n : notes)
        out += QStringLiteral("note: %1\n").arg(n);
    return out;
}

// The workflow as a model: the root, one step node per step, the workflow edges as leaf
// edges between steps; the critical path is the longest chain of steps by duration (edges
// that close a declared loop are not followed).
ExecutionModel ExecutionModel::forWorkflow(const Workflow &workflow)
{
    ExecutionModel m;
    const int root = m.add(Level::Workflow, -1, workflow.name, -1, -1);
    for (const auto &s : workflow.steps) {
        const int k = m.add(Level::Step, root, s.name, -1, -1);
        ModelNode &n = m.m_nodes[size_t(k)];
        n.start = s.start;
        n.end = s.end > s.start ? s.end : s.start;
        n.self = n.inclusive();
        n.count = std::max<qint64>(1, s.runs.size());
        n.mix.idle = 0;
    }
    ModelNode &r = m.m_nodes[size_t(root)];
    r.start = std::numeric_limits<TimeNs>::max();
    r.end = std::numeric_limits<TimeNs>::min();
    for (size_t i = 1; i < m.m_nodes.size(); ++i) {
        r.children.push_back(int(i));
        if (m.m_nodes[i].end > m.m_nodes[i].start) {
            r.start = std::min(r.start, m.m_nodes[i].start);
            r.end = std::max(r.end, m.m_nodes[i].end);
        }
    }
    if (r.start > r.end)
        r.start = r.end = 0;
    r.count = 1;
    std::sort(r.children.begin(), r.children.end(), [&](int a, int b) {
        return std::tie(m.m_nodes[size_t(a)].start, a) < std::tie(m.m_nodes[size_t(b)].start, b);
    });
    {
        std::vector<std::pair<TimeNs, TimeNs>> spans;
        for (int c : r.children)
            spans.emplace_back(m.m_nodes[size_t(c)].start, m.m_nodes[size_t(c)].end);
        TimeNs covered = 0;
        for (const auto &[a, b] : unite(std::move(spans)))
            covered += b - a;
        r.self = std::max<TimeNs>(0, r.inclusive() - covered);
        r.mix.idle = r.self;
    }
    for (const auto &e : workflow.edges)
        m.m_leafEdges.push_back(
            {e.from + 1, e.to + 1,
             e.inferred ? ModelEdge::Kind::WorkflowInferred : ModelEdge::Kind::Workflow, 1});
    m.m_shape.resize(m.m_nodes.size());
    std::iota(m.m_shape.begin(), m.m_shape.end(), quint64(1)); // steps never fold

    // Longest chain by duration over the edges, in an order that follows them (Kahn); the
    // edges into a node already placed (a declared loop) are skipped.
    const size_t n = workflow.steps.size();
    std::vector<std::vector<int>> out(n);
    std::vector<int> indegree(n, 0);
    for (const auto &e : workflow.edges) {
        out[size_t(e.from)].push_back(e.to);
        ++indegree[size_t(e.to)];
    }
    std::vector<int> order, ready;
    std::vector<bool> placed(n, false);
    for (size_t i = 0; i < n; ++i)
        if (indegree[i] == 0)
            ready.push_back(int(i));
    while (order.size() < n) {
        if (ready.empty()) { // a loop: break it at its earliest unplaced step
            for (size_t i = 0; i < n; ++i)
                if (!placed[i]) {
                    ready.push_back(int(i));
                    break;
                }
        }
        const int v = ready.back();
        ready.pop_back();
        if (placed[size_t(v)])
            continue;
        placed[size_t(v)] = true;
        order.push_back(v);
        for (int to : out[size_t(v)])
            if (!placed[size_t(to)] && --indegree[size_t(to)] == 0)
                ready.push_back(to);
    }
    std::vector<int> position(n);
    for (size_t k = 0; k < order.size(); ++k)
        position[size_t(order[k])] = int(k);
    std::vector<TimeNs> best(n, 0);
    std::vector<int> prev(n, -1);
    for (int v : order) {
        best[size_t(v)] += workflow.steps[size_t(v)].duration();
        for (int to : out[size_t(v)])
            if (position[size_t(to)] > position[size_t(v)] && best[size_t(v)] > best[size_t(to)]) {
                best[size_t(to)] = best[size_t(v)];
                prev[size_t(to)] = v;
            }
    }
    if (n > 0) {
        int last = int(std::max_element(best.begin(), best.end()) - best.begin());
        m.m_criticalLength = best[size_t(last)];
        std::vector<int> chain;
        for (int v = last; v >= 0; v = prev[size_t(v)])
            chain.push_back(v);
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            ModelNode &step = m.m_nodes[size_t(*it + 1)];
            step.critical = workflow.steps[size_t(*it)].duration();
            m.m_criticalNodes.push_back(*it + 1);
        }
        r.critical = m.m_criticalLength;
    }
    return m;
}

} // namespace gml::sim
