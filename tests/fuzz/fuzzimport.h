// SPDX-License-Identifier: GPL-3.0-or-later
// The libFuzzer driver shared by the importer targets: each input is written to a file (the
// importers read files) and imported by one importer into an in-memory project, inside a
// transaction that is rolled back, exactly as ImportJob runs it, writer limits included.
// Any crash, sanitizer report, uncaught exception or hang is a finding.
#pragma once

#include "importer.h"
#include "project.h"
#include "tracewriter.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QString>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <unistd.h>

namespace gmlfuzz {

// The importer's input file, alone in a folder of this process (importers look at sibling
// files: a log's time anchor), in /dev/shm when there is one (no disk I/O per run).
inline QString inputPath(const char *suffix)
{
    struct Scratch
    {
        QString dir;
        ~Scratch() { QDir(dir).removeRecursively(); } // at exit; a crash leaves it for a look
    };
    static const Scratch scratch = [] {
        QByteArray tmpl =
            access("/dev/shm", W_OK) == 0 ? "/dev/shm/gml-fuzz-XXXXXX" : "/tmp/gml-fuzz-XXXXXX";
        if (!mkdtemp(tmpl.data()))
            abort();
        return Scratch{QString::fromLocal8Bit(tmpl)};
    }();
    return scratch.dir + QStringLiteral("/input") + QLatin1String(suffix);
}

// The in-memory project every input is imported into (with the QCoreApplication that QTimeZone
// and friends want).
inline gml::Project &project()
{
    static int argc = 1;
    static char name[] = "fuzz";
    static char *argv[] = {name, nullptr};
    static QCoreApplication app(argc, argv);
    static std::unique_ptr<gml::Project> project = [] {
        QString error;
        auto p =
            gml::Project::open(QStringLiteral(":memory:"), gml::Project::Mode::ReadWrite, &error);
        if (!p) {
            fprintf(stderr, "cannot open an in-memory project: %s\n", qPrintable(error));
            abort();
        }
        return p;
    }();
    return *project;
}

// Imports one input; rolled back unless `keep` (a target's own fixed run, imported once).
inline int importOnce(const gml::Importer &importer, const uint8_t *data, size_t size,
                      const char *suffix, bool keep = false)
{
    gml::Project *project = &gmlfuzz::project();
    const QString path = inputPath(suffix);
    {
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            abort();
        f.write(reinterpret_cast<const char *>(data), qint64(size));
    }
    QString error;
    if (!project->begin(&error))
        abort();
    const gml::RunId run = project->ensureRun(QStringLiteral("fuzz"), &error);
    auto st = project->db().prepare("INSERT INTO source(run_id, path, format, size, status) "
                                    "VALUES(?, ?, ?, ?, 'failed')");
    st.bind(1, run);
    st.bind(2, path);
    st.bind(3, importer.format());
    st.bind(4, qint64(size));
    if (!st.exec())
        abort();
    gml::TraceWriter writer(*project, run, project->db().lastInsertRowId());
    gml::ImportContext ctx;
    ctx.path = path;
    ctx.fileSize = qint64(size);
    ctx.writer = &writer;
    ctx.timeZone = QTimeZone::utc();
    gml::ImportOutcome outcome = importer.import(ctx);
    if (outcome.ok()) {
        outcome.warnings += writer.warnings();
        (void)writer.finish(outcome.warnings, &error);
        // What was written reads back: every slice with its args, every flow.
        (void)project->db().scalar("SELECT count(*) + sum(length(args)) FROM slice");
        (void)project->db().scalar("SELECT count(*) FROM flow");
    }
    if (keep) {
        if (!outcome.ok() || !project->commit(&error)) {
            fprintf(stderr, "cannot import the fixed run: %s\n", qPrintable(outcome.error + error));
            abort();
        }
        return 0;
    }
    project->rollback();
    return 0;
}

} // namespace gmlfuzz

// One target per importer: GML_FUZZ_IMPORTER(ClassName, ".suffix").
#define GML_FUZZ_IMPORTER(Class, suffix)                                                           \
    extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                        \
    {                                                                                              \
        static const gml::Class importer;                                                          \
        return gmlfuzz::importOnce(importer, data, size, suffix);                                  \
    }
