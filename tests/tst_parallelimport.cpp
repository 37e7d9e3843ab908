// SPDX-License-Identifier: GPL-3.0-or-later
// A folder's files read on several threads (importers/job/sideimport.h, model/store/sideproject.h):
// the project holds exactly what reading them one after another gives, a bad file fails alone with
// its position, a cancel keeps nothing half-written and leaves no side project behind.
#include "gziputil.h"
#include "importjob.h"
#include "importutil.h"
#include "inputstream.h"
#include "sideproject.h"
#include "tracewriter.h"

#include <QCryptographicHash>
#include <QDir>
#include <QTest>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace gml;

namespace {

// Everything a reader sees of a project, ids left out (chunk and string ids differ with the
// order files were read in): per source its counts and metadata; per track its fields; every
// slice, counter sample and flow by content; run params; the summaries' shape.
// Hashed as read (the text of a real folder's dump is hundreds of megabytes, slow to build
// under a sanitizer): equal digests, equal dumps.
QByteArray contents(Project &project)
{
    QCryptographicHash out(QCryptographicHash::Sha256);
    auto dump = [&](const char *sql) {
        auto st = project.db().prepare(sql);
        while (st.step()) {
            for (int c = 0; c < st.columnCount(); ++c) {
                const std::string_view v = st.isNull(c) ? std::string_view("NULL") : st.blobView(c);
                out.addData(QByteArrayView(v.data(), qsizetype(v.size())));
                out.addData("|");
            }
            out.addData("\n");
        }
        out.addData("--\n");
    };
    dump("SELECT path, format, status, error, slices, counter_samples, flows, clock_offset_ns, "
         "metadata, warnings, hash, size FROM source ORDER BY path");
    dump("SELECT r.name, r.params, r.kind FROM run r ORDER BY r.name");
    dump("SELECT s.path, t.name, t.kind, t.rank, t.pid, t.tid, t.unit, t.sort_key, t.start_ns, "
         "t.end_ns, t.slice_count, t.counter_count, t.max_depth, p.name FROM track t JOIN source s "
         "ON s.id = t.source_id LEFT JOIN track p ON p.id = t.parent_id ORDER BY 1, 8, 2, 5, 6");
    dump(
        "SELECT s.path, t.name, t.tid, x.ts, x.dur, n.value, c.value, x.correlation, "
        "x.external_id, "
        "x.args FROM slice x JOIN track t ON t.id = x.track_id JOIN source s ON s.id = t.source_id "
        "JOIN string n ON n.id = x.name_id LEFT JOIN string c ON c.id = x.cat_id ORDER BY 1, 2, 3, "
        "4, 5, 6");
    dump("SELECT s.path, t.name, k.ts, k.value, k.step FROM counter k JOIN track t ON t.id = "
         "k.track_id JOIN source s ON s.id = t.source_id ORDER BY 1, 2, 3");
    dump(
        "SELECT s.path, f.kind, a.ts, na.value, b.ts, nb.value FROM flow f JOIN source s ON s.id = "
        "f.source_id JOIN slice a ON a.id = f.from_slice JOIN slice b ON b.id = f.to_slice JOIN "
        "string na ON na.id = a.name_id JOIN string nb ON nb.id = b.name_id ORDER BY 1, 3, 5, 2, "
        "4, 6");
    dump("SELECT s.path, t.name, t.tid, l.shift, l.count, l.min_ts, l.max_end FROM slice_lod l "
         "JOIN track t "
         "ON t.id = l.track_id JOIN source s ON s.id = t.source_id ORDER BY 1, 2, 3, 4, 6");
    return out.result();
}

// `minAside`: the generated files are small, so by default every one is read aside all the
// same (ImportJob::kMinAsideBytes would import them in turn).
QList<SourceReport> importWith(Project &project, const QStringList &paths, int threads,
                               const std::function<bool(const ImportProgress &)> &progress = {},
                               qint64 minAside = 0)
{
    QStringList errors;
    ImportJob job(project);
    job.setThreads(threads);
    job.setMinAsideBytes(minAside);
    if (progress)
        job.setProgressCallback(progress);
    return job.run(scanInputs(paths, {}, &errors));
}

// Side projects are written in a hidden folder beside the project.
QStringList sideFolders(const QTemporaryDir &dir)
{
    return QDir(dir.path())
        .entryList({QStringLiteral(".grademl-import-*")}, QDir::Dirs | QDir::Hidden);
}

} // namespace

class TestParallelImport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sameProjectOnOneThreadOrSeveral()
    {
        QTemporaryDir gen;
        // Eight ranks (flows, args, nested CPU ops, GPU streams) with monitoring logs beside.
        const QString job = gmltest::generateJob(gen, 8, 3, 0, {QStringLiteral("--monitor")});
        QByteArray first;
        // Three thread counts; then two threads with the small-file rule (issue 74): files this
        // small (under 100 KB) are read in turn, as on one thread.
        for (const auto &[threads, minAside] :
             {std::pair<int, qint64>{1, 0}, {2, 0}, {3, 0}, {2, ImportJob::kMinAsideBytes}}) {
            QTemporaryDir dir;
            auto project = gmltest::newProject(dir);
            const auto reports = importWith(*project, {job}, threads, {}, minAside);
            int aside = 0;
            for (const auto &r : reports) {
                QVERIFY2(r.status == SourceReport::Status::Imported ||
                             r.status == SourceReport::Status::Skipped,
                         qPrintable(r.path + QStringLiteral(": ") + r.message));
                aside += r.readAside;
                // Where a file's time went is reported for one read on the job's thread
                // (bench_import --stages), and its parts never add up to more than the whole.
                if (r.status == SourceReport::Status::Imported && !r.readAside)
                    QVERIFY2(r.readSeconds > 0 && r.finishSeconds >= 0 && r.commitSeconds >= 0 &&
                                 r.readSeconds + r.finishSeconds + r.commitSeconds <= r.seconds,
                             qPrintable(r.path));
                if (r.readAside)
                    QCOMPARE(r.readSeconds + r.finishSeconds + r.commitSeconds, 0.0);
            }
            // One thread reads every file itself; more read every trace aside.
            QVERIFY2(threads == 1 || minAside > 0 ? aside == 0 : aside >= 8,
                     qPrintable(QString::number(aside)));
            const QByteArray now = contents(*project);
            if (first.isEmpty())
                first = now;
            else
                QCOMPARE(now.toHex(), first.toHex());
            QVERIFY(project->db().scalar("SELECT count(*) FROM slice") > 1000);
            QVERIFY(project->db().scalar("SELECT count(*) FROM flow") > 100);
            // Every name a slice uses is in the string table (ids handed out on other threads).
            QCOMPARE(project->db().scalar("SELECT count(*) FROM slice x LEFT JOIN string n ON "
                                          "n.id = x.name_id WHERE n.id IS NULL"),
                     qint64(0));
            // Importing again finds every file unchanged.
            for (const auto &r : importWith(*project, {job}, threads))
                QVERIFY(r.status != SourceReport::Status::Imported);
        }
    }

    void realKinetoFolderSameEitherWay()
    {
        const QString kineto = QStringLiteral(GRADEML_SHARED_TRACES "/pytorch_kineto");
        if (!QDir(kineto).exists())
            QSKIP("../shared/traces/pytorch_kineto is absent (real traces from public projects)");
        QByteArray one, two;
        for (int threads : {1, 2}) {
            QTemporaryDir dir;
            auto project = gmltest::newProject(dir);
            int aside = 0;
            for (const auto &r : importWith(*project, {kineto}, threads))
                aside += r.readAside;
            QCOMPARE(aside > 0, threads > 1);
            (threads == 1 ? one : two) = contents(*project);
        }
        QCOMPARE(one.toHex(), two.toHex());
    }

    // A copied folder in the same import (issue 74): on one thread the copy's files are the
    // same content as files imported a moment before, not imported twice; aside, every side
    // project was started before any was committed, so the copies are read in their turn and
    // found the same way. One run, whatever the threads.
    void copiesInOneImportAreNotImportedTwice()
    {
        QTemporaryDir gen;
        const QString job = gmltest::generateJob(gen, 4, 2);
        const QString both = gen.filePath(QStringLiteral("both"));
        for (const char *copy : {"/a/", "/b/"}) {
            QDir().mkpath(both + QLatin1String(copy));
            for (const QString &f : QDir(job).entryList(QDir::Files))
                QVERIFY(QFile::copy(job + QLatin1Char('/') + f, both + QLatin1String(copy) + f));
        }
        for (int threads : {1, 2}) {
            QTemporaryDir dir;
            auto project = gmltest::newProject(dir);
            int imported = 0, copies = 0;
            for (const auto &r : importWith(*project, {both}, threads)) {
                imported += r.status == SourceReport::Status::Imported;
                if (r.status == SourceReport::Status::Unchanged) {
                    QVERIFY2(r.path.contains(QLatin1String("/b/")) &&
                                 r.message.contains(QLatin1String("not imported twice")),
                             qPrintable(r.path + QStringLiteral(": ") + r.message));
                    ++copies;
                }
            }
            QCOMPARE(imported, 4);
            QCOMPARE(copies, 4);
            QCOMPARE(project->db().scalar("SELECT count(*) FROM run"), qint64(1));
        }
    }

    void badFileAmongThemFailsAlone()
    {
        QTemporaryDir gen;
        const QString job = gmltest::generateJob(gen, 4, 2);
        // A trace cut short in the middle of an event.
        QFile cut(job + QStringLiteral("/rank2.pt.trace.json"));
        QVERIFY(cut.open(QIODevice::ReadWrite));
        const qint64 half = cut.size() / 2;
        QVERIFY(cut.resize(half));
        cut.close();
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        int imported = 0;
        for (const auto &r : importWith(*project, {job}, 2)) {
            if (r.path.endsWith(QLatin1String("rank2.pt.trace.json"))) {
                QCOMPARE(r.status, SourceReport::Status::Failed);
                QVERIFY2(r.message.startsWith(r.path + QStringLiteral(": at byte ")),
                         qPrintable(r.message));
            } else if (r.status == SourceReport::Status::Imported) {
                ++imported;
                QVERIFY(r.readAside);
            }
        }
        QCOMPARE(imported, 3);
        QCOMPARE(project->db().scalar("SELECT count(*) FROM source WHERE status = 'failed' AND "
                                      "path LIKE '%rank2.pt.trace.json'"),
                 qint64(1));
        QCOMPARE(project->db().scalar("SELECT count(*) FROM track t JOIN source s ON s.id = "
                                      "t.source_id WHERE s.status = 'failed'"),
                 qint64(0));
    }

    // A file imported before and broken since keeps its previous import when read again aside.
    void brokenReimportKeepsThePreviousImport()
    {
        QTemporaryDir gen;
        const QString job = gmltest::generateJob(gen, 3, 2);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        for (const auto &r : importWith(*project, {job}, 2))
            QCOMPARE(r.status, SourceReport::Status::Imported);
        const qint64 slices = project->db().scalar("SELECT count(*) FROM slice");
        // Two files change: one still reads, one is cut short.
        for (const char *name : {"/rank0.pt.trace.json", "/rank1.pt.trace.json"}) {
            QFile f(job + QLatin1String(name));
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(
                f.resize(name[5] == '1' ? f.size() / 2 : f.size() + 1)); // rank0: a byte of padding
            if (name[5] == '0') {
                QVERIFY(f.seek(f.size() - 1));
                QVERIFY(f.write(" ") == 1);
            }
        }
        int imported = 0, failed = 0;
        for (const auto &r : importWith(*project, {job}, 2)) {
            imported += r.status == SourceReport::Status::Imported;
            failed += r.status == SourceReport::Status::Failed;
        }
        QCOMPARE(imported, 1);
        QCOMPARE(failed, 1);
        QCOMPARE(project->db().scalar("SELECT count(*) FROM slice"), slices);
        QVERIFY(
            gmltest::text(*project, QStringLiteral("SELECT status || ': ' || error FROM source "
                                                   "WHERE path LIKE '%rank1.pt.trace.json'"))
                .startsWith(QStringLiteral("imported: re-import failed, previous import kept: ")));
    }

    // Another program imports into the project while a side project is read: the side's
    // chunk ids are taken, and the copy says so instead of mixing two sources' slices.
    void copyRefusesIdsTakenMeanwhile()
    {
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        ImportIds ids(project->db());
        auto writeOne = [](Project &p, const QString &path, const char *name) {
            QString error;
            QVERIFY2(p.begin(&error), qPrintable(error));
            const RunId run = p.ensureRun(QStringLiteral("r"), &error);
            auto st = p.db().prepare(
                "INSERT INTO source(run_id, path, format, status) VALUES(?,?,'x','failed')");
            st.bind(1, run);
            st.bind(2, path);
            QVERIFY(st.exec());
            TraceWriter w(p, run, p.db().lastInsertRowId());
            TrackSpec spec;
            spec.name = QStringLiteral("t");
            const TrackId t = w.addTrack(spec);
            QVERIFY(w.addSlice(t, 10, 5, w.intern(name), 0) != 0);
            QVERIFY2(w.finish({}, &error) && p.commit(&error), qPrintable(error));
        };
        QString error;
        const QString sidePath = dir.filePath(QStringLiteral("side.grademl"));
        {
            auto side = Project::open(sidePath, Project::Mode::ReadWrite, &error);
            QVERIFY2(side, qPrintable(error));
            side->shareIds(&ids);
            writeOne(*side, QStringLiteral("/a.json"), "from the side");
        }
        {
            // The other program: its own connection, ids after the file's largest.
            auto other = Project::open(project->path(), Project::Mode::ReadWrite, &error);
            writeOne(*other, QStringLiteral("/b.json"), "meanwhile");
        }
        QVERIFY2(attachSide(*project, sidePath, &error), qPrintable(error));
        QVERIFY(project->begin(&error));
        auto st = project->db().prepare(
            "INSERT INTO source(run_id, path, format, status) VALUES(?,?,'x','failed')");
        st.bind(1, project->ensureRun(QStringLiteral("r"), &error));
        st.bind(2, QStringLiteral("/a.json"));
        QVERIFY(st.exec());
        bool conflict = false;
        QVERIFY(
            !copySideSource(*project, 1, 1, project->db().lastInsertRowId(), &conflict, &error));
        QVERIFY(conflict);
        project->rollback();
        detachSide(*project);
        QCOMPARE(gmltest::text(*project, QStringLiteral("SELECT group_concat(n.value) FROM slice s "
                                                        "JOIN string n ON n.id = s.name_id")),
                 QStringLiteral("meanwhile"));
    }

    // A large file's bytes are read (and gunzipped) on a second thread while the importer
    // parses: the same bytes, the same error after the same count, the same content hash.
    void readAheadGivesTheSameBytesAndErrors()
    {
        QTemporaryDir dir;
        QByteArray data;
        // Nine blocks and more: the reading thread takes blocks the reader is done with again.
        for (int i = 0; data.size() < (19 << 19); ++i)
            data += "{\"ph\":\"X\",\"name\":\"op" + QByteArray::number(i * 7919 % 100003) +
                    "\",\"ts\":" + QByteArray::number(i) + "},\n";
        const QByteArray packed = gmltest::gzip(data);
        const QString plain = gmltest::writeFile(dir, QStringLiteral("a.json"), data);
        const QString gz = gmltest::writeFile(dir, QStringLiteral("a.json.gz"), packed);
        const QString cut = gmltest::writeFile(dir, QStringLiteral("cut.json.gz"),
                                               packed.left(packed.size() * 3 / 5));
        struct Read
        {
            QByteArray bytes;
            qint64 last = 0;
            QString error;
            std::optional<quint64> hash;
        };
        auto readAll = [](const QString &path, bool ahead) {
            InputStream in;
            Read r;
            if (!in.open(path))
                return r;
            if (ahead)
                in.readAhead();
            QByteArray buf(777'777, Qt::Uninitialized); // not a multiple of any block
            while ((r.last = in.read(buf.data(), buf.size())) > 0)
                r.bytes.append(buf.constData(), r.last);
            r.error = in.errorString();
            r.hash = in.wholeFileHash();
            return r;
        };
        for (const QString &path : {plain, gz, cut}) {
            const Read direct = readAll(path, false), ahead = readAll(path, true);
            QCOMPARE(ahead.bytes.size(), direct.bytes.size());
            QVERIFY(ahead.bytes == direct.bytes);
            QCOMPARE(ahead.last, direct.last);
            QCOMPARE(ahead.error, direct.error);
            QCOMPARE(ahead.hash, direct.hash);
        }
        QCOMPARE(readAll(plain, true).bytes, data);
        QCOMPARE(readAll(gz, true).bytes, data);
        QCOMPARE(readAll(cut, true).last, qint64(-1));
        QVERIFY(readAll(cut, true).error.startsWith(
            QStringLiteral("gzip data is corrupt or cut short")));
        QVERIFY(readAll(plain, true).hash.has_value());
        // Stopping early joins the reading thread (no hang, no read past the stream's end).
        {
            InputStream in;
            QVERIFY(in.open(gz));
            in.readAhead();
            char few[10];
            QCOMPARE(in.read(few, sizeof few), qint64(sizeof few));
        }
    }

    void cancelKeepsNothingHalfWritten()
    {
        QTemporaryDir gen;
        const QString job = gmltest::generateJob(gen, 6, 2);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        int calls = 0, sideFoldersSeen = 0;
        const auto reports = importWith(*project, {job}, 2, [&](const ImportProgress &) {
            sideFoldersSeen = std::max(sideFoldersSeen, int(sideFolders(dir).size()));
            return ++calls < 3;
        });
        int imported = 0, cancelled = 0;
        for (const auto &r : reports) {
            imported += r.status == SourceReport::Status::Imported;
            cancelled += r.status == SourceReport::Status::Cancelled;
        }
        QVERIFY(cancelled > 0);
        // What was kept is whole: a source row per imported file, each with all its tracks.
        QCOMPARE(project->db().scalar("SELECT count(*) FROM source WHERE status = 'imported'"),
                 qint64(imported));
        QCOMPARE(project->db().scalar("SELECT count(DISTINCT source_id) FROM track"),
                 qint64(imported));
        QCOMPARE(project->db().scalar("SELECT count(*) FROM source WHERE status = 'failed'"),
                 qint64(0));
        QCOMPARE(sideFoldersSeen, 1);
        QCOMPARE(sideFolders(dir), QStringList());
    }

    // The side folder of an import killed with kill -9 stays behind; the next import beside it
    // removes it (its owner's lock is free) and never one whose import is still running.
    void sideFolderOfAKilledImportIsRemoved()
    {
        QTemporaryDir gen;
        const QString job = gmltest::generateJob(gen, 4, 2);
        QTemporaryDir dir;
        auto project = gmltest::newProject(dir);
        // A folder as a killed import leaves it: a side project and a lock nobody holds.
        const QString killed = dir.filePath(QStringLiteral(".grademl-import-Killed"));
        QVERIFY(QDir().mkpath(killed));
        gmltest::writeFile(dir, QStringLiteral(".grademl-import-Killed/side-0.grademl"),
                           QByteArray(4096, 'x'));
        gmltest::writeFile(dir, QStringLiteral(".grademl-import-Killed/owner.lock"), {});
        // One whose owner is alive: its lock held (here by this process, on another descriptor).
        const QString alive = dir.filePath(QStringLiteral(".grademl-import-Alive"));
        QVERIFY(QDir().mkpath(alive));
        gmltest::writeFile(dir, QStringLiteral(".grademl-import-Alive/owner.lock"), {});
        const int held =
            ::open(QFile::encodeName(alive + QStringLiteral("/owner.lock")).constData(), O_RDWR);
        QVERIFY(held >= 0 && ::flock(held, LOCK_EX | LOCK_NB) == 0);
        const auto reports = importWith(*project, {job}, 2);
        for (const auto &r : reports)
            QCOMPARE(r.status, SourceReport::Status::Imported);
        QCOMPARE(sideFolders(dir), QStringList{QStringLiteral(".grademl-import-Alive")});
        ::close(held);
    }
};

QTEST_GUILESS_MAIN(TestParallelImport)
#include "tst_parallelimport.moc"
