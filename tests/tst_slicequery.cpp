// SPDX-License-Identifier: GPL-3.0-or-later
// Range aggregate, find, slice details and links on the demo project, each checked against an
// independent SQL query of the same project.
#include "aggregatemodel.h"
#include "folderscanner.h"
#include "importjob.h"
#include "slicequery.h"
#include "testutil.h"
#include "timelinedata.h"

#include <QAbstractItemModelTester>
#include <QHash>

using namespace gml;
using gmltest::scalar;

class TestSliceQuery : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_path;
    std::unique_ptr<Project> m_project;
    std::shared_ptr<const TimelineData> m_data;

    QList<TrackId> allSliceTracks() const
    {
        QList<TrackId> out;
        for (const auto &run : m_data->runs)
            for (const auto &t : run.tracks)
                if (m_data->depthCount(t.id) > 0) // held whole or paged
                    out.append(t.id);
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_path = m_dir.filePath(QStringLiteral("demo.grademl"));
        QString error;
        m_project = Project::open(m_path, Project::Mode::ReadWrite, &error);
        QVERIFY2(m_project, qPrintable(error));
        QStringList missing;
        ImportJob job(*m_project);
        const auto reports =
            job.run(scanInputs({QStringLiteral(GRADEML_DEMO)}, QStringLiteral("demo"), &missing));
        QVERIFY(missing.isEmpty());
        m_data = loadTimelineData(m_path, &error);
        QVERIFY2(m_data, qPrintable(error));
        QVERIFY(m_data->sliceCount() > 500);
    }

    void aggregateMatchesSql_data()
    {
        QTest::addColumn<qint64>("a");
        QTest::addColumn<qint64>("b");
        const qint64 s = m_data->start, e = m_data->end;
        QTest::newRow("whole") << s << e;
        QTest::newRow("first ms") << s << s + 1'000'000;
        QTest::newRow("middle") << s + (e - s) / 3 << s + (e - s) / 2;
        QTest::newRow("tiny") << s + 2'000'000 << s + 2'000'100;
    }

    void aggregateMatchesSql()
    {
        QFETCH(qint64, a);
        QFETCH(qint64, b);
        const auto rows = aggregateSlices(*m_data, allSliceTracks(), a, b);
        QHash<QString, AggregateRow> got; // one run here: one row per name
        for (const auto &r : rows) {
            QVERIFY(!got.contains(m_data->name(r.name)));
            got.insert(m_data->name(r.name), r);
        }
        // In range: each slice clipped to the range.
        auto st =
            m_project->db().prepare("SELECT name, count(*), sum(dur), max(dur), sum(max(0, min(ts "
                                    "+ dur, ?1) - max(ts, ?2))) FROM slice_abs "
                                    "WHERE ts < ?1 AND (ts + dur > ?2 OR ts = ?2) GROUP BY name");
        st.bind(1, b);
        st.bind(2, a);
        int n = 0;
        while (st.step()) {
            ++n;
            const QString name = st.text(0);
            QVERIFY2(got.contains(name), qPrintable(name));
            QCOMPARE(got[name].count, st.int64(1));
            QCOMPARE(got[name].total, st.int64(2));
            QCOMPARE(got[name].max, st.int64(3));
            QCOMPARE(got[name].inRange, st.int64(4));
            QVERIFY(got[name].inRange <= b - a || got[name].count > 1);
        }
        QCOMPARE(int(rows.size()), n);
        for (size_t i = 1; i < rows.size(); ++i) // sorted by time in range, largest first
            QVERIFY(rows[i - 1].inRange >= rows[i].inRange);
    }

    void aggregateModelIsAWellBehavedModel()
    {
        AggregateModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(m_data,
                      aggregateSlices(*m_data, allSliceTracks(), m_data->start, m_data->end));
        QVERIFY(model.rowCount() > 5);
        model.sort(AggregateModel::Count, Qt::DescendingOrder);
        for (int r = 1; r < model.rowCount(); ++r)
            QVERIFY(model.index(r - 1, AggregateModel::Count).data(Qt::UserRole).toLongLong() >=
                    model.index(r, AggregateModel::Count).data(Qt::UserRole).toLongLong());
        model.sort(AggregateModel::Name, Qt::AscendingOrder);
        QVERIFY(model.index(0, 0).data().toString().compare(
                    model.index(model.rowCount() - 1, 0).data().toString(), Qt::CaseInsensitive) <=
                0);
        QCOMPARE(model.headerData(AggregateModel::Max, Qt::Horizontal).toString(),
                 QStringLiteral("Max"));
    }

    void findPlainAndRegex()
    {
        const auto plain = findSlices(*m_data, allSliceTracks(), QStringLiteral("SGEMM"), false);
        QCOMPARE(qint64(plain.size()),
                 scalar(*m_project, "SELECT count(*) FROM slice_abs WHERE name LIKE '%sgemm%'"));
        for (size_t i = 1; i < plain.size(); ++i)
            QVERIFY(plain[i - 1].start <= plain[i].start);
        const auto re = findSlices(*m_data, allSliceTracks(),
                                   QStringLiteral("^volta_sgemm_128x64_n[nt]$"), true);
        QCOMPARE(re.size(), plain.size());
        const auto steps =
            findSlices(*m_data, allSliceTracks(), QStringLiteral("ProfilerStep#\\d+"), true);
        QCOMPARE(
            qint64(steps.size()),
            scalar(*m_project, "SELECT count(*) FROM slice_abs WHERE name LIKE 'ProfilerStep#%'"));
        QString error;
        QVERIFY(findSlices(*m_data, allSliceTracks(), QStringLiteral("(unclosed"), true, &error)
                    .empty());
        QVERIFY2(error.contains(QStringLiteral("regular expression")), qPrintable(error));
        QVERIFY(findSlices(*m_data, allSliceTracks(), QStringLiteral("no such slice name"), false)
                    .empty());
    }

    void detailsAndLinksOfAKernel()
    {
        const qint64 kernel = scalar(
            *m_project,
            "SELECT id FROM slice_abs WHERE name = 'volta_sgemm_128x64_nn' ORDER BY ts LIMIT 1");
        QVERIFY(kernel > 0);
        const auto d = sliceDetails(*m_project, kernel);
        QVERIFY(d.has_value());
        QCOMPARE(d->name, QStringLiteral("volta_sgemm_128x64_nn"));
        QCOMPARE(d->category, QStringLiteral("kernel"));
        QVERIFY(d->correlation.has_value());
        QVERIFY(d->duration > 0);
        QVERIFY(!d->args.isEmpty());
        const auto links = linkedSlices(*m_project, kernel);
        bool launch = false;
        for (const auto &l : links) {
            QVERIFY(!l.outgoing); // both the launch and the CPU op point at the kernel
            if (l.kind == FlowKind::Launch) {
                launch = true;
                QCOMPARE(l.name, QStringLiteral("cudaLaunchKernel"));
                QVERIFY(l.start <= d->start);
            }
        }
        QVERIFY(launch);
        QVERIFY(!sliceDetails(*m_project, 987654321).has_value());
        // Self time: a ProfilerStep's children cover part of it.
        const auto steps =
            findSlices(*m_data, allSliceTracks(), QStringLiteral("ProfilerStep#0"), false);
        QVERIFY(!steps.empty());
        const auto track = m_data->slicesIn(steps.front().track, m_data->start, m_data->end);
        QVERIFY(track);
        const size_t i = size_t(track->find(steps.front().id, steps.front().start));
        QVERIFY(track->selfTime(i) < track->duration(i));
        QVERIFY(track->selfTime(i) >= 0);
        QVERIFY(m_data->trackPath(steps.front().track).contains(QStringLiteral(" › ")));
    }
};

QTEST_MAIN(TestSliceQuery)
#include "tst_slicequery.moc"
