// SPDX-License-Identifier: GPL-3.0-or-later
// The execution model (issue 15): the hierarchy built from a run's dependency graph, its times
// and its edges at each level; on a hand-made trace whose answer is known, and on real traces.
#include "dependencygraph.h"
#include "executionmodel.h"
#include "executionmodel_inputs.h"
#include "importutil.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <set>

using namespace gml;
using namespace gml::sim;

class TestExecutionModel : public QObject
{
    Q_OBJECT

    struct Built
    {
        QTemporaryDir dir;
        std::unique_ptr<Project> project;
        std::optional<DependencyGraph> graph;
        std::optional<ExecutionModel> model;
    };
    static std::unique_ptr<Built> build(const QStringList &paths, const QString &run)
    {
        auto b = std::make_unique<Built>();
        b->project = gmltest::newProject(b->dir);
        gmltest::importInto(*b->project, paths, run);
        QString error;
        const auto id = b->project->findRun(run);
        if (!id)
            qFatal("no run %s", qPrintable(run));
        b->graph = DependencyGraph::build(*b->project, *id, &error);
        if (!b->graph)
            qFatal("graph: %s", qPrintable(error));
        b->model = ExecutionModel::build(*b->graph, run);
        return b;
    }
    // The names of the nodes at a level, in start order.
    static QStringList namesAt(const ExecutionModel &m, Level level)
    {
        std::vector<const ModelNode *> at;
        for (const auto &n : m.nodes())
            if (n.level == level)
                at.push_back(&n);
        std::stable_sort(at.begin(), at.end(), [](const ModelNode *a, const ModelNode *b) {
            return a->start < b->start;
        });
        QStringList out;
        for (const ModelNode *n : at)
            out << n->name;
        return out;
    }
    // Invariants of any model: every graph node and slice belongs to exactly one model node,
    // children lie inside their parent's span and follow it in the levels, and the leaf work
    // adds up at the root.
    static void checkInvariants(const DependencyGraph &g, const ExecutionModel &m)
    {
        std::set<SliceId> seen;
        qint64 slices = 0;
        for (size_t i = 0; i < m.nodes().size(); ++i) {
            const ModelNode &n = m.nodes()[i];
            for (SliceId s : m.slices(int(i)))
                QVERIFY2(seen.insert(s).second, "a slice in two model nodes");
            slices += qint64(m.slices(int(i)).size());
            for (int c : n.children) {
                const ModelNode &child = m.nodes()[size_t(c)];
                QVERIFY(child.level > n.level ||
                        (child.level == Level::Scope && n.level == Level::Scope));
                QVERIFY(child.start >= n.start && child.end <= n.end);
            }
            QVERIFY(n.self >= 0 && n.self <= n.inclusive());
        }
        QCOMPARE(slices, qint64(g.nodes().size() + g.containers().size()));
        TimeNs leafWork = 0;
        for (size_t i = 0; i < g.nodes().size(); ++i) {
            QVERIFY(m.nodeOf(int(i)) >= 0);
            leafWork += g.nodes()[i].end - g.nodes()[i].start;
        }
        const ResourceMix &root = m.nodes().front().mix;
        QCOMPARE(root.cpu + root.gpuCompute + root.communication + root.copies, leafWork);
        for (int l = 0; l < kLevels; ++l)
            for (const ModelEdge &e : m.edges(Level(l))) {
                QVERIFY(e.from != e.to);
                QCOMPARE(int(m.nodes()[size_t(e.from)].level), l);
                QCOMPARE(int(m.nodes()[size_t(e.to)].level), l);
            }
    }

private Q_SLOTS:
    void handMadeHierarchy()
    {
        QTemporaryDir in;
        gmltest::writeFile(in, QStringLiteral("t/trace.json"), kHandMadeTrace);
        const auto b = build({in.filePath(QStringLiteral("t"))}, QStringLiteral("hand"));
        const ExecutionModel &m = *b->model;
        checkInvariants(*b->graph, m);
        QCOMPARE(namesAt(m, Level::Iteration),
                 (QStringList{QStringLiteral("ProfilerStep#1"), QStringLiteral("ProfilerStep#2")}));
        QCOMPARE(
            namesAt(m, Level::Scope),
            (QStringList{QStringLiteral("enumerate(DataLoader)#_Iter.__next__"),
                         QStringLiteral("nn.Module: Net"), QStringLiteral("nn.Module: Linear")}));
        // aten::addmm and the launch are part of aten::linear; relu and the backward op are
        // operators of iteration 1 (the backward op by time, from the autograd thread).
        QCOMPARE(namesAt(m, Level::Operator),
                 (QStringList{QStringLiteral("aten::linear"), QStringLiteral("aten::relu"),
                              QStringLiteral("LinearBackward0"), QStringLiteral("aten::relu")}));
        int linear = -1, gemm = -1, backward = -1;
        for (size_t i = 0; i < m.nodes().size(); ++i) {
            const QString &name = m.nodes()[i].name;
            if (name == QLatin1String("aten::linear"))
                linear = int(i);
            else if (name == QLatin1String("gemm"))
                gemm = int(i);
            else if (name == QLatin1String("LinearBackward0"))
                backward = int(i);
        }
        QVERIFY(linear >= 0 && gemm >= 0 && backward >= 0);
        const ModelNode &op = m.nodes()[size_t(linear)];
        QCOMPARE(op.count, 3); // linear, addmm, the launch
        QCOMPARE(m.nodes()[size_t(gemm)].parent, linear);
        QCOMPARE(m.nodes()[size_t(m.nodes()[size_t(op.parent)].parent)].name,
                 QStringLiteral("nn.Module: Net"));
        QCOMPARE(m.nodes()[size_t(m.ancestorAt(backward, Level::Iteration))].name,
                 QStringLiteral("ProfilerStep#1"));
        // The operator's span runs from its CPU start to its kernel's end; the kernel's 30 us
        // are GPU compute in its mix, its CPU leaf (the launch) 5 us, and self is the part of
        // the span before the kernel.
        QCOMPARE(op.start, m.nodes()[size_t(gemm)].start - 8000);
        QCOMPARE(op.inclusive(), 38000);
        QCOMPARE(op.mix.gpuCompute, 30000);
        QCOMPARE(op.mix.cpu, 5000);
        QCOMPARE(op.self, 8000);
        // Iteration level: program order 1 -> 2, and the thread wait of iteration 2's relu on
        // the backward op that ended 30 us before it on the other thread.
        const auto edges = m.edges(Level::Iteration);
        QCOMPARE(edges.size(), size_t(2));
        QCOMPARE(edges[0].kind, ModelEdge::Kind::ThreadWait);
        QCOMPARE(edges[1].kind, ModelEdge::Kind::ProgramOrder);
        // The two iterations differ in shape: no folding.
        QCOMPARE(m.foldedChildren(1, Level::Iteration).size(), size_t(2));
        // Iteration 1 tells its phases: the DataLoader, the forward pass, the backward op.
        const int first = m.find(QStringLiteral("ProfilerStep#1"));
        QStringList phases;
        for (int c : m.nodes()[size_t(first)].children)
            phases << m.nodes()[size_t(c)].name;
        QCOMPARE(phases, (QStringList{QStringLiteral("data loading"), QStringLiteral("forward"),
                                      QStringLiteral("backward")}));
        // One rank (or none): folding ranks changes nothing.
        QCOMPARE(m.foldRanks().nodes().size(), m.nodes().size());
    }

    void resnet50Iterations()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"));
        const auto b = build({gmltest::sharedTraces() +
                              QStringLiteral("/pytorch_kineto/kineto_tbplugin_2021_resnet50_v100")},
                             QStringLiteral("resnet50"));
        const ExecutionModel &m = *b->model;
        checkInvariants(*b->graph, m);
        QCOMPARE(
            namesAt(m, Level::Iteration),
            (QStringList{QStringLiteral("ProfilerStep#5"), QStringLiteral("ProfilerStep#6"),
                         QStringLiteral("ProfilerStep#7"), QStringLiteral("ProfilerStep#8"),
                         QStringLiteral("ProfilerStep#9"), QStringLiteral("ProfilerStep#10")}));
        // Each iteration: the DataLoader, zero_grad and step scopes, in that order, in the
        // phases the training loop runs: the batch loaded, the forward pass, zero_grad after
        // it, the backward pass (the autograd thread's, and the main thread's seed of the
        // gradient after zero_grad), the optimizer's step.
        QCOMPARE(m.countAt(Level::Scope), 18);
        QCOMPARE(m.countAt(Level::Phase), 30);
        for (const auto &n : m.nodes()) {
            if (n.level != Level::Iteration)
                continue;
            QStringList scopes, phases;
            for (int c : n.children) {
                QCOMPARE(m.nodes()[size_t(c)].level, Level::Phase);
                phases << m.nodes()[size_t(c)].name;
                for (int s : m.nodes()[size_t(c)].children)
                    if (m.nodes()[size_t(s)].level == Level::Scope)
                        scopes << m.nodes()[size_t(s)].name.section(QLatin1Char('#'), 0, 0);
            }
            QCOMPARE(scopes, (QStringList{QStringLiteral("enumerate(DataLoader)"),
                                          QStringLiteral("Optimizer.zero_grad"),
                                          QStringLiteral("Optimizer.step")}));
            QCOMPARE(phases, (QStringList{QStringLiteral("data loading"), QStringLiteral("forward"),
                                          QStringLiteral("optimizer"), QStringLiteral("backward"),
                                          QStringLiteral("optimizer")}));
            // The backward pass holds every autograd op of the iteration.
            for (size_t o = 0; o < m.nodes().size(); ++o)
                if (m.nodes()[o].name.startsWith(
                        QLatin1String("autograd::engine::evaluate_function")) &&
                    m.ancestorAt(int(o), Level::Iteration) == int(&n - m.nodes().data()))
                    QCOMPARE(m.nodes()[size_t(m.ancestorAt(int(o), Level::Phase))].name,
                             QStringLiteral("backward"));
        }
        // The iterations follow one another in program order; each holds the same operators.
        const auto edges = m.edges(Level::Iteration);
        QCOMPARE(std::count_if(
                     edges.begin(), edges.end(),
                     [](const ModelEdge &e) { return e.kind == ModelEdge::Kind::ProgramOrder; }),
                 5);
        std::set<qint64> operatorsPerIteration;
        for (const auto &n : m.nodes())
            if (n.level == Level::Iteration)
                operatorsPerIteration.insert(
                    std::count_if(m.nodes().begin(), m.nodes().end(), [&](const ModelNode &o) {
                        return o.level == Level::Operator &&
                               m.ancestorAt(int(&o - m.nodes().data()), Level::Iteration) ==
                                   int(&n - m.nodes().data());
                    }));
        QCOMPARE(operatorsPerIteration.size(), size_t(1));
        // So they fold into one group of 6 at iteration level (operators outside the steps,
        // deeper than that level, do not break the run); an aten::zero_ that launches a kernel
        // in one step and not in another does not change the shape.
        const auto groups = m.foldedChildren(1, Level::Iteration);
        QCOMPARE(groups.size(), size_t(1));
        QCOMPARE(groups[0].count, 6);
        QCOMPARE(m.nodes()[size_t(groups[0].first)].name, QStringLiteral("ProfilerStep#5"));
    }

    void dlrmCollectivesAcrossRanks()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100"));
        const auto b = build(
            {gmltest::sharedTraces() + QStringLiteral("/pytorch_kineto/param_dlrm_8rank_v100")},
            QStringLiteral("dlrm"));
        const ExecutionModel &m = *b->model;
        checkInvariants(*b->graph, m);
        // One ProfilerStep#10 per rank; at iteration level each rank's collectives link it to
        // every other rank's (8 x 7 directed pairs), as many times as the graph matched them.
        std::set<int> ranks;
        for (const auto &n : m.nodes())
            if (n.level == Level::Iteration)
                ranks.insert(n.rank);
        QCOMPARE(ranks, (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7}));
        qint64 pairs = 0, leaf = 0;
        for (const ModelEdge &e : m.edges(Level::Iteration)) {
            if (e.kind != ModelEdge::Kind::Collective)
                continue;
            ++pairs;
            leaf += e.count;
            QVERIFY(m.nodes()[size_t(e.from)].rank != m.nodes()[size_t(e.to)].rank);
        }
        QCOMPARE(pairs, 56);
        // Ranks do not fold into one another: they run side by side, not one after the other.
        QCOMPARE(m.foldedChildren(1, Level::Iteration).size(), size_t(8));
        QCOMPARE(leaf, b->graph->edgeCounts()[size_t(EdgeKind::Collective)]);
    }

    // The 8 ranks folded: one ProfilerStep#10 over all of them, spanning the slowest; the same
    // phases; every slice still in exactly one node; collectives between ranks inside the
    // nodes that fold them; the critical path charged as before.
    void dlrmRanksFold()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100"));
        const auto b = build(
            {gmltest::sharedTraces() + QStringLiteral("/pytorch_kineto/param_dlrm_8rank_v100")},
            QStringLiteral("dlrm"));
        const ExecutionModel &m = *b->model;
        QCOMPARE(m.rankCount(), 8);
        const ExecutionModel f = m.foldRanks();
        checkInvariants(*b->graph, f);
        QCOMPARE(namesAt(f, Level::Iteration), QStringList{QStringLiteral("ProfilerStep#10")});
        const int it = f.find(QStringLiteral("ProfilerStep#10"));
        QCOMPARE(f.nodes()[size_t(it)].ranks, 8);
        QCOMPARE(f.nodes()[size_t(it)].rank, -1);
        TimeNs start = std::numeric_limits<TimeNs>::max(), end = std::numeric_limits<TimeNs>::min();
        for (const auto &n : m.nodes())
            if (n.level == Level::Iteration) {
                start = std::min(start, n.start);
                end = std::max(end, n.end);
            }
        QCOMPARE(f.nodes()[size_t(it)].start, start);
        QCOMPARE(f.nodes()[size_t(it)].end, end);
        QStringList phases;
        for (int c : f.nodes()[size_t(it)].children)
            phases << f.nodes()[size_t(c)].name;
        QCOMPARE(phases, (QStringList{QStringLiteral("optimizer"), QStringLiteral("forward"),
                                      QStringLiteral("backward"), QStringLiteral("optimizer")}));
        for (const ModelEdge &e : f.edges(Level::Iteration))
            QVERIFY(e.kind != ModelEdge::Kind::Collective);
        QCOMPARE(f.criticalLength(), m.criticalLength());
        QCOMPARE(f.nodes()[size_t(it)].critical, [&] {
            TimeNs sum = 0;
            for (const auto &n : m.nodes())
                if (n.level == Level::Iteration)
                    sum += n.critical;
            return sum;
        }());
    }

    void cliFormats()
    {
        QTemporaryDir in;
        gmltest::writeFile(in, QStringLiteral("t/trace.json"), kTwoIterations);
        const QString project = in.filePath(QStringLiteral("p.grademl"));
        auto run = [](const QStringList &args) {
            const auto r = gmltest::runCli(args);
            return std::make_pair(r.code, r.all());
        };
        const auto imported = run({QStringLiteral("import"), in.filePath(QStringLiteral("t")),
                                   QStringLiteral("--project"), project});
        QVERIFY2(imported.first == 0, qPrintable(imported.second));
        auto r = run({QStringLiteral("graph"), project, QStringLiteral("--json")});
        QVERIFY2(r.first == 0, qPrintable(r.second));
        const QJsonObject o = QJsonDocument::fromJson(r.second.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("level")).toString(), QStringLiteral("iteration"));
        QCOMPARE(o.value(QStringLiteral("nodes")).toArray().size(),
                 4); // workflow, step, 2 iterations
        QCOMPARE(o.value(QStringLiteral("edges")).toArray().size(), 1);
        r = run({QStringLiteral("graph"), project, QStringLiteral("--dot"),
                 QStringLiteral("--level"), QStringLiteral("operator")});
        QCOMPARE(r.first, 0);
        QVERIFY2(r.second.startsWith(QStringLiteral("digraph execution {")) &&
                     r.second.contains(QStringLiteral("program_order")),
                 qPrintable(r.second));
        r = run({QStringLiteral("graph"), project, QStringLiteral("--level"),
                 QStringLiteral("module")});
        QCOMPARE(r.first, 0);
        // The two iterations have one shape: the text shows the first and folds the second.
        QVERIFY2(r.second.contains(QStringLiteral("iteration ProfilerStep#1: 100 µs")),
                 qPrintable(r.second));
        QVERIFY2(r.second.contains(
                     QStringLiteral("×2 of the same shape: 200 µs in all, 100 µs each on average")),
                 qPrintable(r.second));
        QVERIFY2(!r.second.contains(QStringLiteral("ProfilerStep#2")), qPrintable(r.second));
        r = run(
            {QStringLiteral("graph"), project, QStringLiteral("--level"), QStringLiteral("bogus")});
        QCOMPARE(r.first, 2);
        QVERIFY2(r.second.contains(QStringLiteral("unknown level 'bogus'")), qPrintable(r.second));
    }
};

QTEST_GUILESS_MAIN(TestExecutionModel)
#include "tst_executionmodel.moc"
