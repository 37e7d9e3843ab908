// SPDX-License-Identifier: GPL-3.0-or-later
// Clock alignment of ranks by their collective kernels: the matching on hand-made sequences,
// a generated two-host job with a known skew, overrides (kept across re-imports, cleared),
// the collectives kept in the source summaries (the same records as read from the streams),
// the CLI, and the eight DLRM ranks of one host (nothing to apply).
#include "clockalignment.h"
#include "importutil.h"
#include "sourcesummary.h"
#include "testutil.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gml;

namespace {

std::vector<CollectiveEnd> sequence(const std::vector<std::pair<int, TimeNs>> &ends)
{
    std::vector<CollectiveEnd> v;
    for (const auto &[op, end] : ends)
        v.push_back({op, end - 1000, end});
    return v;
}

int run(const QString &program, const QStringList &args, QByteArray *out = nullptr)
{
    const auto r = gmltest::runProgram(program, args);
    if (!r.finished)
        qFatal("%s did not finish", qPrintable(program));
    if (out)
        *out = r.out;
    return r.code;
}

// The alignment of a project's sources keyed by file name.
QHash<QString, SourceAlignment> alignmentByFile(Project &project)
{
    QHash<QString, SourceAlignment> out;
    auto st = project.db().prepare("SELECT id FROM run");
    while (st.step())
        for (const auto &a : loadRunAlignment(project, st.int64(0)))
            out.insert(QFileInfo(a.path).fileName(), a);
    return out;
}

} // namespace

class TestClockAlignment : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void operationsFromKernelNames()
    {
        const auto &ops = collectiveOperations();
        auto op = [&](const char *name) {
            const int i = collectiveOperation(QString::fromLatin1(name));
            return i < 0 ? QString() : ops[i];
        };
        QCOMPARE(
            op("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            QStringLiteral("AllReduce"));
        QCOMPARE(op("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"),
                 QStringLiteral("SendRecv"));
        QCOMPARE(op("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, "
                    "ncclWork*)"),
                 QStringLiteral("ReduceScatter"));
        QCOMPARE(op("void ncclAllGatherRingLLKernel_copy_i8(ncclColl)"),
                 QStringLiteral("AllGather"));
        QCOMPARE(op("ncclKernel_Reduce_RING_LL_Sum_float"), QStringLiteral("Reduce"));
        QCOMPARE(op("volta_sgemm_128x64_nn"), QString());
        QCOMPARE(op("nccl:all_reduce"), QString()); // the CPU-side annotation is no kernel
    }

    void fitFindsOffsetShiftAndResidual()
    {
        // Other = reference - 5 ms, with +-1 us jitter; it also captured one extra collective
        // before the reference's first (op 1), so the match is one position later.
        const auto ref = sequence(
            {{0, 1'000'000}, {0, 2'000'000}, {2, 2'500'000}, {0, 3'000'000}, {0, 4'000'000}});
        const auto other = sequence({{1, -4'500'000},
                                     {0, -4'000'000 + 1000},
                                     {0, -3'000'000 - 1000},
                                     {2, -2'500'000},
                                     {0, -2'000'000},
                                     {0, -1'000'000}});
        const auto fit = fitCollectives(ref, other);
        QVERIFY(fit);
        QCOMPARE(fit->shift, 1);
        QCOMPARE(fit->matched, 5);
        QCOMPARE(fit->offset, TimeNs(5'000'000));
        // Differences 4'999'000, 5'001'000, 5'000'000 x3 around 5'000'000: RMS = sqrt(2e6/5).
        QCOMPARE(fit->residual, TimeNs(632));

        // A periodic job (one all-reduce per 100 ms step): one step off agrees as well, with
        // one pair less; the full overlap wins.
        std::vector<std::pair<int, TimeNs>> a, b;
        for (int i = 0; i < 6; ++i) {
            a.emplace_back(0, i * 100'000'000 + (i % 2) * 500);
            b.emplace_back(0, i * 100'000'000 + 7'000'000);
        }
        const auto periodic = fitCollectives(sequence(a), sequence(b));
        QVERIFY(periodic);
        QCOMPARE(periodic->shift, 0);
        QCOMPARE(periodic->matched, 6);
        QVERIFY(std::abs(periodic->offset + 7'000'000) <= 500);

        QVERIFY(!fitCollectives(sequence({{0, 1}}), sequence({{1, 1}}))); // no same operation
        QVERIFY(!fitCollectives({}, sequence({{0, 1}})));
    }

    void generatedTwoHostJob()
    {
        QTemporaryDir dir;
        // Ranks 2 and 3 "ran on a second host" whose clock is 41 ms ahead.
        const QString traces = gmltest::generateJob(dir, 4, 5, 41000);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces});
        auto al = alignmentByFile(*project);
        QCOMPARE(al.size(), 4);
        const auto &r0 = al.value(QStringLiteral("rank0.pt.trace.json"));
        QCOMPARE(r0.rank, 0);
        QCOMPARE(r0.reference, r0.source);
        QCOMPARE(r0.applied, TimeNs(0));
        // Same host: within the generator's 2 us jitter, not applied.
        const auto &r1 = al.value(QStringLiteral("rank1.pt.trace.json"));
        QCOMPARE(r1.matched, 5);
        QVERIFY(r1.computed && std::abs(*r1.computed) <= 2'000);
        QVERIFY(r1.residual <= 2'000);
        QVERIFY(!r1.significant);
        QCOMPARE(r1.applied, TimeNs(0));
        // The other host: the skew found and applied.
        for (const char *name : {"rank2.pt.trace.json", "rank3.pt.trace.json"}) {
            const auto &a = al.value(QString::fromLatin1(name));
            QCOMPARE(a.matched, 5);
            QVERIFY2(a.computed && std::abs(*a.computed + 41'000'000) <= 2'000, name);
            QVERIFY(a.residual <= 2'000);
            QVERIFY(a.significant);
            QCOMPARE(a.applied, *a.computed);
            QCOMPARE(a.referenceRank, 0);
        }
        // Project times include it: every all-reduce ends within 2 us on all four ranks.
        const QString spread = gmltest::text(
            *project,
            QStringLiteral(
                "SELECT max(e) - min(e) FROM (SELECT t.rank, s.ts + s.dur AS e, "
                "row_number() OVER (PARTITION BY t.rank ORDER BY s.ts) AS k FROM slice_abs s "
                "JOIN track t ON t.id = s.track_id WHERE s.name LIKE 'ncclKernel%') GROUP BY k "
                "ORDER BY 1 DESC LIMIT 1"));
        QVERIFY2(spread.toLongLong() <= 4'000, qPrintable(spread));

        // An override replaces the computed offset, survives a re-import, and can be cleared.
        const SourceId s2 = al.value(QStringLiteral("rank2.pt.trace.json")).source;
        QString error;
        QVERIFY2(setAlignmentOverride(*project, s2, TimeNs(-40'000'000), &error),
                 qPrintable(error));
        QCOMPARE(alignmentByFile(*project).value(QStringLiteral("rank2.pt.trace.json")).applied,
                 TimeNs(-40'000'000));
        QCOMPARE(
            gmltest::scalar(*project, "SELECT count(*) FROM source WHERE align_ns = -40000000"), 1);
        QVERIFY(gmltest::setMtime(traces + QStringLiteral("/rank2.pt.trace.json"),
                                  QDateTime::currentDateTime().addSecs(-60)));
        const auto reports = gmltest::importInto(*project, {traces});
        QCOMPARE(reports.size(), 4);
        QCOMPARE(statusName(reports[2].status), QStringLiteral("imported"));
        const auto after = alignmentByFile(*project).value(QStringLiteral("rank2.pt.trace.json"));
        QCOMPARE(after.user, std::optional<TimeNs>(-40'000'000));
        QCOMPARE(after.applied, TimeNs(-40'000'000));
        QVERIFY(after.computed && std::abs(*after.computed + 41'000'000) <= 2'000);
        const SourceId again = after.source; // a re-import writes a new source row
        QVERIFY2(setAlignmentOverride(*project, again, std::nullopt, &error), qPrintable(error));
        const auto cleared = alignmentByFile(*project).value(QStringLiteral("rank2.pt.trace.json"));
        QVERIFY(!cleared.user);
        QCOMPARE(cleared.applied, *cleared.computed);
        // An override of 0 keeps the recorded clock.
        QVERIFY(setAlignmentOverride(*project, again, TimeNs(0), &error));
        QCOMPARE(alignmentByFile(*project).value(QStringLiteral("rank2.pt.trace.json")).applied,
                 TimeNs(0));
    }

    void cliShowsAndOverrides()
    {
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 2, 3, -2500);
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        QCOMPARE(run(QStringLiteral(GRADEML_CLI),
                     {QStringLiteral("import"), traces, QStringLiteral("--project"), project,
                      QStringLiteral("--quiet")}),
                 0);
        QByteArray out;
        QCOMPARE(run(QStringLiteral(GRADEML_CLI),
                     {QStringLiteral("info"), project, QStringLiteral("--json")}, &out),
                 0);
        const auto sources = QJsonDocument::fromJson(out)
                                 .object()[QStringLiteral("runs")]
                                 .toArray()[0]
                                 .toObject()[QStringLiteral("sources")]
                                 .toArray();
        QCOMPARE(sources.size(), 2);
        const auto rank1 = sources[1].toObject();
        QVERIFY(std::abs(rank1[QStringLiteral("align_offset_ns")].toInteger() - 2'500'000) <=
                2'000);
        const auto clock = rank1[QStringLiteral("clock_alignment")].toObject();
        QCOMPARE(clock[QStringLiteral("matched")].toInt(), 3);
        QCOMPARE(clock[QStringLiteral("significant")].toBool(), true);
        QVERIFY(clock[QStringLiteral("residual_ns")].toInteger() <= 2'000);

        QCOMPARE(
            run(QStringLiteral(GRADEML_CLI),
                {QStringLiteral("align"), project, QStringLiteral("--source"),
                 QStringLiteral("rank:1"), QStringLiteral("--offset"), QStringLiteral("2.4ms")},
                &out),
            0);
        QVERIFY2(out.contains("user override +2.400 ms; applied +2.400 ms"), out.constData());
        QCOMPARE(run(QStringLiteral(GRADEML_CLI),
                     {QStringLiteral("align"), project, QStringLiteral("--json")}, &out),
                 0);
        const auto j = QJsonDocument::fromJson(out)
                           .object()[QStringLiteral("runs")]
                           .toArray()[0]
                           .toObject()[QStringLiteral("sources")]
                           .toArray()[1]
                           .toObject();
        QCOMPARE(j[QStringLiteral("applied_offset_ns")].toInteger(), 2'400'000);
        QCOMPARE(j[QStringLiteral("user_offset_ns")].toInteger(), 2'400'000);
        QCOMPARE(run(QStringLiteral(GRADEML_CLI),
                     {QStringLiteral("align"), project, QStringLiteral("--source"),
                      QStringLiteral("rank1.pt.trace.json"), QStringLiteral("--clear")},
                     &out),
                 0);
        QVERIFY2(!out.contains("user override"), out.constData());
        QCOMPARE(
            run(QStringLiteral(GRADEML_CLI),
                {QStringLiteral("align"), project, QStringLiteral("--source"),
                 QStringLiteral("rank:1"), QStringLiteral("--offset"), QStringLiteral("soon")}),
            2);
        QCOMPARE(run(QStringLiteral(GRADEML_CLI),
                     {QStringLiteral("align"), project, QStringLiteral("--source"),
                      QStringLiteral("rank:7"), QStringLiteral("--clear")}),
                 1);
    }

    void summariesKeepTheCollectives()
    {
        // The alignment reads each source's collectives from its summary; a source without one
        // (an older program's project) has its streams read. Both give the same records.
        QTemporaryDir dir;
        const QString traces = gmltest::generateJob(dir, 4, 5, 41000);
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {traces});
        const auto fromSummaries = alignmentByFile(*project);
        QCOMPARE(fromSummaries.size(), 4);
        for (const auto &a : fromSummaries) {
            const auto summary = loadSourceSummary(project->db(), a.source);
            QVERIFY(summary);
            std::vector<CollectiveEnd> ends;
            QVERIFY(decodeCollectives(summary->collectives, ends));
            QCOMPARE(int(ends.size()), a.collectives);
            QCOMPARE(a.collectives, 5);
            QVERIFY(std::is_sorted(ends.begin(), ends.end(),
                                   [](const auto &x, const auto &y) { return x.start < y.start; }));
        }
        // One source's summary gone, then an older version for the others.
        const RunId run = gmltest::scalar(*project, "SELECT min(id) FROM run");
        const SourceId rank2 = fromSummaries.value(QStringLiteral("rank2.pt.trace.json")).source;
        for (const std::string sql :
             {"DELETE FROM source_summary WHERE source_id = " + std::to_string(rank2),
              std::string("UPDATE source_summary SET version = 5")}) {
            QVERIFY(project->db().exec(sql));
            QVERIFY(project->db().exec("UPDATE source SET alignment = NULL, align_ns = 0"));
            QString error;
            QVERIFY2(alignRunClocks(*project, run, &error), qPrintable(error));
            const auto fromStreams = alignmentByFile(*project);
            QCOMPARE(fromStreams.size(), fromSummaries.size());
            for (auto it = fromSummaries.begin(); it != fromSummaries.end(); ++it)
                QCOMPARE(QJsonDocument(fromStreams.value(it.key()).toJson()).toJson(),
                         QJsonDocument(it.value().toJson()).toJson());
        }
    }

    void collectivesEncoding()
    {
        const std::vector<CollectiveEnd> ends = {
            {0, 5'000, 9'000}, {6, 4'000, 4'500}, {8, -3'000'000'000'000'000'000, 0}};
        std::vector<CollectiveEnd> back;
        QVERIFY(decodeCollectives(encodeCollectives(ends), back));
        QCOMPARE(back.size(), ends.size());
        for (size_t i = 0; i < ends.size(); ++i) {
            QCOMPARE(back[i].op, ends[i].op);
            QCOMPARE(back[i].start, ends[i].start);
            QCOMPARE(back[i].end, ends[i].end);
        }
        QVERIFY(decodeCollectives(QByteArray(), back));
        // Malformed: an operation past the list, a varint cut short, an end past the clock's range.
        for (const QByteArray bad : {QByteArray("\x40\x00\x00", 3), QByteArray("\x01\x80", 2),
                                     QByteArray("\x00\xfe\xff\xff\xff\xff\xff\xff\xff\xff"
                                                "\x01\xff\xff\xff\xff\xff\xff\xff\xff\x7f",
                                                20)}) {
            back.clear();
            QVERIFY(!decodeCollectives(bad, back));
        }
    }

    void dlrmRanksShareOneClock()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100"));
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {gmltest::sharedTraces() +
                                       QStringLiteral("/pytorch_kineto/param_dlrm_8rank_v100")});
        const auto al = alignmentByFile(*project);
        QCOMPARE(al.size(), 8);
        // Every rank has the same 8 collectives (5 SendRecv, 3 AllReduce) ending within 3 us of
        // rank 0's (checked with a script over the JSON): one host, nothing to apply.
        for (const auto &a : al) {
            QCOMPARE(a.collectives, 8);
            QCOMPARE(a.referenceRank, 0);
            if (a.rank == 0)
                continue;
            QCOMPARE(a.matched, 8);
            QVERIFY2(a.computed && std::abs(*a.computed) <= 3'000, qPrintable(a.path));
            QVERIFY(a.residual <= 3'000);
            QVERIFY(!a.significant);
            QCOMPARE(a.applied, TimeNs(0));
        }
    }
};

QTEST_GUILESS_MAIN(TestClockAlignment)
#include "tst_clockalignment.moc"
