// SPDX-License-Identifier: GPL-3.0-or-later
// A job imported in shards on this machine (grademl import --shard I/N, then grademl merge;
// tests/cluster/tst_dask.sh runs the same through Dask): the cluster project's timeline pages
// each rank from its shard with the names, times and nesting a direct import of the job shows;
// a slice's details and its flows come from its shard, in the cluster's ids and on its clock;
// the studio opens the cluster project, expands a rank from the rank overview and draws its
// streams (screenshot); a shard that is gone is said, naming it. The cross-rank report, compare
// and export on it; the shipped Slurm template run as an array's tasks.
#include "analysiscontroller.h"
#include "analysispanel.h"
#include "chartlayer.h"
#include "clusterproject.h"
#include "detailspanel.h"
#include "flamecontroller.h"
#include "flamegraph.h"
#include "importutil.h"
#include "mainwindow.h"
#include "project.h"
#include "rankfacts.h"
#include "rankoverviewcontroller.h"
#include "rankoverviewpainter.h"
#include "rankoverviewview.h"
#include "ranksview.h"
#include "slicequery.h"
#include "studiodriver.h"
#include "studioutil.h"
#include "testutil.h"
#include "timelinedata.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QCryptographicHash>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <limits>
#include <map>

using namespace gml;

namespace {

constexpr TimeNs kAll0 = std::numeric_limits<TimeNs>::min(),
                 kAll1 = std::numeric_limits<TimeNs>::max();

// Each slice track with slices, by its place: the run's rank and the track's path.
std::map<QString, TrackId> tracksByPath(const TimelineData &data)
{
    std::map<QString, TrackId> out;
    for (const auto &run : data.runs)
        for (const auto &t : run.tracks)
            if (t.slices > 0)
                out[QStringLiteral("%1/%2").arg(t.rank).arg(data.trackPath(t.id))] = t.id;
    return out;
}

} // namespace

class TestCluster : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_direct, m_cluster;

    // The three shards of initTestCase copied into `dir` (for tests that damage or move them).
    QStringList copyShards(const QTemporaryDir &dir) const
    {
        QStringList shards;
        for (int i = 0; i < 3; ++i) {
            const QString to = dir.filePath(QStringLiteral("shard-%1-of-3.grademl").arg(i));
            if (QFile::copy(
                    m_tmp.filePath(QStringLiteral("cluster.shards/shard-%1-of-3.grademl").arg(i)),
                    to))
                shards << to;
        }
        return shards;
    }

    void run(const QStringList &args)
    {
        const auto p = gmltest::runProgram(QStringLiteral(GRADEML_CLI), args);
        QVERIFY2(p.code == 0, qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") +
                                         QString::fromUtf8(p.err)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        const QString job = gmltest::generateJob(
            m_tmp, 6, 4, 2000, {QStringLiteral("--slow-rank"), QStringLiteral("3")});
        m_direct = m_tmp.filePath(QStringLiteral("direct.grademl"));
        m_cluster = m_tmp.filePath(QStringLiteral("cluster.grademl"));
        run({QStringLiteral("import"), job, QStringLiteral("--project"), m_direct,
             QStringLiteral("--quiet")});
        QDir().mkpath(m_tmp.filePath(QStringLiteral("cluster.shards")));
        QStringList merge{QStringLiteral("merge"), m_cluster};
        for (int i = 0; i < 3; ++i) {
            const QString shard =
                m_tmp.filePath(QStringLiteral("cluster.shards/shard-%1-of-3.grademl").arg(i));
            run({QStringLiteral("import"), job, QStringLiteral("--project"), shard,
                 QStringLiteral("--shard"), QStringLiteral("%1/3").arg(i),
                 QStringLiteral("--quiet")});
            merge << shard;
        }
        run(merge);
    }

    // Every slice of every track, read from the shards, is the direct import's: same start,
    // duration and name, in the same order.
    void timelinePagesEachRankFromItsShard()
    {
        QString error;
        const auto direct = loadTimelineData(m_direct, &error, {}, false);
        QVERIFY2(direct, qPrintable(error));
        const auto cluster = loadTimelineData(m_cluster, &error);
        QVERIFY2(cluster, qPrintable(error));
        QVERIFY(cluster->pager);
        QVERIFY(cluster->slices.isEmpty()); // nothing is held: every track is in a shard
        QCOMPARE(qint64(cluster->pagedSlices), qint64(direct->sliceCount()));
        const auto want = tracksByPath(*direct), got = tracksByPath(*cluster);
        QCOMPARE(got.size(), want.size());
        qint64 compared = 0;
        for (const auto &[path, id] : want) {
            QVERIFY2(got.count(path), qPrintable(path));
            const auto d = direct->slicesIn(id, kAll0, kAll1);
            const auto c = cluster->slicesIn(got.at(path), kAll0, kAll1, &error);
            QVERIFY2(d && c, qPrintable(path + QStringLiteral(": ") + error));
            QCOMPARE(c->size(), d->size());
            for (size_t i = 0; i < d->size(); ++i) {
                QCOMPARE(c->start(i), d->start(i));
                QCOMPARE(c->duration(i), d->duration(i));
                QCOMPARE(c->depth(i), d->depth(i));
                QCOMPARE(cluster->name(c->nameId(i)), direct->name(d->nameId(i)));
                QVERIFY(cluster::shardOfSlice(c->id(i)) > 0);
            }
            compared += qint64(d->size());
        }
        QCOMPARE(compared, qint64(direct->sliceCount()));

        // Find, the range aggregate and the flame graph read the shards as they read a project.
        QList<TrackId> allDirect, allCluster;
        for (const auto &[path, id] : want) {
            allDirect << id;
            allCluster << got.at(path);
        }
        const auto foundD = findSlices(*direct, allDirect, QStringLiteral("nccl"), false);
        const auto foundC = findSlices(*cluster, allCluster, QStringLiteral("nccl"), false, &error);
        QVERIFY(!foundD.empty());
        QCOMPARE(foundC.size(), foundD.size());
        for (size_t i = 0; i < foundD.size(); ++i)
            QCOMPARE(foundC[i].start, foundD[i].start);
        const TimeNs a = direct->start + (direct->end - direct->start) / 3,
                     b = direct->start + (direct->end - direct->start) / 2;
        auto rowsOf = [](const TimelineData &data, const std::vector<AggregateRow> &rows) {
            std::map<QString, std::tuple<qint64, TimeNs, TimeNs>> out;
            for (const AggregateRow &r : rows)
                out[data.name(r.name)] = {r.count, r.inRange, r.total};
            return out;
        };
        const auto aggD = rowsOf(*direct, aggregateSlices(*direct, allDirect, a, b));
        const auto aggC = rowsOf(*cluster, aggregateSlices(*cluster, allCluster, a, b, &error));
        QVERIFY(aggD.size() > 3);
        QVERIFY(aggC == aggD);
        FlameGraph flameD, flameC;
        FlameRequest request;
        QVERIFY(buildFlameGraph(*direct, nullptr, request, &flameD, &error));
        QVERIFY2(buildFlameGraph(*cluster, nullptr, request, &flameC, &error), qPrintable(error));
        QVERIFY(flameD.total() > 0);
        QCOMPARE(flameC.folded(), flameD.folded());
        // GPU time under launches needs the flows, which stay in the shards: said.
        auto clusterProject = Project::open(m_cluster, Project::Mode::ReadOnly, &error);
        request.metric = FlameMetric::GpuTime;
        QVERIFY(!buildFlameGraph(*cluster, clusterProject.get(), request, &flameC, &error));
        QVERIFY2(error.contains(QLatin1String("shard")), qPrintable(error));

        // A viewport of the whole run reads its level from the shard.
        const TimeNs span = cluster->end - cluster->start;
        const TrackId busiest =
            std::max_element(got.begin(), got.end(), [&](const auto &a, const auto &b) {
                return cluster->track(a.second)->slices < cluster->track(b.second)->slices;
            })->second;
        SlicePager &pager = *cluster->pager;
        (void)pager.view(busiest, cluster->start, cluster->end, double(span) / 1000);
        pager.waitForIdle();
        const auto shown = pager.view(busiest, cluster->start, cluster->end, double(span) / 1000);
        QVERIFY(shown && shown->size() > 0);
        QVERIFY(pager.exact(busiest));
        QVERIFY2(pager.errorString().isEmpty(), qPrintable(pager.errorString()));
    }

    // A kernel's details and its launch come from its shard, in the cluster's ids and clock.
    void sliceDetailsAndFlowsComeFromTheShard()
    {
        QString error;
        const auto direct = loadTimelineData(m_direct, &error, {}, false);
        const auto cluster = loadTimelineData(m_cluster, &error);
        QVERIFY(direct && cluster);
        auto project = Project::open(m_cluster, Project::Mode::ReadOnly, &error);
        auto directProject = Project::open(m_direct, Project::Mode::ReadOnly, &error);
        QVERIFY2(project && directProject, qPrintable(error));
        const auto want = tracksByPath(*direct), got = tracksByPath(*cluster);
        int kernels = 0;
        for (const auto &[path, id] : got) {
            if (cluster->track(id)->kind != TrackKind::Stream)
                continue;
            const auto c = cluster->slicesIn(id, kAll0, kAll1);
            const auto d = direct->slicesIn(want.at(path), kAll0, kAll1);
            QVERIFY(c && d && c->size() > 2);
            const size_t i = c->size() / 2;
            const auto details = sliceDetails(*project, c->id(i), &error);
            QVERIFY2(details, qPrintable(error));
            const auto expected = sliceDetails(*directProject, d->id(i));
            QVERIFY(expected);
            QCOMPARE(details->id, c->id(i));
            QCOMPARE(details->track, id);
            QCOMPARE(details->start, c->start(i));
            QCOMPARE(details->duration, expected->duration);
            QCOMPARE(details->name, expected->name);
            QCOMPARE(details->category, expected->category);
            QCOMPARE(details->args, expected->args);
            // Its flows (the launch on the CPU): the same slices as the direct import's.
            const auto links = linkedSlices(*project, c->id(i));
            const auto expectedLinks = linkedSlices(*directProject, d->id(i));
            QVERIFY(!expectedLinks.isEmpty());
            QCOMPARE(links.size(), expectedLinks.size());
            for (qsizetype k = 0; k < links.size(); ++k) {
                QCOMPARE(links[k].name, expectedLinks[k].name);
                QCOMPARE(links[k].start, expectedLinks[k].start);
                QCOMPARE(links[k].kind, expectedLinks[k].kind);
                QVERIFY(cluster->track(links[k].track));
                QCOMPARE(cluster->track(links[k].track)->rank, cluster->track(id)->rank);
                // The linked slice is found again on its track (what a click on the link does).
                QVERIFY(findSliceRef(*cluster, links[k].track, links[k].id));
            }
            ++kernels;
        }
        QVERIFY(kernels >= 6);
        // An id naming a shard the project does not have is an error, not a crash.
        QVERIFY(!sliceDetails(*project, cluster::sliceIdOf(99, 1), &error));
        QVERIFY2(error.contains(QLatin1String("shard 99")), qPrintable(error));
    }

    // The studio opens the cluster project on its rank overview; a click on a rank pins its
    // streams, drawn from the shard; a click on a kernel shows its details.
    void studioOpensTheClusterProjectAndPagesARankIn()
    {
        for (const QSize size : {QSize(1366, 768), QSize(1920, 1080)}) {
            MainWindow w;
            gmltest::showQuietly(w, size);
            w.openProject(m_cluster);
            QVERIFY(gmltest::waitLoaded(w));
            w.rankOverview()->waitForIdle();
            RankOverviewView *view = w.rankView();
            QVERIFY(view->isVisible() && view->overview());
            QCOMPARE(int(view->overview()->lanes.size()), 6);
            const auto layout = RankOverviewPainter::layout(
                QRect(0, 0, view->width() - w.timeline()->scrollBarWidth(), view->height()),
                w.timeline()->painter().metrics().labelWidth, 6);
            QTest::mouseClick(
                view, Qt::LeftButton, {},
                QPoint(layout.lanes.left() + layout.lanes.width() / 2, layout.rowTop(3) + 2));
            const QList<TrackId> streams = w.rankOverview()->streamsOf(3);
            QVERIFY(!streams.isEmpty());
            const auto data = w.timeline()->data();
            QVERIFY(data && data->pager);
            // Paint, let the reads land, paint again.
            w.timeline()->repaint();
            data->pager->waitForIdle();
            QCoreApplication::processEvents();
            w.timeline()->repaint();
            const TrackId stream = streams.front();
            const auto shown = data->pager->shown(stream);
            QVERIFY2(shown && shown->size() > 0, "rank 3's stream was not paged in");
            QVERIFY(data->pager->exact(stream));
            QDir().mkpath(QStringLiteral("screenshots")); // for a person to look at
            w.grab().save(QStringLiteral("screenshots/cluster-rank3-%1x%2.png")
                              .arg(size.width())
                              .arg(size.height()));

            // A click on its widest kernel.
            size_t pick = 0;
            for (size_t i = 1; i < shown->size(); ++i)
                if (shown->duration(i) > shown->duration(pick))
                    pick = i;
            const QRectF r =
                w.timeline()->painter().sliceRect(w.timeline()->viewport(), stream, pick);
            QVERIFY(!r.isEmpty());
            QTest::mouseClick(w.timeline(), Qt::LeftButton, {}, r.center().toPoint());
            QVERIFY(w.state()->hasSelectedSlice());
            QVERIFY(cluster::shardOfSlice(w.state()->selectedSlice()) > 0);
            QTRY_VERIFY2(w.details()->plainText().contains(data->name(shown->nameId(pick))),
                         qPrintable(w.details()->plainText()));
            QVERIFY2(!w.details()->plainText().contains(QLatin1String("not in the project")),
                     qPrintable(w.details()->plainText()));
        }
    }

    // The flame graph pane tabbed behind Details is not computed at open (it read every
    // shard); brought to the front, it is.
    void flameGraphWaitsUntilShown()
    {
        MainWindow w;
        gmltest::showQuietly(w, QSize(1366, 768));
        QSignalSpy computed(w.findChild<FlameController *>(), &FlameController::computed);
        w.openProject(m_cluster);
        QVERIFY(gmltest::waitLoaded(w));
        w.timeline()->waitForPages();
        QTest::qWait(300); // past the flame's debounce
        QCOMPARE(computed.count(), 0);
        QVERIFY(w.showView(QStringLiteral("flame")));
        QVERIFY(computed.wait(60000));
    }

    // The Analysis panel shows the cross-rank report with the direct import's findings (one per
    // rule, each found and priced on a shard, naming its ranks), GPU busy and the rank ×
    // iteration heat map (issue 57: it had no findings, no GPU busy and "No iterations");
    // Mark Stragglers marks each collective's last rank in the rank overview.
    void studioAnalysesTheClusterProjectAcrossRanks()
    {
        MainWindow w;
        gmltest::showQuietly(w, QSize(1366, 768));
        w.openProject(m_cluster);
        QVERIFY(gmltest::waitLoaded(w));
        w.rankOverview()->waitForIdle();
        auto *panel = w.findChild<AnalysisPanel *>();
        QVERIFY(panel);
        QSignalSpy ready(analysisOf(w), &AnalysisController::reportReady);
        QVERIFY(w.showView(QStringLiteral("analysis")));
        analysisOf(w)->setVisible(true);
        QVERIFY(ready.wait(120000));
        QVERIFY2(ready.first().at(1).toString().isEmpty(),
                 qPrintable(ready.first().at(1).toString()));
        const sim::RunReport *report = panel->report();
        QVERIFY(report && report->analysis);
        QString error;
        auto direct = Project::open(m_direct, Project::Mode::ReadOnly, &error);
        QVERIFY2(direct, qPrintable(error));
        const auto whole = sim::analyzeRun(*direct, direct->findRun(QStringLiteral("job")).value(),
                                           QStringLiteral("job"), {}, &error);
        QVERIFY2(whole, qPrintable(error));
        QStringList rulesDirect, rulesCluster;
        for (const auto &f : whole->findings)
            rulesDirect << f.rule;
        for (const auto &f : report->findings) {
            rulesCluster << f.rule;
            QVERIFY(f.fix.isEmpty()); // priced on its shard: nothing to replay here
            if (f.rule == QLatin1String("straggler")) { // across all ranks: the direct one's
                const auto same = std::find_if(
                    whole->findings.begin(), whole->findings.end(),
                    [](const sim::Finding &d) { return d.rule == QLatin1String("straggler"); });
                QCOMPARE(f.title, same->title);
                continue;
            }
            QVERIFY2(f.title.contains(QLatin1String("(ranks ")), qPrintable(f.title));
            QVERIFY(f.detail.contains(QLatin1String("of 3 shards")));
            QVERIFY(f.priced || !f.noFix.isEmpty());
        }
        rulesDirect.sort();
        rulesCluster.sort();
        QVERIFY(!rulesDirect.isEmpty());
        QCOMPARE(rulesCluster.join(QLatin1Char(',')), rulesDirect.join(QLatin1Char(',')));
        QVERIFY(report->noFindingsBecause.isEmpty());
        QVERIFY(report->summary.gpuBusy > 0);
        QVERIFY(std::abs(report->summary.gpuBusy - whole->summary.gpuBusy) < 0.005);
        QVERIFY(panel->findChild<StepHeatMap *>());
        QCOMPARE(panel->findChild<StepHeatMap *>()->rankCount(), 6);
        QCOMPARE(panel->findChild<StepHeatMap *>()->iterationCount(), 4);
        QCOMPARE(int(report->analysis->ranks.size()), 6);
        QVERIFY(!report->analysis->stragglers.empty());
        QVERIFY(!report->criticalByRank.empty());
        QVERIFY(report->summary.stepTime > 0);
        const auto charts = panel->charts();
        QVERIFY(!charts[1]->isEmpty() && !charts[2]->isEmpty()); // per rank, kernel families
        QVERIFY(!charts[3]->isEmpty()); // each GPU's launch queue, as its shard found it
        QVERIFY(w.showView(QStringLiteral("timeline")));
        QToolButton *stragglers = nullptr;
        for (auto *b : w.rankView()->findChildren<QToolButton *>())
            if (b->text().contains(QLatin1String("traggler")))
                stragglers = b;
        QVERIFY(stragglers);
        if (w.rankView()->markCount() == 0) // not marked by the analysis just shown
            stragglers->click();
        QTRY_VERIFY(w.rankView()->markCount() > 0);
        QVERIFY2(stragglers->text().contains(QLatin1String("marked")),
                 qPrintable(stragglers->text()));
        // A rank's shard opens from its lane (the right-click menu's last entry): its findings.
        int lane = -1;
        for (size_t i = 0; i < w.rankView()->overview()->lanes.size(); ++i)
            if (w.rankView()->overview()->lanes[i].rank == 4)
                lane = int(i);
        QVERIFY(lane >= 0);
        QVERIFY(w.rankOverview()->shardOf(lane).endsWith(
            QLatin1String("cluster.shards/shard-2-of-3.grademl")));
        w.rankOverview()->openShard(lane);
        QVERIFY(gmltest::waitLoaded(w));
        QVERIFY2(w.projectPath().endsWith(QLatin1String("shard-2-of-3.grademl")),
                 qPrintable(w.projectPath()));
        QVERIFY(w.timeline()->data() && w.timeline()->data()->sliceCount() > 0 &&
                w.timeline()->data()->pager); // an ordinary project, paged from itself
    }

    // The command line on a cluster project: the cross-rank report equals the whole-run
    // analysis (stragglers, loads; the critical path by rank, reduced from the collectives,
    // within 5% of the replayed one); a trace diff of two ranks in different shards equals the
    // direct import's; the analysis figure is drawn from one rank's shard.
    void commandsOnAClusterProject()
    {
        const auto json = [this](const QStringList &args, int code = 0) {
            const auto p = gmltest::runProgram(QStringLiteral(GRADEML_CLI), args);
            if (p.code != code)
                qWarning() << args << p.code << p.err;
            return p.code == code ? QJsonDocument::fromJson(p.out).object() : QJsonObject();
        };
        const QJsonObject cluster =
            json({QStringLiteral("analyze"), m_cluster, QStringLiteral("--json")});
        const QJsonObject direct =
            json({QStringLiteral("analyze"), m_direct, QStringLiteral("--json")});
        QVERIFY(!cluster.isEmpty() && !direct.isEmpty());
        QCOMPARE(cluster.value(QStringLiteral("stragglers")),
                 direct.value(QStringLiteral("stragglers")));
        // The whole run's report field for field (issue 74: a cluster had no iterations, a
        // step time of 0, no FLOPs, no per-GPU table and no top kernels): what a rank's own
        // trace decides is equal; percentiles over shards within the sketch's 0.5%.
        for (const char *same :
             {"ranks", "gpus", "iterations", "kernel_families", "unrecognised_kernels",
              "compute_imbalance", "communication_imbalance"})
            QVERIFY2(cluster.value(QLatin1String(same)) == direct.value(QLatin1String(same)), same);
        QVERIFY(!cluster.value(QStringLiteral("gpus")).toArray().isEmpty());
        QVERIFY(!cluster.value(QStringLiteral("iterations")).toArray().isEmpty());
        QCOMPARE(cluster.value(QStringLiteral("rank_count")).toInt(), 6);
        const QJsonObject sumC = cluster.value(QStringLiteral("summary")).toObject();
        const QJsonObject sumD = direct.value(QStringLiteral("summary")).toObject();
        for (const char *same :
             {"iterations", "step_time_ns", "step_time_all_ns", "warmup_iterations", "device"})
            QVERIFY2(sumC.value(QLatin1String(same)) == sumD.value(QLatin1String(same)), same);
        QVERIFY(sumD.value(QStringLiteral("iterations")).toInt() > 0);
        for (const char *close : {"flops", "hardware_flops", "mfu", "hfu", "gpu_busy"}) {
            const double c = sumC.value(QLatin1String(close)).toDouble(-1),
                         d = sumD.value(QLatin1String(close)).toDouble(-1);
            QVERIFY2(std::abs(c - d) <= 1e-9 * std::abs(d), close);
        }
        const auto within = [](const QJsonValue &c, const QJsonValue &d) {
            return std::abs(c.toDouble() - d.toDouble()) <= 0.005 * std::abs(d.toDouble()) + 1;
        };
        const QJsonArray topC = cluster.value(QStringLiteral("top_kernels")).toArray();
        const QJsonArray topD = direct.value(QStringLiteral("top_kernels")).toArray();
        QCOMPARE(topC.size(), topD.size());
        QVERIFY(!topD.isEmpty());
        for (qsizetype i = 0; i < topD.size(); ++i) {
            const QJsonObject c = topC[i].toObject(), d = topD[i].toObject();
            for (const char *same : {"name", "family", "count", "total_ns", "max_ns"})
                QVERIFY2(c.value(QLatin1String(same)) == d.value(QLatin1String(same)), same);
            for (const char *p : {"p50_ns", "p90_ns"})
                QVERIFY2(within(c.value(QLatin1String(p)), d.value(QLatin1String(p))),
                         qPrintable(
                             QStringLiteral("%1 %2: %3 against %4")
                                 .arg(d.value(QStringLiteral("name")).toString(), QLatin1String(p))
                                 .arg(c.value(QLatin1String(p)).toInteger())
                                 .arg(d.value(QLatin1String(p)).toInteger())));
        }
        const QJsonObject launchC = cluster.value(QStringLiteral("launch")).toObject();
        const QJsonObject launchD = direct.value(QStringLiteral("launch")).toObject();
        for (const QString &key : launchD.keys())
            QVERIFY2(key.startsWith(QLatin1String("delay_p"))
                         ? within(launchC.value(key), launchD.value(key))
                         : launchC.value(key) == launchD.value(key),
                     qPrintable(key));
        QVERIFY(!cluster.value(QStringLiteral("stragglers")).toArray().isEmpty());
        const QJsonArray mine = cluster.value(QStringLiteral("critical_path_by_rank")).toArray();
        const QJsonArray theirs = direct.value(QStringLiteral("critical_path_by_rank")).toArray();
        QVERIFY(!mine.isEmpty() && !theirs.isEmpty());
        qint64 length = 0;
        for (const auto &r : theirs)
            length += r.toObject().value(QStringLiteral("time_ns")).toInteger();
        QCOMPARE(mine.first().toObject().value(QStringLiteral("rank")),
                 theirs.first().toObject().value(QStringLiteral("rank")));
        for (const auto &r : theirs) {
            const int rank = r.toObject().value(QStringLiteral("rank")).toInt();
            qint64 found = 0;
            for (const auto &m : mine)
                if (m.toObject().value(QStringLiteral("rank")).toInt() == rank)
                    found = m.toObject().value(QStringLiteral("time_ns")).toInteger();
            const qint64 want = r.toObject().value(QStringLiteral("time_ns")).toInteger();
            QVERIFY2(std::abs(found - want) <= length / 20,
                     qPrintable(QStringLiteral("rank %1: %2 ns reduced, %3 ns replayed")
                                    .arg(rank)
                                    .arg(found)
                                    .arg(want)));
        }
        // Ranks 1 and 4 are in different shards.
        const QStringList diff{QStringLiteral("job"), QStringLiteral("job"),
                               QStringLiteral("--ranks"), QStringLiteral("1,4"),
                               QStringLiteral("--json")};
        const QJsonObject c = json(QStringList{QStringLiteral("compare"), m_cluster} + diff);
        const QJsonObject d = json(QStringList{QStringLiteral("compare"), m_direct} + diff);
        QVERIFY(c.contains(QStringLiteral("diff")) && d.contains(QStringLiteral("diff")));
        QCOMPARE(c.value(QStringLiteral("diff")).toObject().value(QStringLiteral("pairs")),
                 d.value(QStringLiteral("diff")).toObject().value(QStringLiteral("pairs")));
        // Figures of one rank, from its shard; without --rank, why not.
        const QString png = m_tmp.filePath(QStringLiteral("analysis-rank4.png"));
        const auto figure =
            gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                {QStringLiteral("export"), m_cluster, QStringLiteral("--view"),
                                 QStringLiteral("analysis"), QStringLiteral("--rank"),
                                 QStringLiteral("4"), QStringLiteral("--out"), png});
        QVERIFY2(figure.code == 0, figure.err.constData());
        QVERIFY(figure.out.contains("rank 4 from shard") &&
                figure.out.contains("shard-2-of-3.grademl"));
        QVERIFY(!QImage(png).isNull());
        const auto refused =
            gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                {QStringLiteral("export"), m_cluster, QStringLiteral("--view"),
                                 QStringLiteral("graph"), QStringLiteral("--out"), png});
        QCOMPARE(refused.code, 2);
        QVERIFY2(refused.err.contains("--rank N"), refused.err.constData());
        // A shard task's plan (the driver's scan) that is not one: named, with where.
        const QString plan = m_tmp.filePath(QStringLiteral("bad-plan.json"));
        QFile f(plan);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"files\": [{\"path\": \"/x\", \"run\": \"r\", \"format\": \"chrome-trace\"},");
        f.close();
        const auto bad = gmltest::runProgram(
            QStringLiteral(GRADEML_CLI),
            {QStringLiteral("import"), QStringLiteral("--from-plan"), plan,
             QStringLiteral("--shard"), QStringLiteral("0/1"), QStringLiteral("--project"),
             m_tmp.filePath(QStringLiteral("never.grademl"))});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains(plan.toUtf8()) && bad.err.contains("at byte"),
                 bad.err.constData());
        QVERIFY(!QFile::exists(m_tmp.filePath(QStringLiteral("never.grademl"))));
    }

    // A plan is validated as any input (issue 56): each wrong field, a repeated file, a device, a
    // FIFO or missing files are refused at once (exit 2), naming the entry, and nothing is written.
    void planIsValidated()
    {
        const auto planned = gmltest::runProgram(
            QStringLiteral(GRADEML_CLI),
            {QStringLiteral("import"), m_tmp.filePath(QStringLiteral("job")),
             QStringLiteral("--project"), QStringLiteral("/dev/null"), QStringLiteral("--plan")});
        QCOMPARE(planned.code, 0);
        const QJsonArray files =
            QJsonDocument::fromJson(planned.out).object().value(QStringLiteral("files")).toArray();
        QVERIFY(files.size() >= 6);
        const QJsonObject good = files[0].toObject();
        const QString fifo = m_tmp.filePath(QStringLiteral("plan-fifo"));
        QVERIFY(QProcess::execute(QStringLiteral("mkfifo"), {fifo}) == 0);
        auto with = [&](const char *key, const QJsonValue &v) {
            QJsonObject o = good;
            o.insert(QLatin1String(key), v);
            return QJsonArray{o};
        };
        QJsonArray manyMissing;
        for (int i = 0; i < 100000; ++i)
            manyMissing.append(QJsonObject(
                with("path", QStringLiteral("/nonexistent/f%1.json").arg(i))[0].toObject()));
        QJsonArray repeated;
        for (int i = 0; i < 8; ++i)
            for (const QJsonValue &f : files)
                repeated.append(f);
        const std::vector<std::pair<QJsonArray, const char *>> cases = {
            {with("size", QStringLiteral("abc")), "\"size\" must be a whole number"},
            {with("size", -1), "\"size\" must be a whole number"},
            {with("size", 1e308), "\"size\" must be a whole number"},
            {with("size", 18446744073709551616.0), "\"size\" must be a whole number"},
            {with("timezone", QStringLiteral("Mars/Olympus")),
             "unknown time zone \"Mars/Olympus\""},
            {with("colour", QStringLiteral("red")), "unknown key \"colour\""},
            {with("run", 5), "\"run\" must be a string"},
            {with("path", QStringLiteral("relative.json")), "must be an absolute path"},
            {with("path", QStringLiteral(":jot.trace.json")),
             "must be an absolute path"}, // a Qt resource path (fuzz_plan)
            {repeated, "is listed already as file 0"},
            {with("path", QStringLiteral("/dev/zero")), "/dev/zero (not a regular file)"},
            {with("path", QStringLiteral("/dev/urandom")), "/dev/urandom (not a regular file)"},
            {with("path", fifo), "plan-fifo (not a regular file)"},
            {manyMissing, "100000 of the plan's 100000 files cannot be read"},
        };
        const QString project = m_tmp.filePath(QStringLiteral("plan-shard.grademl"));
        for (const auto &[list, expected] : cases) {
            const QString plan = m_tmp.filePath(QStringLiteral("checked-plan.json"));
            QFile f(plan);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(QJsonDocument(QJsonObject{{QStringLiteral("files"), list}})
                        .toJson(QJsonDocument::Compact));
            f.close();
            const auto r =
                gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                    {QStringLiteral("import"), QStringLiteral("--from-plan"), plan,
                                     QStringLiteral("--shard"), QStringLiteral("0/1"),
                                     QStringLiteral("--project"), project},
                                    60);
            QVERIFY2(r.finished, expected);
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains(expected) && r.err.contains("checked-plan.json"),
                     r.err.constData());
            QVERIFY2(r.err.size() < 2000, "the message names a few files, not 100,000");
            for (const char *suffix : {"", ".partial", ".partial-wal", ".partial-shm"})
                QVERIFY(!QFileInfo::exists(project + QLatin1String(suffix)));
        }
    }

    // The shipped Slurm template, run by hand as the three tasks of an array (no Slurm here):
    // its shards, from the plan, merge into the cluster project the shard import above made.
    void slurmTemplateRunsAsAnArray()
    {
        QFile in(QStringLiteral(GRADEML_SOURCE_DIR "/app/cluster/grademl-shards.sbatch"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QString script = QString::fromUtf8(in.readAll());
        const QString job = m_tmp.filePath(QStringLiteral("job")),
                      project = m_tmp.filePath(QStringLiteral("slurm.grademl"));
        script.replace(QRegularExpression(QStringLiteral("\\nTRACES=[^\\n]*")),
                       QStringLiteral("\nTRACES=") + job);
        script.replace(QRegularExpression(QStringLiteral("\\nPROJECT=[^\\n]*")),
                       QStringLiteral("\nPROJECT=") + project);
        const QString path = m_tmp.filePath(QStringLiteral("shards.sbatch"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(script.toUtf8());
        out.close();
        QDir().mkpath(m_tmp.filePath(QStringLiteral("slurm.shards")));
        const auto plan =
            gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                {QStringLiteral("import"), job, QStringLiteral("--project"),
                                 QStringLiteral("/dev/null"), QStringLiteral("--plan")});
        QCOMPARE(plan.code, 0);
        QFile planFile(m_tmp.filePath(QStringLiteral("slurm.shards/plan.json")));
        QVERIFY(planFile.open(QIODevice::WriteOnly));
        planFile.write(plan.out);
        planFile.close();
        QStringList merge{QStringLiteral("merge"), project};
        for (int i = 0; i < 3; ++i) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("SLURM_ARRAY_TASK_COUNT"), QStringLiteral("3"));
            env.insert(QStringLiteral("SLURM_ARRAY_TASK_ID"), QString::number(i));
            env.insert(QStringLiteral("PATH"),
                       QFileInfo(QStringLiteral(GRADEML_CLI)).absolutePath() + QLatin1Char(':') +
                           env.value(QStringLiteral("PATH")));
            const auto task = gmltest::runProgram(QStringLiteral("bash"), {path}, 120, env);
            QVERIFY2(task.code == 0, qPrintable(task.all()));
            merge << m_tmp.filePath(QStringLiteral("slurm.shards/shard-%1-of-3.grademl").arg(i));
        }
        run(merge);
        // The same catalog as the shard import's: sources, slices and summaries.
        const QString sql = QStringLiteral(
            "SELECT s.path, s.slices, hex(ss.data) FROM source s LEFT JOIN source_summary ss "
            "ON ss.source_id = s.id ORDER BY s.path");
        const auto a = gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                           {QStringLiteral("query"), project, sql});
        const auto b = gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                           {QStringLiteral("query"), m_cluster, sql});
        QCOMPARE(a.code, 0);
        QVERIFY(a.out.count('\n') >= 7);
        QCOMPARE(a.out, b.out);
    }

    // The cluster project copied away from its shards: it opens (the rank overview is in it),
    // and the timeline says which shard it cannot read.
    void aShardGoneIsSaid()
    {
        QTemporaryDir away;
        const QString moved = away.filePath(QStringLiteral("cluster.grademl"));
        QVERIFY(QFile::copy(m_cluster, moved));
        MainWindow w;
        gmltest::showQuietly(w, QSize(1366, 768));
        w.openProject(moved);
        QVERIFY(gmltest::waitLoaded(w));
        const auto data = w.timeline()->data();
        QVERIFY(data && data->pager);
        w.timeline()->repaint();
        data->pager->waitForIdle();
        QTRY_VERIFY(!data->pager->errorString().isEmpty());
        QVERIFY2(data->pager->errorString().contains(QLatin1String("cluster.shards/shard-")),
                 qPrintable(data->pager->errorString()));
        QTRY_VERIFY2(w.statusBar()->currentMessage().contains(QLatin1String("cannot be read")),
                     qPrintable(w.statusBar()->currentMessage()));
    }

    // Issue 56: merge never replaces a file it did not create for that purpose, and refuses
    // what is not one job's shards, each time naming the file; nothing is left half-written.
    void mergeRefusesWhatItMustNotOverwrite()
    {
        QTemporaryDir dir;
        const QStringList shards = copyShards(dir);
        QCOMPARE(shards.size(), 3);
        const QString mine = dir.filePath(QStringLiteral("mine.grademl"));
        QVERIFY(QFile::copy(m_direct, mine));
        auto bytesOf = [](const QString &path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly)
                       ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256)
                       : QByteArray();
        };
        const QByteArray mineBefore = bytesOf(mine), shard0Before = bytesOf(shards[0]);
        const QString out = dir.filePath(QStringLiteral("out.grademl"));
        auto refused = [&](const QStringList &inputs, const QString &output, const char *expected,
                           const QString &named) {
            const auto r = gmltest::runProgram(
                QStringLiteral(GRADEML_CLI), QStringList{QStringLiteral("merge"), output} + inputs);
            QVERIFY2(r.code != 0, expected);
            const QString text = QString::fromUtf8(r.err);
            QVERIFY2(text.contains(QLatin1String(expected)) &&
                         text.contains(QFileInfo(named).fileName()),
                     qPrintable(text));
            QVERIFY2(!QFileInfo::exists(output + QStringLiteral(".partial")), expected);
        };
        // An ordinary project as the output, or a shard that is also an input.
        refused(shards, mine, "not a cluster project", mine);
        refused(shards, shards[0], "is both the cluster project to write and one of its shards",
                shards[0]);
        // A shard twice, a copy of a shard, a project that is not a shard, an unfinished shard.
        refused(QStringList{shards[0]} + shards, out, "is given twice", shards[0]);
        const QString copy = dir.filePath(QStringLiteral("copy.grademl"));
        QVERIFY(QFile::copy(shards[1], copy));
        refused(shards + QStringList{copy}, out, "are both shard 1 of 3", copy);
        refused(shards + QStringList{mine}, out, "is not a shard", mine);
        const QString partial = dir.filePath(QStringLiteral("shard-9.grademl.partial"));
        QVERIFY(QFile::copy(shards[2], partial));
        refused(shards.mid(0, 2) + QStringList{partial}, out, "unfinished shard", partial);
        // A shard of another job (other files), with the same run name.
        QTemporaryDir otherDir;
        const QString otherJob = gmltest::generateJob(otherDir, 3, 2);
        const QString other = dir.filePath(QStringLiteral("other.grademl"));
        run({QStringLiteral("import"), otherJob, QStringLiteral("--project"), other,
             QStringLiteral("--shard"), QStringLiteral("2/3"), QStringLiteral("--quiet")});
        refused(shards.mid(0, 2) + QStringList{other}, out, "shards of one job only", other);
        QVERIFY(!QFileInfo::exists(out));
        QCOMPARE(bytesOf(mine), mineBefore);
        QCOMPARE(bytesOf(shards[0]), shard0Before);

        // A shard of the job not given: merged without it, said, exit 1.
        auto r = gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                     {QStringLiteral("merge"), out, shards[0], shards[2]});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("shard 1 of 3 of job") &&
                     r.out.contains("2 merged, 0 failed, 1 missing"),
                 r.err.constData());

        // A damaged shard: refused from the merge, named, exit 1.
        const QString damaged = dir.filePath(QStringLiteral("damaged/shard-1-of-3.grademl"));
        QDir().mkpath(QFileInfo(damaged).absolutePath());
        QVERIFY(QFile::copy(shards[1], damaged));
        {
            QFile f(damaged);
            QVERIFY(f.open(QIODevice::ReadWrite));
            const qint64 page = 65536, pages = f.size() / page;
            QVERIFY(pages > 10);
            for (qint64 k = 0; k < 8; ++k) { // 8 pages in the middle overwritten
                f.seek((pages / 2 + k) * page);
                f.write(QByteArray(int(page), '\xAB'));
            }
        }
        r = gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                {QStringLiteral("merge"), out, shards[0], damaged, shards[2]});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("damaged") && r.err.contains("shard-1-of-3.grademl"),
                 r.err.constData());
    }

    // Rank facts whose compressed header names gigabytes read as damaged, not allocated (found
    // by fuzz_shardmeta: qUncompress allocated the size the header named).
    void damagedRankFactsAreNotAllocated()
    {
        QString error;
        auto p =
            Project::open(m_tmp.filePath(QStringLiteral("cluster.shards/shard-0-of-3.grademl")),
                          Project::Mode::ReadOnly, &error);
        QVERIFY2(p, qPrintable(error));
        auto st = p->db().prepare("SELECT source_id FROM rank_facts LIMIT 1");
        QVERIFY(st.step());
        const SourceId source = st.int64(0);
        QVERIFY(sim::loadRankFacts(p->db(), source)); // the real one reads
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("s.grademl"));
        QVERIFY(QFile::copy(p->path(), copy));
        p.reset();
        auto w = Project::open(copy, Project::Mode::ReadWrite, &error);
        QVERIFY2(w, qPrintable(error));
        auto up = w->db().prepare("UPDATE rank_facts SET data = ? WHERE source_id = ?");
        up.bindBlob(1, std::string_view("\xff\xff\xff\x00\x78\x9c", 6));
        up.bind(2, source);
        QVERIFY(up.exec());
        QVERIFY(!sim::loadRankFacts(w->db(), source));
    }

    // A cluster project reads only the shards it merged: swapped or imported again since, the
    // rank's commands and the figure refuse them, naming the file (issue 56).
    void clusterProjectChecksItsShards()
    {
        QTemporaryDir dir;
        const QStringList shards = copyShards(dir);
        QCOMPARE(shards.size(), 3);
        const QString cluster = dir.filePath(QStringLiteral("cluster.grademl"));
        run(QStringList{QStringLiteral("merge"), cluster} + shards);
        // Ranks 0-1 are in shard 0 and 2-3 in shard 1 (6 ranks in 3 shards).
        run({QStringLiteral("analyze"), cluster, QStringLiteral("--rank"), QStringLiteral("2")});
        const QString aside = dir.filePath(QStringLiteral("aside"));
        QVERIFY(QFile::rename(shards[1], aside) && QFile::rename(shards[2], shards[1]) &&
                QFile::rename(aside, shards[2]));
        auto r = gmltest::runProgram(
            QStringLiteral(GRADEML_CLI),
            {QStringLiteral("analyze"), cluster, QStringLiteral("--rank"), QStringLiteral("2")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("shards swapped") && r.err.contains("shard-1-of-3.grademl"),
                 r.err.constData());
        r = gmltest::runProgram(QStringLiteral(GRADEML_CLI),
                                {QStringLiteral("export"), cluster, QStringLiteral("--view"),
                                 QStringLiteral("timeline"), QStringLiteral("--out"),
                                 dir.filePath(QStringLiteral("t.png"))});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("cannot be read") && r.err.contains("shards swapped"),
                 r.err.constData());
        // info checks every shard it references.
        r = gmltest::runProgram(QStringLiteral(GRADEML_CLI), {QStringLiteral("info"), cluster});
        QCOMPARE(r.code, 1);
        QVERIFY2(
            r.out.contains("shard 0 of 3: ") && r.out.contains("shard-0-of-3.grademl: ok") &&
                r.out.contains("shard-1-of-3.grademl: cannot be read: it holds shard 2 of 3") &&
                r.err.contains("2 shards are not the one merged"),
            QByteArray(r.out + r.err).constData());
        // Put back, then shard 1 imported again: its stamp is new.
        QVERIFY(QFile::rename(shards[1], aside) && QFile::rename(shards[2], shards[1]) &&
                QFile::rename(aside, shards[2]));
        run({QStringLiteral("analyze"), cluster, QStringLiteral("--rank"), QStringLiteral("2")});
        run({QStringLiteral("import"), m_tmp.filePath(QStringLiteral("job")),
             QStringLiteral("--project"), shards[1], QStringLiteral("--shard"),
             QStringLiteral("1/3"), QStringLiteral("--quiet")});
        r = gmltest::runProgram(
            QStringLiteral(GRADEML_CLI),
            {QStringLiteral("analyze"), cluster, QStringLiteral("--rank"), QStringLiteral("2")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("imported again after the merge"), r.err.constData());
    }
};

QTEST_MAIN(TestCluster)
#include "tst_cluster.moc"
