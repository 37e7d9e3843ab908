// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 36: notes and bookmarks (model/store/notes.h, schema 11) and `grademl note`.
#include "handtrace.h"
#include "importutil.h"
#include "notes.h"
#include "project.h"
#include "schema.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gml;

class TestNotes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Notes on a time, a range and a slice through the CLI; list --json round-trips; a
    // bookmark moves; remove; bad input named.
    void cliAddListRemove()
    {
        QTemporaryDir dir;
        gmltest::writeFile(dir, QStringLiteral("hand/hand.json"), gmltest::kHandTrace);
        QString file;
        qint64 mm = 0, start = 0;
        {
            auto project = gmltest::newProject(dir);
            gmltest::importInto(*project, {dir.filePath(QStringLiteral("hand"))});
            file = project->path();
            auto q = project->db().prepare(
                "SELECT id, ts FROM slice_info WHERE name = 'aten::mm' ORDER BY ts DESC LIMIT 1");
            QVERIFY(q.step());
            mm = q.int64(0);
            start = q.int64(1) - 120'000; // the run's start
        }
        auto cli = [&](const QStringList &args) {
            return gmltest::runCli(QStringList{QStringLiteral("note"), file} + args);
        };
        // Times after the run's start with a unit, as analyze and flame take them, or @NS on
        // the project clock (issue 73: note alone took bare project-clock nanoseconds).
        auto r = cli({QStringLiteral("add"), QStringLiteral("--at"), QStringLiteral("50us"),
                      QStringLiteral("--text"), QStringLiteral("the loader stalls here"),
                      QStringLiteral("--bookmark"), QStringLiteral("1")});
        QCOMPARE(r.code, 0);
        const qint64 first = r.out.trimmed().toLongLong();
        r = cli({QStringLiteral("add"), QStringLiteral("--range"),
                 QStringLiteral("@%1:@%2").arg(start + 100'000).arg(start + 200'000),
                 QStringLiteral("--text"), QStringLiteral("step 2")});
        QCOMPARE(r.code, 0);
        r = cli({QStringLiteral("add"), QStringLiteral("--slice"), QString::number(mm),
                 QStringLiteral("--text"), QStringLiteral("the slow mm"),
                 QStringLiteral("--bookmark"), QStringLiteral("1")});
        QCOMPARE(r.code, 0);
        const qint64 onSlice = r.out.trimmed().toLongLong();
        r = cli({QStringLiteral("list"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonArray notes =
            QJsonDocument::fromJson(r.out).object()[QStringLiteral("notes")].toArray();
        QCOMPARE(notes.size(), 3);
        const QJsonObject a = notes[0].toObject(), b = notes[1].toObject(), c = notes[2].toObject();
        QCOMPARE(a[QStringLiteral("id")].toInteger(), first);
        QCOMPARE(a[QStringLiteral("kind")].toString(), QStringLiteral("time"));
        QCOMPARE(a[QStringLiteral("run")].toString(),
                 QStringLiteral("hand")); // the run holding the time
        QCOMPARE(a[QStringLiteral("text")].toString(), QStringLiteral("the loader stalls here"));
        QCOMPARE(a[QStringLiteral("start_ns")].toInteger(), start + 50'000);
        QVERIFY(a[QStringLiteral("bookmark")].isNull()); // bookmark 1 moved to the slice note
        QCOMPARE(b[QStringLiteral("kind")].toString(), QStringLiteral("range"));
        QCOMPARE(b[QStringLiteral("end_ns")].toInteger() -
                     b[QStringLiteral("start_ns")].toInteger(),
                 100'000);
        QCOMPARE(c[QStringLiteral("kind")].toString(), QStringLiteral("slice"));
        QCOMPARE(c[QStringLiteral("slice_id")].toInteger(), mm);
        QCOMPARE(c[QStringLiteral("slice_name")].toString(), QStringLiteral("aten::mm"));
        QCOMPARE(c[QStringLiteral("end_ns")].toInteger() -
                     c[QStringLiteral("start_ns")].toInteger(),
                 50'000);
        QCOMPARE(c[QStringLiteral("bookmark")].toInt(), 1);
        // The text listing.
        r = cli({QStringLiteral("list")});
        QVERIFY2(r.out.contains("[1]  slice  hand") && r.out.contains("the slow mm"),
                 r.out.constData());
        // Remove, and a note that is not there.
        QCOMPARE(cli({QStringLiteral("remove"), QString::number(first)}).code, 0);
        r = cli({QStringLiteral("remove"), QString::number(first)});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no note"), r.err.constData());
        // Bad input is named.
        for (const QStringList &bad :
             {QStringList{QStringLiteral("add"), QStringLiteral("--text"), QStringLiteral("x")},
              QStringList{QStringLiteral("add"), QStringLiteral("--at"), QStringLiteral("soon"),
                          QStringLiteral("--text"), QStringLiteral("x")},
              QStringList{QStringLiteral("add"), QStringLiteral("--range"), QStringLiteral("5:1"),
                          QStringLiteral("--text"), QStringLiteral("x")},
              QStringList{QStringLiteral("add"), QStringLiteral("--range"),
                          QStringLiteral("1ms:@5"), QStringLiteral("--text"), QStringLiteral("x")},
              QStringList{QStringLiteral("add"), QStringLiteral("--at"), QStringLiteral("-5ms"),
                          QStringLiteral("--text"), QStringLiteral("x")},
              QStringList{QStringLiteral("add"), QStringLiteral("--at"), QStringLiteral("5"),
                          QStringLiteral("--text"), QStringLiteral("x"),
                          QStringLiteral("--bookmark"), QStringLiteral("10")},
              QStringList{QStringLiteral("rename")}}) {
            r = cli(bad);
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.startsWith("grademl note: "), r.err.constData());
        }
        r = cli({QStringLiteral("add"), QStringLiteral("--slice"), QStringLiteral("999999999"),
                 QStringLiteral("--text"), QStringLiteral("x")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no slice 999999999"), r.err.constData());
        QCOMPARE(onSlice > 0, true);
        // Times outside the project (issue 56: -5 ns, 9e18 ns, -10:-5 were accepted).
        for (const QStringList &outside :
             {QStringList{QStringLiteral("--at"), QStringLiteral("@-5")},
              QStringList{QStringLiteral("--at"), QStringLiteral("@9000000000000000000")},
              QStringList{QStringLiteral("--range"), QStringLiteral("@-10:@-5")},
              QStringList{QStringLiteral("--at"), QStringLiteral("100s")}}) {
            r = cli(QStringList{QStringLiteral("add")} + outside +
                    QStringList{QStringLiteral("--text"), QStringLiteral("x")});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("is outside the project, which spans"), r.err.constData());
        }
        // What another program wrote is listed safely: control characters shown, not run by the
        // terminal; a reversed range in order; a bookmark out of 1-9 as none.
        {
            QString error;
            auto project = Project::open(file, Project::Mode::ReadWrite, &error);
            QVERIFY2(project, qPrintable(error));
            QVERIFY(project->db().exec(
                QStringLiteral(
                    "PRAGMA ignore_check_constraints = 1; INSERT INTO note(kind, run, start_ns, "
                    "end_ns, text, bookmark) VALUES ('range', 'hand', %1, %2, 'red' || "
                    "char(27) || '[31m' || char(0) || 'x', 11)")
                    .arg(start + 10)
                    .arg(start + 5)
                    .toStdString()));
        }
        r = cli({QStringLiteral("list")});
        QCOMPARE(r.code, 0);
        QVERIFY2(!r.out.contains('\x1b') && r.out.contains("red\\x1b[31m"), r.out.constData());
        const QByteArray ordered =
            QByteArray::number(start + 5) + ':' + QByteArray::number(start + 10);
        QVERIFY2(!r.out.contains("[11]") && !r.out.contains("(-") && r.out.contains(ordered),
                 r.out.constData());
    }

    // Notes survive a re-import of their run (a slice note finds its slice again, new id) and
    // a project of schema 10 is upgraded to hold them.
    void notesSurviveReimportAndUpgrade()
    {
        QTemporaryDir dir;
        gmltest::writeFile(dir, QStringLiteral("hand/hand.json"), gmltest::kHandTrace);
        QString error;
        auto project = gmltest::newProject(dir);
        gmltest::importInto(*project, {dir.filePath(QStringLiteral("hand"))});
        const QString file = project->path();
        // Back to schema 10, as a project written before notes.
        QVERIFY(project->db().exec("DROP TABLE counter; DROP TABLE counter_chunk; CREATE TABLE "
                                   "counter(track_id INTEGER NOT NULL, ts INTEGER NOT NULL, value "
                                   "REAL NOT NULL, step INTEGER); DROP TABLE shard_identity; "
                                   "DROP TABLE rank_facts; DROP TABLE "
                                   "shard; ALTER TABLE source DROP COLUMN shard_id; "
                                   "ALTER TABLE source DROP COLUMN shard_source_id; DROP TABLE "
                                   "note; PRAGMA user_version = 10;"));
        project.reset();
        project = Project::open(file, Project::Mode::ReadWrite, &error);
        QVERIFY2(project, qPrintable(error));
        QCOMPARE(project->schemaVersion(), schema::currentVersion());
        QVERIFY(listNotes(*project, &error).empty());
        auto q = project->db().prepare(
            "SELECT id FROM slice_info WHERE name = 'aten::mm' ORDER BY ts LIMIT 1");
        QVERIFY(q.step());
        const SliceId before = q.int64(0);
        auto note = noteOnSlice(*project, before, QStringLiteral("first mm"), &error);
        QVERIFY2(note, qPrintable(error));
        note->bookmark = 3;
        QVERIFY(addNote(*project, *note, &error));
        // Re-import: the file changed, its source is imported again with new slice ids.
        const QString trace = dir.filePath(QStringLiteral("hand/hand.json"));
        QFile f(trace);
        QVERIFY(f.open(QIODevice::Append));
        f.write("\n");
        f.close();
        gmltest::importInto(*project, {dir.filePath(QStringLiteral("hand"))});
        auto again = project->db().prepare(
            "SELECT id FROM slice_info WHERE name = 'aten::mm' ORDER BY ts LIMIT 1");
        QVERIFY(again.step());
        const SliceId after = again.int64(0); // SQLite may give the new chunk the old id again
        // As if the new ids had moved on: the note's id names no slice.
        QVERIFY(project->db().exec("UPDATE note SET slice_id = 999999999"));
        const auto notes = listNotes(*project, &error);
        QCOMPARE(notes.size(), size_t(1));
        QCOMPARE(notes.front().slice, after);
        QCOMPARE(notes.front().bookmark, 3);
        QCOMPARE(notes.front().text, QStringLiteral("first mm"));
        // The new id is kept: read-only now, it is found without searching.
        project.reset();
        project = Project::open(file, Project::Mode::ReadOnly, &error);
        QCOMPARE(listNotes(*project, &error).front().slice, after);
    }
};

QTEST_GUILESS_MAIN(TestNotes)
#include "tst_notes.moc"
