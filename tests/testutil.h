// SPDX-License-Identifier: GPL-3.0-or-later
// Small helpers shared by the tests: temporary files, gzip, one-shot imports, SQL scalars.
#pragma once

#include "gziputil.h"
#include "project.h"
#include "schema.h"

#include <QByteArray>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <string>

namespace gmltest {

// Built with AddressSanitizer (the asan preset, clang: __has_feature; gcc:
// __SANITIZE_ADDRESS__). A check that is slow under it proves the same on less there (fewer or
// smaller inputs); the release suite runs it whole.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif
#else
inline constexpr bool kUnderSanitizer = false;
#endif

// A program run to its end: exit code (-1 when it crashed or did not finish), stdout, stderr.
struct CliResult
{
    int code = -1;
    QByteArray out, err;
    bool finished = false; // false: still running after the time allowed, then killed
    bool crashed = false;  // ended by a signal
    QString outText() const { return QString::fromUtf8(out); }
    QString all() const { return QString::fromUtf8(out + err); } // stdout then stderr
};

// The one runner of the tests' child processes: `program` run with `args` for at most
// `seconds`; one still running then is killed and reported unfinished (a hang is the caller's
// failure to report, as tst_badinputs does).
inline CliResult
runProgram(const QString &program, const QStringList &args, int seconds = 120,
           const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    CliResult r;
    r.finished = p.waitForFinished(seconds * 1000);
    if (!r.finished) {
        p.kill();
        p.waitForFinished();
    }
    r.crashed = p.exitStatus() != QProcess::NormalExit;
    r.code = r.finished && !r.crashed ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

#ifdef GRADEML_CLI
// The grademl executable run to its end; one that does not finish in `seconds` ends the test.
inline CliResult runCli(const QStringList &args,
                        const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment(),
                        int seconds = 120)
{
    CliResult r = runProgram(QStringLiteral(GRADEML_CLI), args, seconds, env);
    if (!r.finished)
        qFatal("grademl %s did not finish in %d s", qPrintable(args.join(QLatin1Char(' '))),
               seconds);
    return r;
}
#endif

inline QString writeFile(const QTemporaryDir &dir, const QString &name, const QByteArray &bytes)
{
    const QString path = dir.filePath(name);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write(bytes);
    return QFileInfo(path).absoluteFilePath();
}

// Copies the files of folder `from` into `to` (made when missing): a demo folder of the
// test's own, since opening a folder writes its project beside the traces.
inline void copyFolder(const QString &from, const QString &to)
{
    QDir().mkpath(to);
    for (const QFileInfo &fi : QDir(from).entryInfoList(QDir::Files))
        QFile::copy(fi.absoluteFilePath(), to + QLatin1Char('/') + fi.fileName());
}

// Sets a file's modification time; false when it cannot.
inline bool setMtime(const QString &path, const QDateTime &time)
{
    QFile f(path);
    return f.open(QIODevice::ReadWrite) && f.setFileTime(time, QFileDevice::FileModificationTime);
}

inline qint64 scalar(gml::Project &p, const char *sql)
{
    return p.db().scalar(sql, -1);
}

inline QString text(gml::Project &p, const QString &sql)
{
    auto st = p.db().prepare(sql.toStdString());
    return st.step() ? st.text(0) : QString();
}

// Makes the empty database `db` a project file of schema `version` as that version wrote it
// (its migrations' SQL, not their data steps, and its user_version), for a test of the
// upgrade from it. Empty, or what failed.
inline QString writeSchema(gml::SqliteDb &db, int version)
{
    QString error;
    for (int v = 0; v < version; ++v)
        if (!db.exec(gml::schema::migrations()[size_t(v)], &error))
            return error;
    if (!db.exec("PRAGMA user_version=" + std::to_string(version) + ";", &error))
        return error;
    return {};
}

// Whether SQLite's plan for `sql` sorts (a TEMP B-TREE): an order the virtual tables promise
// needs none.
inline bool usesTempSort(gml::Project &p, const std::string &sql)
{
    auto st = p.db().prepare("EXPLAIN QUERY PLAN " + sql);
    while (st.step())
        if (st.text(3).contains(QLatin1String("TEMP B-TREE")))
            return true;
    return false;
}

// A new project in an open transaction, with a run and a source for a TraceWriter to write.
struct WriterFixture
{
    QTemporaryDir dir;
    std::unique_ptr<gml::Project> p;
    gml::RunId run = 0;
    gml::SourceId source = 0;

    WriterFixture()
    {
        QString error;
        p = gml::Project::open(dir.filePath(QStringLiteral("w.grademl")),
                               gml::Project::Mode::ReadWrite, &error);
        QVERIFY2(p, qPrintable(error));
        QVERIFY(p->begin(&error));
        run = p->ensureRun(QStringLiteral("r"), &error);
        QVERIFY(p->db().exec(
            "INSERT INTO source(run_id, path, format, status) VALUES(1, 'x', 'test', 'failed')"));
        source = p->db().lastInsertRowId();
    }
};

inline QString sharedTraces()
{
    return QStringLiteral(GRADEML_SHARED_TRACES);
}

// The shared single-job GPU traces (Kineto and Nsight), as folders under sharedTraces().
inline QStringList sharedGpuTraces()
{
    return {QStringLiteral("pytorch_kineto/hta_2022_format_a100_rank3of8"),
            QStringLiteral("pytorch_kineto/hta_alexnet_a100"),
            QStringLiteral("pytorch_kineto/hta_amd_mi250_rocm62"),
            QStringLiteral("pytorch_kineto/hta_cuda_event_sync_multistream_a100"),
            QStringLiteral("pytorch_kineto/hta_nccl_allreduce_rank0of2_a100"),
            QStringLiteral("pytorch_kineto/hta_ns_resolution_v100"),
            QStringLiteral("pytorch_kineto/hta_simple_add_with_et_a100"),
            QStringLiteral("pytorch_kineto/kineto_docs_tiny_h100"),
            QStringLiteral("pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"),
            QStringLiteral("pytorch_kineto/param_linear_rtx2080ti"),
            QStringLiteral("nsight_systems/nsysai_h100_2gpu_mfu_before"),
            QStringLiteral("nsight_systems/nsysai_rtx3080_tiny_full")};
}

// Skips the calling test when ../shared/traces is not beside the repository.
#define GML_REQUIRE_SHARED(path)                                                                   \
    do {                                                                                           \
        if (!QFileInfo::exists(gmltest::sharedTraces() + QStringLiteral("/") + (path)))            \
            QSKIP(qPrintable(QStringLiteral("real trace %1 not found under %2 (../shared is "      \
                                            "not beside the repository)")                          \
                                 .arg(QString(path), gmltest::sharedTraces())));                   \
    } while (0)

} // namespace gmltest
