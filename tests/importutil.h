// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers for the importer tests: a fresh project and a scan-and-import of paths into it.
#pragma once

#include "folderscanner.h"
#include "importjob.h"
#include "project.h"
#include "testutil.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimeZone>

#include <memory>

namespace gmltest {

// A new project file in `dir`; aborts the test binary when it cannot be made.
inline std::unique_ptr<gml::Project> newProject(const QTemporaryDir &dir)
{
    QString error;
    auto p = gml::Project::open(dir.filePath(QStringLiteral("p.grademl")),
                                gml::Project::Mode::ReadWrite, &error);
    if (!p)
        qFatal("cannot open project: %s", qPrintable(error));
    return p;
}

// Scans `paths` (into run `run` when given) and imports them, with an explicit host time zone
// when `zone` is valid.
inline QList<gml::SourceReport> importInto(gml::Project &project, const QStringList &paths,
                                           const QString &run = {}, const QTimeZone &zone = {})
{
    QStringList errors;
    gml::ImportJob job(project);
    job.setTimeZone(zone);
    return job.run(gml::scanInputs(paths, run, &errors));
}

// A data-parallel job written by grademl-tracegen into DIR/job (its path); with skewUs, the
// second half of the ranks is on a host whose clock is that far ahead. Aborts on failure.
// `extra`: more grademl-tracegen options (--healthy, --monitor, --layers N).
inline QString generateJob(const QTemporaryDir &dir, int ranks, int steps, qint64 skewUs = 0,
                           const QStringList &extra = {})
{
    const QString out = dir.filePath(QStringLiteral("job"));
    QDir().mkpath(out);
    const QStringList args{QStringLiteral("--out"),          out,
                           QStringLiteral("--ranks"),        QString::number(ranks),
                           QStringLiteral("--steps"),        QString::number(steps),
                           QStringLiteral("--host-skew-us"), QString::number(skewUs)};
    const auto gen = runProgram(QStringLiteral(GRADEML_TRACEGEN), args + extra);
    if (gen.code != 0)
        qFatal("grademl-tracegen failed: %s", gen.err.constData());
    return out;
}

} // namespace gmltest
