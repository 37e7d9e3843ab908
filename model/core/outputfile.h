// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one door every file the program writes goes through (a report, an export, a figure, a
// gate's JUnit or Markdown, a fitted calibration, a state dump, an MLflow write-back).
//
// It refuses a path that is, or holds, what must never be replaced: the project that is open
// (`protect`), any GradeML project or SQLite database (by its name ending in .grademl or by the
// 16 bytes every SQLite file starts with) and SQLite's -wal, -shm and -journal files beside
// one, a directory, a device (/dev/full, /dev/null), a FIFO or socket, and a symbolic link
// (never followed: a link named as an output is refused, not written through). It writes to a
// temporary file beside the target and renames it over the target only once every byte was
// written and flushed (QSaveFile), so a failed, short (ENOSPC) or cancelled write leaves the
// old file as it was and no half file.
//
// Messages name the path and the reason, for the CLI's stderr and the studio's dialogs alike.
#include <QByteArray>
#include <QSaveFile>
#include <QString>
#include <QStringList>

#include <memory>

namespace gml {

// Why `path` must not be written as an output; empty when it may be. `protect`: paths that
// must be refused whatever they hold (the open project; compared after resolving links).
QString outputRefusal(const QString &path, const QStringList &protect = {});

class OutputFile
{
public:
    explicit OutputFile(QString path, QStringList protect = {});
    ~OutputFile(); // an uncommitted file is discarded: the target stays as it was
    OutputFile(const OutputFile &) = delete;
    OutputFile &operator=(const OutputFile &) = delete;

    // Checks the path and opens the temporary file; false with `error()` set.
    bool open();
    // Appends bytes; a short or failed write is remembered and reported by commit().
    bool write(QByteArrayView bytes);
    // The device for writers that stream (a QTextStream, QSvgGenerator, gzip); check with
    // commit().
    QIODevice *device();
    // Flushes and renames over the target; false with `error()` set (and nothing replaced).
    bool commit();
    // Drops what was written; the target stays as it was.
    void cancel();

    const QString &path() const { return m_path; }
    const QString &error() const { return m_error; }

private:
    QString m_path;
    QStringList m_protect;
    QString m_error;
    std::unique_ptr<QSaveFile> m_file;
    bool m_failed = false;
};

// The whole of `bytes` into `path` through an OutputFile; false with `*error` set
// ("PATH: why").
bool writeOutput(const QString &path, QByteArrayView bytes, QString *error,
                 const QStringList &protect = {});

} // namespace gml
