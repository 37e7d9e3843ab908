// SPDX-License-Identifier: GPL-3.0-or-later
// The public CLI forms: exit codes, info --json keys, read-only query.
#include "hugepages.h"
#include "testutil.h"
#include "writerlock.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTest>

namespace {

// The long options of a text: "--run", "--from-run" (man pages write them "\\-\\-run").
QSet<QString> longOptions(QString text)
{
    text.replace(QLatin1String("\\-"), QLatin1String("-"));
    QSet<QString> out;
    static const QRegularExpression re(QStringLiteral("--[a-z]+(-[a-z]+)*"));
    for (auto it = re.globalMatch(text); it.hasNext();)
        out.insert(it.next().captured());
    return out;
}

QString readSource(const QString &relative)
{
    QFile f(QStringLiteral(GRADEML_SOURCE_DIR "/") + relative);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    return QString::fromUtf8(f.readAll());
}

// `grademl --help`'s commands, each with the text of its entry ("  import PATH... --project ...").
QMap<QString, QString> helpCommands(const QString &help)
{
    QMap<QString, QString> out;
    QString current;
    static const QRegularExpression command(QStringLiteral("^  ([a-z]+) "));
    for (const QString &line : help.split(QLatin1Char('\n'))) {
        const auto m = command.match(line);
        if (m.hasMatch())
            current = m.captured(1);
        else if (!line.startsWith(QLatin1String("   ")))
            current.clear();
        if (!current.isEmpty())
            out[current] += line + QLatin1Char('\n');
    }
    return out;
}

// The man page's COMMANDS entries (".TP" then ".BI \"import \" ..."), each with its text.
QMap<QString, QString> manCommands(const QString &man)
{
    QMap<QString, QString> out;
    const QString commands =
        man.section(QLatin1String(".SH COMMANDS"), 1).section(QLatin1String("\n.SH "), 0, 0);
    static const QRegularExpression entry(QStringLiteral("^\\.BI \"([a-z]+)"));
    QString current;
    for (const QString &line : commands.split(QLatin1Char('\n'))) {
        const auto m = entry.match(line);
        if (m.hasMatch())
            current = m.captured(1);
        if (!current.isEmpty())
            out[current] += line + QLatin1Char('\n');
    }
    return out;
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

    struct Result
    {
        int code;
        QByteArray out;
        QByteArray err;
    };
    Result run(const QStringList &args)
    {
        const auto r = gmltest::runCli(args);
        return {r.code, r.out, r.err};
    }

private Q_SLOTS:
    // The man pages (packaging/man) list every command and every option that --help lists.
    void manPagesMatchHelp()
    {
        const Result help = run({QStringLiteral("--help")});
        QCOMPARE(help.code, 0);
        const auto fromHelp = helpCommands(QString::fromUtf8(help.out));
        const auto fromMan = manCommands(readSource(QStringLiteral("packaging/man/grademl.1")));
        QVERIFY(fromHelp.size() >= 12);
        QCOMPARE(fromMan.keys(), fromHelp.keys());
        for (auto it = fromHelp.begin(); it != fromHelp.end(); ++it) {
            const QSet<QString> missing =
                longOptions(it.value()) - longOptions(fromMan.value(it.key()));
            QVERIFY2(missing.isEmpty(),
                     qPrintable(
                         QStringLiteral("grademl.1 %1 lacks %2")
                             .arg(it.key(), QStringList(missing.values()).join(QLatin1Char(' ')))));
        }
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        const auto studio = gmltest::runProgram(QStringLiteral(GRADEML_STUDIO),
                                                {QStringLiteral("--help")}, 120, env);
        QCOMPARE(studio.code, 0);
        const QSet<QString> studioOptions = longOptions(QString::fromUtf8(studio.out));
        QVERIFY(studioOptions.contains(QStringLiteral("--screenshot")));
        const QSet<QString> missing =
            studioOptions -
            longOptions(readSource(QStringLiteral("packaging/man/grademl-studio.1")));
        QVERIFY2(missing.isEmpty(),
                 qPrintable(QStringLiteral("grademl-studio.1 lacks ") +
                            QStringList(missing.values()).join(QLatin1Char(' '))));
    }

    // Every command answers --help (issue 73): exit 0, its entries of `grademl --help` on
    // stdout (whatif and validate with their transform options); grademl-studio --help and
    // --version answer on a machine with no display at all (no platform plugin asked for).
    void everyCommandAnswersHelp()
    {
        const auto commands = helpCommands(QString::fromUtf8(run({QStringLiteral("--help")}).out));
        QVERIFY(commands.size() >= 20);
        for (auto it = commands.begin(); it != commands.end(); ++it) {
            for (const QString &flag : {QStringLiteral("--help"), QStringLiteral("-h")}) {
                const Result r = run({it.key(), flag});
                QVERIFY2(r.code == 0,
                         qPrintable(it.key() + QLatin1Char(' ') + QString::fromUtf8(r.err)));
                const QString out = QString::fromUtf8(r.out);
                QVERIFY2(out.startsWith(QLatin1String("usage: grademl\n")) &&
                             out.contains(it.value().section(QLatin1Char('\n'), 0, 0)),
                         qPrintable(it.key() + QLatin1String(": ") + out));
            }
        }
        QVERIFY(QString::fromUtf8(run({QStringLiteral("whatif"), QStringLiteral("--help")}).out)
                    .contains(QLatin1String("--measured-link")));
        QCOMPARE(run({QStringLiteral("frobnicate"), QStringLiteral("--help")}).code, 2);
        auto env = QProcessEnvironment::systemEnvironment();
        for (const char *var : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
            env.remove(QLatin1String(var));
        for (const QString &flag : {QStringLiteral("--help"), QStringLiteral("--version")}) {
            const auto studio =
                gmltest::runProgram(QStringLiteral(GRADEML_STUDIO), {flag}, 120, env);
            QVERIFY2(studio.code == 0, studio.err.constData());
            QVERIFY(studio.out.contains("grademl-studio"));
        }
    }

    void usageErrorsExitTwo()
    {
        QCOMPARE(run({}).code, 2);
        QCOMPARE(run({QStringLiteral("import")}).code, 2);
        QCOMPARE(run({QStringLiteral("import"), QStringLiteral("x.json")}).code, 2); // no --project
        QCOMPARE(run({QStringLiteral("frobnicate")}).code, 2);
        QCOMPARE(run({QStringLiteral("import"), QStringLiteral("/nonexistent/dir"),
                      QStringLiteral("--project"), QStringLiteral("/tmp/x.grademl")})
                     .code,
                 2);
    }

    // On a terminal the import draws a progress line (file, share, bytes of all; rate and time
    // left once measurable) and erases it before the per-file lines; piped, it stays quiet.
    void importProgressLineOnlyOnATerminal()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("script")).isEmpty())
            QSKIP("script(1) is not installed: no terminal to run the import on");
        if (gmltest::runProgram(QStringLiteral("script"),
                                {QStringLiteral("-q"), QStringLiteral("-e"), QStringLiteral("-c"),
                                 QStringLiteral("true"), QStringLiteral("/dev/null")})
                .code != 0)
            QSKIP("script(1) cannot open a pseudo-terminal here: no terminal to run the import on");
        QTemporaryDir dir;
        gmltest::writeFile(
            dir, QStringLiteral("in/a.json"),
            R"({"traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":2}]})");
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        const QString command =
            QStringLiteral("'%1' import '%2' --project '%3'")
                .arg(QStringLiteral(GRADEML_CLI), dir.filePath(QStringLiteral("in")), project);
        auto r = gmltest::runProgram(QStringLiteral("script"),
                                     {QStringLiteral("-q"), QStringLiteral("-e"),
                                      QStringLiteral("-c"), command, QStringLiteral("/dev/null")});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("a.json 0% · 0 B of 70 B\x1b[K"), r.out.constData());
        QVERIFY2(r.out.contains("\x1b[K\r\x1b[K[1/1] "),
                 r.out.constData()); // erased before the file's line
        QVERIFY2(r.out.contains("a.json: imported"), r.out.constData());
        QFile::remove(project);
        const auto piped = run({QStringLiteral("import"), dir.filePath(QStringLiteral("in")),
                                QStringLiteral("--project"), project});
        QCOMPARE(piped.code, 0);
        QVERIFY2(!piped.err.contains("\x1b[K") && !piped.err.contains(" of 70 B"),
                 piped.err.constData());
    }

    // Where the kernel gives huge pages on request only, GLIBC_TUNABLES gains
    // glibc.malloc.hugetlb=1, after whatever it held; a value that says anything of hugetlb is
    // the user's (or the restarted process's) and is kept; other kernel settings leave it.
    void hugePageTunablesDecided()
    {
        const std::string_view madvise = "always [madvise] never\n";
        QCOMPARE(gml::hugePageTunables(nullptr, madvise).value_or("-"),
                 std::string("glibc.malloc.hugetlb=1"));
        QCOMPARE(gml::hugePageTunables("glibc.malloc.arena_max=2", madvise).value_or("-"),
                 std::string("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"));
        QCOMPARE(gml::hugePageTunables("", madvise).value_or("-"),
                 std::string("glibc.malloc.hugetlb=1"));
        QVERIFY(!gml::hugePageTunables("glibc.malloc.hugetlb=0", madvise));
        QVERIFY(!gml::hugePageTunables("glibc.malloc.hugetlb=1", madvise));
        QVERIFY(!gml::hugePageTunables(nullptr, "[always] madvise never\n"));
        QVERIFY(!gml::hugePageTunables(nullptr, "always madvise [never]\n"));
        QVERIFY(!gml::hugePageTunables(nullptr, ""));
    }

    // `grademl import` of 64 MiB or more starts itself again with huge pages asked for
    // (hugepages.h): the same process, its arguments intact (a path with a space and letters
    // beyond ASCII), the setting in its environment while it imports where the kernel's mode is
    // madvise, and a user's own glibc.malloc.hugetlb=0 kept. The folder holds 64 MiB that is no
    // trace (a sparse file: the restart counts a folder's bytes without sniffing them, and the
    // import passes over it); the trace alone counts its own size, too little to restart for,
    // and "--project"'s file is not counted. The import is held at the project's writer lock,
    // taken here, to read its environment while it runs.
    void importStartsAgainWithHugePages()
    {
        QFile thp(QStringLiteral("/sys/kernel/mm/transparent_hugepage/enabled"));
        const QByteArray mode = thp.open(QIODevice::ReadOnly) ? thp.readAll() : QByteArray();
        QTemporaryDir dir;
        const QString trace = gmltest::writeFile(
            dir, QStringLiteral("a run/tr\u00e4ce \u00e9.json"),
            R"({"traceEvents":[{"ph":"X","name":"step","pid":1,"tid":1,"ts":1,"dur":5}]})");
        const QString folder = QFileInfo(trace).absolutePath();
        const QByteArray traceName = QFile::encodeName(trace);
        char *small[] = {const_cast<char *>("grademl"), const_cast<char *>("import"),
                         const_cast<char *>(traceName.constData())};
        QCOMPARE(gml::inputBytes(3, small, gml::kHugePagesFromBytes),
                 quint64(QFileInfo(trace).size()));
        // A file read as gzip counts eight times its size; links to nothing count 0, and the
        // walk of their folder goes on past them.
        QCOMPARE(gml::bytesAsRead("r0.json.gz", 10), 80ull);
        QCOMPARE(gml::bytesAsRead("r0.json", 10), 10ull);
        QCOMPARE(gml::bytesAsRead("gz", 10), 10ull);
        const QString links = dir.filePath(QStringLiteral("links"));
        QVERIFY(QDir().mkpath(links));
        for (int i = 0; i < 8; ++i)
            QVERIFY(QFile::link(dir.filePath(QStringLiteral("gone%1.json.gz").arg(i)),
                                links + QStringLiteral("/to-gone%1.json.gz").arg(i)));
        const QString kept = gmltest::writeFile(dir, QStringLiteral("links/kept.json"), "{}");
        const QByteArray linksName = QFile::encodeName(links);
        char *withLinks[] = {const_cast<char *>("grademl"), const_cast<char *>("import"),
                             const_cast<char *>(linksName.constData())};
        QCOMPARE(gml::inputBytes(3, withLinks, gml::kHugePagesFromBytes),
                 quint64(QFileInfo(kept).size()));
        QFile big(folder + QStringLiteral("/weights.bin"));
        QVERIFY(big.open(QIODevice::WriteOnly) && big.resize(qint64(gml::kHugePagesFromBytes)));
        big.close();
        const QByteArray folderName = QFile::encodeName(folder);
        char *large[] = {const_cast<char *>("grademl"), const_cast<char *>("import"),
                         const_cast<char *>("--project"),
                         const_cast<char *>(folderName.constData()),
                         const_cast<char *>(folderName.constData())};
        QCOMPARE(gml::inputBytes(5, large, gml::kHugePagesFromBytes),
                 quint64(QFileInfo(trace).size()) + gml::kHugePagesFromBytes);
        for (const bool usersOwn : {false, true}) {
            const QString project =
                dir.filePath(usersOwn ? QStringLiteral("u.grademl") : QStringLiteral("p.grademl"));
            gml::WriterLock lock;
            QString error;
            QVERIFY2(lock.acquire(project, {}, &error), qPrintable(error));
            auto env = QProcessEnvironment::systemEnvironment();
            env.remove(QStringLiteral("GLIBC_TUNABLES"));
            if (usersOwn)
                env.insert(QStringLiteral("GLIBC_TUNABLES"),
                           QStringLiteral("glibc.malloc.hugetlb=0"));
            QProcess cli;
            cli.setProcessEnvironment(env);
            cli.start(QStringLiteral(GRADEML_CLI),
                      {QStringLiteral("import"), folder, QStringLiteral("--project"), project});
            QVERIFY(cli.waitForStarted());
            const qint64 pid = cli.processId();
            QByteArray err;
            QElapsedTimer waited;
            waited.start();
            while (!err.contains("waiting for it to finish") && waited.elapsed() < 60'000 &&
                   cli.state() == QProcess::Running) {
                cli.waitForReadyRead(200);
                err += cli.readAllStandardError();
            }
            QVERIFY2(err.contains("waiting for it to finish"), err.constData());
            QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
            QVERIFY(environ.open(QIODevice::ReadOnly));
            const QList<QByteArray> vars = environ.readAll().split('\0');
            const QByteArray expected = usersOwn ? "GLIBC_TUNABLES=glibc.malloc.hugetlb=0"
                                        : mode.contains("[madvise]")
                                            ? "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"
                                            : QByteArray();
            QByteArray tunables; // the environment's GLIBC_TUNABLES entry, if any
            for (const QByteArray &v : vars)
                if (v.startsWith("GLIBC_TUNABLES="))
                    tunables = v;
            QVERIFY2(tunables == expected, tunables.constData());
            lock.release();
            QVERIFY(cli.waitForFinished(120'000));
            QCOMPARE(cli.exitCode(), 0);
            QVERIFY2(cli.readAllStandardOutput().contains("1 imported"), err.constData());
        }
    }

    void importInfoQuery()
    {
        QTemporaryDir dir;
        const QString good =
            gmltest::writeFile(dir, QStringLiteral("in/good.json"),
                               R"({"distributedInfo":{"rank":0,"world_size":1},"traceEvents":[
                {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":5}},
                {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":4,"dur":3,"args":{"correlation":5}},
                {"ph":"C","name":"mem","pid":1,"ts":1,"args":{"value":3}}]})");
        const QString project = dir.filePath(QStringLiteral("p.grademl"));
        auto r = run({QStringLiteral("import"), dir.filePath(QStringLiteral("in")),
                      QStringLiteral("--project"), project});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("1 imported"), r.out.constData());

        gmltest::writeFile(dir, QStringLiteral("in/bad.json"), R"({"traceEvents":[{"ph":)");
        r = run({QStringLiteral("import"), dir.filePath(QStringLiteral("in")),
                 QStringLiteral("--project"), project, QStringLiteral("--run"),
                 QStringLiteral("job")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("bad.json: at byte"), r.err.constData());

        r = run({QStringLiteral("info"), project, QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const auto runs =
            QJsonDocument::fromJson(r.out).object().value(QStringLiteral("runs")).toArray();
        QCOMPARE(runs.size(), 2);
        const auto first = runs[0].toObject();
        for (const char *key : {"name", "start_ns", "end_ns", "tracks", "slices", "counter_samples",
                                "flows", "sources"})
            QVERIFY2(first.contains(QLatin1String(key)), key);
        QCOMPARE(first.value(QStringLiteral("slices")).toInteger(), 2);
        QCOMPARE(first.value(QStringLiteral("counter_samples")).toInteger(), 1);
        QCOMPARE(first.value(QStringLiteral("flows")).toInteger(), 1);
        QCOMPARE(first.value(QStringLiteral("start_ns")).toInteger(), 1000);
        QCOMPARE(first.value(QStringLiteral("end_ns")).toInteger(), 7000);
        const auto src = first.value(QStringLiteral("sources")).toArray()[0].toObject();
        for (const char *key : {"path", "format", "status", "error", "warnings", "slices",
                                "counter_samples", "flows"})
            QVERIFY2(src.contains(QLatin1String(key)), key);
        QCOMPARE(src.value(QStringLiteral("status")).toString(), QStringLiteral("imported"));
        const auto job = runs[1].toObject();
        QCOMPARE(job.value(QStringLiteral("name")).toString(), QStringLiteral("job"));
        const auto badSrc = job.value(QStringLiteral("sources")).toArray()[0].toObject();
        QCOMPARE(badSrc.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        QVERIFY(
            badSrc.value(QStringLiteral("error")).toString().contains(QStringLiteral("at byte")));

        r = run({QStringLiteral("info"), project});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("stream 7 [stream] 1 slices"), r.out.constData());

        r = run({QStringLiteral("query"), project,
                 QStringLiteral("SELECT name, dur FROM slice_abs ORDER BY ts")});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, QByteArray("name,dur\ncudaLaunchKernel,2000\nk,3000\n"));

        r = run({QStringLiteral("query"), project, QStringLiteral("DELETE FROM track")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("read-only"), r.err.constData());
        // slice and flow are virtual tables over chunks, with no write path at all.
        r = run({QStringLiteral("query"), project, QStringLiteral("DELETE FROM slice")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("may not be modified"), r.err.constData());
        r = run(
            {QStringLiteral("query"), project, QStringLiteral("SELECT count(*) AS n FROM slice")});
        QCOMPARE(r.out, QByteArray("n\n2\n"));
        // Statements SQLite counts as read-only but that are not queries are refused in the
        // project's words, not run as silent no-ops (issue 33).
        for (const char *sql :
             {"PRAGMA writable_schema=1", "begin", "pragma optimize", "PRAGMA user_version=7",
              "ATTACH 'other.db' AS other", "SAVEPOINT a"}) {
            r = run({QStringLiteral("query"), project, QString::fromLatin1(sql)});
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.startsWith("grademl query: refused: ") &&
                         (r.err.contains("read-only") ||
                          r.err.contains("a query reads this project only")),
                     r.err.constData());
        }
        // PRAGMAs that only report still work, as statements and as table functions.
        r = run({QStringLiteral("query"), project, QStringLiteral("PRAGMA table_info(track)")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("cid,name,type"));
        r = run({QStringLiteral("query"), project,
                 QStringLiteral("SELECT count(*) > 0 FROM pragma_table_info('slice')")});
        QCOMPARE(r.out, QByteArray("count(*) > 0\n1\n"));
        r = run({QStringLiteral("query"), project, QStringLiteral("PRAGMA user_version")});
        QCOMPARE(r.code, 0);

        // Limits (issue 56): a query that never ends stops at its time limit, a value too big
        // fails as such, both said with how to change them; output already printed stays.
        const QString forever =
            QStringLiteral("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) ");
        r = run({QStringLiteral("query"), project, QStringLiteral("--timeout"), QStringLiteral("1"),
                 forever + QStringLiteral("SELECT count(*) FROM c")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("ran past its time limit of 1 s") && r.err.contains("--timeout"),
                 r.err.constData());
        r = run({QStringLiteral("query"), project, QStringLiteral("--timeout=1"),
                 forever + QStringLiteral("SELECT x FROM c")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("time limit") && r.out.startsWith("x\n1\n2\n3\n"),
                 r.err.constData());
        r = run({QStringLiteral("query"), project, QStringLiteral("SELECT hex(zeroblob(3e8))")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("larger than its limit of 256 MB"), r.err.constData());
        for (const char *bad : {"-1", "abc", "nan", "1e9"}) {
            r = run({QStringLiteral("query"), project, QStringLiteral("--timeout"),
                     QString::fromLatin1(bad), QStringLiteral("SELECT 1")});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("--timeout"), r.err.constData());
        }
        // A statement that opens with a comment is a statement, and "--" ends the options.
        r = run({QStringLiteral("query"), project,
                 QStringLiteral("-- how many slices\nSELECT count(*) AS n FROM slice")});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, QByteArray("n\n2\n"));
        r = run({QStringLiteral("query"), project, QStringLiteral("--"),
                 QStringLiteral("--x\nSELECT 7 AS n")});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, QByteArray("n\n7\n"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
