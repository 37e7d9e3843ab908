// SPDX-License-Identifier: GPL-3.0-or-later
#include "compactjson.h"
#include "project.h"
#include "schema.h"
#include "sqlitedb.h"
#include "testutil.h"

#include <QFile>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTest>

#include <cmath>
#include <functional>
#include <limits>

using namespace gml;

class TestProject : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The project's JSON columns are written by compactJson, which must give Qt's compact text
    // byte for byte: every kind of value, the strings Qt escapes or cannot encode (controls, a
    // lone surrogate), numbers Qt writes as integers or in its shortest double form, and
    // values as Qt's parser stores them.
    void compactJsonIsQtsCompactJson()
    {
        const auto qt = [](const auto &v) {
            return QJsonDocument(v).toJson(QJsonDocument::Compact).toStdString();
        };
        const double inf = std::numeric_limits<double>::infinity();
        const QJsonArray numbers{0,
                                 -1,
                                 qint64(1) << 62,
                                 std::numeric_limits<qint64>::min(),
                                 1e6,
                                 0.1,
                                 -0.0,
                                 1e-7,
                                 1e21,
                                 123.456,
                                 1.0 / 3,
                                 9007199254740993.0,
                                 std::nan(""),
                                 inf,
                                 -inf,
                                 2.5e-308};
        QString strings[] = {
            QStringLiteral("plain"),
            QStringLiteral("quote \" backslash \\ slash / tab \t nl \n cr \r bs \b ff \f"),
            QString(QChar(0x01)) + QChar(0x1f) + QChar(0x7f),
            QStringLiteral("ü é ∑ 中文 😀"),
            QString(QChar(0xd800)) + QStringLiteral("x"), // a lone high surrogate
            QString(QChar(0xdc00)),                       // a lone low surrogate
            QString(QChar(0xd83d)),                       // high, at the end
            QString(QChar(0xfffe)) + QChar(0xffff) + QString::fromUcs4(U"\U0001fffe"),
            QString(),
        };
        QJsonObject all;
        all.insert(QStringLiteral("numbers"), numbers);
        QJsonArray texts;
        for (const QString &t : strings) {
            texts.append(t);
            all.insert(t, t); // as keys too
        }
        all.insert(QStringLiteral("texts"), texts);
        all.insert(QStringLiteral("literals"), QJsonArray{true, false, QJsonValue()});
        all.insert(QStringLiteral("empty"), QJsonObject{{QStringLiteral("a"), QJsonArray()},
                                                        {QStringLiteral("o"), QJsonObject()}});
        QCOMPARE(compactJson(all), qt(all));
        QCOMPARE(compactJson(numbers), qt(numbers));
        QCOMPARE(compactJson(QJsonObject()), qt(QJsonObject()));
        // As Qt's parser stores numbers: integers that fit as integers, the rest as doubles.
        const QJsonObject parsed =
            QJsonDocument::fromJson(
                R"({"z":1000000,"a":1.0,"e":1e3,"big":12345678901234567890,"neg":-0,)"
                R"("f":[0.5,1e-9,-12.25e2],"esc":"\u00fc\ud83d\ude00\u0001\/"})")
                .object();
        QVERIFY(!parsed.isEmpty());
        QCOMPARE(compactJson(parsed), qt(parsed));
        // Random nests of all of the above, with random keys and numbers.
        QRandomGenerator rng(74);
        std::function<QJsonValue(int)> random = [&](int depth) -> QJsonValue {
            switch (rng.bounded(depth > 3 ? 5 : 7)) {
            case 0:
                return qint64(rng.generate64());
            case 1:
                return std::ldexp(rng.generateDouble() - 0.5, rng.bounded(-80, 80));
            case 2:
                return QString(strings[rng.bounded(int(std::size(strings)))] +
                               QString::number(rng.bounded(1000)));
            case 3:
                return rng.bounded(2) == 0;
            case 4:
                return numbers.at(rng.bounded(int(numbers.size())));
            case 5: {
                QJsonArray a;
                for (int i = rng.bounded(6); i > 0; --i)
                    a.append(random(depth + 1));
                return a;
            }
            default: {
                QJsonObject o;
                for (int i = rng.bounded(6); i > 0; --i)
                    o.insert(QString(strings[rng.bounded(int(std::size(strings)))] +
                                     QString::number(rng.bounded(100))),
                             random(depth + 1));
                return o;
            }
            }
        };
        for (int round = 0; round < 300; ++round) {
            QJsonObject o;
            for (int i = rng.bounded(8); i > 0; --i)
                o.insert(QString::number(rng.bounded(50)), random(0));
            QCOMPARE(compactJson(o), qt(o));
        }
    }

    void createsSchemaInWalMode()
    {
        QTemporaryDir dir;
        QString error;
        auto p = Project::open(dir.filePath(QStringLiteral("a.grademl")), Project::Mode::ReadWrite,
                               &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->schemaVersion(), schema::currentVersion());
        QCOMPARE(gmltest::text(*p, QStringLiteral("PRAGMA journal_mode")), QStringLiteral("wal"));
        QCOMPARE(gmltest::scalar(*p, "PRAGMA foreign_keys"), 1);
        // Commits fold the log into the file once it holds 4 MiB: 64 of its 64 KiB pages.
        QCOMPARE(gmltest::scalar(*p, "PRAGMA page_size"), 65536);
        QCOMPARE(gmltest::scalar(*p, "PRAGMA wal_autocheckpoint"), 64);
        for (const char *table : {"experiment", "workload", "run", "source", "track", "slice",
                                  "counter", "flow", "scenario", "string"}) {
            const QString sql = QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name='%1'")
                                    .arg(QLatin1String(table));
            QCOMPARE(p->db().scalar(sql.toStdString()), 1);
        }
    }

    // Kept statements (issue 74): a query's statement is handed out again for the same text,
    // reset and unbound; two alive at once are two statements; a change of the schema lets them
    // go, and one that outlives its connection is finalised, not kept.
    void statementsAreKeptAndHandedOutAgain()
    {
        QTemporaryDir dir;
        SqliteDb db;
        QString error;
        QVERIFY2(db.open(dir.filePath(QStringLiteral("s.db")), false, &error), qPrintable(error));
        QVERIFY(db.exec("CREATE TABLE t(a INTEGER)", &error));
        sqlite3_stmt *first = nullptr;
        {
            auto ins = db.prepare("INSERT INTO t(a) VALUES(?)");
            first = ins.handle();
            ins.bind(1, qint64(7));
            QVERIFY(ins.exec());
            auto sel = db.prepare("SELECT a FROM t");
            QVERIFY(sel.step()); // left mid-way: handed back, it is reset
        }
        {
            auto ins = db.prepare("INSERT INTO t(a) VALUES(?)");
            QCOMPARE(ins.handle(), first);
            QVERIFY(ins.exec()); // unbound: NULL
            auto again = db.prepare("INSERT INTO t(a) VALUES(?)");
            QVERIFY(again.handle() != first);
            auto sel = db.prepare("SELECT count(*), count(a) FROM t");
            QVERIFY(sel.step());
            QCOMPARE(sel.int64(0), qint64(2));
            QCOMPARE(sel.int64(1), qint64(1));
        }
        // Both are kept; a table dropped lets every kept statement go, and the query fails
        // when prepared, as it would without the cache.
        QVERIFY(db.exec("DROP TABLE t", &error));
        QVERIFY(!db.prepare("SELECT a FROM t").isValid());
        QVERIFY(db.exec("CREATE TABLE t(a INTEGER, b TEXT)", &error));
        auto late = db.prepare("SELECT count(*) FROM t");
        QVERIFY(late.isValid());
        db.close(); // `late` outlives its connection: finalised when destroyed
        QVERIFY(db.open(dir.filePath(QStringLiteral("s.db")), false, &error));
        QCOMPARE(db.scalar("SELECT count(*) FROM t"), qint64(0));
    }

    // Grouped commits (issue 74): inside a batch each begin..commit is a savepoint, a rollback
    // takes back that part alone (its strings too), another connection sees the batch only
    // once it is committed (settle, the batch's age, endBatch), and nothing is left open.
    void batchedCommitsRollBackAlone()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.grademl"));
        QString error;
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        QVERIFY2(p, qPrintable(error));
        auto reader = Project::open(path, Project::Mode::ReadOnly, &error);
        QVERIFY2(reader, qPrintable(error));
        p->startBatch(60'000);
        QVERIFY(p->begin(&error));
        QVERIFY(p->ensureRun(QStringLiteral("kept"), &error) > 0);
        const StringId kept = p->intern("kept name");
        QVERIFY(p->commit(&error));
        QVERIFY(p->db().inTransaction()); // committed into the batch, not yet to the file
        QVERIFY(p->begin(&error));
        QVERIFY(p->ensureRun(QStringLiteral("dropped"), &error) > 0);
        const StringId dropped = p->intern("dropped name");
        QVERIFY(dropped > kept);
        p->rollback();
        QVERIFY(p->db().inTransaction());
        QCOMPARE(reader->db().scalar("SELECT count(*) FROM run"), qint64(0));
        QVERIFY(p->settle(&error));
        QVERIFY(!p->db().inTransaction());
        QCOMPARE(reader->db().scalar("SELECT count(*) FROM run"), qint64(1));
        QVERIFY(reader->findRun(QStringLiteral("kept")));
        QVERIFY(!reader->findRun(QStringLiteral("dropped")));
        QCOMPARE(p->string(kept), QStringLiteral("kept name"));
        // The id the rolled-back part used is handed out again, for whatever comes next.
        QVERIFY(p->begin(&error));
        QCOMPARE(p->intern("next name"), dropped);
        QVERIFY(p->commit(&error));
        QVERIFY(p->endBatch(&error));
        QVERIFY(!p->db().inTransaction());
        QCOMPARE(reader->db().scalar("SELECT count(*) FROM string WHERE value='next name'"),
                 qint64(1));
        // After the batch, a transaction is a transaction again.
        QVERIFY(p->begin(&error));
        QVERIFY(p->ensureRun(QStringLiteral("alone"), &error) > 0);
        QVERIFY(p->commit(&error));
        QVERIFY(!p->db().inTransaction());
    }

    // Version 15 (issue 74): a version 14 project opens, its sources kept, with the index that
    // finds a source by its size (an import's search for copies used to scan every source).
    void version14GainsTheSourceSizeIndex()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v14.grademl"));
        {
            SqliteDb db;
            QString e;
            QVERIFY(db.open(path, false, &e));
            const QString schemaError = gmltest::writeSchema(db, 14);
            QVERIFY2(schemaError.isEmpty(), qPrintable(schemaError));
            QVERIFY(db.exec("INSERT INTO run(id, name) VALUES(1, 'r');"
                            "INSERT INTO source(id, run_id, path, format, size, status) VALUES(1, "
                            "1, '/x/rank0.json', 'chrome-trace', 44976, 'imported');"));
        }
        QString error;
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->schemaVersion(), schema::currentVersion());
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM sqlite_master WHERE name = "
                                     "'source_size'"),
                 1);
        auto plan = p->db().prepare("EXPLAIN QUERY PLAN SELECT id FROM source WHERE size = 44976 "
                                    "AND hash = 'h' AND format = 'chrome-trace' AND status = "
                                    "'imported'");
        QVERIFY(plan.step());
        QVERIFY2(plan.text(3).contains(QLatin1String("source_size")), qPrintable(plan.text(3)));
        QCOMPARE(gmltest::scalar(*p, "SELECT id FROM source WHERE size = 44976"), 1);
    }

    void reopenKeepsDataAndDoesNotMigrateAgain()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.grademl"));
        QString error;
        {
            auto p = Project::open(path, Project::Mode::ReadWrite, &error);
            QVERIFY(p->ensureRun(QStringLiteral("r1"), &error) > 0);
        }
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM run"), 1);
        QCOMPARE(*p->findRun(QStringLiteral("r1")), p->ensureRun(QStringLiteral("r1"), &error));
    }

    void refusesForeignDatabases()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("other.sqlite"));
        {
            SqliteDb db;
            QString e;
            QVERIFY(db.open(path, false, &e));
            QVERIFY(db.exec("CREATE TABLE t(x)"));
        }
        QString error;
        QVERIFY(!Project::open(path, Project::Mode::ReadWrite, &error));
        QVERIFY2(error.contains(QStringLiteral("not a GradeML project")), qPrintable(error));
        QVERIFY(!Project::open(dir.filePath(QStringLiteral("missing.grademl")),
                               Project::Mode::ReadOnly, &error));
        QVERIFY2(error.contains(QStringLiteral("no such project")), qPrintable(error));
    }

    void refusesNewerSchema()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.grademl"));
        QString error;
        {
            auto p = Project::open(path, Project::Mode::ReadWrite, &error);
            QVERIFY(p->db().exec("PRAGMA user_version=999"));
        }
        QVERIFY(!Project::open(path, Project::Mode::ReadWrite, &error));
        QVERIFY2(error.contains(QStringLiteral("newer")), qPrintable(error));
    }

    void internsStringsAndForgetsThemOnRollback()
    {
        QTemporaryDir dir;
        QString error;
        auto p = Project::open(dir.filePath(QStringLiteral("a.grademl")), Project::Mode::ReadWrite,
                               &error);
        QVERIFY(p->begin(&error));
        const StringId a = p->intern("aten::addmm");
        QCOMPARE(p->intern("aten::addmm"), a);
        QVERIFY(p->commit(&error));
        QVERIFY(p->begin(&error));
        const StringId b = p->intern("volta_sgemm");
        QVERIFY(b != a);
        p->rollback();
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM string"), 1);
        QVERIFY(p->begin(&error));
        const StringId c = p->intern("volta_sgemm");
        QVERIFY(p->commit(&error));
        QCOMPARE(p->string(c), QStringLiteral("volta_sgemm"));
        QCOMPARE(p->string(a), QStringLiteral("aten::addmm"));
    }

    void deletedReplacedAndCutShort();
    void readOnlyRefusesWrites()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.grademl"));
        QString error;
        {
            auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        }
        auto p = Project::open(path, Project::Mode::ReadOnly, &error);
        QVERIFY2(p, qPrintable(error));
        QVERIFY(!p->db().exec("INSERT INTO run(name) VALUES('x')", &error));
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM run"), 0);
    }
};

void TestProject::deletedReplacedAndCutShort()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("a.grademl"));
    QString error;
    {
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        QVERIFY2(p, qPrintable(error));
        QVERIFY(p->fileProblem().isEmpty());
        // Deleted while open (an import reported "imported", exit 0, before: issue 33).
        QVERIFY(QFile::remove(path));
        QVERIFY2(p->fileProblem().contains(
                     QLatin1String("the project file was deleted while it was open")),
                 qPrintable(p->fileProblem()));
    }
    {
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        QVERIFY(p->ensureRun(QStringLiteral("r1"), &error) > 0);
        QVERIFY(QFile::copy(path, path + QStringLiteral(".copy")));
        QVERIFY(QFile::remove(path) && QFile::rename(path + QStringLiteral(".copy"), path));
        QVERIFY2(p->fileProblem().contains(
                     QLatin1String("the project file was replaced while it was open")),
                 qPrintable(p->fileProblem()));
    }
    // Its log and shared memory go with it (issue 56): left behind, the next open of the file at
    // the path (a backup copied back) read as damaged, and the next import wrote the stale log
    // into it.
    {
        const QString backup = dir.filePath(QStringLiteral("backup.grademl"));
        QVERIFY(QFile::copy(path, backup));
        for (const bool replace : {false, true}) {
            {
                auto p = Project::open(path, Project::Mode::ReadWrite, &error);
                QVERIFY2(p, qPrintable(error));
                QVERIFY(p->begin(&error));
                for (int i = 0; i < 200; ++i)
                    QVERIFY(p->ensureRun(QStringLiteral("lost %1").arg(i), &error) > 0);
                QVERIFY(p->commit(&error));
                QVERIFY(QFileInfo::exists(path + QStringLiteral("-wal")));
                QVERIFY(QFile::remove(path));
                if (replace)
                    QVERIFY(QFile::copy(backup, path));
            }
            QVERIFY(!QFileInfo::exists(path + QStringLiteral("-wal")));
            QVERIFY(!QFileInfo::exists(path + QStringLiteral("-shm")));
            if (!replace)
                QVERIFY(QFile::copy(backup, path));
            auto p = Project::open(path, Project::Mode::ReadWrite, &error);
            QVERIFY2(p, qPrintable(error));
            QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM run WHERE name LIKE 'lost%'"), 0);
            QCOMPARE(gmltest::text(*p, QStringLiteral("PRAGMA quick_check")), QStringLiteral("ok"));
            p.reset();
            QVERIFY(QFile::remove(path));
            QVERIFY(QFile::copy(backup, path));
        }
    }
    // Cut short: said as damage with how much is there, not "not an SQLite database".
    {
        auto p = Project::open(path, Project::Mode::ReadWrite, &error);
        for (int i = 0; i < 50; ++i)
            QVERIFY(p->ensureRun(QStringLiteral("run %1").arg(i), &error) > 0);
        QVERIFY(p->db().exec("PRAGMA wal_checkpoint(TRUNCATE);"));
    }
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadWrite));
    const qint64 size = f.size();
    QVERIFY(size > 65536 && f.resize(100)); // cut inside its first page, after the header
    f.close();
    QVERIFY(!Project::open(path, Project::Mode::ReadOnly, &error));
    QVERIFY2(
        error.contains(QLatin1String("the project file is damaged: it is cut short (100 of the")),
        qPrintable(error));
}

QTEST_GUILESS_MAIN(TestProject)
#include "tst_project.moc"
