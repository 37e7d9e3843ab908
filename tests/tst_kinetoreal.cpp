// SPDX-License-Identifier: GPL-3.0-or-later
// The importer on the real traces in ../shared/traces, checked against an independent count
// made with Qt's own JSON parser. Skips with a message when ../shared is absent.
#include "folderscanner.h"
#include "importjob.h"
#include "inputstream.h"
#include "project.h"
#include "testutil.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>

#include <algorithm>
#include <vector>

using namespace gml;

namespace {

QByteArray readAll(const QString &path)
{
    InputStream in;
    if (!in.open(path))
        return {};
    QByteArray all;
    QByteArray buf(1 << 20, Qt::Uninitialized);
    for (qint64 n; (n = in.read(buf.data(), buf.size())) > 0;)
        all.append(buf.constData(), n);
    return all;
}

struct Expected
{
    qint64 slices = 0;   // X + instants + matched B/E pairs
    qint64 launches = 0; // GPU kernels/memcpy/memset whose correlation matches a runtime call
    // Every slice's args, each as Qt writes the object back (keys sorted), hashed and sorted:
    // what the project's slices must hold, member for member.
    std::vector<size_t> args;
};

size_t argsDigest(const QJsonObject &o)
{
    return qHash(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

Expected independentCount(const QString &path)
{
    const QJsonDocument doc = QJsonDocument::fromJson(readAll(path));
    const QJsonArray events =
        doc.isArray() ? doc.array() : doc.object().value(QStringLiteral("traceEvents")).toArray();
    Expected e;
    QSet<qint64> runtimeCorr;
    QList<qint64> gpuCorr;
    const QSet<QString> runtimeCats = {QStringLiteral("cuda_runtime"),
                                       QStringLiteral("cuda_driver"), QStringLiteral("Runtime")};
    const QSet<QString> gpuCats = {QStringLiteral("kernel"),     QStringLiteral("gpu_memcpy"),
                                   QStringLiteral("gpu_memset"), QStringLiteral("Kernel"),
                                   QStringLiteral("Memcpy"),     QStringLiteral("Memset")};
    for (const auto &v : events) {
        const auto o = v.toObject();
        const QString ph = o.value(QStringLiteral("ph")).toString();
        if (ph == QLatin1String("X") || ph == QLatin1String("i") || ph == QLatin1String("I"))
            ++e.slices;
        else if (ph == QLatin1String("B"))
            ++e.slices;
        const QString cat = o.value(QStringLiteral("cat")).toString();
        const auto args = o.value(QStringLiteral("args")).toObject();
        if (!args.isEmpty() &&
            (ph == QLatin1String("X") || ph == QLatin1String("i") || ph == QLatin1String("I") ||
             ph == QLatin1String("B") || ph == QLatin1String("b") || ph == QLatin1String("n")))
            e.args.push_back(argsDigest(args));
        if (ph == QLatin1String("X") && args.contains(QStringLiteral("correlation"))) {
            const qint64 c = args.value(QStringLiteral("correlation")).toInteger();
            if (runtimeCats.contains(cat))
                runtimeCorr.insert(c);
            else if (gpuCats.contains(cat))
                gpuCorr.append(c);
        }
    }
    for (qint64 c : gpuCorr)
        e.launches += runtimeCorr.contains(c);
    std::sort(e.args.begin(), e.args.end());
    return e;
}

// A fresh project holding the given files or folders, imported into `run` (empty: one run
// per folder).
struct Imported
{
    QTemporaryDir dir;
    std::unique_ptr<Project> p;
    QList<SourceReport> reports;

    Imported(const QStringList &paths, const QString &run)
    {
        QString error;
        p = Project::open(dir.filePath(QStringLiteral("p.grademl")), Project::Mode::ReadWrite,
                          &error);
        if (!p)
            qFatal("%s", qPrintable(error));
        QStringList errs;
        ImportJob job(*p);
        reports = job.run(scanInputs(paths, run, &errs));
    }
};

QString shared(const QString &rel)
{
    return gmltest::sharedTraces() + QLatin1Char('/') + rel;
}

} // namespace

class TestKinetoReal : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyKinetoFileMatchesAnIndependentCount_data()
    {
        QTest::addColumn<QString>("path");
        const QString root = gmltest::sharedTraces() + QStringLiteral("/pytorch_kineto");
        QDirIterator it(root, QDir::Files, QDirIterator::Subdirectories);
        QStringList files;
        while (it.hasNext())
            files << it.next();
        files.sort();
        if (files.isEmpty())
            QTest::newRow("absent") << QString();
        for (const auto &f : files)
            QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
    }

    void everyKinetoFileMatchesAnIndependentCount()
    {
        QFETCH(QString, path);
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto"));
        Imported im({path}, QStringLiteral("r"));
        auto &p = im.p;
        const auto &r = im.reports.first();
        QCOMPARE(r.status, SourceReport::Status::Imported);
        // Files of 4 MiB or more as read (most of these) are written through a small page
        // cache (writesThrough); what is read afterwards has the reading cache (64 MiB) again.
        QCOMPARE(p->db().scalar("PRAGMA cache_size"), -65536);
        const Expected e = independentCount(path);
        QCOMPARE(r.slices, e.slices);
        // Each flow looks its runtime call up by id: a lookup of the flows by slice reads the
        // run's flows (the flow table), which for every slice of a file is quadratic.
        QCOMPARE(p->db().scalar("SELECT count(*) FROM flow f JOIN slice s ON s.id = f.from_slice "
                                "JOIN string c ON c.id = s.cat_id WHERE f.kind = 1 AND "
                                "c.value IN ('cuda_runtime','cuda_driver','Runtime')"),
                 e.launches);
        // Every slice keeps its event's args, as the reader split them and the store encoded
        // them (compared through Qt's parser, which shares no code with either).
        std::vector<size_t> stored;
        auto args = p->db().prepare("SELECT args FROM slice WHERE args IS NOT NULL");
        while (args.step())
            stored.push_back(argsDigest(QJsonDocument::fromJson(args.text(0).toUtf8()).object()));
        std::sort(stored.begin(), stored.end());
        QCOMPARE(stored.size(), e.args.size());
        QVERIFY(stored == e.args);
        // Every GPU track has readable names; no raw pid-only stream names.
        auto st = p->db().prepare("SELECT name FROM track WHERE kind IN (4,5)");
        while (st.step())
            QVERIFY2(st.text(0).startsWith(QLatin1String("GPU")) ||
                         st.text(0).contains(QLatin1String("GPU ")) ||
                         st.text(0).startsWith(QLatin1String("stream")) ||
                         st.text(0).startsWith(QLatin1String("device-wide")),
                     qPrintable(st.text(0)));
    }

    void dlrmRanksBecomeOneRunOnOneClock()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100"));
        Imported im({shared(QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100"))}, QString());
        auto &p = im.p;
        QCOMPARE(im.reports.size(), 8);
        QCOMPARE(p->db().scalar("SELECT count(*) FROM run"), 1);
        QCOMPARE(gmltest::text(*p, QStringLiteral("SELECT name FROM run")),
                 QStringLiteral("param_dlrm_8rank_v100"));
        QCOMPARE(p->db().scalar("SELECT count(DISTINCT rank) FROM track WHERE kind=2"), 8);
        for (int rank = 0; rank < 8; ++rank) {
            const QString sql = QStringLiteral("SELECT count(*) FROM track WHERE kind=2 AND "
                                               "rank=%1 AND name LIKE 'rank %1 · % (pid %)'")
                                    .arg(rank);
            QCOMPARE(p->db().scalar(sql.toStdString()), 1);
        }
        const auto params =
            QJsonDocument::fromJson(
                gmltest::text(*p, QStringLiteral("SELECT params FROM run")).toUtf8())
                .object();
        QCOMPARE(params.value(QStringLiteral("world_size")).toInt(), 8);
        QCOMPARE(params.value(QStringLiteral("ranks")).toArray().size(), 8);
        // One host clock: the ranks' first events lie within 50 ms of each other.
        const qint64 spread =
            p->db().scalar("SELECT max(s) - min(s) FROM (SELECT min(start_ns) AS s FROM track "
                           "WHERE kind IN (3,5) AND start_ns IS NOT NULL GROUP BY rank)");
        QVERIFY2(spread >= 0 && spread < 50'000'000, qPrintable(QString::number(spread)));
    }

    void relativeTimesLandOnTheBaseClock()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/hta_amd_mi250_rocm62"));
        Imported im(
            {shared(QStringLiteral(
                "pytorch_kineto/hta_amd_mi250_rocm62/mi250_minitoy_train_ROCm6_2_kineto.json.gz"))},
            QStringLiteral("r"));
        auto &p = im.p;
        QCOMPARE(im.reports.first().status, SourceReport::Status::Imported);
        QCOMPARE(p->db().scalar("SELECT clock_offset_ns FROM source"),
                 Q_INT64_C(1735632360000000000));
        // The file's events start at ts ~4203669.6 s after the base: absolute time in 2024/25.
        const qint64 start = p->db().scalar("SELECT min(ts) FROM slice_abs");
        QVERIFY(start > Q_INT64_C(1735632360000000000));
        QVERIFY(start < Q_INT64_C(1735632360000000000) + Q_INT64_C(5000000) * 1'000'000'000);
    }

    void format2021StringTids()
    {
        GML_REQUIRE_SHARED(QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"));
        Imported im({shared(QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"))},
                    QString());
        auto &p = im.p;
        QCOMPARE(p->db().scalar("SELECT count(*) FROM track WHERE kind=5 AND name='stream 7'"), 1);
        QVERIFY(p->db().scalar("SELECT slice_count FROM track WHERE kind=5 AND name='stream 7'") >
                8000);
        QVERIFY(p->db().scalar("SELECT count(*) FROM flow WHERE kind=7") > 8000); // 'external id'
    }

    void tensorflowProfilerTrace()
    {
        const QString rel =
            QStringLiteral("tensorflow_profiler/keras_tf2_cpu_speech_rnn/plugins/profile/"
                           "2021_08_11_16_03_07/DESKTOP-V1DB051.trace.json.gz");
        GML_REQUIRE_SHARED(rel);
        Imported im({shared(rel)}, QStringLiteral("tf"));
        auto &p = im.p;
        const auto &r = im.reports.first();
        QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(r.slices, 7831); // every X event; the trailing {} is padding
        QCOMPARE(
            p->db().scalar("SELECT count(*) FROM track WHERE kind=2 AND name LIKE '/host:CPU%'"),
            1);
    }
};

QTEST_GUILESS_MAIN(TestKinetoReal)
#include "tst_kinetoreal.moc"
