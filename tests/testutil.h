// SPDX-License-Identifier: GPL-3.0-or-later
// Small helpers shared by the tests: temporary files, gzip, one-shot imports, SQL scalars.
#pragma once

#include "gziputil.h"
#include "project.h"

#include <QByteArray>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QTest>


namespace gmltest {

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

inline QString sharedTraces()
{
    return QStringLiteral(GRADEML_SHARED_TRACES);
}

// Skips the calling test when ../shared/traces is not beside the repository.
#define GML_REQUIRE_SHARED(path)                                                               \
    do {                                                                                       \
        if (!QFileInfo::exists(gmltest::sharedTraces() + QStringLiteral("/") + (path)))         \
            QSKIP(qPrintable(QStringLiteral("real trace %1 not found under %2 (../shared is "  \
                                            "not beside the repository)")                      \
                                 .arg(QString(path), gmltest::sharedTraces())));               \
    } while (0)

} // namespace gmltest
