// SPDX-License-Identifier: GPL-3.0-or-later
// The graph view's pieces without a window (issue 15): what a collapse state shows, the
// layered layout (no overlaps, edges point along the layers, wrapping), the figures.
#include "dependencygraph.h"
#include "executionmodel.h"
#include "figureexport.h"
#include "graphfigure.h"
#include "graphpainter.h"
#include "importutil.h"
#include "projectsummary.h"
#include "testutil.h"
#include "workflow.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QRandomGenerator>
#include <QTest>

#include <map>
#include <set>

using namespace gml;
using namespace gml::sim;

namespace {

std::shared_ptr<const ExecutionModel> modelOf(const QString &folder, const QString &run)
{
    QTemporaryDir dir;
    auto project = gmltest::newProject(dir);
    gmltest::importInto(*project, {folder}, run);
    QString error;
    auto model = ExecutionModel::forRun(*project, *project->findRun(run), run, &error);
    if (!model)
        qFatal("model: %s", qPrintable(error));
    return std::make_shared<const ExecutionModel>(std::move(*model));
}

// No two boxes overlap; every edge the layout ordered goes one or more layers right (left
// when it was reversed to break a cycle); routes start and end on their boxes' sides.
void checkLayout(const GraphPicture &p)
{
    const auto &boxes = p.layout.boxes;
    QCOMPARE(boxes.size(), p.scene.items.size());
    for (size_t a = 0; a < boxes.size(); ++a)
        for (size_t b = a + 1; b < boxes.size(); ++b)
            QVERIFY2(!boxes[a].intersects(boxes[b]),
                     qPrintable(QStringLiteral("boxes %1 and %2 overlap").arg(a).arg(b)));
    for (size_t i = 0; i < p.scene.edges.size(); ++i) {
        const auto &e = p.scene.edges[i];
        const auto &r = p.layout.routes[i];
        QVERIFY(r.size() >= 2);
        if (e.kind == ModelEdge::Kind::Collective)
            continue;
        const int la = p.layout.layer[size_t(e.from)], lb = p.layout.layer[size_t(e.to)];
        QVERIFY(p.layout.reversed[i] ? la > lb : lb > la);
        QVERIFY(qAbs(r.front().x() - (p.layout.reversed[i] ? boxes[size_t(e.from)].left()
                                                           : boxes[size_t(e.from)].right())) <
                1e-6);
        QVERIFY(qAbs(r.back().x() - (p.layout.reversed[i] ? boxes[size_t(e.to)].right()
                                                          : boxes[size_t(e.to)].left())) < 1e-6);
    }
    QVERIFY(p.layout.bounds.contains(boxes.front()));
}

} // namespace

class TestGraphView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void layoutOfRandomGraphsWithCycles()
    {
        QRandomGenerator rng(15);
        for (int round = 0; round < 20; ++round) {
            GraphLayoutInput in;
            const int n = 5 + int(rng.bounded(120));
            in.sizes.assign(size_t(n), QSizeF(GraphPainter::kNodeWidth, GraphPainter::kNodeHeight));
            for (int e = 0; e < 2 * n; ++e)
                in.edges.emplace_back(int(rng.bounded(n)),
                                      int(rng.bounded(n))); // loops, repeats, cycles
            const auto out = layoutGraph(in);
            for (size_t a = 0; a < out.boxes.size(); ++a)
                for (size_t b = a + 1; b < out.boxes.size(); ++b)
                    QVERIFY(!out.boxes[a].intersects(out.boxes[b]));
            std::set<std::pair<int, int>> dag;
            for (size_t i = 0; i < in.edges.size(); ++i) {
                const auto [a, b] = in.edges[i];
                if (a == b) {
                    QVERIFY(out.routes[i].empty()); // a self loop is not drawn
                    continue;
                }
                const int la = out.layer[size_t(a)], lb = out.layer[size_t(b)];
                QVERIFY(out.reversed[i] ? la > lb : lb > la);
            }
        }
    }

    void aChainWrapsIntoBands()
    {
        GraphLayoutInput in;
        in.sizes.assign(200, QSizeF(GraphPainter::kNodeWidth, GraphPainter::kNodeHeight));
        for (int i = 1; i < 200; ++i)
            in.edges.emplace_back(i - 1, i);
        const auto out = layoutGraph(in);
        QCOMPARE(out.layers, 200);
        QVERIFY(out.bands > 4);
        QCOMPARE(out.crossings, 0);
        // Roughly the aspect asked for, not a 50,000-pixel strip.
        const double aspect = out.bounds.width() / out.bounds.height();
        QVERIFY2(aspect > 0.6 && aspect < 4.0, qPrintable(QString::number(aspect)));
        // Consecutive boxes of a band sit side by side; a route into the next band comes
        // back along the gap under its band.
        QVERIFY(out.boxes[1].left() > out.boxes[0].right());
        int wrapped = 0;
        for (size_t i = 0; i < out.routes.size(); ++i)
            wrapped += out.routes[i].size() > 2;
        QCOMPARE(wrapped, out.bands - 1);
    }

    void resnet50IterationsFoldAndOpen()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"));
        const auto m =
            modelOf(gmltest::sharedTraces() +
                        QStringLiteral("/pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"),
                    QStringLiteral("resnet50"));
        // The step at iteration level with room for one box: the six ProfilerSteps are one
        // box ×6.
        GraphCollapse c;
        c.focus = 1;
        c.level = Level::Iteration;
        c.budget = 1;
        auto p = GraphPicture::make(m, c);
        checkLayout(*p);
        const auto group = std::find_if(p->scene.items.begin(), p->scene.items.end(),
                                        [](const GraphItem &i) { return i.count == 6; });
        QVERIFY(group != p->scene.items.end());
        QCOMPARE(group->period, 1);
        QCOMPARE(m->nodes()[size_t(group->first)].name, QStringLiteral("ProfilerStep#5"));
        QCOMPARE(m->nodes()[size_t(group->last)].name, QStringLiteral("ProfilerStep#10"));
        // Its time is the six iterations', its critical time theirs too.
        TimeNs sum = 0, critical = 0;
        for (const auto &n : m->nodes())
            if (n.level == Level::Iteration) {
                sum += n.inclusive();
                critical += n.critical;
            }
        QCOMPARE(group->time, sum);
        QCOMPARE(group->critical, critical);
        const int first = group->first;
        // With room for two, the first iteration shows and the other five stay a group.
        c.budget = 2;
        p = GraphPicture::make(m, c);
        QCOMPARE(p->scene.items.size(), size_t(2));
        QCOMPARE(p->scene.items[0].label, QStringLiteral("ProfilerStep#5"));
        QCOMPARE(p->scene.items[1].count, 5);
        QCOMPARE(m->nodes()[size_t(p->scene.items[1].first)].name,
                 QStringLiteral("ProfilerStep#6"));
        c.budget = 1;
        // At operator level the aten::zeros before each step joins the block (period 2).
        c.level = Level::Operator;
        p = GraphPicture::make(m, c);
        QVERIFY(std::any_of(p->scene.items.begin(), p->scene.items.end(),
                            [](const GraphItem &i) { return i.count == 6 && i.period == 2; }));
        // Unfolding the group (a double-click) shows the six, one after the other in program
        // order on the main thread.
        c.level = Level::Iteration;
        c.unfolded.insert(first);
        p = GraphPicture::make(m, c);
        checkLayout(*p);
        QStringList names;
        for (const auto &i : p->scene.items)
            if (m->nodes()[size_t(i.node)].level == Level::Iteration)
                names << i.label;
        QCOMPARE(names.size(), 6);
        const auto order = std::count_if(
            p->scene.edges.begin(), p->scene.edges.end(), [&](const GraphSceneEdge &e) {
                return e.kind == ModelEdge::Kind::ProgramOrder &&
                       m->nodes()[size_t(p->scene.items[size_t(e.from)].node)].level ==
                           Level::Iteration &&
                       m->nodes()[size_t(p->scene.items[size_t(e.to)].node)].level ==
                           Level::Iteration;
            });
        QCOMPARE(order, 5);
        // Focus on one iteration (a double-click on it): its children, within the budget
        // opened down to operators, every node of the iteration under exactly one box, and
        // the boxes' critical times add up to the iteration's.
        c = GraphCollapse{};
        c.focus = m->find(QStringLiteral("ProfilerStep#6"));
        c.level = Level::Operator;
        p = GraphPicture::make(m, c);
        checkLayout(*p);
        QVERIFY(p->scene.items.size() > 100);
        TimeNs underBoxes = 0;
        for (const auto &i : p->scene.items)
            underBoxes += i.critical;
        QCOMPARE(underBoxes, m->nodes()[size_t(c.focus)].critical);
        const auto crumbs = p->scene.breadcrumb();
        QCOMPARE(crumbs.size(), size_t(3)); // workflow › step › ProfilerStep#6
        QCOMPARE(crumbs.back(), c.focus);
        // A long operator chain is not wrapped into rows of boxes: it reads left to right,
        // one row, and the view scrolls.
        QCOMPARE(p->layout.bands, 1);
        QVERIFY(!p->rowPerIteration);
    }

    // Opened as the studio opens a run: iteration > phase > module, a row per iteration, and
    // the answer to "which module of which iteration holds the time" on screen: the longest
    // node of the module level (a phase, or a module in one) is a box of its own whose top line
    // names its iteration. Labels show whole where they fit a box; sync edges only on demand;
    // every edge counted has a route.
    void aRunReadsIterationPhaseModule()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"));
        const auto m =
            modelOf(gmltest::sharedTraces() +
                        QStringLiteral("/pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"),
                    QStringLiteral("resnet50"));
        const auto p = GraphPicture::make(m, GraphCollapse{});
        checkLayout(*p);
        const auto &nodes = m->nodes();
        QCOMPARE(p->scene.items.size(), size_t(30)); // 6 iterations x 5 phases
        QVERIFY(p->rowPerIteration);
        QCOMPARE(p->layout.bands, 6);
        int longest = -1;
        for (size_t n = 0; n < nodes.size(); ++n)
            if ((nodes[n].level == Level::Phase || nodes[n].level == Level::Scope) &&
                (longest < 0 || nodes[n].inclusive() > nodes[size_t(longest)].inclusive()))
                longest = int(n);
        QVERIFY(longest >= 0);
        // Its own box, or (a phase of one module, opened) its module's, with nearly all its time.
        int item = -1;
        for (size_t i = 0; i < p->scene.items.size(); ++i)
            for (int n = p->scene.items[i].node; n >= 0; n = nodes[size_t(n)].parent)
                if (n == longest &&
                    p->scene.items[i].time >= nodes[size_t(longest)].inclusive() * 9 / 10)
                    item = int(i);
        QVERIFY(item >= 0);
        const int iteration = m->ancestorAt(longest, Level::Iteration);
        QVERIFY(GraphPainter::context(p->scene, item).startsWith(nodes[size_t(iteration)].name));
        // Each row is one iteration, its phases in time order left to right.
        for (size_t i = 0; i < p->scene.items.size(); ++i)
            for (size_t j = 0; j < p->scene.items.size(); ++j) {
                const int a = m->ancestorAt(p->scene.items[i].node, Level::Iteration);
                const int b = m->ancestorAt(p->scene.items[j].node, Level::Iteration);
                const QRectF ba = p->layout.boxes[i], bb = p->layout.boxes[j];
                QCOMPARE(a == b,
                         qAbs(ba.center().y() - bb.center().y()) < GraphPainter::kNodeHeight);
                if (a == b && p->scene.items[i].start < p->scene.items[j].start)
                    QVERIFY(ba.right() < bb.left());
            }
        // Names: whole where they fit the widest box, else elided (the box is as wide as allowed).
        const QFontMetricsF names([] {
            QFont f;
            f.setPixelSize(12);
            f.setBold(true);
            return f;
        }());
        for (size_t i = 0; i < p->scene.items.size(); ++i) {
            const double text = names.horizontalAdvance(p->scene.items[i].label);
            const double box = p->layout.boxes[i].width();
            QVERIFY(text + 14 <= box || box == GraphPainter::kMaxNodeWidth);
        }
        // Sync edges (the NCCL run's phases wait on the device): left out until asked for,
        // unless on the critical path, and then every one is drawn.
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/hta_nccl_allreduce_rank0of2_a100"));
        const auto nccl =
            modelOf(gmltest::sharedTraces() +
                        QStringLiteral("/pytorch_kineto/hta_nccl_allreduce_rank0of2_a100"),
                    QStringLiteral("nccl"));
        GraphCollapse c;
        const auto quiet = GraphPicture::make(nccl, c);
        c.syncEdges = true;
        const auto all = GraphPicture::make(nccl, c);
        checkLayout(*all);
        const auto syncs = [](const GraphPicture &g) {
            return std::count_if(
                g.scene.edges.begin(), g.scene.edges.end(),
                [](const GraphSceneEdge &e) { return e.kind == ModelEdge::Kind::Sync; });
        };
        QVERIFY(quiet->scene.hiddenSync > 0);
        QCOMPARE(qsizetype(all->scene.edges.size()),
                 qsizetype(quiet->scene.edges.size()) + quiet->scene.hiddenSync);
        QCOMPARE(syncs(*all), syncs(*quiet) + quiet->scene.hiddenSync);
        for (const auto &e : quiet->scene.edges)
            QVERIFY(e.kind != ModelEdge::Kind::Sync || e.critical);
        // A phase of operators opens (a double-click) into its operators, one row.
        GraphCollapse open;
        open.focus = m->find(QStringLiteral("backward"));
        const auto backward = GraphPicture::make(m, open);
        QVERIFY(backward->scene.items.size() > 20);
        QCOMPARE(backward->layout.bands, 1);
        // The legend wraps into rows rather than being cut.
        QCOMPARE(GraphPainter::legendHeight(*all, 1900), GraphPainter::kLegendHeight);
        QVERIFY(GraphPainter::legendHeight(*all, 500) >= 2 * GraphPainter::kLegendHeight);
    }

    void dlrmRanksJoinAtTheirCollectives()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100"));
        const auto m = modelOf(gmltest::sharedTraces() +
                                   QStringLiteral("/pytorch_kineto/param_dlrm_8rank_v100"),
                               QStringLiteral("dlrm"));
        GraphCollapse c;
        c.focus = 1;
        c.level = Level::Iteration;
        const auto p = GraphPicture::make(m, c);
        checkLayout(*p);
        // Eight iterations, one per rank; the model links each rank's to every other's (56
        // directed pairs); the view joins them in rank order: 7 collective edges.
        std::set<int> ranks;
        for (const auto &i : p->scene.items)
            if (m->nodes()[size_t(i.node)].level == Level::Iteration)
                ranks.insert(m->nodes()[size_t(i.node)].rank);
        QCOMPARE(ranks, (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7}));
        std::vector<std::pair<int, int>> chain;
        for (const auto &e : p->scene.edges)
            if (e.kind == ModelEdge::Kind::Collective)
                chain.emplace_back(m->nodes()[size_t(p->scene.items[size_t(e.from)].node)].rank,
                                   m->nodes()[size_t(p->scene.items[size_t(e.to)].node)].rank);
        std::sort(chain.begin(), chain.end());
        QCOMPARE(chain, (std::vector<std::pair<int, int>>{
                            {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}}));
        // The critical path runs through at least one rank's iteration.
        QVERIFY(std::any_of(p->scene.items.begin(), p->scene.items.end(), [&](const GraphItem &i) {
            return i.critical * 2 > p->scene.criticalLength;
        }));
    }

    void manyRanksStayWithinTheBudget()
    {
        // 12 ranks x 20 steps: 240 iterations. A step's children are taken rank by rank, so
        // each rank's iterations fold (×20), and ranks never fold into one another.
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 12, 20);
        const auto m = modelOf(traces, QStringLiteral("job"));
        QCOMPARE(m->countAt(Level::Iteration), 240);
        GraphCollapse c;
        c.level = Level::Iteration;
        c.budget = 12;
        auto p = GraphPicture::make(m, c);
        checkLayout(*p);
        auto ranksUnder = [&](const GraphPicture &pic, size_t item) {
            std::multiset<int> ranks;
            for (size_t n = 0; n < m->nodes().size(); ++n)
                if (m->nodes()[n].level == Level::Iteration &&
                    pic.scene.itemOf(int(n)) == int(item))
                    ranks.insert(m->nodes()[n].rank);
            return ranks;
        };
        QCOMPARE(p->scene.items.size(), size_t(12));
        for (size_t i = 0; i < p->scene.items.size(); ++i) {
            const auto ranks = ranksUnder(*p, i);
            QCOMPARE(ranks.size(), size_t(20));
            QCOMPARE(ranks.count(*ranks.begin()), size_t(20));
            QCOMPARE(p->scene.items[i].count, 20);
        }
        // Unfolding rank 0's group shows more boxes than the budget: runs of successive
        // iterations become ranges ("ProfilerStep#0 … #3 · rank 0"), which unfold
        // in turn.
        const auto rank0 =
            std::find_if(p->scene.items.begin(), p->scene.items.end(),
                         [&](const GraphItem &i) { return m->nodes()[size_t(i.node)].rank == 0; });
        QVERIFY(rank0 != p->scene.items.end());
        c.unfolded.insert(rank0->unfoldKey());
        p = GraphPicture::make(m, c);
        checkLayout(*p);
        std::vector<size_t> ranges;
        for (size_t i = 0; i < p->scene.items.size(); ++i)
            if (p->scene.items[i].range) {
                ranges.push_back(i);
                QCOMPARE(ranksUnder(*p, i), (std::multiset<int>{0, 0, 0, 0}));
                QVERIFY(p->scene.items[i].isGroup());
                QVERIFY(p->scene.items[i].label.contains(QStringLiteral(" … ")));
                QVERIFY(p->scene.items[i].label.endsWith(QStringLiteral(" · rank 0")));
            }
        QCOMPARE(ranges.size(), size_t(5));
        QCOMPARE(p->scene.items[ranges[0]].label, QStringLiteral("ProfilerStep#0 … #3 · rank 0"));
        const GraphItem second = p->scene.items[ranges[1]];
        QCOMPARE(m->nodes()[size_t(second.first)].name, QStringLiteral("ProfilerStep#4 · rank 0"));
        c.unfolded.insert(second.unfoldKey());
        p = GraphPicture::make(m, c);
        checkLayout(*p);
        for (int k = 4; k < 8; ++k) {
            const int node = m->find(QStringLiteral("ProfilerStep#%1 · rank 0").arg(k));
            const int item = p->scene.itemOf(node);
            QVERIFY(item >= 0);
            QCOMPARE(p->scene.items[size_t(item)].node, node);
            QVERIFY(!p->scene.items[size_t(item)].isGroup());
        }
        // With fewer boxes allowed than ranks, ranks share ranges; nothing is left out.
        c = GraphCollapse{};
        c.level = Level::Iteration;
        c.budget = 8;
        p = GraphPicture::make(m, c);
        checkLayout(*p);
        QVERIFY(p->scene.items.size() <= size_t(8));
        size_t under = 0;
        for (size_t i = 0; i < p->scene.items.size(); ++i)
            under += ranksUnder(*p, i).size();
        QCOMPARE(under, size_t(240));
    }

    void sideBySideBoxesShowTheirEdge()
    {
        // Two steps run one after the other: laid out side by side, joined by a straight
        // horizontal edge, whose bounding box (height 0) intersected nothing and was not drawn.
        RunSummary a, b;
        a.name = QStringLiteral("a");
        b.name = QStringLiteral("b");
        a.kind = b.kind = QStringLiteral("measured");
        a.start = 0;
        a.end = 10;
        b.start = 20;
        b.end = 30;
        a.slices = b.slices = 1;
        // One experiment: they belong together.
        const QHash<QString, QStringList> groups{
            {QStringLiteral("a"), {QStringLiteral("experiment:1")}},
            {QStringLiteral("b"), {QStringLiteral("experiment:1")}}};
        const auto w = sim::Workflow::resolve({}, {a, b}, groups);
        QCOMPARE(w.edges.size(), size_t(1));
        const auto model =
            std::make_shared<const sim::ExecutionModel>(sim::ExecutionModel::forWorkflow(w));
        const auto p = GraphPicture::make(model, GraphCollapse{});
        QCOMPARE(p->layout.boxes.size(), size_t(2));
        const QRectF left = p->layout.boxes[0].left() < p->layout.boxes[1].left()
                                ? p->layout.boxes[0]
                                : p->layout.boxes[1];
        const QRectF right = left == p->layout.boxes[0] ? p->layout.boxes[1] : p->layout.boxes[0];
        QCOMPARE(left.center().y(), right.center().y());
        QImage image(p->layout.bounds.size().toSize() + QSize(40, 40), QImage::Format_ARGB32);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            const QTransform t = QTransform::fromTranslate(20 - p->layout.bounds.left(),
                                                           20 - p->layout.bounds.top());
            GraphOverlay overlay;
            overlay.legend = false;
            GraphPainter::paint(painter, *p, t, QRectF(image.rect()), overlay);
        }
        // Midway between the boxes, on their centre line: the edge's colour, not the background.
        const QPointF mid((left.right() + right.left()) / 2 + 20 - p->layout.bounds.left(),
                          left.center().y() + 20 - p->layout.bounds.top());
        const QRgb background = image.pixel((mid + QPointF(0, -20)).toPoint());
        QVERIFY2(image.pixel(mid.toPoint()) != background,
                 qPrintable(QStringLiteral("pixel %1 at (%2, %3), as the background")
                                .arg(image.pixel(mid.toPoint()), 0, 16)
                                .arg(mid.x())
                                .arg(mid.y())));
    }

    void figuresArePngSvgAndPdf()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"));
        const auto m =
            modelOf(gmltest::sharedTraces() +
                        QStringLiteral("/pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"),
                    QStringLiteral("resnet50"));
        const auto p = GraphPicture::make(m, GraphCollapse{});
        QTemporaryDir dir;
        QString error;
        const QString png = dir.filePath(QStringLiteral("g.png")),
                      svg = dir.filePath(QStringLiteral("g.svg")),
                      pdf = dir.filePath(QStringLiteral("g.pdf"));
        QVERIFY2(exportGraphFigure(*p, {}, png, QStringLiteral("title"), &error),
                 qPrintable(error));
        QVERIFY2(exportGraphFigure(*p, {}, svg, QStringLiteral("title"), &error),
                 qPrintable(error));
        QVERIFY2(exportGraphFigure(*p, {}, pdf, QStringLiteral("title"), &error),
                 qPrintable(error));
        const QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= p->layout.bounds.width() * 0.9 || image.width() >= 6000 * 0.9);
        // Not a blank page: the boxes' fill shows.
        std::set<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.size() > 20);
        QFile s(svg);
        QVERIFY(s.open(QIODevice::ReadOnly));
        const QByteArray svgText = s.readAll();
        QVERIFY(svgText.contains("<svg"));
        QVERIFY(svgText.contains("ProfilerStep#5")); // text stays text
        QFile d(pdf);
        QVERIFY(d.open(QIODevice::ReadOnly));
        QVERIFY(d.read(5) == "%PDF-");
        // A bad path is an error that names it, and nothing is left behind.
        QVERIFY(!exportGraphFigure(*p, {}, dir.filePath(QStringLiteral("no/such/dir/g.png")), {},
                                   &error));
        QVERIFY(error.contains(QLatin1String("no/such/dir/g.png")));
        QVERIFY(!exportGraphFigure(*p, {}, dir.filePath(QStringLiteral("g.bmp")), {}, &error));
        QVERIFY(error.contains(QLatin1String("png, svg or pdf")));
    }
};

QTEST_MAIN(TestGraphView)
#include "tst_graphview.moc"
